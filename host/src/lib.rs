//! Breadth-first search on NVIDIA GPUs, with kernels written in Rust.
//!
//! The CPU side of the project:
//!
//! - [`graph`]: loading, generating and preparing graphs (CSR, `.bcsr`).
//! - [`cpu`]: the CPU reference search and the parallel CPU engine.
//! - [`gpu`]: the GPU driver, which loads the PTX built from the
//!   `bfs-kernels` crate and runs one of its variants, and `auto`.
//! - [`multi`]: one search over several GPUs (partition, NCCL, exchanges).
//! - [`many`]: batches of searches from many sources, and what is
//!   computed from them (closeness, betweenness).
//! - [`components`]: connected and strongly connected components.
//! - [`validate`]: a result checked against the CPU reference and the
//!   Graph500 rules.
//! - [`report`], [`phases`], [`plot`], [`output`]: what a run reports,
//!   where its time went, its chart, and where its output goes.
//! - [`error`]: the library's one error type.
//!
//! The benchmarks that write `BENCHMARKS.md` are a crate of their own
//! (`bench/`, the program `bfs-bench`), which this library does not link.
//!
//! [`graph`], [`cpu`], [`validate`], [`phases`], [`plot`] and [`output`]
//! need no GPU and call nothing of `cust`; [`gpu`], [`multi`] and the GPU
//! engines of [`many`] (`many::gpu`, `many::gpus`) and [`components`]
//! drive the device through `cust`;
//! [`report`] holds their figures, and [`error`] wraps the driver's
//! errors.
#![deny(missing_docs)]

pub mod components;
pub mod cpu;
pub mod error;
pub mod gpu;
pub mod graph;
pub mod many;
pub mod multi;
pub mod output;
pub mod phases;
pub mod plot;
pub mod report;
mod shared_library;
pub mod validate;

pub use bfs_kernels::abi;
pub use bfs_kernels::abi::UNREACHED;

/// Vertices below which a pass over a search's result runs on one thread:
/// waking every core costs more than it saves, and a caller waiting on one
/// small graph's search (from Python, say) would wait for it.
pub const ONE_THREAD_BELOW_VERTICES: u32 = 1 << 20;
pub use error::{Error, Result};
pub use graph::Csr;

use rayon::prelude::*;

/// The answer of one breadth-first search: its labels in vectors, or
/// (`Bfs<gpu::Labels>`, from [`gpu::Search::run_locked`]) where the device
/// copied them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bfs<Labels = Vec<u32>> {
    /// Source vertex.
    pub source: u32,
    /// Distance (number of edges) from the source, [`UNREACHED`] where none.
    pub levels: Labels,
    /// A BFS-tree parent per reached vertex (the source is its own parent),
    /// [`UNREACHED`] elsewhere; `None` when the variant does not record parents.
    pub parents: Option<Labels>,
}

impl<Labels> Bfs<Labels> {
    /// The same answer with its labels in other vectors.
    pub fn map<Other>(self, into: impl Fn(Labels) -> Other) -> Bfs<Other> {
        Bfs {
            source: self.source,
            levels: into(self.levels),
            parents: self.parents.map(into),
        }
    }
}

impl<Labels: std::ops::DerefMut<Target = [u32]>> Bfs<Labels> {
    /// Unlabels the vertices past `depth_limit` (their levels and parents
    /// become [`UNREACHED`]): a full search made a depth-limited one, as
    /// for a GPU variant that cannot stop early. Exact, since a vertex
    /// within the limit has its distance and a parent within it whatever
    /// lies beyond.
    pub fn limit_depth(&mut self, depth_limit: u32) {
        let parents = self.parents.as_deref_mut().unwrap_or_default();
        let beyond = |level: &u32| *level != UNREACHED && *level > depth_limit;
        if parents.is_empty() {
            self.levels
                .par_iter_mut()
                .filter(|level| beyond(level))
                .for_each(|level| *level = UNREACHED);
            return;
        }
        self.levels
            .par_iter_mut()
            .zip(parents)
            .filter(|(level, _)| beyond(level))
            .for_each(|(level, parent)| (*level, *parent) = (UNREACHED, UNREACHED));
    }
}

impl Bfs {
    /// Number of vertices reached, the source included.
    pub fn reached(&self) -> usize {
        self.levels
            .par_iter()
            .filter(|&&level| level != UNREACHED)
            .count()
    }

    /// A search's result from its `levels` alone (distances from `roots`,
    /// at level 0): each reached vertex's parent is its least in-neighbour
    /// one level nearer, a root its own, so the parents form a BFS forest.
    /// For engines that find distances only (the GPU's batches).
    pub fn from_levels(graph: &Csr, roots: &[u32], levels: Vec<u32>) -> Bfs {
        let reverse = graph.reversed();
        let in_rows = reverse.as_ref().unwrap_or(graph);
        let parents = (0..graph.vertex_count())
            .into_par_iter()
            .map(|vertex| match levels[vertex as usize] {
                UNREACHED => UNREACHED,
                0 => vertex,
                level => in_rows
                    .neighbours(vertex)
                    .iter()
                    .copied()
                    .find(|&tail| levels[tail as usize] == level - 1)
                    .unwrap_or(UNREACHED),
            })
            .collect();
        Bfs {
            source: roots.first().copied().unwrap_or(0),
            levels,
            parents: Some(parents),
        }
    }

    /// Number of levels (the source's is level 0): the depth of the search plus one.
    pub fn level_count(&self) -> u32 {
        self.levels
            .par_iter()
            .filter(|&&level| level != UNREACHED)
            .max()
            .map_or(0, |&depth| depth + 1)
    }

    /// Edges the search traversed: the out-degrees of the reached vertices
    /// summed, i.e. the CSR entries examined. The edge count behind GTEPS.
    pub fn edges_traversed(&self, graph: &Csr) -> u64 {
        let reached_degree = |vertex: u32| match self.levels[vertex as usize] {
            UNREACHED => 0,
            _ => graph.degree(vertex) as u64,
        };
        // Waking every core costs more than a small graph's pass.
        match graph.vertex_count() < ONE_THREAD_BELOW_VERTICES {
            true => (0..graph.vertex_count()).map(reached_degree).sum(),
            false => (0..graph.vertex_count())
                .into_par_iter()
                .map(reached_degree)
                .sum(),
        }
    }

    /// Graph500's count of the edges the search traversed: the input edge
    /// tuples within the component reached, duplicates and self loops
    /// included (half the tuples' ends at the reached vertices, as both
    /// ends of a tuple lie in one component). Known for graphs built from
    /// tuples of an undirected graph (the generated ones); for Kronecker
    /// graphs about half [`edges_traversed`](Self::edges_traversed).
    pub fn input_edges_traversed(&self, graph: &Csr) -> Option<u64> {
        let ends = graph.input_edge_ends()?;
        let reached_ends: u64 = ends
            .par_iter()
            .zip(&self.levels)
            .filter(|&(_, &level)| level != UNREACHED)
            .map(|(&ends, _)| ends as u64)
            .sum();
        Some(reached_ends / 2)
    }
}
