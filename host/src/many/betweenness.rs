//! Betweenness centrality, of vertices and of edges, exact from every
//! vertex or estimated from a sample of sources: Brandes's two sweeps
//! ("A Faster Algorithm for Betweenness Centrality", 2001) from batches
//! of sources (`kernels/src/many_sources/betweenness.rs` on the GPU, or
//! `betweenness_blocks.rs` for deep graphs, chosen by [`gpu_engine`];
//! [`CpuBetweenness`] on every core).
//!
//! An engine adds up, over the sources it is given, each vertex's
//! dependencies on them ([`Dependencies`]: the sources themselves left
//! out, networkx's `_accumulate_basic`; with `endpoints`, its
//! `_accumulate_endpoints`) and each arc's share of them (its
//! `_accumulate_edges`, an arc at a time: an undirected edge's value is
//! its two arcs'). Those sums are over ordered pairs of a source and a
//! target; [`rescale_vertices`] and [`rescale_edges`] turn them into
//! networkx's values (its `_rescale`: `normalized`, an undirected graph's
//! pairs counted once, a sample's sources scaled apart).

use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::check_vertices;
use crate::graph::Progress;
use crate::{Csr, Error, Result};

mod cpu;

pub use cpu::CpuBetweenness;

/// What a run adds up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wanted {
    /// Each vertex's dependencies.
    pub vertices: bool,
    /// Each arc's share of them.
    pub arcs: bool,
    /// networkx's `endpoints`: a vertex also counts each source that
    /// reaches it, and a source the vertices it reaches.
    pub endpoints: bool,
}

/// Dependencies summed over the sources searched, where asked for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dependencies {
    /// A value a vertex.
    pub vertices: Option<Vec<f64>>,
    /// A value an arc, in CSR order.
    pub arcs: Option<Vec<f64>>,
}

impl Dependencies {
    /// Zero sums for `graph`, of what `wanted` asks for.
    pub fn zero(graph: &Csr, wanted: Wanted) -> Dependencies {
        Dependencies {
            vertices: wanted
                .vertices
                .then(|| vec![0.0; graph.vertex_count() as usize]),
            arcs: wanted.arcs.then(|| vec![0.0; graph.edge_count() as usize]),
        }
    }

    /// Adds `other`'s sums (of other sources) into these.
    pub fn add(&mut self, other: &Dependencies) {
        let pairs = [
            (&mut self.vertices, &other.vertices),
            (&mut self.arcs, &other.arcs),
        ];
        for (sums, more) in pairs {
            if let (Some(sums), Some(more)) = (sums.as_mut(), more) {
                sums.par_iter_mut()
                    .zip(more.par_iter())
                    .for_each(|(sum, more)| *sum += more);
            }
        }
    }
}

/// An engine that adds the dependencies on batches of sources.
pub trait Betweenness {
    /// Most sources one batch takes.
    fn batch_width(&self) -> usize;

    /// Adds the dependencies on every source of `sources` (vertices of the
    /// graph, at most [`batch_width`](Self::batch_width)) into the sums
    /// the engine holds.
    fn add_batch(&mut self, sources: &[u32]) -> Result<()>;

    /// The sums held, which start again from zero.
    fn take(&mut self) -> Result<Dependencies>;

    /// What the engine is, for reports: `CPU, 16 threads`.
    fn describe(&self) -> String;
}

/// A finished run.
#[derive(Clone, Debug)]
pub struct Run {
    /// The dependencies on every source.
    pub dependencies: Dependencies,
    /// Batches searched.
    pub batches: usize,
    /// The engine's time, the last batch's sums read back included.
    pub elapsed: Duration,
}

/// Adds the dependencies on every one of `sources` in batches of the
/// engine's width. A bar shows the progress of a long run on a terminal.
pub fn run(engine: &mut dyn Betweenness, sources: &[u32]) -> Result<Run> {
    let progress = Progress::sources(&engine.describe(), sources.len() as u64);
    let started = Instant::now();
    let mut batches = 0;
    for batch in sources.chunks(engine.batch_width().max(1)) {
        engine.add_batch(batch)?;
        batches += 1;
        progress.advance(batch.len() as u64);
    }
    let dependencies = engine.take()?;
    progress.finish();
    Ok(Run {
        dependencies,
        batches,
        elapsed: started.elapsed(),
    })
}

/// How sums over ordered pairs become networkx's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale<'a> {
    /// Divided by the pairs that could pass through a vertex (networkx's
    /// default); else an undirected graph's pairs counted once.
    pub normalized: bool,
    /// Whether the graph is directed.
    pub directed: bool,
    /// The sampled sources, where the sums are from a sample.
    pub sampled: Option<&'a [u32]>,
}

/// networkx's `_rescale` of vertex betweenness over `vertex_count`
/// vertices, with or without `endpoints`: from a sample without them, a
/// sampled source's value is scaled by the other sampled sources (it is no
/// source of its own paths), others' by all of them.
pub fn rescale_vertices(values: &mut [f64], vertex_count: u32, scale: Scale<'_>, endpoints: bool) {
    let pairs_from = |n: f64| if endpoints { n } else { n - 1.0 };
    let targets = pairs_from(vertex_count as f64);
    if targets < 2.0 {
        return;
    }
    let correction = if scale.directed { 1.0 } else { 2.0 };
    let factor = |sources: f64| match scale.normalized {
        true => 1.0 / (sources * (targets - 1.0)),
        false => targets / (sources * correction),
    };
    match scale.sampled {
        Some(sampled) if !endpoints => {
            let count = sampled.len() as f64;
            let of_source = if count > 1.0 {
                factor(count - 1.0)
            } else {
                f64::NAN
            };
            let of_other = factor(count);
            let mut is_source = vec![false; values.len()];
            for &source in sampled {
                is_source[source as usize] = true;
            }
            values
                .par_iter_mut()
                .zip(is_source.par_iter())
                .for_each(|(value, &source)| {
                    *value *= if source { of_source } else { of_other };
                });
        }
        _ => {
            let sources = scale
                .sampled
                .map_or(targets, |sampled| sampled.len() as f64);
            multiply(values, factor(sources));
        }
    }
}

/// networkx's `_rescale` of edge betweenness (whose pairs count their
/// endpoints) over `vertex_count` vertices.
pub fn rescale_edges(values: &mut [f64], vertex_count: u32, scale: Scale<'_>) {
    let targets = vertex_count as f64;
    if targets < 2.0 {
        return;
    }
    let sources = scale
        .sampled
        .map_or(targets, |sampled| sampled.len() as f64);
    let factor = match (scale.normalized, scale.directed) {
        (true, _) => 1.0 / (sources * (targets - 1.0)),
        (false, true) => targets / sources,
        (false, false) => targets / (sources * 2.0),
    };
    multiply(values, factor);
}

/// Multiplies every value by `factor`, unless it is 1 (as networkx skips it).
fn multiply(values: &mut [f64], factor: f64) {
    if factor != 1.0 {
        values.par_iter_mut().for_each(|value| *value *= factor);
    }
}

/// Each arc's edge value from the arcs' sums: on a symmetric (undirected)
/// graph an edge's two arcs summed, each arc holding it; on a directed one
/// each arc's own.
pub fn edge_values(graph: &Csr, arcs: &[f64]) -> Vec<f64> {
    if !graph.is_symmetric() {
        return arcs.to_vec();
    }
    let offsets = graph.row_offsets();
    (0..graph.vertex_count())
        .into_par_iter()
        .flat_map_iter(|tail| {
            let first = offsets[tail as usize] as usize;
            graph
                .neighbours(tail)
                .iter()
                .enumerate()
                .map(move |(index, &head)| arcs[first + index] + arcs[arc_index(graph, head, tail)])
        })
        .collect()
}

/// The index of the arc `tail → head` of a symmetric graph, which has it.
fn arc_index(graph: &Csr, tail: u32, head: u32) -> usize {
    let first = graph.row_offsets()[tail as usize] as usize;
    first
        + graph
            .neighbours(tail)
            .binary_search(&head)
            .expect("a symmetric graph has every arc's reverse")
}

/// The value of each pair `(tails[i], heads[i])` from the arcs' sums: an
/// edge of an undirected graph its two arcs', a directed graph's arc its
/// own; 0 where the graph has no such arc (a self loop, which the CSR
/// drops).
pub fn pair_values(graph: &Csr, arcs: &[f64], tails: &[u32], heads: &[u32]) -> Result<Vec<f64>> {
    let n = graph.vertex_count();
    if tails.len() != heads.len() {
        return Err(Error::Invalid(format!(
            "{} tails and {} heads",
            tails.len(),
            heads.len()
        )));
    }
    check_vertices(tails, n)?;
    check_vertices(heads, n)?;
    let symmetric = graph.is_symmetric();
    let arc = |tail: u32, head: u32| {
        let first = graph.row_offsets()[tail as usize] as usize;
        graph
            .neighbours(tail)
            .binary_search(&head)
            .map_or(0.0, |index| arcs[first + index])
    };
    Ok(tails
        .par_iter()
        .zip(heads.par_iter())
        .map(|(&tail, &head)| match symmetric {
            true => arc(tail, head) + arc(head, tail),
            false => arc(tail, head),
        })
        .collect())
}

/// Levels a probe search must pass, each narrow, for a graph to count as
/// deep ([`is_deep`]).
pub const DEEP_LEVELS: usize = 64;

/// Whether `graph` is deep: whether a search from its highest-degree
/// vertex passes [`DEEP_LEVELS`] levels, each under a 64th of the
/// vertices. Deep graphs (road networks) go to a block a source
/// ([`GpuBlockBetweenness`](super::gpu::GpuBlockBetweenness)), where a
/// batch's lanes would mostly idle; the probe stops at the first wide
/// level, so a shallow graph costs it a few levels.
pub fn is_deep(graph: &Csr) -> bool {
    let n = graph.vertex_count();
    let Some(start) = (0..n).max_by_key(|&vertex| graph.neighbours(vertex).len()) else {
        return false;
    };
    let mut seen = vec![false; n as usize];
    seen[start as usize] = true;
    let mut frontier = vec![start];
    for _ in 0..DEEP_LEVELS {
        if frontier.is_empty() || frontier.len() as u64 * 64 > n as u64 {
            return false;
        }
        let mut next = Vec::new();
        for &vertex in &frontier {
            for &head in graph.neighbours(vertex) {
                if !std::mem::replace(&mut seen[head as usize], true) {
                    next.push(head);
                }
            }
        }
        frontier = next;
    }
    true
}

/// The GPU engine for `sources` sources of `graph`: a block a source where
/// the graph is deep ([`is_deep`]), else batches of lanes a source, of
/// `width` where given (`--batch-width`), else as wide as memory allows.
pub fn gpu_engine<'g>(
    gpu: &'g crate::gpu::Gpu,
    graph: &'g Csr,
    sources: usize,
    wanted: Wanted,
    width: Option<u32>,
) -> Result<Box<dyn Betweenness + 'g>> {
    use super::gpu::{GpuBetweenness, GpuBlockBetweenness};
    if width.is_none() && is_deep(graph) {
        let slots = GpuBlockBetweenness::slots_for(gpu, graph, sources, wanted)?;
        return Ok(Box::new(GpuBlockBetweenness::new(
            gpu, graph, slots, wanted,
        )?));
    }
    let width = match width {
        Some(width) => width,
        None => GpuBetweenness::width_for(gpu, graph, sources, wanted)?,
    };
    Ok(Box::new(GpuBetweenness::new(gpu, graph, width, wanted)?))
}

/// The dependencies on every one of `sources` with GPUs `0..gpus` of this
/// host sharing the batches: each holds the graph and takes the next
/// batch of its own width as it finishes one, and their sums are added at
/// the end.
pub fn run_on_gpus(graph: &Csr, gpus: u32, sources: &[u32], wanted: Wanted) -> Result<Run> {
    use std::sync::Mutex;
    use std::sync::atomic::Ordering;

    use crate::gpu::Gpu;

    let started = Instant::now();
    let next = Mutex::new(0usize);
    let shares = super::gpus::on_each_gpu(gpus, |ordinal, failed| {
        let gpu = Gpu::open_device(ordinal)?;
        let per_gpu = sources.len().div_ceil(gpus.max(1) as usize);
        let mut engine = gpu_engine(&gpu, graph, per_gpu, wanted, None)?;
        let width = engine.batch_width();
        let mut batches = 0;
        while !failed.load(Ordering::Relaxed) {
            let batch = {
                let mut first = next
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let batch = &sources[*first..(*first + width).min(sources.len())];
                *first += batch.len();
                batch
            };
            if batch.is_empty() {
                break;
            }
            engine.add_batch(batch)?;
            batches += 1;
        }
        Ok((engine.take()?, batches))
    })?;
    let mut dependencies = Dependencies::zero(graph, wanted);
    let mut batches = 0;
    for (sums, count) in shares {
        dependencies.add(&sums);
        batches += count;
    }
    Ok(Run {
        dependencies,
        batches,
        elapsed: started.elapsed(),
    })
}
