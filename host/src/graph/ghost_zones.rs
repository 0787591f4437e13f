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

use bfs_kernels::abi::ghost_zones;
use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use crate::graph::reorder::Renumbering;
use crate::graph::{Csr, pieces_mut};

/// Most vertices a zone may have: its local indices are 16 bits.
pub const MOST_ZONE_VERTICES: u32 = 1 << 16;

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

/// One zone, built on its own: its vertices, rows and local neighbours.
struct Zone {
    ids: Vec<u32>,
    rows: Vec<u32>,
    columns: Vec<u16>,
}

/// A graph renumbered into BFS-grown partitions, ready to give them zones
/// of any depth.
pub struct GrownPartitions {
    renumbering: Renumbering,
    renumbered: Csr,
    reversed: Option<Csr>,
    partition_size: u32,
}

impl GrownPartitions {
    /// `graph`'s BFS-grown partitions of `partition_size` vertices.
    pub fn new(graph: &Csr, partition_size: u32) -> GrownPartitions {
        let partition_size = partition_size.max(1);
        let renumbering = Renumbering::grown_partitions(graph, partition_size);
        let renumbered = renumbering.apply(graph);
        GrownPartitions {
            reversed: reversed(&renumbered),
            renumbering,
            renumbered,
            partition_size,
        }
    }

    /// The partitions' zones, `hops` hops deep; `None` if a zone has more
    /// than `most_vertices` vertices (at most [`MOST_ZONE_VERTICES`]) or
    /// the zones more than 2^32 vertices or edges in all.
    pub fn zones(&self, hops: u32, most_vertices: u32) -> Option<GhostZones> {
        let GrownPartitions {
            renumbering,
            renumbered,
            reversed,
            partition_size,
        } = self;
        let partition_size = *partition_size;
        let most_vertices = most_vertices.min(MOST_ZONE_VERTICES);
        let vertex_count = renumbered.vertex_count();
        let partitions: Vec<u32> = (0..vertex_count.div_ceil(partition_size)).collect();
        // A few runs of partitions a thread, each with one map from new ids
        // to local indices (`n` words: too many to fill for each zone).
        let run = partitions
            .len()
            .div_ceil(4 * rayon::current_num_threads())
            .max(1);
        let zones: Vec<Zone> = partitions
            .par_chunks(run)
            .map(|run| {
                let mut local = vec![u32::MAX; vertex_count as usize];
                run.iter()
                    .map(|&partition| {
                        let first = partition * partition_size;
                        let end = (first + partition_size).min(vertex_count);
                        zone(
                            (renumbered, reversed.as_ref().unwrap_or(renumbered)),
                            first..end,
                            hops,
                            (&mut local, most_vertices),
                        )
                    })
                    .collect::<Option<Vec<Zone>>>()
            })
            .collect::<Option<Vec<Vec<Zone>>>>()?
            .into_iter()
            .flatten()
            .collect();
        let total_vertices: usize = zones.iter().map(|zone| zone.ids.len()).sum();
        let total_edges: usize = zones.iter().map(|zone| zone.columns.len()).sum();
        if total_vertices >= u32::MAX as usize || total_edges >= u32::MAX as usize {
            return None;
        }
        // Each zone's place in the concatenated arrays, then every zone
        // copied to its place on its own.
        let mut zone_starts = Vec::with_capacity(zones.len() + 1);
        let mut edge_starts = Vec::with_capacity(zones.len() + 1);
        let (mut vertices, mut edges) = (0u32, 0u32);
        for zone in &zones {
            zone_starts.push(vertices);
            edge_starts.push(edges);
            vertices += zone.ids.len() as u32;
            edges += zone.columns.len() as u32;
        }
        zone_starts.push(vertices);
        edge_starts.push(edges);
        let mut local_ids = vec![0u32; total_vertices];
        let mut local_rows = vec![0u32; total_vertices + 1];
        let mut local_columns = vec![0u16; total_edges];
        let vertex_counts = || zones.iter().map(|zone| zone.ids.len());
        let ids = pieces_mut(&mut local_ids, vertex_counts());
        let rows = pieces_mut(&mut local_rows[..total_vertices], vertex_counts());
        let columns = pieces_mut(
            &mut local_columns,
            zones.iter().map(|zone| zone.columns.len()),
        );
        ids.into_par_iter()
            .zip(rows)
            .zip(columns)
            .zip(&zones)
            .zip(&edge_starts)
            .for_each(|((((ids, rows), columns), zone), &edge_base)| {
                ids.copy_from_slice(&zone.ids);
                for (row, &local) in rows.iter_mut().zip(&zone.rows) {
                    *row = edge_base + local;
                }
                columns.copy_from_slice(&zone.columns);
            });
        local_rows[total_vertices] = total_edges as u32;
        let (ghost_of_rows, ghost_of) = ghost_lists(&zones, partition_size, vertex_count);
        Some(GhostZones {
            renumbering: renumbering.clone(),
            partition_size,
            hops,
            zone_starts,
            local_ids,
            local_rows,
            local_columns,
            ghost_of_rows,
            ghost_of,
        })
    }
}

/// For each vertex, the zones that hold it as a ghost, in zone order: the
/// lists' starts (one per vertex, plus one) and the lists. Counted and
/// filled on every core, each list then sorted.
fn ghost_lists(zones: &[Zone], partition_size: u32, vertex_count: u32) -> (Vec<u32>, Vec<u32>) {
    let ghosts = |index: usize| {
        let interior = interior_size(index as u32, partition_size, vertex_count) as usize;
        &zones[index].ids[interior..]
    };
    let counters = || -> Vec<AtomicU32> {
        (0..=vertex_count)
            .into_par_iter()
            .map(|_| AtomicU32::new(0))
            .collect()
    };
    let counts = counters();
    (0..zones.len()).into_par_iter().for_each(|index| {
        for &ghost in ghosts(index) {
            counts[ghost as usize + 1].fetch_add(1, Ordering::Relaxed);
        }
    });
    let mut ghost_of_rows: Vec<u32> = counts.into_iter().map(AtomicU32::into_inner).collect();
    for vertex in 0..vertex_count as usize {
        ghost_of_rows[vertex + 1] += ghost_of_rows[vertex];
    }
    let ghost_of: Vec<AtomicU32> = (0..*ghost_of_rows.last().unwrap_or(&0))
        .into_par_iter()
        .map(|_| AtomicU32::new(0))
        .collect();
    let taken = counters();
    (0..zones.len()).into_par_iter().for_each(|index| {
        for &ghost in ghosts(index) {
            let slot = ghost_of_rows[ghost as usize]
                + taken[ghost as usize].fetch_add(1, Ordering::Relaxed);
            ghost_of[slot as usize].store(index as u32, Ordering::Relaxed);
        }
    });
    let mut ghost_of: Vec<u32> = ghost_of.into_iter().map(AtomicU32::into_inner).collect();
    let lengths = ghost_of_rows
        .windows(2)
        .map(|pair| (pair[1] - pair[0]) as usize);
    pieces_mut(&mut ghost_of, lengths)
        .into_par_iter()
        .with_min_len(4096)
        .for_each(|list| list.sort_unstable());
    (ghost_of_rows, ghost_of)
}

impl GhostZones {
    /// The zones of `graph`'s BFS-grown partitions of `partition_size`
    /// vertices, `hops` hops deep, as [`GrownPartitions::zones`] gives them.
    pub fn build(
        graph: &Csr,
        partition_size: u32,
        hops: u32,
        most_vertices: u32,
    ) -> Option<GhostZones> {
        GrownPartitions::new(graph, partition_size).zones(hops, most_vertices)
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

/// Ghost zones as `ghost-zones`' kernel reads them: each zone's record and
/// its *image* (its rows, its ghosts' ids and its neighbours, laid out as a
/// block's shared memory holds them: [`ghost_zones::GhostZoneImage`]), and for each
/// vertex the zones that hold it as a ghost. What the device holds, and
/// what `bfs prepare` stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneImages {
    /// The renumbering into partitions; every id below is a new id.
    pub renumbering: Renumbering,
    /// Vertices per partition (the last may have fewer).
    pub partition_size: u32,
    /// Hops from its partition a zone reaches.
    pub hops: u32,
    /// Vertices of the largest zone.
    pub most_zone_vertices: u32,
    /// Each zone's record, four words ([`ghost_zones::GhostZoneRecord::words`]).
    pub records: Vec<u32>,
    /// The images, one after the other, each on a quad (4 words).
    pub images: Vec<u32>,
    /// Where each vertex's list in `ghost_of` starts, and its end.
    pub ghost_of_rows: Vec<u32>,
    /// For each vertex, the zones that hold it as a ghost.
    pub ghost_of: Vec<u32>,
}

impl ZoneImages {
    /// The images of `zones`, laid out on every core; `None` if they take
    /// more than 2^32 quads.
    pub fn of(zones: GhostZones) -> Option<ZoneImages> {
        let interior_sizes = zones.interior_sizes();
        let layouts: Vec<(ghost_zones::GhostZoneImage, u32, u32)> = zones
            .zone_starts
            .par_windows(2)
            .zip(&interior_sizes)
            .map(|(pair, &interior)| {
                let (start, end) = (pair[0] as usize, pair[1] as usize);
                let edges = zones.local_rows[end] - zones.local_rows[start];
                let vertices = (end - start) as u32;
                (
                    ghost_zones::GhostZoneImage::new(vertices, interior, edges),
                    vertices,
                    interior,
                )
            })
            .collect();
        let mut records = Vec::with_capacity(4 * layouts.len());
        let mut quads: u64 = 0;
        for (zone, (layout, vertices, _)) in layouts.iter().enumerate() {
            let record = ghost_zones::GhostZoneRecord {
                zone: zone as u32,
                first_quad: u32::try_from(quads).ok()?,
                quads: layout.words() / 4,
                vertices: *vertices,
            };
            records.extend(record.words());
            quads += u64::from(layout.words() / 4);
        }
        let words = usize::try_from(4 * quads)
            .ok()
            .filter(|_| quads <= u32::MAX as u64)?;
        let mut images = vec![0u32; words];
        let lengths = layouts.iter().map(|(layout, _, _)| layout.words() as usize);
        pieces_mut(&mut images, lengths)
            .into_par_iter()
            .zip(zones.zone_starts.par_windows(2))
            .zip(&layouts)
            .for_each(|((image, pair), (layout, _, interior))| {
                let (start, end) = (pair[0] as usize, pair[1] as usize);
                let first_edge = zones.local_rows[start];
                let rows = &zones.local_rows[start..=end];
                for (word, row) in image.iter_mut().zip(rows) {
                    *word = row - first_edge;
                }
                let ghosts = &zones.local_ids[start + *interior as usize..end];
                image[layout.rows as usize..][..ghosts.len()].copy_from_slice(ghosts);
                let columns =
                    &zones.local_columns[first_edge as usize..zones.local_rows[end] as usize];
                for (word, pair) in image[layout.columns_start() as usize..]
                    .iter_mut()
                    .zip(columns.chunks(2))
                {
                    *word = pair[0] as u32 | (pair.get(1).copied().unwrap_or(0) as u32) << 16;
                }
            });
        Some(ZoneImages {
            most_zone_vertices: zones.most_zone_vertices(),
            renumbering: zones.renumbering,
            partition_size: zones.partition_size,
            hops: zones.hops,
            records,
            images,
            ghost_of_rows: zones.ghost_of_rows,
            ghost_of: zones.ghost_of,
        })
    }

    /// How many zones (partitions) there are.
    pub fn zone_count(&self) -> u32 {
        (self.records.len() / 4) as u32
    }

    /// Vertices of the graph.
    pub fn vertex_count(&self) -> u32 {
        self.renumbering.old_ids.len() as u32
    }

    /// Zone `zone`'s record.
    pub fn record(&self, zone: u32) -> ghost_zones::GhostZoneRecord {
        let at = 4 * zone as usize;
        ghost_zones::GhostZoneRecord::from_words(
            self.records[at..at + 4].try_into().expect("4 words"),
        )
    }

    /// Each partition's own vertices, which a search's first step counts
    /// as unvisited.
    pub fn interior_sizes(&self) -> Vec<u32> {
        let vertex_count = self.vertex_count();
        (0..self.zone_count())
            .map(|zone| interior_size(zone, self.partition_size, vertex_count))
            .collect()
    }
}

/// Vertices of partition `partition`.
fn interior_size(partition: u32, partition_size: u32, vertex_count: u32) -> u32 {
    partition_size.min(vertex_count - partition * partition_size)
}

/// The zone of partition `interior` (its new ids): a search outwards over
/// `reversed` edges, `hops` rounds, for the vertices that reach it, then
/// the edges of `graph` between them. `local` maps a new id to its local
/// index (`u32::MAX` elsewhere) and is left so. `None` past `most_vertices`.
fn zone(
    (graph, reversed): (&Csr, &Csr),
    interior: std::ops::Range<u32>,
    hops: u32,
    (local, most_vertices): (&mut [u32], u32),
) -> Option<Zone> {
    let mut ids: Vec<u32> = interior.collect();
    for (index, &vertex) in ids.iter().enumerate() {
        local[vertex as usize] = index as u32;
    }
    let mut ring = 0..ids.len();
    for _ in 0..hops {
        for at in ring.clone() {
            for &neighbour in reversed.neighbours(ids[at]) {
                if local[neighbour as usize] == u32::MAX {
                    local[neighbour as usize] = ids.len() as u32;
                    ids.push(neighbour);
                }
            }
        }
        ring = ring.end..ids.len();
        if ids.len() > most_vertices as usize {
            break;
        }
    }
    let adjacency = (ids.len() <= most_vertices as usize).then(|| {
        let mut rows = Vec::with_capacity(ids.len() + 1);
        let mut columns = Vec::new();
        for &vertex in &ids {
            rows.push(columns.len() as u32);
            columns.extend(
                graph
                    .neighbours(vertex)
                    .iter()
                    .map(|&neighbour| local[neighbour as usize])
                    .filter(|&index| index != u32::MAX)
                    .map(|index| index as u16),
            );
        }
        rows.push(columns.len() as u32);
        (rows, columns)
    });
    for &vertex in &ids {
        local[vertex as usize] = u32::MAX;
    }
    adjacency.map(|(rows, columns)| Zone { ids, rows, columns })
}

/// `graph` with every edge reversed, or `None` when it is symmetric (the
/// graph is its own reverse).
fn reversed(graph: &Csr) -> Option<Csr> {
    if graph.is_symmetric() {
        return None;
    }
    let edges: Vec<(u32, u32)> = (0..graph.vertex_count())
        .flat_map(|tail| graph.neighbours(tail).iter().map(move |&head| (head, tail)))
        .collect();
    Some(
        Csr::from_edges(graph.vertex_count(), &edges, false)
            .expect("the reverse of a valid CSR is a valid CSR"),
    )
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
        let zones = GhostZones::build(graph, partition_size, hops, MOST_ZONE_VERTICES).unwrap();
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
    fn a_zone_past_its_bound_is_refused() {
        let grid = generated("grid:20x20:0");
        assert!(GhostZones::build(&grid, 32, 4, 40).is_none());
        assert!(GhostZones::build(&grid, 32, 4, 400).is_some());
    }
}
