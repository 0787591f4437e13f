//! # Queue-based BFS with hierarchical queues: w-queues → b-queue → g-queue
//!
//! Kirk & Hwu, *Programming Massively Parallel Processors* (3rd ed.), §12.5
//! (Fig. 12.11) and the graph-search lecture's sub-queue assignment. The
//! block-queue's tail (see [`crate::textbook::block_queue`]) is still one counter that
//! every thread of the block hits; here it is split into `sub_queue_count`
//! w-queues, and thread `t` uses w-queue `t % sub_queue_count`, so the 32
//! lanes of a warp, which issue their atomics together, spread over
//! different counters instead of serializing on one.
//!
//! Overflow at every level, nothing lost: a full w-queue spills into the
//! b-queue, a full b-queue into the global queue. At the end of the block the
//! w-queues are consolidated into the b-queue, then one `atomicAdd` per block
//! reserves its range of the global g-queue and the block copies out.
//!
//! Shared memory (32-bit words), from [`hierarchical_queue::shared_words`](crate::abi::hierarchical_queue::shared_words):
//! w-queue tails and offsets ([`hierarchical_queue::MAX_SUB_QUEUES`] each), the b-queue's tail,
//! total and global start, the w-queues ([`hierarchical_queue::W_QUEUE_CAPACITY`] each), then the
//! b-queue ([`hierarchical_queue::B_QUEUE_DIRECT_CAPACITY`] spilled entries plus room for every
//! w-queue).

use crate::abi::frontier::FrontierLevel;
use crate::abi::hierarchical_queue;
use crate::gpu;
use crate::visit::neighbours;

/// One level: expand the frontier through w-queues and the b-queue.
///
/// # Safety
/// As [`global_queue_expand`](crate::textbook::global_queue::global_queue_expand), and
/// `1 <= sub_queue_count <= hierarchical_queue::MAX_SUB_QUEUES`.
///
/// # Launch
/// Grid `ceil(frontier_size / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE),
/// shared memory `4 * hierarchical_queue::shared_words(sub_queue_count)` bytes.
///
/// # Thread mapping
/// Thread `i` expands `frontier[i]` into w-queue `threadIdx.x % sub_queue_count`;
/// then the block's threads move the queues, thread `t` taking entries `t`,
/// `t + blockDim`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hierarchical_queue_expand(
    level: FrontierLevel,
    sub_queue_count: u32,
) {
    let level = level.in_global();
    let shared = gpu::dynamic_shared_memory::<u32>();
    let max = hierarchical_queue::MAX_SUB_QUEUES as usize;
    let thread = gpu::thread_index();
    // Never 0 (no division by zero) and never past the shared layout.
    let sub_queue_count = sub_queue_count.clamp(1, hierarchical_queue::MAX_SUB_QUEUES);
    // SAFETY: the launch provides `hierarchical_queue::shared_words(sub_queue_count)`
    // words laid out as the module header says, and every index below stays
    // inside its region: w-queue slots `< hierarchical_queue::W_QUEUE_CAPACITY`, direct b-queue
    // slots `< hierarchical_queue::B_QUEUE_DIRECT_CAPACITY`, consolidated ones `< b_total`, which
    // that layout leaves room for. Global accesses follow
    // `global_queue_expand`'s contract. Every thread reaches every barrier.
    unsafe {
        let w_queue_size = shared;
        let w_queue_offset = shared.add(max);
        let b_queue_size = shared.add(2 * max);
        let b_queue_total = shared.add(2 * max + 1);
        let b_queue_start = shared.add(2 * max + 2);
        let w_queues = shared.add(2 * max + 3);
        let b_queue =
            w_queues.add((sub_queue_count * hierarchical_queue::W_QUEUE_CAPACITY) as usize);
        if thread < sub_queue_count {
            *w_queue_size.add(thread as usize) = 0;
        }
        if thread == 0 {
            *b_queue_size = 0;
        }
        gpu::sync_threads();

        let my_w_queue = thread % sub_queue_count;
        let index = gpu::global_thread_index();
        if index < level.frontier_size {
            let vertex = gpu::load_read_only(level.frontier.add(index as usize));
            for neighbour in neighbours(level.row_offsets, level.column_indices, vertex) {
                if !level.claim(neighbour, vertex) {
                    continue;
                }
                let w_slot = gpu::atomic_add(w_queue_size.add(my_w_queue as usize), 1);
                if w_slot < hierarchical_queue::W_QUEUE_CAPACITY {
                    *w_queues.add(
                        (my_w_queue * hierarchical_queue::W_QUEUE_CAPACITY + w_slot) as usize,
                    ) = neighbour;
                    continue;
                }
                let b_slot = gpu::atomic_add(b_queue_size, 1);
                if b_slot < hierarchical_queue::B_QUEUE_DIRECT_CAPACITY {
                    *b_queue.add(b_slot as usize) = neighbour;
                } else {
                    let tail = gpu::atomic_add(level.next_frontier_size, 1);
                    *level.next_frontier.add(tail as usize) = neighbour;
                }
            }
        }
        gpu::sync_threads();

        // Lay the w-queues out after the b-queue's spilled entries, and
        // reserve the block's range of the g-queue with one atomic.
        if thread == 0 {
            let mut offset = (*b_queue_size).min(hierarchical_queue::B_QUEUE_DIRECT_CAPACITY);
            for w_queue in 0..sub_queue_count as usize {
                *w_queue_offset.add(w_queue) = offset;
                offset += (*w_queue_size.add(w_queue)).min(hierarchical_queue::W_QUEUE_CAPACITY);
            }
            *b_queue_total = offset;
            *b_queue_start = gpu::atomic_add(level.next_frontier_size, offset);
        }
        gpu::sync_threads();

        for w_queue in 0..sub_queue_count {
            let count =
                (*w_queue_size.add(w_queue as usize)).min(hierarchical_queue::W_QUEUE_CAPACITY);
            let offset = *w_queue_offset.add(w_queue as usize);
            let mut slot = thread;
            while slot < count {
                *b_queue.add((offset + slot) as usize) =
                    *w_queues.add((w_queue * hierarchical_queue::W_QUEUE_CAPACITY + slot) as usize);
                slot += gpu::block_size();
            }
        }
        gpu::sync_threads();

        let start = *b_queue_start as usize;
        let total = *b_queue_total;
        let mut slot = thread;
        while slot < total {
            *level.next_frontier.add(start + slot as usize) = *b_queue.add(slot as usize);
            slot += gpu::block_size();
        }
    }
}
