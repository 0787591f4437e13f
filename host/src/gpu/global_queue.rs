//! Host driver of the `global-queue` variant (Kirk & Hwu Fig. 12.7): each
//! level, `global_queue_expand` appends to one global queue; the host reads
//! its tail, and the frontier just appended becomes the current one.

use bfs_kernels::abi::global_queue;

use super::Gpu;
use super::queue::SingleKernelQueue;
use crate::Result;

/// The variant's driver for `vertex_count` vertices.
pub fn new(gpu: &Gpu, vertex_count: u32) -> Result<SingleKernelQueue<'_>> {
    SingleKernelQueue::new(gpu, vertex_count, global_queue::EXPAND, 0)
}
