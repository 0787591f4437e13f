//! # Many sources at once: a batch of searches, a bit per source (MS-BFS)
//!
//! Then, Kaufmann, Chirigati, Hoang-Vu, Pham, Kemper, Neumann & Vo, "The
//! More the Merrier: Efficient Multi-Source Graph Traversal" (VLDB 2015),
//! on a GPU as iBFS does (Liu, Huang & Hu, "iBFS: Concurrent Breadth-First
//! Search on GPUs", SIGMOD 2016): every vertex holds a word of bits for
//! each 32 sources of the batch in each of three bitmaps, `visited`,
//! `frontier` and `next`, so one pass over an edge serves every source
//! whose search has reached its tail. A level finds, for each vertex, the
//! sources that reach it now: the bits of its neighbours' frontier words
//! that its visited words lack.
//!
//! - **Bottom-up** ([`many_sources_bottom_up`]): a *group* of lanes, a word
//!   each, holds one unfinished vertex and ORs its in-neighbours' frontier
//!   words, each neighbour's words one coalesced load; it stops once every
//!   live source's bit is set (Beamer's early exit, for the whole batch; a
//!   source is live while its frontier is not empty, so one that ended in
//!   a small component does not keep every other vertex scanning). A
//!   heavy in-list, a hub's, is cut into chunks that groups all over the
//!   grid gather first ([`many_sources_bottom_up_heavy`]), as top-down
//!   cuts a frontier's lists, so no group walks a hub's list alone.
//! - **Top-down** ([`many_sources_top_down`]): the frontier's lists are
//!   cut into chunks of [`CHUNK_EDGES`], a warp a chunk and a lane an edge,
//!   so a hub's list is spread over the grid; each lane ORs its tail's
//!   non-zero frontier words into its head's `next` words with atomics,
//!   and lists the heads it touched. [`many_sources_settle`] then takes
//!   each touched vertex's new bits and queues the next frontier's chunks.
//!   [`many_sources_queue`] queues them from the bitmap after a bottom-up
//!   level or the start ([`many_sources_start`]).
//!
//! The host picks the direction by gapbs's rule over the frontier's
//! vertices and edges. As levels go, each vertex's new bits are reduced
//! where the host asks: into each source's count of vertices at the level
//! (bit-sliced counters, a plane a bit of the count, a lane's 32 counts in
//! [`COUNTER_PLANES`] registers, summed a block at a time in shared
//! memory), into per-vertex totals (sources that
//! reach it, their distances' sum and reciprocals' sum, the largest), and
//! into each source's row of distances.
//!
//! Encodings: `abi::many_sources`. A level's distance is `level`; the
//! batch's source `i` is bit `i % 32` of word `i / 32`.

pub mod betweenness;
pub mod betweenness_blocks;
pub mod hierarchy_trees;

use crate::abi::EdgeOffset;
use crate::abi::many_sources::{
    Batch, CHUNK_EDGES, COUNTER_PLANES, GATHER_AHEAD, Kept, LevelFigures, Queue, Rows, Step,
};
use crate::gpu::{self, FULL_WARP};
use crate::visit::row;

/// One lane's place: its vertex group and its word.
#[derive(Clone, Copy)]
struct Lane {
    /// This lane's word of its group's vertex.
    word: u32,
    /// The lanes of its group, as a warp mask.
    group: u32,
    /// Its group's first lane.
    first: u32,
}

impl Lane {
    /// `words` is a power of two (shifts and masks, not a division,
    /// which could panic on zero).
    #[inline(always)]
    fn of(words: u32) -> Lane {
        let lane = gpu::lane_index();
        let word = lane & (words - 1);
        let first = lane - word;
        Lane {
            word,
            group: group_bits(words) << first,
            first,
        }
    }

    /// Whether this lane leads its group (writes the vertex's words).
    #[inline(always)]
    fn leads(self) -> bool {
        self.word == 0
    }

    /// The group's lanes whose `predicate` holds, as bits of their words.
    #[inline(always)]
    fn vote(self, predicate: bool) -> u32 {
        gpu::ballot(self.group, predicate) >> self.first
    }
}

/// The groups of `words` lanes (a power of two) of the grid: this
/// thread's group index and their count.
#[inline(always)]
fn groups(words: u32) -> (u32, u32) {
    let threads = gpu::grid_threads();
    let shift = words.trailing_zeros();
    (gpu::global_thread_index() >> shift, threads >> shift)
}

/// A lane's counts of the vertices whose new bits it took at a level, one
/// count for each bit of its word, bit-sliced: plane `i` holds bit `i` of
/// the 32 counts, so adding a word of new bits is a ripple-carry add.
struct LevelCounter {
    planes: [u32; COUNTER_PLANES],
    taken: u32,
}

impl LevelCounter {
    #[inline(always)]
    fn new() -> LevelCounter {
        LevelCounter {
            planes: [0; COUNTER_PLANES],
            taken: 0,
        }
    }

    /// Adds one to the count of each bit set in `bits`; flushes into
    /// `counts` (this word's 32) before a count could overflow.
    ///
    /// # Safety
    /// As [`flush`](Self::flush).
    #[inline(always)]
    unsafe fn add(&mut self, bits: u32, counts: *mut u32) {
        let mut carry = bits;
        for plane in self.planes.iter_mut() {
            let next_carry = *plane & carry;
            *plane ^= carry;
            carry = next_carry;
        }
        self.taken += 1;
        if self.taken == (1 << COUNTER_PLANES) - 1 {
            // SAFETY: the caller's contract.
            unsafe { self.flush(counts) };
        }
    }

    /// Adds each of the 32 counts into `counts[bit]` and starts again.
    ///
    /// # Safety
    /// `counts` holds 32 `u32`s (null: counts are not kept).
    #[inline(always)]
    unsafe fn flush(&mut self, counts: *mut u32) {
        if self.taken == 0 || counts.is_null() {
            return;
        }
        for bit in 0..32 {
            let mut count = 0;
            for (index, plane) in self.planes.iter().enumerate() {
                count |= ((plane >> bit) & 1) << index;
            }
            if count != 0 {
                // SAFETY: within the word's 32 counts.
                unsafe { gpu::atomic_add(counts.add(bit), count) };
            }
        }
        *self = LevelCounter::new();
    }
}

/// Takes the new bits `new` of this lane's word of `vertex` at `level`:
/// counts them, adds them to the kept totals and distances; returns
/// whether the vertex now has every source's bit (`finished`).
///
/// # Safety
/// The buffers of `kept` are null or sized for the graph and batch; every
/// lane of the group calls it for the same vertex.
#[inline(always)]
unsafe fn take(
    (rows, kept): (&Rows, &Kept),
    lane: Lane,
    vertex: u32,
    new: u32,
    level: u32,
    counter: &mut LevelCounter,
    counts: *mut u32,
) {
    // SAFETY: the caller's contract; a vertex's totals are written by its
    // group's leader alone, and each (source, vertex) distance once.
    unsafe {
        if new != 0 {
            counter.add(new, counts);
            if !kept.distances.is_null() {
                let mut bits = new;
                while bits != 0 {
                    let bit = bits.trailing_zeros();
                    bits &= bits - 1;
                    let source = (32 * lane.word + bit) as usize;
                    let at = source * rows.vertex_count as usize + vertex as usize;
                    *kept.distances.add(at) = level as i32;
                }
            }
        }
        if !kept.reached_by.is_null() {
            let mut found = new.count_ones();
            let mut offset = 1;
            while offset < rows.words {
                found += gpu::shuffle(lane.group, found, lane.first + (lane.word ^ offset));
                offset <<= 1;
            }
            if lane.leads() && found != 0 {
                let v = vertex as usize;
                *kept.reached_by.add(v) += found;
                *kept.distance_sums.add(v) += level as u64 * found as u64;
                *kept.reciprocal_sums.add(v) += found as f64 / level as f64;
                // Totals run on from batch to batch: the greatest stays.
                let farthest = kept.farthest.add(v);
                *farthest = (*farthest).max(level);
            }
        }
    }
}

/// Appends `vertex` (of `degree` edges, non-zero frontier words `mask`)
/// to the frontier's queue and its chunks to the chunk list, and counts it
/// in `figures`. Called by the group's leader.
///
/// # Safety
/// The queue and chunk list have room for the frontier (a vertex once).
#[inline(always)]
unsafe fn enqueue(batch: &Batch, queue: &Queue, vertex: u32, degree: u64, mask: u32) {
    let figures: *mut LevelFigures = queue.figures;
    // SAFETY: the caller's contract; each slot is handed out once.
    unsafe {
        *batch.frontier_masks.add(vertex as usize) = mask;
        let slot = gpu::atomic_add_u64(&raw mut (*figures).frontier_vertices, 1);
        *queue.vertices.add(slot as usize) = vertex;
        gpu::atomic_add_u64(&raw mut (*figures).frontier_edges, degree);
        gpu::atomic_add_u64(
            &raw mut (*figures).frontier_word_edges,
            degree * mask.count_ones() as u64,
        );
        let chunks = degree.div_ceil(CHUNK_EDGES as u64);
        if chunks > 0 {
            let first = gpu::atomic_add_u64(&raw mut (*figures).frontier_chunks, chunks);
            for chunk in 0..chunks {
                let at = 2 * (first + chunk) as usize;
                *queue.chunks.add(at) = vertex;
                *queue.chunks.add(at + 1) = chunk as u32;
            }
        }
    }
}

/// Places the batch's sources: source `i` (of `step.source_count` at
/// `step.sources`) sets bit `i` in its vertex's visited and frontier
/// words, at distance 0; or, where `step.seeds` is set, every source is a
/// seed of one search, bit 0 (each vertex's distance to its nearest seed).
///
/// # Safety
/// The batch's bitmaps are zero and sized for the graph and batch; every
/// source is a vertex; `kept` as [`take`].
///
/// # Launch
/// Grid `ceil(sources / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::many_sources::BLOCK_SIZE).
///
/// # Thread mapping
/// Thread `i` places source `i`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn many_sources_start(step: Step) {
    let index = gpu::global_thread_index();
    if index >= step.source_count {
        return;
    }
    let (rows, batch, kept) = (&step.rows, &step.batch, &step.kept);
    // SAFETY: the contract; bits of one word are set by atomics, as two
    // sources may share a vertex.
    unsafe {
        let vertex = gpu::load_read_only(step.sources.add(index as usize));
        let slot = if step.seeds != 0 { 0 } else { index };
        let (word, bit) = (slot / 32, 1u32 << (slot % 32));
        let at = vertex as usize * rows.words as usize + word as usize;
        gpu::atomic_or(batch.visited.add(at), bit);
        gpu::atomic_or(batch.frontier.add(at), bit);
        if !kept.distances.is_null() {
            *kept
                .distances
                .add(slot as usize * rows.vertex_count as usize + vertex as usize) = 0;
        }
        if !kept.reached_by.is_null() {
            gpu::atomic_add(kept.reached_by.add(vertex as usize), 1);
        }
    }
}

/// Queues the frontier from its bitmap (after the start or a bottom-up
/// level): every vertex with a non-zero frontier word, its words' mask and
/// its chunks, into the queue `step.next` (which the host then makes the
/// frontier's), counted in its figures.
///
/// # Safety
/// As [`enqueue`], with `frontier` the level's whole frontier.
///
/// # Launch
/// Any grid of whole groups, block [`BLOCK_SIZE`](crate::abi::many_sources::BLOCK_SIZE).
///
/// # Thread mapping
/// A group of `words` lanes a vertex, striding over the vertices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn many_sources_queue(step: Step) {
    let (rows, batch) = (&step.rows, &step.batch);
    let lane = Lane::of(rows.words);
    let (mut vertex, stride) = groups(rows.words);
    while vertex < rows.vertex_count {
        // SAFETY: the contract; the leader enqueues its vertex once.
        unsafe {
            let at = vertex as usize * rows.words as usize + lane.word as usize;
            let mask = lane.vote(*batch.frontier.add(at) != 0);
            if mask != 0 && lane.leads() {
                let (first, end) = row(rows.out_offsets, vertex);
                enqueue(batch, &step.next, vertex, end - first, mask);
            }
        }
        vertex += stride;
    }
}

/// One top-down level: every chunk of the frontier's lists, a warp each,
/// ORs its tails' frontier words into its heads' `next` words where they
/// bring bits the heads lack, and lists each head it touched once.
///
/// # Safety
/// `step.current` is the frontier's queue, its chunks counted in its
/// figures; `next` and `touched` are clear, `step.next`'s figures zero;
/// the buffers are sized for the graph.
///
/// # Launch
/// Any grid, block [`BLOCK_SIZE`](crate::abi::many_sources::BLOCK_SIZE).
///
/// # Thread mapping
/// A warp a chunk, a lane an edge, striding over the chunks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn many_sources_top_down(step: Step) {
    let (rows, batch) = (&step.rows, &step.batch);
    let words = rows.words as usize;
    let lane = gpu::lane_index();
    let (mut chunk, stride) = gpu::grid_warps();
    // SAFETY: the contract: the chunks' count is the frontier's figures'.
    let chunks = unsafe { (*step.current.figures).frontier_chunks };
    while (chunk as u64) < chunks {
        // SAFETY: the chunk lies in the list, its edges in the rows, and the
        // words of every vertex in the bitmaps; `next` and `touched` are
        // written by atomics alone.
        unsafe {
            let tail = gpu::load_read_only(step.current.chunks.add(2 * chunk as usize));
            let index = gpu::load_read_only(step.current.chunks.add(2 * chunk as usize + 1));
            let (first, end) = row(rows.out_offsets, tail);
            let edge = first + (index * CHUNK_EDGES + lane) as EdgeOffset;
            let head = if edge < end {
                gpu::load_read_only(rows.out_columns.add(edge as usize))
            } else {
                u32::MAX
            };
            let mut touched = false;
            let mut mask = gpu::load_read_only(batch.frontier_masks.add(tail as usize));
            while mask != 0 {
                let word = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let bits = gpu::load_read_only(batch.frontier.add(tail as usize * words + word));
                if head != u32::MAX {
                    let at = head as usize * words + word;
                    let new = bits & !*batch.visited.add(at);
                    if new != 0 {
                        gpu::atomic_or(batch.next.add(at), new);
                        touched = true;
                    }
                }
            }
            if touched {
                let bit = 1u32 << (head % 32);
                let before = gpu::atomic_or(batch.touched.add(head as usize / 32), bit);
                if before & bit == 0 {
                    let slot = gpu::coalesced_reserve_one(|count| {
                        gpu::atomic_add_u64(&raw mut (*step.next.figures).touched, count as u64)
                            as u32
                    });
                    *batch.touched_queue.add(slot as usize) = head;
                }
            }
        }
        chunk += stride;
    }
}

/// Ends a top-down level: each touched vertex takes its new bits (its
/// `next` words, which become its frontier words), and, if any, joins the
/// next frontier's queue; the last frontier's words are cleared, so that
/// `frontier`, swapped in as `next`, is clear for the next level.
///
/// # Safety
/// As [`many_sources_top_down`], after it, with the same `step`: the
/// touched vertices listed and counted in `step.next`'s figures, whose
/// queue takes the next frontier; `step.current` the frontier's queue.
///
/// # Launch
/// Any grid of whole groups, block [`BLOCK_SIZE`](crate::abi::many_sources::BLOCK_SIZE),
/// shared memory [`counting_shared_bytes`](crate::abi::many_sources::counting_shared_bytes).
///
/// # Thread mapping
/// A group a vertex, striding over the touched vertices, then over the
/// old frontier's.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn many_sources_settle(step: Step) {
    let (rows, batch, kept) = (&step.rows, &step.batch, &step.kept);
    let words = rows.words as usize;
    let lane = Lane::of(rows.words);
    let (first_group, stride) = groups(rows.words);
    let mut counter = LevelCounter::new();
    // SAFETY: the launch's shared memory; every thread comes here.
    let (block, counts) = unsafe { block_counts(batch, rows.words, lane) };
    // SAFETY: the contract: the touched queue's length is the next
    // frontier's figures'.
    let touched = unsafe { (*step.next.figures).touched };
    let mut index = first_group;
    while (index as u64) < touched {
        // SAFETY: a touched vertex is listed once, so its group alone
        // writes its words; the leader enqueues it once.
        unsafe {
            let vertex = gpu::load_read_only(batch.touched_queue.add(index as usize));
            let at = vertex as usize * words + lane.word as usize;
            let visited = *batch.visited.add(at);
            let new = *batch.next.add(at) & !visited;
            *batch.visited.add(at) = visited | new;
            *batch.next.add(at) = new;
            take(
                (rows, kept),
                lane,
                vertex,
                new,
                step.level,
                &mut counter,
                counts,
            );
            let mask = lane.vote(new != 0);
            let finished = lane.vote(visited | new == *batch.valid_bits.add(lane.word as usize));
            if lane.leads() {
                let (first, end) = row(rows.out_offsets, vertex);
                if mask != 0 {
                    enqueue(batch, &step.next, vertex, end - first, mask);
                }
                if finished == group_bits(rows.words) {
                    let (first, end) = row(rows.in_offsets, vertex);
                    gpu::atomic_add_u64(&raw mut (*step.next.figures).finished_edges, end - first);
                }
            }
        }
        index += stride;
    }
    // SAFETY: the block's counts, one a source; every thread comes here.
    unsafe {
        counter.flush(counts);
        add_block_counts(batch, rows.words, block);
    }
    // SAFETY: the contract: the old queue's length is its figures'.
    let old = unsafe { (*step.current.figures).frontier_vertices };
    let mut index = first_group;
    while (index as u64) < old {
        // SAFETY: an old frontier vertex is listed once.
        unsafe {
            let vertex = gpu::load_read_only(step.current.vertices.add(index as usize));
            *batch
                .frontier
                .add(vertex as usize * words + lane.word as usize) = 0;
        }
        index += stride;
    }
}

/// The frontier bits that in-neighbours `in_columns[first..end]` bring a
/// group's vertex: it ORs their frontier words, [`GATHER_AHEAD`] a lane in
/// flight, until every bit of `want` is in `have` or gathered (on every
/// lane of the group) or the range ends.
///
/// # Safety
/// The range lies within the in-columns; `frontier` holds every vertex's
/// words; every lane of the group calls it with the same range.
#[inline(always)]
unsafe fn gather(
    rows: &Rows,
    frontier: *const u32,
    lane: Lane,
    (first, end): (EdgeOffset, EdgeOffset),
    (have, want): (u32, u32),
) -> u32 {
    let words = rows.words as usize;
    let mut gathered = 0;
    let mut edge = first;
    // SAFETY: the caller's contract; the neighbours are vertices.
    unsafe {
        'list: while edge < end {
            let mine = edge + lane.word as EdgeOffset;
            let neighbour = if mine < end {
                gpu::load_read_only(rows.in_columns.add(mine as usize))
            } else {
                0
            };
            let taken = (end - edge).min(rows.words as EdgeOffset) as u32;
            let mut k = 0;
            while k < taken {
                // Several neighbours' words in flight, then one vote.
                for ahead in 0..GATHER_AHEAD.min(taken - k) {
                    let neighbour = gpu::shuffle(lane.group, neighbour, lane.first + k + ahead);
                    let at = neighbour as usize * words + lane.word as usize;
                    gathered |= gpu::load_read_only(frontier.add(at));
                }
                if lane.vote((have | gathered) & want != want) == 0 {
                    break 'list;
                }
                k += GATHER_AHEAD;
            }
            edge += rows.words as EdgeOffset;
        }
    }
    gathered
}

/// The bits of this lane's word that a vertex still waits for at this
/// level: the batch's live sources'.
///
/// # Safety
/// `valid_bits` and `live` hold a word for each of the batch's words.
#[inline(always)]
unsafe fn wanted(batch: &Batch, lane: Lane) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { *batch.valid_bits.add(lane.word as usize) & *batch.live.add(lane.word as usize) }
}

/// The first part of a bottom-up level: every chunk of a heavy in-list
/// (longer than `step.heavy.chunk_edges`), a group each, gathers its
/// neighbours' frontier words for the live bits its vertex lacks, and ORs
/// what it found into the vertex's gathered words, which
/// [`many_sources_bottom_up`] then takes. A chunk whose vertex already has
/// every wanted bit, visited or gathered by another chunk, is skipped.
///
/// # Safety
/// As [`many_sources_bottom_up`], before it, with the same `step`: the
/// heavy chunks, ordinals and gathered words are the engine's for these
/// rows and words, the gathered words zero.
///
/// # Launch
/// Any grid of whole groups, block [`BLOCK_SIZE`](crate::abi::many_sources::BLOCK_SIZE).
///
/// # Thread mapping
/// A group of `words` lanes a chunk, a lane a word, striding over the
/// chunks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn many_sources_bottom_up_heavy(step: Step) {
    let (rows, batch, heavy) = (&step.rows, &step.batch, &step.heavy);
    let words = rows.words as usize;
    let lane = Lane::of(rows.words);
    let (mut index, stride) = groups(rows.words);
    // SAFETY: the contract.
    let want = unsafe { wanted(batch, lane) };
    while index < heavy.chunk_count {
        // SAFETY: the contract: a chunk names a heavy vertex, its ordinal
        // and a chunk of its in-list; its gathered words are written by
        // atomics alone, read here only to skip work.
        unsafe {
            let at = 3 * index as usize;
            let vertex = gpu::load_read_only(heavy.chunks.add(at));
            let ordinal = gpu::load_read_only(heavy.chunks.add(at + 1));
            let chunk = gpu::load_read_only(heavy.chunks.add(at + 2));
            let visited = *batch
                .visited
                .add(vertex as usize * words + lane.word as usize);
            let held = heavy
                .gathered
                .add(ordinal as usize * words + lane.word as usize);
            let have = visited | core::ptr::read_volatile(held);
            if lane.vote(have & want != want) != 0 {
                let (first, end) = row(rows.in_offsets, vertex);
                let from = first + chunk as EdgeOffset * heavy.chunk_edges as EdgeOffset;
                let to = end.min(from + heavy.chunk_edges as EdgeOffset);
                let found = gather(rows, batch.frontier, lane, (from, to), (have, want)) & !have;
                if found != 0 {
                    gpu::atomic_or(held, found);
                }
            }
        }
        index += stride;
    }
}

/// One bottom-up level: each vertex that a live source of the batch has
/// not reached ORs its in-neighbours' frontier words until every missing
/// bit is set or its list ends (a heavy vertex takes what its chunks
/// gathered, [`many_sources_bottom_up_heavy`]); the bits it lacked are the
/// level's, written to `next` (every vertex's `next` words are written:
/// they become the frontier).
///
/// # Safety
/// The buffers are sized for the graph and batch; `frontier` holds the
/// level's whole frontier; [`many_sources_bottom_up_heavy`] ran before,
/// with the same `step`.
///
/// # Launch
/// Any grid of whole groups, block [`BLOCK_SIZE`](crate::abi::many_sources::BLOCK_SIZE),
/// shared memory [`counting_shared_bytes`](crate::abi::many_sources::counting_shared_bytes).
///
/// # Thread mapping
/// A group of `words` lanes a vertex, a lane a word, striding over the
/// vertices; the group loads its in-neighbours `words` at a time, a lane
/// each, hands them round by shuffles, and reads [`GATHER_AHEAD`] of
/// their frontier words before each vote.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn many_sources_bottom_up(step: Step) {
    let (rows, batch, kept, heavy) = (&step.rows, &step.batch, &step.kept, &step.heavy);
    let words = rows.words as usize;
    let lane = Lane::of(rows.words);
    let (mut vertex, stride) = groups(rows.words);
    let mut counter = LevelCounter::new();
    // SAFETY: the launch's shared memory; every thread comes here.
    let (block, counts) = unsafe { block_counts(batch, rows.words, lane) };
    // SAFETY: `valid_bits` and `live` hold a word for each of the batch's
    // words.
    let (valid, want) = unsafe {
        (
            *batch.valid_bits.add(lane.word as usize),
            wanted(batch, lane),
        )
    };
    let (mut found, mut found_edges, mut found_word_edges) = (0u64, 0u64, 0u64);
    let mut finished_edges = 0u64;
    while vertex < rows.vertex_count {
        // SAFETY: the contract; a vertex's words are written by its group,
        // and a heavy vertex's gathered words read and cleared by it alone.
        unsafe {
            let at = vertex as usize * words + lane.word as usize;
            let visited = *batch.visited.add(at);
            let mut gathered = 0;
            if lane.vote(visited & want != want) != 0 {
                let (first, end) = row(rows.in_offsets, vertex);
                if end - first > heavy.chunk_edges as EdgeOffset {
                    let ordinal = gpu::load_read_only(heavy.ordinals.add(vertex as usize));
                    let held = heavy
                        .gathered
                        .add(ordinal as usize * words + lane.word as usize);
                    gathered = *held;
                    *held = 0;
                } else {
                    gathered = gather(rows, batch.frontier, lane, (first, end), (visited, want));
                }
            }
            let new = gathered & !visited;
            *batch.next.add(at) = new;
            if lane.vote(new != 0) != 0 {
                *batch.visited.add(at) = visited | new;
                take(
                    (rows, kept),
                    lane,
                    vertex,
                    new,
                    step.level,
                    &mut counter,
                    counts,
                );
                // Every lane of the group votes, before its leader alone goes on.
                let finished = lane.vote(visited | new == valid) == group_bits(rows.words);
                let mask = lane.vote(new != 0);
                if lane.leads() {
                    let (first, end) = row(rows.out_offsets, vertex);
                    found += 1;
                    found_edges += end - first;
                    found_word_edges += (end - first) * mask.count_ones() as u64;
                    if finished {
                        let (first, end) = row(rows.in_offsets, vertex);
                        finished_edges += end - first;
                    }
                }
            }
        }
        vertex += stride;
    }
    // SAFETY: the block's counts, one a source, and every thread comes
    // here; the figures are one `LevelFigures`.
    unsafe {
        counter.flush(counts);
        add_block_counts(batch, rows.words, block);
        let figures = step.next.figures;
        add_warp_sum(&raw mut (*figures).frontier_vertices, found);
        add_warp_sum(&raw mut (*figures).frontier_edges, found_edges);
        add_warp_sum(&raw mut (*figures).frontier_word_edges, found_word_edges);
        add_warp_sum(&raw mut (*figures).finished_edges, finished_edges);
    }
}

/// Adds the warp's sum of `value` to `*total`, one atomic a warp.
///
/// # Safety
/// `total` is a `u64` in global memory; every lane of the warp calls it.
#[inline(always)]
unsafe fn add_warp_sum(total: *mut u64, value: u64) {
    let sum = gpu::warp_sum_u64(value);
    if gpu::lane_index() == 0 && sum != 0 {
        // SAFETY: the caller's contract.
        unsafe { gpu::atomic_add_u64(total, sum) };
    }
}

/// The low `words` bits: every lane of a group.
#[inline(always)]
fn group_bits(words: u32) -> u32 {
    ((1u64 << words) - 1) as u32
}

/// The block's counts of the level, one a source of the batch, in its
/// dynamic shared memory, zeroed, or null where the batch keeps no counts;
/// and this lane's word's 32 of them.
///
/// # Safety
/// The launch gives [`counting_shared_bytes`] of dynamic shared memory;
/// every thread of the block calls it (a barrier).
///
/// [`counting_shared_bytes`]: crate::abi::many_sources::counting_shared_bytes
#[inline(always)]
unsafe fn block_counts(batch: &Batch, words: u32, lane: Lane) -> (*mut u32, *mut u32) {
    if batch.level_counts.is_null() {
        return (core::ptr::null_mut(), core::ptr::null_mut());
    }
    let counts = gpu::dynamic_shared_memory::<u32>();
    let mut index = gpu::thread_index();
    while index < 32 * words {
        // SAFETY: within the block's counts.
        unsafe { *counts.add(index as usize) = 0 };
        index += gpu::block_size();
    }
    gpu::sync_threads();
    (counts, counts.wrapping_add(32 * lane.word as usize))
}

/// Adds the block's counts into the level's, one atomic a source, once
/// every thread of the block has flushed its own.
///
/// # Safety
/// As [`block_counts`], which made `counts`: every thread calls it.
#[inline(always)]
unsafe fn add_block_counts(batch: &Batch, words: u32, counts: *mut u32) {
    if counts.is_null() {
        return;
    }
    gpu::sync_threads();
    let mut index = gpu::thread_index();
    while index < 32 * words {
        // SAFETY: within the block's counts and the level's.
        unsafe {
            let count = *counts.add(index as usize);
            if count != 0 {
                gpu::atomic_add(batch.level_counts.add(index as usize), count);
            }
        }
        index += gpu::block_size();
    }
}

// Every lane of a warp runs the loops above to their ends: the votes and
// shuffles name only a group's lanes, whose vertex is one.
const _: () = assert!(FULL_WARP == u32::MAX);
