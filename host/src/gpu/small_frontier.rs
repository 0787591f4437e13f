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

use super::persistent::PersistentLevels;
use super::queue::{FrontierQueues, at_level};
use super::{DeviceGraph, Gpu, GpuBfs, GpuRun, Step};
use crate::Result;
use crate::error::CudaContext;

/// How frontiers too large for one block are expanded.
enum LargeFrontiers<'g> {
    /// One multi-block `block_queue_expand` level at a time (the `small-frontier` variant).
    BlockQueueLevel(Function<'g>),
    /// The persistent grid until the frontier is down to `back_to_one_block` (`auto`).
    Persistent {
        levels: PersistentLevels<'g>,
        back_to_one_block: u32,
    },
}

/// The single-block kernel, what takes over from it, the frontier queues
/// and the level the single block reached.
pub struct SmallFrontier<'g> {
    gpu: &'g Gpu,
    levels_kernel: Function<'g>,
    /// The single block hands over once a frontier outgrows this.
    handoff_size: u32,
    large: LargeFrontiers<'g>,
    queues: FrontierQueues,
    frontier_level: DeviceBuffer<u32>,
    frontier_level_on_host: LockedBuffer<u32>,
}

/// `auto` on road networks: frontiers up to this run in one block ...
pub const ONE_BLOCK_UP_TO: u32 = 2048;
/// ... and the persistent grid, once started, runs until the frontier is down to this.
pub const PERSISTENT_DOWN_TO: u32 = 1024;

impl<'g> SmallFrontier<'g> {
    /// The `small-frontier` variant: one block while the frontier fits in
    /// shared memory, single `block_queue_expand` levels beyond.
    pub fn new(gpu: &'g Gpu, vertex_count: u32) -> Result<Self> {
        let large = LargeFrontiers::BlockQueueLevel(gpu.kernel(block_queue::EXPAND)?);
        Self::with(gpu, vertex_count, SMALL_FRONTIER_CAPACITY, large)
    }

    /// `auto`'s strategy for road networks: one block for small frontiers,
    /// the persistent grid (many levels per launch too) for large ones.
    pub fn with_persistent(gpu: &'g Gpu, vertex_count: u32) -> Result<Self> {
        let large = LargeFrontiers::Persistent {
            levels: PersistentLevels::new(gpu)?,
            back_to_one_block: PERSISTENT_DOWN_TO,
        };
        Self::with(gpu, vertex_count, ONE_BLOCK_UP_TO, large)
    }

    fn with(
        gpu: &'g Gpu,
        vertex_count: u32,
        handoff_size: u32,
        large: LargeFrontiers<'g>,
    ) -> Result<Self> {
        let allocation = || "allocating small-frontier buffers".to_string();
        Ok(SmallFrontier {
            gpu,
            levels_kernel: gpu.kernel(small_frontier::LEVELS)?,
            handoff_size,
            large,
            queues: FrontierQueues::new(vertex_count)?,
            frontier_level: DeviceBuffer::zeroed(1).context(allocation)?,
            frontier_level_on_host: LockedBuffer::new(&0, 1).context(allocation)?,
        })
    }

    /// Runs levels in the single block from the current frontier (at
    /// `level`); returns the next frontier's size and level.
    fn run_in_one_block(
        &mut self,
        graph: &DeviceGraph,
        frontier_size: u32,
        level: u32,
    ) -> Result<(u32, u32)> {
        let stream = self.gpu.stream();
        let (kernel, queues) = (&self.levels_kernel, &mut self.queues);
        queues.clear_next_size(self.gpu)?;
        // SAFETY: queues and graph sized for the same `n` (checked by
        // `Search::run`) and `frontier_size <= handoff_size <=
        // SMALL_FRONTIER_CAPACITY`: `small_frontier_levels`' contract;
        // arguments match its parameter list. The page-locked level is read
        // after `read_next_size` synchronizes the stream.
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
                self.frontier_level.as_device_ptr(),
                self.handoff_size
            ))
            .context(|| "launching small_frontier_levels".into())?;
            self.frontier_level
                .async_copy_to(&mut self.frontier_level_on_host, stream)
                .context(|| "reading the level reached".into())?;
        }
        let next_size = queues.read_next_size(self.gpu)?;
        queues.swap();
        Ok((next_size, self.frontier_level_on_host[0]))
    }

    /// Expands a frontier too large for one block; returns the next
    /// frontier's size and level.
    fn run_large(
        &mut self,
        graph: &DeviceGraph,
        frontier_size: u32,
        level: u32,
    ) -> Result<(u32, u32)> {
        match &mut self.large {
            LargeFrontiers::BlockQueueLevel(kernel) => {
                self.queues.clear_next_size(self.gpu)?;
                let kernel = (&*kernel, block_queue_shared_bytes());
                self.queues
                    .launch_expand(self.gpu, graph, kernel, frontier_size, level)?;
                let next_size = self.queues.read_next_size(self.gpu)?;
                self.queues.swap();
                Ok((next_size, level + 1))
            }
            LargeFrontiers::Persistent {
                levels,
                back_to_one_block,
            } => {
                let (next_level, next_size) = levels.run(
                    self.gpu,
                    graph,
                    &mut self.queues,
                    (level, frontier_size),
                    *back_to_one_block,
                )?;
                Ok((next_size, next_level))
            }
        }
    }
}

impl GpuBfs for SmallFrontier<'_> {
    fn run(&mut self, graph: &DeviceGraph, source: u32) -> Result<GpuRun> {
        self.queues.start(self.gpu, source)?;
        let (mut frontier_size, mut level) = (1, 0);
        while frontier_size > 0 {
            let started = std::time::Instant::now();
            let (next_size, next_level) = if frontier_size <= self.handoff_size {
                self.run_in_one_block(graph, frontier_size, level)
            } else {
                self.run_large(graph, frontier_size, level)
            }
            .map_err(|error| at_level(error, level))?;
            self.queues.steps.push(Step {
                first_level: level,
                levels: next_level - level,
                elapsed: started.elapsed(),
                on_cpu: false,
            });
            (frontier_size, level) = (next_size, next_level);
        }
        self.queues.finish(self.gpu, source)
    }
}
