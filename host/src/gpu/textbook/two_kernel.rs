//! Host driver of the `two-kernel` variant (Rodinia's BFS): the level loop
//! that launches expand and update until the device's `over` flag stays 0.

use bfs_kernels::abi::{BLOCK_SIZE, UNREACHED, two_kernel};
use cust::memory::{AsyncCopyDestination, DeviceBuffer, LockedBuffer};

use crate::error::CudaContext;
use crate::gpu::{
    DeviceGraph, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, Step, Timer, blocks_for, download,
};
use crate::{Csr, Result};

/// The expand/update kernels and their per-vertex masks, sized for one graph.
pub struct TwoKernel<'g> {
    gpu: &'g Gpu,
    expand: Entry<'g, two_kernel::Expand>,
    update: Entry<'g, two_kernel::Update>,
    frontier: DeviceBuffer<u8>,
    updating: DeviceBuffer<u8>,
    visited: DeviceBuffer<u8>,
    levels: DeviceBuffer<u32>,
    over: DeviceBuffer<u32>,
    /// Page-locked, so the per-level copy of `over` is a true async DMA.
    over_on_host: LockedBuffer<u32>,
    timer: Timer,
}

impl<'g> TwoKernel<'g> {
    /// Clears the masks and levels, then puts `source` alone in the frontier.
    fn initialise(&mut self, source: u32) -> Result<()> {
        let stream = self.gpu.stream();
        let source = source as usize;
        let context = || "initialising the masks".to_string();
        // SAFETY: every memset is ordered on the one stream before the first
        // kernel, and the host touches none of these buffers meanwhile.
        unsafe {
            self.frontier.set_8_async(0, stream).context(context)?;
            self.updating.set_8_async(0, stream).context(context)?;
            self.visited.set_8_async(0, stream).context(context)?;
            self.levels
                .set_32_async(UNREACHED, stream)
                .context(context)?;
            self.frontier
                .index(source..=source)
                .set_8_async(1, stream)
                .context(context)?;
            self.visited
                .index(source..=source)
                .set_8_async(1, stream)
                .context(context)?;
            self.levels
                .index(source..=source)
                .set_32_async(0, stream)
                .context(context)?;
        }
        Ok(())
    }
}

impl<'g> Driver<'g> for TwoKernel<'g> {
    /// Three byte masks and a level per vertex, and the `over` flag.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        let vertex_count = graph.vertex_count();
        7 * vertex_count as u64 + 4
    }

    /// Loads the kernels and allocates the buffers for `vertex_count` vertices.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        let vertex_count = graph.vertex_count();
        let count = vertex_count as usize;
        let allocation = || "allocating two-kernel buffers".to_string();
        Ok(TwoKernel {
            gpu,
            expand: gpu.entry(two_kernel::EXPAND)?,
            update: gpu.entry(two_kernel::UPDATE)?,
            frontier: DeviceBuffer::zeroed(count).context(allocation)?,
            updating: DeviceBuffer::zeroed(count).context(allocation)?,
            visited: DeviceBuffer::zeroed(count).context(allocation)?,
            levels: DeviceBuffer::zeroed(count).context(allocation)?,
            over: DeviceBuffer::zeroed(1).context(allocation)?,
            over_on_host: LockedBuffer::new(&0, 1).context(allocation)?,
            timer: Timer::new()?,
        })
    }
}

impl GpuBfs for TwoKernel<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
        let stream = self.gpu.stream();
        let vertex_count = graph.vertex_count;
        let blocks = blocks_for(vertex_count, BLOCK_SIZE);
        self.timer.start(self.gpu)?;
        self.initialise(source)?;
        let (expand, update) = (&self.expand, &self.update);
        let mut steps = Vec::new();
        for level in 0.. {
            let started = std::time::Instant::now();
            let at_level = || format!("level {level}");
            let masks = [&self.frontier, &self.updating, &self.visited]
                .map(|mask| mask.as_device_ptr().as_mut_ptr());
            let expanding = (
                graph.row_offsets.as_device_ptr().as_ptr(),
                graph.column_indices.as_device_ptr().as_ptr(),
                masks[0],
                masks[1],
                masks[2].cast_const(),
                self.levels.as_device_ptr().as_mut_ptr(),
                vertex_count,
            );
            let over = self.over.as_device_ptr().as_mut_ptr();
            let updating = (masks[0], masks[1], masks[2], over, vertex_count);
            // SAFETY: the buffers were allocated for `vertex_count` vertices
            // (checked by `Search::run`) and the CSR was uploaded whole, which
            // is the kernels' buffer contract.
            unsafe {
                self.over.set_32_async(0, stream).context(at_level)?;
                let shape = (blocks, BLOCK_SIZE, 0);
                expand.launch(stream, shape, expanding).context(at_level)?;
                update.launch(stream, shape, updating).context(at_level)?;
                self.over
                    .async_copy_to(&mut self.over_on_host, stream)
                    .context(at_level)?;
            }
            stream.synchronize().context(at_level)?;
            steps.push(Step::gpu_level(level, started));
            if self.over_on_host[0] == 0 {
                break;
            }
        }
        let elapsed = self.timer.stop(self.gpu)?;
        Ok(GpuRun {
            result: download(self.gpu, request, &self.levels, None)?,
            elapsed,
            steps,
            work: None,
            download: std::time::Duration::ZERO,
        })
    }
}
