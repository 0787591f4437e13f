//! Thread-block cluster launches (sm_90), through the CUDA 12 driver calls
//! that cust 0.3.2's bindings (CUDA 11.4) predate: `cuLaunchKernelEx` with
//! a cluster-dimension attribute, `cuOccupancyMaxActiveClusters`, and the
//! function attribute that allows clusters beyond the portable 8 blocks.
//! Their declarations are [`super::libcuda`]'s, from the CUDA driver API
//! reference (`cuda.h`, CUDA 12); results are kept as raw codes, since
//! newer drivers return codes cust's enum lacks.

use std::ffi::{c_char, c_int, c_uint, c_void};

use cust::function::Function;

use super::Gpu;
use super::libcuda::{
    LaunchAttribute, LaunchConfig, cuFuncSetAttribute, cuGetErrorString, cuLaunchKernelEx,
    cuOccupancyMaxActiveClusters,
};
use crate::{Error, Result};

/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`.
const CLUSTER_DIMENSION: c_uint = 4;

/// `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`.
const NON_PORTABLE_CLUSTER_SIZE_ALLOWED: c_int = 14;

/// Largest cluster any device schedules (Hopper's non-portable limit).
pub const MOST_BLOCKS: u32 = 16;

impl LaunchAttribute {
    /// Clusters of `blocks` × 1 × 1 blocks.
    fn cluster(blocks: u32) -> LaunchAttribute {
        LaunchAttribute {
            id: CLUSTER_DIMENSION,
            padding: [0; 4],
            value: [blocks as u64 | 1 << 32, 1, 0, 0, 0, 0, 0, 0],
        }
    }
}

/// A launch of one cluster of `blocks` blocks and no other, on `gpu`'s
/// stream, with `attribute` ([`LaunchAttribute::cluster`]`(blocks)`) as
/// its one attribute; the caller keeps it alive.
fn one_cluster(
    gpu: &Gpu,
    (blocks, block_size, shared_bytes): (u32, u32, u32),
    attribute: &mut LaunchAttribute,
) -> LaunchConfig {
    LaunchConfig {
        grid: [blocks, 1, 1],
        block: [block_size, 1, 1],
        shared_bytes,
        stream: gpu.stream().as_inner(),
        attributes: attribute,
        attribute_count: 1,
    }
}

/// An error for a failed driver call on `what`, or `Ok`.
fn check(code: c_int, what: impl FnOnce() -> String) -> Result<()> {
    if code == 0 {
        return Ok(());
    }
    let mut text: *const c_char = std::ptr::null();
    // SAFETY: writes a pointer to a static string, or fails and leaves it
    // null, which is checked.
    let known = unsafe { cuGetErrorString(code, &mut text) } == 0 && !text.is_null();
    let message = if known {
        // SAFETY: the driver's strings are static and NUL-terminated.
        unsafe { std::ffi::CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    } else {
        format!("driver error {code}")
    };
    Err(Error::Driver {
        context: what(),
        message,
    })
}

/// Lets `kernel` (named `name`) run in clusters past the portable 8 blocks.
pub fn allow_large_clusters(kernel: &Function<'_>, name: &str) -> Result<()> {
    // SAFETY: sets an attribute of a loaded kernel; the driver refuses
    // what the device cannot do with an error, returned here.
    let code = unsafe { cuFuncSetAttribute(kernel.to_raw(), NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1) };
    check(code, || format!("allowing {name} clusters of 16 blocks"))
}

/// How many clusters of `blocks` blocks of `block_size` threads and
/// `shared_bytes` each the device runs at once (0: not one).
pub fn max_active_clusters(gpu: &Gpu, kernel: &Function<'_>, shape: (u32, u32, u32)) -> u32 {
    let mut attribute = LaunchAttribute::cluster(shape.0);
    let config = one_cluster(gpu, shape, &mut attribute);
    let mut clusters: c_int = 0;
    // SAFETY: reads the configuration, whose attribute pointer is live for
    // the call, and writes one int.
    let code = unsafe { cuOccupancyMaxActiveClusters(&mut clusters, kernel.to_raw(), &config) };
    // The driver refuses a shape it can never schedule (too many blocks
    // for a GPC, too much shared memory): no cluster of it fits.
    if code == 0 { clusters.max(0) as u32 } else { 0 }
}

/// Launches `kernel` (named `name`) as one cluster of `blocks` blocks of
/// `block_size` threads and `shared_bytes` of dynamic shared memory each.
///
/// # Safety
/// `parameters` are the addresses of values of the kernel's parameters,
/// in its order and types, meeting its contract, and
/// [`max_active_clusters`] found room for at least one such cluster.
pub unsafe fn launch(
    gpu: &Gpu,
    kernel: &Function<'_>,
    shape: (u32, u32, u32),
    parameters: &mut [*mut c_void],
    name: &str,
) -> Result<()> {
    let mut attribute = LaunchAttribute::cluster(shape.0);
    let config = one_cluster(gpu, shape, &mut attribute);
    // SAFETY: the caller's contract; the configuration and its attribute
    // are live for the call, which copies them.
    let code = unsafe {
        cuLaunchKernelEx(
            &config,
            kernel.to_raw(),
            parameters.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    check(code, || format!("launching {name}"))
}
