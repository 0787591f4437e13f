//! # Queue-based BFS with block-privatized queues
//!
//! Kirk & Hwu, *Programming Massively Parallel Processors* (3rd ed.), §12.4
//! (Fig. 12.8): privatization. Each block first collects the vertices it
//! discovers in its own queue in shared memory (`b_queue`), where the tail
//! atomic is cheap and contended only within the block. A vertex that finds
//! the b-queue full goes straight to the global queue. At the end, one thread
//! reserves the block's whole range of the global queue with a single
//! `atomicAdd`, and the block copies its queue out, coalesced.
//!
//! Encodings as in [`crate::textbook::global_queue`]. Shared memory holds the b-queue's
//! tail, the block's start in the global queue, then
//! [`block_queue::CAPACITY`] entries.

use crate::abi::block_queue;
use crate::abi::frontier::FrontierLevel;
use crate::gpu;
use crate::visit::{load, neighbours_through};

/// Shared memory slots before the queue: its tail and its global start.
const HEADER: usize = 2;

/// One level: expand the frontier through the block's private queue.
///
/// # Safety
/// As [`global_queue_expand`](crate::textbook::global_queue::global_queue_expand).
///
/// # Launch
/// Grid `ceil(frontier_size / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE),
/// shared memory [`block_queue::shared_bytes`](crate::abi::block_queue::shared_bytes).
///
/// # Thread mapping
/// Thread `i` expands `frontier[i]`; then the block's threads copy the
/// b-queue out, thread `t` taking entries `t`, `t + blockDim`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn block_queue_expand(level: FrontierLevel) {
    // SAFETY: forwarded from the caller.
    unsafe { expand::<true>(level.in_global()) }
}

/// [`block_queue_expand`] with plain loads of the graph and frontier instead
/// of the read-only cache: the benchmark's measure of what `ld.global.nc` buys.
///
/// # Safety
/// As [`block_queue_expand`].
///
/// # Launch
/// As [`block_queue_expand`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn block_queue_expand_plain_loads(level: FrontierLevel) {
    // SAFETY: forwarded from the caller.
    unsafe { expand::<false>(level.in_global()) }
}

/// The kernel body, with the graph and frontier read through the read-only
/// cache or not.
///
/// # Safety
/// As [`block_queue_expand`].
#[inline(always)]
unsafe fn expand<const READ_ONLY_CACHE: bool>(level: FrontierLevel) {
    let shared = gpu::dynamic_shared_memory::<u32>();
    // SAFETY: the launch provides `HEADER + block_queue::CAPACITY` words of
    // shared memory; global accesses follow `global_queue_expand`'s contract;
    // every b-queue slot written is `< block_queue::CAPACITY`. Barriers are
    // reached by every thread (no early return).
    unsafe {
        let b_queue_size = shared;
        let b_queue_start = shared.add(1);
        let b_queue = shared.add(HEADER);
        if gpu::thread_index() == 0 {
            *b_queue_size = 0;
        }
        gpu::sync_threads();

        let index = gpu::global_thread_index();
        if index < level.frontier_size {
            let vertex = load::<READ_ONLY_CACHE>(level.frontier.add(index as usize));
            for neighbour in neighbours_through::<_, READ_ONLY_CACHE>(
                level.row_offsets,
                level.column_indices,
                vertex,
            ) {
                if level.claim(neighbour, vertex) {
                    let slot = gpu::atomic_add(b_queue_size, 1);
                    if slot < block_queue::CAPACITY {
                        *b_queue.add(slot as usize) = neighbour;
                    } else {
                        let tail = gpu::atomic_add(level.next_frontier_size, 1);
                        *level.next_frontier.add(tail as usize) = neighbour;
                    }
                }
            }
        }
        gpu::sync_threads();

        let count = (*b_queue_size).min(block_queue::CAPACITY);
        if gpu::thread_index() == 0 {
            *b_queue_start = gpu::atomic_add(level.next_frontier_size, count);
        }
        gpu::sync_threads();
        let start = *b_queue_start as usize;
        let mut slot = gpu::thread_index();
        while slot < count {
            *level.next_frontier.add(start + slot as usize) = *b_queue.add(slot as usize);
            slot += gpu::block_size();
        }
    }
}
