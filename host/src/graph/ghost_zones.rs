//! Partitions with ghost zones: each BFS-grown partition together with
//! every vertex that reaches it within `hops` edges.
//!
//! A search that advances `hops` levels at a time needs, to advance a
//! partition's vertices exactly, only the vertices of its *zone*: a
//! shortest path to a vertex `hops` levels past the frontier starts at most
//! `hops` edges away from it. So a block that holds the zone can run those
//! levels on its own, and the blocks meet once every `hops` levels instead
//! of every level: the *ghost zones* of iterative stencil codes on GPUs,
//! which trade computation repeated in the overlap for fewer global
//! synchronisations (Meng & Skadron, "Performance Modeling and Automatic
//! Ghost Zone Optimization for Iterative Stencil Loops on GPUs", ICS 2009),
//! here over a graph's partitions (`graph::reorder`) instead of a grid's
//! tiles.
//!
//! Each zone lists its vertices in local indices: the partition's own
//! first, in id order, then the ghosts. Its adjacency keeps only the edges
//! between its vertices, as local indices of 16 bits. For each vertex the
//! zones that hold it as a ghost are listed too: those are the zones its
//! level can reach within `hops` levels.
//!
//! Zones are bounded before they are built ([`ZoneLimits`]): each stops
//! growing at the vertices a block holds, and the zones of a shape at a
//! few times the graph's vertices and edges in all.
//!
//! `grown_partitions.rs` grows the partitions and finds their zones;
//! `images.rs` lays each zone out as the device reads it.

mod grown_partitions;
mod images;

pub use grown_partitions::GrownPartitions;
pub use images::ZoneImages;

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use crate::graph::Csr;
use crate::graph::reorder::Renumbering;

/// Most vertices a zone may have: its local indices are 16 bits.
pub const MOST_ZONE_VERTICES: u32 = 1 << 16;

/// Times a graph's vertices, and its CSR entries, that the zones of one
/// shape may hold in all, vertices and edges: what `ghost-zones` reserves
/// on the device before it builds them. The zones a road network or a
/// grid runs with hold two to three times; deep zones of small
/// partitions hold ten to thirty, and are not built (docs/decisions.md,
/// "Preparation budgets").
pub const ZONE_GROWTH: u64 = 4;

/// Vertices, and edges, that any graph's zones may hold in all, however
/// small the graph: a fraction of a second to build, and room for the
/// shallow zones of small partitions that a small scale-free graph needs
/// (docs/decisions.md, "Preparation budgets").
pub const LEAST_ZONE_ENTRIES: u64 = 1 << 24;

/// What building the zones of one shape may take: the vertices of each
/// zone, and the vertices and edges of all of them. A zone stops growing
/// as it passes its bound, and the zones as they pass theirs, so zones
/// that would not fit cost no more than those that do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneLimits {
    /// Most vertices a zone may have (at most [`MOST_ZONE_VERTICES`]).
    pub zone_vertices: u32,
    /// Most vertices the zones may have in all.
    pub vertices: u64,
    /// Most edges the zones may have in all.
    pub edges: u64,
}

impl ZoneLimits {
    /// Zones of at most `zone_vertices` each, as many in all as 32-bit
    /// offsets count (a shape asked for).
    pub fn each(zone_vertices: u32) -> ZoneLimits {
        ZoneLimits {
            zone_vertices,
            vertices: u32::MAX as u64 - 1,
            edges: u32::MAX as u64 - 1,
        }
    }

    /// Zones of at most `zone_vertices` each, and in all [`ZONE_GROWTH`]
    /// times `graph`'s vertices and CSR entries (at least
    /// [`LEAST_ZONE_ENTRIES`]).
    pub fn budget(graph: &Csr, zone_vertices: u32) -> ZoneLimits {
        let bound = |count: u64| (ZONE_GROWTH * count).max(LEAST_ZONE_ENTRIES);
        ZoneLimits {
            zone_vertices,
            vertices: bound(graph.vertex_count() as u64),
            edges: bound(graph.edge_count()),
        }
    }
}

/// The vertex with the most in-neighbours, and how many (its degree, in
/// a symmetric graph): the zone of its partition holds each of them
/// however shallow, so no zone smaller than that fits it.
pub fn most_in_neighbours(graph: &Csr) -> (u32, u32) {
    let vertices = 0..graph.vertex_count();
    let most = |counts: &(dyn Fn(u32) -> u32 + Sync)| {
        (vertices.clone().into_par_iter())
            .map(|vertex| (counts(vertex), vertex))
            .max()
            .map_or((0, 0), |(count, vertex)| (vertex, count))
    };
    if graph.is_symmetric() {
        return most(&|vertex| graph.degree(vertex));
    }
    let counts: Vec<AtomicU32> = vertices.clone().map(|_| AtomicU32::new(0)).collect();
    graph.column_indices().par_iter().for_each(|&head| {
        counts[head as usize].fetch_add(1, Ordering::Relaxed);
    });
    most(&|vertex| counts[vertex as usize].load(Ordering::Relaxed))
}

/// A graph renumbered into partitions of `partition_size` consecutive ids,
/// each with its zone of `hops` hops, in concatenated arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GhostZones {
    /// The renumbering into partitions; every id below is a new id.
    pub renumbering: Renumbering,
    /// Vertices per partition (the last may have fewer).
    pub partition_size: u32,
    /// Hops from its partition a zone reaches.
    pub hops: u32,
    /// Where each zone's vertices start in `local_ids`, and their end: one
    /// entry per zone, plus one.
    pub zone_starts: Vec<u32>,
    /// Each zone's vertices (new ids): its partition's, then its ghosts.
    pub local_ids: Vec<u32>,
    /// Where each zone vertex's edges start in `local_columns`, and their
    /// end: one entry per zone vertex, plus one.
    pub local_rows: Vec<u32>,
    /// Each zone vertex's neighbours inside its zone, as local indices.
    pub local_columns: Vec<u16>,
    /// Where each vertex's list in `ghost_of` starts, and its end: one
    /// entry per vertex, plus one.
    pub ghost_of_rows: Vec<u32>,
    /// For each vertex, the zones that hold it as a ghost.
    pub ghost_of: Vec<u32>,
}

impl GhostZones {
    /// The zones of `graph`'s BFS-grown partitions of `partition_size`
    /// vertices, `hops` hops deep, as [`GrownPartitions::zones`] gives them
    /// within `limits`.
    pub fn build(
        graph: &Csr,
        partition_size: u32,
        hops: u32,
        limits: ZoneLimits,
    ) -> Option<GhostZones> {
        GrownPartitions::new(graph, partition_size).zones(hops, limits)
    }

    /// How many zones (partitions) there are.
    pub fn zone_count(&self) -> u32 {
        self.zone_starts.len() as u32 - 1
    }

    /// Vertices of the largest zone.
    pub fn most_zone_vertices(&self) -> u32 {
        self.zone_starts
            .windows(2)
            .map(|pair| pair[1] - pair[0])
            .max()
            .unwrap_or(0)
    }

    /// Each partition's own vertices, which a search's first step counts
    /// as unvisited.
    pub fn interior_sizes(&self) -> Vec<u32> {
        let vertex_count = self.renumbering.old_ids.len() as u32;
        (0..self.zone_count())
            .map(|zone| interior_size(zone, self.partition_size, vertex_count))
            .collect()
    }
}

/// Vertices of partition `partition`.
fn interior_size(partition: u32, partition_size: u32, vertex_count: u32) -> u32 {
    partition_size.min(vertex_count - partition * partition_size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu;
    use crate::graph::generate::Spec;

    fn generated(spec: &str) -> Csr {
        spec.parse::<Spec>().unwrap().generate().unwrap()
    }

    /// Every zone holds exactly the vertices within `hops` of its
    /// partition, found by a search from each, and each vertex's
    /// `ghost_of` lists exactly the zones that hold it as a ghost.
    fn check(graph: &Csr, partition_size: u32, hops: u32) {
        let limits = ZoneLimits::each(MOST_ZONE_VERTICES);
        let zones = GhostZones::build(graph, partition_size, hops, limits).unwrap();
        let renumbered = zones.renumbering.apply(graph);
        let vertex_count = renumbered.vertex_count();
        let mut holders = vec![Vec::new(); vertex_count as usize];
        for zone in 0..zones.zone_count() {
            let (start, end) = (
                zones.zone_starts[zone as usize] as usize,
                zones.zone_starts[zone as usize + 1] as usize,
            );
            let ids = &zones.local_ids[start..end];
            let interior = interior_size(zone, partition_size, vertex_count) as usize;
            let first = zone * partition_size;
            assert!(
                ids[..interior]
                    .iter()
                    .copied()
                    .eq(first..first + interior as u32)
            );
            let mut expected: Vec<u32> = (0..vertex_count)
                .filter(|&vertex| {
                    let levels = cpu::bfs(&renumbered, vertex).levels;
                    (first..first + interior as u32).any(|inside| levels[inside as usize] <= hops)
                })
                .collect();
            let mut found = ids.to_vec();
            found.sort_unstable();
            expected.sort_unstable();
            assert_eq!(found, expected, "zone {zone}");
            for (index, &vertex) in ids.iter().enumerate() {
                let row = zones.local_rows[start + index] as usize
                    ..zones.local_rows[start + index + 1] as usize;
                let mut neighbours: Vec<u32> = zones.local_columns[row]
                    .iter()
                    .map(|&local| ids[local as usize])
                    .collect();
                neighbours.sort_unstable();
                let inside: Vec<u32> = renumbered
                    .neighbours(vertex)
                    .iter()
                    .copied()
                    .filter(|neighbour| ids.contains(neighbour))
                    .collect();
                assert_eq!(neighbours, inside, "zone {zone}, vertex {vertex}");
                if index >= interior {
                    holders[vertex as usize].push(zone);
                }
            }
        }
        for (vertex, holders) in holders.iter().enumerate() {
            let listed =
                zones.ghost_of_rows[vertex] as usize..zones.ghost_of_rows[vertex + 1] as usize;
            assert_eq!(zones.ghost_of[listed], holders[..], "vertex {vertex}");
        }
    }

    #[test]
    fn zones_hold_every_vertex_within_their_hops() {
        let grid = generated("grid:12x12:0.1");
        check(&grid, 32, 3);
        check(&grid, 64, 1);
        let directed = Csr::from_edges(
            8,
            &[
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 4),
                (4, 5),
                (5, 6),
                (6, 7),
                (7, 0),
                (2, 6),
            ],
            false,
        )
        .unwrap();
        check(&directed, 3, 2);
    }

    #[test]
    fn the_vertex_of_most_in_neighbours_is_found_either_way() {
        assert_eq!(most_in_neighbours(&generated("star:50")), (0, 49));
        // Every vertex points at 3; 3 points at 0.
        let edges: Vec<(u32, u32)> = (0..6).filter(|&v| v != 3).map(|v| (v, 3)).collect();
        let directed = Csr::from_edges(6, &[edges, vec![(3, 0)]].concat(), false).unwrap();
        assert_eq!(most_in_neighbours(&directed), (3, 5));
        assert_eq!(
            most_in_neighbours(&Csr::from_edges(0, &[], true).unwrap()),
            (0, 0)
        );
    }

    #[test]
    fn zones_past_their_bound_in_all_are_refused() {
        let grid = generated("grid:40x40:0");
        let each = ZoneLimits::each(MOST_ZONE_VERTICES);
        let zones = GhostZones::build(&grid, 32, 4, each).unwrap();
        let (vertices, edges) = (
            zones.local_ids.len() as u64,
            zones.local_columns.len() as u64,
        );
        let within = |vertices, edges| {
            let limits = ZoneLimits {
                vertices,
                edges,
                ..each
            };
            GhostZones::build(&grid, 32, 4, limits).is_some()
        };
        assert!(within(vertices, edges));
        assert!(!within(vertices - 1, edges));
        assert!(!within(vertices, edges - 1));
    }

    #[test]
    fn the_budget_is_a_few_times_the_graph_from_its_floor() {
        let small = generated("path:1000");
        let limits = ZoneLimits::budget(&small, 100);
        assert_eq!(
            (limits.zone_vertices, limits.vertices, limits.edges),
            (100, LEAST_ZONE_ENTRIES, LEAST_ZONE_ENTRIES)
        );
        // Four times 2100² vertices pass the floor.
        let large = generated("grid:2100x2100");
        let limits = ZoneLimits::budget(&large, 100);
        assert_eq!(
            (limits.vertices, limits.edges),
            (ZONE_GROWTH * 2100 * 2100, ZONE_GROWTH * large.edge_count())
        );
    }

    #[test]
    fn a_zone_past_its_bound_is_refused() {
        let grid = generated("grid:20x20:0");
        assert!(GhostZones::build(&grid, 32, 4, ZoneLimits::each(40)).is_none());
        assert!(GhostZones::build(&grid, 32, 4, ZoneLimits::each(400)).is_some());
    }
}
