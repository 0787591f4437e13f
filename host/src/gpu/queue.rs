//! What the queue-based variants share: the per-vertex arrays, the two
//! frontier queues and the next queue's tail counter, initialisation from a
//! source, the host's level loop and the final copy back.

use bfs_kernels::abi::{BLOCK_SIZE, UNREACHED, VISITED};
use cust::function::Function;
use cust::launch;
use cust::memory::{AsyncCopyDestination, DeviceBuffer, LockedBuffer};

use super::{DeviceGraph, Gpu, GpuBfs, GpuRun, Step, Timer, blocks_for, download};
use crate::Result;
use crate::error::CudaContext;

/// Device state of a queue-based search over `n` vertices.
pub struct FrontierQueues {
    /// [`VISITED`] once claimed, else 0.
    pub visited: DeviceBuffer<u32>,
    /// Distance from the source, or [`UNREACHED`].
    pub levels: DeviceBuffer<u32>,
    /// BFS-tree parent (the source's is itself), or [`UNREACHED`].
    pub parents: DeviceBuffer<u32>,
    /// The current frontier's vertex ids.
    pub frontier: DeviceBuffer<u32>,
    /// The next frontier, filled by the expand kernel.
    pub next_frontier: DeviceBuffer<u32>,
    /// Entries in `next_frontier`: the queue's tail.
    pub next_frontier_size: DeviceBuffer<u32>,
    /// Page-locked copy of the tail, read by the host after each level.
    size_on_host: LockedBuffer<u32>,
    timer: Timer,
    /// The steps of the current search.
    pub steps: Vec<Step>,
}

impl FrontierQueues {
    /// Five arrays of `n` words and the tail counter.
    pub fn workspace_bytes(vertex_count: u32) -> u64 {
        5 * 4 * vertex_count as u64 + 4
    }

    /// Allocates the buffers for `vertex_count` vertices.
    pub fn new(vertex_count: u32) -> Result<Self> {
        let count = vertex_count as usize;
        let allocation = || "allocating the frontier queues".to_string();
        Ok(FrontierQueues {
            visited: DeviceBuffer::zeroed(count).context(allocation)?,
            levels: DeviceBuffer::zeroed(count).context(allocation)?,
            parents: DeviceBuffer::zeroed(count).context(allocation)?,
            frontier: DeviceBuffer::zeroed(count).context(allocation)?,
            next_frontier: DeviceBuffer::zeroed(count).context(allocation)?,
            next_frontier_size: DeviceBuffer::zeroed(1).context(allocation)?,
            size_on_host: LockedBuffer::new(&0, 1).context(allocation)?,
            timer: Timer::new()?,
            steps: Vec::new(),
        })
    }

    /// Starts the timer and resets the arrays, with `source` claimed, at
    /// level 0, its own parent, and alone in the frontier.
    pub fn start(&mut self, gpu: &Gpu, source: u32) -> Result<()> {
        let stream = gpu.stream();
        let context = || "initialising the search".to_string();
        self.timer.start(gpu)?;
        self.steps.clear();
        let at = source as usize..=source as usize;
        // SAFETY: memsets ordered on the one stream before any kernel that
        // reads these buffers; the host does not touch them meanwhile.
        unsafe {
            self.visited.set_32_async(0, stream).context(context)?;
            self.levels
                .set_32_async(UNREACHED, stream)
                .context(context)?;
            self.parents
                .set_32_async(UNREACHED, stream)
                .context(context)?;
            self.visited
                .index(at.clone())
                .set_32_async(VISITED, stream)
                .context(context)?;
            self.levels
                .index(at.clone())
                .set_32_async(0, stream)
                .context(context)?;
            self.parents
                .index(at)
                .set_32_async(source, stream)
                .context(context)?;
            self.frontier
                .index(0..=0)
                .set_32_async(source, stream)
                .context(context)?;
        }
        Ok(())
    }

    /// Sets the next queue's tail to 0, ahead of a level.
    pub fn clear_next_size(&mut self, gpu: &Gpu) -> Result<()> {
        // SAFETY: ordered on the stream before the level's kernel.
        unsafe { self.next_frontier_size.set_32_async(0, gpu.stream()) }
            .context(|| "clearing the queue tail".into())
    }

    /// Waits for the level and returns the next frontier's size.
    pub fn read_next_size(&mut self, gpu: &Gpu) -> Result<u32> {
        let context = || "reading the queue tail".to_string();
        // SAFETY: the page-locked destination is not read until the stream
        // has been synchronized below.
        unsafe {
            self.next_frontier_size
                .async_copy_to(&mut self.size_on_host, gpu.stream())
        }
        .context(context)?;
        gpu.stream().synchronize().context(context)?;
        Ok(self.size_on_host[0])
    }

    /// Makes the next frontier the current one.
    pub fn swap(&mut self) {
        std::mem::swap(&mut self.frontier, &mut self.next_frontier);
    }

    /// The host's level loop: from `source`, `expand(self, frontier_size,
    /// level)` launches one level, until a level discovers nothing.
    pub fn run_levels(
        &mut self,
        gpu: &Gpu,
        source: u32,
        mut expand: impl FnMut(&Self, u32, u32) -> Result<()>,
    ) -> Result<GpuRun> {
        self.start(gpu, source)?;
        let mut frontier_size = 1;
        let mut level = 0;
        while frontier_size > 0 {
            let started = std::time::Instant::now();
            self.clear_next_size(gpu)?;
            expand(self, frontier_size, level).map_err(|error| at_level(error, level))?;
            frontier_size = self
                .read_next_size(gpu)
                .map_err(|error| at_level(error, level))?;
            self.swap();
            self.steps.push(Step::gpu_level(level, started));
            level += 1;
        }
        self.finish(gpu, source)
    }

    /// Launches one level of an expand kernel with the parameter list of
    /// `global_queue_expand` (shared by `block_queue_expand`), one thread per
    /// frontier entry.
    pub fn launch_expand(
        &self,
        gpu: &Gpu,
        graph: &DeviceGraph,
        (expand, shared_bytes): (&Function<'_>, u32),
        frontier_size: u32,
        level: u32,
    ) -> Result<()> {
        let stream = gpu.stream();
        // SAFETY: these queues and `graph` are sized for the same `n`
        // (checked by `Search::run`) and `frontier` holds `frontier_size`
        // vertex ids, which is the expand kernels' contract; the arguments
        // match their parameter list and `shared_bytes` their layout.
        unsafe {
            launch!(expand<<<blocks_for(frontier_size, BLOCK_SIZE), BLOCK_SIZE, shared_bytes, stream>>>(
                graph.row_offsets.as_device_ptr(),
                graph.column_indices.as_device_ptr(),
                self.frontier.as_device_ptr(),
                frontier_size,
                self.next_frontier.as_device_ptr(),
                self.next_frontier_size.as_device_ptr(),
                self.visited.as_device_ptr(),
                self.levels.as_device_ptr(),
                self.parents.as_device_ptr(),
                level
            ))
        }
        .context(|| "launching the expand kernel".into())
    }

    /// Stops the timer and copies levels and parents back.
    pub fn finish(&mut self, gpu: &Gpu, source: u32) -> Result<GpuRun> {
        let elapsed = self.timer.stop(gpu)?;
        Ok(GpuRun {
            result: download(source, &self.levels, Some(&self.parents))?,
            elapsed,
            steps: std::mem::take(&mut self.steps),
        })
    }
}

/// Adds the level to a CUDA error's context.
pub fn at_level(error: crate::Error, level: u32) -> crate::Error {
    match error {
        crate::Error::Cuda { context, error } => crate::Error::Cuda {
            context: format!("level {level}, {context}"),
            error,
        },
        other => other,
    }
}

/// A variant that is one expand kernel per level over [`FrontierQueues`]:
/// `global-queue` and `block-queue`, which differ only in the kernel and
/// its shared memory.
pub struct SingleKernelQueue<'g> {
    gpu: &'g Gpu,
    expand: Function<'g>,
    shared_bytes: u32,
    queues: FrontierQueues,
}

impl<'g> SingleKernelQueue<'g> {
    /// Loads kernel `name` and allocates the queues for `vertex_count` vertices.
    pub fn new(gpu: &'g Gpu, vertex_count: u32, name: &str, shared_bytes: u32) -> Result<Self> {
        Ok(SingleKernelQueue {
            gpu,
            expand: gpu.kernel(name)?,
            shared_bytes,
            queues: FrontierQueues::new(vertex_count)?,
        })
    }
}

impl GpuBfs for SingleKernelQueue<'_> {
    fn run(&mut self, graph: &DeviceGraph, source: u32) -> Result<GpuRun> {
        let (gpu, kernel) = (self.gpu, (&self.expand, self.shared_bytes));
        self.queues
            .run_levels(gpu, source, |queues, frontier_size, level| {
                queues.launch_expand(gpu, graph, kernel, frontier_size, level)
            })
    }
}
