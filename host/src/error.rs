//! The library's one error type.

use std::path::PathBuf;

/// Result with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong, each with a one-line message for the CLI.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A graph file could not be read.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        error: std::io::Error,
    },
    /// A graph file is malformed.
    #[error("{path}{}: {message}", line.map(|line| format!(":{line}")).unwrap_or_default())]
    Format {
        /// The file.
        path: PathBuf,
        /// 1-based line number, where the problem has one.
        line: Option<u64>,
        /// What is wrong.
        message: String,
    },
    /// A graph generator specification is malformed.
    #[error("bad generator '{spec}': {message}")]
    Generator {
        /// The specification as given.
        spec: String,
        /// What is wrong.
        message: String,
    },
    /// The graph does not fit the host's memory, or has more vertices than
    /// `u32` ids number.
    #[error("graph too large: {0}")]
    GraphTooLarge(String),
    /// An output (a file, a matrix in memory) would not fit where it goes.
    #[error("output too large: {0}")]
    OutputTooLarge(String),
    /// The source vertex is not a vertex of the graph.
    #[error("source {vertex} is out of range: the graph has {vertex_count} vertices (ids 0 to {})", vertex_count.saturating_sub(1))]
    SourceOutOfRange {
        /// The requested source, as given.
        vertex: i64,
        /// Vertices in the graph.
        vertex_count: u32,
    },
    /// No usable CUDA device (no driver, no GPU, or initialisation failed).
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// The graph and the search's buffers do not fit in the device's free memory.
    #[error(
        "graph too large for the GPU: variant {variant} needs {needed} bytes of device memory, {free} bytes are free"
    )]
    DeviceMemory {
        /// The variant that was to run.
        variant: &'static str,
        /// Bytes it would allocate.
        needed: u64,
        /// Bytes the driver reports free.
        free: u64,
    },
    /// A CUDA driver call failed.
    #[error("CUDA error in {context}: {}", describe_cuda(error))]
    Cuda {
        /// What was being done (variant, level).
        context: String,
        /// The driver's error.
        error: cust::error::CudaError,
    },
    /// A raw CUDA driver call (one `cust` does not wrap) failed.
    #[error("CUDA error in {context}: {message}")]
    Driver {
        /// What was being done (variant, level).
        context: String,
        /// The driver's description of its error code.
        message: String,
    },
    /// NCCL, for a search over several GPUs, is missing or failed; or the
    /// GPUs asked for do not exist, or a rank never joined.
    #[error("multi-GPU: {0}")]
    MultiGpu(String),
    /// A rank gave up on the others: one failed, stopped or never came
    /// (a timeout, an aborted exchange). Where the failed rank's own error
    /// is known, that is the one reported.
    #[error("multi-GPU: {0}")]
    OtherRank(String),
    /// A result failed validation.
    #[error("validation failed: {0}")]
    Invalid(String),
    /// The variant cannot run here: the device lacks a feature it needs,
    /// or the graph does not fit where it keeps it (say which, and why).
    #[error("{0}")]
    Unsupported(String),
    /// The CPU engine's threads could not be started.
    #[error("starting {threads} CPU threads: {error}")]
    Threads {
        /// How many were asked for.
        threads: usize,
        /// The operating system's reason.
        error: std::io::Error,
    },
    /// A peer benchmark program (gapbs) is missing or failed.
    #[error("{program}: {message}")]
    Peer {
        /// The program's path.
        program: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// Attaches what was being done to a CUDA driver error.
pub trait CudaContext<T> {
    /// Wraps the error with `context`.
    fn context(self, context: impl FnOnce() -> String) -> Result<T>;
}

impl<T> CudaContext<T> for Result<T, cust::error::CudaError> {
    fn context(self, context: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|error| Error::Cuda {
            context: context(),
            error,
        })
    }
}

/// The driver's message for `error`, without the quotes `cust` puts around it.
pub(crate) fn describe_cuda(error: &cust::error::CudaError) -> String {
    error.to_string().trim_matches('"').to_string()
}

/// `result`, a raw driver call's, as this crate's: [`Error::Driver`] in
/// `context` where it is not a success.
pub(crate) fn driver_result(
    result: cust::sys::CUresult,
    context: impl FnOnce() -> String,
) -> Result<()> {
    if result == cust::sys::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    Err(Error::Driver {
        context: context(),
        message: describe_driver_result(result),
    })
}

/// The driver's description of a raw `CUresult`.
fn describe_driver_result(result: cust::sys::CUresult) -> String {
    let mut text: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: cuGetErrorString writes a pointer to a static string, or fails
    // and leaves `text` null, which is checked.
    let known = unsafe { cust::sys::cuGetErrorString(result, &mut text) }
        == cust::sys::CUresult::CUDA_SUCCESS;
    if known && !text.is_null() {
        // SAFETY: the driver's strings are static and NUL-terminated.
        unsafe { std::ffi::CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    } else {
        format!("driver error {}", result as i32)
    }
}
