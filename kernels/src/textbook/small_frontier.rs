//! # Small-frontier BFS: many levels in one single-block launch
//!
//! The graph-search lecture's remedy for launch overhead: while the frontier
//! fits in one block's shared memory, a single block can run level after
//! level on its own, with `__syncthreads()` as the level barrier, instead of
//! returning to the host for every level (Luo, Wong & Hwu, "An Effective GPU
//! Implementation of Breadth-First Search", DAC 2010, use the same idea).
//! High-diameter graphs, such as road networks, spend most levels with small
//! frontiers and gain the most.
//!
//! Such a level has little work and costs the latency of its dependent
//! memory accesses, so the block keeps that chain short:
//! - the shared queues hold each vertex with its row (`row_offsets[v]`,
//!   `row_offsets[v + 1]`), loaded when the vertex was claimed, alongside
//!   the claim's atomic: a level starts with the column loads;
//! - each thread claims its neighbours in batches, loads then atomics in
//!   flight together, without a read before the atomic, and a warp
//!   reserves queue slots with one shared atomic
//!   ([`expand_in_warp_step`](crate::visit::expand_in_warp_step));
//! - the next queue's size rotates through three counters (the one two
//!   levels ahead is cleared during a level, when nobody reads it), so one
//!   `__syncthreads()` ends a level;
//! - when the graph is small enough (`visited_words > 0`), the visited
//!   bitmap itself moves into shared memory for the launch, and claims are
//!   shared-memory atomics (a million vertices take 128 KB, and Hopper
//!   gives a block up to 227 KB).
//!
//! So a level is: column loads, atomics with row loads, a barrier.
//!
//! When a level discovers more vertices than `handoff_size` (at most
//! `capacity`), any excess already went to the global next queue; the block
//! appends the rest there too and returns, and the host expands the large
//! frontiers with many blocks (`block_queue_expand`, or under `auto` the
//! persistent kernel) until the frontier fits again. (The lecture's
//! single-launch sketch relies on blocks synchronizing among themselves,
//! which CUDA does not guarantee; this hand-over keeps it correct.)
//!
//! Encodings as in [`crate::textbook::global_queue`]; on return `*frontier_level` is
//! the level of the vertices in `next_frontier` (none when its size is 0).

use crate::abi::EdgeOffset;
use crate::abi::frontier::FrontierLevel;
use crate::abi::small_frontier;
use crate::gpu::{self, FULL_WARP};
use crate::visit::{expand_in_warp_step, row};

/// Runs levels from the `first` level's frontier until the search ends or
/// a frontier outgrows `handoff_size`.
///
/// # Safety
/// As [`global_queue_expand`](crate::textbook::global_queue::global_queue_expand), and
/// `frontier_size <= handoff_size <= capacity`; `visited_words` is 0 or the
/// `visited` bitmap's size; `frontier_level` points to one `u32`.
///
/// # Launch
/// Grid 1, block [`small_frontier::BLOCK_SIZE`](crate::abi::small_frontier::BLOCK_SIZE)
/// (whole warps), shared memory
/// [`small_frontier::shared_bytes`](crate::abi::small_frontier::shared_bytes)`(capacity,
/// visited_words)`.
///
/// # Thread mapping
/// Each level, thread `t` expands frontier entries `t`, `t + blockDim`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn small_frontier_levels(
    first: FrontierLevel,
    frontier_level: *mut u32,
    handoff_size: u32,
    capacity: u32,
    visited_words: u32,
) {
    // The block's fields by name: the loop below takes `level` on from
    // the first level's.
    let FrontierLevel {
        row_offsets,
        column_indices,
        frontier,
        frontier_size,
        next_frontier,
        next_frontier_size,
        visited,
        levels,
        parents,
        level,
    } = first.in_global();
    let shared = gpu::dynamic_shared_memory::<u32>();
    let handoff_size = handoff_size.min(capacity);
    let thread = gpu::thread_index();
    let threads = gpu::block_size();
    // SAFETY: the launch provides `small_frontier::HEADER_WORDS + 8 *
    // capacity + visited_words` words: three counters, the hand-over start,
    // two queues, the bitmap; shared queue slots stay `< capacity` (the test
    // below) and global accesses follow `global_queue_expand`'s contract.
    // Loop exits depend only on shared values read after a barrier, or on
    // warp-wide ballots, so every thread reaches every barrier and every
    // lane every vote.
    unsafe {
        let counters = shared;
        let handoff_start = shared.add(3);
        let queues = shared.add(small_frontier::HEADER_WORDS as usize);
        let mut current = SharedQueue::at(queues, capacity);
        let mut next =
            SharedQueue::at(queues.add(SharedQueue::WORDS * capacity as usize), capacity);
        let shared_visited = queues.add(2 * SharedQueue::WORDS * capacity as usize);
        if thread < 3 {
            *counters.add(thread as usize) = 0;
        }
        copy_words(visited, shared_visited, visited_words);
        let visited_here = if visited_words > 0 {
            shared_visited
        } else {
            visited
        };
        let mut slot = thread;
        while slot < frontier_size {
            let vertex = gpu::load_read_only(frontier.add(slot as usize));
            current.set(slot, vertex, row(row_offsets, vertex));
            slot += threads;
        }
        gpu::sync_threads();

        let graph = (row_offsets, column_indices);
        let labels = (visited_here, levels, parents);
        let (mut size, mut level, mut round) = (frontier_size, level, 0);
        let discovered = loop {
            let next_size = counters.add(((round + 1) % 3) as usize);
            if thread == 0 {
                // Last read before the previous level's barrier.
                *counters.add(((round + 2) % 3) as usize) = 0;
            }
            let mut slot = thread;
            while gpu::ballot(FULL_WARP, slot < size) != 0 {
                let entry = if slot < size {
                    current.get(slot)
                } else {
                    (0, (0, 0))
                };
                expand_in_warp_step(
                    graph,
                    labels,
                    entry,
                    level + 1,
                    |total| gpu::atomic_add(next_size, total),
                    |tail, neighbour, neighbour_row| {
                        if tail < capacity {
                            next.set(tail, neighbour, neighbour_row);
                        } else {
                            let global_tail = gpu::atomic_add(next_frontier_size, 1);
                            *next_frontier.add(global_tail as usize) = neighbour;
                        }
                    },
                );
                slot += threads;
            }
            gpu::sync_threads();
            let discovered = *next_size;
            level += 1;
            round += 1;
            if discovered == 0 || discovered > handoff_size {
                break discovered;
            }
            core::mem::swap(&mut current, &mut next);
            size = discovered;
        };

        // Hand the frontier that outgrew the block to the global queue.
        let kept = discovered.min(capacity);
        if thread == 0 {
            *handoff_start = gpu::atomic_add(next_frontier_size, kept);
            *frontier_level = level;
        }
        gpu::sync_threads();
        let start = *handoff_start as usize;
        let mut slot = thread;
        while slot < kept {
            *next_frontier.add(start + slot as usize) = next.get(slot).0;
            slot += threads;
        }
        copy_words(shared_visited, visited, visited_words);
    }
}

/// The block copies `count` words from `source` to `destination`.
///
/// # Safety
/// Both hold `count` words; nothing else accesses them meanwhile.
#[inline(always)]
unsafe fn copy_words(source: *const u32, destination: *mut u32, count: u32) {
    let mut word = gpu::thread_index();
    while word < count {
        // SAFETY: `word < count` (the contract).
        unsafe { *destination.add(word as usize) = *source.add(word as usize) };
        word += gpu::block_size();
    }
}

/// A frontier queue in shared memory: each vertex with its row, as three
/// arrays of `capacity` entries: first edges (an [`EdgeOffset`] each),
/// vertices and degrees (a word each; a degree is below `n`).
struct SharedQueue {
    first_edges: *mut EdgeOffset,
    vertices: *mut u32,
    degrees: *mut u32,
}

impl SharedQueue {
    /// Words an entry takes.
    const WORDS: usize = 4;

    /// The queue whose `WORDS * capacity` words start at `words`, which are
    /// 8-byte aligned.
    fn at(words: *mut u32, capacity: u32) -> SharedQueue {
        let capacity = capacity as usize;
        let vertices = words.wrapping_add(2 * capacity);
        SharedQueue {
            first_edges: words.cast(),
            vertices,
            degrees: vertices.wrapping_add(capacity),
        }
    }

    /// Entry `slot`: a vertex and its row.
    ///
    /// # Safety
    /// `slot < capacity`.
    #[inline(always)]
    unsafe fn get(&self, slot: u32) -> (u32, (EdgeOffset, EdgeOffset)) {
        let slot = slot as usize;
        // SAFETY: `slot < capacity`, within each of the three arrays.
        unsafe {
            let first_edge = *self.first_edges.add(slot);
            let degree = *self.degrees.add(slot) as EdgeOffset;
            (*self.vertices.add(slot), (first_edge, first_edge + degree))
        }
    }

    /// Sets entry `slot` to `vertex` and its row.
    ///
    /// # Safety
    /// `slot < capacity`.
    #[inline(always)]
    unsafe fn set(
        &mut self,
        slot: u32,
        vertex: u32,
        (first_edge, end_edge): (EdgeOffset, EdgeOffset),
    ) {
        let slot = slot as usize;
        // SAFETY: `slot < capacity`, within each of the three arrays.
        unsafe {
            *self.first_edges.add(slot) = first_edge;
            *self.vertices.add(slot) = vertex;
            *self.degrees.add(slot) = (end_edge - first_edge) as u32;
        }
    }
}
