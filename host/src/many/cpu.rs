//! MS-BFS on the CPU: many breadth-first searches at once, a bit per
//! source in each vertex's words (Then, Kaufmann, Chirigati, Hoang-Vu,
//! Pham, Kemper, Neumann & Vo, "The More the Merrier: Efficient
//! Multi-Source Graph Traversal", VLDB 2015), each level top-down or
//! bottom-up by Beamer's rule on the batch's frontier (Beamer, Asanović &
//! Patterson, SC 2012).
//!
//! Every vertex holds `words` 64-bit words in each of three arrays:
//! `seen` (the sources that have reached it), `frontier` (those that
//! reached it at the last level) and `next` (at this one); source `i` of a
//! batch is bit `i % 64` of word `i / 64`. A top-down level ORs each
//! frontier vertex's words, less what a neighbour has seen, into the
//! neighbour's `next` words (atomically: two frontier vertices may share a
//! neighbour) and queues the neighbour the first time it gains a bit; a
//! second pass over the queued vertices makes their new bits seen and
//! records them. A bottom-up level (undirected graphs: it needs the
//! in-edges) has every vertex that some source of the batch has not yet
//! reached OR the frontier words of its neighbours in the frontier (a bit
//! a vertex says which), stopping as soon as every bit of the batch is
//! set; each vertex is written by the member that scans it. Either way one pass over a vertex's edges serves every source of the
//! batch, which is the technique's point.
//!
//! A level's new bits are recorded as they are found: counted per source
//! (the batch's [`BatchCounts`]) and summed per vertex ([`Keep::Totals`]);
//! distances ([`Keep::Distances`]) are written once the level is over, a
//! word's 64 rows at a time. The levels run on the
//! project's [`Team`] as the single-source engine's do, and a small level
//! on the calling thread alone. `levels.rs` holds the level steps,
//! `tally.rs` the counts, `memory.rs` the words and bitmaps.

mod levels;
mod memory;
mod tally;

use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicU64, AtomicUsize, Ordering::Relaxed};

use bfs_kernels::abi::direction_optimizing::Switch;
use rayon::prelude::*;

use super::{BatchCounts, Keep, Limits, ManySources};
use crate::cpu::direction_optimizing::frontier::{Frontier, for_each_chunk, with_own_queue};
use crate::cpu::team::Team;
use crate::cpu::{SEQUENTIAL_LEVEL_EDGES, Step};
use crate::{Csr, Error, Result};

use levels::Sink;
use memory::{Lines, atomic_rows, bitmap};
use tally::Tally;

/// Most 64-bit words a vertex holds per array: batches of up to 1,024
/// sources (docs/decisions.md, "Many sources on the CPU").
pub const MOST_WORDS: usize = 16;

/// Edge-words (an edge's words of one array) a member of a parallel level
/// is worth: a level of `W` of them runs on `W / WORDS_PER_MEMBER` members.
const WORDS_PER_MEMBER: u64 = 4096;

/// Vertices a member takes at a time in a bottom-up level or a clearing.
const VERTEX_CHUNK: usize = 1024;

/// The words of an engine whose batches take `sources` sources: enough
/// for them, a power of two, at most [`MOST_WORDS`].
pub fn words_for(sources: usize) -> usize {
    sources
        .div_ceil(64)
        .clamp(1, MOST_WORDS)
        .next_power_of_two()
}

/// Threads for batches of `words` words a vertex when none are asked
/// for: one per [`cpu::EDGES_PER_THREAD`](crate::cpu::EDGES_PER_THREAD)
/// edge-words of a level over every vertex, at most
/// [`cpu::MOST_THREADS`](crate::cpu::MOST_THREADS) and the hardware's.
pub fn batch_threads(graph: &Csr, words: usize) -> usize {
    let wanted = (graph.edge_count() * words as u64).div_ceil(crate::cpu::EDGES_PER_THREAD);
    let most = crate::cpu::hardware_threads().min(crate::cpu::MOST_THREADS) as u64;
    wanted.clamp(1, most) as usize
}

/// The bit-parallel CPU engine over one graph, with its team and bitsets
/// kept from batch to batch.
pub struct CpuBatches<'g> {
    graph: &'g Csr,
    team: Team,
    words: usize,
    /// `words` words a vertex: the sources that have reached it.
    seen: Lines,
    /// `words` words a vertex: the sources that reached it at the last level.
    frontier: Lines,
    /// `words` words a vertex: the sources that reach it at this level.
    next: Lines,
    /// A bit a vertex: it has bits in `frontier`.
    in_frontier: Vec<AtomicU64>,
    /// A bit a vertex: it has bits in `next` (queued, in a top-down level).
    in_next: Vec<AtomicU64>,
    /// The vertices with a bit in `frontier`.
    list: Frontier,
    /// The vertices found at this level, once the level is over.
    found: Frontier,
    /// Each member's queue of the vertices it finds.
    claimed: Vec<Mutex<Vec<u32>>>,
    /// Each member's counts at this level.
    tallies: Vec<Mutex<Tally>>,
    /// A batch's per-vertex sums, where [`Keep::Totals`] asks for them.
    sums: Option<levels::Sums>,
    /// How each level of the last batch ran.
    steps: Vec<Step>,
}

impl<'g> CpuBatches<'g> {
    /// An engine for `graph` on `threads` threads, with batches of up to
    /// `64 * words` sources (`words` from 1 to [`MOST_WORDS`], rounded up
    /// to a power of two, and halved while the bitsets would not fit in
    /// host memory).
    pub fn new(graph: &'g Csr, threads: usize, words: usize) -> Result<CpuBatches<'g>> {
        let mut words = words.clamp(1, MOST_WORDS).next_power_of_two();
        let vertex_count = graph.vertex_count() as usize;
        let bytes = |words: usize| 3 * 8 * (vertex_count * words) as u64 + vertex_count as u64 / 4;
        while words > 1 && crate::graph::check_host_memory(bytes(words), "").is_err() {
            words /= 2;
        }
        crate::graph::check_host_memory(bytes(words), "the batches' bitsets")
            .map_err(Error::GraphTooLarge)?;
        let team = Team::new(threads).map_err(|error| Error::Threads { threads, error })?;
        let members = team.size();
        // The one-time pass that decides whether bottom-up levels are
        // possible belongs to no batch.
        graph.is_symmetric();
        Ok(CpuBatches {
            graph,
            words,
            seen: Lines::new(vertex_count * words),
            frontier: Lines::new(vertex_count * words),
            next: Lines::new(vertex_count * words),
            in_frontier: bitmap(vertex_count),
            in_next: bitmap(vertex_count),
            list: Frontier::default(),
            found: Frontier::default(),
            claimed: (0..members).map(|_| Mutex::new(Vec::new())).collect(),
            tallies: (0..members)
                .map(|_| Mutex::new(Tally::new(64 * words)))
                .collect(),
            sums: None,
            steps: Vec::new(),
            team,
        })
    }

    /// Threads that search, the calling one included.
    pub fn threads(&self) -> usize {
        self.team.size()
    }

    /// How each level of the last batch ran, from the sources' first
    /// level on.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Checks a batch's width, its sources and what `keep` holds against
    /// the graph.
    fn check(&self, sources: &[u32], keep: &Keep<'_>) -> Result<()> {
        if sources.len() > self.batch_width() {
            return Err(Error::Unsupported(format!(
                "a batch of {} sources, past the engine's {}",
                sources.len(),
                self.batch_width()
            )));
        }
        keep.check(sources, self.graph.vertex_count())
    }

    /// The members a step of `work` edge-words runs on.
    fn members_for(&self, work: u64) -> usize {
        if work < SEQUENTIAL_LEVEL_EDGES {
            1
        } else {
            (work / WORDS_PER_MEMBER)
                .max(2)
                .min(self.team.size() as u64) as usize
        }
    }

    /// Sets every word of `array` to zero, the team a chunk at a time.
    fn clear(&self, array: &[AtomicU64]) {
        let cursor = AtomicUsize::new(0);
        let members = self.members_for(array.len() as u64);
        self.team.fork_join_first(members, &|_| {
            for_each_chunk(&cursor, array.len(), VERTEX_CHUNK * 8, |range| {
                for word in &array[range] {
                    word.store(0, Relaxed);
                }
            });
        });
    }

    /// Marks the batch's sources seen and in the frontier, queues them and
    /// records them at distance 0; returns the batch's mask and the edges
    /// of the sources' vertices.
    fn start(&mut self, sources: &[u32], sink: &Sink<'_>) -> ([u64; MOST_WORDS], u64) {
        let words = self.words;
        let mut mask = [0; MOST_WORDS];
        let mut queue = Vec::new();
        let mut edges = 0;
        for (index, &source) in sources.iter().enumerate() {
            let (word, bit) = (index / 64, 1u64 << (index % 64));
            mask[word] |= bit;
            let at = source as usize * words + word;
            if self.frontier.words()[source as usize * words..][..words]
                .iter()
                .all(|bits| bits.load(Relaxed) == 0)
            {
                queue.push(source);
                edges += self.graph.degree(source) as u64;
            }
            self.seen.words()[at].fetch_or(bit, Relaxed);
            self.frontier.words()[at].fetch_or(bit, Relaxed);
            self.in_frontier[source as usize / 64].fetch_or(1 << (source % 64), Relaxed);
        }
        let tally = self.tallies[0].get_mut().unwrap_or_else(|p| p.into_inner());
        for &source in &queue {
            let mut new = [0; MOST_WORDS];
            for (new, bits) in new
                .iter_mut()
                .zip(&self.frontier.words()[source as usize * words..][..words])
            {
                *new = bits.load(Relaxed);
            }
            levels::record(sink, source, &new[..words], 0, tally);
        }
        if let Sink::Rows(rows, vertex_count) = sink {
            for (index, &source) in sources.iter().enumerate() {
                rows[index * vertex_count + source as usize].store(0, Relaxed);
            }
        }
        *self.claimed[0].get_mut().unwrap_or_else(|p| p.into_inner()) = queue;
        self.list.take(&mut self.claimed);
        (mask, edges)
    }

    /// Adds each member's counts of the level into `counts`, and returns
    /// the edges of the vertices found and of those the whole batch has now
    /// reached.
    fn gather(&mut self, counts: &mut BatchCounts) -> (u64, u64) {
        let (mut found_edges, mut settled_edges) = (0, 0);
        for level in counts.iter_mut() {
            level.push(0);
        }
        let mut found = vec![0; counts.len().next_multiple_of(64)];
        for tally in &mut self.tallies {
            let tally = tally.get_mut().unwrap_or_else(|p| p.into_inner());
            tally.drain_into(&mut found);
            found_edges += std::mem::take(&mut tally.found_edges);
            settled_edges += std::mem::take(&mut tally.settled_edges);
        }
        for (source, &found) in counts.iter_mut().zip(&found) {
            *source.last_mut().expect("a count per level") = found;
        }
        (found_edges, settled_edges)
    }

    /// The batch's levels, from the sources' frontier on, within `limits`.
    fn levels(
        &mut self,
        sink: &Sink<'_>,
        (mask, mut frontier_edges): ([u64; MOST_WORDS], u64),
        limits: Limits,
        counts: &mut BatchCounts,
    ) {
        let bottom_up_allowed = self.graph.is_symmetric();
        let words = self.words as u64;
        // Edges of the vertices some source of the batch has not reached:
        // what a bottom-up level may scan.
        let mut unexplored = self.graph.edge_count();
        let mut level = 0;
        // The sources whose frontier is not empty: only they can still
        // reach a vertex, so a bottom-up scan waits for their bits alone.
        let mut live = mask;
        self.steps.clear();
        while self.list.len() > 0 && limits.allows(level + 1) {
            level += 1;
            let step =
                if bottom_up_allowed && Switch::GAPBS.goes_bottom_up(frontier_edges, unexplored) {
                    let members = self.members_for(unexplored.max(1) * words);
                    self.bottom_up(sink, (&mask, &live), level, members);
                    Step::BottomUp
                } else {
                    let members = self.members_for(frontier_edges * words);
                    self.top_down(sink, &mask, level, members);
                    if members == 1 {
                        Step::Sequential
                    } else {
                        Step::TopDown
                    }
                };
            self.steps.push(step);
            let (found_edges, settled_edges) = self.gather(counts);
            live = live_sources(counts);
            frontier_edges = found_edges;
            unexplored = unexplored.saturating_sub(settled_edges);
            // Settling the vertices found went through their chunks.
            self.found.rewind();
            if let Sink::Rows(rows, vertex_count) = sink {
                self.write_rows((rows, *vertex_count), level, frontier_edges * words);
            }
            std::mem::swap(&mut self.frontier, &mut self.next);
            std::mem::swap(&mut self.in_frontier, &mut self.in_next);
            std::mem::swap(&mut self.list, &mut self.found);
        }
        // A depth limit can stop the search with a frontier left.
        self.list.rewind();
        let list = &self.list;
        let (frontier, words) = ((self.frontier.words(), &self.in_frontier[..]), self.words);
        self.team
            .fork_join_first(self.members_for(list.len() as u64), &|member| {
                list.for_each_chunk(member, |vertices| levels::clear(frontier, words, vertices));
            });
        self.list.take(&mut self.claimed);
        for source in counts.iter_mut() {
            while source.len() > 1 && source.last() == Some(&0) {
                source.pop();
            }
        }
    }

    /// One top-down level on `members` members: the expansion, then the
    /// new bits made seen and recorded, and the last frontier's words cleared.
    fn top_down(&mut self, sink: &Sink<'_>, mask: &[u64; MOST_WORDS], level: u32, members: usize) {
        let step = self.step();
        let list = &self.list;
        self.team.fork_join_first(members, &|member| {
            with_own_queue(&step.claimed[member], |claimed| {
                list.for_each_chunk(member, |vertices| step.expand(vertices, claimed));
            });
        });
        self.found.take(&mut self.claimed);
        self.list.rewind();
        let step = self.step();
        let (list, found) = (&self.list, &self.found);
        let members = self.members_for((list.len() + found.len()) as u64 * self.words as u64);
        self.team.fork_join_first(members, &|member| {
            let mut tally = step.tallies[member]
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            found.for_each_chunk(member, |vertices| {
                step.settle(sink, mask, level, vertices, &mut tally);
            });
            list.for_each_chunk(member, |vertices| {
                levels::clear((step.frontier, step.in_frontier), step.words, vertices);
            });
        });
    }

    /// One bottom-up level on `members` members (`masks`: the batch's
    /// sources and its live ones), then the last frontier's words cleared.
    fn bottom_up(
        &mut self,
        sink: &Sink<'_>,
        masks: (&[u64; MOST_WORDS], &[u64; MOST_WORDS]),
        level: u32,
        members: usize,
    ) {
        let step = self.step();
        let cursor = AtomicUsize::new(0);
        let vertex_count = self.graph.vertex_count() as usize;
        self.team.fork_join_first(members, &|member| {
            let mut tally = step.tallies[member]
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            with_own_queue(&step.claimed[member], |claimed| {
                for_each_chunk(&cursor, vertex_count, VERTEX_CHUNK, |vertices| {
                    step.bottom_up(sink, masks, level, vertices, claimed, &mut tally);
                });
            });
        });
        self.found.take(&mut self.claimed);
        self.list.rewind();
        let (list, words) = (&self.list, self.words);
        let frontier = (self.frontier.words(), &self.in_frontier[..]);
        self.team
            .fork_join_first(self.members_for(list.len() as u64), &|member| {
                list.for_each_chunk(member, |vertices| levels::clear(frontier, words, vertices));
            });
    }

    /// Writes the level's distance into the rows of the sources that found
    /// each vertex of it, on members for `work` edge-words.
    fn write_rows(&mut self, rows: (&[AtomicI32], usize), level: u32, work: u64) {
        let (found, next, words) = (&self.found, self.next.words(), self.words);
        self.team
            .fork_join_first(self.members_for(work), &|member| {
                found.for_each_chunk(member, |vertices| {
                    levels::write_rows(rows, (next, words), vertices, level);
                });
            });
        self.found.rewind();
    }

    /// What the members of a level share.
    fn step(&self) -> levels::Step<'_> {
        levels::Step {
            graph: self.graph,
            words: self.words,
            seen: self.seen.words(),
            frontier: self.frontier.words(),
            next: self.next.words(),
            in_frontier: &self.in_frontier,
            in_next: &self.in_next,
            claimed: &self.claimed,
            tallies: &self.tallies,
        }
    }
}

/// The batch's sources that found a vertex at the level just counted (the
/// last of each source's counts), a bit each.
fn live_sources(counts: &BatchCounts) -> [u64; MOST_WORDS] {
    let mut live = [0; MOST_WORDS];
    for (source, counts) in counts.iter().enumerate() {
        if counts.last().is_some_and(|&found| found > 0) {
            live[source / 64] |= 1 << (source % 64);
        }
    }
    live
}

impl ManySources for CpuBatches<'_> {
    fn batch_width(&self) -> usize {
        64 * self.words
    }

    fn search_batch(
        &mut self,
        sources: &[u32],
        limits: Limits,
        keep: Keep<'_>,
    ) -> Result<BatchCounts> {
        self.check(sources, &keep)?;
        let vertex_count = self.graph.vertex_count() as usize;
        self.clear(self.seen.words());
        let (totals, rows) = match keep {
            Keep::Counts => (None, None),
            Keep::Totals(totals) => (Some(totals), None),
            Keep::Distances(rows) => {
                rows.par_iter_mut().for_each(|distance| *distance = -1);
                (None, Some(atomic_rows(rows)))
            }
        };
        let sums = totals.is_some().then(|| {
            self.sums
                .take()
                .unwrap_or_else(|| levels::Sums::new(vertex_count))
        });
        let sink = match (&sums, rows) {
            (Some(sums), _) => Sink::Totals(sums),
            (None, Some(rows)) => Sink::Rows(rows, vertex_count),
            (None, None) => Sink::Counts,
        };
        let mut counts: BatchCounts = vec![Vec::new(); sources.len()];
        let start = self.start(sources, &sink);
        self.gather(&mut counts);
        self.levels(&sink, start, limits, &mut counts);
        if let (Some(totals), Some(sums)) = (totals, &sums) {
            sums.flush(totals);
        }
        self.sums = sums;
        Ok(counts)
    }

    fn describe(&self) -> String {
        let threads = match self.threads() {
            1 => "1 thread".to_string(),
            threads => format!("{threads} threads"),
        };
        format!(
            "CPU, {threads}, {} a batch (bit-parallel MS-BFS)",
            self.batch_width()
        )
    }
}
