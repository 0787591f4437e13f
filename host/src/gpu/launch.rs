//! Launch helpers every driver shares: the device timer around a search,
//! kernels launched with their parameters' type ([`Entry`]), the opt-in to
//! large dynamic shared memory, and cooperative launches (every block
//! resident at once, for grid barriers), which cust lacks.

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

/// Lets `kernel` (named `name`) take `bytes` of dynamic shared memory, past
/// the 48 KB every kernel gets, up to the device's opt-in limit.
pub(crate) fn allow_shared_memory(kernel: &Function<'_>, bytes: u32, name: &str) -> Result<()> {
    // SAFETY: sets an attribute of a loaded kernel; the driver refuses a
    // size beyond the device's limit with an error, returned here.
    let result = unsafe {
        cust::sys::cuFuncSetAttribute(
            kernel.to_raw(),
            cust::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
    };
    driver_result(result, || format!("allowing {name} its shared memory"))
}

/// Checks that one block of `block_size` threads and `shared_bytes` of
/// shared memory fits on a multiprocessor, as a cooperative launch of one
/// block per multiprocessor needs, and that the device runs such launches;
/// returns how many such blocks stay resident on a multiprocessor.
pub(crate) fn check_cooperative(
    gpu: &Gpu,
    kernel: &Function<'_>,
    block_size: u32,
    shared_bytes: u32,
    name: &str,
) -> Result<u32> {
    if !gpu.cooperative_launch() {
        return Err(Error::Invalid(format!(
            "{} does not support cooperative launches",
            gpu.name()
        )));
    }
    let resident = kernel
        .max_active_blocks_per_multiprocessor(
            cust::function::BlockSize::x(block_size),
            shared_bytes as usize,
        )
        .context(|| format!("reading {name}'s occupancy"))?;
    if resident == 0 {
        return Err(Error::Invalid(format!(
            "{name} cannot fit one block on a multiprocessor"
        )));
    }
    Ok(resident)
}

/// A kernel loaded together with the type of its parameters, from its
/// [`Kernel`] in the ABI: its launch takes one `P`, by value, so a
/// launch whose arguments are not the kernel's (a pointer to `u64` for one
/// to `u32`, a missing field of a parameter block) does not compile.
pub(crate) struct Entry<'g, P> {
    function: Function<'g>,
    parameters: PhantomData<fn(P)>,
}

impl Gpu {
    /// The kernel `kernel` names, to launch with its parameters.
    pub(crate) fn entry<P>(&self, kernel: Kernel<P>) -> Result<Entry<'_, P>> {
        Ok(Entry {
            function: self.kernel(kernel.name())?,
            parameters: PhantomData,
        })
    }
}

impl<'g, P> Entry<'g, P> {
    /// The kernel, for its attributes.
    pub(crate) fn function(&self) -> &Function<'g> {
        &self.function
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
    /// As [`launch`](Self::launch), and [`check_cooperative`] passed for
    /// this kernel, block size and `shared_bytes`, its blocks per
    /// multiprocessor times the multiprocessors at least `blocks`.
    pub(crate) unsafe fn launch_cooperative(
        &self,
        gpu: &Gpu,
        (blocks, block_size, shared_bytes): (u32, u32, u32),
        mut parameters: P,
        name: &str,
    ) -> Result<()> {
        parameters.with_addresses(|addresses| {
            // SAFETY: `addresses` as in `launch`; the caller's contract.
            unsafe {
                cooperative_launch(
                    gpu,
                    &self.function,
                    (blocks, block_size, shared_bytes),
                    addresses,
                    name,
                )
            }
        })
    }
}

/// A kernel parameter as `cuLaunchCooperativeKernel` takes it: the address of its value.
pub(crate) fn parameter<T>(value: &mut T) -> *mut std::ffi::c_void {
    (value as *mut T).cast()
}

/// Launches a kernel cooperatively with its arguments written in place, as
/// cust's `launch!` does for ordinary launches:
/// `launch_cooperative!(gpu, &kernel, (blocks, block_size, shared_bytes), name, [argument, …])`.
/// Each argument is evaluated into a temporary that lives until the
/// launch has returned (the driver copies the values at the launch), and
/// its address is passed; the arguments' types must be the kernel's
/// parameter types, in its order.
///
/// # Safety
/// As [`cooperative_launch`]: the caller writes `unsafe` around it.
macro_rules! launch_cooperative {
    ($gpu:expr, $kernel:expr, $shape:expr, $name:expr, [$($argument:expr),+ $(,)?]) => {
        $crate::gpu::launch::cooperative_launch(
            $gpu,
            $kernel,
            $shape,
            &mut [$($crate::gpu::launch::parameter(&mut { $argument })),+],
            $name,
        )
    };
}
pub(crate) use launch_cooperative;

/// Launches `kernel` (named `name`) on `gpu`'s stream as a cooperative
/// launch of `blocks` blocks of `block_size` threads, all resident at once
/// (cust has no call for it).
///
/// # Safety
/// `parameters` are the addresses of values of the kernel's parameters,
/// in its order and types, meeting its contract; [`check_cooperative`]
/// passed for this kernel, block size and `shared_bytes`, and its blocks
/// per multiprocessor times the multiprocessors are at least `blocks`.
pub(crate) unsafe fn cooperative_launch(
    gpu: &Gpu,
    kernel: &Function<'_>,
    (blocks, block_size, shared_bytes): (u32, u32, u32),
    parameters: &mut [*mut std::ffi::c_void],
    name: &str,
) -> Result<()> {
    // SAFETY: the caller's contract, and the blocks are within the
    // occupancy `check_cooperative` found.
    let result = unsafe {
        cust::sys::cuLaunchCooperativeKernel(
            kernel.to_raw(),
            blocks,
            1,
            1,
            block_size,
            1,
            1,
            shared_bytes,
            gpu.stream().as_inner(),
            parameters.as_mut_ptr(),
        )
    };
    driver_result(result, || format!("launching {name}"))
}

/// Blocks of `block_size` threads needed to give each of `count` items a thread.
pub(crate) fn blocks_for(count: u32, block_size: u32) -> u32 {
    count.div_ceil(block_size).max(1)
}
