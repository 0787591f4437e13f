//! Feeding an engine its batches: the sources in the order that makes
//! batches cheap, and what the batches reduce to for the measures.
//!
//! A batch costs a pass over each vertex's edges for every level in which
//! some source of the batch has it in its frontier, so its sources should
//! reach each vertex at nearly the same level: on a road network, sources
//! near each other. [`all_sources`] orders every vertex by BFS-grown
//! partitions of a batch each (Karypis & Kumar's graph growing, as the
//! `partitioned` variant's renumbering), so that a batch is one compact
//! patch of the graph.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::{BatchCounts, Keep, Limits, ManySources, VertexTotals};
use crate::graph::Progress;
use crate::graph::reorder::Renumbering;
use crate::{Csr, Error, Result};

/// What the batches of a run reduce to.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduced {
    /// Each source's eccentricity (its greatest distance to a vertex it
    /// reaches), in the order of the sources given.
    pub eccentricities: Vec<u32>,
    /// Each source's reached vertices, itself included, in that order.
    pub reached: Vec<u32>,
    /// Each source's distances summed, in that order.
    pub distance_sums: Vec<u64>,
    /// Each source's distances' reciprocals summed (itself left out).
    pub reciprocal_sums: Vec<f64>,
    /// The (source, vertex) pairs at each distance, the sources
    /// themselves at 0: the distance histogram of ordered pairs.
    pub histogram: Vec<u64>,
    /// Per-vertex totals over the sources, where asked for.
    pub totals: Option<VertexTotals>,
    /// Batches searched.
    pub batches: usize,
    /// Time the engine took to search them.
    pub elapsed: Duration,
}

/// Every vertex of `graph`, in batches of `width` that are compact
/// patches of it (see the module's header).
pub fn all_sources(graph: &Csr, width: usize) -> Vec<u32> {
    let width = u32::try_from(width).unwrap_or(u32::MAX);
    Renumbering::grown_partitions(graph, width).old_ids
}

/// Searches from every one of `sources` (vertices of the engine's graph,
/// of `vertex_count` vertices) in batches of the engine's width, within
/// `limits`; reduces each batch's counts and, where `totals` asks, adds
/// its distances into per-vertex totals. A bar shows the progress of a
/// long run on a terminal.
pub fn run(
    engine: &mut dyn ManySources,
    vertex_count: u32,
    sources: &[u32],
    limits: Limits,
    totals: bool,
) -> Result<Reduced> {
    let mut reduced = Reduced::new(vertex_count, sources.len(), totals);
    let progress = Progress::sources(&engine.describe(), sources.len() as u64);
    for batch in sources.chunks(engine.batch_width().max(1)) {
        let keep = match &mut reduced.totals {
            Some(totals) => Keep::Totals(totals),
            None => Keep::Counts,
        };
        let started = Instant::now();
        let counts = engine.search_batch(batch, limits, keep)?;
        reduced.elapsed += started.elapsed();
        reduced.batches += 1;
        reduced.add_batch(&counts);
        progress.advance(batch.len() as u64);
    }
    if let Some(totals) = &mut reduced.totals {
        let started = Instant::now();
        engine.add_held_totals(totals)?;
        reduced.elapsed += started.elapsed();
    }
    progress.finish();
    Ok(reduced)
}

impl Reduced {
    /// Nothing reduced yet, for `sources` sources of a graph of
    /// `vertex_count` vertices, with per-vertex totals where `totals`.
    pub fn new(vertex_count: u32, sources: usize, totals: bool) -> Reduced {
        Reduced {
            eccentricities: Vec::with_capacity(sources),
            reached: Vec::with_capacity(sources),
            distance_sums: Vec::with_capacity(sources),
            reciprocal_sums: Vec::with_capacity(sources),
            histogram: Vec::new(),
            totals: totals.then(|| VertexTotals::new(vertex_count)),
            batches: 0,
            elapsed: Duration::ZERO,
        }
    }

    /// Adds a batch's counts, its sources after those added before: each
    /// source's sums on every core (a deep graph's sources have thousands
    /// of distances each), then the histogram.
    pub fn add_batch(&mut self, counts: &BatchCounts) {
        let sums: Vec<(u32, u32, u64, f64)> = counts
            .par_iter()
            .map(|source| {
                let at = || (0u64..).zip(source).skip(1);
                (
                    source.len().saturating_sub(1) as u32,
                    source.iter().sum::<u64>() as u32,
                    at().map(|(distance, &found)| distance * found).sum(),
                    at().map(|(distance, &found)| found as f64 / distance as f64)
                        .sum(),
                )
            })
            .collect();
        for (eccentricity, reached, distance_sum, reciprocal_sum) in sums {
            self.eccentricities.push(eccentricity);
            self.reached.push(reached);
            self.distance_sums.push(distance_sum);
            self.reciprocal_sums.push(reciprocal_sum);
        }
        let deepest = counts.iter().map(Vec::len).max().unwrap_or(0);
        let add = |mut pairs: Vec<u64>, source: &[u64]| {
            add_pairs(&mut pairs, source);
            pairs
        };
        let batch = counts
            .par_iter()
            .fold(|| vec![0u64; deepest], |pairs, source| add(pairs, source))
            .reduce(|| vec![0u64; deepest], |pairs, more| add(pairs, &more));
        add_pairs(&mut self.histogram, &batch);
    }

    /// Appends `later`'s sources after these, and adds its histogram,
    /// batches and time into these; per-vertex totals are added apart.
    pub fn append(&mut self, later: Reduced) {
        self.eccentricities.extend(later.eccentricities);
        self.reached.extend(later.reached);
        self.distance_sums.extend(later.distance_sums);
        self.reciprocal_sums.extend(later.reciprocal_sums);
        add_pairs(&mut self.histogram, &later.histogram);
        self.batches += later.batches;
        self.elapsed += later.elapsed;
    }
}

/// Adds the pairs at each distance of `more` into `histogram`, longer
/// where `more` is.
fn add_pairs(histogram: &mut Vec<u64>, more: &[u64]) {
    if histogram.len() < more.len() {
        histogram.resize(more.len(), 0);
    }
    for (pairs, &found) in histogram.iter_mut().zip(more) {
        *pairs += found;
    }
}

/// A batch searched with its distances kept.
pub struct Searched<'a> {
    /// Its sources.
    pub sources: &'a [u32],
    /// Their counts.
    pub counts: &'a BatchCounts,
    /// Their distances: a source's row after another's, `-1` where
    /// unreached.
    pub rows: &'a [i32],
    /// The engine's time for the batch.
    pub elapsed: Duration,
}

/// Searches from every one of `sources` in batches of the engine's
/// width, or `most_rows` where fewer, keeping each batch's distances
/// (`width × vertex_count` `i32`s) and handing them to `on_batch`, whose
/// error stops the run.
pub fn with_distances<E: From<Error>>(
    engine: &mut dyn ManySources,
    (vertex_count, most_rows): (u32, usize),
    sources: &[u32],
    limits: Limits,
    on_batch: &mut dyn FnMut(Searched<'_>) -> Result<(), E>,
) -> Result<(), E> {
    let width = engine.batch_width().min(most_rows).max(1);
    let mut rows = vec![0; width.min(sources.len()) * vertex_count as usize];
    for batch in sources.chunks(width) {
        let rows = &mut rows[..batch.len() * vertex_count as usize];
        let started = Instant::now();
        let counts = engine.search_batch(batch, limits, Keep::Distances(rows))?;
        on_batch(Searched {
            sources: batch,
            counts: &counts,
            rows,
            elapsed: started.elapsed(),
        })?;
    }
    Ok(())
}
