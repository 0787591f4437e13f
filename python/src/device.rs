//! Where a call runs. The GPU is opened once per process, on first need,
//! and shared by every graph: opening it is CUDA's start-up floor (about a
//! quarter of a second), which a second graph or a second search should
//! not pay again. Without a driver or a GPU, `auto` runs the CPU engines.

use std::sync::OnceLock;

use bfs::gpu::Gpu;
use pyo3::PyResult;

use crate::errors::bad_input;

/// The process's GPU, or why there is none.
static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();

/// The process's GPU, opened on the first call; [`bfs::Error::NoDevice`]
/// (with the same reason every time) where it cannot be opened.
pub fn gpu() -> bfs::Result<&'static Gpu> {
    let opened = GPU.get_or_init(|| {
        Gpu::open().map_err(|error| match error {
            bfs::Error::NoDevice(reason) => reason,
            other => other.to_string(),
        })
    });
    match opened {
        Ok(gpu) => {
            // The device's context is current on the thread that opened
            // it; every other thread that searches makes it its own.
            gpu.make_current()?;
            Ok(gpu)
        }
        Err(reason) => Err(bfs::Error::NoDevice(reason.clone())),
    }
}

/// The `device=` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// The GPU where there is one, else the CPU.
    Auto,
    /// The GPU, or a `BfsError`.
    Gpu,
    /// The CPU engines.
    Cpu,
}

impl Device {
    /// Parses `auto`, `gpu` or `cpu`.
    pub fn parse(text: &str) -> PyResult<Device> {
        match text {
            "auto" => Ok(Device::Auto),
            "gpu" => Ok(Device::Gpu),
            "cpu" => Ok(Device::Cpu),
            other => Err(bad_input(format!(
                "device is 'auto', 'gpu' or 'cpu', not '{other}'"
            ))),
        }
    }
}

/// Where a call runs, once `device` is resolved.
#[derive(Clone, Copy)]
pub enum Placement {
    /// On the GPU.
    Gpu(&'static Gpu),
    /// On the CPU; with `device='auto'`, because there is no GPU.
    Cpu,
}

/// Resolves `device`: `auto` is the GPU where one opens, else the CPU;
/// `gpu` fails where none does.
pub fn place(device: Device) -> bfs::Result<Placement> {
    match device {
        Device::Cpu => Ok(Placement::Cpu),
        Device::Gpu => gpu().map(Placement::Gpu),
        Device::Auto => match gpu() {
            Ok(gpu) => Ok(Placement::Gpu(gpu)),
            Err(bfs::Error::NoDevice(_)) => Ok(Placement::Cpu),
            Err(error) => Err(error),
        },
    }
}

/// The GPU's name, or why there is none.
pub fn describe() -> Result<String, String> {
    match gpu() {
        Ok(gpu) => Ok(format!("{} ({})", gpu.name(), gpu.kernel_code())),
        Err(error) => Err(error.to_string()),
    }
}
