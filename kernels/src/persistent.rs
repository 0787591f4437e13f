//! # Persistent BFS: every level in one cooperative launch
//!
//! On high-diameter graphs (road networks: a thousand levels of a few
//! hundred vertices) a level-synchronous BFS is dominated by what each level
//! costs besides its work: a launch and a round trip to the host, about
//! 20 µs. Here one launch runs all levels: the grid stays resident
//! (a cooperative launch of one block per multiprocessor), each level's
//! threads share out the frontier queue grid-stride, and a software grid
//! barrier ([`grid_barrier`](crate::gpu::grid_barrier)) separates levels; the search ends, on the
//! device, when a level finds nothing. The persistent-threads idea is from
//! Gupta, Stuart & Owens, "A Study of Persistent Threads Style GPU
//! Programming for GPGPU Workloads" (InPar 2012); the barrier is the
//! lock-based one of Xiao & Feng, "Inter-Block GPU Communication via Fast
//! Barrier Synchronization" (IPDPS 2010), with explicit fences.
//!
//! Queue sizes rotate through three counters: level `L` reads
//! `queue_sizes[L % 3]`, appends to `[(L + 1) % 3]`, and clears
//! `[(L + 2) % 3]`, which nobody reads again before the next barrier; so
//! one barrier per level suffices. Queues and counters are written in this
//! launch, so they are read with volatile (coherent) loads, never through
//! the read-only cache; only the graph is.
//!
//! It can also run part of a search: from level `first_level`, returning
//! once the frontier is down to `handoff_size` vertices or fewer (0: run to
//! the end), so `auto` can hand small frontiers back to one block.
//!
//! Encodings as in [`crate::global_queue`]; `*level_count` receives the
//! level reached: its frontier (empty at the end) is in `queue_a` if an
//! even number of levels ran, else in `queue_b`, its size in
//! `queue_sizes[level % 3]`.

use crate::gpu;
use crate::visit::{claim, neighbours};

/// Runs the search from the frontier of `first_level` in `queue_a`.
///
/// # Safety
/// As [`global_queue_expand`](crate::global_queue::global_queue_expand), with
/// `queue_a` and `queue_b` of `n` entries each, `queue_a` holding the
/// frontier, `queue_sizes[first_level % 3]` its size and
/// `queue_sizes[(first_level + 1) % 3]` 0, `barrier` two `u32` set to 0,
/// `level_count` one `u32`.
///
/// # Launch
/// Cooperative, at most the occupancy's blocks (the host uses one per
/// multiprocessor), block [`PERSISTENT_BLOCK_SIZE`](crate::abi::PERSISTENT_BLOCK_SIZE),
/// no shared memory.
///
/// # Thread mapping
/// Each level, thread `t` of the grid expands queue entries `t`, `t + T`, …
/// (`T` threads in the grid).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn persistent_levels(
    row_offsets: *const u32,
    column_indices: *const u32,
    queue_a: *mut u32,
    queue_b: *mut u32,
    queue_sizes: *mut u32,
    visited: *mut u32,
    levels: *mut u32,
    parents: *mut u32,
    barrier: *mut u32,
    level_count: *mut u32,
    first_level: u32,
    handoff_size: u32,
) {
    let thread = gpu::global_thread_index();
    let threads = gpu::grid_size() * gpu::block_size();
    let (mut frontier, mut next_frontier) = (queue_a, queue_b);
    let mut level = first_level;
    // SAFETY: queue entries read are below the frontier's size and queue
    // slots written are handed out once each by the tail counter (each
    // vertex is claimed once, so fewer than `n`); counters and barrier as
    // the contract says. The loop exit depends only on a counter every
    // thread reads after the same barrier, so all reach every barrier.
    unsafe {
        loop {
            let size = core::ptr::read_volatile(queue_sizes.add((level % 3) as usize));
            if size == 0 || (level > first_level && size <= handoff_size) {
                break;
            }
            if thread == 0 {
                core::ptr::write_volatile(queue_sizes.add(((level + 2) % 3) as usize), 0);
            }
            let next_size = queue_sizes.add(((level + 1) % 3) as usize);
            let mut index = thread;
            while index < size {
                let vertex = core::ptr::read_volatile(frontier.add(index as usize));
                for neighbour in neighbours(row_offsets, column_indices, vertex) {
                    if claim(visited, levels, parents, neighbour, vertex, level + 1) {
                        let tail = gpu::atomic_add(next_size, 1);
                        core::ptr::write_volatile(next_frontier.add(tail as usize), neighbour);
                    }
                }
                index += threads;
            }
            gpu::grid_barrier(barrier, gpu::grid_size());
            core::mem::swap(&mut frontier, &mut next_frontier);
            level += 1;
        }
        if thread == 0 {
            *level_count = level;
        }
    }
}
