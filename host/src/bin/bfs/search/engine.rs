//! What searches from the command line: one GPU, several through NCCL,
//! the parallel CPU engine, its batches or the single-thread reference.
//! Each is an [`Engine`]; `searcher::choose` picks one for the run, and the
//! run's steps ask it for searches and for the words that describe it,
//! never which one it is.

use std::time::Duration;

use anyhow::bail;
use bfs::gpu::{Step, Variant, Work};
use bfs::{Bfs, Csr};

/// One search's result and how it ran.
pub(super) struct Outcome {
    pub(super) result: Bfs,
    /// The search's time, as the device or the CPU engine timed it.
    pub(super) elapsed: Duration,
    /// Its steps (launches, exchanges), for `--trace`.
    pub(super) steps: Vec<Step>,
    /// What the GPU did for it, where the variant counts that.
    pub(super) work: Option<Work>,
    /// Host time to copy its result back, after the device finished.
    pub(super) download: Duration,
}

impl Outcome {
    /// A search the CPU timed as `elapsed`, with nothing else to report.
    pub(super) fn timed(result: Bfs, elapsed: Duration) -> Outcome {
        Outcome {
            result,
            elapsed,
            steps: Vec::new(),
            work: None,
            download: Duration::ZERO,
        }
    }
}

/// Where a run's searches go.
pub(super) trait Engine {
    /// Searches from each of `sources` in turn (each with its own result,
    /// its depth cut to `depth_limit`), handing each outcome to
    /// `on_outcome` as it comes, so that a large graph's many searches
    /// hold one result in memory at a time. An error of `on_outcome`
    /// stops the searches and is returned as it came. By default, one
    /// [`search_seeds`](Self::search_seeds) a source.
    fn for_each(
        &mut self,
        graph: &Csr,
        sources: &[u32],
        depth_limit: Option<u32>,
        on_outcome: &mut dyn FnMut(Outcome) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        for &source in sources {
            on_outcome(self.search_seeds(graph, &[source], depth_limit)?)?;
        }
        Ok(())
    }

    /// One search from every one of `seeds` at once, within `depth_limit`.
    fn search_seeds(
        &mut self,
        _graph: &Csr,
        _seeds: &[u32],
        _depth_limit: Option<u32>,
    ) -> anyhow::Result<Outcome> {
        bail!(
            "--seeds searches on one GPU or the CPU engines; \
             the search over several GPUs takes one source"
        )
    }

    /// The device, the strategy and why, in one line.
    fn plan_line(&self, graph: &Csr) -> String;

    /// The device in words, for the report.
    fn device(&self) -> String;

    /// The GPU variant that searches, where one GPU does.
    fn variant(&self) -> Option<Variant> {
        None
    }

    /// The device memory the search holds, where one GPU searches.
    fn device_bytes(&self) -> Option<u64> {
        None
    }

    /// Sources searched at once, where the engine searches in batches.
    fn batch_width(&self) -> Option<usize> {
        None
    }

    /// Whether this is a rank past 0 of a search over processes, which
    /// searches beside rank 0 and leaves the report to it.
    fn is_helping_rank(&self) -> bool {
        false
    }
}

/// Cuts `outcome`'s result to `depth_limit`, where there is one.
pub(super) fn within(mut outcome: Outcome, depth_limit: Option<u32>) -> Outcome {
    if let Some(limit) = depth_limit {
        outcome.result.limit_depth(limit);
    }
    outcome
}
