//! The drivers of the textbook's queues (`kernels/src/textbook/`), a
//! launch or two a level, in the order each improves on the one before: a
//! thread a vertex, then a frontier queue, privatized to the block, then
//! to the warp; the small frontiers in one block; the CPU taking the
//! small levels.

pub mod block_queue;
pub mod global_queue;
pub mod hierarchical_queue;
pub mod hybrid_cpu;
pub mod small_frontier;
pub mod two_kernel;
pub mod vertex_levels;
