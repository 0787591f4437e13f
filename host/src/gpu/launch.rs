//! Launch helpers every driver shares: the device timer around a search,
//! and kernels launched with their parameters' type ([`Entry`]), the one
//! way the host launches a kernel: ordinary launches, cooperative ones
//! (every block resident at once, for grid barriers, which cust lacks) and
//! clusters, with the opt-in to large dynamic shared memory.

use std::marker::PhantomData;
use std::time::{Duration, Instant};

use bfs_kernels::abi::{Kernel, Parameters};
use cust::error::CudaResult;
use cust::event::{Event, EventFlags};
use cust::function::{BlockSize, Function, GridSize};
use cust::stream::Stream;

use super::Gpu;
use crate::error::{CudaContext, driver_result};
use crate::{Error, Result};

/// CUDA events around a search: device time from `start` to `stop` on the stream.
pub(crate) struct Timer {
    start: Event,
    stop: Event,
}

impl Timer {
    pub(crate) fn new() -> Result<Timer> {
        let context = || "creating timer events".to_string();
        Ok(Timer {
            start: Event::new(EventFlags::DEFAULT).context(context)?,
            stop: Event::new(EventFlags::DEFAULT).context(context)?,
        })
    }

    pub(crate) fn start(&self, gpu: &Gpu) -> Result<()> {
        self.start
            .record(gpu.stream())
            .context(|| "starting the timer".into())
    }

    /// Records the stop, waits for it, and returns the time since the start.
    pub(crate) fn stop(&self, gpu: &Gpu) -> Result<Duration> {
        let context = || "stopping the timer".to_string();
        self.stop.record(gpu.stream()).context(context)?;
        self.stop.synchronize().context(context)?;
        *gpu.last_timer_stop
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Instant::now());
        self.stop.elapsed(&self.start).context(context)
    }
}

/// A kernel loaded together with the type of its parameters, from its
/// [`Kernel`] in the ABI: its launch takes one `P`, by value, so a
/// launch whose arguments are not the kernel's (a pointer to `u64` for one
/// to `u32`, a missing field of a parameter block) does not compile. The
/// one way the host launches a kernel: ordinary, cooperative or as a
/// cluster.
pub(crate) struct Entry<'g, P> {
    function: Function<'g>,
    name: &'static str,
    parameters: PhantomData<fn(P)>,
}

impl Gpu {
    /// The kernel `kernel` names, to launch with its parameters.
    pub(crate) fn entry<P>(&self, kernel: Kernel<P>) -> Result<Entry<'_, P>> {
        Ok(Entry {
            function: self.kernel(kernel.name())?,
            name: kernel.name(),
            parameters: PhantomData,
        })
    }

    /// The kernel `kernel` names in the sm_90 module, for `variant`; an
    /// error on a device without thread-block clusters.
    pub(crate) fn cluster_entry<P>(
        &self,
        kernel: Kernel<P>,
        variant: &str,
    ) -> Result<Entry<'_, P>> {
        Ok(Entry {
            function: self.cluster_kernel(kernel.name(), variant)?,
            name: kernel.name(),
            parameters: PhantomData,
        })
    }
}

impl<'g, P> Entry<'g, P> {
    /// The kernel, for its attributes.
    pub(crate) fn function(&self) -> &Function<'g> {
        &self.function
    }

    /// Its name in the PTX.
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    /// Lets it take `bytes` of dynamic shared memory, past the 48 KB every
    /// kernel gets, up to the device's opt-in limit.
    pub(crate) fn allow_shared_memory(&self, bytes: u32) -> Result<()> {
        // SAFETY: sets an attribute of a loaded kernel; the driver refuses
        // a size beyond the device's limit with an error, returned here.
        let result = unsafe {
            cust::sys::cuFuncSetAttribute(
                self.function.to_raw(),
                cust::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        };
        driver_result(result, || {
            format!("allowing {} its shared memory", self.name)
        })
    }

    /// Checks that a block of `block_size` threads and `shared_bytes` of
    /// shared memory fits on a multiprocessor, as a cooperative launch of
    /// a block a multiprocessor needs, and that `gpu` runs such launches;
    /// returns how many such blocks stay resident on a multiprocessor.
    pub(crate) fn check_cooperative(
        &self,
        gpu: &Gpu,
        block_size: u32,
        shared_bytes: u32,
    ) -> Result<u32> {
        if !gpu.cooperative_launch() {
            return Err(Error::Invalid(format!(
                "{} does not support cooperative launches",
                gpu.name()
            )));
        }
        let resident = self
            .function
            .max_active_blocks_per_multiprocessor(BlockSize::x(block_size), shared_bytes as usize)
            .context(|| format!("reading {}'s occupancy", self.name))?;
        if resident == 0 {
            return Err(Error::Invalid(format!(
                "{} cannot fit one block on a multiprocessor",
                self.name
            )));
        }
        Ok(resident)
    }
}

impl<P: Parameters> Entry<'_, P> {
    /// Queues the kernel on `stream`, `(grid, block, shared_bytes)` its
    /// shape, with `parameters`.
    ///
    /// # Safety
    /// `parameters` meet the kernel's contract (its `# Safety`: the
    /// buffers they address are as large as it says) and `shared_bytes`
    /// its shared memory.
    pub(crate) unsafe fn launch(
        &self,
        stream: &Stream,
        (grid, block, shared_bytes): (impl Into<GridSize>, impl Into<BlockSize>, u32),
        mut parameters: P,
    ) -> CudaResult<()> {
        parameters.with_addresses(|addresses| {
            // SAFETY: `addresses` holds the address of each of the
            // kernel's parameters, in its order and types (`P` is what its
            // `Kernel` says it takes, which tests/parameters.rs checks
            // against the PTX), and the caller meets its contract.
            unsafe { stream.launch(&self.function, grid, block, shared_bytes, addresses) }
        })
    }

    /// Queues the kernel on `gpu`'s stream as a cooperative launch of
    /// `blocks` blocks of `block_size` threads, all resident at once, with
    /// `shared_bytes` of dynamic shared memory and `parameters`.
    ///
    /// # Safety
    /// As [`launch`](Self::launch), and
    /// [`check_cooperative`](Self::check_cooperative) passed for this
    /// block size and `shared_bytes`, its blocks per multiprocessor times
    /// the multiprocessors at least `blocks`.
    pub(crate) unsafe fn launch_cooperative(
        &self,
        gpu: &Gpu,
        (blocks, block_size, shared_bytes): (u32, u32, u32),
        mut parameters: P,
    ) -> Result<()> {
        parameters.with_addresses(|addresses| {
            // SAFETY: `addresses` as in `launch`; the caller's contract,
            // and the blocks are within the occupancy `check_cooperative`
            // found.
            let result = unsafe {
                cust::sys::cuLaunchCooperativeKernel(
                    self.function.to_raw(),
                    blocks,
                    1,
                    1,
                    block_size,
                    1,
                    1,
                    shared_bytes,
                    gpu.stream().as_inner(),
                    addresses.as_mut_ptr(),
                )
            };
            driver_result(result, || format!("launching {}", self.name))
        })
    }

    /// Queues the kernel on `gpu`'s stream as one thread-block cluster of
    /// `blocks` blocks of `block_size` threads, with `shared_bytes` of
    /// dynamic shared memory each, and `parameters`.
    ///
    /// # Safety
    /// As [`launch`](Self::launch), and
    /// [`cluster::max_active_clusters`](super::cluster::max_active_clusters)
    /// found room for at least one such cluster.
    pub(crate) unsafe fn launch_cluster(
        &self,
        gpu: &Gpu,
        shape: (u32, u32, u32),
        mut parameters: P,
    ) -> Result<()> {
        parameters.with_addresses(|addresses| {
            // SAFETY: `addresses` as in `launch`; the caller's contract.
            unsafe { super::cluster::launch(gpu, &self.function, shape, addresses, self.name) }
        })
    }
}

/// Blocks of `block_size` threads needed to give each of `count` items a thread.
pub(crate) fn blocks_for(count: u32, block_size: u32) -> u32 {
    count.div_ceil(block_size).max(1)
}
