//! Host driver of the `block-queue` variant (Kirk & Hwu Fig. 12.8): the
//! global-queue loop, with `block_queue_expand` collecting each block's
//! discoveries in shared memory first.

use bfs_kernels::abi::block_queue;

use super::Gpu;
use super::queue::SingleKernelQueue;
use crate::Result;

/// The variant's driver for `vertex_count` vertices.
pub fn new(gpu: &Gpu, vertex_count: u32) -> Result<SingleKernelQueue<'_>> {
    SingleKernelQueue::new(
        gpu,
        vertex_count,
        block_queue::EXPAND,
        block_queue::shared_bytes(),
    )
}

/// The driver of `block_queue_expand_plain_loads`, the same kernel without
/// the read-only cache, for benchmarks.
pub fn with_plain_loads(gpu: &Gpu, vertex_count: u32) -> Result<SingleKernelQueue<'_>> {
    SingleKernelQueue::new(
        gpu,
        vertex_count,
        block_queue::EXPAND_PLAIN_LOADS,
        block_queue::shared_bytes(),
    )
}
