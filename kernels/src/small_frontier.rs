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
//! Both queues live in shared memory. When a level discovers more vertices
//! than `handoff_size` (at most [`SMALL_FRONTIER_CAPACITY`]), any excess
//! already went to the global next queue; the block appends the rest there
//! too and returns, and the host
//! runs that level's frontier with the multi-block
//! [`block_queue_expand`](crate::block_queue::block_queue_expand) until the
//! frontier fits again. (The lecture's single-launch sketch relies on
//! blocks synchronizing among themselves, which CUDA does not guarantee;
//! this hand-over keeps it correct.)
//!
//! Encodings as in [`crate::global_queue`]; on return `*frontier_level` is
//! the level of the vertices in `next_frontier` (none when its size is 0).

use crate::abi::SMALL_FRONTIER_CAPACITY;
use crate::gpu;
use crate::visit::{claim, neighbours};

/// Shared memory slots before the queues: the next queue's tail, the
/// block's start in the global queue.
const HEADER: usize = 2;

/// Runs levels from `frontier` (at `level`) until the search ends or a
/// frontier outgrows shared memory.
///
/// # Safety
/// As [`global_queue_expand`](crate::global_queue::global_queue_expand), and
/// `frontier_size <= handoff_size <= SMALL_FRONTIER_CAPACITY`;
/// `frontier_level` points to one `u32`.
///
/// # Launch
/// Grid 1, block [`SMALL_FRONTIER_BLOCK_SIZE`](crate::abi::SMALL_FRONTIER_BLOCK_SIZE),
/// shared memory [`small_frontier_shared_bytes`](crate::abi::small_frontier_shared_bytes).
///
/// # Thread mapping
/// Each level, thread `t` expands frontier entries `t`, `t + blockDim`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn small_frontier_levels(
    row_offsets: *const u32,
    column_indices: *const u32,
    frontier: *const u32,
    frontier_size: u32,
    next_frontier: *mut u32,
    next_frontier_size: *mut u32,
    visited: *mut u32,
    levels: *mut u32,
    parents: *mut u32,
    level: u32,
    frontier_level: *mut u32,
    handoff_size: u32,
) {
    let shared = gpu::dynamic_shared_memory::<u32>();
    let handoff_size = handoff_size.min(SMALL_FRONTIER_CAPACITY);
    let thread = gpu::thread_index();
    let threads = gpu::block_size();
    // SAFETY: the launch provides `HEADER + 2 * SMALL_FRONTIER_CAPACITY`
    // words; shared queue slots stay `< SMALL_FRONTIER_CAPACITY` (the
    // capacity test below) and global accesses follow `global_queue_expand`'s
    // contract. Loop exits depend only on shared values read after a
    // barrier, so every thread reaches every barrier.
    unsafe {
        let next_size = shared;
        let start = shared.add(1);
        let mut current = shared.add(HEADER);
        let mut next = current.add(SMALL_FRONTIER_CAPACITY as usize);
        let mut size = frontier_size;
        let mut level = level;
        let mut slot = thread;
        while slot < size {
            *current.add(slot as usize) = gpu::load_read_only(frontier.add(slot as usize));
            slot += threads;
        }

        let discovered = loop {
            if thread == 0 {
                *next_size = 0;
            }
            gpu::sync_threads();
            let mut slot = thread;
            while slot < size {
                let vertex = *current.add(slot as usize);
                for neighbour in neighbours(row_offsets, column_indices, vertex) {
                    if claim(visited, levels, parents, neighbour, vertex, level + 1) {
                        let tail = gpu::atomic_add(next_size, 1);
                        if tail < SMALL_FRONTIER_CAPACITY {
                            *next.add(tail as usize) = neighbour;
                        } else {
                            let global_tail = gpu::atomic_add(next_frontier_size, 1);
                            *next_frontier.add(global_tail as usize) = neighbour;
                        }
                    }
                }
                slot += threads;
            }
            gpu::sync_threads();
            let discovered = *next_size;
            level += 1;
            if discovered == 0 || discovered > handoff_size {
                break discovered;
            }
            core::mem::swap(&mut current, &mut next);
            size = discovered;
            // Everyone has read `next_size` before thread 0 clears it.
            gpu::sync_threads();
        };

        // Hand the frontier that outgrew shared memory to the global queue.
        let kept = discovered.min(SMALL_FRONTIER_CAPACITY);
        if thread == 0 {
            *start = gpu::atomic_add(next_frontier_size, kept);
            *frontier_level = level;
        }
        gpu::sync_threads();
        let start = *start as usize;
        let mut slot = thread;
        while slot < kept {
            *next_frontier.add(start + slot as usize) = *next.add(slot as usize);
            slot += threads;
        }
    }
}
