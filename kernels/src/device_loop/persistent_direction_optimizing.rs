//! # Direction-optimizing BFS on a persistent grid: the level loop on the device
//!
//! [`crate::direction::direction_optimizing`]'s search (Beamer, Asanović & Patterson,
//! SC 2012, as in gapbs's `DOBFS`) without its host loop. There, every
//! level is a launch, a copy of a count and a synchronize, and the host
//! decides the next direction; a Kronecker search's eight levels pay eight
//! of those round trips. Here one cooperative launch runs the whole search,
//! as [`crate::device_loop::persistent`] does for road networks: the grid stays resident,
//! levels are separated by the counting grid barrier
//! ([`grid_barrier_with_count`](crate::gpu::grid_barrier_with_count)), and
//! every thread takes the same top-down/bottom-up decision from the same
//! counts, which the barrier makes visible to all.
//!
//! - **Top-down** levels walk the frontier queue with the Merrill et al.
//!   gather ([`expand_top_down`]) and append what they claim with
//!   an atomic on the barrier's word, whose high half becomes the next
//!   frontier's size; their degrees add up to gapbs's `scout_count`.
//!   Hubs are the exception: the gather gives a list of a block's size or
//!   more to the one block that holds its vertex, so a vertex of
//!   [`hub_chunks::CHUNK_EDGES`] edges or more is queued a second time, as chunks
//!   of that many (one per thread of a block) in a list of (hub,
//!   chunk) pairs, and the next top-down level deals the chunks out to all
//!   blocks first. (The source's chunks are numbered, not listed.)
//! - **Bottom-up** levels give each thread vertices `t`, `t + T`, … (`T`
//!   threads in the grid): an unvisited one scans its neighbours for one in
//!   the frontier bitmap and stops at the first. A warp's 32 vertices share
//!   one bitmap word, so one lane writes the warp's new bits into the
//!   visited and next bitmaps with plain stores, no atomics; the found
//!   vertices are also appended to the queue, so going back top-down needs
//!   no conversion.
//! - **The switch** is gapbs's: bottom-up once `scout_count` exceeds the
//!   unexplored edges over α (the frontier queue is turned into a bitmap
//!   first, one more grid barrier), back once the frontier shrinks below
//!   `n / β`.
//!
//! Three bitmaps rotate: level `L` reads bitmap `L % 3`, writes `(L + 1) % 3`
//! and clears `(L + 2) % 3`, which nobody reads before the next barrier; the
//! hub chunk lists alternate, level `L` reading half `L % 2` and filling
//! the other.
//! Top-down levels read no bitmap; the first after a bottom-up phase clears
//! them all, and so does the kernel's end, so every search starts on clear
//! bitmaps. The per-barrier counters rotate the same way (barrier `b` counts
//! in set `(b + 1) % 3`, clears set `(b + 2) % 3`), as in `persistent_levels`.
//!
//! Queue, bitmaps and counters are written in this launch, so they are read
//! with plain or volatile loads after the barrier that ordered them (its
//! acquire), never through the read-only cache; only the graph is.
//!
//! Encodings as in [`crate::textbook::global_queue`]; bitmaps as in
//! [`crate::direction::direction_optimizing`]. On return `reached` holds the levels
//! searched (the last one found nothing).

use crate::abi::EdgeOffset;
use crate::abi::direction_optimizing::{self, Switch};
use crate::abi::hub_chunks;
use crate::abi::persistent_direction_optimizing;
use crate::direction::direction_optimizing::{
    add_block_sum, claim_and_append, clear_block_sum, expand_top_down,
};
use crate::direction::hub_chunks::{chunk_edge, chunks_of};
use crate::gpu::{self, FULL_WARP};
use crate::visit::{RowOffset, entry_points_by_row_offset, is_visited, row, row_neighbours};

entry_points_by_row_offset!(
    /// Searches from the vertex in `queue[0]`, already labelled and visited.
    ///
    /// # Safety
    /// `row_offsets`/`column_indices` a graph of `vertex_count` vertices as in
    /// [`global_queue_expand`](crate::textbook::global_queue::global_queue_expand),
    /// symmetric unless `bottom_up_allowed` is 0; `queue`, `levels` and
    /// `parents` of `vertex_count` entries, labels reset but for the source;
    /// `visited` and each of the three consecutive `bitmaps` of
    /// `ceil(vertex_count / 32)` words (at least one), `visited` holding the
    /// source's bit alone and the bitmaps clear; `counters` of
    /// `3 * persistent_direction_optimizing::COUNTERS` words set to 0; `hub_chunks` two
    /// halves of `hub_chunk_capacity` pairs, that capacity at least the chunks
    /// of every list of [`hub_chunks::CHUNK_EDGES`] or more edges together; `reached` one
    /// word.
    ///
    /// # Launch
    /// Cooperative, at most the occupancy's blocks (the host launches that
    /// many), block [`persistent_direction_optimizing::BLOCK_SIZE`](crate::abi::persistent_direction_optimizing::BLOCK_SIZE)
    /// (whole warps), [`persistent_direction_optimizing::SHARED_BYTES`](crate::abi::persistent_direction_optimizing::SHARED_BYTES)
    /// of shared memory.
    ///
    /// # Thread mapping
    /// Top-down: thread `t` takes frontier entries `t`, `t + T`, … and its
    /// block, warp or itself walks each list. Bottom-up: thread `t` owns
    /// vertices `t`, `t + T`, …; a warp's lanes own the 32 vertices of one
    /// bitmap word.
    persistent_direction_optimizing,
    persistent_direction_optimizing_narrow,
    |row_offsets,
     column_indices: *const u32,
     queue: *mut u32,
     visited: *mut u32,
     levels: *mut u32,
     parents: *mut u32,
     bitmaps: *mut u32,
     counters: *mut u64,
     vertex_count: u32,
     bottom_up_allowed: u32,
     hub_chunks: *mut u32,
     hub_chunk_capacity: u32,
     reached: *mut u64| search(
        (row_offsets, column_indices),
        (queue, visited, levels, parents),
        (bitmaps, counters),
        vertex_count,
        bottom_up_allowed,
        (hub_chunks, hub_chunk_capacity),
        reached,
    )
);

/// The search of both entry points, over row offsets of either width.
///
/// # Safety
/// As [`persistent_direction_optimizing`].
#[inline(always)]
unsafe fn search<O: RowOffset>(
    (row_offsets, column_indices): (*const O, *const u32),
    (queue, visited, levels, parents): (*mut u32, *mut u32, *mut u32, *mut u32),
    (bitmaps, counters): (*mut u32, *mut u64),
    vertex_count: u32,
    bottom_up_allowed: u32,
    (hub_chunks, hub_chunk_capacity): (*mut u32, u32),
    reached: *mut u64,
) {
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    // After the edge count: the gather's elected owner and its list, then
    // the barrier's count.
    let owner_slot = block_edges
        .wrapping_add(1)
        .cast::<direction_optimizing::ListOwner>();
    let barrier_size = owner_slot.wrapping_add(1).cast::<u32>();
    let grid = Grid {
        thread: gpu::global_thread_index(),
        threads: gpu::grid_threads(),
    };
    let words = vertex_count.div_ceil(32).max(1);
    let bitmap = |level: u32| bitmaps.wrapping_add((words * (level % 3)) as usize);
    let labels = (visited, levels, parents);
    let hub_half =
        |level: u32| hub_chunks.wrapping_add((2 * hub_chunk_capacity * (level % 2)) as usize);
    // SAFETY: the shared words are the launch's (the layout above); queue
    // slots are handed out once each by the level's count, and each vertex
    // enters the queue once, so they stay below `n`; bitmap and counter
    // indices are within their arrays. Every thread computes the same
    // decisions from the same counts, read after the same barriers, so all
    // reach every barrier; loops are grid- or warp-uniform where they vote.
    unsafe {
        clear_block_sum(block_edges);
        let source = *queue;
        let (first_edge, end_edge) = row(row_offsets, source);
        let mut scout_count = end_edge - first_edge;
        let mut edges_to_check = O::load_read_only(row_offsets.add(vertex_count as usize));
        let (mut level, mut start, mut size) = (0u32, 0u32, 1u32);
        let mut barrier = 0u32;
        let (mut bottom_up, mut bitmaps_dirty) = (false, false);
        // The source's chunks, if it is a hub, are numbered, not listed.
        let mut hub_chunk_count = chunks_of((first_edge, end_edge), hub_chunks::CHUNK_EDGES);
        while size > 0 {
            if !bottom_up
                && bottom_up_allowed != 0
                && Switch::GAPBS.goes_bottom_up(scout_count, edges_to_check)
            {
                let front = bitmap(level);
                grid.for_each(size, |index| {
                    let vertex = *queue.add((start + index) as usize);
                    gpu::atomic_or(front.add((vertex / 32) as usize), 1 << (vertex % 32));
                });
                let counter = counters_of(counters, barrier, grid.thread);
                gpu::grid_barrier_with_count(counter, gpu::grid_size(), barrier_size);
                barrier += 1;
                bottom_up = true;
            }
            let counter = counters_of(counters, barrier, grid.thread);
            let next_frontier = queue.add((start + size) as usize);
            let reserve =
                |total: u32| (gpu::atomic_add_u64(counter, (total as u64) << 32) >> 32) as u32;
            // Queues a vertex of the next frontier, and its chunks if it is a hub.
            let append = |vertex: u32, (first, end): (EdgeOffset, EdgeOffset), slot: u32| {
                *next_frontier.add(slot as usize) = vertex;
                let chunks = chunks_of((first, end), hub_chunks::CHUNK_EDGES);
                if chunks > 0 {
                    let listed = gpu::atomic_add_u64(counter.add(2), chunks as u64) as u32;
                    let list = hub_half(level + 1).add(2 * listed as usize);
                    for chunk in 0..chunks as usize {
                        *list.add(2 * chunk) = vertex;
                        *list.add(2 * chunk + 1) = chunk as u32;
                    }
                }
            };
            if bottom_up {
                let (front, next) = (bitmap(level), bitmap(level + 1));
                grid.clear(bitmap(level + 2), words);
                grid.for_each_in_step(vertex_count, |vertex| {
                    let (mut parent, mut vertex_row) = (None, (0, 0));
                    if vertex < vertex_count && !is_visited(visited, vertex) {
                        vertex_row = row(row_offsets, vertex);
                        for neighbour in row_neighbours::<true>(column_indices, vertex_row) {
                            if *front.add((neighbour / 32) as usize) & (1 << (neighbour % 32)) != 0
                            {
                                parent = Some(neighbour);
                                break;
                            }
                        }
                    }
                    let found = gpu::ballot(FULL_WARP, parent.is_some());
                    if found == 0 {
                        return;
                    }
                    // Lane 0 owns the warp's first vertex, a multiple of 32.
                    if gpu::lane_index() == 0 {
                        let word = (vertex / 32) as usize;
                        *visited.add(word) |= found;
                        *next.add(word) = found;
                    }
                    let slot = gpu::warp_reserve_one(parent.is_some(), reserve);
                    if let Some(parent) = parent {
                        *levels.add(vertex as usize) = level + 1;
                        *parents.add(vertex as usize) = parent;
                        append(vertex, vertex_row, slot);
                    }
                });
            } else {
                if bitmaps_dirty {
                    grid.clear(bitmaps, 3 * words);
                    bitmaps_dirty = false;
                }
                edges_to_check = edges_to_check.saturating_sub(scout_count);
                let append = |vertex, vertex_row| append(vertex, vertex_row, reserve(1));
                let mut edges = 0u64;
                // Hubs' lists first, a chunk a block, every block taking its
                // turn: a hub no longer holds one block for its whole list.
                let hubs = hub_half(level);
                let mut chunk = gpu::block_index();
                while chunk < hub_chunk_count {
                    let (hub, index) = if level == 0 {
                        (source, chunk)
                    } else {
                        let entry = hubs.add(2 * chunk as usize);
                        (*entry, *entry.add(1))
                    };
                    let (first, end) = row(row_offsets, hub);
                    let edge = chunk_edge(first, index, gpu::thread_index());
                    if edge < end {
                        let neighbour = gpu::load_read_only(column_indices.add(edge as usize));
                        claim_and_append(
                            row_offsets,
                            labels,
                            (neighbour, hub),
                            level + 1,
                            append,
                            &mut edges,
                        );
                    }
                    chunk += gpu::grid_size();
                }
                // Then every other list, shared out by the gather.
                grid.for_each_in_step(size, |index| {
                    let entry = if index < size {
                        let vertex = *queue.add((start + index) as usize);
                        let vertex_row = row(row_offsets, vertex);
                        let is_hub = chunks_of(vertex_row, hub_chunks::CHUNK_EDGES) > 0;
                        (vertex, if is_hub { (0, 0) } else { vertex_row })
                    } else {
                        (0, (0, 0))
                    };
                    let graph = (row_offsets, column_indices);
                    edges += expand_top_down(graph, owner_slot, labels, entry, level + 1, append);
                });
                // Thread 0 adds the block's sum before it arrives at the
                // barrier, which releases it.
                add_block_sum(block_edges, edges, counter.add(1));
            }
            let next_size = gpu::grid_barrier_with_count(counter, gpu::grid_size(), barrier_size);
            barrier += 1;
            hub_chunk_count = core::ptr::read_volatile(counter.add(2)) as u32;
            if bottom_up {
                let growing_or_large = Switch::GAPBS.stays_bottom_up(
                    next_size as u64,
                    size as u64,
                    vertex_count as u64,
                );
                if !growing_or_large {
                    (bottom_up, bitmaps_dirty, scout_count) = (false, true, 1);
                }
            } else {
                scout_count = core::ptr::read_volatile(counter.add(1));
            }
            (level, start, size) = (level + 1, start + size, next_size);
        }
        if bottom_up || bitmaps_dirty {
            grid.clear(bitmaps, 3 * words);
        }
        if grid.thread == 0 {
            *reached = level as u64;
        }
    }
}

/// The counter set of barrier `barrier`: its barrier word, the top-down
/// level's frontier edges, the next level's hub chunks. Thread 0 clears the set two barriers ahead,
/// which nobody reads again before this barrier has passed.
///
/// # Safety
/// `counters` has `3 * persistent_direction_optimizing::COUNTERS` words.
#[inline(always)]
unsafe fn counters_of(counters: *mut u64, barrier: u32, thread: u32) -> *mut u64 {
    let set = |barrier: u32| {
        counters.wrapping_add((persistent_direction_optimizing::COUNTERS * (barrier % 3)) as usize)
    };
    if thread == 0 {
        let stale = set(barrier + 2);
        for word in 0..persistent_direction_optimizing::COUNTERS as usize {
            // SAFETY: within the counters (the contract).
            unsafe { core::ptr::write_volatile(stale.add(word), 0) };
        }
    }
    set(barrier + 1)
}

/// This thread's place in the grid.
struct Grid {
    thread: u32,
    threads: u32,
}

impl Grid {
    /// `work(i)` for this thread's indices `i < count`: `thread`,
    /// `thread + threads`, …
    #[inline(always)]
    fn for_each(&self, count: u32, mut work: impl FnMut(u32)) {
        let mut index = self.thread as u64;
        while index < count as u64 {
            work(index as u32);
            index += self.threads as u64;
        }
    }

    /// As [`for_each`](Self::for_each), but in rounds every thread of the
    /// grid takes together, passing indices past `count` too (where
    /// `work` must do nothing but its votes and barriers): for work with
    /// warp votes or block barriers.
    #[inline(always)]
    fn for_each_in_step(&self, count: u32, mut work: impl FnMut(u32)) {
        let rounds = count.div_ceil(self.threads.max(1));
        for round in 0..rounds {
            let index = round as u64 * self.threads as u64 + self.thread as u64;
            work(index.min(u32::MAX as u64) as u32);
        }
    }

    /// Sets `words` words from `bitmap` to 0, the grid sharing them out.
    ///
    /// # Safety
    /// `bitmap` has `words` words that nothing else accesses until the next
    /// grid barrier.
    #[inline(always)]
    unsafe fn clear(&self, bitmap: *mut u32, words: u32) {
        // SAFETY: within the bitmap (the contract).
        self.for_each(words, |word| unsafe { *bitmap.add(word as usize) = 0 });
    }
}
