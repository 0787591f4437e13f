//! # Persistent BFS: every level in one cooperative launch
//!
//! On high-diameter graphs (road networks: a thousand levels of a few
//! hundred vertices) a level-synchronous BFS is dominated by what each level
//! costs besides its work: a launch and a round trip to the host, which
//! outlast such a level's work many times over. Here one launch runs all
//! levels: the grid stays resident
//! (a cooperative launch of one block per multiprocessor), each level's
//! threads share out the frontier queue, and a software grid barrier
//! ([`grid_barrier_with_count`](crate::gpu::grid_barrier_with_count))
//! separates levels; the search ends, on the device, when a level finds
//! nothing. The persistent-threads idea is from Gupta, Stuart & Owens, "A
//! Study of Persistent Threads Style GPU Programming for GPGPU Workloads"
//! (InPar 2012); the barrier is a counting barrier in the manner of Xiao &
//! Feng, "Inter-Block GPU Communication via Fast Barrier Synchronization"
//! (IPDPS 2010), with explicit release/acquire fences.
//!
//! What is left of a level is its chain of dependent memory accesses and
//! the barrier, so the chain is kept short:
//! - neighbours are claimed in batches, loads then atomics in flight
//!   together, and a warp reserves its queue slots with one atomic, not one
//!   per vertex ([`expand_in_warp_step`](crate::visit::expand_in_warp_step));
//! - each claimed vertex's row is loaded beside its atomic and staged for
//!   the next level (the first `staged_capacity` entries of each
//!   frontier), so that level starts with its column loads;
//! - the next frontier's size rides on the barrier: the level's appends
//!   count in the high half of the same 64-bit word whose low half counts
//!   the blocks that arrived, so the load that ends the barrier brings it;
//! - the frontier is dealt out to the blocks in turn, so a few thousand
//!   vertices keep every multiprocessor busy, not the first two.
//!
//! One queue of `n` entries holds every frontier, one after another: each
//! vertex enters it once, so level `L + 1`'s frontier is appended right
//! after level `L`'s. The barrier words rotate: level `L` counts in
//! `level_words[(L + 1) % 3]` and clears `[(L + 2) % 3]`, which nobody
//! touches again before the next barrier. Queue and staged rows are written
//! in this launch, so they are read with volatile (coherent) loads, never
//! through the read-only cache; only the graph is.
//!
//! It can also run part of a search: from level `first_level`, returning
//! once the frontier is down to `handoff_size` vertices or fewer (0: run to
//! the end), so `auto` can hand small frontiers back to one block.
//!
//! Encodings as in [`crate::textbook::global_queue`]; on return `reached` holds the
//! level reached, where its frontier (empty at the end) starts in `queue`,
//! and its size.

use crate::abi::EdgeOffset;
use crate::gpu::{self, FULL_WARP};
use crate::visit::{expand_in_warp_step, row};

/// Runs the search from the frontier of `first_level`: `frontier_size`
/// vertices at `frontier_start` in `queue`.
///
/// # Safety
/// As [`global_queue_expand`](crate::textbook::global_queue::global_queue_expand), with
/// `queue` of `n` entries holding the frontier from `frontier_start`, which
/// plus the vertices still to be discovered is at most `n`; `staged_rows`
/// of `4 * staged_capacity` offsets; `level_words` three `u64` set to 0;
/// `reached` three `u32`.
///
/// # Launch
/// Cooperative, at most the occupancy's blocks (the host uses one per
/// multiprocessor), block [`persistent::BLOCK_SIZE`](crate::abi::persistent::BLOCK_SIZE)
/// (whole warps), [`persistent::SHARED_BYTES`](crate::abi::persistent::SHARED_BYTES)
/// of shared memory.
///
/// # Thread mapping
/// Entries are dealt out to the blocks in turn: thread `t` of block `b`
/// expands entries `t * B + b`, then `T` further, … (`B` blocks, `T`
/// threads in the grid).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn persistent_levels(
    row_offsets: *const EdgeOffset,
    column_indices: *const u32,
    queue: *mut u32,
    frontier_start: u32,
    frontier_size: u32,
    staged_rows: *mut EdgeOffset,
    staged_capacity: u32,
    level_words: *mut u64,
    visited: *mut u32,
    levels: *mut u32,
    parents: *mut u32,
    reached: *mut u32,
    first_level: u32,
    handoff_size: u32,
) {
    let barrier_size = gpu::dynamic_shared_memory::<u32>();
    let thread = gpu::global_thread_index();
    let threads = gpu::grid_threads();
    let first_index = gpu::thread_index() * gpu::grid_size() + gpu::block_index();
    let graph = (row_offsets, column_indices);
    let labels = (visited, levels, parents);
    let (mut level, mut start, mut size) = (first_level, frontier_start, frontier_size);
    // SAFETY: queue entries read are within the frontier, and slots written
    // are handed out once each by the level's count (each vertex is claimed
    // once, so they stay below `n`); staged rows are read below
    // `staged_capacity` in this level's half and written in the other; barrier
    // words as the contract says. Loop exits depend only on the size every
    // thread gets from the same barrier, or on warp-wide ballots, so all
    // threads reach every barrier and all lanes every vote.
    unsafe {
        loop {
            if size == 0 || (level > first_level && size <= handoff_size) {
                break;
            }
            let word = level_words.add(((level + 1) % 3) as usize);
            if thread == 0 {
                core::ptr::write_volatile(level_words.add(((level + 2) % 3) as usize), 0);
            }
            let half = 2 * staged_capacity as usize;
            let rows_here = staged_rows.add(half * (level % 2) as usize);
            let rows_next = staged_rows.add(half * ((level + 1) % 2) as usize);
            let rows_staged = level > first_level;
            let next_frontier = queue.add((start + size) as usize);
            let mut index = first_index;
            while gpu::ballot(FULL_WARP, index < size) != 0 {
                let entry = if index < size {
                    let vertex = core::ptr::read_volatile(queue.add((start + index) as usize));
                    let row = if rows_staged && index < staged_capacity {
                        let staged = rows_here.add(2 * index as usize);
                        (
                            core::ptr::read_volatile(staged),
                            core::ptr::read_volatile(staged.add(1)),
                        )
                    } else {
                        row(row_offsets, vertex)
                    };
                    (vertex, row)
                } else {
                    (0, (0, 0))
                };
                expand_in_warp_step(
                    graph,
                    labels,
                    entry,
                    level + 1,
                    |total| (gpu::atomic_add_u64(word, (total as u64) << 32) >> 32) as u32,
                    |tail, neighbour, (first_edge, end_edge)| {
                        core::ptr::write_volatile(next_frontier.add(tail as usize), neighbour);
                        if tail < staged_capacity {
                            let staged = rows_next.add(2 * tail as usize);
                            core::ptr::write_volatile(staged, first_edge);
                            core::ptr::write_volatile(staged.add(1), end_edge);
                        }
                    },
                );
                index += threads;
            }
            start += size;
            size = gpu::grid_barrier_with_count(word, gpu::grid_size(), barrier_size);
            level += 1;
        }
        if thread == 0 {
            *reached = level;
            *reached.add(1) = start;
            *reached.add(2) = size;
        }
    }
}
