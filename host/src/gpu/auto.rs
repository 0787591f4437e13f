//! The `auto` variant: picks the strategy from cheap statistics of the
//! graph, and from what the run will ask of it.
//!
//! The cost of a search is levels × the cost of one level on high-diameter
//! graphs, and edges examined on low-diameter ones. Average and maximum
//! degree tell the two apart before searching. Road networks and meshes
//! (a handful of neighbours per vertex, no hubs) have thousands of levels;
//! the strategies that cut the cost of a level there need a structure
//! built first: a contraction hierarchy over the junctions
//! (`hierarchy-sweep`, for graphs that are mostly degree-2 chains, up to
//! [`MOST_KEPT_VERTICES`] junctions) or ghost zones (`ghost-zones`, for the
//! others). Building either costs far more than one search saves, so
//! `auto` takes one only when the run's searches repay it
//! ([`hierarchy_pays_from_searches`], [`ZONES_PAY_FROM_SEARCHES`]) or when
//! the graph's file holds it prepared (`bfs prepare`); otherwise such a
//! graph runs its levels without preparation, one block while the
//! frontier is small and the persistent grid while it is large, no host
//! round trips. Every other graph gets a direction-optimizing search,
//! which chooses top-down or bottom-up anew at each level from the
//! frontier's size and edges: in one cooperative launch
//! (`persistent-direction-optimizing`) where the device has them and the
//! graph has fewer than [`LEVEL_BY_LEVEL_LEAST_EDGES`] CSR entries, else
//! level by level from the host (`direction-optimizing`). The measurements
//! behind each threshold are in `docs/decisions.md`.

use super::direction_optimizing::DirectionOptimizing;
use super::ghost_zones::GhostZones;
use super::hierarchy_sweep::{HierarchySweep, MOST_KEPT_VERTICES};
use super::persistent::PersistentLevels;
use super::persistent_direction_optimizing::PersistentDirectionOptimizing;
use super::small_frontier::SmallFrontier;
use super::{DeviceGraph, Driver, Gpu, GpuBfs, GpuRun, Request};
use crate::graph::chains::ChainContraction;
use crate::graph::hierarchy::CONTRACTION_WORK_PER_ENTRY;
use crate::graph::prepared::{Preparation, PreparationKind, Preparations};
use crate::{Csr, Error, Result};
use rayon::prelude::*;

/// At most this many neighbours on average ...
pub const ROAD_AVERAGE_DEGREE: f64 = 6.0;
/// ... and at most this many at any vertex make a graph road-like.
pub const ROAD_MAX_DEGREE: u32 = 64;

// A road-like graph's hierarchy is within its build's budget, so `auto`
// never takes one it would refuse: squared degrees sum to at most the
// largest degree times the CSR entries.
const _: () = assert!(ROAD_MAX_DEGREE as u64 <= CONTRACTION_WORK_PER_ENTRY);

/// A road-like graph runs `hierarchy-sweep` when it keeps at most this
/// share of its vertices (the rest lie inside chains), and at most
/// [`MOST_KEPT_VERTICES`]. Where more are kept (grids), the hierarchy is
/// mostly an uncontracted core, searched in slow rounds
/// (docs/decisions.md, "Road networks and grids").
pub const CHAINS_KEPT_SHARE: f64 = 0.5;

/// CSR entries from which a direction-optimizing search runs level by
/// level from the host, its kernels on full grids, rather than in one
/// cooperative launch of a resident grid. In one launch a level costs a
/// grid barrier, not a launch and a round trip, which pays where levels
/// are short; on large graphs the resident grid's few threads per
/// multiprocessor hide less of each level's memory latency. A threshold
/// between the measured points that cross (docs/decisions.md,
/// "Strategies").
pub const LEVEL_BY_LEVEL_LEAST_EDGES: u64 = 100_000_000;

/// Searches from which building a contraction hierarchy (chains, then
/// junctions) costs less than the searches it shortens, on the smallest
/// road networks: one search level by level costs a fraction of the
/// build (docs/decisions.md, "Time to answer").
pub const HIERARCHY_PAYS_FROM_SEARCHES: usize = 60;

/// Searches that building a hierarchy takes to repay, per square root of
/// the vertices it keeps: the build's cost grows with the kept vertices,
/// a level-by-level search's with its levels, about the square root of a
/// planar network's vertices (docs/decisions.md, "Time to answer").
pub const HIERARCHY_SEARCHES_PER_ROOT_KEPT: f64 = 0.33;

/// Searches from which building the hierarchy of a graph that keeps
/// `kept` vertices costs less than the searches it shortens.
pub fn hierarchy_pays_from_searches(kept: u32) -> usize {
    let grown = (HIERARCHY_SEARCHES_PER_ROOT_KEPT * (kept as f64).sqrt()).ceil() as usize;
    HIERARCHY_PAYS_FROM_SEARCHES.max(grown)
}

/// Searches from which loading a prepared contraction hierarchy costs
/// less than the searches it shortens (docs/decisions.md, "Time to
/// answer").
pub const PREPARED_HIERARCHY_PAYS_FROM_SEARCHES: usize = 3;

/// Searches from which building ghost zones costs less than the searches
/// they shorten (docs/decisions.md, "Time to answer").
pub const ZONES_PAY_FROM_SEARCHES: usize = 100;

/// Searches from which loading prepared ghost zones (about three times
/// the graph's bytes) costs less than the searches they shorten
/// (docs/decisions.md, "Time to answer").
pub const PREPARED_ZONES_PAY_FROM_SEARCHES: usize = 16;

/// The strategy `auto` takes for a graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// High diameter, low degree: levels in one block or the persistent
    /// grid, by frontier size, without host round trips.
    ManyLevelsPerLaunch,
    /// High diameter, low degree, a device with cooperative launches:
    /// `ghost-zones`, partitions searched with their zones, 16 levels per
    /// grid barrier.
    GhostZones,
    /// High diameter, mostly degree-2 chains: `hierarchy-sweep`'s two
    /// sweeps over the junctions' hierarchy.
    HierarchySweep,
    /// Low diameter or hubs: top-down or bottom-up per level, a launch
    /// each, the host choosing (`direction-optimizing`).
    DirectionOptimizing,
    /// The same in one cooperative launch, the device choosing
    /// (`persistent-direction-optimizing`): graphs of fewer than
    /// [`LEVEL_BY_LEVEL_LEAST_EDGES`] CSR entries.
    DirectionOptimizingInOneLaunch,
}

impl Strategy {
    /// Its name: the variant it runs, or the pair it switches between.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::ManyLevelsPerLaunch => "small-frontier and persistent",
            Strategy::GhostZones => "ghost-zones",
            Strategy::HierarchySweep => "hierarchy-sweep",
            Strategy::DirectionOptimizing => "direction-optimizing",
            Strategy::DirectionOptimizingInOneLaunch => "persistent-direction-optimizing",
        }
    }

    /// The preparation it needs before it searches, if any.
    pub fn needs(self) -> Option<PreparationKind> {
        match self {
            Strategy::HierarchySweep => Some(PreparationKind::Hierarchy),
            Strategy::GhostZones => Some(PreparationKind::GhostZones),
            _ => None,
        }
    }
}

/// What a run asks of its search: how many searches, and which
/// preparations its graph's file holds.
#[derive(Clone, Copy, Debug)]
pub struct Workload<'p> {
    /// Searches the run will make on the graph.
    pub searches: usize,
    /// What the graph's file holds prepared.
    pub prepared: &'p Preparations,
}

impl Workload<'_> {
    /// Searches enough to repay any preparation, nothing prepared: what
    /// `Search::new` plans for (the tests, the benchmark's variant rows).
    pub fn many() -> Workload<'static> {
        static NONE: std::sync::OnceLock<Preparations> = std::sync::OnceLock::new();
        Workload {
            searches: usize::MAX,
            prepared: NONE.get_or_init(Preparations::none),
        }
    }
}

/// `auto`'s choice for a graph and a run, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The strategy.
    pub strategy: Strategy,
    /// Why, as a clause of the one line a run prints.
    pub reason: String,
}

/// The strategy for `graph` on `gpu` when the run makes many searches.
pub fn strategy_on(gpu: &Gpu, graph: &Csr) -> Strategy {
    plan(graph, gpu.cooperative_launch(), Workload::many()).strategy
}

/// `auto`'s plan for `graph` on a device that has cooperative launches
/// or not, for `workload`. Road-like graphs (see [`strategy`]):
/// [`Strategy::HierarchySweep`] where the graph keeps at most
/// [`CHAINS_KEPT_SHARE`] of its vertices and at most [`MOST_KEPT_VERTICES`],
/// and the hierarchy is prepared or the searches repay building it;
/// [`Strategy::GhostZones`] for the others, with cooperative launches,
/// where the zones are prepared and the searches repay loading them, or
/// the searches repay building them; else [`Strategy::ManyLevelsPerLaunch`].
/// Other graphs: [`Strategy::DirectionOptimizingInOneLaunch`] with
/// cooperative launches and fewer than [`LEVEL_BY_LEVEL_LEAST_EDGES`] CSR
/// entries, else [`Strategy::DirectionOptimizing`].
pub fn plan(graph: &Csr, cooperative_launch: bool, workload: Workload<'_>) -> Plan {
    let shape = Shape::of(graph);
    let searches = Searches::of(workload.searches);
    let described = shape.describe();
    if !shape.road_like() {
        let edges = graph.edge_count();
        let (strategy, why) = if !cooperative_launch {
            (
                Strategy::DirectionOptimizing,
                "no cooperative launches on this GPU".to_string(),
            )
        } else if edges >= LEVEL_BY_LEVEL_LEAST_EDGES {
            (
                Strategy::DirectionOptimizing,
                format!("{edges} CSR entries, level by level from {LEVEL_BY_LEVEL_LEAST_EDGES}"),
            )
        } else {
            (
                Strategy::DirectionOptimizingInOneLaunch,
                format!("in one launch below {LEVEL_BY_LEVEL_LEAST_EDGES} CSR entries"),
            )
        };
        return Plan {
            strategy,
            reason: format!("not road-like ({described}); {why}"),
        };
    }
    let prepared = |kind| workload.prepared.has(kind);
    let kept = ChainContraction::kept_at_least(graph);
    let share = kept as f64 / graph.vertex_count().max(1) as f64;
    if share <= CHAINS_KEPT_SHARE && kept <= MOST_KEPT_VERTICES {
        let chains = format!(
            "{described}, mostly chains ({:.0}% of vertices kept)",
            100.0 * share
        );
        return weighed(
            (Strategy::HierarchySweep, "contraction hierarchy"),
            prepared(PreparationKind::Hierarchy),
            (
                PREPARED_HIERARCHY_PAYS_FROM_SEARCHES,
                hierarchy_pays_from_searches(kept),
            ),
            &searches,
            &chains,
        );
    }
    if !cooperative_launch {
        return Plan {
            strategy: Strategy::ManyLevelsPerLaunch,
            reason: format!("{described}; no cooperative launches for ghost zones on this GPU"),
        };
    }
    weighed(
        (Strategy::GhostZones, "ghost zones"),
        prepared(PreparationKind::GhostZones),
        (PREPARED_ZONES_PAY_FROM_SEARCHES, ZONES_PAY_FROM_SEARCHES),
        &searches,
        &described,
    )
}

/// A run's searches, in words.
struct Searches {
    count: usize,
    words: String,
    repay: &'static str,
    do_not_repay: &'static str,
}

impl Searches {
    fn of(count: usize) -> Searches {
        let (words, repay, do_not_repay) = match count {
            1 => ("one search".to_string(), "repays", "does not repay"),
            usize::MAX => ("many searches".to_string(), "repay", "do not repay"),
            count => (format!("{count} searches"), "repay", "do not repay"),
        };
        Searches {
            count,
            words,
            repay,
            do_not_repay,
        }
    }
}

/// `strategy`, which needs `what` before it searches, where the file holds
/// it `prepared` and the searches repay loading it (from the first
/// threshold), or they repay building it (from the second); else the
/// levels without preparation. `described` opens the reason.
fn weighed(
    (strategy, what): (Strategy, &str),
    prepared: bool,
    (loading_pays, building_pays): (usize, usize),
    searches: &Searches,
    described: &str,
) -> Plan {
    let (count, words) = (searches.count, &searches.words);
    let (chosen, why, verb) = if prepared && count >= loading_pays {
        (
            strategy,
            format!("loading the file's {what} (from {loading_pays})"),
            searches.repay,
        )
    } else if count >= building_pays {
        (
            strategy,
            format!("building its {what} (from {building_pays})"),
            searches.repay,
        )
    } else if prepared {
        let why = format!("loading the file's {what} (from {loading_pays})");
        (Strategy::ManyLevelsPerLaunch, why, searches.do_not_repay)
    } else {
        let why = format!("building its {what} (from {building_pays}; `bfs prepare` stores it)");
        (Strategy::ManyLevelsPerLaunch, why, searches.do_not_repay)
    };
    Plan {
        strategy: chosen,
        reason: format!("{described}; {words} {verb} {why}"),
    }
}

/// The statistics `auto` decides by.
struct Shape {
    average_degree: f64,
    max_degree: u32,
}

impl Shape {
    fn of(graph: &Csr) -> Shape {
        Shape {
            average_degree: graph.edge_count() as f64 / graph.vertex_count().max(1) as f64,
            max_degree: (0..graph.vertex_count())
                .into_par_iter()
                .map(|vertex| graph.degree(vertex))
                .max()
                .unwrap_or(0),
        }
    }

    fn road_like(&self) -> bool {
        self.average_degree <= ROAD_AVERAGE_DEGREE && self.max_degree <= ROAD_MAX_DEGREE
    }

    fn describe(&self) -> String {
        let kind = if self.road_like() { "road-like: " } else { "" };
        format!(
            "{kind}average degree {:.1}, largest {}",
            self.average_degree, self.max_degree
        )
    }
}

/// The strategy for `graph`, from its average and maximum degree alone:
/// [`Strategy::ManyLevelsPerLaunch`] or [`Strategy::DirectionOptimizing`]
/// ([`plan`] refines either for a device and a run).
pub fn strategy(graph: &Csr) -> Strategy {
    match Shape::of(graph).road_like() {
        true => Strategy::ManyLevelsPerLaunch,
        false => Strategy::DirectionOptimizing,
    }
}

/// Device bytes, besides the graph, of the driver [`create`] builds for
/// `strategy` (with `preparation`, where it was built or loaded already).
pub fn workspace_bytes(
    gpu: &Gpu,
    graph: &Csr,
    strategy: Strategy,
    preparation: Option<&Preparation>,
) -> u64 {
    let vertex_count = graph.vertex_count();
    match (strategy, preparation) {
        (Strategy::HierarchySweep, Some(Preparation::Hierarchy(hierarchy))) => {
            super::hierarchy_sweep::hierarchy_bytes(graph, hierarchy)
        }
        (Strategy::HierarchySweep, _) => HierarchySweep::workspace_bytes(gpu, graph),
        (Strategy::GhostZones, _) => GhostZones::workspace_bytes(gpu, graph),
        (Strategy::ManyLevelsPerLaunch, _) if gpu.cooperative_launch() => {
            SmallFrontier::workspace_bytes(gpu, graph)
                + PersistentLevels::workspace_bytes(vertex_count)
        }
        (Strategy::ManyLevelsPerLaunch, _) => SmallFrontier::workspace_bytes(gpu, graph),
        (Strategy::DirectionOptimizingInOneLaunch, _) => {
            PersistentDirectionOptimizing::workspace_bytes(gpu, graph)
        }
        (Strategy::DirectionOptimizing, _) => DirectionOptimizing::workspace_bytes(gpu, graph),
    }
}

/// The driver of `strategy` for `graph`, from `preparation` where it was
/// built or loaded already (else building what it needs).
pub fn create<'g>(
    gpu: &'g Gpu,
    graph: &'g Csr,
    strategy: Strategy,
    preparation: Option<Preparation>,
) -> Result<Box<dyn GpuBfs + 'g>> {
    Ok(match (strategy, preparation) {
        (Strategy::GhostZones, preparation) => {
            let search = match preparation {
                Some(Preparation::GhostZones(zones)) => GhostZones::from_zones(gpu, zones),
                _ => GhostZones::new(gpu, graph),
            };
            match search {
                Ok(search) => Box::new(search),
                // Zones that do not fit (hubs' one-hop zones, or more than
                // 2^32 vertices, edges or image quads in all): level by level.
                Err(Error::Unsupported(_)) => {
                    Box::new(SmallFrontier::with_persistent(gpu, graph.vertex_count())?)
                }
                Err(error) => return Err(error),
            }
        }
        (Strategy::HierarchySweep, Some(Preparation::Hierarchy(hierarchy))) => {
            Box::new(HierarchySweep::from_hierarchy(gpu, graph, hierarchy, None)?)
        }
        (Strategy::HierarchySweep, _) => Box::new(HierarchySweep::new(gpu, graph)?),
        (Strategy::ManyLevelsPerLaunch, _) if gpu.cooperative_launch() => {
            Box::new(SmallFrontier::with_persistent(gpu, graph.vertex_count())?)
        }
        (Strategy::ManyLevelsPerLaunch, _) => Box::new(SmallFrontier::new(gpu, graph)?),
        (Strategy::DirectionOptimizingInOneLaunch, _) => {
            Box::new(PersistentDirectionOptimizing::new(gpu, graph)?)
        }
        (Strategy::DirectionOptimizing, _) => Box::new(DirectionOptimizing::new(gpu, graph)?),
    })
}

/// The `auto` variant's driver: the one its strategy for the graph and
/// device chose, for many searches ([`strategy_on`]).
pub struct Auto<'g>(Box<dyn GpuBfs + 'g>);

impl<'g> Driver<'g> for Auto<'g> {
    /// The chosen strategy's bytes.
    fn workspace_bytes(gpu: &Gpu, graph: &Csr) -> u64 {
        workspace_bytes(gpu, graph, strategy_on(gpu, graph), None)
    }

    /// The chosen strategy's driver.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        create(gpu, graph, strategy_on(gpu, graph), None).map(Auto)
    }
}

impl GpuBfs for Auto<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        self.0.run(graph, request)
    }

    fn device_bytes(&self) -> Option<u64> {
        self.0.device_bytes()
    }
}

/// Builds `kind` for `graph`, its ghost zones holding at most
/// `zone_capacity` vertices ([`super::ghost_zone_capacity`] of a GPU).
pub fn build_preparation(
    graph: &Csr,
    kind: PreparationKind,
    zone_capacity: u32,
) -> Result<Preparation> {
    Ok(match kind {
        PreparationKind::Hierarchy => Preparation::Hierarchy(HierarchySweep::build(graph)?),
        PreparationKind::GhostZones => {
            Preparation::GhostZones(GhostZones::build(graph, zone_capacity)?)
        }
    })
}
