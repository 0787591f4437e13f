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
pub(super) const SOURCES_PER_THREAD: usize = 256;

/// Whole searches on every thread of rayon's pool, over one graph.
pub struct SourceParallel<'g> {
    graph: &'g Csr,
    threads: PerThread<Own>,
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

impl ThreadState for Own {
    fn totals(&mut self) -> &mut Option<VertexTotals> {
        &mut self.totals
    }
}

impl<'g> SourceParallel<'g> {
    /// An engine for `graph` on rayon's threads.
    pub fn new(graph: &'g Csr) -> SourceParallel<'g> {
        SourceParallel {
            graph,
            threads: PerThread::new(),
        }
    }
}

/// Searches `graph` from `source` with `own`'s buffers within `limits`:
/// returns its counts, with its distances in `row` (where given) and added
/// into `own`'s totals (where kept).
fn search(
    graph: &Csr,
    own: &mut Own,
    source: u32,
    limits: Limits,
    row: Option<&mut [i32]>,
) -> Vec<u64> {
    let vertex_count = graph.vertex_count() as usize;
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
            for &neighbour in graph.neighbours(queue[index]) {
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

impl ManySources for SourceParallel<'_> {
    fn batch_width(&self) -> usize {
        SOURCES_PER_THREAD * self.threads.count()
    }

    fn search_batch(
        &mut self,
        sources: &[u32],
        limits: Limits,
        keep: Keep<'_>,
    ) -> Result<BatchCounts> {
        let graph = self.graph;
        self.threads
            .search_batch(graph.vertex_count(), sources, keep, |own, source, row| {
                search(graph, own, source, limits, row)
            })
    }

    fn describe(&self) -> String {
        format!(
            "CPU, {} threads, a source a thread ({} a batch)",
            self.threads.count(),
            self.batch_width()
        )
    }
}

/// A thread's state between its whole searches: its buffers, and the
/// totals over its sources of a batch.
pub(super) trait ThreadState: Default + Send {
    /// The thread's totals of this batch, where kept.
    fn totals(&mut self) -> &mut Option<VertexTotals>;
}

/// A state for each of rayon's threads, and the batch that runs whole
/// searches on them, a source a thread: what the engines that search a
/// source at a time share.
pub(super) struct PerThread<S> {
    threads: Vec<Mutex<S>>,
}

impl<S: ThreadState> PerThread<S> {
    /// A fresh state for each of rayon's threads.
    pub(super) fn new() -> PerThread<S> {
        PerThread {
            threads: (0..rayon::current_num_threads())
                .map(|_| Mutex::new(S::default()))
                .collect(),
        }
    }

    /// Threads.
    pub(super) fn count(&self) -> usize {
        self.threads.len()
    }

    /// Searches from every one of `sources` (of a graph of `vertex_count`
    /// vertices) by `search` on rayon's threads, each with its thread's
    /// state and, where `keep` asks for distances, the source's row;
    /// totals, where kept, go a thread each and are added up at the end.
    pub(super) fn search_batch(
        &mut self,
        vertex_count: u32,
        sources: &[u32],
        keep: Keep<'_>,
        search: impl Fn(&mut S, u32, Option<&mut [i32]>) -> Vec<u64> + Sync,
    ) -> Result<BatchCounts> {
        keep.check(sources, vertex_count)?;
        let n = vertex_count as usize;
        let (rows, totals) = match keep {
            Keep::Counts => (None, None),
            Keep::Totals(totals) => (None, Some(totals)),
            Keep::Distances(rows) => (Some(rows), None),
        };
        for own in &mut self.threads {
            let own = own.get_mut().unwrap_or_else(|poison| poison.into_inner());
            *own.totals() = totals.as_ref().map(|_| VertexTotals::new(vertex_count));
        }
        let rows: Vec<Option<&mut [i32]>> = match rows {
            Some(rows) => rows.chunks_mut(n.max(1)).map(Some).collect(),
            None => sources.iter().map(|_| None).collect(),
        };
        let threads = &*self;
        let counts = sources
            .par_iter()
            .zip(rows)
            .map(|(&source, row)| search(&mut threads.own(), source, row))
            .collect();
        if let Some(totals) = totals {
            for own in &mut self.threads {
                let own = own.get_mut().unwrap_or_else(|poison| poison.into_inner());
                if let Some(partial) = own.totals().take() {
                    totals.add(&partial);
                }
            }
        }
        Ok(counts)
    }

    /// This thread's state.
    fn own(&self) -> std::sync::MutexGuard<'_, S> {
        let thread = rayon::current_thread_index().unwrap_or(0) % self.threads.len();
        self.threads[thread]
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}
