//! The NVIDIA driver (`libcuda.so.1`), loaded at run time, so that every
//! binary starts on a machine without it and runs the CPU engine there.
//!
//! `cust` calls the driver through `cust_raw`'s `extern` declarations, and
//! `cust_raw`'s build script links `-lcuda`. This module defines each
//! driver function the project calls, under the driver's exported name
//! (the `_v2` names included, as `cuda.h` maps them), as a forwarder to
//! the function of that name found in the library on first use. The
//! linker then resolves every call here, and no binary needs
//! `libcuda.so.1` to start; the link library is still asked for, and
//! `cargo xtask` writes an empty one. Without the library every forwarder
//! returns `CUDA_ERROR_NOT_INITIALIZED` and [`loaded`] says why; a
//! function this driver lacks (one older than it) returns
//! `CUDA_ERROR_NOT_FOUND`. A call `cust` makes that is missing from the
//! list fails to link against the empty library, or, against a real one,
//! brings `libcuda.so.1` back among the needed libraries, which
//! `tests/no_driver.rs` finds (docs/decisions.md, "Starting without a
//! driver").
//!
//! Statuses stay raw codes (`c_int`, the ABI of `cuda.h`'s `CUresult`):
//! newer drivers return codes that `cust`'s enum predates. The CUDA 12
//! launch configuration that `cust_raw`'s bindings (CUDA 11.4) lack is
//! declared here from the driver API reference, for the cluster launches
//! (`gpu/cluster.rs`).

use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

use cust::sys::{CUcontext, CUdevice, CUdevice_attribute, CUdeviceptr, CUevent, CUfunction};
use cust::sys::{CUjit_option, CUmodule, CUstream};

use crate::shared_library::SharedLibrary;
use crate::{Error, Result};

/// A driver call's status: `CUresult`'s value.
pub type Status = c_int;

/// `CUDA_SUCCESS`.
const SUCCESS: Status = 0;
/// `CUDA_ERROR_NOT_INITIALIZED`: what every call returns without the library.
const NOT_INITIALIZED: Status = 3;
/// `CUDA_ERROR_NOT_FOUND`: what a call this driver lacks returns.
const NOT_FOUND: Status = 500;

/// The library's file name, found where the dynamic loader looks.
const LIBRARY: &str = "libcuda.so.1";

/// The variable that names another driver library file to load instead
/// (a missing one makes a machine with a driver behave as one without).
pub const LIBRARY_VARIABLE: &str = "BFS_CUDA_LIBRARY";

/// `CUlaunchAttribute`: an id and a 64-byte, 8-aligned value union.
#[repr(C)]
pub struct LaunchAttribute {
    /// `CUlaunchAttributeID`.
    pub id: c_uint,
    /// The union's alignment.
    pub padding: [u8; 4],
    /// `CUlaunchAttributeValue`.
    pub value: [u64; 8],
}

/// `CUlaunchConfig`.
#[repr(C)]
pub struct LaunchConfig {
    /// `gridDimX`, `gridDimY`, `gridDimZ`.
    pub grid: [c_uint; 3],
    /// `blockDimX`, `blockDimY`, `blockDimZ`.
    pub block: [c_uint; 3],
    /// `sharedMemBytes`.
    pub shared_bytes: c_uint,
    /// `hStream`.
    pub stream: CUstream,
    /// `attrs`.
    pub attributes: *mut LaunchAttribute,
    /// `numAttrs`.
    pub attribute_count: c_uint,
}

/// Whether the driver library was loaded: [`Error::NoDevice`], saying why,
/// where it was not.
pub fn loaded() -> Result<()> {
    match entry_points() {
        Ok(_) => Ok(()),
        Err(reason) => Err(Error::NoDevice(reason.to_string_lossy().into_owned())),
    }
}

/// The driver's functions, found on first use; why not, where the library
/// is missing (kept as a C string for [`cuGetErrorString`] to hand out).
fn entry_points() -> std::result::Result<&'static EntryPoints, &'static CStr> {
    static LOADED: OnceLock<std::result::Result<EntryPoints, CString>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            SharedLibrary::open(LIBRARY, LIBRARY_VARIABLE)
                .map(|library| EntryPoints::find(&library))
                .map_err(|reason| {
                    CString::new(
                        format!("the NVIDIA driver could not be loaded: {reason}")
                            .replace('\0', " "),
                    )
                    .expect("NULs replaced")
                })
        })
        .as_ref()
        .map_err(CString::as_c_str)
}

/// What `cuGetErrorString` says without the library: why it is missing,
/// whatever the code, so that `cust`'s messages say so too.
///
/// # Safety
/// `text` is valid for one write.
unsafe fn missing_driver_error_string(text: *mut *const c_char) -> Status {
    match entry_points() {
        Err(reason) => {
            // SAFETY: the caller's contract; the reason lives as long as
            // the process.
            unsafe { *text = reason.as_ptr() };
            SUCCESS
        }
        Ok(_) => NOT_INITIALIZED,
    }
}

/// The forwarders and the table behind them, from one list: each function's
/// exported name and `cuda.h` parameters, and, where it is not
/// `NOT_INITIALIZED`, what it returns without the library (`else`).
macro_rules! entry_points {
    ($(
        fn $name:ident($($parameter:ident: $type:ty),* $(,)?) $(else $missing:expr)?;
    )*) => {
        /// The driver's functions, each `None` where this driver lacks it.
        #[allow(non_snake_case)]
        struct EntryPoints {
            $($name: Option<unsafe extern "C" fn($($type),*) -> Status>,)*
        }

        impl EntryPoints {
            /// Finds each function in `library` by its name.
            fn find(library: &SharedLibrary) -> EntryPoints {
                EntryPoints {
                    $($name: library.symbol(stringify!($name)).ok().map(|address| {
                        // SAFETY: the driver's function of this name has
                        // the C signature listed for it, from cuda.h.
                        unsafe {
                            std::mem::transmute::<
                                *mut c_void,
                                unsafe extern "C" fn($($type),*) -> Status,
                            >(address)
                        }
                    }),)*
                }
            }
        }

        $(
            #[doc = concat!("`", stringify!($name), "`, forwarded to the driver's.")]
            ///
            /// # Safety
            /// The driver's contract for the function (`cuda.h`).
            #[unsafe(no_mangle)]
            #[allow(non_snake_case)]
            pub unsafe extern "C" fn $name($($parameter: $type),*) -> Status {
                match entry_points() {
                    Ok(EntryPoints { $name: Some(function), .. }) => {
                        // SAFETY: the caller's contract is the driver's own.
                        unsafe { function($($parameter),*) }
                    }
                    Ok(_) => NOT_FOUND,
                    Err(_) => missing!($($missing)?),
                }
            }
        )*
    };
}

/// What a forwarder returns without the library: its `else`, or
/// `NOT_INITIALIZED`.
macro_rules! missing {
    () => {
        NOT_INITIALIZED
    };
    ($missing:expr) => {
        $missing
    };
}

entry_points! {
    fn cuInit(flags: c_uint);
    fn cuGetErrorString(code: Status, text: *mut *const c_char)
        // SAFETY: the caller's contract for `cuGetErrorString`: `text` is
        // valid for one write.
        else unsafe { missing_driver_error_string(text) };
    fn cuDeviceGetCount(count: *mut c_int);
    fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int);
    fn cuDeviceGetName(name: *mut c_char, length: c_int, device: CUdevice);
    fn cuDeviceGetAttribute(value: *mut c_int, attribute: CUdevice_attribute, device: CUdevice);
    fn cuDeviceCanAccessPeer(can_access: *mut c_int, device: CUdevice, peer: CUdevice);
    fn cuDevicePrimaryCtxRetain(context: *mut CUcontext, device: CUdevice);
    fn cuDevicePrimaryCtxRelease_v2(device: CUdevice);
    fn cuCtxGetCurrent(context: *mut CUcontext);
    fn cuCtxSetCurrent(context: CUcontext);
    fn cuCtxPushCurrent_v2(context: CUcontext);
    fn cuCtxPopCurrent_v2(context: *mut CUcontext);
    fn cuCtxEnablePeerAccess(peer: CUcontext, flags: c_uint);
    fn cuModuleLoadDataEx(
        module: *mut CUmodule,
        image: *const c_void,
        option_count: c_uint,
        options: *mut CUjit_option,
        option_values: *mut *mut c_void,
    );
    fn cuModuleGetFunction(function: *mut CUfunction, module: CUmodule, name: *const c_char);
    fn cuModuleUnload(module: CUmodule);
    // The attribute is `CUfunction_attribute`, whose newer values cust's
    // enum lacks.
    fn cuFuncSetAttribute(function: CUfunction, attribute: c_int, value: c_int);
    fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks: *mut c_int,
        function: CUfunction,
        block_size: c_int,
        shared_bytes: usize,
    );
    fn cuOccupancyMaxActiveClusters(
        clusters: *mut c_int,
        function: CUfunction,
        config: *const LaunchConfig,
    );
    fn cuLaunchKernel(
        function: CUfunction,
        grid_x: c_uint,
        grid_y: c_uint,
        grid_z: c_uint,
        block_x: c_uint,
        block_y: c_uint,
        block_z: c_uint,
        shared_bytes: c_uint,
        stream: CUstream,
        parameters: *mut *mut c_void,
        extra: *mut *mut c_void,
    );
    fn cuLaunchCooperativeKernel(
        function: CUfunction,
        grid_x: c_uint,
        grid_y: c_uint,
        grid_z: c_uint,
        block_x: c_uint,
        block_y: c_uint,
        block_z: c_uint,
        shared_bytes: c_uint,
        stream: CUstream,
        parameters: *mut *mut c_void,
    );
    fn cuLaunchKernelEx(
        config: *const LaunchConfig,
        function: CUfunction,
        parameters: *mut *mut c_void,
        extra: *mut *mut c_void,
    );
    fn cuStreamCreateWithPriority(stream: *mut CUstream, flags: c_uint, priority: c_int);
    fn cuStreamDestroy_v2(stream: CUstream);
    fn cuStreamQuery(stream: CUstream);
    fn cuStreamSynchronize(stream: CUstream);
    fn cuEventCreate(event: *mut CUevent, flags: c_uint);
    fn cuEventDestroy_v2(event: CUevent);
    fn cuEventRecord(event: CUevent, stream: CUstream);
    fn cuEventSynchronize(event: CUevent);
    fn cuEventElapsedTime(milliseconds: *mut f32, start: CUevent, end: CUevent);
    fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize);
    fn cuMemAlloc_v2(pointer: *mut CUdeviceptr, bytes: usize);
    fn cuMemFree_v2(pointer: CUdeviceptr);
    fn cuMemAllocHost_v2(pointer: *mut *mut c_void, bytes: usize);
    fn cuMemFreeHost(pointer: *mut c_void);
    fn cuMemcpy(to: CUdeviceptr, from: CUdeviceptr, bytes: usize);
    fn cuMemcpyHtoD_v2(to: CUdeviceptr, from: *const c_void, bytes: usize);
    fn cuMemcpyDtoH_v2(to: *mut c_void, from: CUdeviceptr, bytes: usize);
    fn cuMemcpyHtoDAsync_v2(to: CUdeviceptr, from: *const c_void, bytes: usize, stream: CUstream);
    fn cuMemcpyDtoHAsync_v2(to: *mut c_void, from: CUdeviceptr, bytes: usize, stream: CUstream);
    fn cuMemcpyDtoDAsync_v2(to: CUdeviceptr, from: CUdeviceptr, bytes: usize, stream: CUstream);
    fn cuMemsetD8_v2(to: CUdeviceptr, value: u8, count: usize);
    fn cuMemsetD8Async(to: CUdeviceptr, value: u8, count: usize, stream: CUstream);
    fn cuMemsetD32Async(to: CUdeviceptr, value: c_uint, count: usize, stream: CUstream);
}
