//! One GPU's part of a direction-optimizing search over several: the
//! search of Beamer, Buluç, Asanović & Patterson (IPDPSW 2013), 1D, owner
//! computes (`kernels/src/distributed.rs`).
//!
//! A rank holds its own vertices' rows, levels, parents and frontier
//! queues, and bitmaps over every vertex (visited, the frontier, the next
//! one, and where a bottom-up level's all-gather lands the frontier): its
//! memory is its share of the graph, its pieces of the hubs' lists (a
//! thirty-second of the CSR entries at most, over all ranks) and about `n / 2`
//! bytes, however many ranks there are.
//! - A top-down level expands the owned frontier; claims of other ranks'
//!   vertices go to their owners ([`claims`]), and each owner applies what
//!   it received. The hubs' lists ([`delegates`]) every rank walks a piece
//!   of: the neighbours it owns.
//! - A bottom-up level all-gathers the frontier's words (`n / 8` bytes in
//!   all), or reads them from the other GPUs' bitmaps where the ranks are
//!   threads whose GPUs reach each other's memory ([`Reach`]), or,
//!   where a top-down level left fewer frontier vertices than the bitmap
//!   has words, exchanges the ranks' queues; then it checks the owned
//!   unvisited vertices against them. What it reads in place it also
//!   marks visited, so the top-down levels after it claim none of those
//!   vertices.
//!
//! After each level the ranks pass each other each one's count of the
//! vertices it found and their degrees (threads at a meeting on the host,
//! processes by an all-gather): the sums that decide the next direction,
//! by gapbs's rule, the same on every rank: to bottom-up when the
//! frontier's edges exceed the unexplored edges over α, back when the
//! frontier shrinks below `n / β`. α is `direction-optimizing`'s
//! ([`LEVEL_BY_LEVEL`]): a top-down claim here costs an atomic and
//! a pair sent to its owner. At the end rank 0 gathers the labels into
//! host memory, a slice of each rank's at a time: no GPU ever holds every
//! vertex's.
//!
//! `setup.rs` sets a rank up; `top_down.rs` and `bottom_up.rs` run its two
//! kinds of level; `gather.rs` gathers the labels at the end.
//!
//! [`claims`]: super::claims
//! [`delegates`]: super::delegates
//! [`Reach`]: super::Reach

use std::ops::Range;
use std::time::{Duration, Instant};

use bfs_kernels::abi::distributed::{
    MEETING_FAILED, STATS_EDGES_WORD, STATS_RECEIVED_WORD, STATS_STATUS_WORD, STATS_WORDS,
};
use bfs_kernels::abi::{EdgeOffset, direction_optimizing, distributed};
use cust::memory::{AsyncCopyDestination, DeviceBuffer, LockedBuffer};

use super::claims::Claims;
use super::clock::ExchangeClock;
use super::delegates::Delegates;
use super::injected_failure::InjectedFailure;
use super::{Collectives, partition};
use crate::error::CudaContext;
use crate::gpu::hub_chunks::ChunkedTopDown;
use crate::gpu::{ByRowOffset, Direction, Entry, Gpu, LEVEL_BY_LEVEL, Step};
use crate::{Bfs, Error, Result, UNREACHED};

pub use super::claims::UNCOUNTED_SLOT_EDGES;

mod bottom_up;
mod gather;
mod setup;
mod top_down;

pub use setup::{Layout, parts_fit};

/// The most label words rank 0 receives from another rank at a time, in
/// the gather at a search's end.
const GATHER_WORDS: usize = 1 << 24;

/// One rank: its GPU, its collectives, its rows and the search's buffers.
pub struct Rank<'g> {
    gpu: &'g Gpu,
    communicator: Box<dyn Collectives>,
    /// Every rank's vertices; this rank's is `ranges[rank]`.
    ranges: Vec<Range<u32>>,
    owned: Range<u32>,
    vertex_count: u32,
    edge_count: EdgeOffset,
    symmetric: bool,
    kernels: Kernels<'g>,
    /// The owned rows, from the first owned vertex's (64 bits); the
    /// bottom-up kernel reads a 32-bit copy where they hold fewer than
    /// 2^32 entries.
    rows: DeviceBuffer<EdgeOffset>,
    columns: DeviceBuffer<u32>,
    /// Bitmaps over every vertex; `frontier` and `next` run
    /// `padded_words` past the last vertex's word, so that any rank's
    /// words, padded, lie within them.
    visited: DeviceBuffer<u32>,
    frontier: DeviceBuffer<u32>,
    next: DeviceBuffer<u32>,
    /// The frontier's words as a bottom-up level's all-gather lands them:
    /// `padded_words` for each rank, in rank order.
    gathered_frontier: DeviceBuffer<u32>,
    padded_words: usize,
    /// Where the ranks read each other's frontier words instead, where
    /// they lie.
    peer_frontiers: Option<PeerFrontiers>,
    /// The owned vertices' labels.
    levels: DeviceBuffer<u32>,
    parents: DeviceBuffer<u32>,
    /// The owned frontier, and the next one.
    queues: [DeviceBuffer<u32>; 2],
    /// How the frontier is held: the owned queue, or the owned words of
    /// `frontier`.
    frontier_in_queue: bool,
    hubs: ChunkedTopDown<'g>,
    /// The hubs whose lists every rank holds a piece of.
    delegates: Delegates<'g>,
    claims: Claims<'g>,
    /// This rank's figures of a level (`abi::distributed`'s layout), and
    /// every rank's, all-gathered; their copies in page-locked host
    /// memory, which a copy queued behind the kernels reaches as soon as
    /// they end. A rank's figures are [`STATS_WORDS`] words, then a bit
    /// for each delegate that the level found: `figure_words` in all.
    stats: DeviceBuffer<u32>,
    gathered_stats: DeviceBuffer<u32>,
    own_stats_on_host: LockedBuffer<u32>,
    stats_on_host: LockedBuffer<u32>,
    figure_words: usize,
    /// Rank 0's landing place for the other ranks' labels.
    staging: Option<DeviceBuffer<u32>>,
    exchange: ExchangeClock,
    /// Device bytes this rank's buffers take.
    allocated: u64,
    /// Searches started, for [`InjectedFailure`].
    searches: u32,
    /// The failure this rank is asked to fail with, in tests.
    injected_failure: Option<InjectedFailure>,
}

struct Kernels<'g> {
    top_down: Entry<'g, distributed::Expansion>,
    expand_hub_chunks: Entry<'g, distributed::Expansion>,
    bottom_up: ByRowOffset<'g, distributed::BottomUp<EdgeOffset>, distributed::BottomUp<u32>>,
    queue_to_bitmap: Entry<'g, direction_optimizing::QueueToBitmap>,
    bitmap_to_queue: Entry<'g, direction_optimizing::BitmapToQueue>,
    read_peer_frontiers: Entry<'g, distributed::PeerReading>,
    read_peer_queues: Entry<'g, distributed::PeerReading>,
}

/// Every rank's two frontier bitmaps and two queues, where the ranks read
/// each other's: the addresses of the buffers that were `frontier` and
/// `next`, and `queues[0]` and `queues[1]`, at setup, rank by rank. The
/// ranks swap each pair alike, level after level, so a rank's `frontier`
/// is the setup's `frontier` on every rank or on none, and so are its
/// queues.
struct PeerFrontiers {
    bitmaps: [DeviceBuffer<u64>; 2],
    queues: [DeviceBuffer<u64>; 2],
    /// This rank's setup `frontier` and `queues[0]`.
    first_frontier: u64,
    first_queue: u64,
    /// Each rank's word bounds, a pair a rank, and the most quads (four
    /// aligned words) a rank's words touch.
    rank_words: DeviceBuffer<u32>,
    most_quads: u32,
    /// Each rank's frontier queue's size, as the host last passed it.
    queue_sizes: DeviceBuffer<u32>,
    queue_sizes_on_host: LockedBuffer<u32>,
}

/// Each rank's figures of a level: the vertices it found (its part of the
/// next frontier), their edges, the level's status and the claim pairs
/// it read from the other GPUs; and the delegates it found, every
/// rank's bits together.
#[derive(Clone, Debug)]
struct Figures {
    vertices: Vec<u64>,
    edges: Vec<u64>,
    status: Vec<u32>,
    received_pairs: Vec<u64>,
    delegates: Vec<u32>,
}

impl Figures {
    fn vertices(&self) -> u64 {
        self.vertices.iter().sum()
    }

    fn edges(&self) -> u64 {
        self.edges.iter().sum()
    }

    /// Whether a rank's claims in round `round` overran a region.
    fn overflowed(&self, round: u32) -> bool {
        self.status.contains(&(round + 1))
    }
}

/// A finished search on one rank: its time and levels, and on rank 0 the
/// whole result.
pub struct RankRun {
    /// Wall time from the first level's start to the last level's end.
    pub elapsed: Duration,
    /// Each level's time, exchange included.
    pub steps: Vec<Step>,
    /// Levels and parents of every vertex, on rank 0 only.
    pub result: Option<Bfs>,
}

/// A rank's device memory: what its buffers take, and what its GPU had in
/// use once they were allocated (the context's and NCCL's included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RankMemory {
    /// Bytes of the rank's buffers.
    pub allocated: u64,
    /// Bytes in use on its GPU once they were allocated.
    pub in_use: u64,
}

impl<'g> Rank<'g> {
    fn rank(&self) -> u32 {
        self.communicator.rank()
    }

    /// Leaves the collectives at once, for a rank that stops on an error;
    /// returns whether kernels queued on its GPU may still wait for the
    /// others ([`Collectives::give_up`]).
    pub fn give_up(&self) -> bool {
        self.communicator.give_up()
    }

    /// Searches from `source` with the other ranks (every rank calls it
    /// with the same source), then gathers the labels on rank 0.
    pub fn search(&mut self, source: u32, degree_of_source: u32) -> Result<RankRun> {
        self.reset(source)?;
        // The ranks meet before the clock starts: a rank still uploading
        // its part, or rank 0 still checking the last search, would
        // otherwise be timed in the others' first collective; and the
        // links that sat idle meanwhile would wake in the first levels'
        // exchanges (docs/decisions.md, "Several GPUs"). Threads then meet
        // on the host too, and leave together: each leaves the exchange
        // when its own GPU has done its part, which is not at once.
        self.claims.meet(&*self.communicator, self.gpu.stream())?;
        if self.communicator.meets_on_host() {
            self.communicator.meet_on_host(&[])?;
        }
        let started = Instant::now();
        let steps = self.levels_from(source, degree_of_source);
        self.searches += 1;
        let steps = steps?;
        let elapsed = started.elapsed();
        let result = self.gather(source)?;
        Ok(RankRun {
            elapsed,
            steps,
            result,
        })
    }

    /// Clears the bitmaps, the labels and the figures, and places the
    /// source: visited everywhere; on its owner at level 0, its own
    /// parent, in the frontier queue.
    fn reset(&mut self, source: u32) -> Result<()> {
        let stream = self.gpu.stream();
        let context = || "initialising the search".to_string();
        let (word, bit) = ((source / 32) as usize, 1u32 << (source % 32));
        // SAFETY: memsets ordered on the one stream before any kernel that
        // reads these buffers; the host does not touch them meanwhile.
        unsafe {
            for bitmap in [&mut self.visited, &mut self.frontier, &mut self.next] {
                bitmap.set_zero_async(stream).context(context)?;
            }
            self.stats.set_zero_async(stream).context(context)?;
            self.visited
                .index(word..=word)
                .set_32_async(bit, stream)
                .context(context)?;
            for labels in [&mut self.levels, &mut self.parents] {
                labels.set_32_async(UNREACHED, stream).context(context)?;
            }
            if self.owned.contains(&source) {
                let at = (source - self.owned.start) as usize;
                self.levels
                    .index(at..=at)
                    .set_32_async(0, stream)
                    .context(context)?;
                self.parents
                    .index(at..=at)
                    .set_32_async(source, stream)
                    .context(context)?;
                self.queues[0]
                    .index(0..=0)
                    .set_32_async(source, stream)
                    .context(context)?;
            }
        }
        self.frontier_in_queue = true;
        Ok(())
    }

    /// Runs the levels; returns each one's time.
    fn levels_from(&mut self, source: u32, degree_of_source: u32) -> Result<Vec<Step>> {
        let n = self.vertex_count as u64;
        let ranks = self.ranges.len();
        let owner = self.ranges.iter().position(|range| range.contains(&source));
        let mut delegates = vec![0u32; self.delegates.choice().words()];
        if let Some(index) = self.delegates.choice().index_of(source) {
            delegates[index / 32] |= 1 << (index % 32);
        }
        // The source alone, on its owner.
        let vertices: Vec<u64> = (0..ranks).map(|r| (Some(r) == owner) as u64).collect();
        let mut frontier = Figures {
            delegates,
            status: vec![0; ranks],
            received_pairs: vec![0; ranks],
            edges: vertices
                .iter()
                .map(|&v| v * degree_of_source as u64)
                .collect(),
            vertices,
        };
        let mut edges_to_check = self.edge_count;
        let mut scout_count = degree_of_source as u64;
        let mut level = 0u32;
        let mut steps = Vec::new();
        while frontier.vertices() > 0 {
            if let Some(failure) = &self.injected_failure {
                failure.check(self.searches, level)?;
            }
            let started = Instant::now();
            if self.symmetric && LEVEL_BY_LEVEL.goes_bottom_up(scout_count, edges_to_check) {
                let mut started = started;
                loop {
                    let previous = frontier.vertices();
                    frontier = self.bottom_up_step(level, &frontier)?;
                    let awake = frontier.vertices();
                    let growing_or_large = LEVEL_BY_LEVEL.stays_bottom_up(awake, previous, n);
                    steps.push(self.step(level, started, Direction::BottomUp)?);
                    started = Instant::now();
                    level += 1;
                    if awake == 0 || !growing_or_large {
                        break;
                    }
                }
                scout_count = 1;
            } else {
                edges_to_check = edges_to_check.saturating_sub(scout_count);
                frontier = self.top_down_step(level, &frontier)?;
                scout_count = frontier.edges();
                steps.push(self.step(level, started, Direction::TopDown)?);
                level += 1;
            }
        }
        Ok(steps)
    }

    /// Level `level`'s step, which went in `direction`, started at
    /// `started` and has just ended, with its exchange.
    fn step(&mut self, level: u32, started: Instant, direction: Direction) -> Result<Step> {
        let step = Step::gpu_level(level, started).going(direction);
        Ok(Step {
            exchange: Some(self.exchange.take()?),
            ..step
        })
    }

    /// The level's figures of every rank, once its kernels have counted
    /// them: read back and passed between the ranks' threads where they
    /// meet on the host, else all-gathered and read back.
    fn figures(&mut self, found: u32) -> Result<Figures> {
        let stream = self.gpu.stream();
        let own_figures = self.stats.as_device_ptr();
        // SAFETY: the delegates' bits follow the figures' words.
        let delegate_bits = unsafe { own_figures.add(STATS_WORDS) };
        let owned = self.owned_labels(found);
        self.delegates
            .note(self.gpu, &owned, found, delegate_bits)?;
        let communicator = &*self.communicator;
        let context = || "reading the level's figures".to_string();
        let words = if communicator.meets_on_host() {
            // SAFETY: a copy on the stream after the level's kernels; the
            // page-locked words are read once the stream has passed it.
            unsafe {
                self.stats
                    .async_copy_to(&mut self.own_stats_on_host, stream)
            }
            .context(context)?;
            communicator.wait(stream)?;
            let arrived = Instant::now();
            let words = communicator.meet_on_host(&self.own_stats_on_host)?;
            self.exchange.met_on_host(arrived.elapsed());
            words
        } else {
            let (own, all) = (
                self.stats.as_device_ptr(),
                self.gathered_stats.as_device_ptr(),
            );
            self.exchange.time(stream, 0, || {
                communicator.all_gather(own, all, self.figure_words, stream)
            })?;
            // SAFETY: a copy on the stream after the all-gather; the
            // page-locked words are read once the stream has passed it.
            unsafe {
                self.gathered_stats
                    .async_copy_to(&mut self.stats_on_host, stream)
            }
            .context(context)?;
            communicator.wait(stream)?;
            self.stats_on_host.to_vec()
        };
        let word = |figures: &[u32], at: usize| figures[at] as u64 | (figures[at + 1] as u64) << 32;
        let ranks = words.chunks(self.figure_words);
        let mut delegates = vec![0u32; self.figure_words - STATS_WORDS];
        for figures in ranks.clone() {
            for (bits, rank_bits) in delegates.iter_mut().zip(&figures[STATS_WORDS..]) {
                *bits |= rank_bits;
            }
        }
        let figures = Figures {
            delegates,
            vertices: ranks.clone().map(|figures| figures[0] as u64).collect(),
            edges: ranks.clone().map(|f| word(f, STATS_EDGES_WORD)).collect(),
            status: ranks.clone().map(|f| f[STATS_STATUS_WORD]).collect(),
            received_pairs: ranks.map(|f| word(f, STATS_RECEIVED_WORD)).collect(),
        };
        if let Some(rank) = figures.status.iter().position(|&s| s == MEETING_FAILED) {
            return Err(Error::OtherRank(format!(
                "rank {rank}: not every other rank came to the meeting on the GPU within {} s (a rank stopped?)",
                communicator.timeout().as_secs_f64()
            )));
        }
        Ok(figures)
    }

    /// The bitmap words of `range`'s vertices, none for an empty range: a
    /// range starts at a multiple of 32, and the last takes the last word,
    /// however full.
    fn words_of(&self, range: &Range<u32>) -> Range<u32> {
        if range.is_empty() {
            return 0..0;
        }
        let end = if range.end == self.vertex_count {
            self.vertex_count.div_ceil(32)
        } else {
            range.end / 32
        };
        range.start / 32..end
    }
}
