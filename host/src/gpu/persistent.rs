//! Host driver of the `persistent` variant: one cooperative launch of one
//! block per multiprocessor runs every level; the host waits once. The
//! launch itself, [`PersistentLevels`], also serves `auto`, which runs the
//! large-frontier stretches of a road network this way.

use std::ffi::c_void;

use bfs_kernels::abi::{PERSISTENT_BLOCK_SIZE, persistent};
use cust::function::{BlockSize, Function};
use cust::memory::{CopyDestination, DeviceBuffer};

use super::queue::FrontierQueues;
use super::{DeviceGraph, Gpu, GpuBfs, GpuRun, Step};
use crate::error::{CudaContext, describe_driver_result};
use crate::{Error, Result};

/// Where each group of words sits in the counter buffer: the three rotating
/// queue sizes, the barrier's two words, the level reached.
const QUEUE_SIZES: usize = 0;
const BARRIER: usize = 3;
const LEVEL_COUNT: usize = 5;
const COUNTER_WORDS: usize = 6;

/// The persistent kernel, its grid size and its counters.
pub struct PersistentLevels<'g> {
    kernel: Function<'g>,
    blocks: u32,
    counters: DeviceBuffer<u32>,
}

impl<'g> PersistentLevels<'g> {
    /// Device bytes besides the frontier queues.
    pub const WORKSPACE_BYTES: u64 = 4 * COUNTER_WORDS as u64;

    /// Loads the kernel and sizes the grid to one block per multiprocessor,
    /// after checking the device can keep them all resident.
    pub fn new(gpu: &'g Gpu) -> Result<Self> {
        if !gpu.cooperative_launch() {
            return Err(Error::Invalid(format!(
                "{} does not support cooperative launches",
                gpu.name()
            )));
        }
        let kernel = gpu.kernel(persistent::LEVELS)?;
        let resident = kernel
            .max_active_blocks_per_multiprocessor(BlockSize::x(PERSISTENT_BLOCK_SIZE), 0)
            .context(|| "reading the persistent kernel's occupancy".into())?;
        if resident == 0 {
            return Err(Error::Invalid(
                "the persistent kernel cannot fit one block on a multiprocessor".into(),
            ));
        }
        let counters = DeviceBuffer::zeroed(COUNTER_WORDS)
            .context(|| "allocating the persistent counters".into())?;
        Ok(PersistentLevels {
            kernel,
            blocks: gpu.multiprocessors(),
            counters,
        })
    }

    /// Runs levels from `queues.frontier` (`size` vertices at `first_level`)
    /// until the search ends or the frontier is down to `handoff_size`
    /// vertices (0: to the end); leaves that frontier in `queues.frontier`
    /// and returns its level and size.
    pub fn run(
        &mut self,
        gpu: &Gpu,
        graph: &DeviceGraph,
        queues: &mut FrontierQueues,
        (first_level, size): (u32, u32),
        handoff_size: u32,
    ) -> Result<(u32, u32)> {
        let stream = gpu.stream();
        let context = || "starting the persistent kernel".to_string();
        let sizes_slot = QUEUE_SIZES + (first_level % 3) as usize;
        // SAFETY: memsets on the stream, ordered before the launch below.
        unsafe {
            self.counters.set_32_async(0, stream).context(context)?;
            self.counters
                .index(sizes_slot..=sizes_slot)
                .set_32_async(size, stream)
                .context(context)?;
        }
        let mut pointers = [
            graph.row_offsets.as_device_ptr(),
            graph.column_indices.as_device_ptr(),
            queues.frontier.as_device_ptr(),
            queues.next_frontier.as_device_ptr(),
            self.counters.as_device_ptr().wrapping_add(QUEUE_SIZES),
            queues.visited.as_device_ptr(),
            queues.levels.as_device_ptr(),
            queues.parents.as_device_ptr(),
            self.counters.as_device_ptr().wrapping_add(BARRIER),
            self.counters.as_device_ptr().wrapping_add(LEVEL_COUNT),
        ];
        let mut scalars = [first_level, handoff_size];
        let mut parameters: Vec<*mut c_void> = pointers
            .iter_mut()
            .map(|pointer| pointer as *mut _ as *mut c_void)
            .chain(
                scalars
                    .iter_mut()
                    .map(|scalar| scalar as *mut _ as *mut c_void),
            )
            .collect();
        // SAFETY: the parameters point to ten device pointers and two `u32`
        // in the order of `persistent_levels`' parameter list, all sized for
        // the graph's `n` (checked by `Search::run`) and initialised as its
        // contract says (this level's queue size set, the next one's and the
        // barrier 0); the grid is one block per multiprocessor, within the
        // occupancy checked in `new`, as a cooperative launch requires.
        let result = unsafe {
            cust::sys::cuLaunchCooperativeKernel(
                self.kernel.to_raw(),
                self.blocks,
                1,
                1,
                PERSISTENT_BLOCK_SIZE,
                1,
                1,
                0,
                stream.as_inner(),
                parameters.as_mut_ptr(),
            )
        };
        if result != cust::sys::CUresult::CUDA_SUCCESS {
            let message = describe_driver_result(result);
            return Err(Error::Driver {
                context: "launching persistent_levels".into(),
                message,
            });
        }
        stream
            .synchronize()
            .context(|| "running the persistent kernel".into())?;
        let mut counters = [0u32; COUNTER_WORDS];
        self.counters
            .copy_to(&mut counters[..])
            .context(|| "reading the persistent counters".into())?;
        let level = counters[LEVEL_COUNT];
        if (level - first_level) % 2 == 1 {
            queues.swap();
        }
        Ok((level, counters[QUEUE_SIZES + (level % 3) as usize]))
    }
}

/// The persistent kernel over the frontier queues.
pub struct Persistent<'g> {
    gpu: &'g Gpu,
    levels: PersistentLevels<'g>,
    queues: FrontierQueues,
}

impl<'g> Persistent<'g> {
    /// The frontier queues and the counters.
    pub fn workspace_bytes(vertex_count: u32) -> u64 {
        FrontierQueues::workspace_bytes(vertex_count) + PersistentLevels::WORKSPACE_BYTES
    }

    /// Loads the kernel and allocates the buffers for `vertex_count` vertices.
    pub fn new(gpu: &'g Gpu, vertex_count: u32) -> Result<Self> {
        Ok(Persistent {
            gpu,
            levels: PersistentLevels::new(gpu)?,
            queues: FrontierQueues::new(vertex_count)?,
        })
    }
}

impl GpuBfs for Persistent<'_> {
    fn run(&mut self, graph: &DeviceGraph, source: u32) -> Result<GpuRun> {
        let started = std::time::Instant::now();
        self.queues.start(self.gpu, source)?;
        let (levels, _) = self
            .levels
            .run(self.gpu, graph, &mut self.queues, (0, 1), 0)?;
        self.queues.steps.push(Step {
            first_level: 0,
            levels,
            elapsed: started.elapsed(),
            on_cpu: false,
        });
        self.queues.finish(self.gpu, source)
    }
}
