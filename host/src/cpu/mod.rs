//! Breadth-first search on the CPU: the single-thread reference that every
//! result is checked against, and the parallel engine that runs when there
//! is no GPU (or `--device cpu` asks for it).

mod direction_optimizing;
mod reference;
mod team;

pub use direction_optimizing::{ParallelBfs, SEQUENTIAL_LEVEL_EDGES, Step};
pub use reference::bfs;

/// The machine's hardware threads: the engine's team when none is asked for.
pub fn hardware_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |count| count.get())
}

/// CSR entries a thread of the engine is worth its start and its levels'
/// forks for: a graph smaller than this many per thread runs on fewer
/// threads (`docs/decisions.md`).
pub const EDGES_PER_THREAD: u64 = 1 << 19;

/// The engine's threads for `graph` when none are asked for: one per
/// [`EDGES_PER_THREAD`] of its CSR entries, at least one and at most
/// [`hardware_threads`].
pub fn threads_for(graph: &crate::Csr) -> usize {
    let wanted = graph.edge_count().div_ceil(EDGES_PER_THREAD).max(1);
    (wanted.min(hardware_threads() as u64)) as usize
}
