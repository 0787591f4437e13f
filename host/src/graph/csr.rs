//! The graph in memory: [`Csr`], its rows and what it knows of itself
//! (symmetry, the input tuples it was built from), checked when made from
//! raw arrays.

use std::sync::OnceLock;

use rayon::prelude::*;

use super::EdgeOffset;
use crate::{Error, Result};

/// A graph in CSR form: the neighbours of `v` are
/// `column_indices[row_offsets[v]..row_offsets[v + 1]]`.
#[derive(Clone, Debug, Eq)]
pub struct Csr {
    pub(super) row_offsets: Vec<EdgeOffset>,
    pub(super) column_indices: Vec<u32>,
    /// [`is_symmetric`](Csr::is_symmetric), once asked: a pass over every edge.
    pub(super) symmetric: OnceLock<bool>,
    /// For an undirected graph built from edge tuples (the generators'):
    /// the tuples ending at each vertex, duplicates and self loops
    /// included (a loop ends twice at its vertex), which Graph500 counts
    /// as traversed ([`Bfs::input_edges_traversed`](crate::Bfs::input_edges_traversed)).
    pub(super) input_edge_ends: Option<Vec<u32>>,
}

/// Graphs are equal when their rows are: the input tuples they were built
/// from do not count.
impl PartialEq for Csr {
    fn eq(&self, other: &Csr) -> bool {
        self.row_offsets == other.row_offsets && self.column_indices == other.column_indices
    }
}

/// The vertices of rows with `row_offsets` over `entries` column indices,
/// checked: offsets there, fewer vertices than `u32` ids number, offsets
/// from 0 to `entries` that never decrease.
pub(super) fn vertex_count_of(row_offsets: &[EdgeOffset], entries: usize) -> Result<usize, String> {
    let vertex_count = row_offsets.len().checked_sub(1).ok_or("no row offsets")?;
    if vertex_count >= u32::MAX as usize {
        return Err(format!("{vertex_count} vertices do not fit u32 ids"));
    }
    if row_offsets[0] != 0 || row_offsets[vertex_count] as usize != entries {
        return Err("row offsets must run from 0 to the number of edges".into());
    }
    if let Some(vertex) = (0..vertex_count)
        .into_par_iter()
        .find_first(|&vertex| row_offsets[vertex] > row_offsets[vertex + 1])
    {
        return Err(format!("row offsets decrease at vertex {vertex}"));
    }
    Ok(vertex_count)
}

impl Csr {
    /// A CSR from its arrays, checked: offsets start at 0, never decrease
    /// and end at `m`; each row is strictly increasing, with ids `< n`.
    pub fn from_parts(
        row_offsets: Vec<EdgeOffset>,
        column_indices: Vec<u32>,
    ) -> Result<Csr, String> {
        let vertex_count = vertex_count_of(&row_offsets, column_indices.len())?;
        let bad_row = (0..vertex_count).into_par_iter().find_any(|&vertex| {
            let row =
                &column_indices[row_offsets[vertex] as usize..row_offsets[vertex + 1] as usize];
            row.windows(2).any(|pair| pair[0] >= pair[1])
                || row
                    .last()
                    .is_some_and(|&last| last as usize >= vertex_count)
        });
        match bad_row {
            Some(vertex) => Err(format!(
                "row {vertex} is unsorted, repeats a neighbour or names one beyond the graph"
            )),
            None => Ok(Csr::from_valid_parts(row_offsets, column_indices)),
        }
    }

    /// A CSR of rows already known to be valid, as
    /// [`from_parts`](Self::from_parts) checks them; nothing is known yet
    /// of its symmetry.
    pub(super) fn from_valid_parts(row_offsets: Vec<EdgeOffset>, column_indices: Vec<u32>) -> Csr {
        Csr {
            row_offsets,
            column_indices,
            symmetric: OnceLock::new(),
            input_edge_ends: None,
        }
    }

    /// The graph of a square `nalgebra_sparse` matrix: entry `(i, j)` is the
    /// edge `i -> j`; values are ignored, the diagonal (self loops) dropped.
    pub fn from_nalgebra<T>(matrix: &nalgebra_sparse::CsrMatrix<T>) -> Result<Csr> {
        if matrix.nrows() != matrix.ncols() || matrix.nrows() >= u32::MAX as usize {
            return Err(Error::GraphTooLarge(format!(
                "a {}×{} matrix: a graph needs a square one with fewer than 2^32 - 1 rows",
                matrix.nrows(),
                matrix.ncols()
            )));
        }
        let edges: Vec<(u32, u32)> = matrix
            .triplet_iter()
            .map(|(row, column, _)| (row as u32, column as u32))
            .collect();
        Csr::from_edges(matrix.nrows() as u32, &edges, false)
    }

    /// The adjacency matrix as an `nalgebra_sparse` matrix, with `value` at every edge.
    pub fn to_nalgebra<T: Clone>(&self, value: T) -> nalgebra_sparse::CsrMatrix<T> {
        let n = self.vertex_count() as usize;
        let offsets = self
            .row_offsets
            .iter()
            .map(|&offset| offset as usize)
            .collect();
        let columns = self
            .column_indices
            .iter()
            .map(|&column| column as usize)
            .collect();
        let values = vec![value; self.column_indices.len()];
        nalgebra_sparse::CsrMatrix::try_from_csr_data(n, n, offsets, columns, values)
            .expect("a Csr is a valid CSR pattern: sorted, unique, in-range rows")
    }

    /// Number of vertices, `n`.
    pub fn vertex_count(&self) -> u32 {
        (self.row_offsets.len() - 1) as u32
    }

    /// Number of directed edges stored, `m` (twice the undirected edges).
    pub fn edge_count(&self) -> EdgeOffset {
        self.column_indices.len() as EdgeOffset
    }

    /// Bytes of a CSR of `vertices` rows and `entries` column indices:
    /// 64-bit row offsets (`n + 1`) and 32-bit columns, as the GPU holds it.
    pub fn bytes_of(vertices: u32, entries: EdgeOffset) -> u64 {
        size_of::<EdgeOffset>() as u64 * (vertices as u64 + 1) + 4 * entries
    }

    /// Out-degree of `vertex`: its row names each neighbour once (a
    /// checked invariant), so the degree is below `n` and fits 32 bits.
    pub fn degree(&self, vertex: u32) -> u32 {
        (self.row_offsets[vertex as usize + 1] - self.row_offsets[vertex as usize]) as u32
    }

    /// The input edge tuples ending at each vertex, where the graph was
    /// built from tuples of an undirected graph (see the field).
    pub fn input_edge_ends(&self) -> Option<&[u32]> {
        self.input_edge_ends.as_deref()
    }

    /// The graph with the input edge ends it was built from (read back from
    /// a file): one per vertex, none below the vertex's degree (every CSR
    /// entry came from a tuple's end), else an error.
    pub fn with_input_edge_ends(mut self, ends: Vec<u32>) -> Result<Csr, String> {
        if ends.len() != self.vertex_count() as usize {
            return Err(format!(
                "{} input edge ends for {} vertices",
                ends.len(),
                self.vertex_count()
            ));
        }
        let below = (0..self.vertex_count())
            .into_par_iter()
            .find_first(|&vertex| (ends[vertex as usize]) < self.degree(vertex));
        if let Some(vertex) = below {
            return Err(format!(
                "vertex {vertex} has {} input edge ends but degree {}",
                ends[vertex as usize],
                self.degree(vertex)
            ));
        }
        self.input_edge_ends = Some(ends);
        Ok(self)
    }

    /// The input edge tuples the graph was built from, where it knows
    /// them: Graph500's edge count.
    pub fn input_edge_count(&self) -> Option<u64> {
        let ends = self.input_edge_ends()?;
        Some(ends.par_iter().map(|&ends| ends as u64).sum::<u64>() / 2)
    }

    /// The graph with every edge reversed (each vertex's in-neighbours as
    /// its row), or `None` when it is symmetric: its own reverse.
    pub fn reversed(&self) -> Option<Csr> {
        if self.is_symmetric() {
            return None;
        }
        let edges: Vec<(u32, u32)> = (0..self.vertex_count())
            .flat_map(|tail| self.neighbours(tail).iter().map(move |&head| (head, tail)))
            .collect();
        Some(
            Csr::from_edges(self.vertex_count(), &edges, false)
                .expect("the reverse of a valid CSR is a valid CSR"),
        )
    }

    /// Sorted neighbours of `vertex`.
    pub fn neighbours(&self, vertex: u32) -> &[u32] {
        let begin = self.row_offsets[vertex as usize] as usize;
        let end = self.row_offsets[vertex as usize + 1] as usize;
        &self.column_indices[begin..end]
    }

    /// The `n + 1` row offsets.
    pub fn row_offsets(&self) -> &[EdgeOffset] {
        &self.row_offsets
    }

    /// The `m` column indices (neighbour ids).
    pub fn column_indices(&self) -> &[u32] {
        &self.column_indices
    }

    /// Whether the graph is known to be symmetric without a pass over its
    /// edges: built so, or asked before.
    pub fn known_symmetric(&self) -> Option<bool> {
        self.symmetric.get().copied()
    }

    /// Records whether the graph is symmetric, where its maker knows (a
    /// renumbering of a graph that is), sparing [`is_symmetric`](Self::is_symmetric)'s pass.
    pub(crate) fn set_symmetric(&self, symmetric: bool) {
        let _ = self.symmetric.set(symmetric);
    }

    /// Whether every edge `(u, v)` has its reverse `(v, u)`: computed on
    /// the first call (a search of every edge's reverse), remembered after.
    pub fn is_symmetric(&self) -> bool {
        *self.symmetric.get_or_init(|| {
            (0..self.vertex_count()).into_par_iter().all(|tail| {
                self.neighbours(tail)
                    .iter()
                    .all(|&head| self.neighbours(head).binary_search(&tail).is_ok())
            })
        })
    }
}
