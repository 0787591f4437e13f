//! The CPU's components: union–find over the arcs for weak ones (Tarjan's
//! forest with path halving, the larger root hung under the smaller so a
//! root is its tree's least vertex), and Tarjan's depth-first search for
//! strong ones ("Depth-First Search and Linear Graph Algorithms", 1972),
//! iterative, so that a long path cannot overflow the stack.

use super::Components;
use crate::{Csr, UNREACHED};

/// Weak components: each vertex labelled by its component's least vertex.
pub fn weak_on_cpu(graph: &Csr) -> Components {
    let n = graph.vertex_count();
    let mut parents: Vec<u32> = (0..n).collect();
    let root = |parents: &mut Vec<u32>, mut vertex: u32| {
        while parents[vertex as usize] != vertex {
            let grandparent = parents[parents[vertex as usize] as usize];
            parents[vertex as usize] = grandparent;
            vertex = grandparent;
        }
        vertex
    };
    for tail in 0..n {
        for &head in graph.neighbours(tail) {
            let (a, b) = (root(&mut parents, tail), root(&mut parents, head));
            if a != b {
                parents[a.max(b) as usize] = a.min(b);
            }
        }
    }
    let labels = (0..n).map(|vertex| root(&mut parents, vertex)).collect();
    Components { labels }
}

/// Strong components: each vertex labelled by its component's least
/// vertex.
pub fn strong_on_cpu(graph: &Csr) -> Components {
    let (labels, _) = strong_in_search_order(graph.row_offsets(), graph.column_indices());
    Components { labels }
}

/// Strong components of the graph of rows `offsets` and `columns` (in
/// any order, repeats and self loops allowed): each vertex's label (its
/// component's least vertex), and the labels in the order Tarjan's search
/// finishes the components, roots taken in vertex order and each row in
/// its order (networkx's `strongly_connected_components` yields them so).
pub fn strong_in_search_order(offsets: &[u64], columns: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let n = offsets.len().saturating_sub(1);
    let row = |vertex: u32| {
        &columns[offsets[vertex as usize] as usize..offsets[vertex as usize + 1] as usize]
    };
    // Tarjan's labels: each vertex's order of discovery and the least
    // order it reaches back to on the search's stack.
    let mut order = vec![UNREACHED; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    // The depth-first search's own stack: a vertex and its next arc.
    let mut calls: Vec<(u32, usize)> = Vec::new();
    let mut labels = vec![UNREACHED; n];
    let mut finished = Vec::new();
    let mut discovered = 0u32;
    for root in 0..n as u32 {
        if order[root as usize] != UNREACHED {
            continue;
        }
        calls.push((root, 0));
        while let Some(&(vertex, next)) = calls.last() {
            let v = vertex as usize;
            if next == 0 && order[v] == UNREACHED {
                order[v] = discovered;
                low[v] = discovered;
                discovered += 1;
                stack.push(vertex);
                on_stack[v] = true;
            }
            if let Some(&head) = row(vertex).get(next) {
                if let Some(call) = calls.last_mut() {
                    call.1 += 1;
                }
                let h = head as usize;
                if order[h] == UNREACHED {
                    calls.push((head, 0));
                } else if on_stack[h] {
                    low[v] = low[v].min(order[h]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent as usize] = low[parent as usize].min(low[v]);
            }
            if low[v] == order[v] {
                let first = stack
                    .iter()
                    .rposition(|&member| member == vertex)
                    .expect("a component's root is on the stack");
                let members = stack.split_off(first);
                let least = members.iter().copied().min().unwrap_or(vertex);
                for member in members {
                    on_stack[member as usize] = false;
                    labels[member as usize] = least;
                }
                finished.push(least);
            }
        }
    }
    (labels, finished)
}
