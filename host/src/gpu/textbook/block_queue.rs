//! Host driver of the `block-queue` variant (Kirk & Hwu Fig. 12.8): the
//! global-queue loop, with `block_queue_expand` collecting each block's
//! discoveries in shared memory first.

use bfs_kernels::abi::block_queue;

use crate::gpu::queue::{FrontierQueues, SingleKernelQueue};
use crate::gpu::{DeviceGraph, Driver, Gpu, GpuBfs, GpuRun, Request};
use crate::{Csr, Result};

/// The block-queue loop over the frontier queues.
pub struct BlockQueue<'g>(SingleKernelQueue<'g>);

impl<'g> BlockQueue<'g> {
    /// The driver of `block_queue_expand_plain_loads`, the same kernel
    /// without the read-only cache, for benchmarks.
    pub fn with_plain_loads(gpu: &'g Gpu, vertex_count: u32) -> Result<Self> {
        SingleKernelQueue::new(
            gpu,
            vertex_count,
            block_queue::EXPAND_PLAIN_LOADS,
            block_queue::shared_bytes(),
        )
        .map(BlockQueue)
    }
}

impl<'g> Driver<'g> for BlockQueue<'g> {
    /// The frontier queues.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        FrontierQueues::workspace_bytes(graph.vertex_count())
    }

    /// Loads the kernel and allocates the queues for the graph's vertices.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        SingleKernelQueue::new(
            gpu,
            graph.vertex_count(),
            block_queue::EXPAND,
            block_queue::shared_bytes(),
        )
        .map(BlockQueue)
    }
}

impl GpuBfs for BlockQueue<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        self.0.run(graph, request)
    }
}
