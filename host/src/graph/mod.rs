//! Graphs in compressed sparse row (CSR) form, loaded or generated.
//!
//! Vertex ids are 0-based `u32`; each vertex's neighbours are sorted, with
//! duplicates and self loops removed. An undirected graph stores each edge in
//! both directions.

pub mod generate;
pub mod matrix_market;

use std::path::Path;

use crate::{Error, Result};

/// A graph in CSR form: the neighbours of `v` are
/// `column_indices[row_offsets[v]..row_offsets[v + 1]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    row_offsets: Vec<u32>,
    column_indices: Vec<u32>,
}

impl Csr {
    /// Builds the CSR of `vertex_count` vertices from directed `(tail, head)`
    /// edges; with `symmetric`, each edge is also added reversed. Sorts each
    /// adjacency list and drops duplicates and self loops.
    ///
    /// Every id must be `< vertex_count` (the loaders check this first).
    pub fn from_edges(vertex_count: u32, edges: &[(u32, u32)], symmetric: bool) -> Result<Csr> {
        let mut degrees = vec![0u64; vertex_count as usize + 1];
        for &(tail, head) in edges {
            if tail != head {
                degrees[tail as usize] += 1;
                if symmetric {
                    degrees[head as usize] += 1;
                }
            }
        }
        let mut offsets = Vec::with_capacity(degrees.len());
        let mut total = 0u64;
        for degree in &degrees {
            offsets.push(total);
            total += degree;
        }
        let mut column_indices = vec![0u32; total as usize];
        let mut cursor = offsets.clone();
        let mut place = |tail: u32, head: u32| {
            column_indices[cursor[tail as usize] as usize] = head;
            cursor[tail as usize] += 1;
        };
        for &(tail, head) in edges {
            if tail != head {
                place(tail, head);
                if symmetric {
                    place(head, tail);
                }
            }
        }
        Self::sorted_and_deduplicated(&offsets, column_indices)
    }

    /// Sorts each adjacency list, removes duplicates and compacts, checking
    /// that the edge count fits a `u32` offset.
    fn sorted_and_deduplicated(offsets: &[u64], mut column_indices: Vec<u32>) -> Result<Csr> {
        let mut row_offsets = Vec::with_capacity(offsets.len());
        let mut kept = 0usize;
        row_offsets.push(0);
        for window in offsets.windows(2) {
            let (begin, end) = (window[0] as usize, window[1] as usize);
            column_indices[begin..end].sort_unstable();
            let mut previous = None;
            for index in begin..end {
                let head = column_indices[index];
                if previous != Some(head) {
                    column_indices[kept] = head;
                    kept += 1;
                    previous = Some(head);
                }
            }
            let kept = u32::try_from(kept).map_err(|_| {
                Error::GraphTooLarge(format!(
                    "more than {} edges do not fit 32-bit CSR offsets",
                    u32::MAX
                ))
            })?;
            row_offsets.push(kept);
        }
        column_indices.truncate(kept);
        column_indices.shrink_to_fit();
        Ok(Csr {
            row_offsets,
            column_indices,
        })
    }

    /// Number of vertices, `n`.
    pub fn vertex_count(&self) -> u32 {
        (self.row_offsets.len() - 1) as u32
    }

    /// Number of directed edges stored, `m` (twice the undirected edges).
    pub fn edge_count(&self) -> u32 {
        self.column_indices.len() as u32
    }

    /// Out-degree of `vertex`.
    pub fn degree(&self, vertex: u32) -> u32 {
        self.row_offsets[vertex as usize + 1] - self.row_offsets[vertex as usize]
    }

    /// Sorted neighbours of `vertex`.
    pub fn neighbours(&self, vertex: u32) -> &[u32] {
        let begin = self.row_offsets[vertex as usize] as usize;
        let end = self.row_offsets[vertex as usize + 1] as usize;
        &self.column_indices[begin..end]
    }

    /// The `n + 1` row offsets.
    pub fn row_offsets(&self) -> &[u32] {
        &self.row_offsets
    }

    /// The `m` column indices (neighbour ids).
    pub fn column_indices(&self) -> &[u32] {
        &self.column_indices
    }

    /// Whether every edge `(u, v)` has its reverse `(v, u)`.
    pub fn is_symmetric(&self) -> bool {
        (0..self.vertex_count()).all(|tail| {
            self.neighbours(tail)
                .iter()
                .all(|&head| self.neighbours(head).binary_search(&tail).is_ok())
        })
    }
}

/// Where a graph comes from: a file, or a generator specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphSource {
    /// A Matrix Market file.
    File(std::path::PathBuf),
    /// A generated graph, `gen:SPEC` on the command line (see [`generate::Spec`]).
    Generated(generate::Spec),
}

impl GraphSource {
    /// Parses a `--graph` argument: `gen:SPEC` or a path.
    pub fn parse(argument: &str) -> Result<GraphSource> {
        match argument.strip_prefix("gen:") {
            Some(spec) => Ok(GraphSource::Generated(spec.parse()?)),
            None => Ok(GraphSource::File(argument.into())),
        }
    }

    /// Loads or generates the graph.
    pub fn load(&self) -> Result<Csr> {
        match self {
            GraphSource::File(path) => load(path),
            GraphSource::Generated(spec) => spec.generate(),
        }
    }

    /// A short name for summaries.
    pub fn name(&self) -> String {
        match self {
            GraphSource::File(path) => path.display().to_string(),
            GraphSource::Generated(spec) => format!("gen:{spec}"),
        }
    }
}

/// Loads a graph file, choosing the reader by extension.
pub fn load(path: &Path) -> Result<Csr> {
    matrix_market::load(path)
}
