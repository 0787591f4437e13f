//! The CPU reference: the textbook level-synchronous BFS with two frontiers.
//!
//! Each level scans the current frontier, labels every unvisited neighbour
//! with the next level and its parent, and collects it in the next frontier;
//! then the two are swapped (Cormen et al., *Introduction to Algorithms*,
//! §22.2, by levels). Every result, GPU or parallel CPU, is checked
//! against it. It also starts from several seeds at once (their frontier
//! is level 0) and stops at a depth limit.

use crate::{Bfs, Csr, UNREACHED};

/// Breadth-first search from `source` (which must be a vertex of `graph`).
pub fn bfs(graph: &Csr, source: u32) -> Bfs {
    bfs_within(graph, &[source], None)
}

/// Breadth-first search from every one of `seeds` at once (vertices of
/// `graph`, at least one): each vertex's distance to the nearest seed, its
/// parents a forest of a tree a seed (each seed its own parent), the
/// vertices past `depth_limit` left unreached. The result's `source` is
/// the first seed.
pub fn bfs_within(graph: &Csr, seeds: &[u32], depth_limit: Option<u32>) -> Bfs {
    let vertex_count = graph.vertex_count() as usize;
    let mut levels = vec![UNREACHED; vertex_count];
    let mut parents = vec![UNREACHED; vertex_count];
    let mut frontier = Vec::with_capacity(seeds.len());
    for &seed in seeds {
        if levels[seed as usize] == UNREACHED {
            levels[seed as usize] = 0;
            parents[seed as usize] = seed;
            frontier.push(seed);
        }
    }
    let mut next_frontier = Vec::new();
    let mut level = 0;
    while !frontier.is_empty() && depth_limit.is_none_or(|limit| level < limit) {
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
        source: seeds[0],
        levels,
        parents: Some(parents),
    }
}
