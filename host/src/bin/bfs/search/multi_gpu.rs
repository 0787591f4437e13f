//! The search over several GPUs through NCCL: its ranks from the options,
//! its searches, and its plan's line.

use std::time::{Duration, SystemTime};

use bfs::multi::Ranks;
use bfs::multi::direction_optimizing::RankMemory;
use bfs::{Csr, Error};

use super::searcher::{Outcome, Searcher};
use crate::SearchArgs;

/// The ranks of a multi-GPU search the options ask for, if any.
pub(super) fn ranks(arguments: &SearchArgs, started: SystemTime) -> anyhow::Result<Option<Ranks>> {
    Ok(match (arguments.gpus, arguments.rank, arguments.ranks) {
        (Some(count), ..) => Some(Ranks::Threads(count.resolve()?)),
        (None, Some(rank), Some(ranks)) => Some(Ranks::Process {
            rank,
            ranks,
            id_file: arguments.nccl_id_file.clone(),
            started,
        }),
        _ => None,
    })
}

/// Whether `searcher` is a rank past 0 of a search over processes, which
/// searches beside rank 0 and leaves the report to it.
pub(super) fn is_helping_rank(searcher: &Searcher<'_>) -> bool {
    matches!(
        searcher,
        Searcher::MultiGpu {
            ranks: Ranks::Process { rank: 1.., .. },
            ..
        }
    )
}

/// A helping rank's run: its part of every search, then one line.
pub(super) fn help_rank_zero(
    searcher: &mut Searcher<'_>,
    graph: &Csr,
    sources: &[u32],
    depth_limit: Option<u32>,
) -> anyhow::Result<()> {
    searcher.for_each(graph, sources, depth_limit, &mut |_| Ok(()))?;
    println!("rank done: {} searches", sources.len());
    Ok(())
}

/// Searches from each of `sources` over `ranks`, handing each outcome to
/// `on_outcome`; `device` becomes the GPUs and the fullest one's memory.
/// An error of `on_outcome` stops the search and is returned as it came.
pub(super) fn search(
    graph: &Csr,
    ranks: &Ranks,
    sources: &[u32],
    join_timeout: Duration,
    device: &mut String,
    on_outcome: &mut dyn FnMut(Outcome) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut failure = None;
    let searched = bfs::multi::search(graph, ranks, sources, join_timeout, &mut |run| {
        let most = |part: fn(&RankMemory) -> u64| {
            run.memory.iter().map(part).max().unwrap_or(0) as f64 / 1e9
        };
        *device = format!(
            "{}; device memory of the fullest GPU: {:.2} GB allocated by the search, {:.2} GB in use",
            run.device,
            most(|memory| memory.allocated),
            most(|memory| memory.in_use)
        );
        on_outcome(Outcome {
            result: run.result,
            elapsed: run.elapsed,
            steps: run.steps,
            work: None,
            download: Duration::ZERO,
        })
        .map_err(|error| {
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

/// The search over GPUs in words, for the plan's line.
pub(super) fn plan_line(ranks: &Ranks) -> String {
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
