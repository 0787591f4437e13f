//! The CPU engine: a parallel, direction-optimizing BFS (Beamer, Asanović
//! and Patterson, *Direction-Optimizing Breadth-First Search*, SC 2012, as
//! the GAP benchmark suite's `bfs.cc` runs it).
//!
//! Top-down levels expand the frontier, a queue: each member of the
//! [`Team`] takes chunks of it and claims the unvisited neighbours. A
//! vertex's label is one 64-bit word: its level and parent once reached,
//! and before that an unreached mark and its degree (gapbs keeps `-degree`
//! in an unreached parent for the same reason), so that a claim touches one
//! cache line, not three (parent, level, row offsets). A claim is a load
//! and a plain store, not a compare-and-swap: two members that claim one
//! vertex in the same level both store a valid label (both parents are
//! frontier vertices), and the vertex, queued twice, is expanded twice to
//! the same effect. Bottom-up levels turn the search
//! around: every unvisited vertex looks for a parent in the frontier, a
//! bitmap, and stops at the first; each member owns whole words of the next
//! bitmap, so it is written without atomics. gapbs's α/β rule, with its
//! α and β ([`Switch::GAPBS`]), switches between them.
//!
//! Two things make it fast on road networks, whose thousands of levels are
//! mostly small: a level with fewer than [`SEQUENTIAL_LEVEL_EDGES`] edges
//! runs on the calling thread alone, and the team's workers spin for a
//! short while (`team::SPIN_BEFORE_SLEEP`) after a parallel level instead of
//! sleeping, so the fork of a level that follows soon costs about a cache
//! miss. Nothing is
//! allocated per level: the queues and bitmaps are kept from search to
//! search.
//!
//! The search returns levels and parents split from the labels, with
//! [`UNREACHED`] for unreached vertices; the source is its own parent. It
//! also starts from several seeds at once and stops at a depth limit
//! ([`ParallelBfs::search_within`]).
//! Directed graphs run top-down only (bottom-up needs the in-edges).
//!
//! `frontier.rs` holds the top-down frontier and how members share its
//! chunks; `labels.rs` the labels and the two level steps over them.

pub(crate) mod frontier;
mod labels;

use bfs_kernels::abi::direction_optimizing::Switch;
use std::mem::MaybeUninit;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

use frontier::{Frontier, for_each_chunk, with_own_queue};
use labels::{Labels, is_unreached, label, unreached};

use super::team::Team;
use crate::{Bfs, Csr, UNREACHED};

/// A top-down level whose frontier has fewer edges than this runs on one
/// thread: below it, the fork and join cost more than the level.
pub const SEQUENTIAL_LEVEL_EDGES: u64 = 1024;

/// Frontier edges per member of a parallel top-down level: a level of `E`
/// edges runs on `E / EDGES_PER_MEMBER` members (at least two).
const EDGES_PER_MEMBER: u64 = 1024;

/// Bitmap words (64 vertices each) a member takes at a time in a
/// bottom-up level or a conversion between queue and bitmap.
const BITMAP_CHUNK_WORDS: usize = 16;

/// A parallel direction-optimizing BFS with its team and its buffers, kept
/// from one search to the next.
pub struct ParallelBfs {
    team: Team,
    /// The frontier of a top-down level: the queues the members filled.
    frontier: Frontier,
    /// Each member's queue of the vertices it claims in this level.
    claimed: Vec<Mutex<Vec<u32>>>,
    /// The frontier of a bottom-up level, one bit a vertex; all zero
    /// between bottom-up phases.
    front: Vec<AtomicU64>,
    /// The vertices a bottom-up level finds, one bit a vertex.
    next: Vec<AtomicU64>,
    /// Each vertex's label: [`label`] once reached, [`unreached`] before.
    labels: Vec<AtomicU64>,
    /// In a bottom-up phase, the vertices no later level needs to look at:
    /// those visited, those without edges, and the bits past the last
    /// vertex (written by the phase's first level).
    settled: Vec<AtomicU64>,
    /// How each level of the last search ran.
    steps: Vec<Step>,
}

/// How the engine ran a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Top-down on the calling thread alone (a small frontier).
    Sequential,
    /// Top-down on the whole team.
    TopDown,
    /// Bottom-up on the whole team.
    BottomUp,
}

impl ParallelBfs {
    /// An engine with a team of `threads` (the calling thread included).
    pub fn new(threads: usize) -> crate::Result<ParallelBfs> {
        let team = Team::new(threads).map_err(|error| crate::Error::Threads { threads, error })?;
        let claimed = (0..team.size()).map(|_| Mutex::new(Vec::new())).collect();
        Ok(ParallelBfs {
            team,
            frontier: Frontier::default(),
            claimed,
            front: Vec::new(),
            next: Vec::new(),
            labels: Vec::new(),
            settled: Vec::new(),
            steps: Vec::new(),
        })
    }

    /// Threads that search, the calling one included.
    pub fn threads(&self) -> usize {
        self.team.size()
    }

    /// How each level of the last search ran, from the source's on.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Breadth-first search from `source` (which must be a vertex of `graph`).
    pub fn search(&mut self, graph: &Csr, source: u32) -> Bfs {
        self.search_within(graph, &[source], None)
    }

    /// Breadth-first search from every one of `seeds` at once (vertices of
    /// `graph`, at least one), the vertices past `depth_limit` left
    /// unreached: as [`cpu::bfs_within`](crate::cpu::bfs_within).
    pub fn search_within(&mut self, graph: &Csr, seeds: &[u32], depth_limit: Option<u32>) -> Bfs {
        let vertex_count = graph.vertex_count() as usize;
        let words = vertex_count.div_ceil(64);
        if self.front.len() != words {
            self.front = (0..words).map(|_| AtomicU64::new(0)).collect();
            self.next = (0..words).map(|_| AtomicU64::new(0)).collect();
            self.settled = (0..words).map(|_| AtomicU64::new(0)).collect();
        }
        if self.labels.len() != vertex_count {
            self.labels = (0..vertex_count).map(|_| AtomicU64::new(0)).collect();
        }
        self.unreach_all(graph);
        let queue = self.claimed[0]
            .get_mut()
            .unwrap_or_else(|poison| poison.into_inner());
        for &seed in seeds {
            let label_of_seed = &self.labels[seed as usize];
            if is_unreached(label_of_seed.load(Relaxed)) {
                label_of_seed.store(label(0, seed), Relaxed);
                queue.push(seed);
            }
        }
        // The search borrows the labels, and the rest of the engine
        // mutably: the labels are taken out meanwhile.
        let labels = std::mem::take(&mut self.labels);
        self.search_from(
            &Labels {
                graph,
                labels: &labels,
            },
            depth_limit.unwrap_or(u32::MAX),
        );
        self.labels = labels;
        let (levels, parents) = self.split_labels();
        Bfs {
            source: seeds[0],
            levels,
            parents: Some(parents),
        }
    }

    /// gapbs's `DOBFS` loop: top-down until the frontier's edges outgrow
    /// the unexplored ones over α, then bottom-up while the frontier grows
    /// or holds more than `n / β` vertices. The levels go from the seeds
    /// the first member's queue holds, and stop after `last_level`.
    fn search_from(&mut self, labels: &Labels<'_>, last_level: u32) {
        let graph = labels.graph;
        let vertex_count = graph.vertex_count() as u64;
        let bottom_up_allowed = graph.is_symmetric();
        self.frontier.take(&mut self.claimed);
        let mut edges_to_check = graph.edge_count();
        let mut scout_count = self.frontier.pieces[0]
            .iter()
            .map(|&seed| graph.degree(seed) as u64)
            .sum();
        // The frontier's edges: `scout_count`, except after a bottom-up
        // phase, where gapbs's rule sets `scout_count` to 1 to force a
        // top-down level, and the real count decides whether it is small.
        let mut frontier_edges = scout_count;
        let mut level = 0;
        self.steps.clear();
        while self.frontier.len() > 0 && level < last_level {
            if bottom_up_allowed && Switch::GAPBS.goes_bottom_up(scout_count, edges_to_check) {
                self.queue_to_bitmap();
                let mut awake_count = self.frontier.len() as u64;
                let mut first_of_phase = true;
                loop {
                    let previous = awake_count;
                    level += 1;
                    awake_count = self.bottom_up_level(labels, (level, first_of_phase)) as u64;
                    first_of_phase = false;
                    self.steps.push(Step::BottomUp);
                    std::mem::swap(&mut self.front, &mut self.next);
                    if !Switch::GAPBS.stays_bottom_up(awake_count, previous, vertex_count)
                        || awake_count == 0
                        || level == last_level
                    {
                        break;
                    }
                }
                frontier_edges = self.bitmap_to_queue(graph);
                scout_count = 1;
            } else {
                edges_to_check = edges_to_check.saturating_sub(scout_count);
                level += 1;
                scout_count = self.top_down_level(labels, level, frontier_edges);
                frontier_edges = scout_count;
            }
        }
    }

    /// One top-down level, on the calling thread alone when it is small;
    /// returns the new frontier's edges.
    fn top_down_level(&mut self, labels: &Labels<'_>, level: u32, edges: u64) -> u64 {
        let frontier = &self.frontier;
        let total_scout_count = if edges < SEQUENTIAL_LEVEL_EDGES {
            self.steps.push(Step::Sequential);
            let claimed = self.claimed[0]
                .get_mut()
                .unwrap_or_else(|poison| poison.into_inner());
            frontier
                .pieces
                .iter()
                .map(|piece| labels.top_down(piece, level, claimed))
                .sum()
        } else {
            self.steps.push(Step::TopDown);
            // As many members as the level has work for: the others would
            // only contend for its chunks and move its cache lines.
            let active = (edges / EDGES_PER_MEMBER)
                .max(2)
                .min(self.team.size() as u64) as usize;
            let total = AtomicU64::new(0);
            self.team.fork_join_first(active, &|member| {
                let mut scout_count = 0;
                with_own_queue(&self.claimed[member], |claimed| {
                    frontier.for_each_chunk(member, |vertices| {
                        scout_count += labels.top_down(vertices, level, claimed);
                    });
                });
                total.fetch_add(scout_count, Relaxed);
            });
            total.into_inner()
        };
        self.frontier.take(&mut self.claimed);
        total_scout_count
    }

    /// One bottom-up level from `front` into `next`, the phase's first or a
    /// later one; returns the vertices it found.
    fn bottom_up_level(&self, labels: &Labels<'_>, level: (u32, bool)) -> usize {
        let cursor = AtomicUsize::new(0);
        let total = AtomicUsize::new(0);
        self.team.fork_join(&|_| {
            let mut awake_count = 0;
            for_each_chunk(&cursor, self.front.len(), BITMAP_CHUNK_WORDS, |words| {
                let bitmaps = (&self.front[..], &self.next[..], &self.settled[..]);
                awake_count += labels.bottom_up(words, level, bitmaps);
            });
            total.fetch_add(awake_count, Relaxed);
        });
        total.into_inner()
    }

    /// Sets the frontier's bits in `front` (all zero before).
    fn queue_to_bitmap(&self) {
        let frontier = &self.frontier;
        self.team.fork_join(&|member| {
            frontier.for_each_chunk(member, |vertices| {
                for &vertex in vertices {
                    self.front[vertex as usize / 64].fetch_or(1 << (vertex % 64), Relaxed);
                }
            });
        });
    }

    /// Makes `front`'s vertices the frontier queue, clearing `front`;
    /// returns the frontier's edges.
    fn bitmap_to_queue(&mut self, graph: &Csr) -> u64 {
        let cursor = AtomicUsize::new(0);
        let front = &self.front;
        let claimed = &self.claimed;
        let total_edges = AtomicU64::new(0);
        self.team.fork_join(&|member| {
            let mut edges = 0;
            with_own_queue(&claimed[member], |queue| {
                for_each_chunk(&cursor, front.len(), BITMAP_CHUNK_WORDS, |words| {
                    for word in words {
                        let mut bits = front[word].swap(0, Relaxed);
                        while bits != 0 {
                            let vertex = (word * 64) as u32 + bits.trailing_zeros();
                            queue.push(vertex);
                            edges += graph.degree(vertex) as u64;
                            bits &= bits - 1;
                        }
                    }
                });
            });
            total_edges.fetch_add(edges, Relaxed);
        });
        self.frontier.take(&mut self.claimed);
        total_edges.into_inner()
    }

    /// Marks every vertex of `graph` unreached, with its degree, the team's
    /// members a share each.
    fn unreach_all(&self, graph: &Csr) {
        let share = self.labels.len().div_ceil(self.team.size()).max(1);
        let offsets = graph.row_offsets();
        self.team.fork_join(&|member| {
            let first = member * share;
            let labels = self.labels.chunks(share).nth(member).unwrap_or_default();
            let ends = offsets.get(first..).unwrap_or_default().windows(2);
            for (label, ends) in labels.iter().zip(ends) {
                label.store(unreached((ends[1] - ends[0]) as u32), Relaxed);
            }
        });
    }

    /// The levels and parents the labels hold, [`UNREACHED`] where a vertex
    /// is unreached, written by the team's members a share each (so that
    /// their pages are faulted in in parallel too).
    fn split_labels(&self) -> (Vec<u32>, Vec<u32>) {
        let length = self.labels.len();
        let share = length.div_ceil(self.team.size()).max(1);
        let (mut levels, mut parents) = (Vec::with_capacity(length), Vec::with_capacity(length));
        type Share<'a> = (&'a mut [MaybeUninit<u32>], &'a mut [MaybeUninit<u32>]);
        let shares: Vec<Mutex<Share<'_>>> = levels.spare_capacity_mut()[..length]
            .chunks_mut(share)
            .zip(parents.spare_capacity_mut()[..length].chunks_mut(share))
            .map(Mutex::new)
            .collect();
        self.team.fork_join(&|member| {
            let Some(part) = shares.get(member) else {
                return;
            };
            let mut part = part.lock().unwrap_or_else(|poison| poison.into_inner());
            let (levels, parents) = &mut *part;
            let labels = &self.labels[member * share..];
            for ((level, parent), label) in levels.iter_mut().zip(parents.iter_mut()).zip(labels) {
                let found = label.load(Relaxed);
                let (found_level, found_parent) = if is_unreached(found) {
                    (UNREACHED, UNREACHED)
                } else {
                    ((found >> 32) as u32, found as u32)
                };
                level.write(found_level);
                parent.write(found_parent);
            }
        });
        drop(shares);
        // SAFETY: the shares cover the first `length` elements of both
        // spare capacities, and each member wrote every element of its own.
        unsafe {
            levels.set_len(length);
            parents.set_len(length);
        }
        (levels, parents)
    }
}
