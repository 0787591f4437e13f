//! Which CPU method searches a graph's many sources: bit-parallel
//! batches where a search has few levels, a source a thread where it has
//! many (docs/many-sources.md, "What `auto` takes").

use crate::{Csr, UNREACHED, cpu};

/// Levels of a search past which a graph's sources go a source a thread:
/// a batch passes over a vertex's edges at every level at which some of
/// its sources reach it, and on a graph this deep they reach it over too
/// many (docs/decisions.md, "Many sources on the CPU").
pub const BATCH_MOST_LEVELS: u32 = 100;

/// A way of searching many sources on the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuMethod {
    /// [`CpuBatches`](super::CpuBatches): bit-parallel batches, each
    /// level on every core.
    BitParallel,
    /// [`SourceParallel`](super::SourceParallel): whole searches, a
    /// source a thread.
    SourceParallel,
}

/// The method for `graph`, and why in words: by the levels of a search
/// from its vertex of largest degree (in the largest component, mostly).
pub fn cpu_method(graph: &Csr) -> (CpuMethod, String) {
    let hub = (0..graph.vertex_count())
        .max_by_key(|&vertex| graph.degree(vertex))
        .unwrap_or(0);
    if graph.vertex_count() == 0 {
        return (CpuMethod::BitParallel, "an empty graph".into());
    }
    let levels = cpu::bfs(graph, hub)
        .levels
        .into_iter()
        .filter(|&level| level != UNREACHED)
        .max()
        .map_or(0, |depth| depth + 1);
    if levels > BATCH_MOST_LEVELS {
        let why = format!("a search has {levels} levels, more than {BATCH_MOST_LEVELS}");
        (CpuMethod::SourceParallel, why)
    } else {
        let why = format!("a search has {levels} levels, at most {BATCH_MOST_LEVELS}");
        (CpuMethod::BitParallel, why)
    }
}
