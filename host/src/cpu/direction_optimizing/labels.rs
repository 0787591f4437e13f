//! Each vertex's label, its level and parent in one 64-bit word, and the
//! two level steps over the labels: gapbs's `TDStep` and `BUStep` (Beamer,
//! Asanović and Patterson, *Direction-Optimizing Breadth-First Search*,
//! SC 2012).

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::{Csr, UNREACHED};

/// The label of a vertex reached at `level` from `parent`.
pub(super) fn label(level: u32, parent: u32) -> u64 {
    (level as u64) << 32 | parent as u64
}

/// The label of a vertex not yet reached, which has `degree` edges: the
/// level field all ones.
pub(super) fn unreached(degree: u32) -> u64 {
    (UNREACHED as u64) << 32 | degree as u64
}

/// Whether `label` is [`unreached`]'s.
pub(super) fn is_unreached(label: u64) -> bool {
    label >> 32 == UNREACHED as u64
}

/// What a search shares with its team: the graph and its labels.
pub(super) struct Labels<'a> {
    pub(super) graph: &'a Csr,
    pub(super) labels: &'a [AtomicU64],
}

impl Labels<'_> {
    /// gapbs's `TDStep` over some frontier vertices: claims their unvisited
    /// neighbours for `level`, queues them and returns their edges (the next
    /// `scout_count`).
    pub(super) fn top_down(&self, frontier: &[u32], level: u32, claimed: &mut Vec<u32>) -> u64 {
        let mut scout_count = 0;
        for &vertex in frontier {
            for &neighbour in self.graph.neighbours(vertex) {
                let neighbour_label = &self.labels[neighbour as usize];
                let found = neighbour_label.load(Relaxed);
                if is_unreached(found) {
                    neighbour_label.store(label(level, vertex), Relaxed);
                    claimed.push(neighbour);
                    scout_count += found as u32 as u64;
                }
            }
        }
        scout_count
    }

    /// gapbs's `BUStep` over some words of the bitmaps: every vertex there
    /// not yet settled that has a neighbour in `front` takes the first as
    /// its parent and `level` as its level. Returns how many did. The first
    /// level of a bottom-up phase finds the unsettled vertices by their
    /// parents, as gapbs's does, and records them in `settled` (with the
    /// vertices no level can find: those without edges, and the bits past
    /// the last vertex); the later ones read a bit instead of a parent, and
    /// skip a settled word whole.
    pub(super) fn bottom_up(
        &self,
        words: Range<usize>,
        (level, first_of_phase): (u32, bool),
        (front, next, settled): (&[AtomicU64], &[AtomicU64], &[AtomicU64]),
    ) -> usize {
        let vertex_count = self.labels.len();
        let mut awake_count = 0;
        for word in words {
            let first = word * 64;
            let mut settled_bits = if first_of_phase {
                let mut bits = 0;
                for bit in 0..64 {
                    let vertex = first + bit;
                    // Reached, or unreached without an edge.
                    let settled = |found| !is_unreached(found) || found == unreached(0);
                    if vertex >= vertex_count || settled(self.labels[vertex].load(Relaxed)) {
                        bits |= 1 << bit;
                    }
                }
                bits
            } else {
                settled[word].load(Relaxed)
            };
            let mut found = 0u64;
            let mut unsettled = !settled_bits;
            while unsettled != 0 {
                let vertex = first + unsettled.trailing_zeros() as usize;
                unsettled &= unsettled - 1;
                let in_front = |&&neighbour: &&u32| {
                    front[neighbour as usize / 64].load(Relaxed) & (1 << (neighbour % 64)) != 0
                };
                if let Some(&parent) = self.graph.neighbours(vertex as u32).iter().find(in_front) {
                    self.labels[vertex].store(label(level, parent), Relaxed);
                    found |= 1 << (vertex - first);
                    awake_count += 1;
                }
            }
            settled_bits |= found;
            next[word].store(found, Relaxed);
            settled[word].store(settled_bits, Relaxed);
        }
        awake_count
    }
}
