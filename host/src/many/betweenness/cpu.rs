//! Brandes's two sweeps on every core: a thread takes its share of a
//! batch's sources one after another, each a breadth-first search that
//! counts shortest paths and a sweep back over its order that gathers
//! each vertex's dependency from its successors, into sums of its own;
//! the threads' sums are added at the end of the batch.
//!
//! A vertex's dependency sums its successors' terms in its row's order,
//! each `σ(v) · ((1 + δ(w)) / σ(w))`, as the GPU's kernel does, so the
//! two give one source the same values to the bit.

use rayon::prelude::*;

use super::{Betweenness, Dependencies, Wanted};
use crate::many::check_batch;
use crate::{Csr, Result, UNREACHED};

/// Sources a batch: enough to keep every thread busy, few enough that a
/// progress bar moves.
const BATCH_WIDTH: usize = 1024;

/// The CPU engine over one graph.
pub struct CpuBetweenness<'g> {
    graph: &'g Csr,
    wanted: Wanted,
    sums: Dependencies,
}

impl<'g> CpuBetweenness<'g> {
    /// An engine adding what `wanted` asks for over `graph`.
    pub fn new(graph: &'g Csr, wanted: Wanted) -> CpuBetweenness<'g> {
        CpuBetweenness {
            graph,
            wanted,
            sums: Dependencies::zero(graph, wanted),
        }
    }
}

impl Betweenness for CpuBetweenness<'_> {
    fn batch_width(&self) -> usize {
        BATCH_WIDTH
    }

    fn add_batch(&mut self, sources: &[u32]) -> Result<()> {
        check_batch(sources, BATCH_WIDTH, self.graph.vertex_count())?;
        let share = sources.len().div_ceil(rayon::current_num_threads()).max(1);
        let (graph, wanted) = (self.graph, self.wanted);
        let partial = sources
            .par_chunks(share)
            .map(|sources| {
                let mut search = Search::new(graph, wanted);
                for &source in sources {
                    search.add_source(source);
                }
                search.sums
            })
            .reduce_with(|mut sums, more| {
                sums.add(&more);
                sums
            });
        if let Some(partial) = partial {
            self.sums.add(&partial);
        }
        Ok(())
    }

    fn take(&mut self) -> Result<Dependencies> {
        let zero = Dependencies::zero(self.graph, self.wanted);
        Ok(std::mem::replace(&mut self.sums, zero))
    }

    fn describe(&self) -> String {
        format!("CPU, {} threads", rayon::current_num_threads())
    }
}

/// One thread's searches: its labels, reused source after source, and its
/// sums.
struct Search<'g> {
    graph: &'g Csr,
    endpoint: f64,
    levels: Vec<u32>,
    sigma: Vec<f64>,
    delta: Vec<f64>,
    /// The vertices in the order the search reached them.
    order: Vec<u32>,
    sums: Dependencies,
}

impl<'g> Search<'g> {
    fn new(graph: &'g Csr, wanted: Wanted) -> Search<'g> {
        let n = graph.vertex_count() as usize;
        Search {
            graph,
            endpoint: f64::from(u8::from(wanted.endpoints)),
            levels: vec![UNREACHED; n],
            sigma: vec![0.0; n],
            delta: vec![0.0; n],
            order: Vec::with_capacity(n),
            sums: Dependencies::zero(graph, wanted),
        }
    }

    /// Adds the dependencies on `source`, and leaves the labels as found.
    fn add_source(&mut self, source: u32) {
        let graph = self.graph;
        self.levels[source as usize] = 0;
        self.sigma[source as usize] = 1.0;
        self.order.push(source);
        let mut next = 0;
        while let Some(&vertex) = self.order.get(next) {
            next += 1;
            let (level, sigma) = (self.levels[vertex as usize], self.sigma[vertex as usize]);
            for &head in graph.neighbours(vertex) {
                let found = &mut self.levels[head as usize];
                if *found == UNREACHED {
                    *found = level + 1;
                    self.order.push(head);
                }
                if *found == level + 1 {
                    self.sigma[head as usize] += sigma;
                }
            }
        }
        let offsets = graph.row_offsets();
        for &vertex in self.order.iter().rev() {
            let v = vertex as usize;
            let (level, sigma) = (self.levels[v], self.sigma[v]);
            let first = offsets[v] as usize;
            let mut delta = 0.0;
            for (index, &head) in graph.neighbours(vertex).iter().enumerate() {
                let w = head as usize;
                if self.levels[w] != level + 1 {
                    continue;
                }
                let share = sigma * ((1.0 + self.delta[w]) / self.sigma[w]);
                delta += share;
                if let Some(arcs) = &mut self.sums.arcs {
                    arcs[first + index] += share;
                }
            }
            self.delta[v] = delta;
            if let Some(vertices) = &mut self.sums.vertices
                && vertex != source
            {
                vertices[v] += delta + self.endpoint;
            }
        }
        if let Some(vertices) = &mut self.sums.vertices {
            vertices[source as usize] += self.endpoint * (self.order.len() - 1) as f64;
        }
        for &vertex in &self.order {
            self.levels[vertex as usize] = UNREACHED;
            self.sigma[vertex as usize] = 0.0;
        }
        self.order.clear();
    }
}
