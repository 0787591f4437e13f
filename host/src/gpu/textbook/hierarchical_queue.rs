//! Host driver of the `hierarchical-queue` variant (Kirk & Hwu Fig. 12.11):
//! w-queues → b-queue → g-queue, with the number of w-queues per block
//! chosen at launch (default [`hierarchical_queue::SUB_QUEUES`]).

use bfs_kernels::abi::frontier::FrontierLevel;
use bfs_kernels::abi::{BLOCK_SIZE, hierarchical_queue};

use crate::error::CudaContext;
use crate::gpu::queue::FrontierQueues;
use crate::gpu::{DeviceGraph, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, blocks_for};
use crate::{Csr, Error, Result};

/// The expand kernel, its w-queue count, and the frontier queues.
pub struct HierarchicalQueue<'g> {
    gpu: &'g Gpu,
    expand: Entry<'g, (FrontierLevel, u32)>,
    sub_queue_count: u32,
    queues: FrontierQueues,
}

impl<'g> HierarchicalQueue<'g> {
    /// As [`new`](Self::new), with `sub_queue_count` w-queues per block (1 to [`hierarchical_queue::MAX_SUB_QUEUES`]).
    pub fn with_sub_queues(gpu: &'g Gpu, vertex_count: u32, sub_queue_count: u32) -> Result<Self> {
        if !(1..=hierarchical_queue::MAX_SUB_QUEUES).contains(&sub_queue_count) {
            return Err(Error::Invalid(format!(
                "{sub_queue_count} w-queues: need 1 to {}",
                hierarchical_queue::MAX_SUB_QUEUES
            )));
        }
        Ok(HierarchicalQueue {
            gpu,
            expand: gpu.entry(hierarchical_queue::EXPAND)?,
            sub_queue_count,
            queues: FrontierQueues::new(vertex_count)?,
        })
    }
}

impl<'g> Driver<'g> for HierarchicalQueue<'g> {
    /// The frontier queues.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        FrontierQueues::workspace_bytes(graph.vertex_count())
    }

    /// Loads the kernel and allocates the queues for the graph's vertices,
    /// with the default number of w-queues.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        Self::with_sub_queues(gpu, graph.vertex_count(), hierarchical_queue::SUB_QUEUES)
    }
}

impl GpuBfs for HierarchicalQueue<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let (gpu, expand, sub_queue_count) = (self.gpu, &self.expand, self.sub_queue_count);
        let shared_bytes = 4 * hierarchical_queue::shared_words(sub_queue_count);
        self.queues
            .run_levels(gpu, request, |queues, frontier_size, level| {
                let shape = (
                    blocks_for(frontier_size, BLOCK_SIZE),
                    BLOCK_SIZE,
                    shared_bytes,
                );
                let level = queues.level(graph, frontier_size, level);
                // SAFETY: queues and graph are sized for the same `n` (checked
                // by `Search::run`), `sub_queue_count` is in range and the shared
                // memory matches it: `hierarchical_queue_expand`'s contract.
                unsafe { expand.launch(gpu.stream(), shape, (level, sub_queue_count)) }
                    .context(|| "launching hierarchical_queue_expand".into())
            })
    }
}
