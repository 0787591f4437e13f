//! NCCL's entry points, loaded at run time: the C declarations from
//! `nccl.h` (NCCL 2.x) of the functions the search calls, resolved once
//! from `libnccl.so.2`, and a status turned into a result.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::OnceLock;

use super::UniqueId;
use crate::shared_library::SharedLibrary;
use crate::{Error, Result};

pub(super) type Status = c_int;
pub(super) type RawComm = *mut c_void;
pub(super) type RawStream = *mut c_void;

/// `ncclSuccess`.
pub(super) const SUCCESS: Status = 0;
/// `ncclInProgress`: an operation not finished, no error.
pub(super) const IN_PROGRESS: Status = 7;
/// `ncclUint32`.
pub(super) const UINT32: c_int = 3;

/// `ncclGetUniqueId`.
type GetUniqueId = unsafe extern "C" fn(*mut UniqueId) -> Status;
/// `ncclCommInitRank`.
type CommInitRank = unsafe extern "C" fn(*mut RawComm, c_int, UniqueId, c_int) -> Status;
/// `ncclCommDestroy`.
type CommDestroy = unsafe extern "C" fn(RawComm) -> Status;
/// `ncclGetErrorString`.
type GetErrorString = unsafe extern "C" fn(Status) -> *const c_char;
/// `ncclAllGather`.
type AllGather =
    unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, RawComm, RawStream) -> Status;
/// `ncclGroupStart` and `ncclGroupEnd`.
type Group = unsafe extern "C" fn() -> Status;
/// `ncclSend` and `ncclRecv`: buffer, count, type, peer, communicator,
/// stream.
type PointToPoint =
    unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, RawComm, RawStream) -> Status;
/// `ncclCommGetAsyncError`.
type CommGetAsyncError = unsafe extern "C" fn(RawComm, *mut Status) -> Status;
/// `ncclCommAbort`.
type CommAbort = unsafe extern "C" fn(RawComm) -> Status;

/// The entry points, resolved once from the library.
pub(super) struct Library {
    pub(super) get_unique_id: GetUniqueId,
    pub(super) comm_init_rank: CommInitRank,
    pub(super) comm_destroy: CommDestroy,
    pub(super) get_error_string: GetErrorString,
    pub(super) all_gather: AllGather,
    pub(super) group_start: Group,
    pub(super) group_end: Group,
    pub(super) send: PointToPoint,
    pub(super) receive: PointToPoint,
    pub(super) comm_get_async_error: CommGetAsyncError,
    pub(super) comm_abort: CommAbort,
}

/// The library's file name, found where the dynamic loader looks.
const LIBRARY: &str = "libnccl.so.2";

/// The variable that names another NCCL library file to load instead.
pub const LIBRARY_VARIABLE: &str = "BFS_NCCL_LIBRARY";

/// The library, loaded on first use; an error (said once) where it is missing.
pub(super) fn library() -> Result<&'static Library> {
    static LOADED: OnceLock<std::result::Result<Library, String>> = OnceLock::new();
    LOADED
        .get_or_init(load)
        .as_ref()
        .map_err(|message| Error::MultiGpu(message.clone()))
}

fn load() -> std::result::Result<Library, String> {
    // SAFETY: setting variables before any NCCL thread exists; the search
    // sets them before its own threads start.
    unsafe {
        std::env::set_var("NCCL_NVLS_ENABLE", "0");
        if std::env::var_os("NCCL_RUNTIME_CONNECT").is_none() {
            std::env::set_var("NCCL_RUNTIME_CONNECT", "0");
        }
    }
    let library = SharedLibrary::open(LIBRARY, LIBRARY_VARIABLE).map_err(|reason| {
        format!(
            "NCCL could not be loaded ({reason}); a search over several GPUs needs NCCL 2 installed"
        )
    })?;
    let symbol = |name: &str| library.symbol(name);
    // SAFETY: each symbol is the NCCL 2 function of that name, whose C
    // signature its type spells out (nccl.h).
    unsafe {
        Ok(Library {
            get_unique_id: std::mem::transmute::<*mut c_void, GetUniqueId>(symbol(
                "ncclGetUniqueId",
            )?),
            comm_init_rank: std::mem::transmute::<*mut c_void, CommInitRank>(symbol(
                "ncclCommInitRank",
            )?),
            comm_destroy: std::mem::transmute::<*mut c_void, CommDestroy>(symbol(
                "ncclCommDestroy",
            )?),
            get_error_string: std::mem::transmute::<*mut c_void, GetErrorString>(symbol(
                "ncclGetErrorString",
            )?),
            all_gather: std::mem::transmute::<*mut c_void, AllGather>(symbol("ncclAllGather")?),
            group_start: std::mem::transmute::<*mut c_void, Group>(symbol("ncclGroupStart")?),
            group_end: std::mem::transmute::<*mut c_void, Group>(symbol("ncclGroupEnd")?),
            // ncclSend's buffer is `const void*`: the same ABI as `void*`.
            send: std::mem::transmute::<*mut c_void, PointToPoint>(symbol("ncclSend")?),
            receive: std::mem::transmute::<*mut c_void, PointToPoint>(symbol("ncclRecv")?),
            comm_get_async_error: std::mem::transmute::<*mut c_void, CommGetAsyncError>(symbol(
                "ncclCommGetAsyncError",
            )?),
            comm_abort: std::mem::transmute::<*mut c_void, CommAbort>(symbol("ncclCommAbort")?),
        })
    }
}

/// `status` as a result, with `what` was being done.
pub(super) fn check(library: &Library, status: Status, what: &str) -> Result<()> {
    if status == SUCCESS {
        return Ok(());
    }
    // SAFETY: ncclGetErrorString returns a static NUL-terminated string.
    let message = unsafe { CStr::from_ptr((library.get_error_string)(status)) };
    Err(Error::MultiGpu(format!(
        "NCCL {what}: {}",
        message.to_string_lossy()
    )))
}
