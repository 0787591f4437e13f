//! BFS over several GPUs: a layer above the single-GPU kernels.
//!
//! The graph is split into vertex ranges of about equal edges
//! ([`partition`]); each GPU, a *rank*, holds its range's rows and runs
//! the direction-optimizing search's kernels on them, and the ranks
//! exchange each level's discoveries through NCCL ([`nccl`], loaded at run
//! time), as [`direction_optimizing`] describes. Ranks run as threads of
//! one process, one per GPU of this host ([`Ranks::Threads`]), or one per
//! process ([`Ranks::Process`]: the path that spans machines), the NCCL id
//! passed from rank 0 to the others through a file.

pub mod direction_optimizing;
pub mod nccl;
pub mod partition;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use direction_optimizing::Rank;
use nccl::{Communicator, UNIQUE_ID_BYTES, UniqueId};

use crate::gpu::{Gpu, Step};
use crate::{Bfs, Csr, Error, Result};

/// Where a search's ranks run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ranks {
    /// One thread per GPU of this process, on GPUs `0..count`.
    Threads(u32),
    /// This process is rank `rank` of `ranks`, on GPU `rank` modulo this
    /// host's GPUs; rank 0 writes the NCCL id to `id_file`, the others
    /// wait for it there.
    Process {
        /// This process's rank.
        rank: u32,
        /// Ranks in all.
        ranks: u32,
        /// Where the id passes from rank 0 to the others.
        id_file: PathBuf,
    },
}

/// One search over the ranks, as rank 0 sees it.
pub struct MultiRun {
    /// Every vertex's level and parent.
    pub result: Bfs,
    /// Wall time from the first level's start to the last level's end.
    pub elapsed: Duration,
    /// Each level's time, exchange included.
    pub steps: Vec<Step>,
    /// The GPUs, e.g. `2 × NVIDIA H200 (NCCL)`.
    pub device: String,
}

/// Searches `graph` from each of `sources` over `ranks`; a rank that waits
/// longer than `join_timeout` for the others gives up with an error.
/// Returns rank 0's view: each search's result and time (empty on the
/// other ranks of [`Ranks::Process`]).
pub fn search(
    graph: &Csr,
    ranks: &Ranks,
    sources: &[u32],
    join_timeout: Duration,
) -> Result<Vec<MultiRun>> {
    let devices = Gpu::device_count()?;
    match ranks {
        Ranks::Threads(count) => {
            if *count == 0 || *count > devices {
                return Err(Error::MultiGpu(format!(
                    "{count} GPUs were asked for; this host has {devices}"
                )));
            }
            let id = nccl::unique_id()?;
            let outcomes: Vec<Result<Vec<MultiRun>>> = std::thread::scope(|scope| {
                let threads: Vec<_> = (0..*count)
                    .map(|rank| {
                        scope.spawn(move || {
                            run_rank(graph, (rank, *count), rank, id, sources, join_timeout)
                        })
                    })
                    .collect();
                threads
                    .into_iter()
                    .map(|thread| thread.join().expect("a rank's thread does not panic"))
                    .collect()
            });
            let mut runs = Vec::new();
            for outcome in outcomes {
                let outcome = outcome?;
                if !outcome.is_empty() {
                    runs = outcome;
                }
            }
            Ok(runs)
        }
        Ranks::Process {
            rank,
            ranks,
            id_file,
        } => {
            if rank >= ranks {
                return Err(Error::MultiGpu(format!(
                    "rank {rank} of {ranks}: ranks are numbered 0 to {}",
                    ranks - 1
                )));
            }
            if devices == 0 {
                return Err(Error::NoDevice("the driver reports no GPU".into()));
            }
            let id = if *rank == 0 {
                let id = nccl::unique_id()?;
                write_id(id_file, &id)?;
                id
            } else {
                read_id(id_file, join_timeout)?
            };
            run_rank(
                graph,
                (*rank, *ranks),
                rank % devices,
                id,
                sources,
                join_timeout,
            )
        }
    }
}

/// One rank's part: opens its GPU, joins the others, uploads its rows and
/// runs every search; rank 0 returns the results.
fn run_rank(
    graph: &Csr,
    (rank, ranks): (u32, u32),
    device: u32,
    id: UniqueId,
    sources: &[u32],
    join_timeout: Duration,
) -> Result<Vec<MultiRun>> {
    let gpu = Gpu::open_device(device)?;
    let communicator = Communicator::join(id, rank, ranks, join_timeout)?;
    let ranges = partition::edge_balanced(graph, ranks);
    let mut searcher = Rank::new(&gpu, communicator, graph, ranges)?;
    let device = format!("{ranks} × {} (NCCL)", gpu.name());
    let mut runs = Vec::new();
    for &source in sources {
        let run = searcher.search(source, graph.degree(source))?;
        if let Some(result) = run.result {
            runs.push(MultiRun {
                result,
                elapsed: run.elapsed,
                steps: run.steps,
                device: device.clone(),
            });
        }
    }
    Ok(runs)
}

/// Writes the id for the other ranks: whole, or not at all (a temporary
/// file renamed into place).
fn write_id(path: &Path, id: &UniqueId) -> Result<()> {
    crate::output::write_with(path, |writer| std::io::Write::write_all(writer, &id.0)).map_err(
        |error| {
            Error::MultiGpu(format!(
                "writing the NCCL id to {}: {error}",
                path.display()
            ))
        },
    )
}

/// Waits up to `timeout` for rank 0 to write the id (a file written after
/// this rank started waiting), and reads it.
fn read_id(path: &Path, timeout: Duration) -> Result<UniqueId> {
    let started = (Instant::now(), SystemTime::now());
    loop {
        let fresh = std::fs::metadata(path)
            .and_then(|metadata| metadata.modified())
            .is_ok_and(|modified| modified + Duration::from_secs(2) >= started.1);
        if fresh
            && let Ok(bytes) = std::fs::read(path)
            && let Ok(bytes) = <[u8; UNIQUE_ID_BYTES]>::try_from(bytes)
        {
            return Ok(UniqueId(bytes));
        }
        if started.0.elapsed() > timeout {
            return Err(Error::MultiGpu(format!(
                "rank 0 wrote no NCCL id to {} within {} s",
                path.display(),
                timeout.as_secs_f64()
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
