//! Host driver of the `small-frontier` variant: `small_frontier_levels` runs
//! as many levels as it can in one single-block launch; a frontier too large
//! for it takes one multi-block `block_queue_expand` level, then the single
//! block resumes.

use bfs_kernels::abi::{
    SMALL_FRONTIER_BLOCK_SIZE, SMALL_FRONTIER_CAPACITY, block_queue, block_queue_shared_bytes,
    small_frontier, small_frontier_shared_bytes,
};
use cust::function::Function;
use cust::launch;
use cust::memory::{AsyncCopyDestination, DeviceBuffer, LockedBuffer};

use super::queue::{FrontierQueues, at_level};
use super::{DeviceGraph, Gpu, GpuBfs, GpuRun, Step};
use crate::Result;
use crate::error::CudaContext;

/// Both kernels, the frontier queues and the level the single block reached.
pub struct SmallFrontier<'g> {
    gpu: &'g Gpu,
    levels_kernel: Function<'g>,
    block_queue_kernel: Function<'g>,
    queues: FrontierQueues,
    frontier_level: DeviceBuffer<u32>,
    frontier_level_on_host: LockedBuffer<u32>,
}

impl<'g> SmallFrontier<'g> {
    /// Loads the kernels and allocates the queues for `vertex_count` vertices.
    pub fn new(gpu: &'g Gpu, vertex_count: u32) -> Result<Self> {
        let allocation = || "allocating small-frontier buffers".to_string();
        Ok(SmallFrontier {
            gpu,
            levels_kernel: gpu.kernel(small_frontier::LEVELS)?,
            block_queue_kernel: gpu.kernel(block_queue::EXPAND)?,
            queues: FrontierQueues::new(vertex_count)?,
            frontier_level: DeviceBuffer::zeroed(1).context(allocation)?,
            frontier_level_on_host: LockedBuffer::new(&0, 1).context(allocation)?,
        })
    }

    /// Launches the single block on the current frontier (at `level`), and
    /// queues the copy of the level it will stop at.
    fn launch_one_block(
        &mut self,
        graph: &DeviceGraph,
        frontier_size: u32,
        level: u32,
    ) -> Result<()> {
        let stream = self.gpu.stream();
        let (kernel, queues) = (&self.levels_kernel, &self.queues);
        // SAFETY: queues and graph sized for the same `n` (checked by
        // `Search::run`) and `frontier_size <= SMALL_FRONTIER_CAPACITY`:
        // `small_frontier_levels`' contract; arguments match its parameter
        // list. The page-locked level is read after the stream synchronizes.
        unsafe {
            launch!(kernel<<<1, SMALL_FRONTIER_BLOCK_SIZE, small_frontier_shared_bytes(), stream>>>(
                graph.row_offsets.as_device_ptr(),
                graph.column_indices.as_device_ptr(),
                queues.frontier.as_device_ptr(),
                frontier_size,
                queues.next_frontier.as_device_ptr(),
                queues.next_frontier_size.as_device_ptr(),
                queues.visited.as_device_ptr(),
                queues.levels.as_device_ptr(),
                queues.parents.as_device_ptr(),
                level,
                self.frontier_level.as_device_ptr()
            ))
            .context(|| "launching small_frontier_levels".into())?;
            self.frontier_level
                .async_copy_to(&mut self.frontier_level_on_host, stream)
                .context(|| "reading the level reached".into())
        }
    }
}

impl GpuBfs for SmallFrontier<'_> {
    fn run(&mut self, graph: &DeviceGraph, source: u32) -> Result<GpuRun> {
        self.queues.start(self.gpu, source)?;
        let (mut frontier_size, mut level) = (1, 0);
        while frontier_size > 0 {
            let started = std::time::Instant::now();
            self.queues.clear_next_size(self.gpu)?;
            let in_one_block = frontier_size <= SMALL_FRONTIER_CAPACITY;
            if in_one_block {
                self.launch_one_block(graph, frontier_size, level)
                    .map_err(|error| at_level(error, level))?;
            } else {
                let kernel = (&self.block_queue_kernel, block_queue_shared_bytes());
                self.queues
                    .launch_expand(self.gpu, graph, kernel, frontier_size, level)
                    .map_err(|error| at_level(error, level))?;
            }
            frontier_size = self
                .queues
                .read_next_size(self.gpu)
                .map_err(|error| at_level(error, level))?;
            let next_level = if in_one_block {
                self.frontier_level_on_host[0]
            } else {
                level + 1
            };
            self.queues.steps.push(Step {
                first_level: level,
                levels: next_level - level,
                elapsed: started.elapsed(),
                on_cpu: false,
            });
            level = next_level;
            self.queues.swap();
        }
        self.queues.finish(self.gpu, source)
    }
}
