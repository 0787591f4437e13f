//! The textbook's queues (Kirk & Hwu, chapter 12; Rodinia; the
//! graph-search lecture), in the order each improves on the one before:
//! a thread a vertex, then a frontier queue, privatized to the block, then
//! to the warp, then many levels in one block, then small levels on the CPU.

pub mod two_kernel;

pub mod vertex_levels;

pub mod global_queue;

pub mod block_queue;

pub mod hierarchical_queue;

pub mod small_frontier;

pub mod hybrid_cpu;
