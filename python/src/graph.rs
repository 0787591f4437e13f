//! `bfs_gpu._native.Graph`: a graph held by its own thread
//! ([`crate::worker`]), resident on the GPU between calls, and the calls
//! Python makes on it. Arguments are checked and copied here, with the
//! GIL held; the search runs on the graph's thread with the GIL released.

use std::sync::RwLock;

use bfs::Csr;
use bfs::gpu::Variant;
use bfs::graph::prepared::Preparations;
use bfs::graph::{GraphSource, Reader};
use bfs::many::Limits;
use bfs::many::betweenness::Wanted;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{self, search_labels, signed, vertex_id, wide};
use crate::device::Device;
use crate::errors::{BfsError, bad_input, to_python};
use crate::resident::{Measure, Resident, SearchOptions, Values};
use crate::worker::{STOPPED, Worker};

/// A graph, resident on the GPU between calls (see the package's docs).
#[pyclass(module = "bfs_gpu._native", frozen)]
pub struct Graph {
    /// `None` once closed.
    worker: RwLock<Option<Worker>>,
    vertex_count: u32,
    edge_count: u64,
    /// Where it came from, for its `repr`.
    name: String,
}

impl Graph {
    /// Starts the graph's thread and makes it resident where `device` says.
    fn hold(
        py: Python<'_>,
        graph: Csr,
        file: Preparations,
        name: String,
        device: &str,
    ) -> PyResult<Graph> {
        let device = Device::parse(device)?;
        let (vertex_count, edge_count) = (graph.vertex_count(), graph.edge_count());
        let worker = py
            .detach(|| Worker::start(graph, file))
            .map_err(to_python)?;
        let graph = Graph {
            worker: RwLock::new(Some(worker)),
            vertex_count,
            edge_count,
            name,
        };
        graph.on_thread(py, move |resident| resident.warm(device))?;
        Ok(graph)
    }

    /// Runs `job` on the graph's thread with the GIL released.
    fn on_thread<R, F>(&self, py: Python<'_>, job: F) -> PyResult<R>
    where
        R: Send + 'static,
        F: FnOnce(&mut Resident<'_>) -> bfs::Result<R> + Send + 'static,
    {
        let answer = py.detach(|| {
            let worker = self
                .worker
                .read()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match worker.as_ref() {
                None => Err("the graph is closed"),
                Some(worker) => worker.call(job).ok_or(STOPPED),
            }
        });
        match answer {
            Ok(result) => result.map_err(to_python),
            Err(why) => Err(BfsError::new_err(why)),
        }
    }

    fn limits(depth_limit: Option<i64>) -> PyResult<Limits> {
        let depth_limit = depth_limit
            .map(|limit| match limit {
                ..0 => Err(bad_input(format!(
                    "depth_limit is a distance, 0 or more, not {limit}"
                ))),
                _ => Ok(u32::try_from(limit).unwrap_or(u32::MAX)),
            })
            .transpose()?;
        Ok(Limits { depth_limit })
    }

    /// Refuses a sample (given as `argument`) of no vertex or of more than
    /// the graph has.
    fn check_sample(&self, sample: Option<usize>, argument: &str) -> PyResult<()> {
        match sample {
            Some(count) if !(1..=self.vertex_count as usize).contains(&count) => {
                Err(bad_input(format!(
                    "{argument}={count}: a sample is 1 to the graph's {} vertices",
                    self.vertex_count
                )))
            }
            _ => Ok(()),
        }
    }
}

#[pymethods]
impl Graph {
    /// A graph from CSR arrays: `indptr` (n + 1 offsets) and `indices`
    /// (each row's neighbours), copied once (see the docs).
    #[staticmethod]
    #[pyo3(signature = (indptr, indices, *, device = "auto", name = "arrays"))]
    fn from_rows(
        py: Python<'_>,
        indptr: &Bound<'_, PyAny>,
        indices: &Bound<'_, PyAny>,
        device: &str,
        name: &str,
    ) -> PyResult<Graph> {
        let offsets = arrays::offsets(indptr, "indptr")?;
        let columns = arrays::ids(indices, "indices")?;
        let graph = py
            .detach(|| Csr::from_rows(offsets, columns))
            .map_err(bad_input)?;
        Self::hold(py, graph, Preparations::none(), name.into(), device)
    }

    /// A graph from a file in any format `bfs --graph` reads, or from a
    /// generator, `gen:SPEC` (with `seed`).
    #[staticmethod]
    #[pyo3(signature = (path, *, seed = bfs::graph::generate::DEFAULT_SEED, device = "auto"))]
    fn load(py: Python<'_>, path: &str, seed: u64, device: &str) -> PyResult<Graph> {
        let mut source = GraphSource::parse(path).map_err(to_python)?;
        if let GraphSource::Generated(spec) = &mut source {
            spec.seed = seed;
        }
        let (graph, file) = py
            .detach(|| source.load_prepared(Reader::Fast))
            .map_err(to_python)?;
        Self::hold(py, graph, file, source.name(), device)
    }

    /// Vertices.
    #[getter]
    fn vertex_count(&self) -> u32 {
        self.vertex_count
    }

    /// CSR entries: directed edges, each undirected edge twice.
    #[getter]
    fn edge_count(&self) -> u64 {
        self.edge_count
    }

    /// Whether every edge has its reverse (a pass over the edges, once).
    fn is_symmetric(&self, py: Python<'_>) -> PyResult<bool> {
        self.on_thread(py, |resident| Ok(resident.is_symmetric()))
    }

    /// Copies of the graph's CSR arrays as the library holds them (rows
    /// sorted, no repeats, no self loops): int64 `indptr`, and `indices`
    /// as int32 (int64 past 2^31 vertices).
    fn csr<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let (offsets, columns) = self.on_thread(py, |resident| Ok(resident.csr()))?;
        let offsets: Vec<i64> = offsets.into_iter().map(|offset| offset as i64).collect();
        let indices = match i32::try_from(self.vertex_count) {
            Ok(_) => signed(py, columns).into_any(),
            Err(_) => wide(py, columns).into_any(),
        };
        Ok((PyArray1::from_vec(py, offsets).into_any(), indices))
    }

    /// One search from `source`: int32 distances, -1 where unreached, and
    /// with `parents`, a BFS tree's parents (the source its own).
    #[pyo3(signature = (source, *, parents = false, depth_limit = None, variant = "auto", device = "auto"))]
    fn bfs<'py>(
        &self,
        py: Python<'py>,
        source: i64,
        parents: bool,
        depth_limit: Option<i64>,
        variant: &str,
        device: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let source = vertex_id(source, self.vertex_count)?;
        let variant: Variant = variant.parse().map_err(bad_input)?;
        if parents && !variant.records_parents() {
            return Err(bad_input(format!(
                "variant {variant} records no parents; parents=True needs another"
            )));
        }
        let options = SearchOptions {
            variant,
            device: Device::parse(device)?,
            depth_limit: Self::limits(depth_limit)?.depth_limit,
            parents,
        };
        let result = self.on_thread(py, move |resident| resident.search(source, options))?;
        let levels = search_labels(py, result.levels)?;
        if !parents {
            return Ok(levels.into_any());
        }
        let tree = result
            .parents
            .ok_or_else(|| BfsError::new_err("the search recorded no parents"))?;
        Ok((levels, search_labels(py, tree)?)
            .into_pyobject(py)?
            .into_any())
    }

    /// The distances from each of `sources` (an int64 array): a k × n int32
    /// matrix, -1 where unreached, searched in batches.
    #[pyo3(signature = (sources, *, depth_limit = None, device = "auto"))]
    fn bfs_many<'py>(
        &self,
        py: Python<'py>,
        sources: PyReadonlyArray1<'py, i64>,
        depth_limit: Option<i64>,
        device: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let sources = arrays::vertices(&sources, self.vertex_count)?;
        let (limits, device) = (Self::limits(depth_limit)?, Device::parse(device)?);
        let rows = sources.len();
        let matrix = self.on_thread(py, move |resident| resident.many(&sources, limits, device))?;
        let shape = [rows, self.vertex_count as usize];
        Ok(PyArray1::from_vec(py, matrix).reshape(shape)?.into_any())
    }

    /// Closeness, harmonic centrality or eccentricity of every vertex, from
    /// every vertex or (`sample`) from that many sampled uniformly by `seed`.
    #[pyo3(signature = (measure, *, sample = None, seed = bfs::graph::generate::DEFAULT_SEED, depth_limit = None, device = "auto"))]
    fn measure<'py>(
        &self,
        py: Python<'py>,
        measure: &str,
        sample: Option<usize>,
        seed: u64,
        depth_limit: Option<i64>,
        device: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let measure = match measure {
            "closeness" => Measure::Closeness,
            "harmonic" => Measure::Harmonic,
            "eccentricity" => Measure::Eccentricity,
            other => {
                return Err(bad_input(format!(
                    "measure is 'closeness', 'harmonic' or 'eccentricity', not '{other}'"
                )));
            }
        };
        self.check_sample(sample, "sources")?;
        if measure == Measure::Eccentricity && sample.is_some() && !self.is_symmetric(py)? {
            return Err(bad_input(
                "eccentricity from a sample needs an undirected graph: on a directed one the \
                 sample's searches give distances to a vertex, not from it (use sources='all')",
            ));
        }
        let (limits, device) = (Self::limits(depth_limit)?, Device::parse(device)?);
        let sample = sample.map(|count| (count, seed));
        let values = self.on_thread(py, move |resident| {
            resident.measure(measure, sample, limits, device)
        })?;
        Ok(match values {
            Values::Floats(values) => PyArray1::from_vec(py, values).into_any(),
            Values::Counts(values) => signed(py, values).into_any(),
        })
    }

    /// What searches from `sources` (every vertex where `None`) reduce to:
    /// per source, and with `totals`, per vertex over them all.
    #[pyo3(signature = (sources = None, *, totals = true, depth_limit = None, device = "auto"))]
    fn sums<'py>(
        &self,
        py: Python<'py>,
        sources: Option<PyReadonlyArray1<'py, i64>>,
        totals: bool,
        depth_limit: Option<i64>,
        device: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let sources = sources
            .map(|sources| arrays::vertices(&sources, self.vertex_count))
            .transpose()?;
        let (limits, device) = (Self::limits(depth_limit)?, Device::parse(device)?);
        let (order, reduced) = self.on_thread(py, move |resident| {
            resident.reduce(sources, totals, limits, device)
        })?;
        let sums = PyDict::new(py);
        sums.set_item("sources", wide(py, order))?;
        sums.set_item("eccentricity", signed(py, reduced.eccentricities))?;
        sums.set_item("reached", wide(py, reduced.reached))?;
        sums.set_item(
            "distance_sum",
            PyArray1::from_vec(py, reduced.distance_sums),
        )?;
        sums.set_item(
            "reciprocal_sum",
            PyArray1::from_vec(py, reduced.reciprocal_sums),
        )?;
        if let Some(totals) = reduced.totals {
            sums.set_item("reached_by", wide(py, totals.reached_by))?;
            sums.set_item(
                "distance_sums",
                PyArray1::from_vec(py, totals.distance_sums),
            )?;
            sums.set_item(
                "reciprocal_sums",
                PyArray1::from_vec(py, totals.reciprocal_sums),
            )?;
            sums.set_item("farthest", signed(py, totals.farthest))?;
        }
        Ok(sums)
    }

    /// Betweenness's sums over the ordered pairs from `sources` (every
    /// vertex where `None`): a vertex's dependencies (`vertices`; with
    /// `endpoints`, networkx's), each arc's in CSR order (`arcs`), before
    /// networkx's rescaling.
    #[pyo3(signature = (sources = None, *, vertices = true, arcs = false, endpoints = false, device = "auto"))]
    fn betweenness_sums<'py>(
        &self,
        py: Python<'py>,
        sources: Option<PyReadonlyArray1<'py, i64>>,
        vertices: bool,
        arcs: bool,
        endpoints: bool,
        device: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let sources = sources
            .map(|sources| arrays::vertices(&sources, self.vertex_count))
            .transpose()?;
        let wanted = Wanted {
            vertices,
            arcs,
            endpoints,
        };
        let device = Device::parse(device)?;
        let found = self.on_thread(py, move |resident| {
            resident.betweenness(sources, wanted, device)
        })?;
        let sums = PyDict::new(py);
        sums.set_item(
            "vertices",
            found.vertices.map(|v| PyArray1::from_vec(py, v)),
        )?;
        sums.set_item("arcs", found.arcs.map(|v| PyArray1::from_vec(py, v)))?;
        Ok(sums)
    }

    /// Betweenness of every vertex, networkx's (`normalized`,
    /// `endpoints`), from every vertex or from `sample` vertices drawn
    /// by `seed`; with `edges`, each arc's edge betweenness in CSR order.
    #[pyo3(signature = (*, sample = None, seed = bfs::graph::generate::DEFAULT_SEED, normalized = true, endpoints = false, edges = false, device = "auto"))]
    #[allow(clippy::too_many_arguments)]
    fn betweenness<'py>(
        &self,
        py: Python<'py>,
        sample: Option<usize>,
        seed: u64,
        normalized: bool,
        endpoints: bool,
        edges: bool,
        device: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.check_sample(sample, "k")?;
        if edges && endpoints {
            return Err(bad_input(
                "edge betweenness always counts each path's ends (endpoints is for vertices)",
            ));
        }
        let device = Device::parse(device)?;
        let values = self.on_thread(py, move |resident| {
            resident.rescaled_betweenness(
                sample.map(|count| (count, seed)),
                (normalized, endpoints, edges),
                device,
            )
        })?;
        Ok(PyArray1::from_vec(py, values).into_any())
    }

    /// Each `(tails[i], heads[i])` arc's value from arcs' sums in CSR
    /// order (`arcs`): an undirected graph's edge its two arcs', 0 where
    /// there is no such arc.
    fn pair_values<'py>(
        &self,
        py: Python<'py>,
        arcs: PyReadonlyArray1<'py, f64>,
        tails: PyReadonlyArray1<'py, i64>,
        heads: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arcs = arcs.as_slice()?.to_vec();
        if arcs.len() as u64 != self.edge_count {
            return Err(bad_input(format!(
                "{} arc values for a graph of {} arcs",
                arcs.len(),
                self.edge_count
            )));
        }
        let tails = arrays::vertices(&tails, self.vertex_count)?;
        let heads = arrays::vertices(&heads, self.vertex_count)?;
        let values = self.on_thread(py, move |resident| {
            resident.pair_values(&arcs, &tails, &heads)
        })?;
        Ok(PyArray1::from_vec(py, values).into_any())
    }

    /// Each vertex's weakly or (`strong`) strongly connected component:
    /// int64 labels, each its component's least vertex.
    #[pyo3(signature = (*, strong = false, device = "auto"))]
    fn components<'py>(
        &self,
        py: Python<'py>,
        strong: bool,
        device: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let device = Device::parse(device)?;
        let found = self.on_thread(py, move |resident| resident.components(strong, device))?;
        Ok(wide(py, found.labels).into_any())
    }

    /// Builds what `auto` needs for many searches (`bfs prepare`'s work)
    /// and says what, in words.
    #[pyo3(signature = (*, device = "auto"))]
    fn prepare(&self, py: Python<'_>, device: &str) -> PyResult<String> {
        let device = Device::parse(device)?;
        self.on_thread(py, move |resident| resident.prepare(device))
    }

    /// The last call's device, plan and times (seconds).
    #[getter]
    fn last_run<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (last, device_bytes) = self.on_thread(py, |resident| {
            Ok((resident.last.clone(), resident.device_bytes()))
        })?;
        let run = PyDict::new(py);
        run.set_item("device", last.device)?;
        run.set_item("plan", last.plan)?;
        run.set_item("search_seconds", last.search.as_secs_f64())?;
        run.set_item("download_seconds", last.download.as_secs_f64())?;
        run.set_item("device_bytes", device_bytes)?;
        Ok(run)
    }

    /// Frees the graph's host and device memory now; later calls raise
    /// `BfsError`.
    fn close(&self, py: Python<'_>) {
        // Joining the thread waits for its last call and its frees.
        py.detach(|| {
            let worker = self
                .worker
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .take();
            drop(worker);
        });
    }

    fn __repr__(&self) -> String {
        format!(
            "<bfs_gpu.Graph {}: {} vertices, {} CSR entries>",
            self.name, self.vertex_count, self.edge_count
        )
    }
}
