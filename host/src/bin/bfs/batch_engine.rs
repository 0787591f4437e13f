//! The engine that searches a run's many sources in batches: the GPU's
//! where there is one and it has a batch engine, else the CPU's
//! bit-parallel one; or one source at a time, to compare.

use bfs::gpu::Gpu;
use bfs::many::{CpuBatches, ManySources, OneByOne};
use bfs::{Csr, Error, cpu, many};

use crate::DeviceChoice;

/// How a run asks its sources to be searched.
#[derive(Clone, Copy)]
pub(crate) struct BatchOptions {
    /// `--device`.
    pub(crate) device: DeviceChoice,
    /// `--threads`, where given.
    pub(crate) threads: Option<u32>,
    /// Sources a CPU batch takes, where given (a multiple of 64).
    pub(crate) width: Option<usize>,
    /// One source at a time, by the direction-optimizing engine.
    pub(crate) one_by_one: bool,
}

/// The engine for `sources` sources of `graph` that `options` ask for,
/// and why it runs where it does. `--device auto` and `gpu` open the GPU;
/// without one, `auto` says so in a note and takes the CPU.
pub(crate) fn batch_engine<'g>(
    options: BatchOptions,
    graph: &'g Csr,
    sources: usize,
) -> anyhow::Result<(Box<dyn ManySources + 'g>, String)> {
    let words = options
        .width
        .map_or_else(|| many::words_for(sources), |width| width / 64);
    let threads = options
        .threads
        .map_or_else(|| batch_threads(graph, words), |threads| threads as usize);
    let on_cpu = |why: String| -> anyhow::Result<(Box<dyn ManySources + 'g>, String)> {
        if options.one_by_one {
            let threads = options
                .threads
                .map_or_else(|| cpu::threads_for(graph), |threads| threads as usize);
            return Ok((Box::new(OneByOne::new(graph, Some(threads))?), why));
        }
        Ok((Box::new(CpuBatches::new(graph, threads, words)?), why))
    };
    match options.device {
        DeviceChoice::CpuReference => Ok((
            Box::new(OneByOne::new(graph, None)?),
            "--device cpu-reference".into(),
        )),
        DeviceChoice::Cpu => on_cpu("--device cpu".into()),
        DeviceChoice::Auto | DeviceChoice::Gpu => match Gpu::open() {
            // The GPU's batch engine plugs in here, in place of the note:
            // `Ok(gpu) => Ok((Box::new(GpuBatches::new(gpu, graph)?), plan))`.
            Ok(gpu) => {
                let why = format!("{} has no batch engine yet", gpu.name());
                eprintln!("note: {why}; running on the CPU instead");
                on_cpu(why)
            }
            Err(Error::NoDevice(reason)) if options.device == DeviceChoice::Auto => {
                eprintln!("note: no CUDA device ({reason}); running on the CPU instead");
                on_cpu(format!("no CUDA device ({reason})"))
            }
            Err(error) => Err(error.into()),
        },
    }
}

/// Threads for batches of `words` words a vertex when none are asked
/// for: one per [`cpu::EDGES_PER_THREAD`] edge-words of a level over every
/// vertex, at most [`cpu::MOST_THREADS`] and the hardware's.
fn batch_threads(graph: &Csr, words: usize) -> usize {
    let wanted = (graph.edge_count() * words as u64).div_ceil(cpu::EDGES_PER_THREAD);
    let most = cpu::hardware_threads().min(cpu::MOST_THREADS) as u64;
    wanted.clamp(1, most) as usize
}
