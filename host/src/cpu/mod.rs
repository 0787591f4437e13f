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
