//! What a graph's thread holds ([`crate::worker`]): the graph, its GPU
//! search (the graph uploaded once, the variant's buffers allocated once),
//! its GPU or CPU batches of many sources, the CPU engine, and what was
//! prepared; each made on first use and kept for the next call, so a
//! second search costs the search, not the upload.
//!
//! Device memory holds one single-source search and one batch engine at
//! a time, each with its own copy of the graph: a search of another variant
//! replaces the search, and where the device lacks room for one the other
//! is freed first.

use std::time::{Duration, Instant};

use bfs::components::{self, Components, GpuComponents};
use bfs::gpu::{Gpu, Labels, Request, Search, Variant};
use bfs::graph::generate::sample_vertices;
use bfs::graph::prepared::Preparations;
use bfs::many::betweenness::{self, Betweenness, CpuBetweenness, Dependencies, Wanted};
use bfs::many::centrality::{self, Sources};
use bfs::many::{self, CpuMethod, GpuMethod, Keep, Limits, ManySources, Reduced};
use bfs::{Bfs, Csr, Error, Result, cpu};

use crate::device::{Device, Placement, place};
use crate::plan::{self, Prepared};

/// How one search runs.
#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// The GPU variant (ignored on the CPU).
    pub variant: Variant,
    /// Where.
    pub device: Device,
    /// Distances past it are unreached.
    pub depth_limit: Option<u32>,
    /// Whether the parents come back too (else the levels alone leave the GPU).
    pub parents: bool,
}

/// What the last call ran on, and its time.
#[derive(Clone, Debug, Default)]
pub struct LastRun {
    /// The device, in words.
    pub device: String,
    /// The strategy and why, in one line.
    pub plan: String,
    /// The search's time: device time on the GPU (CUDA events), host
    /// time on the CPU.
    pub search: Duration,
    /// Host time to copy the result back from the device.
    pub download: Duration,
}

/// A per-vertex measure over many sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    Closeness,
    Harmonic,
    Eccentricity,
}

/// A measure's values, one per vertex.
pub enum Values {
    Floats(Vec<f64>),
    Counts(Vec<u32>),
}

/// A GPU search held between calls.
struct HeldSearch<'g> {
    variant: Variant,
    search: Search<'g>,
    plan: String,
}

/// A batch engine held between calls, for batches of up to `width`
/// sources: the GPU's by its method, or (`None`) the CPU's.
struct HeldBatches<'g> {
    gpu_method: Option<GpuMethod>,
    width: usize,
    engine: Box<dyn ManySources + 'g>,
}

/// Everything a graph's thread holds.
pub struct Resident<'g> {
    graph: &'g Csr,
    prepared: Prepared,
    search: Option<HeldSearch<'g>>,
    batches: Option<HeldBatches<'g>>,
    cpu: Option<cpu::ParallelBfs>,
    cpu_method: Option<CpuMethod>,
    /// What the last call ran on.
    pub last: LastRun,
}

impl<'g> Resident<'g> {
    /// Holds `graph`, whose file (if a prepared `.bcsr`) lists `file`.
    pub fn new(graph: &'g Csr, file: Preparations) -> Resident<'g> {
        Resident {
            graph,
            prepared: Prepared::new(file),
            search: None,
            batches: None,
            cpu: None,
            cpu_method: None,
            last: LastRun::default(),
        }
    }

    /// Makes `auto`'s GPU search resident now, where `device` is a GPU, so
    /// that the first search costs the search alone.
    pub fn warm(&mut self, device: Device) -> Result<()> {
        // A graph without vertices has no search to make ready.
        if self.graph.vertex_count() == 0 {
            return Ok(());
        }
        if let Placement::Gpu(gpu) = place(device)? {
            self.gpu_search(gpu, Variant::Auto)?;
        }
        Ok(())
    }

    /// Builds what `auto` needs for many searches (`bfs prepare`'s work),
    /// sized for the GPU where there is one; says what, in words.
    pub fn prepare(&mut self, device: Device) -> Result<String> {
        let gpu = match place(device)? {
            Placement::Gpu(gpu) => Some(gpu),
            Placement::Cpu => None,
        };
        let done = self.prepared.prepare(gpu, self.graph)?;
        // A search planned before may now plan otherwise.
        if self
            .search
            .as_ref()
            .is_some_and(|held| held.variant == Variant::Auto)
        {
            self.search = None;
        }
        Ok(done)
    }

    /// One search from `source` (a vertex): its labels in locked vectors
    /// where a GPU copied them there, which go back to it once dropped.
    pub fn search(&mut self, source: u32, options: SearchOptions) -> Result<Bfs<Labels>> {
        let graph = self.graph;
        let mut result = match place(options.device)? {
            Placement::Gpu(gpu) => {
                let held = self.gpu_search(gpu, options.variant)?;
                let (result, run) = held
                    .search
                    .run_locked(Request::labels(source, options.parents))?;
                self.last = LastRun {
                    device: gpu.name().to_string(),
                    plan: held.plan.clone(),
                    search: run.elapsed,
                    download: run.download,
                };
                result
            }
            Placement::Cpu => {
                let engine = match &mut self.cpu {
                    Some(engine) => engine,
                    None => self
                        .cpu
                        .insert(cpu::ParallelBfs::new(cpu::threads_for(graph))?),
                };
                let started = Instant::now();
                let result = engine.search_within(graph, &[source], options.depth_limit);
                self.last = LastRun {
                    device: format!(
                        "CPU (direction-optimizing BFS, {} threads)",
                        engine.threads()
                    ),
                    plan: cpu_why(options.device),
                    search: started.elapsed(),
                    download: Duration::ZERO,
                };
                result.map(Labels::Vector)
            }
        };
        if let Some(limit) = options.depth_limit {
            result.limit_depth(limit);
        }
        Ok(result)
    }

    /// The GPU search of `variant`, made (or remade, for another variant)
    /// where needed.
    fn gpu_search(&mut self, gpu: &'static Gpu, variant: Variant) -> Result<&mut HeldSearch<'g>> {
        if self
            .search
            .as_ref()
            .is_some_and(|held| held.variant != variant)
        {
            self.search = None;
        }
        if self.search.is_none() {
            let made = match plan::gpu_search(gpu, self.graph, variant, &mut self.prepared) {
                Err(Error::DeviceMemory { .. }) if self.batches.take().is_some() => {
                    plan::gpu_search(gpu, self.graph, variant, &mut self.prepared)
                }
                made => made,
            };
            let (search, plan) = made?;
            self.search = Some(HeldSearch {
                variant,
                search,
                plan,
            });
        }
        Ok(self.search.as_mut().expect("made above"))
    }

    /// The batch engine for `count` sources where `placement` says: the
    /// GPU's by the method `auto` takes for the graph (a contraction
    /// hierarchy's trees on road networks, else bit-parallel batches),
    /// else the CPU's by its method (as `bfs centrality` does).
    fn batch_engine(&mut self, placement: Placement, count: usize) -> Result<&mut dyn ManySources> {
        let graph = self.graph;
        let (gpu_method, width) = match placement {
            Placement::Gpu(_) => {
                let method = many::gpu_method(graph, count).0;
                (Some(method), many::gpus::batch_width(method, count, 1))
            }
            Placement::Cpu => (None, 64 * many::words_for(count)),
        };
        let fits = |held: &HeldBatches<'_>| held.gpu_method == gpu_method && held.width == width;
        if !self.batches.as_ref().is_some_and(fits) {
            self.batches = None;
            let engine: Box<dyn ManySources + 'g> = match (placement, gpu_method) {
                (Placement::Gpu(gpu), Some(method)) => self.gpu_batches(gpu, count, method)?,
                _ => {
                    let method = *self
                        .cpu_method
                        .get_or_insert_with(|| many::cpu_method(graph).0);
                    method.engine(graph, width / 64, None)?
                }
            };
            self.batches = Some(HeldBatches {
                gpu_method,
                width,
                engine,
            });
        }
        let held = self.batches.as_mut().expect("made above");
        Ok(held.engine.as_mut())
    }

    /// The GPU's engine by `auto`'s method for `count` sources, freeing
    /// the single-source search first where the device lacks room for
    /// both.
    fn gpu_batches(
        &mut self,
        gpu: &'static Gpu,
        count: usize,
        method: GpuMethod,
    ) -> Result<Box<dyn ManySources + 'g>> {
        match method.engine(gpu, self.graph, count) {
            Err(Error::DeviceMemory { .. }) if self.search.take().is_some() => {
                method.engine(gpu, self.graph, count)
            }
            made => made,
        }
    }

    /// The distances from each of `sources` (vertices), a row of `n` each,
    /// `-1` where unreached, in batches.
    pub fn many(&mut self, sources: &[u32], limits: Limits, device: Device) -> Result<Vec<i32>> {
        let n = self.graph.vertex_count() as usize;
        let bytes = 4 * sources.len() as u64 * n as u64;
        bfs::graph::check_host_memory(bytes, "the distance matrix")
            .map_err(Error::OutputTooLarge)?;
        let mut matrix = vec![-1i32; sources.len() * n];
        if matrix.is_empty() {
            return Ok(matrix);
        }
        let placement = place(device)?;
        let started = Instant::now();
        let engine = self.batch_engine(placement, sources.len())?;
        let width = engine.batch_width().max(1);
        for (batch, rows) in sources.chunks(width).zip(matrix.chunks_mut(width * n)) {
            engine.search_batch(batch, limits, Keep::Distances(rows))?;
        }
        self.last = self.batches_ran(placement, device, started.elapsed());
        Ok(matrix)
    }

    /// Searches from `sources` (every vertex, in the order that makes
    /// batches cheap, where `None`) and reduces each batch as it comes;
    /// with `totals`, keeps per-vertex totals over them. Returns the
    /// sources in the order searched, and what they reduced to.
    pub fn reduce(
        &mut self,
        sources: Option<Vec<u32>>,
        totals: bool,
        limits: Limits,
        device: Device,
    ) -> Result<(Vec<u32>, Reduced)> {
        let (graph, n) = (self.graph, self.graph.vertex_count());
        if totals {
            bfs::graph::check_host_memory(24 * n as u64, "the per-vertex totals")
                .map_err(Error::OutputTooLarge)?;
        }
        if n == 0 {
            return Ok((Vec::new(), Reduced::new(0, 0, totals)));
        }
        let placement = place(device)?;
        let count = sources.as_ref().map_or(n as usize, Vec::len);
        let engine = self.batch_engine(placement, count)?;
        let sources = sources.unwrap_or_else(|| many::all_sources(graph, engine.batch_width()));
        let reduced = many::run(engine, n, &sources, limits, totals)?;
        self.last = self.batches_ran(placement, device, reduced.elapsed);
        Ok((sources, reduced))
    }

    /// `measure` of every vertex, from every vertex or from a sample of
    /// `(count, seed)`, as `bfs centrality` computes it.
    pub fn measure(
        &mut self,
        measure: Measure,
        sample: Option<(usize, u64)>,
        limits: Limits,
        device: Device,
    ) -> Result<Values> {
        let graph = self.graph;
        let sources = sample.map(|(count, seed)| sample_vertices(graph, count, seed));
        // From every vertex of an undirected graph, each vertex's own
        // search has its totals; otherwise they are summed over the sources.
        let totals = match measure {
            Measure::Eccentricity => sources.is_some(),
            Measure::Closeness | Measure::Harmonic => sources.is_some() || !graph.is_symmetric(),
        };
        let sampled = sources.is_some();
        let (list, reduced) = self.reduce(sources, totals, limits, device)?;
        let sources = match sampled {
            true => Sources::Sample(list),
            false => Sources::All(list),
        };
        let totals = || match &reduced.totals {
            Some(totals) => std::borrow::Cow::Borrowed(totals),
            None => std::borrow::Cow::Owned(centrality::own_totals(&reduced, sources.list())),
        };
        Ok(match measure {
            Measure::Closeness => Values::Floats(centrality::closeness(&totals(), &sources)),
            Measure::Harmonic => Values::Floats(centrality::harmonic(&totals(), &sources)),
            Measure::Eccentricity => {
                let found =
                    centrality::eccentricities(graph, &reduced, &sources, limits.depth_limit);
                Values::Counts(found.values)
            }
        })
    }

    /// The dependencies on `sources` (every vertex where `None`) that
    /// `wanted` asks for, in batches, as `bfs centrality --measure
    /// betweenness` adds them. The GPU's engine is made for the call: its
    /// batch takes what memory there is, the held searches freed first
    /// where it needs their room.
    pub fn betweenness(
        &mut self,
        sources: Option<Vec<u32>>,
        wanted: Wanted,
        device: Device,
    ) -> Result<Dependencies> {
        let (graph, n) = (self.graph, self.graph.vertex_count());
        let placement = place(device)?;
        let count = sources.as_ref().map_or(n as usize, Vec::len);
        let run = match placement {
            Placement::Gpu(gpu) => {
                let mut engine = match betweenness::gpu_engine(gpu, graph, count, wanted, None) {
                    Err(Error::DeviceMemory { .. }) => {
                        (self.search, self.batches) = (None, None);
                        betweenness::gpu_engine(gpu, graph, count, wanted, None)
                    }
                    engine => engine,
                }?;
                let width = engine.batch_width();
                let sources = sources.unwrap_or_else(|| many::all_sources(graph, width));
                let run = betweenness::run(engine.as_mut(), &sources)?;
                self.last.device = engine.describe();
                self.last.plan = format!("betweenness batches on {}", gpu.name());
                run
            }
            Placement::Cpu => {
                let mut engine = CpuBetweenness::new(graph, wanted);
                let sources = sources.unwrap_or_else(|| (0..n).collect());
                let run = betweenness::run(&mut engine, &sources)?;
                (self.last.device, self.last.plan) = (engine.describe(), cpu_why(device));
                run
            }
        };
        (self.last.search, self.last.download) = (run.elapsed, Duration::ZERO);
        Ok(run.dependencies)
    }

    /// Betweenness as networkx gives it, from every vertex or a sample of
    /// `(count, seed)`; `(normalized, endpoints, edges)` as its arguments
    /// (`edges`: each arc's edge betweenness, in CSR order).
    pub fn rescaled_betweenness(
        &mut self,
        sample: Option<(usize, u64)>,
        (normalized, endpoints, edges): (bool, bool, bool),
        device: Device,
    ) -> Result<Vec<f64>> {
        let graph = self.graph;
        let n = graph.vertex_count();
        // As networkx, a sample of every vertex is every vertex.
        let sample = sample.filter(|&(count, _)| count < n as usize || edges);
        let sources = sample.map(|(count, seed)| sample_vertices(graph, count, seed));
        let wanted = Wanted {
            vertices: !edges,
            arcs: edges,
            endpoints,
        };
        let found = self.betweenness(sources.clone(), wanted, device)?;
        let scale = betweenness::Scale {
            normalized,
            directed: !graph.is_symmetric(),
            sampled: sources.as_deref(),
        };
        Ok(match edges {
            true => {
                let arcs = found.arcs.unwrap_or_default();
                let mut values = betweenness::edge_values(graph, &arcs);
                betweenness::rescale_edges(&mut values, n, scale);
                values
            }
            false => {
                let mut values = found.vertices.unwrap_or_default();
                betweenness::rescale_vertices(&mut values, n, scale, endpoints);
                values
            }
        })
    }

    /// The value of each arc `(tails[i], heads[i])` from arcs' sums in CSR
    /// order (an undirected graph's edge: its two arcs').
    pub fn pair_values(&self, arcs: &[f64], tails: &[u32], heads: &[u32]) -> Result<Vec<f64>> {
        betweenness::pair_values(self.graph, arcs, tails, heads)
    }

    /// Each vertex's weakly (`strong` false) or strongly connected
    /// component, labelled by its least vertex.
    pub fn components(&mut self, strong: bool, device: Device) -> Result<Components> {
        let graph = self.graph;
        let started = Instant::now();
        let found = match place(device)? {
            Placement::Gpu(gpu) => {
                let mut engine = match GpuComponents::new(gpu, graph) {
                    Err(Error::DeviceMemory { .. }) => {
                        (self.search, self.batches) = (None, None);
                        GpuComponents::new(gpu, graph)
                    }
                    engine => engine,
                }?;
                let found = match strong {
                    true => engine.strong()?,
                    false => engine.weak()?,
                };
                self.last.device = gpu.name().to_string();
                self.last.plan = match found.note {
                    Some(note) => note,
                    None => format!("components on {}", gpu.name()),
                };
                found.components
            }
            Placement::Cpu => {
                (self.last.device, self.last.plan) = ("CPU".into(), cpu_why(device));
                match strong {
                    true => components::strong_on_cpu(graph),
                    false => components::weak_on_cpu(graph),
                }
            }
        };
        (self.last.search, self.last.download) = (started.elapsed(), Duration::ZERO);
        Ok(found)
    }

    /// The last run's record for batches searched where `placement` says
    /// (for `device`) in `elapsed`.
    fn batches_ran(&self, placement: Placement, device: Device, elapsed: Duration) -> LastRun {
        let engine = self.batches.as_ref().map(|held| held.engine.describe());
        LastRun {
            device: engine.unwrap_or_default(),
            plan: match placement {
                Placement::Gpu(gpu) => format!("batches of many sources on {}", gpu.name()),
                Placement::Cpu => cpu_why(device),
            },
            search: elapsed,
            download: Duration::ZERO,
        }
    }

    /// The GPU search's device memory, where one is held.
    pub fn device_bytes(&self) -> Option<u64> {
        self.search.as_ref().map(|held| held.search.device_bytes())
    }

    /// Copies of the graph's CSR arrays: row offsets and column indices.
    pub fn csr(&self) -> (Vec<u64>, Vec<u32>) {
        (
            self.graph.row_offsets().to_vec(),
            self.graph.column_indices().to_vec(),
        )
    }

    /// Whether every edge has its reverse (a pass over the edges, once).
    pub fn is_symmetric(&self) -> bool {
        self.graph.is_symmetric()
    }
}

/// Why a call runs on the CPU, in words.
fn cpu_why(device: Device) -> String {
    match device {
        Device::Cpu => "device='cpu'".into(),
        _ => match crate::device::gpu() {
            Err(error) => format!("{error}; the CPU instead"),
            Ok(_) => "the CPU".into(),
        },
    }
}
