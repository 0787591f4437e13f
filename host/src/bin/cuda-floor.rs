//! `cuda-floor`: what every CUDA program pays before its first kernel, and
//! nothing else: the process's start, `cuInit` (with loading the driver
//! library, as `bfs` does) and the device's context.
//! The end-to-end benchmark times it beside `bfs`, so that a run's wall
//! time can be read against this floor. Prints the steps' seconds.

use std::process::ExitCode;
use std::time::Instant;

use cust::context::Context;
use cust::device::Device;

/// Opens the first device and prints the steps' seconds, or the one-line
/// error of a machine without one.
fn main() -> ExitCode {
    let started = Instant::now();
    if let Err(error) = bfs::gpu::libcuda::loaded() {
        eprintln!("error: {error}");
        return ExitCode::FAILURE;
    }
    let outcome = cust::init(cust::CudaFlags::empty())
        .map(|()| Instant::now())
        .and_then(|initialised| {
            let device = Device::get_device(0)?;
            let context = Context::new(device)?;
            Ok((initialised, Instant::now(), context))
        });
    match outcome {
        Ok((initialised, created, _context)) => {
            let age = bfs::phases::process_age().unwrap_or_default();
            println!(
                "process start to main {:.4} s, cuInit {:.4} s, context {:.4} s",
                (age.saturating_sub(started.elapsed())).as_secs_f64(),
                (initialised - started).as_secs_f64(),
                (created - initialised).as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: no CUDA device ({error})");
            ExitCode::FAILURE
        }
    }
}
