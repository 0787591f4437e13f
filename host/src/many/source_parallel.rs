//! Many sources on the CPU, a source a thread: rayon's threads each search
//! whole sources, one after another, with the textbook level-synchronous
//! BFS over a queue (Cormen et al., *Introduction to Algorithms*, §22.2)
//! and buffers of their own, as the all-pairs computations of networkx
//! and igraph loop over sources.
//!
//! It suits graphs of many levels, road networks above all: there, a
//! bit-parallel batch's sources reach a vertex over as many levels as
//! they lie apart, and the batch passes over the vertex's edges at each
//! of them, while a search of its own passes once (docs/many-sources.md).
//! Per-vertex totals are kept a thread each and added up at the end of a
//! batch.

use std::sync::Mutex;

use rayon::prelude::*;

use super::{BatchCounts, Keep, Limits, ManySources, VertexTotals};
use crate::{Csr, Result, UNREACHED};

/// Sources a batch takes for each thread: enough that adding up the
/// threads' totals at its end costs little beside the searches.
const SOURCES_PER_THREAD: usize = 256;

/// Whole searches on every thread of rayon's pool, over one graph.
pub struct SourceParallel<'g> {
    graph: &'g Csr,
    /// A thread's buffers and totals, by rayon's thread index.
    threads: Vec<Mutex<Own>>,
}

/// What a thread keeps between its searches.
#[derive(Default)]
struct Own {
    /// Each vertex's distance in the current search, [`UNREACHED`] between
    /// searches.
    levels: Vec<u32>,
    /// The current search's vertices, in the order found.
    queue: Vec<u32>,
    /// Totals over the thread's sources of this batch.
    totals: Option<VertexTotals>,
}

impl<'g> SourceParallel<'g> {
    /// An engine for `graph` on rayon's threads.
    pub fn new(graph: &'g Csr) -> SourceParallel<'g> {
        let threads = (0..rayon::current_num_threads())
            .map(|_| Mutex::new(Own::default()))
            .collect();
        SourceParallel { graph, threads }
    }

    /// Searches from `source` with `own`'s buffers within `limits`:
    /// returns its counts, with its distances in `row` (where given) and
    /// added into `own`'s totals (where kept).
    fn search(
        &self,
        own: &mut Own,
        source: u32,
        limits: Limits,
        row: Option<&mut [i32]>,
    ) -> Vec<u64> {
        let vertex_count = self.graph.vertex_count() as usize;
        if own.levels.len() != vertex_count {
            own.levels = vec![UNREACHED; vertex_count];
        }
        let Own {
            levels,
            queue,
            totals,
        } = own;
        queue.clear();
        queue.push(source);
        levels[source as usize] = 0;
        let mut counts = vec![1];
        let mut start = 0;
        let mut level = 0;
        while start < queue.len() && limits.allows(level + 1) {
            let end = queue.len();
            level += 1;
            for index in start..end {
                for &neighbour in self.graph.neighbours(queue[index]) {
                    if levels[neighbour as usize] == UNREACHED {
                        levels[neighbour as usize] = level;
                        queue.push(neighbour);
                    }
                }
            }
            if queue.len() > end {
                counts.push((queue.len() - end) as u64);
            }
            start = end;
        }
        if let Some(row) = row {
            row.fill(-1);
            for &vertex in queue.iter() {
                row[vertex as usize] = levels[vertex as usize] as i32;
            }
        }
        if let Some(totals) = totals {
            for &vertex in queue.iter() {
                totals.add_distance(vertex as usize, levels[vertex as usize]);
            }
        }
        for &vertex in queue.iter() {
            levels[vertex as usize] = UNREACHED;
        }
        counts
    }

    /// This thread's buffers.
    fn own(&self) -> std::sync::MutexGuard<'_, Own> {
        let thread = rayon::current_thread_index().unwrap_or(0) % self.threads.len();
        self.threads[thread]
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

impl ManySources for SourceParallel<'_> {
    fn batch_width(&self) -> usize {
        SOURCES_PER_THREAD * self.threads.len()
    }

    fn search_batch(
        &mut self,
        sources: &[u32],
        limits: Limits,
        keep: Keep<'_>,
    ) -> Result<BatchCounts> {
        let vertex_count = self.graph.vertex_count();
        keep.check(sources, vertex_count)?;
        let n = vertex_count as usize;
        let (rows, totals) = match keep {
            Keep::Counts => (None, None),
            Keep::Totals(totals) => (None, Some(totals)),
            Keep::Distances(rows) => (Some(rows), None),
        };
        for own in &mut self.threads {
            let own = own.get_mut().unwrap_or_else(|poison| poison.into_inner());
            own.totals = totals.as_ref().map(|_| VertexTotals::new(vertex_count));
        }
        let rows: Vec<Option<&mut [i32]>> = match rows {
            Some(rows) => rows.chunks_mut(n.max(1)).map(Some).collect(),
            None => sources.iter().map(|_| None).collect(),
        };
        let engine = &*self;
        let counts = sources
            .par_iter()
            .zip(rows)
            .map(|(&source, row)| engine.search(&mut engine.own(), source, limits, row))
            .collect();
        if let Some(totals) = totals {
            for own in &mut self.threads {
                let own = own.get_mut().unwrap_or_else(|poison| poison.into_inner());
                if let Some(partial) = own.totals.take() {
                    totals.add(&partial);
                }
            }
        }
        Ok(counts)
    }

    fn describe(&self) -> String {
        format!(
            "CPU, {} threads, a source a thread ({} a batch)",
            self.threads.len(),
            self.batch_width()
        )
    }
}
