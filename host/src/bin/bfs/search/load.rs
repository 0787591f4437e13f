//! Loading the graph the options name, and `--load-only`'s report of it.

use std::time::{Duration, Instant};

use bfs::Csr;
use bfs::graph::GraphSource;
use bfs::graph::prepared::Preparations;
use bfs::phases::{Phase, Phases};

use crate::SearchArgs;

/// The graph a run searches, as loaded.
pub(super) struct LoadedGraph {
    /// Where it came from: a file, or a generator's spec.
    pub(super) source: GraphSource,
    pub(super) graph: Csr,
    /// The preparations its file holds (none, for a generated graph).
    pub(super) prepared: Preparations,
    /// How long loading it took.
    pub(super) load_time: Duration,
}

/// Loads `--graph` (generated with `--seed`), and ends the load phase.
pub(super) fn load_graph(
    arguments: &SearchArgs,
    phases: &mut Phases,
) -> anyhow::Result<LoadedGraph> {
    let graph_source = arguments.graph.source()?;
    let load_started = Instant::now();
    let (graph, prepared) = graph_source.load_prepared(arguments.graph.reader.into())?;
    let load_time = load_started.elapsed();
    phases.end(Phase::Load);
    Ok(LoadedGraph {
        source: graph_source,
        graph,
        prepared,
        load_time,
    })
}

/// `--load-only`'s report: the graph's size, the load's time and rate, and
/// the memory it took.
pub(super) fn print_load(graph_source: &GraphSource, graph: &Csr, load_time: Duration) {
    let seconds = load_time.as_secs_f64();
    let rate = match graph_source {
        GraphSource::File(path) => std::fs::metadata(path)
            .map(|metadata| format!(", {:.1} MB/s", metadata.len() as f64 / 1e6 / seconds))
            .unwrap_or_default(),
        GraphSource::Generated(_) => String::new(),
    };
    println!(
        "graph:     {}: {} vertices, {} edges (directed CSR entries), loaded in {seconds:.3} s{rate}",
        graph_source.name(),
        graph.vertex_count(),
        graph.edge_count()
    );
    let csr_bytes = 4 * (graph.vertex_count() as u64 + 1) + 4 * graph.edge_count();
    match peak_memory_bytes() {
        Some(peak) => println!(
            "memory:    peak {:.1} MB resident (mapped file included), CSR {:.1} MB",
            peak as f64 / 1e6,
            csr_bytes as f64 / 1e6
        ),
        None => println!("memory:    CSR {:.1} MB", csr_bytes as f64 / 1e6),
    }
}

/// This process's peak resident memory (Linux's `VmHWM`), where the system tells.
fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kilobytes * 1024)
}
