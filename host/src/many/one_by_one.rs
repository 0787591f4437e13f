//! Many sources one at a time: a [`ManySources`] engine whose batch is a
//! loop of single-source searches, by the parallel direction-optimizing
//! engine or the single-thread reference (Cormen et al., §22.2). It is
//! what the bit-parallel engine is measured against, and what
//! `--device cpu-reference` computes the measures with.

use super::{BatchCounts, Keep, Limits, ManySources};
use crate::{Csr, Result, UNREACHED, cpu};

/// Sources a batch of single searches takes: any number would do; this
/// many keep a progress bar moving.
const WIDTH: usize = 64;

/// A loop of single-source searches over one graph.
pub struct OneByOne<'g> {
    graph: &'g Csr,
    /// The parallel engine, or `None` for the single-thread reference.
    engine: Option<cpu::ParallelBfs>,
}

impl<'g> OneByOne<'g> {
    /// Single searches of `graph` by the parallel engine on `threads`
    /// threads, or by the reference where `threads` is `None`.
    pub fn new(graph: &'g Csr, threads: Option<usize>) -> Result<OneByOne<'g>> {
        let engine = threads.map(cpu::ParallelBfs::new).transpose()?;
        Ok(OneByOne { graph, engine })
    }
}

impl ManySources for OneByOne<'_> {
    fn batch_width(&self) -> usize {
        WIDTH
    }

    fn search_batch(
        &mut self,
        sources: &[u32],
        limits: Limits,
        mut keep: Keep<'_>,
    ) -> Result<BatchCounts> {
        keep.check(sources, self.graph.vertex_count())?;
        let n = self.graph.vertex_count() as usize;
        let mut counts = Vec::with_capacity(sources.len());
        for (index, &source) in sources.iter().enumerate() {
            let levels = match &mut self.engine {
                Some(engine) => engine.search(self.graph, source).levels,
                None => cpu::bfs(self.graph, source).levels,
            };
            let mut found = vec![0u64];
            for (vertex, &level) in levels.iter().enumerate() {
                let level = match level {
                    UNREACHED => None,
                    level => limits.allows(level).then_some(level),
                };
                if let Keep::Distances(rows) = &mut keep {
                    rows[index * n + vertex] = level.map_or(-1, |level| level as i32);
                }
                let Some(level) = level else {
                    continue;
                };
                if found.len() <= level as usize {
                    found.resize(level as usize + 1, 0);
                }
                found[level as usize] += 1;
                if let Keep::Totals(totals) = &mut keep {
                    totals.add_distance(vertex, level);
                }
            }
            counts.push(found);
        }
        Ok(counts)
    }

    fn describe(&self) -> String {
        match &self.engine {
            Some(engine) => format!(
                "CPU, {} threads, one source at a time (direction-optimizing)",
                engine.threads()
            ),
            None => "CPU, one thread, one source at a time (the reference)".into(),
        }
    }
}
