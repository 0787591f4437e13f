//! The networkx backend's answer dicts, filled here through the C API:
//! `{node: distance}` level by level, as networkx's searches give them.
//! Built in Python, the same dict first makes a list of the nodes and a
//! list of the distances, then zips them; here each key is the nodes
//! list's own object and each value one shared int a level, so the dict's
//! inserts are almost all the work.

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::bad_input;

/// `{nodes[v]: distances[v]}` for every `v` with `distances[v] ≥ 0`, in
/// order of distance and, within a distance, of `v` (a counting sort:
/// linear). `nodes` is the converted graph's node list, or `None` where
/// the nodes are `0 … n − 1`.
#[pyfunction]
#[pyo3(signature = (distances, nodes = None))]
pub fn level_dict<'py>(
    py: Python<'py>,
    distances: PyReadonlyArray1<'py, i32>,
    nodes: Option<&Bound<'py, PyList>>,
) -> PyResult<Bound<'py, PyDict>> {
    let distances = distances
        .as_slice()
        .map_err(|_| bad_input("distances must be a contiguous int32 array"))?;
    if let Some(nodes) = nodes
        && nodes.len() != distances.len()
    {
        return Err(bad_input(format!(
            "{} distances for {} nodes",
            distances.len(),
            nodes.len()
        )));
    }
    let deepest = distances.iter().copied().max().unwrap_or(-1);
    // A search's distances are below its vertex count; a larger one would
    // only ask for a huge count of levels.
    if deepest >= 0 && deepest as usize >= distances.len() {
        return Err(bad_input(format!(
            "a distance of {deepest} among {} nodes",
            distances.len()
        )));
    }
    // Where each level's vertices begin in the order, then the order.
    let mut starts = vec![0usize; (deepest + 2).max(1) as usize];
    for &distance in distances.iter().filter(|&&distance| distance >= 0) {
        starts[distance as usize + 1] += 1;
    }
    for level in 1..starts.len() {
        starts[level] += starts[level - 1];
    }
    let mut order = vec![0u32; *starts.last().unwrap_or(&0)];
    for (vertex, &distance) in distances.iter().enumerate() {
        if distance >= 0 {
            let place = &mut starts[distance as usize];
            order[*place] = vertex as u32;
            *place += 1;
        }
    }
    let values: Vec<Bound<'py, PyAny>> = (0..=deepest)
        .map(|level| {
            let Ok(value) = level.into_pyobject(py);
            value.into_any()
        })
        .collect();
    let dict = PyDict::new(py);
    for vertex in order {
        let value = &values[distances[vertex as usize] as usize];
        match nodes {
            Some(nodes) => dict.set_item(nodes.get_item(vertex as usize)?, value)?,
            None => dict.set_item(vertex, value)?,
        }
    }
    Ok(dict)
}
