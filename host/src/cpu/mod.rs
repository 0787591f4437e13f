//! Breadth-first search on the CPU: the single-thread reference that every
//! result is checked against, and the parallel engine that runs when there
//! is no GPU (or `--device cpu` asks for it).

pub(crate) mod direction_optimizing;
mod reference;
pub(crate) mod team;

pub use direction_optimizing::{ParallelBfs, SEQUENTIAL_LEVEL_EDGES, Step};
pub use reference::{bfs, bfs_within};

/// The machine's hardware threads: the engine's team when none is asked for.
pub fn hardware_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |count| count.get())
}

/// CSR entries a thread of the engine is worth its start and its levels'
/// forks for: a graph smaller than this many per thread runs on fewer
/// threads (`docs/decisions.md`).
pub const EDGES_PER_THREAD: u64 = 1 << 19;

/// The most threads the engine takes when none are asked for: past them,
/// a level's fork and join cost more than the extra cores give
/// (`docs/decisions.md`).
pub const MOST_THREADS: usize = 32;

/// The engine's threads for `graph` when none are asked for: one per
/// [`EDGES_PER_THREAD`] of its CSR entries, at least one and at most
/// [`MOST_THREADS`] and the [`hardware_threads`].
pub fn threads_for(graph: &crate::Csr) -> usize {
    let wanted = graph.edge_count().div_ceil(EDGES_PER_THREAD).max(1);
    let most = hardware_threads().min(MOST_THREADS) as u64;
    wanted.min(most) as usize
}
