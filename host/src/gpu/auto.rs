//! The `auto` variant: picks the strategy from cheap statistics of the graph.
//!
//! The cost of a search is levels × the cost of one level on high-diameter
//! graphs, and edges examined on low-diameter ones. Average and maximum
//! degree tell the two apart before searching: road networks and meshes
//! have a handful of neighbours per vertex and no hubs: they run
//! `ghost-zones`, 16 levels per grid barrier, which was faster than every
//! other variant on every grid measured (H100, medians: the 100², 300² and
//! 1000² grids with 5% of their edges missing 0.162, 0.451 and 1.737 ms,
//! with an earlier build of `ghost-zones`, against 0.237, 0.772 and 4.135
//! for what `auto` ran before, `small-frontier` and `persistent` by
//! frontier size; the 2048² and 4096² grids 3.11 and 8.93 against
//! `partitioned`'s 9.53 and `persistent`'s 21.20, BENCHMARKS.md);
//! without cooperative launches, or where the zones cannot be built, they
//! run their levels choosing per level by frontier size — one block
//! (`small-frontier`'s kernel) while the frontier is small, the persistent
//! grid (`persistent`'s kernel) while it is large. A road-like graph
//! that is mostly degree-2 chains runs `hierarchy-sweep` instead, up to
//! [`MOST_KEPT_VERTICES`] junctions: a contraction hierarchy over them,
//! swept level by level, its levels a few dozen where the search's are a
//! thousand (Luxembourg: 0.112 ms against `chain-contracted`'s 0.531, which
//! it replaced here; eight Luxembourgs in a row, whose junctions' distances
//! no longer fit shared memory: 0.593 against 8.05). Every other
//! graph gets a direction-optimizing search, which chooses top-down or
//! bottom-up anew at each level from the frontier's size and edges: in one
//! cooperative launch (`persistent-direction-optimizing`) where the device
//! has them and the graph has fewer than [`LEVEL_BY_LEVEL_LEAST_EDGES`]
//! CSR entries, else level by level from the host (`direction-optimizing`).

use super::direction_optimizing::DirectionOptimizing;
use super::ghost_zones::GhostZoneSearch;
use super::hierarchy_sweep::{HierarchySweep, MOST_KEPT_VERTICES};
use super::persistent::PersistentLevels;
use super::persistent_direction_optimizing::PersistentDirectionOptimizing;
use super::small_frontier::SmallFrontier;
use super::{Gpu, GpuBfs};
use crate::graph::chains::ChainContraction;
use crate::{Csr, Error, Result};

/// At most this many neighbours on average ...
pub const ROAD_AVERAGE_DEGREE: f64 = 6.0;
/// ... and at most this many at any vertex make a graph road-like.
pub const ROAD_MAX_DEGREE: u32 = 64;

/// A road-like graph runs `hierarchy-sweep` when it keeps at most this
/// share of its vertices (the rest lie inside chains), and at most
/// [`MOST_KEPT_VERTICES`]. Where more are kept (grids), the hierarchy
/// is mostly an uncontracted core, searched in slow rounds (the 100² grid:
/// 1.18 ms against `auto`'s 0.22).
pub const CHAINS_KEPT_SHARE: f64 = 0.5;

/// CSR entries from which a direction-optimizing search runs level by
/// level from the host, its kernels on full grids, rather than in one
/// cooperative launch of a resident grid: about 100 million. On an H100
/// (64 sources, Graph500 GTEPS, `persistent-direction-optimizing` against
/// `direction-optimizing`, BENCHMARKS.md): Kronecker 20 (31 million
/// entries) 59.2 against 51.7, Kronecker 21 (64 million) 95.1 against
/// 72.1, uniform 2^22 vertices (67 million) 40.1 against 34.7; Kronecker
/// 22 (128 million) 110.6 against 115.2, Kronecker 23 (259 million) 123.7
/// against 169.6, uniform 2^24 vertices (268 million) 39.6 against 44.5.
/// In one launch a level costs a grid barrier, not a launch and a round
/// trip, which pays where levels are short; on large graphs the resident
/// grid's few threads per multiprocessor hide less of each level's memory
/// latency. A threshold between the measured points that cross (67 and
/// 128 million), not a derived one; it was 2^28 until the level-by-level
/// kernels' bottom-up bitmaps and hub chunks got faster.
pub const LEVEL_BY_LEVEL_LEAST_EDGES: u64 = 100_000_000;

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
    /// High diameter, mostly degree-2 chains, junctions that fit one block:
    /// `hierarchy-sweep`'s two sweeps over the junctions' hierarchy.
    HierarchySweep,
    /// Low diameter or hubs: top-down or bottom-up per level, a launch
    /// each, the host choosing (`direction-optimizing`).
    DirectionOptimizing,
    /// The same in one cooperative launch, the device choosing
    /// (`persistent-direction-optimizing`): graphs of fewer than
    /// [`LEVEL_BY_LEVEL_LEAST_EDGES`] CSR entries.
    DirectionOptimizingInOneLaunch,
}

/// The strategy for `graph` on `gpu`: [`strategy`], and for road-like
/// graphs [`Strategy::HierarchySweep`] where it keeps at most
/// `CHAINS_KEPT_SHARE` of the vertices and at most `MOST_KEPT_VERTICES`,
/// else [`Strategy::GhostZones`] where the device has cooperative
/// launches; for the others [`Strategy::DirectionOptimizingInOneLaunch`] where
/// the device has cooperative launches and the graph fewer than
/// [`LEVEL_BY_LEVEL_LEAST_EDGES`] CSR entries.
pub fn strategy_on(gpu: &Gpu, graph: &Csr) -> Strategy {
    match strategy(graph) {
        Strategy::ManyLevelsPerLaunch if mostly_chains(graph) => Strategy::HierarchySweep,
        Strategy::ManyLevelsPerLaunch if gpu.cooperative_launch() => Strategy::GhostZones,
        Strategy::DirectionOptimizing
            if gpu.cooperative_launch() && graph.edge_count() < LEVEL_BY_LEVEL_LEAST_EDGES =>
        {
            Strategy::DirectionOptimizingInOneLaunch
        }
        other => other,
    }
}

/// Whether `graph` keeps at most [`CHAINS_KEPT_SHARE`] of its vertices
/// after contraction, and at most [`MOST_KEPT_VERTICES`].
fn mostly_chains(graph: &Csr) -> bool {
    let kept = ChainContraction::kept_at_least(graph);
    kept as f64 <= CHAINS_KEPT_SHARE * graph.vertex_count() as f64 && kept <= MOST_KEPT_VERTICES
}

/// The strategy for `graph`, from its average and maximum degree alone:
/// [`Strategy::ManyLevelsPerLaunch`] or [`Strategy::DirectionOptimizing`]
/// ([`strategy_on`] refines either for a device).
pub fn strategy(graph: &Csr) -> Strategy {
    let vertices = graph.vertex_count().max(1) as f64;
    let average_degree = graph.edge_count() as f64 / vertices;
    let max_degree = (0..graph.vertex_count())
        .map(|vertex| graph.degree(vertex))
        .max()
        .unwrap_or(0);
    if average_degree <= ROAD_AVERAGE_DEGREE && max_degree <= ROAD_MAX_DEGREE {
        Strategy::ManyLevelsPerLaunch
    } else {
        Strategy::DirectionOptimizing
    }
}

/// Device bytes, besides the graph, of the driver [`new`] builds.
pub fn workspace_bytes(gpu: &Gpu, graph: &Csr) -> u64 {
    let vertex_count = graph.vertex_count();
    match strategy_on(gpu, graph) {
        Strategy::GhostZones => GhostZoneSearch::workspace_bytes(graph),
        Strategy::HierarchySweep => HierarchySweep::workspace_bytes(graph),
        Strategy::ManyLevelsPerLaunch if gpu.cooperative_launch() => {
            SmallFrontier::workspace_bytes(vertex_count)
                + PersistentLevels::workspace_bytes(vertex_count)
        }
        Strategy::ManyLevelsPerLaunch => SmallFrontier::workspace_bytes(vertex_count),
        Strategy::DirectionOptimizingInOneLaunch => {
            PersistentDirectionOptimizing::workspace_bytes(graph)
        }
        Strategy::DirectionOptimizing => DirectionOptimizing::workspace_bytes(graph),
    }
}

/// The driver of the strategy `graph` calls for.
pub fn new<'g>(gpu: &'g Gpu, graph: &'g Csr) -> Result<Box<dyn GpuBfs + 'g>> {
    Ok(match strategy_on(gpu, graph) {
        // Zones that do not fit (hubs' one-hop zones, or more than 2^32
        // vertices, edges or image quads in all): level by level instead.
        Strategy::GhostZones => match GhostZoneSearch::new(gpu, graph) {
            Ok(search) => Box::new(search),
            Err(Error::Unsupported(_)) => {
                Box::new(SmallFrontier::with_persistent(gpu, graph.vertex_count())?)
            }
            Err(error) => return Err(error),
        },
        Strategy::HierarchySweep => Box::new(HierarchySweep::new(gpu, graph)?),
        Strategy::ManyLevelsPerLaunch if gpu.cooperative_launch() => {
            Box::new(SmallFrontier::with_persistent(gpu, graph.vertex_count())?)
        }
        Strategy::ManyLevelsPerLaunch => Box::new(SmallFrontier::new(gpu, graph.vertex_count())?),
        Strategy::DirectionOptimizingInOneLaunch => {
            Box::new(PersistentDirectionOptimizing::new(gpu, graph)?)
        }
        Strategy::DirectionOptimizing => Box::new(DirectionOptimizing::new(gpu, graph)?),
    })
}
