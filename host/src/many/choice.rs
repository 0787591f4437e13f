//! Which method searches a graph's many sources. On the CPU: bit-parallel
//! batches where a search has few levels, a source a thread where it has
//! many, over the contracted chains where most vertices lie in them (road
//! networks). On a GPU: a tree a source in the sweeps of a contraction
//! hierarchy where `auto`'s single searches take one (road networks),
//! else bit-parallel batches (docs/many-sources.md, "What `auto` takes").

use super::gpu::{GpuBatches, HierarchyTrees};
use super::{ChainSources, CpuBatches, ManySources, SourceParallel, batch_threads};
use crate::abi::many_sources::words_for;
use crate::gpu::{Gpu, Strategy, Workload, plan, strategy};
use crate::graph::chains::ChainContraction;
use crate::graph::hierarchy::ContractionHierarchy;
use crate::graph::prepared::{Preparation, PreparationKind, Preparations};
use crate::{Csr, Result, UNREACHED, cpu};

/// Levels of a search past which a graph's sources go a source a thread:
/// a batch passes over a vertex's edges at every level at which some of
/// its sources reach it, and on a graph this deep they reach it over too
/// many (docs/decisions.md, "Many sources on the CPU").
pub const BATCH_MOST_LEVELS: u32 = 100;

/// The largest share of a deep graph's vertices kept outside degree-2
/// chains at which its sources search the contracted chains: a source's
/// work is then the kept vertices' and the chains', against every
/// vertex's and edge's; past it the bucket queue and the chains' count
/// cost more than they save (docs/decisions.md, "Many sources on the
/// CPU").
pub const CHAINS_MOST_KEPT: f64 = 0.25;

/// A way of searching many sources on the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuMethod {
    /// [`CpuBatches`](super::CpuBatches): bit-parallel batches, each
    /// level on every core.
    BitParallel,
    /// [`SourceParallel`](super::SourceParallel): whole searches, a
    /// source a thread.
    SourceParallel,
    /// [`ChainSources`](super::ChainSources): a source a thread over the
    /// graph's chains contracted, each chain's inner vertices counted in
    /// closed form.
    Chains,
}

impl CpuMethod {
    /// This method's engine for `graph`: bit-parallel batches of `words`
    /// words a vertex on `threads` threads (where `None`, as many as
    /// the graph's batches keep busy); the others on rayon's pool.
    pub fn engine<'g>(
        self,
        graph: &'g Csr,
        words: usize,
        threads: Option<usize>,
    ) -> Result<Box<dyn ManySources + 'g>> {
        Ok(match self {
            CpuMethod::BitParallel => {
                let threads = threads.unwrap_or_else(|| batch_threads(graph, words));
                Box::new(CpuBatches::new(graph, threads, words)?)
            }
            CpuMethod::SourceParallel => Box::new(SourceParallel::new(graph)),
            CpuMethod::Chains => Box::new(ChainSources::new(graph)),
        })
    }
}

/// The method for `graph`, and why in words: by the levels of a search
/// from its vertex of largest degree (in the largest component, mostly).
pub fn cpu_method(graph: &Csr) -> (CpuMethod, String) {
    let hub = (0..graph.vertex_count())
        .max_by_key(|&vertex| graph.degree(vertex))
        .unwrap_or(0);
    if graph.vertex_count() == 0 {
        return (CpuMethod::BitParallel, "an empty graph".into());
    }
    let levels = cpu::bfs(graph, hub)
        .levels
        .into_iter()
        .filter(|&level| level != UNREACHED)
        .max()
        .map_or(0, |depth| depth + 1);
    if levels > BATCH_MOST_LEVELS {
        let why = format!("a search has {levels} levels, more than {BATCH_MOST_LEVELS}");
        let kept = ChainContraction::kept_at_least(graph) as f64 / graph.vertex_count() as f64;
        if graph.is_symmetric() && kept <= CHAINS_MOST_KEPT {
            let share = 100.0 * kept;
            let why = format!("{why}; {share:.0}% of the vertices outside degree-2 chains");
            (CpuMethod::Chains, why)
        } else {
            (CpuMethod::SourceParallel, why)
        }
    } else {
        let why = format!("a search has {levels} levels, at most {BATCH_MOST_LEVELS}");
        (CpuMethod::BitParallel, why)
    }
}

/// A way of searching many sources on a GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuMethod {
    /// [`GpuBatches`]: bit-parallel batches, a level a round trip.
    BitParallel,
    /// [`HierarchyTrees`]: a tree a source in the two sweeps of a
    /// contraction hierarchy (undirected graphs).
    HierarchyTrees,
}

impl GpuMethod {
    /// This method's engine on `gpu` for batches of `sources` sources of
    /// `graph` (at most its widest).
    pub fn engine<'g>(
        self,
        gpu: &'g Gpu,
        graph: &'g Csr,
        sources: usize,
    ) -> Result<Box<dyn ManySources + 'g>> {
        self.engine_from(gpu, graph, sources, None)
    }

    /// [`engine`](Self::engine), the trees over `hierarchy` where given
    /// (built from `graph`, or loaded from its prepared file) rather than
    /// one built now.
    pub fn engine_from<'g>(
        self,
        gpu: &'g Gpu,
        graph: &'g Csr,
        sources: usize,
        hierarchy: Option<ContractionHierarchy>,
    ) -> Result<Box<dyn ManySources + 'g>> {
        let sources = u32::try_from(sources).unwrap_or(u32::MAX);
        Ok(match (self, hierarchy) {
            (GpuMethod::BitParallel, _) => {
                Box::new(GpuBatches::new(gpu, graph, words_for(sources))?)
            }
            (GpuMethod::HierarchyTrees, Some(hierarchy)) => Box::new(
                HierarchyTrees::from_hierarchy(gpu, graph, hierarchy, sources)?,
            ),
            (GpuMethod::HierarchyTrees, None) => {
                Box::new(HierarchyTrees::new(gpu, graph, sources)?)
            }
        })
    }
}

/// The contraction hierarchy that `graph`'s prepared file holds
/// (`prepared`, its sections), for the trees: `Ok(None)` without one,
/// `Err(why)` where it cannot be trusted (a corrupt or stale section),
/// which the caller says before building one anew.
pub fn prepared_hierarchy(
    prepared: &Preparations,
    graph: &Csr,
) -> std::result::Result<Option<ContractionHierarchy>, String> {
    match prepared.load(PreparationKind::Hierarchy, graph.vertex_count()) {
        Some(Ok(Preparation::Hierarchy(hierarchy))) => Ok(Some(hierarchy)),
        Some(Ok(_)) => Err("its hierarchy section holds something else".into()),
        Some(Err(why)) => Err(why),
        None => match prepared.problem() {
            Some(problem) => Err(problem.to_string()),
            None => Ok(None),
        },
    }
}

/// Sources from which a road-like graph of few chains (junctions of
/// degree 3 and more, grids) repays building its contraction hierarchy
/// for the trees: its batches pass over the whole graph at each of its
/// thousands of levels, and the build costs a few hundred of their
/// sources (docs/decisions.md, "Road networks of few chains").
pub const TREES_LEAST_SOURCES: usize = 8192;

/// The GPU method for `sources` sources of `graph`, and why in words: a
/// contraction hierarchy's trees where `auto`'s plan for many single
/// searches builds one (an undirected road-like graph, mostly chains: its
/// levels are few where its searches have thousands), or where the graph
/// is road-like and undirected and the sources are at least
/// [`TREES_LEAST_SOURCES`]; else bit-parallel batches.
pub fn gpu_method(graph: &Csr, sources: usize) -> (GpuMethod, String) {
    let plan = plan(graph, true, Workload::many());
    let undirected = graph.is_symmetric();
    if plan.strategy == Strategy::HierarchySweep && undirected {
        let why = format!(
            "a contraction hierarchy, as for single searches: {}",
            plan.reason
        );
        (GpuMethod::HierarchyTrees, why)
    } else if strategy(graph) == Strategy::ManyLevelsPerLaunch
        && undirected
        && sources >= TREES_LEAST_SOURCES
    {
        let why = format!(
            "a contraction hierarchy, as {sources} sources repay building it (from \
             {TREES_LEAST_SOURCES}): {}",
            plan.reason
        );
        (GpuMethod::HierarchyTrees, why)
    } else {
        let why = format!(
            "bit-parallel batches, as single searches take no hierarchy: {}",
            plan.reason
        );
        (GpuMethod::BitParallel, why)
    }
}
