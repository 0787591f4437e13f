//! Benchmarks: every variant over many sources of each graph, Graph500
//! style, each result checked against the CPU reference, as a Markdown table.
//!
//! Time is device time from initialisation to the last level (CUDA events),
//! after one warm-up search; the CPU rows are the single-thread reference
//! BFS and the parallel engine (host time of the whole search, result
//! vectors included), beside [`gapbs`] where it is given.
//! Edges are the CSR entries the search examined (the out-degrees of the
//! reached vertices): for an undirected graph, twice Graph500's count.

pub mod command;
pub mod end_to_end;
pub mod gapbs;
pub mod many;
pub mod roads;
pub mod scaling;

pub use bfs_sections as sections;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bfs::gpu::{BlockQueue, Gpu, GpuBfs, HierarchicalQueue, Search, Variant, Work};
use bfs::graph::generate::sources_with_edges;
use bfs::graph::prepared::Preparation;
use bfs::report::Statistics;
use bfs::validate::same_levels;
use bfs::{Bfs, Csr, Error, Result, cpu};

/// Graphs every benchmark includes, besides those given: road-like grids of
/// about 4M and 16.8M vertices (high diameter), Graph500's Kronecker graphs
/// of scale 20 and 22, edge factor 16 (scale-free), and a uniform random
/// graph of 4.2M vertices and 67M directed edges.
pub const DEFAULT_GRAPHS: &[&str] = &[
    "gen:grid:2048x2048:0.05",
    "gen:grid:4096x4096:0.05",
    "gen:kron:20:16",
    "gen:kron:22:16",
    "gen:uniform:4194304:33554432",
];

/// Median times `auto` aims at on the benchmark's GPU, by graph name: on
/// the road network and the grids what a user of one search should wait
/// at most, on Kronecker 22 and the uniform graph no slower than `auto`
/// once was there.
pub const TARGETS_MS: &[(&str, f64)] = &[
    ("luxembourg_osm.mtx", 0.30),
    ("gen:grid:2048x2048:0.05", 5.0),
    ("gen:grid:4096x4096:0.05", 10.0),
    ("gen:kron:20:16", 0.35),
    ("gen:kron:22:16", 0.93),
    ("gen:uniform:4194304:33554432", 0.98),
];

/// What to measure.
pub struct Plan {
    /// The variants to time.
    pub variants: Vec<Variant>,
    /// Sources per graph.
    pub sources: usize,
    /// Seed for picking sources.
    pub seed: u64,
    /// Also time `hierarchical-queue` with each of these w-queue counts.
    pub sub_queue_counts: Vec<u32>,
    /// Also time `block-queue` with plain loads instead of the read-only cache.
    pub plain_loads: bool,
    /// Time the parallel CPU engine with each of these thread counts.
    pub threads: Vec<usize>,
    /// gapbs's build folder: time its BFS beside the engine's rows.
    pub gapbs: Option<PathBuf>,
}

/// One row of the table.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Row {
    /// Graph name.
    pub graph: String,
    /// Variant or configuration.
    pub variant: String,
    /// Per-source times.
    pub times: Vec<Duration>,
    /// Per-source edges examined.
    pub edges: Vec<u64>,
    /// Per-source edges by Graph500's count, where the graph knows it.
    pub input_edges: Vec<u64>,
    /// Per-source level counts.
    pub levels: Vec<u32>,
    /// Per-source barriers, partition searches and edges examined, where the variant reports them.
    pub work: Vec<Work>,
    /// Device memory the search allocated (GPU rows).
    pub device_bytes: Option<u64>,
}

impl Row {
    fn new(graph: &str, variant: String, device_bytes: Option<u64>) -> Row {
        Row {
            graph: graph.into(),
            variant,
            times: vec![],
            edges: vec![],
            input_edges: vec![],
            levels: vec![],
            work: vec![],
            device_bytes,
        }
    }

    fn record(&mut self, result: &Bfs, graph: &Csr, elapsed: Duration) {
        self.times.push(elapsed);
        self.edges.push(result.edges_traversed(graph));
        self.input_edges.extend(result.input_edges_traversed(graph));
        self.levels.push(result.level_count());
    }

    fn print(&self) {
        eprintln!(
            "bench: {:<32} {:<24} median {:9.3} ms",
            self.graph,
            self.variant,
            self.statistics().median_ms
        );
    }

    /// The row's time quantiles and harmonic-mean GTEPS.
    pub fn statistics(&self) -> Statistics {
        let input_edges =
            (self.input_edges.len() == self.times.len()).then_some(&self.input_edges[..]);
        Statistics::of(&self.times, &self.edges, input_edges)
    }

    /// Median time over mean level count: what one level costs, in µs.
    pub fn microseconds_per_level(&self) -> f64 {
        let mean_levels = self.levels.iter().map(|&levels| levels as f64).sum::<f64>()
            / self.levels.len().max(1) as f64;
        self.statistics().median_ms * 1e3 / mean_levels.max(1.0)
    }

    /// Mean barriers and partition searches, and the work overhead
    /// (edges examined over the level-synchronous count), for a variant
    /// that reports its work.
    pub fn barriers_searches_and_work(&self) -> Option<(f64, f64, f64)> {
        if self.work.is_empty() {
            return None;
        }
        let count = self.work.len() as f64;
        let mean = |value: fn(&Work) -> f64| self.work.iter().map(value).sum::<f64>() / count;
        let examined: u64 = self.work.iter().map(|work| work.edges_examined).sum();
        let traversed: u64 = self.edges.iter().sum();
        Some((
            mean(|work| work.barriers as f64),
            mean(|work| work.partition_searches as f64),
            examined as f64 / traversed.max(1) as f64,
        ))
    }
}

/// Benchmarks one graph: returns a row per variant, the CPU reference first.
/// A variant that uses one of `preparations` (a hierarchy, ghost zones)
/// searches with it rather than building its own.
pub fn graph(
    gpu: Option<&Gpu>,
    name: &str,
    graph: &Csr,
    plan: &Plan,
    mut preparations: Vec<Preparation>,
) -> Result<Vec<Row>> {
    let sources = sources_with_edges(graph, plan.sources, plan.seed);
    let mut references = Vec::with_capacity(sources.len());
    let mut cpu_row = Row::new(name, "cpu-reference".into(), None);
    for &source in &sources {
        let started = Instant::now();
        let reference = cpu::bfs(graph, source);
        cpu_row.record(&reference, graph, started.elapsed());
        references.push(reference);
    }
    let mut rows = vec![cpu_row];
    let peer = match &plan.gapbs {
        Some(folder) => Some(gapbs::Gapbs::convert(folder, graph)?),
        None => None,
    };
    for &threads in &plan.threads {
        let mut engine = cpu::ParallelBfs::new(threads)?;
        let plural = if threads == 1 { "" } else { "s" };
        let mut row = Row::new(name, format!("cpu ({threads} thread{plural})"), None);
        // Warm-up, as for the GPU: the team's threads start, and the graph's
        // one-time symmetry check (which picks bottom-up or not) is not timed.
        if let Some(&first) = sources.first() {
            engine.search(graph, first);
        }
        for reference in &references {
            let started = Instant::now();
            let result = engine.search(graph, reference.source);
            let elapsed = started.elapsed();
            same_levels(&result, reference)
                .map_err(|error| Error::Invalid(format!("{} on {name}: {error}", row.variant)))?;
            row.record(&result, graph, elapsed);
        }
        row.print();
        rows.push(row);
        if let Some(peer) = &peer {
            let mut row = Row::new(name, format!("gapbs ({threads} thread{plural})"), None);
            for reference in &references {
                let elapsed = peer.search_time(reference.source, threads)?;
                row.record(reference, graph, elapsed);
            }
            row.print();
            rows.push(row);
        }
    }
    let Some(gpu) = gpu else {
        return Ok(rows);
    };
    let mut time = |label: String, search: &mut Search<'_>| -> Result<()> {
        let mut row = Row::new(name, label, Some(search.device_bytes()));
        search.run(sources[0])?;
        for reference in &references {
            let run = search.run(reference.source)?;
            same_levels(&run.result, reference)
                .map_err(|error| Error::Invalid(format!("{} on {name}: {error}", row.variant)))?;
            row.record(&run.result, graph, run.elapsed);
            row.work.extend(run.work);
        }
        row.print();
        rows.push(row);
        Ok(())
    };
    for &variant in &plan.variants {
        // A variant this device or graph cannot run (`on-chip` without
        // clusters, or on a graph larger than a cluster holds) is left
        // out, and said so.
        let preparation = preparations
            .iter()
            .position(|preparation| searches_with(variant, preparation))
            .map(|at| preparations.swap_remove(at));
        let mut search = match Search::prepared(gpu, graph, variant, None, preparation) {
            Err(Error::Unsupported(why)) => {
                eprintln!("bench: {name:<32} {variant:<24} left out: {why}");
                continue;
            }
            search => search?,
        };
        time(variant.name().into(), &mut search)?;
    }
    for &count in &plan.sub_queue_counts {
        let create = |gpu, graph: &Csr| -> Result<Box<dyn GpuBfs + '_>> {
            Ok(Box::new(HierarchicalQueue::with_sub_queues(
                gpu,
                graph.vertex_count(),
                count,
            )?))
        };
        time(
            format!("hierarchical-queue, {count} w-queues"),
            &mut Search::with(gpu, graph, Variant::HierarchicalQueue, create)?,
        )?;
    }
    if plan.plain_loads {
        let create = |gpu, graph: &Csr| -> Result<Box<dyn GpuBfs + '_>> {
            Ok(Box::new(BlockQueue::with_plain_loads(
                gpu,
                graph.vertex_count(),
            )?))
        };
        time(
            "block-queue, plain loads".into(),
            &mut Search::with(gpu, graph, Variant::BlockQueue, create)?,
        )?;
    }
    Ok(rows)
}

/// The error of a file operation on `path`, for `map_err`.
pub(crate) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    |error| Error::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Whether `variant` searches with `preparation` when given it.
fn searches_with(variant: Variant, preparation: &Preparation) -> bool {
    matches!(
        (variant, preparation),
        (Variant::HierarchySweep, Preparation::Hierarchy(_))
            | (Variant::GhostZones, Preparation::GhostZones(_))
    )
}

/// The Markdown table of `rows`, headed by the device and the command.
pub fn markdown(
    device: &str,
    command: &str,
    graphs: &[(String, &Csr, Bfs)],
    rows: &[Row],
) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "# Benchmarks\n");
    let _ = writeln!(
        text,
        "Written by `cargo xtask bench` (on a GPU machine without Rust: `bundle/bench.sh GRAPH...`), \
         section by section, each mode replacing only its own: this table by `cargo xtask bench`, \
         \"CPU engine\" by `--device cpu`, \"Scaling over GPUs\" by `--gpus N,...`, \"End to end\" by \
         `--end-to-end`, \"Road networks\" by `--roads`, \"Many sources\" by `--many`, \"Loader\" by \
         `--loader FILE...`, and \"From Python\" by `--from-python` (`python/benches/from_python.py`). Why the \
         code's constants have \
         their values is in `docs/decisions.md`. \
         Time: device time of one search from initialisation to the last level (CUDA events), after a warm-up \
         search; `cpu-reference` is the single-thread reference BFS, `cpu (N threads)` the project's parallel \
         direction-optimizing CPU engine (host time of a whole search). Sources: random vertices with at least one \
         edge; every timed result is checked against the CPU reference. Edges: CSR entries examined (out-degrees \
         of the reached vertices), twice Graph500's count on undirected graphs. GTEPS: harmonic mean over sources. \
         µs per level: median time over the mean number of levels (a level-synchronous variant's grid barriers are one \
         per level). For `partitioned`, `warp-specialized`, `chain-contracted` and `hierarchy-sweep`: barriers \
         (grid-wide ones; for `chain-contracted`, its one block's, one a round; for `hierarchy-sweep`, its one \
         block's, one a hierarchy level in each sweep and one a core round) and partition searches (for `warp-specialized`, dirty bits \
         taken), means per search, and µs per barrier (median time over mean barriers); work: edges examined over \
         the level-synchronous count. Device MB: the graph and the variant's buffers.\n"
    );
    let _ = writeln!(text, "Device: **{device}**. Command: `{command}`\n");
    graph_table(&mut text, graphs);
    let _ = writeln!(
        text,
        "\n| graph | variant | sources | min ms | 1st quartile | median ms | 3rd quartile | max ms | \
         GTEPS (harmonic mean) | µs per level | barriers | µs per barrier | partition searches | work | device MB | target (median) |"
    );
    let _ = writeln!(
        text,
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    );
    for row in rows {
        let statistics = row.statistics();
        let target = match TARGETS_MS.iter().find(|(graph, _)| *graph == row.graph) {
            Some((_, target)) if row.variant == "auto" => {
                format!(
                    "≤ {target} ms: {}",
                    if statistics.median_ms <= *target {
                        "met"
                    } else {
                        "not yet"
                    }
                )
            }
            _ => String::new(),
        };
        let (barriers, per_barrier, searches, work) = match row.barriers_searches_and_work() {
            Some((barriers, searches, work)) => (
                format!("{barriers:.0}"),
                if barriers > 0.0 {
                    format!("{:.2}", statistics.median_ms * 1e3 / barriers)
                } else {
                    "-".into()
                },
                format!("{searches:.0}"),
                format!("{work:.3}"),
            ),
            None => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        let _ = writeln!(
            text,
            "{} {:.2} | {barriers} | {per_barrier} | {searches} | {work} | {} | {target} |",
            timing_cells(row),
            row.microseconds_per_level(),
            row.device_bytes
                .map_or("-".into(), |bytes| format!("{:.1}", bytes as f64 / 1e6)),
        );
    }
    text
}

/// The heading of the CPU engine's section of `BENCHMARKS.md`.
pub const CPU_SECTION: &str = "## CPU engine";

/// The CPU engine's section: the single-thread reference, the engine and
/// gapbs, by graph and thread count.
pub fn cpu_markdown(
    device: &str,
    command: &str,
    graphs: &[(String, &Csr, Bfs)],
    rows: &[Row],
) -> String {
    let mut text = format!("{CPU_SECTION}\n\n");
    let _ = writeln!(
        text,
        "Written by `cargo xtask bench --device cpu` (`bundle/bench.sh -- --device cpu`). Time: host time of one \
         search, result vectors included, after a warm-up search; `cpu (N threads)` is the parallel \
         direction-optimizing engine that `--device cpu` runs, `gapbs (N threads)` the GAP benchmark suite's BFS \
         (OpenMP, its own binary, built by its Makefile: `make bfs converter`) on the same graph and sources, read \
         from a `.sg` file in the layout its `converter` writes (`-s` for a symmetric graph), the second of two \
         trials per source. Every \
         engine result is checked against the reference. Edges and GTEPS as in the main table. gapbs ÷ engine: \
         gapbs's median over the engine's at the same thread count.\n"
    );
    let _ = writeln!(text, "Machine: **{device}**. Command: `{command}`\n");
    graph_table(&mut text, graphs);
    let _ = writeln!(
        text,
        "\n| graph | search | sources | min ms | 1st quartile | median ms | 3rd quartile | max ms | \
         GTEPS (harmonic mean) | gapbs ÷ engine |"
    );
    let _ = writeln!(
        text,
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for row in rows {
        let statistics = row.statistics();
        let peer = row
            .variant
            .strip_prefix("cpu ")
            .and_then(|threads| {
                rows.iter().find(|other| {
                    other.graph == row.graph && other.variant == format!("gapbs {threads}")
                })
            })
            .map_or(String::new(), |peer| {
                format!("{:.2}×", peer.statistics().median_ms / statistics.median_ms)
            });
        let _ = writeln!(text, "{} {peer} |", timing_cells(row));
    }
    text
}

/// A row's first cells, which every table shares: graph, variant,
/// sources, time quantiles and GTEPS, up to the next cell's `|`.
pub(crate) fn timing_cells(row: &Row) -> String {
    let statistics = row.statistics();
    format!(
        "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.4} |",
        row.graph,
        row.variant,
        statistics.searches,
        statistics.min_ms,
        statistics.first_quartile_ms,
        statistics.median_ms,
        statistics.third_quartile_ms,
        statistics.max_ms,
        statistics.harmonic_mean_gteps,
    )
}

/// The graphs' sizes, and the levels from each one's first source.
fn graph_table(text: &mut String, graphs: &[(String, &Csr, Bfs)]) {
    let _ = writeln!(
        text,
        "| graph | vertices | edges (CSR) | levels from first source |"
    );
    let _ = writeln!(text, "| --- | ---: | ---: | ---: |");
    for (name, graph, first) in graphs {
        let _ = writeln!(
            text,
            "| {name} | {} | {} | {} |",
            graph.vertex_count(),
            graph.edge_count(),
            first.level_count()
        );
    }
}

/// The CPU's model and hardware threads, for the CPU section's heading.
pub fn cpu_name() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|line| line.strip_prefix("model name"))
                .and_then(|rest| rest.split_once(':'))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| "CPU".into());
    let threads = cpu::hardware_threads();
    format!("{model}, {threads} hardware threads")
}
