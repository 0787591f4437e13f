//! One GPU's part of a direction-optimizing search over several: the
//! search of Beamer, Buluç, Asanović & Patterson (IPDPSW 2013), 1D.
//!
//! Each rank holds the rows of the vertices it owns ([`partition`]) and
//! full-size copies of the frontier and visited bitmaps and of the labels;
//! it runs the single-GPU kernels of `direction-optimizing` on its rows and
//! exchanges each level's discoveries through NCCL, as `distributed`'s
//! kernels describe:
//! - a top-down level expands the owned frontier vertices; the ranks
//!   all-gather their claims (vertex, parent) in slots of one size, and
//!   each applies them all: the next frontier's bits, and for its own
//!   vertices their labels and its next owned queue. Cost: a slot of 8
//!   bytes a claim of the rank with the most, from every rank to every
//!   rank. The slots' size is the most claims, read back to the host; or,
//!   for a frontier of at most [`UNCOUNTED_SLOT_EDGES`] edges, those edges,
//!   which no rank's claims exceed: no round trip.
//! - a bottom-up level checks the owned unvisited vertices against the
//!   replicated frontier; the ranks all-gather the words of the next
//!   frontier they own. Cost: `n / 8` bytes to every rank.
//!
//! As every rank applies every claim and merges every word, each counts
//! the next frontier over all ranks itself (its edges from a replicated
//! array of degrees), and reads the counts back: one round trip a level
//! and no all-reduce. The direction follows gapbs's rule on those counts,
//! the same on every rank: to bottom-up when the frontier's edges exceed
//! the unexplored edges over α, back when the frontier shrinks below `n /
//! β`. α is `direction-optimizing`'s ([`LEVEL_BY_LEVEL_ALPHA`], 30, not
//! gapbs's 15): a top-down claim here costs an atomic and a pair to every
//! rank, yet a level of 2–3% of the unexplored edges runs about 2.5 times
//! faster top-down than bottom-up (BENCHMARKS.md).
//!
//! [`partition`]: super::partition

use std::ops::Range;
use std::time::{Duration, Instant};

use bfs_kernels::abi::distributed::{
    CLAIMS_PER_THREAD, FRONTIER_EDGES, FRONTIER_VERTICES, LEVEL_COUNTS, OWNED_VERTICES,
};
use bfs_kernels::abi::{BLOCK_SIZE, DIRECTION_BETA, EdgeOffset, direction_optimizing, distributed};
use cust::event::{Event, EventFlags};
use cust::function::Function;
use cust::launch;
use cust::memory::{CopyDestination, DeviceBuffer, DeviceCopy, DeviceSlice};
use cust::stream::Stream;

use super::Collectives;
use super::partition;
use crate::error::CudaContext;
use crate::gpu::RowOffsets;
use crate::gpu::hub_chunks::{ChunkedTopDown, TopDownLevel};
use crate::gpu::{
    Direction, Exchange, Gpu, LEVEL_BY_LEVEL_ALPHA, Step, blocks_for, copy_to_host, upload,
};
use crate::{Bfs, Csr, Error, Result, UNREACHED};

/// The most frontier edges for which a top-down level sizes the claims'
/// slots by the edges instead of reading back the ranks' claim counts: at
/// most 128 KB from each rank, against a round trip to the host.
pub const UNCOUNTED_SLOT_EDGES: u64 = 1 << 14;

/// One rank: its GPU, its collectives, its rows and the search's buffers.
pub struct Rank<'g> {
    gpu: &'g Gpu,
    communicator: Box<dyn Collectives>,
    /// Every rank's vertices; this rank's is `ranges[rank]`.
    ranges: Vec<Range<u32>>,
    vertex_count: u32,
    edge_count: EdgeOffset,
    symmetric: bool,
    kernels: Kernels<'g>,
    rows: DeviceBuffer<EdgeOffset>,
    /// The owned rows in 32 bits from the first owned vertex's, for the
    /// bottom-up kernel, where they hold fewer than 2^32 entries.
    narrow_owned_rows: Option<DeviceBuffer<u32>>,
    columns: DeviceBuffer<u32>,
    /// Every vertex's degree: what each rank needs to count the next
    /// frontier's edges over all ranks itself.
    degrees: DeviceBuffer<u32>,
    visited: DeviceBuffer<u32>,
    frontier: DeviceBuffer<u32>,
    next: DeviceBuffer<u32>,
    levels: DeviceBuffer<u32>,
    parents: DeviceBuffer<u32>,
    /// The owned frontier, and the next one.
    owned_queues: [DeviceBuffer<u32>; 2],
    /// The top-down kernels, hubs in chunks, and their buffers.
    top_down: ChunkedTopDown<'g>,
    /// This level's claims, then as this rank's slot, then every rank's
    /// slot (`distributed`'s slots, for as many claims as vertices).
    claims: DeviceBuffer<u32>,
    slot: DeviceBuffer<u32>,
    gathered_slots: DeviceBuffer<u32>,
    /// Counts a kernel writes: this rank's claims, its owned frontier
    /// queue's size.
    count: DeviceBuffer<u32>,
    /// Every rank's claim count.
    gathered_counts: DeviceBuffer<u32>,
    /// Where the top-down kernels and `bottom_up` add up their own
    /// counts, unread: the level's counts over all ranks come from the
    /// claims' apply and the bitmap's merge, in `level_counts`
    /// (`abi::distributed`'s layout).
    unread_edges: DeviceBuffer<u64>,
    unread_awake: DeviceBuffer<u32>,
    level_counts: DeviceBuffer<u64>,
    /// The current level's collectives, timed.
    exchange: ExchangeClock,
}

/// CUDA events around each of a level's collectives, and the bytes they
/// gathered: what the level's exchange cost.
struct ExchangeClock {
    /// A start and a stop event a collective, reused level after level.
    events: Vec<(Event, Event)>,
    /// Pairs recorded this level.
    recorded: usize,
    bytes: u64,
}

impl ExchangeClock {
    /// Runs `collective`, which queues work on `stream`, between a pair
    /// of events; counts `bytes` as gathered.
    fn time(
        &mut self,
        stream: &Stream,
        bytes: u64,
        collective: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let context = || "timing an exchange".to_string();
        if self.recorded == self.events.len() {
            let event = || Event::new(EventFlags::DEFAULT).context(context);
            self.events.push((event()?, event()?));
        }
        let (start, stop) = &self.events[self.recorded];
        start.record(stream).context(context)?;
        collective()?;
        stop.record(stream).context(context)?;
        self.recorded += 1;
        self.bytes += bytes;
        Ok(())
    }

    /// The level's exchange, once the stream has passed its last
    /// collective; starts the next level's.
    fn take(&mut self) -> Result<Exchange> {
        let context = || "reading an exchange's time".to_string();
        let mut elapsed = Duration::ZERO;
        for (start, stop) in &self.events[..self.recorded] {
            stop.synchronize().context(context)?;
            elapsed += stop.elapsed(start).context(context)?;
        }
        let exchange = Exchange {
            elapsed,
            bytes: self.bytes,
        };
        (self.recorded, self.bytes) = (0, 0);
        Ok(exchange)
    }
}

struct Kernels<'g> {
    bottom_up: Function<'g>,
    bitmap_to_queue: Function<'g>,
    pack_claims: Function<'g>,
    apply_claims: Function<'g>,
    merge_visited: Function<'g>,
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

impl<'g> Rank<'g> {
    /// Device bytes a rank owning `owned` of `graph` allocates, of `ranks`.
    pub fn device_bytes(graph: &Csr, owned: &Range<u32>, ranks: u32) -> u64 {
        let n = graph.vertex_count() as u64;
        let owned_edges = owned_edges(graph, owned);
        let words = n.div_ceil(32).max(1);
        8 * (n + 1)
            + bottom_up_rows(graph, owned).copy_bytes(owned.len() as u64 + 1)
            + 4 * owned_edges.max(1)
            + 3 * 4 * words
            + 3 * 4 * n
            + 2 * 4 * (owned.len() as u64).max(1)
            + ChunkedTopDown::workspace_bytes(graph, owned.clone())
            + 4 * n
            + 4 * (2 * n + 1) * (1 + ranks as u64)
            + 4 * (2 + ranks as u64)
            + 8 * (1 + LEVEL_COUNTS as u64)
    }

    /// Uploads this rank's rows of `graph` (owned: `ranges[rank]`) and
    /// allocates the search's buffers, after checking they fit.
    pub fn new(
        gpu: &'g Gpu,
        communicator: Box<dyn Collectives>,
        graph: &Csr,
        ranges: Vec<Range<u32>>,
    ) -> Result<Rank<'g>> {
        let rank = communicator.rank();
        let owned = ranges[rank as usize].clone();
        let needed = Self::device_bytes(graph, &owned, communicator.ranks());
        let free = gpu.free_memory()?;
        // Every rank learns whether every part fits, so none waits in a
        // collective for one that gave up.
        let mut level_counts =
            DeviceBuffer::zeroed(LEVEL_COUNTS).context(|| "allocating a counter".into())?;
        let mut too_large = [0; LEVEL_COUNTS];
        too_large[0] = (needed > free) as u64;
        level_counts
            .copy_from(&too_large[..])
            .context(|| "counting the ranks' parts that fit".into())?;
        communicator.sum_u64(level_counts.as_device_ptr(), 1, gpu.stream())?;
        let parts_too_large = read(gpu, &level_counts)?[0];
        if needed > free {
            return Err(Error::MultiGpu(format!(
                "rank {rank}'s part (vertices {}..{}) needs {needed} bytes of device memory on {}, {free} are free",
                owned.start,
                owned.end,
                gpu.name()
            )));
        }
        if parts_too_large > 0 {
            return Err(Error::MultiGpu(format!(
                "rank {rank}: {parts_too_large} other ranks' parts do not fit their GPUs"
            )));
        }
        let n = graph.vertex_count() as usize;
        let (rows, columns) = partition::owned_rows(graph, &owned);
        let bottom_up_rows = bottom_up_rows(graph, &owned);
        let owned_rows = &rows[owned.start as usize..=owned.end as usize];
        let allocation = || format!("allocating rank {rank}'s buffers");
        let words = n.div_ceil(32).max(1);
        let zeroed = |count: usize| DeviceBuffer::<u32>::zeroed(count.max(1)).context(allocation);
        let owned_count = owned.len();
        Ok(Rank {
            gpu,
            ranges,
            vertex_count: graph.vertex_count(),
            edge_count: graph.edge_count(),
            symmetric: graph.is_symmetric(),
            kernels: Kernels {
                bottom_up: gpu.kernel(match bottom_up_rows {
                    RowOffsets::Wide => direction_optimizing::BOTTOM_UP,
                    RowOffsets::Narrow => direction_optimizing::BOTTOM_UP_NARROW,
                })?,
                bitmap_to_queue: gpu.kernel(direction_optimizing::BITMAP_TO_QUEUE)?,
                pack_claims: gpu.kernel(distributed::PACK_CLAIMS)?,
                apply_claims: gpu.kernel(distributed::APPLY_CLAIMS)?,
                merge_visited: gpu.kernel(distributed::MERGE_VISITED)?,
            },
            narrow_owned_rows: bottom_up_rows.upload_copy(owned_rows, "the search over GPUs")?,
            rows: upload(&rows)?,
            columns: upload(columns)?,
            degrees: degrees(graph)?,
            visited: zeroed(words)?,
            frontier: zeroed(words)?,
            next: zeroed(words)?,
            levels: zeroed(n)?,
            parents: zeroed(n)?,
            owned_queues: [zeroed(owned_count)?, zeroed(owned_count)?],
            top_down: ChunkedTopDown::new(gpu, graph, owned.clone())?,
            claims: zeroed(n)?,
            slot: zeroed(2 * n + 1)?,
            gathered_slots: zeroed((2 * n + 1) * communicator.ranks() as usize)?,
            count: zeroed(1)?,
            gathered_counts: zeroed(communicator.ranks() as usize)?,
            unread_edges: DeviceBuffer::zeroed(1).context(allocation)?,
            unread_awake: zeroed(1)?,
            level_counts,
            communicator,
            exchange: ExchangeClock {
                events: Vec::new(),
                recorded: 0,
                bytes: 0,
            },
        })
    }

    fn owned(&self) -> Range<u32> {
        self.ranges[self.communicator.rank() as usize].clone()
    }

    /// Searches from `source` with the other ranks (every rank calls it
    /// with the same source), then gathers the labels on rank 0.
    pub fn search(&mut self, source: u32, degree_of_source: u32) -> Result<RankRun> {
        self.reset(source)?;
        // The ranks meet before the clock starts: a rank still uploading
        // its part (before a process's first search) would otherwise be
        // timed in the others' first collective (46 ms over two H200s).
        // The sum is of an unread counter.
        let stream = self.gpu.stream();
        self.communicator
            .sum_u64(self.unread_edges.as_device_ptr(), 1, stream)?;
        stream
            .synchronize()
            .context(|| "initialising the search".into())?;
        let started = Instant::now();
        let steps = self.levels_from(source, degree_of_source)?;
        let elapsed = started.elapsed();
        let result = self.gather(source)?;
        Ok(RankRun {
            elapsed,
            steps,
            result,
        })
    }

    /// Clears the bitmaps and labels and places the source: in both
    /// bitmaps' frontier, at level 0, its own parent, and in its owner's queue.
    fn reset(&mut self, source: u32) -> Result<()> {
        let stream = self.gpu.stream();
        let context = || "initialising the search".to_string();
        let (word, bit) = ((source / 32) as usize, 1u32 << (source % 32));
        let at = source as usize..=source as usize;
        // SAFETY: memsets ordered on the one stream before any kernel that
        // reads these buffers; the host does not touch them meanwhile.
        unsafe {
            for bitmap in [&mut self.visited, &mut self.frontier, &mut self.next] {
                bitmap.set_zero_async(stream).context(context)?;
            }
            for bitmap in [&mut self.visited, &mut self.frontier] {
                bitmap
                    .index(word..=word)
                    .set_32_async(bit, stream)
                    .context(context)?;
            }
            self.levels
                .set_32_async(UNREACHED, stream)
                .context(context)?;
            self.parents
                .set_32_async(UNREACHED, stream)
                .context(context)?;
            self.levels
                .index(at.clone())
                .set_32_async(0, stream)
                .context(context)?;
            self.parents
                .index(at)
                .set_32_async(source, stream)
                .context(context)?;
            self.owned_queues[0]
                .index(0..=0)
                .set_32_async(source, stream)
                .context(context)
        }
    }

    /// Runs the levels; returns each one's time.
    fn levels_from(&mut self, source: u32, degree_of_source: u32) -> Result<Vec<Step>> {
        let n = self.vertex_count as u64;
        let mut owned_size = self.owned().contains(&source) as u32;
        let mut edges_to_check = self.edge_count;
        let mut scout_count = degree_of_source as u64;
        // The frontier's edges, known after a top-down level only.
        let mut frontier_edges = Some(scout_count);
        let (mut frontier_size, mut level) = (1u64, 0u32);
        let mut steps = Vec::new();
        while frontier_size > 0 {
            let started = Instant::now();
            if self.symmetric && scout_count > edges_to_check / LEVEL_BY_LEVEL_ALPHA {
                let mut awake = frontier_size;
                let mut started = started;
                loop {
                    let previous = awake;
                    awake = self.bottom_up_step(level)?;
                    let growing_or_large = awake >= previous || awake > n / DIRECTION_BETA;
                    let last = awake == 0 || !growing_or_large;
                    // The way back to top-down is the last bottom-up
                    // level's, in its time, as in `direction-optimizing`.
                    if last {
                        owned_size = self.owned_frontier_queue()?;
                        frontier_size = awake;
                    }
                    steps.push(self.step(level, started, Direction::BottomUp)?);
                    started = Instant::now();
                    level += 1;
                    if last {
                        break;
                    }
                }
                scout_count = 1;
                frontier_edges = None;
            } else {
                edges_to_check = edges_to_check.saturating_sub(scout_count);
                (owned_size, frontier_size, scout_count) =
                    self.top_down_step((owned_size, frontier_edges), level)?;
                frontier_edges = Some(scout_count);
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

    /// One top-down level from the owned frontier queue (`owned_size`
    /// vertices; the frontier has `frontier_edges` edges over every rank,
    /// where known); returns the next owned queue's size, and the next
    /// frontier's size and edges over every rank.
    fn top_down_step(
        &mut self,
        (owned_size, frontier_edges): (u32, Option<u64>),
        level: u32,
    ) -> Result<(u32, u64, u64)> {
        let stream = self.gpu.stream();
        let context = || {
            format!(
                "top-down level {level} on rank {}",
                self.communicator.rank()
            )
        };
        // SAFETY: a memset on the stream, before the kernels that count.
        unsafe { self.count.set_32_async(0, stream) }.context(context)?;
        let claims = TopDownLevel {
            row_offsets: self.rows.as_device_ptr(),
            column_indices: self.columns.as_device_ptr(),
            frontier: self.owned_queues[0].as_device_ptr(),
            frontier_size: owned_size,
            next_frontier: self.claims.as_device_ptr(),
            next_frontier_size: self.count.as_device_ptr(),
            visited: self.visited.as_device_ptr(),
            levels: self.levels.as_device_ptr(),
            parents: self.parents.as_device_ptr(),
            level,
            // Unread: every rank counts the next frontier's edges over all
            // ranks as it applies the claims.
            next_frontier_edges: self.unread_edges.as_device_ptr(),
            frontier_edges,
        };
        // SAFETY: the owned queue holds `owned_size` owned vertices, of
        // the owned edges `top_down` was allocated for; the rows cover
        // every vertex (others' empty); claims, visited and labels have
        // room for every vertex.
        unsafe { self.top_down.run(self.gpu, &claims) }?;
        // A rank claims each vertex once, by one of its frontier's edges:
        // a slot of the frontier's edges (or of every vertex) holds any
        // rank's claims; else the ranks' counts are read back.
        let vertex_count = self.vertex_count as u64;
        let capacity = match frontier_edges.filter(|&edges| edges <= UNCOUNTED_SLOT_EDGES) {
            Some(edges) => edges.min(vertex_count) as u32,
            None => {
                self.exchange.time(stream, 0, || {
                    self.communicator.all_gather(
                        self.count.as_device_ptr(),
                        self.gathered_counts.as_device_ptr(),
                        1,
                        stream,
                    )
                })?;
                let counts = read(self.gpu, &self.gathered_counts)?;
                counts.into_iter().max().unwrap_or(0)
            }
        };
        // SAFETY: memsets on the stream, before the kernels that read them.
        unsafe {
            self.next.set_zero_async(stream).context(context)?;
            self.level_counts.set_zero_async(stream).context(context)?;
        }
        std::mem::swap(&mut self.frontier, &mut self.next);
        self.owned_queues.swap(0, 1);
        // Where the capacity is 0 no rank claimed anything: the search ends.
        if capacity == 0 {
            return Ok((0, 0, 0));
        }
        self.exchange_claims(capacity, level)?;
        let counts = self.level_counts()?;
        Ok((
            counts[OWNED_VERTICES] as u32,
            counts[FRONTIER_VERTICES],
            counts[FRONTIER_EDGES],
        ))
    }

    /// Packs this rank's claims in its slot of `capacity` pairs, gathers
    /// every rank's, and applies them all: the next frontier (swapped into
    /// `frontier` already), and this rank's next queue (likewise into
    /// `owned_queues[0]`), counted in `level_counts`.
    fn exchange_claims(&mut self, capacity: u32, level: u32) -> Result<()> {
        let stream = self.gpu.stream();
        let context = || {
            format!(
                "exchanging top-down level {level}'s claims on rank {}",
                self.communicator.rank()
            )
        };
        let slot_words = 1 + 2 * capacity as usize;
        let ranks = self.communicator.ranks();
        let pack = &self.kernels.pack_claims;
        // SAFETY: `count` claims, each a vertex whose parent this rank
        // wrote, at most `capacity` (the caller's bound); the slot buffer
        // has room for `n` pairs, so for `capacity`.
        unsafe {
            launch!(pack<<<blocks_for(capacity, BLOCK_SIZE), BLOCK_SIZE, 0, stream>>>(
                self.claims.as_device_ptr(),
                self.count.as_device_ptr(),
                self.parents.as_device_ptr(),
                self.slot.as_device_ptr(),
                capacity
            ))
            .context(context)?;
        }
        let bytes = 4 * (slot_words * ranks as usize) as u64;
        self.exchange.time(stream, bytes, || {
            self.communicator.all_gather(
                self.slot.as_device_ptr(),
                self.gathered_slots.as_device_ptr(),
                slot_words,
                stream,
            )
        })?;
        let owned = self.owned();
        let apply = &self.kernels.apply_claims;
        // SAFETY: a slot of `capacity` for each rank, each of at most that
        // many pairs of vertices `< n` and parents, this rank's in slot
        // `rank`, its claims visited and labelled; the bitmaps, degrees
        // and labels cover every vertex; the next owned queue has room for
        // every owned vertex; the counts were zeroed on the stream:
        // `distributed_apply_claims`'s contract.
        unsafe {
            launch!(apply<<<(blocks_for(capacity, BLOCK_SIZE * CLAIMS_PER_THREAD), ranks, 1), BLOCK_SIZE, 24, stream>>>(
                self.gathered_slots.as_device_ptr(),
                capacity,
                self.communicator.rank(),
                owned.start,
                owned.end,
                self.degrees.as_device_ptr(),
                self.frontier.as_device_ptr(),
                self.visited.as_device_ptr(),
                self.owned_queues[0].as_device_ptr(),
                self.level_counts.as_device_ptr(),
                self.levels.as_device_ptr(),
                self.parents.as_device_ptr(),
                level + 1
            ))
            .context(context)
        }
    }

    /// One bottom-up level over the owned unvisited vertices; returns the
    /// vertices found over every rank.
    fn bottom_up_step(&mut self, level: u32) -> Result<u64> {
        let stream = self.gpu.stream();
        let context = || {
            format!(
                "bottom-up level {level} on rank {}",
                self.communicator.rank()
            )
        };
        let owned = self.owned();
        let first_word = (owned.start / 32) as usize;
        // SAFETY: memsets on the stream, before the kernels that read them.
        unsafe {
            self.next.set_zero_async(stream).context(context)?;
            self.level_counts.set_zero_async(stream).context(context)?;
        }
        if !owned.is_empty() {
            let kernel = &self.kernels.bottom_up;
            let from = owned.start as usize;
            // SAFETY: the kernel's vertex 0 is the owned range's first
            // vertex, a multiple of 32, so each array is passed from that
            // vertex's entry (or bitmap word) on, and `owned.len()` vertices
            // follow in each (the narrow rows start there); neighbours index
            // the whole frontier bitmap: `direction_optimizing_bottom_up`'s
            // contract for the range, with rows of the width its kernel reads.
            unsafe {
                let rows = match &self.narrow_owned_rows {
                    Some(narrow) => narrow.as_device_ptr().as_raw(),
                    None => self.rows.as_device_ptr().add(from).as_raw(),
                };
                launch!(kernel<<<blocks_for(owned.len() as u32, BLOCK_SIZE), BLOCK_SIZE, 4, stream>>>(
                    rows,
                    self.columns.as_device_ptr(),
                    self.frontier.as_device_ptr(),
                    self.next.as_device_ptr().add(first_word),
                    self.visited.as_device_ptr().add(first_word),
                    self.levels.as_device_ptr().add(from),
                    self.parents.as_device_ptr().add(from),
                    level,
                    owned.len() as u32,
                    self.unread_awake.as_device_ptr()
                ))
                .context(context)?;
            }
        }
        // Each rank's words of the next frontier, to every rank.
        let words = self.next.len() as u64;
        let (starts, counts): (Vec<u64>, Vec<u64>) = self
            .ranges
            .iter()
            .map(|range| {
                let words = self.words_of(range);
                (words.start as u64, words.len() as u64)
            })
            .unzip();
        let own = self.next.as_device_ptr();
        // SAFETY: this rank's start is within the bitmap.
        let own_words = unsafe { own.add(starts[self.communicator.rank() as usize] as usize) };
        self.exchange.time(stream, 4 * words, || {
            self.communicator
                .all_gather_words(own_words, own, (&starts, &counts), stream)
        })?;
        let kernel = &self.kernels.merge_visited;
        // SAFETY: both bitmaps have `words` words; the counts were zeroed
        // on the stream.
        unsafe {
            launch!(kernel<<<blocks_for(words as u32, BLOCK_SIZE), BLOCK_SIZE, 8, stream>>>(
                self.next.as_device_ptr(),
                self.visited.as_device_ptr(),
                words as u32,
                self.level_counts.as_device_ptr()
            ))
            .context(context)?;
        }
        std::mem::swap(&mut self.frontier, &mut self.next);
        Ok(self.level_counts()?[FRONTIER_VERTICES])
    }

    /// The owned vertices of the frontier bitmap into the owned queue;
    /// returns how many.
    fn owned_frontier_queue(&mut self) -> Result<u32> {
        let owned = self.owned();
        let stream = self.gpu.stream();
        let context = || "converting the owned frontier to a queue".to_string();
        // SAFETY: a memset on the stream, before the kernel that counts.
        unsafe { self.count.set_32_async(0, stream) }.context(context)?;
        let words = self.words_of(&owned);
        if words.is_empty() {
            return Ok(0);
        }
        let kernel = &self.kernels.bitmap_to_queue;
        // SAFETY: the words are the owned range's, within the bitmap; their
        // set bits are owned frontier vertices, for which the owned queue
        // has room: `direction_optimizing_bitmap_to_queue`'s contract.
        unsafe {
            launch!(kernel<<<blocks_for(words.len() as u32, BLOCK_SIZE), BLOCK_SIZE, 0, stream>>>(
                self.frontier.as_device_ptr(),
                words.start,
                words.len() as u32,
                self.owned_queues[0].as_device_ptr(),
                self.count.as_device_ptr()
            ))
            .context(context)?;
        }
        Ok(read(self.gpu, &self.count)?[0])
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

    /// The level's counts (`abi::distributed`'s layout), once its last
    /// kernel has added them up.
    fn level_counts(&self) -> Result<Vec<u64>> {
        read(self.gpu, &self.level_counts)
    }

    /// Gathers every rank's owned labels to every rank (in place); rank 0
    /// copies them back.
    fn gather(&mut self, source: u32) -> Result<Option<Bfs>> {
        let stream = self.gpu.stream();
        let (starts, counts): (Vec<u64>, Vec<u64>) = self
            .ranges
            .iter()
            .map(|range| (range.start as u64, range.len() as u64))
            .unzip();
        let own = self.owned().start as usize;
        for labels in [&self.levels, &self.parents] {
            let pointer = labels.as_device_ptr();
            // SAFETY: the owned range lies within the labels.
            let own_labels = unsafe { pointer.add(own) };
            self.communicator
                .all_gather_words(own_labels, pointer, (&starts, &counts), stream)?;
        }
        let context = || "gathering the labels".to_string();
        stream.synchronize().context(context)?;
        if self.communicator.rank() != 0 {
            return Ok(None);
        }
        let n = self.vertex_count as usize;
        Ok(Some(Bfs {
            source,
            levels: copy_to_host(&self.levels.index(..n)).context(context)?,
            parents: Some(copy_to_host(&self.parents.index(..n)).context(context)?),
        }))
    }
}

/// The width of the rows the bottom-up kernel reads on the rank owning
/// `owned`: narrow where its rows allow, wide (no copy) where they do not
/// or the search never goes bottom-up (a directed graph).
fn bottom_up_rows(graph: &Csr, owned: &Range<u32>) -> RowOffsets {
    if graph.is_symmetric() {
        RowOffsets::for_edges(owned_edges(graph, owned))
    } else {
        RowOffsets::Wide
    }
}

/// The CSR entries of `owned`'s rows.
fn owned_edges(graph: &Csr, owned: &Range<u32>) -> u64 {
    let offsets = graph.row_offsets();
    offsets[owned.end as usize] - offsets[owned.start as usize]
}

/// Every vertex's degree in `graph`, uploaded a slice at a time (a
/// Kronecker 30 graph has 2^30 vertices).
fn degrees(graph: &Csr) -> Result<DeviceBuffer<u32>> {
    const SLICE: usize = 1 << 24;
    let n = graph.vertex_count() as usize;
    let context = || "uploading the degrees".to_string();
    let degrees = DeviceBuffer::zeroed(n.max(1)).context(context)?;
    let mut slice = Vec::with_capacity(SLICE.min(n));
    for first in (0..n).step_by(SLICE) {
        let end = (first + SLICE).min(n);
        slice.clear();
        slice.extend((first as u32..end as u32).map(|vertex| graph.degree(vertex)));
        degrees
            .index(first..end)
            .copy_from(&slice[..])
            .context(context)?;
    }
    Ok(degrees)
}

/// `buffer`'s values, once the stream's work before now is done.
fn read<T: DeviceCopy + Default + Clone>(gpu: &Gpu, buffer: &DeviceSlice<T>) -> Result<Vec<T>> {
    let context = || "reading counts back".to_string();
    gpu.stream().synchronize().context(context)?;
    let mut values = vec![T::default(); buffer.len()];
    buffer.copy_to(&mut values[..]).context(context)?;
    Ok(values)
}
