//! The engines of a run on the CPU: the parallel direction-optimizing
//! engine, the bit-parallel (or other) batches for `--sources`, and the
//! single-thread reference.

use std::time::Instant;

use bfs::many::{self, Limits, ManySources};
use bfs::{Bfs, Csr, cpu};

use super::engine::{Engine, Outcome};

/// The parallel CPU engine.
pub(super) struct ParallelCpu {
    pub(super) engine: cpu::ParallelBfs,
    /// Why the CPU: no GPU, or the options.
    pub(super) why: String,
    /// Whether `--threads` set its threads (else the graph's size did).
    pub(super) threads_asked: bool,
}

/// The single-thread reference.
pub(super) struct Reference;

/// Batches of many sources, for `--sources`: the GPU's, or the CPU's
/// bit-parallel ones.
pub(super) struct Batches<'g> {
    pub(super) engine: Box<dyn ManySources + 'g>,
    /// Why this engine: the graph, no GPU, or the options.
    pub(super) why: String,
}

impl Engine for ParallelCpu {
    fn search_seeds(
        &mut self,
        graph: &Csr,
        seeds: &[u32],
        depth_limit: Option<u32>,
    ) -> anyhow::Result<Outcome> {
        let started = Instant::now();
        let result = self.engine.search_within(graph, seeds, depth_limit);
        Ok(Outcome::timed(result, started.elapsed()))
    }

    fn plan_line(&self, graph: &Csr) -> String {
        let threads = match self.threads_asked {
            true => "asked for".to_string(),
            false => format!("for {} CSR entries", graph.edge_count()),
        };
        format!(
            "CPU, direction-optimizing engine on {} threads ({threads}): {}",
            self.engine.threads(),
            self.why
        )
    }

    fn device(&self) -> String {
        format!(
            "CPU (direction-optimizing BFS, {} threads)",
            self.engine.threads()
        )
    }
}

impl Engine for Reference {
    fn search_seeds(
        &mut self,
        graph: &Csr,
        seeds: &[u32],
        depth_limit: Option<u32>,
    ) -> anyhow::Result<Outcome> {
        let started = Instant::now();
        let result = cpu::bfs_within(graph, seeds, depth_limit);
        Ok(Outcome::timed(result, started.elapsed()))
    }

    fn plan_line(&self, _graph: &Csr) -> String {
        "CPU, the single-thread reference (--device cpu-reference)".into()
    }

    fn device(&self) -> String {
        "CPU (reference BFS, one thread)".into()
    }
}

impl Engine for Batches<'_> {
    /// Each source's distances an outcome of their own (no parents; the
    /// batch's time shared evenly among its sources).
    fn for_each(
        &mut self,
        graph: &Csr,
        sources: &[u32],
        depth_limit: Option<u32>,
        on_outcome: &mut dyn FnMut(Outcome) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let vertex_count = graph.vertex_count();
        let limits = Limits { depth_limit };
        let most_rows = 64 * rows_words(graph, sources.len());
        let sizes = (vertex_count, most_rows);
        many::with_distances(self.engine.as_mut(), sizes, sources, limits, &mut |batch| {
            let share = batch.elapsed / batch.sources.len() as u32;
            let rows = batch.rows.chunks(vertex_count as usize);
            for (&source, row) in batch.sources.iter().zip(rows) {
                let levels = row
                    .iter()
                    .map(|&level| u32::try_from(level).unwrap_or(bfs::UNREACHED))
                    .collect();
                let result = Bfs {
                    source,
                    levels,
                    parents: None,
                };
                on_outcome(Outcome::timed(result, share))?;
            }
            Ok(())
        })
    }

    fn plan_line(&self, _graph: &Csr) -> String {
        format!("{}: {}", self.engine.describe(), self.why)
    }

    fn device(&self) -> String {
        self.engine.describe()
    }

    fn batch_width(&self) -> Option<usize> {
        Some(self.engine.batch_width())
    }
}

/// Words a vertex for batches of `sources` sources whose distance rows
/// (`64 × words × n` `i32`s) fit in host memory: fewer where they would not.
pub(super) fn rows_words(graph: &Csr, sources: usize) -> usize {
    let mut words = many::words_for(sources);
    let row_bytes = 4 * 64 * graph.vertex_count() as u64;
    while words > 1 && bfs::graph::check_host_memory(row_bytes * words as u64, "rows").is_err() {
        words /= 2;
    }
    words
}
