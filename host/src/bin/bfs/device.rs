//! Where a run computes: the CPU's threads, sized to `--threads` before
//! anything runs on them; the GPU, opened on its own thread while the
//! graph loads, and that thread joined once the run needs the device:
//! CUDA's start-up hides behind the load (`bfs`, `bfs centrality`,
//! `bfs components`).

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use anyhow::Context;
use bfs::Error;
use bfs::gpu::Gpu;

use crate::DeviceChoice;

/// Sizes the thread pool that loads the graph and runs the CPU engines to
/// `threads`, where asked (else rayon's default, every core).
pub(crate) fn start_threads(threads: Option<u32>) -> anyhow::Result<()> {
    if let Some(threads) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads as usize)
            .build_global()
            .context("starting the loader's threads")?;
    }
    Ok(())
}

/// The device being opened on its own thread while the graph loads.
pub(crate) struct DeviceOpening {
    thread: Option<JoinHandle<bfs::Result<Gpu>>>,
}

/// A run that ends early (a bad source, say) waits for the device it was
/// opening, so that the process never exits while a thread is inside the
/// driver's initialisation.
impl Drop for DeviceOpening {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl DeviceOpening {
    /// Starts opening the device (with the kernels of the PTX file `ptx`
    /// where given), unless `device` asks for the CPU.
    pub(crate) fn start(device: DeviceChoice, ptx: Option<PathBuf>) -> Option<DeviceOpening> {
        if matches!(device, DeviceChoice::Cpu | DeviceChoice::CpuReference) {
            return None;
        }
        let thread = std::thread::spawn(move || open_gpu(ptx.as_deref()));
        Some(DeviceOpening {
            thread: Some(thread),
        })
    }

    /// The opened device, made current on this thread; or, where `device`
    /// is `auto` and there is none, `None` and why (after a note).
    pub(crate) fn finish(
        mut self,
        device: DeviceChoice,
    ) -> anyhow::Result<(Option<Gpu>, Option<String>)> {
        let opened = self
            .thread
            .take()
            .context("the GPU's opening was joined already")?
            .join()
            .map_err(|_| anyhow::anyhow!("the thread opening the GPU panicked"))?;
        match opened {
            Ok(gpu) => {
                gpu.make_current()?;
                Ok((Some(gpu), None))
            }
            Err(Error::NoDevice(reason)) if device == DeviceChoice::Auto => {
                eprintln!("note: no CUDA device ({reason}); running on the CPU instead");
                Ok((None, Some(format!("no CUDA device ({reason})"))))
            }
            Err(error) => Err(error.into()),
        }
    }
}

/// Opens the GPU with the embedded kernels, or those of the PTX file `ptx`.
fn open_gpu(ptx: Option<&Path>) -> bfs::Result<Gpu> {
    match ptx {
        None => Gpu::open(),
        Some(path) => {
            let ptx = std::fs::read_to_string(path).map_err(|error| Error::Io {
                path: path.to_path_buf(),
                error,
            })?;
            Gpu::with_ptx(&ptx)
        }
    }
}

/// The opened device of `opening`, or none where it was not started (the
/// CPU was asked for); as [`DeviceOpening::finish`].
pub(crate) fn finish(
    opening: Option<DeviceOpening>,
    device: DeviceChoice,
) -> anyhow::Result<(Option<Gpu>, Option<String>)> {
    match opening {
        Some(opening) => opening.finish(device),
        None => Ok((None, None)),
    }
}
