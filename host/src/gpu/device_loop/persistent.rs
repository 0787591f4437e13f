//! Host driver of the `persistent` variant: one cooperative launch of one
//! block per multiprocessor runs every level; the host waits once. The
//! launch itself, [`PersistentLevels`], also serves `auto`, which runs the
//! large-frontier stretches of a road network this way.

use bfs_kernels::abi::{EdgeOffset, persistent};
use cust::memory::{CopyDestination, DeviceBuffer};

use crate::error::CudaContext;
use crate::gpu::queue::FrontierQueues;
use crate::gpu::{DeviceGraph, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, Step, address};
use crate::{Csr, Result};

/// The persistent kernel, its grid size, its barrier words, the rows it
/// stages between levels, and where it reports the level it reached.
pub struct PersistentLevels<'g> {
    kernel: Entry<'g, persistent::Levels>,
    level_words: DeviceBuffer<u64>,
    staged_rows: DeviceBuffer<EdgeOffset>,
    staged_capacity: u32,
    reached: DeviceBuffer<u32>,
}

impl<'g> PersistentLevels<'g> {
    /// Device bytes besides the frontier queues for `n` vertices: three
    /// barrier words, the staged rows (no more than a bitmap's bytes), three
    /// reported words.
    pub fn workspace_bytes(vertex_count: u32) -> u64 {
        8 * 3 + 4 * size_of::<EdgeOffset>() as u64 * staged_capacity(vertex_count) as u64 + 4 * 3
    }

    /// Loads the kernel and sizes the grid to one block per multiprocessor,
    /// after checking the device can keep them all resident.
    pub fn new(gpu: &'g Gpu, vertex_count: u32) -> Result<Self> {
        let kernel = gpu.entry(persistent::LEVELS)?;
        kernel.check_cooperative(gpu, persistent::BLOCK_SIZE, persistent::SHARED_BYTES)?;
        let allocation = || "allocating the persistent kernel's buffers".to_string();
        Ok(PersistentLevels {
            kernel,
            level_words: DeviceBuffer::zeroed(3).context(allocation)?,
            staged_rows: DeviceBuffer::zeroed(4 * staged_capacity(vertex_count).max(1) as usize)
                .context(allocation)?,
            staged_capacity: staged_capacity(vertex_count),
            reached: DeviceBuffer::zeroed(3).context(allocation)?,
        })
    }

    /// Runs levels from the queues' frontier (at `first_level`) until the
    /// search ends or the frontier is down to `handoff_size` vertices (0: to
    /// the end); makes that frontier the queues' current one and returns its
    /// level and size.
    pub fn run(
        &mut self,
        gpu: &Gpu,
        graph: &DeviceGraph,
        queues: &mut FrontierQueues,
        first_level: u32,
        handoff_size: u32,
    ) -> Result<(u32, u32)> {
        let stream = gpu.stream();
        // SAFETY: a memset on the stream, ordered before the launch below.
        unsafe { self.level_words.set_zero_async(stream) }
            .context(|| "starting the persistent kernel".into())?;
        // SAFETY: `persistent_levels`' contract: its buffers all sized for
        // the graph's `n` (checked by `Search::run`) and initialised as
        // its contract says (the frontier in the queue at `frontier_start`,
        // the barrier words 0); `new` checked the launch shape.
        unsafe {
            self.kernel.launch_cooperative(
                gpu,
                (
                    gpu.multiprocessors(),
                    persistent::BLOCK_SIZE,
                    persistent::SHARED_BYTES,
                ),
                (
                    address(&graph.row_offsets).cast_const(),
                    address(&graph.column_indices).cast_const(),
                    address(&queues.queue),
                    queues.frontier_start(),
                    queues.frontier_size(),
                    address(&self.staged_rows),
                    self.staged_capacity,
                    address(&self.level_words),
                    address(&queues.visited),
                    address(&queues.levels),
                    address(&queues.parents),
                    address(&self.reached),
                    first_level,
                    handoff_size,
                ),
            )?;
        }
        stream
            .synchronize()
            .context(|| "running the persistent kernel".into())?;
        let mut reached = [0u32; 3];
        self.reached
            .copy_to(&mut reached[..])
            .context(|| "reading the level the persistent kernel reached".into())?;
        let [level, start, size] = reached;
        queues.set_frontier(start, size);
        Ok((level, size))
    }
}

/// Frontier entries whose rows the kernel stages: `n / 128`, so the
/// staging (two rows of two offsets, 32 bytes, an entry) takes no more than
/// `n / 4` bytes, and at most [`persistent::STAGED_ROWS`].
fn staged_capacity(vertex_count: u32) -> u32 {
    (vertex_count / 128).min(persistent::STAGED_ROWS)
}

/// The persistent kernel over the frontier queues.
pub struct Persistent<'g> {
    gpu: &'g Gpu,
    levels: PersistentLevels<'g>,
    queues: FrontierQueues,
}

impl<'g> Driver<'g> for Persistent<'g> {
    /// The frontier queues and the counters.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        FrontierQueues::workspace_bytes(graph.vertex_count())
            + PersistentLevels::workspace_bytes(graph.vertex_count())
    }

    /// Loads the kernel and allocates the buffers for the graph's vertices.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        Ok(Persistent {
            gpu,
            levels: PersistentLevels::new(gpu, graph.vertex_count())?,
            queues: FrontierQueues::new(graph.vertex_count())?,
        })
    }
}

impl GpuBfs for Persistent<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
        let started = std::time::Instant::now();
        self.queues.start(self.gpu, source)?;
        let (levels, _) = self.levels.run(self.gpu, graph, &mut self.queues, 0, 0)?;
        self.queues
            .steps
            .push(Step::on_gpu(0, levels, started.elapsed()));
        self.queues.finish(self.gpu, request)
    }
}
