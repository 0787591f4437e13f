//! `bfs_gpu._native`: the `bfs` library from Python. A thin layer over the
//! host library: `graph.rs`'s `Graph` holds a graph on its own thread
//! (`worker.rs`), resident on the GPU between calls (`resident.rs`, planned
//! as `plan.rs` says), and searches it from one source, from many in
//! batches, or for closeness, harmonic centrality and eccentricity;
//! `ordered.rs`'s `Rows` searches rows in networkx's order for the networkx
//! backend, whose answer dicts `dicts.rs` fills. Errors become Python exceptions with the command line's
//! one-line messages (`errors.rs`).

mod arrays;
mod device;
mod dicts;
mod errors;
mod graph;
mod ordered;
mod plan;
mod resident;
mod worker;

use pyo3::prelude::*;

/// The GPU this process searches on, in words, opening it if need be; or
/// raises `BfsError` saying why there is none.
#[pyfunction]
fn gpu(py: Python<'_>) -> PyResult<String> {
    py.detach(device::describe)
        .map_err(errors::BfsError::new_err)
}

/// The GPU variants' names and one-line descriptions, as `bfs
/// --list-variants` prints them.
#[pyfunction]
fn variants() -> Vec<(&'static str, &'static str)> {
    bfs::gpu::Variant::ALL
        .iter()
        .map(|variant| (variant.name(), variant.description()))
        .collect()
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<graph::Graph>()?;
    module.add_class::<ordered::Rows>()?;
    module.add_function(wrap_pyfunction!(gpu, module)?)?;
    module.add_function(wrap_pyfunction!(variants, module)?)?;
    module.add_function(wrap_pyfunction!(dicts::level_dict, module)?)?;
    module.add("BfsError", module.py().get_type::<errors::BfsError>())?;
    Ok(())
}
