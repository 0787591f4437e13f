//! Host driver of the `global-queue` variant (Kirk & Hwu Fig. 12.7): each
//! level, `global_queue_expand` appends to one global queue; the host reads
//! its tail, and the frontier just appended becomes the current one.

use bfs_kernels::abi::global_queue;

use crate::gpu::queue::{FrontierQueues, SingleKernelQueue};
use crate::gpu::{DeviceGraph, Driver, Gpu, GpuBfs, GpuRun, Request};
use crate::{Csr, Result};

/// The global-queue loop over the frontier queues.
pub struct GlobalQueue<'g>(SingleKernelQueue<'g>);

impl<'g> Driver<'g> for GlobalQueue<'g> {
    /// The frontier queues.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        FrontierQueues::workspace_bytes(graph.vertex_count())
    }

    /// Loads the kernel and allocates the queues for the graph's vertices.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        SingleKernelQueue::new(gpu, graph.vertex_count(), global_queue::EXPAND, 0).map(GlobalQueue)
    }
}

impl GpuBfs for GlobalQueue<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        self.0.run(graph, request)
    }
}
