//! `bfs bench --gpus`: the search over several GPUs ([`crate::multi`])
//! beside one GPU's `auto`, Graph500 style: many sources, every search
//! validated, the harmonic mean of each search's traversed edges per second
//! with edges counted as Graph500 counts them (input edge tuples within the
//! component). Strong scaling reads across one graph's rows; weak scaling
//! across graphs of as many vertices per GPU.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use super::{Row, timing_cells};
use crate::gpu::{Gpu, Search, Step, Variant, median_exchange_per_level};
use crate::graph::generate::sources_with_edges;
use crate::multi::direction_optimizing::RankMemory;
use crate::multi::{self, Ranks};
use crate::validate::Verifier;
use crate::{Bfs, Csr, Error, Result};

/// The heading of the scaling section of `BENCHMARKS.md`.
pub const SECTION: &str = "## Scaling over GPUs";

/// How long a rank waits for the others to join: every rank builds its
/// part of a large graph's rows before joining.
const JOIN_TIMEOUT: Duration = Duration::from_secs(300);

/// A benchmarked graph's size and how long it took to build.
pub struct Built {
    pub name: String,
    pub vertices: u32,
    pub csr_entries: u64,
    /// Graph500's input edge tuples, where the graph knows them.
    pub input_edges: Option<u64>,
    pub seconds: f64,
}

/// A row: one search path on `gpus` GPUs.
pub struct ScalingRow {
    pub gpus: u32,
    pub row: Row,
    /// The median over searches of their exchange time per level
    /// ([`crate::gpu::Exchange`]); none for `auto`.
    pub exchange_per_level: Option<Duration>,
    /// The device memory of the GPU that used the most: what the search
    /// allocated, and what the GPU had in use (context and NCCL included).
    pub memory: Option<RankMemory>,
}

/// Times `graph` from `sources` random sources (with an edge): with `auto`
/// on the first GPU, then over each of `gpu_counts` GPUs through NCCL,
/// handing each row to `on_row` as it is done (a Kronecker 28 graph's rows
/// take minutes each). Each search is validated ([`Verifier`]); each
/// path's first search is a warm-up, not timed.
pub fn graph(
    name: &str,
    graph: &Csr,
    gpu_counts: &[u32],
    sources: usize,
    seed: u64,
    on_row: &mut dyn FnMut(ScalingRow) -> Result<()>,
) -> Result<()> {
    let sources = sources_with_edges(graph, sources, seed);
    let Some(&first) = sources.first() else {
        return Err(Error::Invalid(format!("{name} has no vertex with an edge")));
    };
    let mut verifier = Verifier::default();
    let mut check = |row: &mut Row, result: Bfs, elapsed: Duration| -> Result<()> {
        verifier.check(graph, &result).map_err(|error| {
            Error::Invalid(format!(
                "{} on {name} from {}: {error}",
                row.variant, result.source
            ))
        })?;
        row.record(&result, graph, elapsed);
        Ok(())
    };
    {
        let started = Instant::now();
        let gpu = Gpu::open()?;
        let mut search = Search::new(&gpu, graph, Variant::Auto)?;
        let mut row = Row::new(name, "auto".into(), Some(search.device_bytes()));
        let (free, total) = cust::memory::mem_get_info()
            .map_err(|error| Error::Invalid(format!("querying device memory: {error}")))?;
        let memory = RankMemory {
            allocated: search.device_bytes(),
            in_use: (total - free) as u64,
        };
        search.run(first)?;
        for &source in &sources {
            let run = search.run(source)?;
            check(&mut row, run.result, run.elapsed)?;
        }
        row.print();
        print_row_time(1, started);
        on_row(ScalingRow {
            gpus: 1,
            row,
            exchange_per_level: None,
            memory: Some(memory),
        })?;
    }
    for &gpus in gpu_counts {
        let started = Instant::now();
        let mut row = Row::new(name, "NCCL".into(), None);
        let mut searches_steps: Vec<Vec<Step>> = Vec::new();
        let warmed: Vec<u32> = [first].iter().chain(&sources).copied().collect();
        let mut warm_up = true;
        let mut memory = None;
        multi::search(
            graph,
            &Ranks::Threads(gpus),
            &warmed,
            JOIN_TIMEOUT,
            &mut |run| {
                if std::mem::take(&mut warm_up) {
                    memory = run
                        .memory
                        .iter()
                        .copied()
                        .max_by_key(|memory| memory.in_use);
                    return Ok(());
                }
                searches_steps.push(run.steps);
                check(&mut row, run.result, run.elapsed)
            },
        )?;
        row.print();
        print_row_time(gpus, started);
        on_row(ScalingRow {
            gpus,
            row,
            exchange_per_level: median_exchange_per_level(searches_steps.iter().map(Vec::as_slice)),
            memory,
        })?;
    }
    Ok(())
}

/// How long a row took, uploads and validation included: on a large graph
/// mostly validation (the CPU search, a second or more a source).
fn print_row_time(gpus: u32, started: Instant) {
    eprintln!(
        "bench: {gpus} GPU(s): set up, searched and validated in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// The section: the graphs, the strong-scaling table (every row, with its
/// speed-up over `auto` on one GPU) and the weak-scaling one (rows of as
/// many vertices per GPU, where more than one GPU count has them).
pub fn markdown(device: &str, command: &str, graphs: &[Built], rows: &[ScalingRow]) -> String {
    let mut text = format!("{SECTION}\n\n");
    let _ = writeln!(
        text,
        "Written by `cargo xtask bench --gpus N,...` (`bundle/bench.sh GRAPH... -- --gpus N,...`). Per graph: \
         `auto` on one GPU (device time from initialisation to the last level, CUDA events), then the search over \
         N GPUs through NCCL (`bfs --gpus N`: host time from the first level's start to the last level's end, every \
         exchange included), each after a warm-up search, from the same random sources. Every search is validated: \
         distances equal to a CPU search's and the Graph500 rules (past 2^30 CSR entries: the parallel CPU search, \
         and the tree rules on the parents); a source's searches after its first must have the distances that \
         passed (a 64-bit fingerprint), and their parents the tree rules. GTEPS: harmonic mean over sources; \
         Graph500: input edge tuples within the component, duplicates and self loops included; CSR: CSR entries \
         examined (the other tables' count). \
         Speed-up: Graph500 GTEPS over `auto`'s on one GPU. Exchange: device time of a level's collectives (CUDA \
         events around each: the transfers and each GPU's wait for the slowest, not the host's copies of the \
         counts), a search's over its levels, median over sources. GB a GPU: the device memory of the GPU that \
         used the most, what the search allocated and (in brackets) what the GPU had in use, its context's and \
         NCCL's included.\n"
    );
    let _ = writeln!(text, "Device: **{device}**. Command: `{command}`\n");
    let _ = writeln!(
        text,
        "| graph | vertices | CSR entries | input edges (Graph500) | built in s |"
    );
    let _ = writeln!(text, "| --- | ---: | ---: | ---: | ---: |");
    for built in graphs {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {:.1} |",
            built.name,
            built.vertices,
            built.csr_entries,
            built
                .input_edges
                .map_or("-".into(), |edges| edges.to_string()),
            built.seconds
        );
    }
    let graph500 = |row: &Row| row.statistics().graph500_harmonic_mean_gteps;
    let _ = writeln!(
        text,
        "\n### Strong scaling\n\n| graph | search | sources | min ms | 1st quartile | median ms | 3rd quartile | \
         max ms | GTEPS (CSR) | GPUs | GTEPS (Graph500) | speed-up | exchange µs per level | GB a GPU |"
    );
    let _ = writeln!(
        text,
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for scaling in rows {
        let one_gpu = rows
            .iter()
            .find(|other| other.row.graph == scaling.row.graph && other.row.variant == "auto");
        let speed_up = match (
            graph500(&scaling.row),
            one_gpu.and_then(|one| graph500(&one.row)),
        ) {
            (Some(this), Some(one)) => format!("{:.2}×", this / one),
            _ => "-".into(),
        };
        let memory = scaling.memory.map_or("-".into(), |memory| {
            format!(
                "{:.1} ({:.1})",
                memory.allocated as f64 / 1e9,
                memory.in_use as f64 / 1e9
            )
        });
        let _ = writeln!(
            text,
            "{} {} | {} | {speed_up} | {} | {memory} |",
            timing_cells(&scaling.row),
            scaling.gpus,
            graph500(&scaling.row).map_or("-".into(), |gteps| format!("{gteps:.2}")),
            scaling
                .exchange_per_level
                .map_or("-".into(), |median| format!(
                    "{:.1}",
                    median.as_secs_f64() * 1e6
                )),
        );
    }
    let vertices_of = |graph: &str| {
        graphs
            .iter()
            .find(|built| built.name == graph)
            .map_or(0, |built| built.vertices as u64)
    };
    let per_gpu = |scaling: &ScalingRow| vertices_of(&scaling.row.graph) / scaling.gpus as u64;
    let mut weak: Vec<&ScalingRow> = rows
        .iter()
        .filter(|scaling| {
            rows.iter()
                .any(|other| other.gpus != scaling.gpus && per_gpu(other) == per_gpu(scaling))
        })
        .collect();
    weak.sort_by_key(|scaling| (per_gpu(scaling), scaling.gpus));
    if !weak.is_empty() {
        let _ = writeln!(
            text,
            "\n### Weak scaling\n\n| vertices per GPU | graph | search | GPUs | median ms | GTEPS (Graph500) | \
             GTEPS (Graph500) per GPU |"
        );
        let _ = writeln!(text, "| ---: | --- | --- | ---: | ---: | ---: | ---: |");
        for scaling in weak {
            let gteps = graph500(&scaling.row);
            let _ = writeln!(
                text,
                "| {} | {} | {} | {} | {:.3} | {} | {} |",
                per_gpu(scaling),
                scaling.row.graph,
                scaling.row.variant,
                scaling.gpus,
                scaling.row.statistics().median_ms,
                gteps.map_or("-".into(), |gteps| format!("{gteps:.2}")),
                gteps.map_or("-".into(), |gteps| format!(
                    "{:.2}",
                    gteps / scaling.gpus as f64
                )),
            );
        }
    }
    text
}
