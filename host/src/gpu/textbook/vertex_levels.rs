//! Host driver of the `vertex-levels` variant: one launch over all vertices
//! per level, until a level discovers nothing.

use bfs_kernels::abi::{BLOCK_SIZE, vertex_levels};
use cust::memory::{AsyncCopyDestination, DeviceBuffer, LockedBuffer};

use crate::error::CudaContext;
use crate::gpu::queue::at_level;
use crate::gpu::{
    DeviceGraph, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, Step, Timer, blocks_for, download,
    reset_labels,
};
use crate::{Csr, Result};

/// The step kernel, levels, parents and the `discovered` flag.
pub struct VertexLevels<'g> {
    gpu: &'g Gpu,
    step: Entry<'g, vertex_levels::Step>,
    levels: DeviceBuffer<u32>,
    parents: DeviceBuffer<u32>,
    discovered: DeviceBuffer<u32>,
    discovered_on_host: LockedBuffer<u32>,
    timer: Timer,
}

impl<'g> Driver<'g> for VertexLevels<'g> {
    /// A level and a parent per vertex, and the flag.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        let vertex_count = graph.vertex_count();
        8 * vertex_count as u64 + 4
    }

    /// Loads the kernel and allocates the buffers for `vertex_count` vertices.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        let vertex_count = graph.vertex_count();
        let count = vertex_count as usize;
        let allocation = || "allocating vertex-levels buffers".to_string();
        Ok(VertexLevels {
            gpu,
            step: gpu.entry(vertex_levels::STEP)?,
            levels: DeviceBuffer::zeroed(count).context(allocation)?,
            parents: DeviceBuffer::zeroed(count).context(allocation)?,
            discovered: DeviceBuffer::zeroed(1).context(allocation)?,
            discovered_on_host: LockedBuffer::new(&0, 1).context(allocation)?,
            timer: Timer::new()?,
        })
    }
}

impl GpuBfs for VertexLevels<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
        let stream = self.gpu.stream();
        let vertex_count = graph.vertex_count;
        let step = &self.step;
        self.timer.start(self.gpu)?;
        reset_labels(self.gpu, &mut self.levels, &mut self.parents, source)?;
        let mut steps = Vec::new();
        for level in 0.. {
            let started = std::time::Instant::now();
            let context = || "running a level".to_string();
            let parameters = (
                graph.row_offsets.as_device_ptr().as_ptr(),
                graph.column_indices.as_device_ptr().as_ptr(),
                self.levels.as_device_ptr().as_mut_ptr(),
                self.parents.as_device_ptr().as_mut_ptr(),
                self.discovered.as_device_ptr().as_mut_ptr(),
                vertex_count,
                level,
            );
            let shape = (blocks_for(vertex_count, BLOCK_SIZE), BLOCK_SIZE, 0);
            // SAFETY: buffers sized for `vertex_count` vertices and the whole
            // CSR (checked by `Search::run`): `vertex_levels_step`'s contract.
            // The page-locked flag is read only after the stream synchronizes.
            unsafe {
                self.discovered.set_32_async(0, stream).context(context)?;
                step.launch(stream, shape, parameters).context(context)?;
                self.discovered
                    .async_copy_to(&mut self.discovered_on_host, stream)
                    .context(context)?;
            }
            stream
                .synchronize()
                .context(context)
                .map_err(|error| at_level(error, level))?;
            steps.push(Step::gpu_level(level, started));
            if self.discovered_on_host[0] == 0 {
                break;
            }
        }
        let elapsed = self.timer.stop(self.gpu)?;
        Ok(GpuRun {
            result: download(self.gpu, request, &self.levels, Some(&self.parents))?,
            elapsed,
            steps,
            work: None,
            download: std::time::Duration::ZERO,
        })
    }
}
