//! A shared library opened at run time (`dlopen`) and its functions found
//! by name (`dlsym`): how the project reaches the NVIDIA driver
//! ([`crate::gpu::libcuda`]) and NCCL ([`crate::multi::nccl`]), so that a
//! machine without them still starts every binary.

use std::ffi::{CStr, CString, c_void};

/// An opened library, never closed: the addresses found in it stay valid
/// for the process's life.
pub(crate) struct SharedLibrary {
    handle: *mut c_void,
    /// The file name it was opened by, for messages.
    name: String,
}

// SAFETY: a dlopen handle belongs to the process, not to a thread, and
// dlsym may be called on it from any thread.
unsafe impl Send for SharedLibrary {}
// SAFETY: as above; the handle is never changed after opening.
unsafe impl Sync for SharedLibrary {}

impl SharedLibrary {
    /// Opens the file the environment variable `variable` names, else
    /// `name` where the dynamic loader looks; the loader's reason where it
    /// cannot.
    pub(crate) fn open(name: &str, variable: &str) -> Result<SharedLibrary, String> {
        let name = std::env::var(variable).unwrap_or_else(|_| name.into());
        let c_name =
            CString::new(name.clone()).map_err(|_| format!("{variable} holds a NUL byte"))?;
        // SAFETY: dlopen with a valid C string; the handle is never closed.
        let handle = unsafe { libc::dlopen(c_name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(loader_error());
        }
        Ok(SharedLibrary { handle, name })
    }

    /// The address of `symbol`, or why there is none.
    pub(crate) fn symbol(&self, symbol: &str) -> Result<*mut c_void, String> {
        let c_name = CString::new(symbol).expect("no NUL in a symbol's name");
        // SAFETY: a live handle and a valid C string.
        let address = unsafe { libc::dlsym(self.handle, c_name.as_ptr()) };
        if address.is_null() {
            Err(format!("{} lacks {symbol}: {}", self.name, loader_error()))
        } else {
            Ok(address)
        }
    }
}

/// The dynamic loader's last error on this thread.
fn loader_error() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated string valid until
    // the next call on this thread.
    let text = unsafe { libc::dlerror() };
    if text.is_null() {
        "unknown reason".into()
    } else {
        // SAFETY: as above.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    }
}
