//! Renumbering a graph into BFS-grown partitions of consecutive ids.
//!
//! `partitioned`'s kernel gives each block a range of `partition_size`
//! consecutive vertex ids and searches it in shared memory for many levels
//! between grid barriers; a round carries the search across a partition
//! boundary once, so the fewer boundaries a shortest path crosses, the
//! fewer rounds. Partitions here are grown by breadth-first search, the
//! greedy graph growing of Karypis & Kumar ("A Fast and High Quality
//! Multilevel Scheme for Partitioning Irregular Graphs", SIAM J. Sci.
//! Comput. 1998, §4.1): each partition starts at the first vertex not yet
//! taken in one sweep of the whole graph from a far vertex, and takes
//! vertices in BFS order until it is full, so on a road network or a mesh
//! it is a compact patch next to the previous one. Within a partition the
//! ids follow the BFS order too, so neighbours share cache lines.

use rayon::prelude::*;

use crate::graph::{Csr, EdgeOffset, pieces_mut};

/// A renumbering of a graph's vertices and its inverse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Renumbering {
    /// The original id of each new id.
    pub old_ids: Vec<u32>,
    /// The new id of each original id.
    pub new_ids: Vec<u32>,
}

impl Renumbering {
    /// Ids for BFS-grown partitions of `partition_size` vertices (the last
    /// may be smaller): new ids `p * partition_size ..` form partition `p`.
    pub fn grown_partitions(graph: &Csr, partition_size: u32) -> Renumbering {
        let vertex_count = graph.vertex_count() as usize;
        let partition_size = partition_size.max(1) as usize;
        let sweep = breadth_first_sweep(graph, far_vertex(graph));
        let mut new_ids = vec![u32::MAX; vertex_count];
        let mut old_ids = Vec::with_capacity(vertex_count);
        let mut queue = Vec::with_capacity(partition_size);
        let mut unseeded = sweep.iter();
        while old_ids.len() < vertex_count {
            let full = (old_ids.len() + partition_size).min(vertex_count);
            queue.clear();
            let mut head = 0;
            while old_ids.len() < full {
                if head == queue.len() {
                    let seed = *unseeded
                        .find(|&&vertex| new_ids[vertex as usize] == u32::MAX)
                        .expect("a vertex not yet taken while the partitions are not full");
                    take(seed, &mut new_ids, &mut old_ids);
                    queue.push(seed);
                }
                let vertex = queue[head];
                head += 1;
                for &neighbour in graph.neighbours(vertex) {
                    if old_ids.len() < full && new_ids[neighbour as usize] == u32::MAX {
                        take(neighbour, &mut new_ids, &mut old_ids);
                        queue.push(neighbour);
                    }
                }
            }
        }
        Renumbering { old_ids, new_ids }
    }

    /// `graph` with every vertex renamed to its new id; each row sorted
    /// (rows in parallel). Symmetric where `graph` is.
    pub fn apply(&self, graph: &Csr) -> Csr {
        let mut row_offsets: Vec<EdgeOffset> = Vec::with_capacity(self.old_ids.len() + 1);
        row_offsets.push(0);
        let mut total: EdgeOffset = 0;
        row_offsets.extend(self.old_ids.iter().map(|&old| {
            total += graph.degree(old) as EdgeOffset;
            total
        }));
        let mut column_indices = vec![0u32; total as usize];
        let degrees = self.old_ids.iter().map(|&old| graph.degree(old) as usize);
        let rows = pieces_mut(&mut column_indices, degrees);
        (self.old_ids.par_iter().zip(rows))
            .with_min_len(1024)
            .for_each(|(&old, row)| {
                for (slot, &neighbour) in row.iter_mut().zip(graph.neighbours(old)) {
                    *slot = self.new_ids[neighbour as usize];
                }
                row.sort_unstable();
            });
        let renumbered = Csr::from_parts(row_offsets, column_indices)
            .expect("a renumbering of a valid CSR is a valid CSR");
        if let Some(symmetric) = graph.known_symmetric() {
            renumbered.set_symmetric(symmetric);
        }
        renumbered
    }
}

/// Gives `vertex` the next new id.
fn take(vertex: u32, new_ids: &mut [u32], old_ids: &mut Vec<u32>) {
    new_ids[vertex as usize] = old_ids.len() as u32;
    old_ids.push(vertex);
}

/// The last vertex a search from vertex 0 reaches: a far end of its
/// component (one step of the pseudo-peripheral vertex search), where a
/// sweep leaves the fewest open fronts.
fn far_vertex(graph: &Csr) -> u32 {
    let mut order = Vec::new();
    let mut seen = vec![false; graph.vertex_count() as usize];
    if graph.vertex_count() > 0 {
        search_from(graph, 0, &mut seen, &mut order);
    }
    order.last().copied().unwrap_or(0)
}

/// Every vertex in breadth-first order, component after component, from
/// `first` and then from the lowest id not yet reached.
fn breadth_first_sweep(graph: &Csr, first: u32) -> Vec<u32> {
    let vertex_count = graph.vertex_count();
    let mut order = Vec::with_capacity(vertex_count as usize);
    let mut seen = vec![false; vertex_count as usize];
    for start in std::iter::once(first).chain(0..vertex_count) {
        if start < vertex_count && !seen[start as usize] {
            search_from(graph, start, &mut seen, &mut order);
        }
    }
    order
}

/// Appends to `order` the vertices reached from `start` and not yet `seen`,
/// in breadth-first order (`order` serves as the queue).
fn search_from(graph: &Csr, start: u32, seen: &mut [bool], order: &mut Vec<u32>) {
    let mut head = order.len();
    seen[start as usize] = true;
    order.push(start);
    while head < order.len() {
        let vertex = order[head];
        head += 1;
        for &neighbour in graph.neighbours(vertex) {
            if !seen[neighbour as usize] {
                seen[neighbour as usize] = true;
                order.push(neighbour);
            }
        }
    }
}
