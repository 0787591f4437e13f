//! Connected components: weak ones (connected, on an undirected graph)
//! and strongly connected ones, on the GPU (`kernels/src/components.rs`:
//! union–find, and reachability signatures) or on the CPU (union–find, and
//! Tarjan's search).
//!
//! Every engine labels each vertex with the least vertex id of its
//! component, so that labels compare across engines and runs, and with
//! networkx's components as sets.

mod cpu;
mod gpu;

pub use cpu::{strong_in_search_order, strong_on_cpu, weak_on_cpu};
pub use gpu::{Found, GpuComponents, MOST_SWEEPS};

use rayon::prelude::*;

/// Which components.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Weakly connected: joined by paths that ignore the arcs' directions
    /// (on an undirected graph, connected).
    Weak,
    /// Strongly connected: each vertex reaches every other.
    Strong,
}

impl Kind {
    /// The kind in words, as reports name it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Weak => "weakly connected",
            Kind::Strong => "strongly connected",
        }
    }
}

/// Each vertex's component.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Components {
    /// Each vertex's label: its component's least vertex.
    pub labels: Vec<u32>,
}

/// What a labelling sums to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Components.
    pub count: u32,
    /// The largest component's vertices, and its label (the least label
    /// among the largest).
    pub largest: (u32, u32),
}

impl Components {
    /// The count of components and the largest.
    pub fn summary(&self) -> Summary {
        let mut sizes = vec![0u32; self.labels.len()];
        for &label in &self.labels {
            sizes[label as usize] += 1;
        }
        let count = self
            .labels
            .par_iter()
            .enumerate()
            .filter(|&(vertex, &label)| vertex as u32 == label)
            .count() as u32;
        let largest = sizes
            .iter()
            .enumerate()
            .map(|(label, &size)| (size, u32::MAX - label as u32))
            .max()
            .map_or((0, 0), |(size, label)| (size, u32::MAX - label));
        Summary { count, largest }
    }
}
