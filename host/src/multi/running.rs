//! Running the ranks: as threads of this process, each joined its way
//! ([`on_threads`]), or as this process's one rank; each rank's searches
//! ([`run_rank`]), and what a rank that fails tells the others.

use std::sync::mpsc::SyncSender;

use super::direction_optimizing::{Layout, Rank};
use super::peer_access::PeerAccess;
use super::{Collectives, MultiRun, OnRun, Reach, shared_gpu};
use crate::gpu::Gpu;
use crate::{Csr, Error, Result};

/// A rank once it has joined the others: its GPU, its collectives, what
/// it reaches of the others, and, where that is their memory, its access
/// to it.
pub(super) struct Joined {
    pub(super) gpu: Gpu,
    pub(super) collectives: Box<dyn Collectives>,
    pub(super) reach: Reach,
    pub(super) _access: Option<PeerAccess>,
}

/// Runs the ranks of `group` as threads of this process, each as `join`
/// makes it, over the parts of `layout`, every rank on a thread of its own: this thread hands rank 0's
/// runs to `on_run` (which need not be `Send`), one at a time, rank 0
/// waiting until each is handled, as it would on its own thread. No rank
/// runs on the thread that validates (docs/decisions.md, "Several GPUs").
/// A rank that fails tells the group, so that the others stop at once,
/// and its error is the one returned: theirs only say that it stopped.
pub(super) fn on_threads(
    graph: &Csr,
    (layout, group): (&Layout, &shared_gpu::Group),
    (sources, capacity): (&[u32], u32),
    on_run: OnRun<'_>,
    join: impl Fn(u32) -> Result<Joined> + Sync,
) -> Result<()> {
    let run = |rank: u32, on_run: Option<OnRun<'_>>| {
        let stop = |error: &Error| {
            if !matches!(error, Error::OtherRank(_)) {
                group.stop(rank);
            }
        };
        let joined = join(rank).inspect_err(stop)?;
        run_rank((graph, layout), joined, (sources, capacity), on_run, &stop)
    };
    let (runs, handed) = std::sync::mpsc::sync_channel::<(MultiRun, SyncSender<Result<()>>)>(0);
    std::thread::scope(|scope| {
        let ranks: Vec<_> = (0..group.ranks())
            .map(|rank| {
                let runs = runs.clone();
                scope.spawn(move || {
                    let mut hand_over = |multi_run: MultiRun| {
                        let stopped = || Error::MultiGpu("the results' thread stopped".into());
                        let (answer, answered) = std::sync::mpsc::sync_channel(1);
                        runs.send((multi_run, answer)).map_err(|_| stopped())?;
                        answered.recv().map_err(|_| stopped())?
                    };
                    run(rank, (rank == 0).then_some(&mut hand_over as OnRun<'_>))
                })
            })
            .collect();
        drop(runs);
        for (multi_run, answer) in handed {
            // Rank 0 waits for the answer: it is gone only if it failed.
            let _ = answer.send(on_run(multi_run));
        }
        let results = ranks
            .into_iter()
            .map(|thread| thread.join().expect("a rank's thread does not panic"))
            .collect();
        first_cause(results, group.stopped())
    })
}

/// The error of the ranks' `results` that says why the search stopped:
/// that of rank `stopped`, the first that stopped on an error of its own,
/// where one did; else the first in rank order.
fn first_cause(mut results: Vec<Result<()>>, stopped: Option<u32>) -> Result<()> {
    if let Some(rank) = stopped
        && results.get(rank as usize).is_some_and(Result::is_err)
    {
        return results.swap_remove(rank as usize);
    }
    results.into_iter().fold(Ok(()), Result::and)
}

/// One rank's part of `layout`, once it has joined the others: uploads its
/// rows and runs every search, with claim regions of `capacity` pairs; rank 0 hands
/// each result to `on_run`. A failure is shown to `stop`, and the rank
/// leaves the collectives, before its buffers and communicator go, which
/// can wait for the others.
pub(super) fn run_rank(
    (graph, layout): (&Csr, &Layout),
    joined: Joined,
    (sources, capacity): (&[u32], u32),
    mut on_run: Option<OnRun<'_>>,
    stop: &dyn Fn(&Error),
) -> Result<()> {
    let Joined {
        gpu,
        collectives,
        reach,
        _access: access,
    } = joined;
    let ranks = collectives.ranks();
    let device = format!("{ranks} × {} ({})", gpu.name(), collectives.transport());
    let (mut searcher, memory) =
        Rank::new(&gpu, (collectives, reach), graph, layout, capacity).inspect_err(stop)?;
    let mut first_error = None;
    let mut searched = || -> Result<()> {
        for &source in sources {
            let run = searcher.search(source, graph.degree(source))?;
            if let (Some(result), Some(on_run), None) = (run.result, &mut on_run, &first_error) {
                let handed = on_run(MultiRun {
                    result,
                    elapsed: run.elapsed,
                    steps: run.steps,
                    device: device.clone(),
                    memory: memory.clone(),
                });
                first_error = handed.err();
            }
        }
        Ok(())
    };
    let searched = searched();
    if let Err(error) = &searched {
        stop(error);
        if searcher.give_up() {
            // Freeing the buffers, the module or the context waits for every
            // kernel queued on the GPU, and a collective's kernel may wait
            // for a rank that is gone: they are left to the process's end.
            std::mem::forget(searcher);
            std::mem::forget(access);
            std::mem::forget(gpu);
        }
        return searched;
    }
    first_error.map_or(Ok(()), Err).inspect_err(stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_returned_is_the_first_rank_that_stopped_on_its_own() {
        let results = || {
            vec![
                Err(Error::OtherRank("rank 0: gave up".into())),
                Ok(()),
                Err(Error::MultiGpu("rank 2's part does not fit".into())),
            ]
        };
        let error = first_cause(results(), Some(2)).expect_err("two ranks failed");
        assert!(error.to_string().contains("rank 2's part"), "{error}");
        // Without a rank that stopped on its own, the first in rank order.
        let error = first_cause(results(), None).expect_err("two ranks failed");
        assert!(error.to_string().contains("rank 0"), "{error}");
        assert!(first_cause(vec![Ok(()), Ok(())], None).is_ok());
    }
}
