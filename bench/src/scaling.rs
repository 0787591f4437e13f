//! `bfs bench --gpus`: the search over several GPUs ([`bfs::multi`])
//! beside one GPU's `auto`, Graph500 style: many sources, every search
//! validated, the harmonic mean of each search's traversed edges per second
//! with edges counted as Graph500 counts them (input edge tuples within the
//! component). Strong scaling reads across one graph's rows; weak scaling
//! across graphs of as many vertices per GPU.
//!
//! What a run measured can be kept ([`Measured`], `--rows FILE`), so that a
//! graph that takes a command of its own (the largest, whose building
//! alone takes minutes) joins the rows of the others in one section.
//! This file measures the rows; `measured.rs` keeps them and writes the
//! section.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::Row;
use bfs::gpu::{Gpu, Search, Step, Variant, median_exchange_per_level};
use bfs::graph::generate::sources_with_edges;
use bfs::multi::direction_optimizing::RankMemory;
use bfs::multi::{self, Ranks};
use bfs::validate::Verifier;
use bfs::{Bfs, Csr, Error, Result};

mod measured;

pub use measured::{Measured, Run};

/// The heading of the scaling section of `BENCHMARKS.md`.
pub const SECTION: &str = "## Scaling over GPUs";

/// How long a rank waits for the others to join: every rank builds its
/// part of a large graph's rows before joining.
const JOIN_TIMEOUT: Duration = Duration::from_secs(300);

/// A benchmarked graph's size and how long it took to build.
#[derive(Serialize, Deserialize)]
pub struct Built {
    /// The graph's name on the command line (`gen:kron:26`, a file).
    pub name: String,
    /// Its vertex count.
    pub vertices: u32,
    /// Its CSR's entries: the edges, each undirected edge twice.
    pub csr_entries: u64,
    /// Graph500's input edge tuples, where the graph knows them.
    pub input_edges: Option<u64>,
    /// Seconds to generate or load it and build its CSR.
    pub seconds: f64,
}

impl Built {
    /// The bytes of its CSR: 64-bit row offsets and 32-bit columns.
    fn csr_bytes(&self) -> u64 {
        Csr::bytes_of(self.vertices, self.csr_entries)
    }
}

/// A row: one search path on `gpus` GPUs.
#[derive(Serialize, Deserialize)]
pub struct ScalingRow {
    /// GPUs the search ran on (1 for `auto`).
    pub gpus: u32,
    /// Its times, as the single-GPU tables show them.
    pub row: Row,
    /// The median over searches of their exchange time per level
    /// ([`bfs::gpu::Exchange`]); none for `auto`.
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
    'one_gpu: {
        let started = Instant::now();
        let gpu = Gpu::open()?;
        let mut search = match Search::new(&gpu, graph, Variant::Auto) {
            Err(refusal @ Error::DeviceMemory { .. }) => {
                eprintln!("bench: {name}: no row of `auto` on one GPU: {refusal}");
                break 'one_gpu;
            }
            search => search?,
        };
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
