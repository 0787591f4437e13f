//! # Queue-based BFS with one global queue
//!
//! Kirk & Hwu, *Programming Massively Parallel Processors* (3rd ed.), §12.3
//! (Fig. 12.7): the frontier is an explicit queue. One thread per frontier
//! vertex claims each unvisited neighbour with an atomic on `visited` and
//! appends it to the next queue with `atomicAdd` on the queue's tail. Work is
//! proportional to the frontier, not to the graph; the price is one global
//! atomic per discovered vertex, all on the same tail counter. The host swaps
//! the queues and reads the tail after each level.
//!
//! Encodings as [`FrontierLevel`] gives them.

use crate::abi::frontier::FrontierLevel;
use crate::gpu;
use crate::visit::neighbours;

/// One level: expand the frontier queue into the next one.
///
/// # Safety
/// `level` is as [`FrontierLevel`] says: `row_offsets` has `n + 1` entries
/// and `column_indices` has `m` entries, each `< n`; `frontier` holds
/// `frontier_size` vertex ids; `next_frontier` has room for every vertex
/// still undiscovered; `levels` and `parents` have `n` entries and
/// `visited` `ceil(n / 32)`; `next_frontier_size` points to one `u32`.
///
/// # Launch
/// Grid `ceil(frontier_size / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE), no shared memory.
///
/// # Thread mapping
/// Thread `i` expands `frontier[i]`, walking its whole adjacency list.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn global_queue_expand(level: FrontierLevel) {
    let level = level.in_global();
    let index = gpu::global_thread_index();
    if index >= level.frontier_size {
        return;
    }
    // SAFETY: `index < frontier_size`, frontier entries and neighbours are
    // vertex ids `< n`, and each claimed vertex gets a distinct tail slot,
    // fewer than `n` in all (each vertex is claimed once).
    unsafe {
        let vertex = gpu::load_read_only(level.frontier.add(index as usize));
        for neighbour in neighbours(level.row_offsets, level.column_indices, vertex) {
            if level.claim(neighbour, vertex) {
                let tail = gpu::atomic_add(level.next_frontier_size, 1);
                *level.next_frontier.add(tail as usize) = neighbour;
            }
        }
    }
}
