//! What a run reports: the summary the CLI prints, `--json`, and the
//! per-level `--trace` (the tutorial's frontier logging).

use rayon::prelude::*;
use serde::Serialize;

use std::time::Duration;

use crate::gpu::{Direction, Step, Variant, Work};
use crate::{Bfs, Csr, UNREACHED};

/// One run, as `--json` writes it.
#[derive(Default, Serialize)]
pub struct Report {
    /// The graph's file or generator.
    pub graph: String,
    /// Vertices.
    pub vertices: u32,
    /// Directed CSR entries.
    pub edges: u64,
    /// Device name, or the CPU.
    pub device: String,
    /// GPU variant, where one ran.
    pub variant: Option<String>,
    /// Source vertex.
    pub source: u32,
    /// Number of levels (depth + 1).
    pub levels: u32,
    /// Vertices reached, the source included.
    pub reached: usize,
    /// Edges examined: out-degrees of the reached vertices.
    pub edges_traversed: u64,
    /// Seconds to load or generate the graph.
    pub load_seconds: f64,
    /// BFS time in milliseconds.
    pub bfs_milliseconds: f64,
    /// Billions of traversed edges per second.
    pub gteps: f64,
    /// Graph500's count of the edges traversed: input edge tuples within
    /// the component, where the graph knows them (generated graphs).
    pub input_edges_traversed: Option<u64>,
    /// Billions of those per second.
    pub graph500_gteps: Option<f64>,
    /// Device memory allocated (graph and buffers), where a GPU ran.
    pub device_bytes: Option<u64>,
    /// Whether `--verify` passed (absent when not asked).
    pub verified: Option<bool>,
    /// What a variant that does not go level by level (`partitioned`)
    /// did: its barriers, partition searches and edges examined.
    pub work: Option<Work>,
    /// Its edges examined over `edges_traversed`: the work beyond a
    /// level-synchronous search's (1: none).
    pub work_overhead: Option<f64>,
    /// Per level: frontier, edges examined and the step's time.
    pub trace: Vec<LevelTrace>,
    /// The device, the strategy and why, as the run printed it.
    pub plan: Option<String>,
    /// What the kernels were loaded from, where a GPU ran.
    pub kernel_code: Option<String>,
    /// How long opening the GPU took, on its own thread while the graph
    /// loaded, step by step.
    pub startup: Option<crate::gpu::Startup>,
}

impl Report {
    /// The report of one search of `graph`.
    #[allow(
        clippy::too_many_arguments,
        reason = "one constructor for the report's many facts"
    )]
    pub fn new(
        graph_name: String,
        graph: &Csr,
        device: String,
        variant: Option<Variant>,
        result: &Bfs,
        load_time: Duration,
        bfs_time: Duration,
        device_bytes: Option<u64>,
        steps: &[Step],
    ) -> Report {
        let edges_traversed = result.edges_traversed(graph);
        let input_edges_traversed = result.input_edges_traversed(graph);
        let per_second = |edges: u64| edges as f64 / bfs_time.as_secs_f64() / 1e9;
        Report {
            graph: graph_name,
            vertices: graph.vertex_count(),
            edges: graph.edge_count(),
            device,
            variant: variant.map(|variant| variant.name().to_string()),
            source: result.source,
            levels: result.level_count(),
            reached: result.reached(),
            edges_traversed,
            load_seconds: load_time.as_secs_f64(),
            bfs_milliseconds: bfs_time.as_secs_f64() * 1e3,
            gteps: per_second(edges_traversed),
            input_edges_traversed,
            graph500_gteps: input_edges_traversed.map(per_second),
            device_bytes,
            trace: trace(graph, result, steps),
            ..Report::default()
        }
    }

    /// Adds the work of a search that reported it, and its overhead.
    pub fn with_work(mut self, work: Option<Work>) -> Report {
        self.work = work;
        self.work_overhead =
            work.map(|work| work.edges_examined as f64 / self.edges_traversed.max(1) as f64);
        self
    }
}

/// One level of the search.
#[derive(Default, Serialize)]
pub struct LevelTrace {
    /// The level (distance from the source).
    pub level: u32,
    /// Vertices at this level: the frontier expanded.
    pub frontier: u64,
    /// Edges examined expanding it (their out-degrees summed).
    pub edges: u64,
    /// Milliseconds of the host step that expanded it; a step that ran
    /// several levels in one launch is given on its first level.
    pub milliseconds: Option<f64>,
    /// Levels that step covered.
    pub step_levels: Option<u32>,
    /// Whether the CPU ran it (`hybrid-cpu`).
    pub on_cpu: Option<bool>,
    /// In a search over several GPUs: milliseconds of the level's
    /// collectives ([`crate::gpu::Exchange`]).
    pub exchange_milliseconds: Option<f64>,
    /// The megabytes those collectives gathered on each GPU.
    pub exchange_megabytes: Option<f64>,
    /// Times the level expanded its frontier ([`crate::gpu::Exchange`]).
    pub exchange_rounds: Option<u32>,
    /// `top-down` or `bottom-up`, in a direction-optimizing search that
    /// goes level by level.
    pub direction: Option<&'static str>,
}

/// The most levels for which [`trace`] counts on every core, a vector of
/// them a thread (1 MB).
const PARALLEL_TRACE_MOST_LEVELS: usize = 1 << 16;

/// Frontier size and edges examined per level of `result`, with the times
/// of `steps` where a GPU ran.
pub fn trace(graph: &Csr, result: &Bfs, steps: &[Step]) -> Vec<LevelTrace> {
    let mut levels: Vec<LevelTrace> = (0..result.level_count())
        .map(|level| LevelTrace {
            level,
            ..LevelTrace::default()
        })
        .collect();
    // Each level's vertices and edges. Counted on every core where the
    // levels are few (`--sources --json` traces every search, and a
    // Kronecker 28 search labels 268 million vertices): each thread keeps
    // a count of every level, which a path's millions of levels forbid.
    let level_count = levels.len();
    let zeroes = || vec![(0u64, 0u64); level_count];
    let count = |mut counts: Vec<(u64, u64)>, (vertex, &level): (usize, &u32)| {
        if level != UNREACHED {
            let count = &mut counts[level as usize];
            count.0 += 1;
            count.1 += graph.degree(vertex as u32) as u64;
        }
        counts
    };
    let add = |mut into: Vec<(u64, u64)>, from: Vec<(u64, u64)>| {
        for (into, from) in into.iter_mut().zip(from) {
            into.0 += from.0;
            into.1 += from.1;
        }
        into
    };
    let counts = if level_count <= PARALLEL_TRACE_MOST_LEVELS {
        let vertices = result.levels.par_iter().enumerate().with_min_len(1 << 16);
        vertices.fold(zeroes, count).reduce(zeroes, add)
    } else {
        result.levels.iter().enumerate().fold(zeroes(), count)
    };
    for (level, (frontier, edges)) in levels.iter_mut().zip(counts) {
        (level.frontier, level.edges) = (frontier, edges);
    }
    for step in steps {
        if let Some(level) = levels.get_mut(step.first_level as usize) {
            level.milliseconds = Some(step.elapsed.as_secs_f64() * 1e3);
            level.step_levels = Some(step.levels);
            level.on_cpu = Some(step.on_cpu);
            level.direction = step.direction.map(Direction::name);
            if let Some(exchange) = step.exchange {
                level.exchange_milliseconds = Some(exchange.elapsed.as_secs_f64() * 1e3);
                level.exchange_megabytes = Some(exchange.bytes as f64 / 1e6);
                level.exchange_rounds = Some(exchange.rounds);
            }
        }
    }
    levels
}

/// Graph500's statistics of many searches: time quantiles and the harmonic
/// mean of the traversed edges per second.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Statistics {
    /// Searches measured.
    pub searches: usize,
    /// Fastest search, ms.
    pub min_ms: f64,
    /// First quartile, ms.
    pub first_quartile_ms: f64,
    /// Median, ms.
    pub median_ms: f64,
    /// Third quartile, ms.
    pub third_quartile_ms: f64,
    /// Slowest search, ms.
    pub max_ms: f64,
    /// Harmonic mean over searches of edges traversed per second, in
    /// billions: CSR entries examined (out-degrees of the reached vertices).
    pub harmonic_mean_gteps: f64,
    /// The same with Graph500's count, input edge tuples within the
    /// component ([`Bfs::input_edges_traversed`]), where the graph knows it.
    pub graph500_harmonic_mean_gteps: Option<f64>,
}

impl Statistics {
    /// The statistics of searches that took `times` and traversed `edges`
    /// CSR entries (and `input_edges` by Graph500's count, where known).
    pub fn of(times: &[Duration], edges: &[u64], input_edges: Option<&[u64]>) -> Statistics {
        let mut milliseconds: Vec<f64> =
            times.iter().map(|time| time.as_secs_f64() * 1e3).collect();
        milliseconds.sort_by(f64::total_cmp);
        let quantile = |fraction: f64| {
            if milliseconds.is_empty() {
                return f64::NAN;
            }
            let position = fraction * (milliseconds.len() - 1) as f64;
            let (below, above) = (position.floor() as usize, position.ceil() as usize);
            milliseconds[below]
                + (milliseconds[above] - milliseconds[below]) * (position - below as f64)
        };
        Statistics {
            searches: times.len(),
            min_ms: quantile(0.0),
            first_quartile_ms: quantile(0.25),
            median_ms: quantile(0.5),
            third_quartile_ms: quantile(0.75),
            max_ms: quantile(1.0),
            harmonic_mean_gteps: harmonic_mean_gteps(times, edges),
            graph500_harmonic_mean_gteps: input_edges
                .map(|input_edges| harmonic_mean_gteps(times, input_edges)),
        }
    }
}

/// Graph500's mean rate: the harmonic mean over searches of each one's
/// edges per second, in billions.
fn harmonic_mean_gteps(times: &[Duration], edges: &[u64]) -> f64 {
    let seconds_per_edge: f64 = times
        .iter()
        .zip(edges)
        .map(|(time, &edges)| time.as_secs_f64() / edges.max(1) as f64)
        .sum();
    times.len() as f64 / seconds_per_edge / 1e9
}
