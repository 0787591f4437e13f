//! The host library's errors as Python exceptions, each with the one-line
//! message the command line prints: bad input (a malformed file or
//! generator, a source out of range, bad arrays) is a `ValueError`, a
//! missing file an `OSError`, what does not fit in host or device memory a
//! `MemoryError`, and everything else (no GPU, a CUDA failure, a variant
//! that cannot run here) a `BfsError`, a subclass of `RuntimeError`.

use pyo3::exceptions::{
    PyFileNotFoundError, PyMemoryError, PyOSError, PyRuntimeError, PyValueError,
};
use pyo3::{PyErr, create_exception};

create_exception!(
    _native,
    BfsError,
    PyRuntimeError,
    "A search that could not run: no GPU where one was asked for, a CUDA failure, a variant this device or graph cannot run."
);

/// `error` as the Python exception of its kind, with its one-line message.
pub fn to_python(error: bfs::Error) -> PyErr {
    use bfs::Error;
    let message = error.to_string();
    match error {
        Error::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(message)
        }
        Error::Io { .. } => PyOSError::new_err(message),
        Error::Format { .. } | Error::Generator { .. } | Error::SourceOutOfRange { .. } => {
            PyValueError::new_err(message)
        }
        Error::GraphTooLarge(_) | Error::OutputTooLarge(_) | Error::DeviceMemory { .. } => {
            PyMemoryError::new_err(message)
        }
        _ => BfsError::new_err(message),
    }
}

/// A `ValueError` saying what is wrong with an argument.
pub fn bad_input(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}
