//! What a run reports: the summary the CLI prints, `--json`, and the
//! per-level `--trace` (the tutorial's frontier logging).

use serde::Serialize;

use crate::gpu::Step;
use crate::{Bfs, Csr, UNREACHED};

/// One run, as `--json` writes it.
#[derive(Serialize)]
pub struct Report {
    /// The graph's file or generator.
    pub graph: String,
    /// Vertices.
    pub vertices: u32,
    /// Directed CSR entries.
    pub edges: u32,
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
    /// Device memory allocated (graph and buffers), where a GPU ran.
    pub device_bytes: Option<u64>,
    /// Whether `--verify` passed (absent when not asked).
    pub verified: Option<bool>,
    /// Per level: frontier, edges examined and the step's time.
    pub trace: Vec<LevelTrace>,
}

/// One level of the search.
#[derive(Serialize)]
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
}

/// Frontier size and edges examined per level of `result`, with the times
/// of `steps` where a GPU ran.
pub fn trace(graph: &Csr, result: &Bfs, steps: &[Step]) -> Vec<LevelTrace> {
    let mut levels: Vec<LevelTrace> = (0..result.level_count())
        .map(|level| LevelTrace {
            level,
            frontier: 0,
            edges: 0,
            milliseconds: None,
            step_levels: None,
            on_cpu: None,
        })
        .collect();
    for (vertex, &level) in result.levels.iter().enumerate() {
        if level != UNREACHED {
            levels[level as usize].frontier += 1;
            levels[level as usize].edges += graph.degree(vertex as u32) as u64;
        }
    }
    for step in steps {
        if let Some(level) = levels.get_mut(step.first_level as usize) {
            level.milliseconds = Some(step.elapsed.as_secs_f64() * 1e3);
            level.step_levels = Some(step.levels);
            level.on_cpu = Some(step.on_cpu);
        }
    }
    levels
}
