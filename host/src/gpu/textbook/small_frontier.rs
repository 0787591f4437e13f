//! Host driver of the `small-frontier` variant: `small_frontier_levels` runs
//! as many levels as it can in one single-block launch; a frontier too large
//! for it takes one multi-block `block_queue_expand` level, then the single
//! block resumes.

use bfs_kernels::abi::frontier::FrontierLevel;
use bfs_kernels::abi::{block_queue, small_frontier};
use cust::memory::{AsyncCopyDestination, DeviceBuffer, LockedBuffer};

use crate::error::CudaContext;
use crate::gpu::device_loop::persistent::PersistentLevels;
use crate::gpu::queue::{FrontierQueues, at_level, visited_words};
use crate::gpu::{DeviceGraph, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, Step};
use crate::{Csr, Result};

/// How frontiers too large for one block are expanded.
enum LargeFrontiers<'g> {
    /// One multi-block `block_queue_expand` level at a time (the `small-frontier` variant).
    BlockQueueLevel(Entry<'g, (FrontierLevel,)>),
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
    levels_kernel: Entry<'g, (FrontierLevel, *mut u32, u32, u32, u32)>,
    /// Entries of each shared queue: the hand-over size, or as many as fit
    /// the device if fewer.
    capacity: u32,
    /// The visited bitmap's words when it fits in shared memory beside the
    /// queues (the kernel then claims there), else 0.
    shared_visited_words: u32,
    /// The single block hands over once a frontier outgrows this.
    handoff_size: u32,
    large: LargeFrontiers<'g>,
    queues: FrontierQueues,
    frontier_level: DeviceBuffer<u32>,
    frontier_level_on_host: LockedBuffer<u32>,
}

/// `auto` on road networks: frontiers up to this run in one block ...
///
/// Larger thresholds leave frontiers of thousands of vertices to one
/// multiprocessor, which cannot keep enough loads in flight for them, and
/// smaller ones gain nothing; Luxembourg's frontiers never leave the one
/// block (docs/decisions.md, "Road networks and grids").
pub const ONE_BLOCK_UP_TO: u32 = 1024;
/// ... and the persistent grid, once started, runs until the frontier is down to this.
pub const PERSISTENT_DOWN_TO: u32 = 512;

impl<'g> SmallFrontier<'g> {
    /// `auto`'s strategy for road networks: one block for small frontiers,
    /// the persistent grid (many levels per launch too) for large ones.
    pub fn with_persistent(gpu: &'g Gpu, vertex_count: u32) -> Result<Self> {
        let large = LargeFrontiers::Persistent {
            levels: PersistentLevels::new(gpu, vertex_count)?,
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
        let levels_kernel = gpu.entry(small_frontier::LEVELS)?;
        // Queues no larger than the hand-over needs leave the rest of the
        // multiprocessor's on-chip memory to the L1 cache.
        let capacity = shared_queue_capacity(gpu).min(handoff_size);
        let words = visited_words(vertex_count) as u32;
        let bitmap_fits =
            small_frontier::shared_bytes(capacity, words) <= gpu.shared_memory_per_block();
        let shared_visited_words = if bitmap_fits { words } else { 0 };
        // `shared_queue_capacity` and `bitmap_fits` keep within the opt-in limit.
        levels_kernel
            .allow_shared_memory(small_frontier::shared_bytes(capacity, shared_visited_words))?;
        Ok(SmallFrontier {
            gpu,
            levels_kernel,
            capacity,
            shared_visited_words,
            handoff_size: handoff_size.min(capacity),
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
        let shared_bytes = small_frontier::shared_bytes(self.capacity, self.shared_visited_words);
        // SAFETY: queues and graph sized for the same `n` (checked by
        // `Search::run`) and `frontier_size <= handoff_size <= capacity`,
        // `shared_visited_words` 0 or the bitmap's size, and the shared
        // memory for both allowed in `with`:
        // `small_frontier_levels`' contract. The page-locked level is read
        // after `advance` synchronizes the stream.
        unsafe {
            let parameters = (
                queues.level(graph, frontier_size, level),
                self.frontier_level.as_device_ptr().as_mut_ptr(),
                self.handoff_size,
                self.capacity,
                self.shared_visited_words,
            );
            let shape = (1, small_frontier::BLOCK_SIZE, shared_bytes);
            kernel
                .launch(stream, shape, parameters)
                .context(|| "launching small_frontier_levels".into())?;
            self.frontier_level
                .async_copy_to(&mut self.frontier_level_on_host, stream)
                .context(|| "reading the level reached".into())?;
        }
        let next_size = queues.advance(self.gpu)?;
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
                let kernel = (&*kernel, block_queue::shared_bytes());
                self.queues
                    .launch_expand(self.gpu, graph, kernel, frontier_size, level)?;
                let next_size = self.queues.advance(self.gpu)?;
                Ok((next_size, level + 1))
            }
            LargeFrontiers::Persistent {
                levels,
                back_to_one_block,
            } => {
                let (next_level, next_size) =
                    levels.run(self.gpu, graph, &mut self.queues, level, *back_to_one_block)?;
                Ok((next_size, next_level))
            }
        }
    }
}

impl<'g> Driver<'g> for SmallFrontier<'g> {
    /// Device bytes for `n` vertices: the frontier queues and the level
    /// reached (without the persistent kernel's, under `auto`).
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        let vertex_count = graph.vertex_count();
        FrontierQueues::workspace_bytes(vertex_count) + 4
    }

    /// The `small-frontier` variant: one block while the frontier fits in
    /// shared memory, single `block_queue_expand` levels beyond.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        let vertex_count = graph.vertex_count();
        let large = LargeFrontiers::BlockQueueLevel(gpu.entry(block_queue::EXPAND)?);
        Self::with(gpu, vertex_count, small_frontier::CAPACITY, large)
    }
}

impl GpuBfs for SmallFrontier<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
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
            let levels = next_level - level;
            self.queues
                .steps
                .push(Step::on_gpu(level, levels, started.elapsed()));
            (frontier_size, level) = (next_size, next_level);
        }
        self.queues.finish(self.gpu, request)
    }
}

/// The most entries of each of `small_frontier_levels`' two shared queues
/// that fit the device's shared memory per block, up to [`small_frontier::CAPACITY`].
fn shared_queue_capacity(gpu: &Gpu) -> u32 {
    /// Every CUDA device gives a block at least this much.
    const GUARANTEED_SHARED_BYTES: u32 = 48 * 1024;
    let bytes = gpu.shared_memory_per_block().max(GUARANTEED_SHARED_BYTES);
    let header = small_frontier::shared_bytes(0, 0);
    let entry = small_frontier::shared_bytes(1, 0) - header;
    ((bytes - header) / entry).min(small_frontier::CAPACITY)
}
