//! The search over several GPUs through NCCL: its ranks from the options
//! or the launcher's variables, its searches, and its plan's line.

use std::time::{Duration, SystemTime};

use anyhow::bail;
use bfs::gpu::Variant;
use bfs::multi::Ranks;
use bfs::multi::direction_optimizing::RankMemory;
use bfs::multi::launcher::{self, Placement};
use bfs::multi::rendezvous::Rendezvous;
use bfs::{Csr, Error};

use super::engine::{Engine, Outcome, within};
use crate::{DeviceChoice, SearchArgs};

/// The ranks of a multi-GPU search the options ask for, or the launcher
/// that started this process, if any.
pub(super) fn ranks(arguments: &SearchArgs, started: SystemTime) -> anyhow::Result<Option<Ranks>> {
    if let Some(count) = arguments.gpus {
        return Ok(Some(Ranks::Threads(count.resolve()?)));
    }
    let given = arguments.rank.zip(arguments.ranks);
    let launched = launcher::from_variables(|name| std::env::var(name).ok())?;
    let Some(placement) = launcher::resolve(given, launched)? else {
        return Ok(None);
    };
    if given.is_none() {
        check_launched(arguments, &placement)?;
    }
    Ok(Some(Ranks::Process {
        rank: placement.rank,
        ranks: placement.ranks,
        local_rank: placement.local_rank.unwrap_or(placement.rank),
        rendezvous: rendezvous(arguments, started)?,
    }))
}

/// Refuses what a launcher's search over processes cannot take, as
/// `--rank` refuses it: options of the search on one GPU.
fn check_launched(arguments: &SearchArgs, placement: &Placement) -> anyhow::Result<()> {
    let one_gpu = [
        (arguments.variant != Variant::Auto, "--variant"),
        (arguments.partition_size.is_some(), "--partition-size"),
        (arguments.device != DeviceChoice::Auto, "--device"),
    ];
    if let Some((_, option)) = one_gpu.iter().find(|(given, _)| *given) {
        bail!(
            "{} make this process rank {} of a search over {} processes, which takes no {option}",
            placement.origin(),
            placement.rank,
            placement.ranks
        );
    }
    Ok(())
}

/// How the NCCL id travels: over TCP where rank 0's address and port are
/// given, else through the id file.
fn rendezvous(arguments: &SearchArgs, started: SystemTime) -> anyhow::Result<Rendezvous> {
    Ok(match (&arguments.master_addr, arguments.master_port) {
        (Some(host), Some(port)) => Rendezvous::Tcp {
            host: host.clone(),
            port,
        },
        (None, None) => Rendezvous::File {
            path: arguments.nccl_id_file.clone(),
            started,
        },
        (Some(_), None) => bail!(
            "--master-addr (BFS_MASTER_ADDR) is given, but no --master-port (BFS_MASTER_PORT)"
        ),
        (None, Some(_)) => bail!(
            "--master-port (BFS_MASTER_PORT) is given, but no --master-addr (BFS_MASTER_ADDR)"
        ),
    })
}

/// A helping rank's run: its part of every search, then one line.
pub(super) fn help_rank_zero(
    searcher: &mut dyn Engine,
    graph: &Csr,
    sources: &[u32],
    depth_limit: Option<u32>,
) -> anyhow::Result<()> {
    searcher.for_each(graph, sources, depth_limit, &mut |_| Ok(()))?;
    println!("rank done: {} searches", sources.len());
    Ok(())
}

/// Several GPUs through NCCL; the ranks stay joined from one source to
/// the next.
pub(super) struct MultiGpu {
    ranks: Ranks,
    join_timeout: Duration,
    /// The GPUs and the fullest one's memory, once a search has named them.
    device: String,
}

impl MultiGpu {
    /// The search over `ranks`, each join waiting `join_timeout` at most.
    pub(super) fn new(ranks: Ranks, join_timeout: Duration) -> MultiGpu {
        MultiGpu {
            ranks,
            join_timeout,
            device: String::new(),
        }
    }
}

impl Engine for MultiGpu {
    fn for_each(
        &mut self,
        graph: &Csr,
        sources: &[u32],
        depth_limit: Option<u32>,
        on_outcome: &mut dyn FnMut(Outcome) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut failure = None;
        let device = &mut self.device;
        let searched =
            bfs::multi::search(graph, &self.ranks, sources, self.join_timeout, &mut |run| {
                let most = |part: fn(&RankMemory) -> u64| {
                    run.memory.iter().map(part).max().unwrap_or(0) as f64 / 1e9
                };
                *device = format!(
                    "{}; device memory of the fullest GPU: {:.2} GB allocated by the search, \
                     {:.2} GB in use",
                    run.device,
                    most(|memory| memory.allocated),
                    most(|memory| memory.in_use)
                );
                let outcome = Outcome {
                    result: run.result,
                    elapsed: run.elapsed,
                    steps: run.steps,
                    work: None,
                    download: Duration::ZERO,
                };
                on_outcome(within(outcome, depth_limit)).map_err(|error| {
                    let message = format!("{error:#}");
                    failure = Some(error);
                    Error::MultiGpu(message)
                })
            });
        match (failure, searched) {
            (Some(error), _) => Err(error),
            (None, searched) => Ok(searched?),
        }
    }

    fn plan_line(&self, _graph: &Csr) -> String {
        plan_line(&self.ranks)
    }

    fn device(&self) -> String {
        self.device.clone()
    }

    fn is_helping_rank(&self) -> bool {
        matches!(self.ranks, Ranks::Process { rank: 1.., .. })
    }
}

/// The search over GPUs in words, for the plan's line.
fn plan_line(ranks: &Ranks) -> String {
    match ranks {
        Ranks::Threads(1) => "the search over GPUs, on one GPU through NCCL (--gpus)".into(),
        Ranks::Threads(count) => {
            format!("the search over {count} GPUs of this host through NCCL (--gpus)")
        }
        Ranks::Process { rank, ranks, .. } => format!(
            "the search over {ranks} processes through NCCL, one GPU each; this is rank {rank}"
        ),
        Ranks::SharedGpu(count, _) => format!("the search over {count} ranks sharing GPU 0"),
    }
}
