//! Benchmarks: every variant over many sources of each graph, Graph500
//! style, each result checked against the CPU reference, as a Markdown table.
//!
//! Time is device time from initialisation to the last level (CUDA events),
//! after one warm-up search; the CPU row is the single-thread reference BFS.
//! Edges are the CSR entries the search examined (the out-degrees of the
//! reached vertices): for an undirected graph, twice Graph500's count.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::gpu::{Gpu, GpuBfs, GpuRun, HierarchicalQueue, Search, Variant, block_queue};
use crate::graph::generate::sources_with_edges;
use crate::report::Statistics;
use crate::validate::same_levels;
use crate::{Bfs, Csr, Error, Result, cpu};

/// Graphs every benchmark includes, besides those given: a road-like grid of
/// about 4M vertices (high diameter) and Graph500's Kronecker graph of scale
/// 20, edge factor 16 (scale-free).
pub const DEFAULT_GRAPHS: &[&str] = &["gen:grid:2048x2048:0.05", "gen:kron:20:16"];

/// What to measure.
pub struct Plan {
    /// The variants to time.
    pub variants: Vec<Variant>,
    /// Sources per graph.
    pub sources: usize,
    /// Seed for picking sources.
    pub seed: u64,
    /// Also time `hierarchical` with each of these w-queue counts.
    pub sub_queue_counts: Vec<u32>,
    /// Also time `block-queue` with plain loads instead of the read-only cache.
    pub plain_loads: bool,
}

/// One row of the table.
pub struct Row {
    /// Graph name.
    pub graph: String,
    /// Variant or configuration.
    pub variant: String,
    /// Per-source times.
    pub times: Vec<Duration>,
    /// Per-source edges examined.
    pub edges: Vec<u64>,
}

impl Row {
    /// The row's time quantiles and harmonic-mean GTEPS.
    pub fn statistics(&self) -> Statistics {
        Statistics::of(&self.times, &self.edges)
    }
}

/// Benchmarks one graph: returns a row per variant, the CPU reference first.
pub fn graph(gpu: &Gpu, name: &str, graph: &Csr, plan: &Plan) -> Result<Vec<Row>> {
    let sources = sources_with_edges(graph, plan.sources, plan.seed);
    let mut references = Vec::with_capacity(sources.len());
    let mut cpu_row = Row {
        graph: name.into(),
        variant: "cpu-reference".into(),
        times: vec![],
        edges: vec![],
    };
    for &source in &sources {
        let started = Instant::now();
        let reference = cpu::bfs(graph, source);
        cpu_row.times.push(started.elapsed());
        cpu_row.edges.push(reference.edges_traversed(graph));
        references.push(reference);
    }
    let mut rows = vec![cpu_row];
    let mut time = |label: String, search: &mut Search<'_>| -> Result<()> {
        let mut row = Row {
            graph: name.into(),
            variant: label,
            times: vec![],
            edges: vec![],
        };
        search.run(sources[0])?;
        for reference in &references {
            let GpuRun {
                result, elapsed, ..
            } = search.run(reference.source)?;
            same_levels(&result, reference)
                .map_err(|error| Error::Invalid(format!("{} on {name}: {error}", row.variant)))?;
            row.times.push(elapsed);
            row.edges.push(reference.edges_traversed(graph));
        }
        eprintln!(
            "bench: {name:<32} {:<24} median {:9.3} ms",
            row.variant,
            row.statistics().median_ms
        );
        rows.push(row);
        Ok(())
    };
    for &variant in &plan.variants {
        time(
            variant.name().into(),
            &mut Search::new(gpu, graph, variant)?,
        )?;
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
            format!("hierarchical, {count} w-queues"),
            &mut Search::with(gpu, graph, Variant::Hierarchical, create)?,
        )?;
    }
    if plan.plain_loads {
        let create = |gpu, graph: &Csr| -> Result<Box<dyn GpuBfs + '_>> {
            Ok(Box::new(block_queue::with_plain_loads(
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
        "Written by `cargo xtask bench` (on a GPU machine without Rust: `bundle/bench.sh GRAPH...`). \
         Time: device time of one search from initialisation to the last level (CUDA events), after a warm-up \
         search; `cpu-reference` is the single-thread reference BFS. Sources: random vertices with at least one \
         edge; every timed result is checked against the CPU reference. Edges: CSR entries examined (out-degrees \
         of the reached vertices), twice Graph500's count on undirected graphs. GTEPS: harmonic mean over sources.\n"
    );
    let _ = writeln!(text, "Device: **{device}**. Command: `{command}`\n");
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
    let _ = writeln!(
        text,
        "\n| graph | variant | sources | median ms | min ms | max ms | GTEPS (harmonic mean) |"
    );
    let _ = writeln!(text, "| --- | --- | ---: | ---: | ---: | ---: | ---: |");
    for row in rows {
        let statistics = row.statistics();
        let _ = writeln!(
            text,
            "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.4} |",
            row.graph,
            row.variant,
            statistics.searches,
            statistics.median_ms,
            statistics.min_ms,
            statistics.max_ms,
            statistics.harmonic_mean_gteps
        );
    }
    text
}
