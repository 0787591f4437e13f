//! What the queue-based variants share: the per-vertex arrays, the
//! frontier queue and its tail counter, initialisation from a source, the
//! host's level loop and the final copy back.
//!
//! One queue of `n` entries holds every frontier of a search, one after
//! another: a vertex enters it once, when it is claimed, so level `L + 1`'s
//! frontier goes right after level `L`'s and the whole search fits.
//! Per vertex that is 12 bytes (level, parent, queue slot) and one bit
//! (visited), where two queues and a visited word would take 20.

use bfs_kernels::abi::frontier::FrontierLevel;
use bfs_kernels::abi::{BLOCK_SIZE, Kernel};
use cust::memory::{
    AsyncCopyDestination, CopyDestination, DeviceBuffer, DevicePointer, LockedBuffer,
};

use super::{
    DeviceGraph, Entry, Gpu, GpuBfs, GpuRun, Request, Step, Timer, blocks_for, download,
    reset_labels,
};
use crate::Result;
use crate::error::CudaContext;

/// Device state of a queue-based search over `n` vertices.
pub struct FrontierQueues {
    /// The visited bitmap: bit `v % 32` of word `v / 32` is set once `v` is claimed.
    pub visited: DeviceBuffer<u32>,
    /// Distance from the source, or [`UNREACHED`].
    pub levels: DeviceBuffer<u32>,
    /// BFS-tree parent (the source's is itself), or [`UNREACHED`].
    pub parents: DeviceBuffer<u32>,
    /// Every frontier so far, in order; the current one starts at `frontier_start`.
    pub queue: DeviceBuffer<u32>,
    frontier_start: u32,
    frontier_size: u32,
    /// Entries appended after the current frontier: the next one's size.
    pub next_frontier_size: DeviceBuffer<u32>,
    /// Page-locked copy of the tail, read by the host after each level.
    size_on_host: LockedBuffer<u32>,
    timer: Timer,
    /// The steps of the current search.
    pub steps: Vec<Step>,
}

impl FrontierQueues {
    /// Three arrays of `n` words, the bitmap and the tail counter.
    pub fn workspace_bytes(vertex_count: u32) -> u64 {
        3 * 4 * vertex_count as u64 + 4 * visited_words(vertex_count) as u64 + 4
    }

    /// Allocates the buffers for `vertex_count` vertices.
    pub fn new(vertex_count: u32) -> Result<Self> {
        let count = vertex_count as usize;
        let allocation = || "allocating the frontier queues".to_string();
        Ok(FrontierQueues {
            visited: DeviceBuffer::zeroed(visited_words(vertex_count)).context(allocation)?,
            levels: DeviceBuffer::zeroed(count).context(allocation)?,
            parents: DeviceBuffer::zeroed(count).context(allocation)?,
            queue: DeviceBuffer::zeroed(count).context(allocation)?,
            frontier_start: 0,
            frontier_size: 0,
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
        reset_labels(gpu, &mut self.levels, &mut self.parents, source)?;
        let word = (source / 32) as usize;
        // SAFETY: memsets ordered on the one stream before any kernel that
        // reads these buffers; the host does not touch them meanwhile.
        unsafe {
            self.visited.set_32_async(0, stream).context(context)?;
            self.visited
                .index(word..=word)
                .set_32_async(1 << (source % 32), stream)
                .context(context)?;
            self.queue
                .index(0..=0)
                .set_32_async(source, stream)
                .context(context)?;
        }
        self.set_frontier(0, 1);
        Ok(())
    }

    /// The current frontier: `frontier_size()` vertices from here.
    pub fn frontier(&self) -> DevicePointer<u32> {
        self.queue
            .as_device_ptr()
            .wrapping_add(self.frontier_start as usize)
    }

    /// Where the next frontier goes: right after the current one.
    pub fn next_frontier(&self) -> DevicePointer<u32> {
        self.frontier().wrapping_add(self.frontier_size as usize)
    }

    /// Where the current frontier starts in the queue.
    pub fn frontier_start(&self) -> u32 {
        self.frontier_start
    }

    /// Vertices in the current frontier.
    pub fn frontier_size(&self) -> u32 {
        self.frontier_size
    }

    /// Makes `queue[start..start + size]` the current frontier (a kernel
    /// that ran levels on its own left it there).
    pub fn set_frontier(&mut self, start: u32, size: u32) {
        (self.frontier_start, self.frontier_size) = (start, size);
    }

    /// Sets the next queue's tail to 0, ahead of a level.
    pub fn clear_next_size(&mut self, gpu: &Gpu) -> Result<()> {
        // SAFETY: ordered on the stream before the level's kernel.
        unsafe { self.next_frontier_size.set_32_async(0, gpu.stream()) }
            .context(|| "clearing the queue tail".into())
    }

    /// Waits for the level, makes the frontier it appended the current
    /// one, and returns its size.
    pub fn advance(&mut self, gpu: &Gpu) -> Result<u32> {
        let context = || "reading the queue tail".to_string();
        // SAFETY: the page-locked destination is not read until the stream
        // has been synchronized below.
        unsafe {
            self.next_frontier_size
                .async_copy_to(&mut self.size_on_host, gpu.stream())
        }
        .context(context)?;
        gpu.stream().synchronize().context(context)?;
        let next_start = self.frontier_start + self.frontier_size;
        self.set_frontier(next_start, self.size_on_host[0]);
        Ok(self.frontier_size)
    }

    /// Copies `frontier`, found on the host, to the device as the current
    /// frontier (in place of the current one, which the host expanded).
    pub fn upload_frontier(&mut self, frontier: &[u32]) -> Result<()> {
        let start = self.frontier_start as usize;
        self.queue
            .index(start..start + frontier.len())
            .copy_from(frontier)
            .context(|| "sending the frontier".into())?;
        self.frontier_size = frontier.len() as u32;
        Ok(())
    }

    /// Copies the current frontier into `frontier`.
    pub fn download_frontier(&self, frontier: &mut Vec<u32>) -> Result<()> {
        let start = self.frontier_start as usize;
        frontier.resize(self.frontier_size as usize, 0);
        if !frontier.is_empty() {
            self.queue
                .index(start..start + frontier.len())
                .copy_to(&mut frontier[..])
                .context(|| "receiving the frontier".into())?;
        }
        Ok(())
    }

    /// The host's level loop: from `source`, `expand(self, frontier_size,
    /// level)` launches one level, until a level discovers nothing.
    pub fn run_levels(
        &mut self,
        gpu: &Gpu,
        request: Request,
        mut expand: impl FnMut(&Self, u32, u32) -> Result<()>,
    ) -> Result<GpuRun> {
        self.start(gpu, request.source)?;
        let mut frontier_size = 1;
        let mut level = 0;
        while frontier_size > 0 {
            let started = std::time::Instant::now();
            self.clear_next_size(gpu)?;
            expand(self, frontier_size, level).map_err(|error| at_level(error, level))?;
            frontier_size = self.advance(gpu).map_err(|error| at_level(error, level))?;
            self.steps.push(Step::gpu_level(level, started));
            level += 1;
        }
        self.finish(gpu, request)
    }

    /// The level block of the current frontier's `frontier_size` vertices
    /// at `level`, over `graph`: the next frontier goes right after it.
    pub fn level(&self, graph: &DeviceGraph, frontier_size: u32, level: u32) -> FrontierLevel {
        FrontierLevel {
            row_offsets: graph.row_offsets.as_device_ptr().as_ptr(),
            column_indices: graph.column_indices.as_device_ptr().as_ptr(),
            frontier: self.frontier().as_ptr(),
            next_frontier: self.next_frontier().as_mut_ptr(),
            next_frontier_size: self.next_frontier_size.as_device_ptr().as_mut_ptr(),
            visited: self.visited.as_device_ptr().as_mut_ptr(),
            levels: self.levels.as_device_ptr().as_mut_ptr(),
            parents: self.parents.as_device_ptr().as_mut_ptr(),
            frontier_size,
            level,
        }
    }

    /// Launches one level of an expand kernel that takes a level block
    /// alone (`global_queue_expand`, `block_queue_expand`), one thread per
    /// frontier entry.
    pub(crate) fn launch_expand(
        &self,
        gpu: &Gpu,
        graph: &DeviceGraph,
        (expand, shared_bytes): (&Entry<'_, (FrontierLevel,)>, u32),
        frontier_size: u32,
        level: u32,
    ) -> Result<()> {
        let shape = (
            blocks_for(frontier_size, BLOCK_SIZE),
            BLOCK_SIZE,
            shared_bytes,
        );
        // SAFETY: these queues and `graph` are sized for the same `n`
        // (checked by `Search::run`), the frontier holds `frontier_size`
        // vertex ids and is followed by room for every vertex still
        // undiscovered, which is the expand kernels' contract;
        // `shared_bytes` is their layout's.
        unsafe {
            expand.launch(
                gpu.stream(),
                shape,
                (self.level(graph, frontier_size, level),),
            )
        }
        .context(|| "launching the expand kernel".into())
    }

    /// Stops the timer and copies the levels back, and the parents where asked.
    pub fn finish(&mut self, gpu: &Gpu, request: Request) -> Result<GpuRun> {
        let elapsed = self.timer.stop(gpu)?;
        Ok(GpuRun {
            result: download(gpu, request, &self.levels, Some(&self.parents))?,
            elapsed,
            steps: std::mem::take(&mut self.steps),
            work: None,
            download: std::time::Duration::ZERO,
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
    expand: Entry<'g, (FrontierLevel,)>,
    shared_bytes: u32,
    queues: FrontierQueues,
}

impl<'g> SingleKernelQueue<'g> {
    /// Loads `kernel` and allocates the queues for `vertex_count` vertices.
    pub fn new(
        gpu: &'g Gpu,
        vertex_count: u32,
        kernel: Kernel<(FrontierLevel,)>,
        shared_bytes: u32,
    ) -> Result<Self> {
        Ok(SingleKernelQueue {
            gpu,
            expand: gpu.entry(kernel)?,
            shared_bytes,
            queues: FrontierQueues::new(vertex_count)?,
        })
    }
}

impl GpuBfs for SingleKernelQueue<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let (gpu, kernel) = (self.gpu, (&self.expand, self.shared_bytes));
        self.queues
            .run_levels(gpu, request, |queues, frontier_size, level| {
                queues.launch_expand(gpu, graph, kernel, frontier_size, level)
            })
    }
}

/// Words of a bitmap with one bit per vertex.
pub fn visited_words(vertex_count: u32) -> usize {
    vertex_count.div_ceil(32).max(1) as usize
}
