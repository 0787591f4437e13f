//! Searches in networkx's order, for the backend's functions whose output
//! networkx orders: `bfs_edges` (and with it `bfs_tree`,
//! `bfs_predecessors`, `bfs_successors`) and `bfs_layers`; and the order
//! in which `strongly_connected_components` yields the components.
//!
//! networkx's breadth-first search takes a level's vertices in the order
//! they were found, and each one's neighbours in the order its adjacency
//! dict holds them; the first to reach a vertex is its parent. That order
//! comes from how the graph was built, not from the graph, and a parallel
//! search (the GPU's or the CPU engine's) claims parents in no such order.
//! So these functions do not use the GPU: the backend keeps each row in
//! networkx's order ([`Rows`]), and this search over them, one thread in
//! Rust, yields networkx's edges in networkx's order.

use numpy::PyArray1;
use pyo3::prelude::*;

use crate::arrays::{self, vertex_id, wide};
use crate::errors::bad_input;

/// A search's tree edges as numpy arrays: parents, children, and where
/// each level's children end.
type Tree<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
);

/// A graph's rows in the order networkx iterates each vertex's neighbours.
#[pyclass(module = "bfs_gpu._native", frozen)]
pub struct Rows {
    offsets: Vec<u64>,
    columns: Vec<u32>,
}

#[pymethods]
impl Rows {
    /// Rows from CSR arrays kept in their order (copied once): `indptr`,
    /// n + 1 offsets, and `indices`, each row's neighbours.
    #[new]
    fn new(indptr: &Bound<'_, PyAny>, indices: &Bound<'_, PyAny>) -> PyResult<Rows> {
        let offsets = arrays::offsets(indptr, "indptr")?;
        let columns = arrays::ids(indices, "indices")?;
        let vertex_count = offsets
            .len()
            .checked_sub(1)
            .ok_or_else(|| bad_input("no row offsets"))?;
        let ordered = offsets.first() == Some(&0)
            && offsets.last() == Some(&(columns.len() as u64))
            && offsets.windows(2).all(|pair| pair[0] <= pair[1]);
        if !ordered {
            return Err(bad_input(
                "row offsets must run from 0 to the number of column indices, never decreasing",
            ));
        }
        if vertex_count >= u32::MAX as usize {
            return Err(bad_input(format!(
                "{vertex_count} vertices do not fit u32 ids"
            )));
        }
        if let Some(&column) = columns
            .iter()
            .find(|&&column| column as usize >= vertex_count)
        {
            return Err(bad_input(format!(
                "column index {column} names no vertex: the graph has {vertex_count}"
            )));
        }
        Ok(Rows { offsets, columns })
    }

    /// The tree edges of a search from `sources` (vertices, in the order
    /// networkx takes them) within `depth_limit` levels (none where `None`,
    /// not one where 0 or less): the parents and the children, in the order
    /// networkx yields them, and where each level's children end.
    #[pyo3(signature = (sources, depth_limit = None))]
    fn search<'py>(
        &self,
        py: Python<'py>,
        sources: Vec<i64>,
        depth_limit: Option<i64>,
    ) -> PyResult<Tree<'py>> {
        let vertex_count = (self.offsets.len() - 1) as u32;
        let sources = sources
            .into_iter()
            .map(|source| vertex_id(source, vertex_count))
            .collect::<PyResult<Vec<u32>>>()?;
        let levels = depth_limit.map_or(u64::MAX, |limit| limit.max(0) as u64);
        let (parents, children, ends) = py.detach(|| self.tree(&sources, levels));
        Ok((
            PyArray1::from_vec(py, parents),
            PyArray1::from_vec(py, children),
            PyArray1::from_vec(py, ends),
        ))
    }

    /// Each vertex's strongly connected component (an int64 label, its
    /// least vertex) and the labels in the order networkx's
    /// `strongly_connected_components` yields the components: Tarjan's
    /// search over these rows in their order, one thread.
    fn strong_components<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>) {
        let (labels, finished) =
            py.detach(|| bfs::components::strong_in_search_order(&self.offsets, &self.columns));
        (wide(py, labels), wide(py, finished))
    }
}

impl Rows {
    /// The search of [`search`](Rows::search), at most `levels` levels.
    fn tree(&self, sources: &[u32], levels: u64) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
        let mut seen = vec![false; self.offsets.len() - 1];
        for &source in sources {
            seen[source as usize] = true;
        }
        let (mut parents, mut children) = (Vec::new(), Vec::<i64>::new());
        let mut ends = Vec::new();
        let mut expand = |parent: u32, parents: &mut Vec<i64>, children: &mut Vec<i64>| {
            let row =
                self.offsets[parent as usize] as usize..self.offsets[parent as usize + 1] as usize;
            for &child in &self.columns[row] {
                if !std::mem::replace(&mut seen[child as usize], true) {
                    parents.push(parent.into());
                    children.push(child.into());
                }
            }
        };
        if levels == 0 {
            return (parents, children, ends);
        }
        for &source in sources {
            expand(source, &mut parents, &mut children);
        }
        ends.push(children.len() as i64);
        let (mut begin, mut depth) = (0, 1);
        while begin < children.len() && depth < levels {
            let end = children.len();
            for at in begin..end {
                expand(children[at] as u32, &mut parents, &mut children);
            }
            ends.push(children.len() as i64);
            (begin, depth) = (end, depth + 1);
        }
        (parents, children, ends)
    }
}
