//! 1D partitioning: each GPU owns a range of consecutive vertices and
//! their rows, the ranges chosen so that each holds about the same number
//! of CSR entries (a GPU's work and memory are its edges), and each starts
//! at a multiple of 32, so that a range's bits fill whole bitmap words.

use std::ops::Range;

use crate::Csr;
use crate::graph::EdgeOffset;

/// The vertex ranges of `parts` GPUs over `graph`: consecutive, covering
/// every vertex, each boundary a multiple of 32 (but the last, `n`), of
/// about equal edges. Some are empty when the graph has fewer vertices
/// (or edges) than that.
pub fn edge_balanced(graph: &Csr, parts: u32) -> Vec<Range<u32>> {
    let vertex_count = graph.vertex_count();
    let offsets = graph.row_offsets();
    let edges = graph.edge_count();
    let mut bounds = vec![0u32];
    for part in 1..parts as EdgeOffset {
        let goal = edges * part / parts as EdgeOffset;
        let vertex = offsets.partition_point(|&offset| offset < goal) as u32;
        let aligned = vertex.next_multiple_of(32).min(vertex_count);
        let previous = *bounds.last().expect("starts with 0");
        bounds.push(aligned.max(previous));
    }
    bounds.push(vertex_count);
    bounds.windows(2).map(|pair| pair[0]..pair[1]).collect()
}

/// `graph`'s rows of `owned` alone: `owned.len() + 1` row offsets from
/// the first owned vertex's, rebased to 0 (vertex `v`'s row at `v -
/// owned.start`), and the slice of column indices they index.
pub fn owned_rows<'g>(graph: &'g Csr, owned: &Range<u32>) -> (Vec<EdgeOffset>, &'g [u32]) {
    let offsets = graph.row_offsets();
    let (first, end) = (owned.start as usize, owned.end as usize);
    let base = offsets[first];
    let rows = offsets[first..=end]
        .iter()
        .map(|offset| offset - base)
        .collect();
    (
        rows,
        &graph.column_indices()[base as usize..offsets[end] as usize],
    )
}
