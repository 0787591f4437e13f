//! The steps of a batch's level over the words of its vertices: the
//! top-down expansion and the settling of what it found, the bottom-up
//! scan, and the recording of a vertex's new bits (MS-BFS's
//! `visitNext`/`seen` updates, Then et al. VLDB 2015, §3).

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::MOST_WORDS;
use super::tally::Tally;
use crate::Csr;
use crate::many::VertexTotals;

/// Where a level's new bits go beside the counts.
pub(super) enum Sink<'a> {
    /// Only the counts.
    Counts,
    /// The batch's per-vertex sums.
    Totals(&'a Sums),
    /// Each source's distances: its row of the vertex count given.
    Rows(&'a [AtomicI32], usize),
}

/// A batch's sums per vertex, over the sources that reached it; each
/// vertex is written by the one member that finds it in a level.
pub(super) struct Sums {
    reached: Vec<AtomicU32>,
    distances: Vec<AtomicU64>,
    /// `f64` bits.
    reciprocals: Vec<AtomicU64>,
    farthest: Vec<AtomicU32>,
}

impl Sums {
    /// Zero sums for `vertex_count` vertices.
    pub(super) fn new(vertex_count: usize) -> Sums {
        Sums {
            reached: (0..vertex_count).map(|_| AtomicU32::new(0)).collect(),
            distances: (0..vertex_count).map(|_| AtomicU64::new(0)).collect(),
            reciprocals: (0..vertex_count).map(|_| AtomicU64::new(0)).collect(),
            farthest: (0..vertex_count).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    /// Adds `sources` sources that reach `vertex` at `level`.
    fn add(&self, vertex: u32, sources: u32, level: u32) {
        let vertex = vertex as usize;
        let reached = &self.reached[vertex];
        reached.store(reached.load(Relaxed) + sources, Relaxed);
        if level == 0 {
            return;
        }
        let distances = &self.distances[vertex];
        distances.store(
            distances.load(Relaxed) + sources as u64 * level as u64,
            Relaxed,
        );
        let reciprocals = &self.reciprocals[vertex];
        let sum = f64::from_bits(reciprocals.load(Relaxed)) + sources as f64 / level as f64;
        reciprocals.store(sum.to_bits(), Relaxed);
        self.farthest[vertex].store(level, Relaxed);
    }

    /// Adds the sums into `totals`, and zeroes them for the next batch.
    pub(super) fn flush(&self, totals: &mut VertexTotals) {
        let sums = (
            totals.reached_by.par_iter_mut(),
            totals.distance_sums.par_iter_mut(),
            totals.reciprocal_sums.par_iter_mut(),
            totals.farthest.par_iter_mut(),
        );
        sums.into_par_iter().enumerate().for_each(
            |(vertex, (reached, distances, reciprocals, farthest))| {
                *reached += self.reached[vertex].swap(0, Relaxed);
                *distances += self.distances[vertex].swap(0, Relaxed);
                *reciprocals += f64::from_bits(self.reciprocals[vertex].swap(0, Relaxed));
                *farthest = (*farthest).max(self.farthest[vertex].swap(0, Relaxed));
            },
        );
    }
}

/// Records `vertex`'s `new` bits, found at `level`: counted per source,
/// and summed where `sink` asks (rows are written a level at a time, by
/// [`write_rows`]).
pub(super) fn record(sink: &Sink<'_>, vertex: u32, new: &[u64], level: u32, tally: &mut Tally) {
    tally.count(new);
    if let Sink::Totals(sums) = sink {
        let found = new.iter().map(|bits| bits.count_ones()).sum();
        sums.add(vertex, found, level);
    }
}

/// Writes `level` into the rows of the sources that found `vertices` at
/// it (their bits in `next`), a word's 64 rows at a time, so that the
/// writes to a row go in the vertices' order.
pub(super) fn write_rows(
    (rows, vertex_count): (&[AtomicI32], usize),
    (next, words): (&[AtomicU64], usize),
    vertices: &[u32],
    level: u32,
) {
    for word in 0..words {
        for &vertex in vertices {
            let mut rest = next[vertex as usize * words + word].load(Relaxed);
            while rest != 0 {
                let source = word * 64 + rest.trailing_zeros() as usize;
                rows[source * vertex_count + vertex as usize].store(level as i32, Relaxed);
                rest &= rest - 1;
            }
        }
    }
}

/// Takes `vertices` out of a frontier: zeroes their words of `array` and
/// their words of `bits` (a bit a vertex, set for the frontier's vertices
/// only, so a whole word of it goes).
pub(super) fn clear((array, bits): (&[AtomicU64], &[AtomicU64]), words: usize, vertices: &[u32]) {
    for &vertex in vertices {
        for word in &array[vertex as usize * words..][..words] {
            word.store(0, Relaxed);
        }
        bits[vertex as usize / 64].store(0, Relaxed);
    }
}

/// What the members of a level share: the graph and the batch's words.
pub(super) struct Step<'a> {
    pub(super) graph: &'a Csr,
    pub(super) words: usize,
    pub(super) seen: &'a [AtomicU64],
    pub(super) frontier: &'a [AtomicU64],
    pub(super) next: &'a [AtomicU64],
    /// A bit a vertex: it has bits in `frontier`.
    pub(super) in_frontier: &'a [AtomicU64],
    /// A bit a vertex: it has bits in `next`.
    pub(super) in_next: &'a [AtomicU64],
    pub(super) claimed: &'a [Mutex<Vec<u32>>],
    pub(super) tallies: &'a [Mutex<Tally>],
}

impl Step<'_> {
    /// `vertex`'s words of `array`.
    fn of<'b>(&self, array: &'b [AtomicU64], vertex: u32) -> &'b [AtomicU64] {
        &array[vertex as usize * self.words..][..self.words]
    }

    /// `vertex`'s words of `array`, loaded.
    fn load(&self, array: &[AtomicU64], vertex: u32) -> [u64; MOST_WORDS] {
        let mut bits = [0; MOST_WORDS];
        for (bits, word) in bits.iter_mut().zip(self.of(array, vertex)) {
            *bits = word.load(Relaxed);
        }
        bits
    }

    /// The top-down expansion of some frontier vertices: each neighbour
    /// gains in `next` the vertex's frontier bits it has not seen, and is
    /// queued in `claimed` the first time it gains any this level.
    pub(super) fn expand(&self, vertices: &[u32], claimed: &mut Vec<u32>) {
        for &vertex in vertices {
            let frontier = self.load(self.frontier, vertex);
            for &neighbour in self.graph.neighbours(vertex) {
                let (seen, next) = (self.of(self.seen, neighbour), self.of(self.next, neighbour));
                let mut gained = false;
                for ((&bits, seen), next) in frontier.iter().zip(seen).zip(next) {
                    let new = bits & !seen.load(Relaxed);
                    if new != 0 {
                        gained = true;
                        // Most claims find the bits there already: a load
                        // spares the atomic's ownership of the line.
                        if new & !next.load(Relaxed) != 0 {
                            next.fetch_or(new, Relaxed);
                        }
                    }
                }
                if gained {
                    let (touched, bit) = (
                        &self.in_next[neighbour as usize / 64],
                        1 << (neighbour % 64),
                    );
                    if touched.load(Relaxed) & bit == 0 && touched.fetch_or(bit, Relaxed) & bit == 0
                    {
                        claimed.push(neighbour);
                    }
                }
            }
        }
    }

    /// Settles vertices a top-down expansion found at `level`: their new
    /// bits become seen and are recorded.
    pub(super) fn settle(
        &self,
        sink: &Sink<'_>,
        mask: &[u64; MOST_WORDS],
        level: u32,
        vertices: &[u32],
        tally: &mut Tally,
    ) {
        for &vertex in vertices {
            let new = self.load(self.next, vertex);
            let seen = self.load(self.seen, vertex);
            for ((word, &seen), &new) in self.of(self.seen, vertex).iter().zip(&seen).zip(&new) {
                word.store(seen | new, Relaxed);
            }
            self.tally_found(vertex, (&seen, &new), mask, tally);
            record(sink, vertex, &new[..self.words], level, tally);
        }
    }

    /// The edges of a vertex found, and of one the batch has now reached
    /// from every source, in `tally`.
    fn tally_found(
        &self,
        vertex: u32,
        (seen, new): (&[u64; MOST_WORDS], &[u64; MOST_WORDS]),
        mask: &[u64; MOST_WORDS],
        tally: &mut Tally,
    ) {
        let degree = self.graph.degree(vertex) as u64;
        tally.found_edges += degree;
        if (0..self.words).all(|word| seen[word] | new[word] == mask[word]) {
            tally.settled_edges += degree;
        }
    }

    /// The bottom-up scan of some vertices at `level`: each that some live
    /// source (`masks`: the batch's sources, and those whose frontier is
    /// not empty) has not reached ORs its neighbours' frontier words until
    /// every live bit is set; what it gains is its `next` words, seen and
    /// recorded, and it is queued in `claimed`.
    pub(super) fn bottom_up(
        &self,
        sink: &Sink<'_>,
        (mask, live): (&[u64; MOST_WORDS], &[u64; MOST_WORDS]),
        level: u32,
        vertices: Range<usize>,
        claimed: &mut Vec<u32>,
        tally: &mut Tally,
    ) {
        let words = self.words;
        for vertex in vertices {
            let vertex = vertex as u32;
            let seen = self.load(self.seen, vertex);
            if (0..words).all(|word| seen[word] & live[word] == live[word]) {
                continue;
            }
            let mut gained = [0; MOST_WORDS];
            for &neighbour in self.graph.neighbours(vertex) {
                // A bit in a small bitmap spares the line of words of a
                // neighbour outside the frontier.
                if self.in_frontier[neighbour as usize / 64].load(Relaxed) >> (neighbour % 64) & 1
                    == 0
                {
                    continue;
                }
                for (gained, bits) in gained.iter_mut().zip(self.of(self.frontier, neighbour)) {
                    *gained |= bits.load(Relaxed);
                }
                if (0..words).all(|word| (seen[word] | gained[word]) & live[word] == live[word]) {
                    break;
                }
            }
            let mut new = [0; MOST_WORDS];
            for word in 0..words {
                new[word] = gained[word] & !seen[word];
            }
            if new[..words].iter().all(|&bits| bits == 0) {
                continue;
            }
            let (seen_words, next_words) = (self.of(self.seen, vertex), self.of(self.next, vertex));
            for word in 0..words {
                seen_words[word].store(seen[word] | new[word], Relaxed);
                next_words[word].store(new[word], Relaxed);
            }
            self.in_next[vertex as usize / 64].fetch_or(1 << (vertex % 64), Relaxed);
            claimed.push(vertex);
            self.tally_found(vertex, (&seen, &new), mask, tally);
            record(sink, vertex, &new[..words], level, tally);
        }
    }
}
