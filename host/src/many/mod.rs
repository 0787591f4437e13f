//! Many sources at once: batches of breadth-first searches that share each
//! level's pass over the graph, and what is computed from them.
//!
//! A *batch* searches from up to [`ManySources::batch_width`] sources
//! together, a bit per source in each vertex's words (MS-BFS: Then,
//! Kaufmann, Chirigati, Hoang-Vu, Pham, Kemper, Neumann & Vo, "The More the
//! Merrier: Efficient Multi-Source Graph Traversal", VLDB 2015; on GPUs,
//! iBFS: Liu, Huang & Hu, SIGMOD 2016): one pass over a vertex's edges
//! serves every source of the batch. An engine (the CPU's, a GPU's) keeps
//! each source's distances only where asked for ([`Keep::Distances`]);
//! otherwise it reduces the levels as they go, into the vertices found at
//! each distance from each source ([`BatchCounts`]) and per-vertex totals
//! over every source ([`VertexTotals`]), which is all that closeness,
//! harmonic centrality, eccentricity and the distance histogram need.

pub mod betweenness;
pub mod centrality;
mod chain_sources;
mod choice;
mod cpu;
mod driver;
mod one_by_one;
mod source_parallel;

pub use chain_sources::ChainSources;
pub use choice::{
    BATCH_MOST_LEVELS, CpuMethod, GpuMethod, TREES_LEAST_SOURCES, cpu_method, gpu_method,
    prepared_hierarchy,
};
pub use cpu::{CpuBatches, MOST_WORDS, batch_threads, words_for};
pub use driver::{Reduced, Searched, all_sources, run, with_distances};
pub use one_by_one::OneByOne;
pub use source_parallel::SourceParallel;

use crate::Result;

pub mod gpu;
pub mod gpus;

/// How far a batch's searches go: every level, or at most `depth_limit`
/// levels past the sources (the vertices further stay unreached, as
/// cuGraph's `depth_limit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// The largest distance a search labels; `None`: no limit.
    pub depth_limit: Option<u32>,
}

impl Limits {
    /// Whether vertices at `distance` are searched.
    pub fn allows(self, distance: u32) -> bool {
        self.depth_limit.is_none_or(|limit| distance <= limit)
    }
}

/// For each source of a batch, in the batch's order, how many vertices lie
/// at each distance from it: `counts[i][d]` for source `i` and distance
/// `d` (`counts[i][0]` is 1, the source; the last entry is non-zero).
pub type BatchCounts = Vec<Vec<u64>>;

/// Per-vertex totals over the sources of every batch searched into them:
/// for vertex `v`, the sources that reached it, the sum of their distances
/// to it, the sum of the distances' reciprocals (a source is not counted
/// at its own vertex) and the largest such distance. On an undirected
/// graph searched from every vertex, a vertex's totals are its own search's
/// (closeness and harmonic centrality); on a directed graph they are the
/// distances *to* it, networkx's convention for closeness.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexTotals {
    /// Sources that reached each vertex, itself included where it is one.
    pub reached_by: Vec<u32>,
    /// Sum over those sources of the distance to the vertex.
    pub distance_sums: Vec<u64>,
    /// Sum over those sources, the vertex itself excluded, of 1 / distance.
    pub reciprocal_sums: Vec<f64>,
    /// Largest distance from any of those sources (0 where only itself).
    pub farthest: Vec<u32>,
}

impl VertexTotals {
    /// Totals for `vertex_count` vertices, before any search.
    pub fn new(vertex_count: u32) -> VertexTotals {
        let n = vertex_count as usize;
        VertexTotals {
            reached_by: vec![0; n],
            distance_sums: vec![0; n],
            reciprocal_sums: vec![0.0; n],
            farthest: vec![0; n],
        }
    }

    /// Adds a source that reaches `vertex` at `distance`.
    pub fn add_distance(&mut self, vertex: usize, distance: u32) {
        self.reached_by[vertex] += 1;
        self.distance_sums[vertex] += distance as u64;
        if distance > 0 {
            self.reciprocal_sums[vertex] += 1.0 / distance as f64;
        }
        self.farthest[vertex] = self.farthest[vertex].max(distance);
    }

    /// Adds `other`'s totals (of other sources) into these.
    pub fn add(&mut self, other: &VertexTotals) {
        for (total, &more) in self.reached_by.iter_mut().zip(&other.reached_by) {
            *total += more;
        }
        for (total, &more) in self.distance_sums.iter_mut().zip(&other.distance_sums) {
            *total += more;
        }
        for (total, &more) in self.reciprocal_sums.iter_mut().zip(&other.reciprocal_sums) {
            *total += more;
        }
        for (total, &more) in self.farthest.iter_mut().zip(&other.farthest) {
            *total = (*total).max(more);
        }
    }
}

/// What a batch keeps beside its [`BatchCounts`].
pub enum Keep<'a> {
    /// Nothing more.
    Counts,
    /// Adds every source's distances into these per-vertex totals: at
    /// once, or, where the engine holds them on its device from batch to
    /// batch, when [`ManySources::add_held_totals`] is called after the
    /// last batch.
    Totals(&'a mut VertexTotals),
    /// Every source's distances, row after row in the batch's order
    /// (`sources.len()` rows of the graph's vertex count), `-1` where a
    /// source does not reach a vertex (NumPy's int32 convention).
    Distances(&'a mut [i32]),
}

impl Keep<'_> {
    /// Checks a batch of `sources` against a graph of `vertex_count`
    /// vertices, before an engine searches it: every source a vertex, and
    /// what is kept sized for the graph (and the batch).
    pub fn check(&self, sources: &[u32], vertex_count: u32) -> Result<()> {
        check_vertices(sources, vertex_count)?;
        let fits = match self {
            Keep::Counts => true,
            Keep::Totals(totals) => totals.reached_by.len() == vertex_count as usize,
            Keep::Distances(rows) => rows.len() == sources.len() * vertex_count as usize,
        };
        match fits {
            true => Ok(()),
            false => Err(crate::Error::Unsupported(
                "the buffers kept do not match the batch and the graph".into(),
            )),
        }
    }
}

/// Checks that `sources` fit a batch of `width` and are vertices of a
/// graph of `vertex_count`.
pub(crate) fn check_batch(sources: &[u32], width: usize, vertex_count: u32) -> Result<()> {
    if sources.len() > width {
        return Err(crate::Error::Invalid(format!(
            "a batch of {} sources; this engine takes {width}",
            sources.len()
        )));
    }
    check_vertices(sources, vertex_count)
}

/// Checks that every one of `vertices` is a vertex of a graph of
/// `vertex_count`.
pub(crate) fn check_vertices(vertices: &[u32], vertex_count: u32) -> Result<()> {
    match vertices.iter().find(|&&vertex| vertex >= vertex_count) {
        Some(&vertex) => Err(crate::Error::SourceOutOfRange {
            vertex: vertex.into(),
            vertex_count,
        }),
        None => Ok(()),
    }
}

/// An engine that searches batches of sources over one graph it holds.
pub trait ManySources {
    /// Most sources one batch takes.
    fn batch_width(&self) -> usize;

    /// Searches from every source of `sources` (valid vertices, at most
    /// [`batch_width`](Self::batch_width), in any order, repeats allowed)
    /// within `limits`; returns each source's [`BatchCounts`] and fills
    /// what `keep` asks for. Each source's distances are exactly those of
    /// its own single search.
    fn search_batch(
        &mut self,
        sources: &[u32],
        limits: Limits,
        keep: Keep<'_>,
    ) -> Result<BatchCounts>;

    /// What the engine is, for reports: `CPU, 16 threads, 512 a batch`.
    fn describe(&self) -> String;

    /// Adds the per-vertex totals that the engine holds from the batches
    /// searched with [`Keep::Totals`] since the last call into `totals`,
    /// and starts them again. An engine that adds them at each batch (the
    /// CPU's) holds none.
    fn add_held_totals(&mut self, totals: &mut VertexTotals) -> Result<()> {
        let _ = totals;
        Ok(())
    }
}
