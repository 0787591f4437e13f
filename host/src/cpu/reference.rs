//! The CPU reference: the textbook level-synchronous BFS with two frontiers.
//!
//! Each level scans the current frontier, labels every unvisited neighbour
//! with the next level and its parent, and collects it in the next frontier;
//! then the two are swapped (Cormen et al., *Introduction to Algorithms*,
//! §22.2, by levels). Every result, GPU or parallel CPU, is checked
//! against it.

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
