//! The CPU reference: the textbook level-synchronous BFS with two frontiers.
//!
//! Each level scans the current frontier, labels every unvisited neighbour
//! with the next level and its parent, and collects it in the next frontier;
//! then the two are swapped (Cormen et al., *Introduction to Algorithms*,
//! §22.2, by levels). Every GPU result is checked against it.
//! [`parallel_bfs`] is the multi-threaded baseline the benchmarks compare
//! the GPU with.

use crate::{Bfs, Csr, UNREACHED};

/// Breadth-first search from `source` (which must be a vertex of `graph`).
pub fn bfs(graph: &Csr, source: u32) -> Bfs {
    let vertex_count = graph.vertex_count() as usize;
    let mut levels = vec![UNREACHED; vertex_count];
    let mut parents = vec![UNREACHED; vertex_count];
    let mut frontier = vec![source];
    let mut next_frontier = Vec::new();
    levels[source as usize] = 0;
    parents[source as usize] = source;
    let mut level = 0;
    while !frontier.is_empty() {
        level += 1;
        for &vertex in &frontier {
            for &neighbour in graph.neighbours(vertex) {
                if levels[neighbour as usize] == UNREACHED {
                    levels[neighbour as usize] = level;
                    parents[neighbour as usize] = vertex;
                    next_frontier.push(neighbour);
                }
            }
        }
        std::mem::swap(&mut frontier, &mut next_frontier);
        next_frontier.clear();
    }
    Bfs {
        source,
        levels,
        parents: Some(parents),
    }
}

/// Multi-threaded direction-optimizing BFS (Beamer et al. 2012, as gapbs's
/// `DOBFS`, with rayon): top-down levels claim neighbours with a
/// compare-and-swap on the parent; bottom-up levels let every unvisited
/// vertex look for a parent in the frontier bitmap; the α/β rule of
/// [`bfs_kernels::abi`] switches between them. The CPU baseline of the
/// benchmarks. Directed graphs run top-down only (bottom-up needs in-edges).
/// Top-down levels with few edges run on one thread: on high-diameter graphs
/// most levels are small, and waking the thread pool would cost more.
pub fn parallel_bfs(graph: &Csr, source: u32) -> Bfs {
    /// Top-down levels with fewer edges than this run on one thread.
    const SEQUENTIAL_LEVEL_EDGES: u64 = 16_384;

    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

    use bfs_kernels::abi::{DIRECTION_ALPHA, DIRECTION_BETA};
    use rayon::prelude::*;

    let n = graph.vertex_count() as usize;
    let symmetric = graph.is_symmetric();
    let parents: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(UNREACHED)).collect();
    let levels: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(UNREACHED)).collect();
    parents[source as usize].store(source, Relaxed);
    levels[source as usize].store(0, Relaxed);
    let mut frontier = vec![source];
    let mut edges_to_check = graph.edge_count() as u64;
    let mut scout_count = graph.degree(source) as u64;
    let mut level = 0;
    while !frontier.is_empty() {
        if symmetric && scout_count > edges_to_check / DIRECTION_ALPHA {
            let in_frontier: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
            frontier
                .par_iter()
                .for_each(|&vertex| in_frontier[vertex as usize].store(true, Relaxed));
            let mut awake = frontier.len();
            loop {
                let previous = awake;
                let next: Vec<u32> = (0..n as u32)
                    .into_par_iter()
                    .filter(|&vertex| {
                        parents[vertex as usize].load(Relaxed) == UNREACHED
                            && graph
                                .neighbours(vertex)
                                .iter()
                                .find(|&&u| in_frontier[u as usize].load(Relaxed))
                                .is_some_and(|&parent| {
                                    parents[vertex as usize].store(parent, Relaxed);
                                    levels[vertex as usize].store(level + 1, Relaxed);
                                    true
                                })
                    })
                    .collect();
                level += 1;
                awake = next.len();
                in_frontier
                    .par_iter()
                    .for_each(|flag| flag.store(false, Relaxed));
                next.par_iter()
                    .for_each(|&vertex| in_frontier[vertex as usize].store(true, Relaxed));
                frontier = next;
                if awake == 0 || !(awake >= previous || awake as u64 > n as u64 / DIRECTION_BETA) {
                    break;
                }
            }
            scout_count = 1;
        } else {
            edges_to_check = edges_to_check.saturating_sub(scout_count);
            let expand = |vertex: u32| {
                let (parents, levels) = (&parents, &levels);
                graph
                    .neighbours(vertex)
                    .iter()
                    .copied()
                    .filter(move |&neighbour| {
                        parents[neighbour as usize].load(Relaxed) == UNREACHED
                            && parents[neighbour as usize]
                                .compare_exchange(UNREACHED, vertex, Relaxed, Relaxed)
                                .is_ok()
                            && {
                                levels[neighbour as usize].store(level + 1, Relaxed);
                                true
                            }
                    })
            };
            let degree = |vertex: &u32| graph.degree(*vertex) as u64;
            // A small level costs the threads more to start than to do.
            let next: Vec<u32>;
            if scout_count < SEQUENTIAL_LEVEL_EDGES {
                next = frontier.iter().flat_map(|&vertex| expand(vertex)).collect();
                scout_count = next.iter().map(degree).sum();
            } else {
                next = frontier
                    .par_iter()
                    .flat_map_iter(|&vertex| expand(vertex))
                    .collect();
                scout_count = next.par_iter().map(degree).sum();
            }
            frontier = next;
            level += 1;
        }
    }
    Bfs {
        source,
        levels: levels.into_iter().map(AtomicU32::into_inner).collect(),
        parents: Some(parents.into_iter().map(AtomicU32::into_inner).collect()),
    }
}
