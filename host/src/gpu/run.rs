//! What a GPU search reports besides its labels: its time, the steps of
//! its level loop (for `--trace`), the work of searches that do not go
//! level by level, and each level's exchange between GPUs.

use std::time::Duration;

use super::locked::LockedDestination;
use crate::{Bfs, Result};

/// What a search is asked for: its source (already checked to be a
/// vertex), whether its parents come back with its levels, whether it
/// reports what it did, and where its labels go.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    /// The vertex the search starts from.
    pub source: u32,
    /// Whether the result holds the parents (where the variant records them).
    pub parents: bool,
    /// Whether the run reports its steps and work ([`GpuRun::steps`],
    /// [`GpuRun::work`]) where they cost a pass over the result or a read
    /// of the device's counters: the command line's `--json` and
    /// `--trace` print them, a caller that wants the labels alone (Python's
    /// `Graph.bfs`) does not wait for them.
    pub statistics: bool,
    /// Where a search whose labels come back whole puts them, in place of
    /// its result's vectors (left empty): locked ones
    /// ([`Search::run_locked`](super::Search::run_locked)).
    pub(crate) locked: Option<&'a LockedDestination>,
}

impl Request<'_> {
    /// A search from `source` that returns everything: levels, parents
    /// and statistics.
    pub fn everything(source: u32) -> Request<'static> {
        Request {
            statistics: true,
            ..Request::labels(source, true)
        }
    }

    /// A search from `source` for its levels, and its parents where
    /// `parents`, without statistics.
    pub fn labels(source: u32, parents: bool) -> Request<'static> {
        Request {
            source,
            parents,
            statistics: false,
            locked: None,
        }
    }
}

/// The result of a GPU search and its time.
pub struct GpuRun {
    /// Levels (and parents, where the variant records them).
    pub result: Bfs,
    /// Device time from initialisation to the last level, measured with CUDA events.
    pub elapsed: Duration,
    /// The host's level loop, step by step (for `--trace`); none for a
    /// one-launch search whose request asked for no statistics.
    pub steps: Vec<Step>,
    /// Barriers and work, for variants whose grid barriers are not one per
    /// level, where the request asked for statistics.
    pub work: Option<Work>,
    /// Host time from the search's end on the device to its result in
    /// host memory (copied back, and mapped to the graph's own ids where
    /// the variant renumbers), set by [`Search::run`](super::Search::run).
    pub download: Duration,
}

impl GpuRun {
    /// A search that ran all its levels in one launch: one step of them
    /// all, and the `work` it reports, where `request` asks for them (the
    /// step's level count is a pass over the result).
    pub(crate) fn one_launch(
        request: Request,
        result: Bfs,
        elapsed: Duration,
        work: impl FnOnce(&Bfs) -> Result<Option<Work>>,
    ) -> Result<GpuRun> {
        let (steps, work) = match request.statistics {
            false => (Vec::new(), None),
            true => (
                vec![Step::on_gpu(0, result.level_count(), elapsed)],
                work(&result)?,
            ),
        };
        Ok(GpuRun {
            steps,
            result,
            elapsed,
            work,
            download: Duration::ZERO,
        })
    }
}

/// What a search that does not go level by level did: its barriers, its
/// partition searches and the edges it examined, which a level-synchronous
/// search examines once each (`Bfs::edges_traversed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Work {
    /// Barriers between the search's rounds: grid-wide ones, or, for a
    /// one-block search (`chain-contracted`, `hierarchy-sweep`), its
    /// block's, one a round or a level of the hierarchy.
    pub barriers: u32,
    /// Searches of one partition by one block, each of many levels (for
    /// `warp-specialized`, whose searchers never stop: the dirty bits its
    /// messengers took).
    pub partition_searches: u64,
    /// Adjacency entries examined, re-expansions included.
    pub edges_examined: u64,
    /// Levels searched inside partitions, added up over all their searches.
    pub levels_searched: u64,
}

/// One step of a host level loop: one level, or several levels in one launch
/// (`small-frontier`), on the GPU or (`hybrid-cpu`) the CPU.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// The level of the frontier the step expanded first.
    pub first_level: u32,
    /// Levels it expanded.
    pub levels: u32,
    /// Host time from the step's launch to its result: the cost of a level
    /// as the loop sees it, launch and round trip included.
    pub elapsed: Duration,
    /// Whether the CPU ran it.
    pub on_cpu: bool,
    /// What the level exchanged between GPUs, in a search over several.
    pub exchange: Option<Exchange>,
    /// Which way the level went, in a direction-optimizing search that
    /// goes level by level.
    pub direction: Option<Direction>,
}

/// Which way a level of a direction-optimizing search went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the frontier's vertices to their unvisited neighbours.
    TopDown,
    /// From the unvisited vertices to a neighbour in the frontier.
    BottomUp,
}

impl Direction {
    /// Its name in `--trace` and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::TopDown => "top-down",
            Direction::BottomUp => "bottom-up",
        }
    }
}

/// The exchange time of a search's `steps`, if it ran over GPUs.
pub fn exchange_time(steps: &[Step]) -> Option<Duration> {
    steps
        .iter()
        .filter_map(|step| step.exchange)
        .map(|exchange| exchange.elapsed)
        .reduce(|sum, elapsed| sum + elapsed)
}

/// The median over searches of their exchange time per level (each
/// search's `steps`), if they ran over GPUs.
pub fn median_exchange_per_level<'s>(
    searches: impl IntoIterator<Item = &'s [Step]>,
) -> Option<Duration> {
    let mut per_level: Vec<Duration> = searches
        .into_iter()
        .filter_map(|steps| Some(exchange_time(steps)? / steps.len() as u32))
        .collect();
    per_level.sort();
    per_level.get(per_level.len() / 2).copied()
}

/// A level's exchange between the GPUs of a search over several
/// ([`crate::multi`]).
#[derive(Clone, Copy, Debug)]
pub struct Exchange {
    /// Device time in the level's collectives (CUDA events around each):
    /// the transfers and each rank's wait for the slowest; not the host's
    /// copies of the counts between them.
    pub elapsed: Duration,
    /// Bytes the rank received: the claims sent to it
    /// (vertex and parent, 8 bytes each) on a top-down level; on a
    /// bottom-up one the whole frontier bitmap, or the other ranks'
    /// frontier queues (4 bytes a vertex) where they were the smaller.
    pub bytes: u64,
    /// Times a top-down level expanded its frontier: more than one where a
    /// rank's claims for another overran their region
    /// ([`crate::multi::claims`]); one on a bottom-up level.
    pub rounds: u32,
}

impl Step {
    /// A step on the GPU of `levels` levels from `first_level`, which took
    /// `elapsed`.
    pub(crate) fn on_gpu(first_level: u32, levels: u32, elapsed: Duration) -> Step {
        Step {
            first_level,
            levels,
            elapsed,
            on_cpu: false,
            exchange: None,
            direction: None,
        }
    }

    /// A one-level step on the GPU that started at `started`.
    pub(crate) fn gpu_level(level: u32, started: std::time::Instant) -> Step {
        Step::on_gpu(level, 1, started.elapsed())
    }

    /// The step, which went in `direction`.
    pub(crate) fn going(self, direction: Direction) -> Step {
        Step {
            direction: Some(direction),
            ..self
        }
    }
}
