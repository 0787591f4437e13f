//! BFS-grown partitions and their zones: each zone found by a search of
//! `hops` rounds over reversed edges from its partition, its edges kept
//! in local indices, and for each vertex the zones that hold it as a ghost
//! (Meng and Skadron's ghost zones, over a graph: see the module's summary).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::{GhostZones, MOST_ZONE_VERTICES, ZoneLimits, interior_size};
use crate::graph::reorder::Renumbering;
use crate::graph::{Csr, pieces_mut};

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
            reversed: renumbered.reversed(),
            renumbering,
            renumbered,
            partition_size,
        }
    }

    /// The partitions' zones, `hops` hops deep; `None`, as soon as it is
    /// known, if a zone has more vertices than `limits` allow a zone (at
    /// most [`MOST_ZONE_VERTICES`]), or the zones more vertices or edges
    /// in all than they allow (at most 2^32).
    pub fn zones(&self, hops: u32, limits: ZoneLimits) -> Option<GhostZones> {
        let GrownPartitions {
            renumbering,
            renumbered,
            reversed,
            partition_size,
        } = self;
        let partition_size = *partition_size;
        let most_vertices = limits.zone_vertices.min(MOST_ZONE_VERTICES);
        // The zones' vertices and edges so far: past the limits, every
        // thread gives up at its next zone.
        let (held_vertices, held_edges) = (AtomicU64::new(0), AtomicU64::new(0));
        let within_limits = |zone: &Zone| {
            let hold = |held: &AtomicU64, count: usize| {
                held.fetch_add(count as u64, Ordering::Relaxed) + count as u64
            };
            hold(&held_vertices, zone.ids.len()) <= limits.vertices.min(u32::MAX as u64 - 1)
                && hold(&held_edges, zone.columns.len()) <= limits.edges.min(u32::MAX as u64 - 1)
        };
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
                        .filter(within_limits)
                    })
                    .collect::<Option<Vec<Zone>>>()
            })
            .collect::<Option<Vec<Vec<Zone>>>>()?
            .into_iter()
            .flatten()
            .collect();
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
        let (total_vertices, total_edges) = (vertices as usize, edges as usize);
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

/// The zone of partition `interior` (its new ids): a search outwards over
/// `reversed` edges, `hops` rounds, for the vertices that reach it, then
/// the edges of `graph` between them. `local` maps a new id to its local
/// index (`u32::MAX` elsewhere) and is left so. `None` past `most_vertices`,
/// found as the zone passes them (a round through a hub would add all its
/// neighbours).
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
    'rounds: for _ in 0..hops {
        for at in ring.clone() {
            for &neighbour in reversed.neighbours(ids[at]) {
                if local[neighbour as usize] == u32::MAX {
                    local[neighbour as usize] = ids.len() as u32;
                    ids.push(neighbour);
                    if ids.len() > most_vertices as usize {
                        break 'rounds;
                    }
                }
            }
        }
        ring = ring.end..ids.len();
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
