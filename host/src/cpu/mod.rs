//! Breadth-first search on the CPU: the single-thread reference that every
//! result is checked against, and the parallel engine that runs when there
//! is no GPU (or `--device cpu` asks for it).

mod direction_optimizing;
mod reference;
mod team;

pub use direction_optimizing::{ParallelBfs, SEQUENTIAL_LEVEL_EDGES, Step};
pub use reference::bfs;
