//! # Delegates: a hub's list spread over the GPUs that own its neighbours
//!
//! Pearce, Gokhale & Amato, "Faster Parallel Traversal of Scale Free
//! Graphs at Extreme Scale with Vertex Delegates" (SC 2014), as Pan,
//! Pearce & Owens use it on GPUs ("Scalable Breadth-First Search on a GPU
//! Cluster", IPDPS 2018). In a 1D partition a hub's whole list lies with
//! its owner: a top-down level whose frontier holds a few hubs is walked
//! by the one or two GPUs that own them, and most of what they find
//! belongs to the others and travels as claims. Here the vertices of the
//! most edges (the *delegates*, a list every GPU holds alike) have their
//! lists cut by owner too: each GPU holds, for every delegate, the
//! neighbours it owns. When a delegate is in the frontier, every GPU
//! walks its own piece of the list and labels what it finds at once: the
//! hub's work is shared, and none of it is a claim. The owner's own copy
//! of the list stays for the bottom-up levels, which check a vertex's
//! whole list.
//!
//! Which delegates are in the frontier, every GPU learns with the level's
//! figures: each marks those it owns that the level found
//! ([`distributed_note_delegates`]), and the host passes the bits with the
//! other figures. The next top-down level lists the frontier's delegates
//! with their chunks of [`CHUNK_EDGES`] edges
//! ([`distributed_list_delegates`]), and a grid of any size deals the
//! chunks out ([`distributed_expand_delegates`]), so the host need not
//! know how many there are.

use crate::abi::EdgeOffset;
use crate::abi::hub_chunks::CHUNK_EDGES;
use crate::direction::direction_optimizing::{add_block_sum, clear_block_sum};
use crate::direction::hub_chunks::chunk_edge;
use crate::gpu;
use crate::visit::row;

use super::Owned;

/// Sets bit `d` of `frontier_bits` for each delegate `d` of
/// `first_delegate..end_delegate` (those this GPU owns) that the level
/// just ended found: its level is `level`.
///
/// # Safety
/// `delegates` holds the delegates' ids, those from `first_delegate` to
/// `end_delegate` within `first_vertex..end_vertex`; `levels` holds the
/// owned vertices' levels, from `first_vertex`'s; `frontier_bits` has a
/// bit for every delegate.
///
/// # Launch
/// Grid `ceil((end_delegate - first_delegate) / BLOCK_SIZE)`, block
/// [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE), no shared memory.
///
/// # Thread mapping
/// Thread `i` takes delegate `first_delegate + i`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_note_delegates(
    delegates: *const u32,
    first_delegate: u32,
    end_delegate: u32,
    levels: *const u32,
    first_vertex: u32,
    level: u32,
    frontier_bits: *mut u32,
) {
    let delegate = first_delegate + gpu::global_thread_index();
    if delegate >= end_delegate {
        return;
    }
    // SAFETY: the delegate is owned (the contract), so its level lies in
    // `levels`; its bit's word lies in `frontier_bits`.
    unsafe {
        let vertex = gpu::load_read_only(delegates.add(delegate as usize));
        if *levels.add((vertex - first_vertex) as usize) == level {
            gpu::atomic_or(
                frontier_bits.add(delegate as usize / 32),
                1 << (delegate % 32),
            );
        }
    }
}

/// Lists the frontier's delegates whose pieces here have edges: for each,
/// a pair (its first chunk, the delegate) in `listed`, the pairs in the
/// order of their first chunks, and `*counter` raised by the pair and its
/// chunks (the pairs in its low 32 bits, the chunks in its high ones).
///
/// # Safety
/// `rows` holds `delegate_count + 1` offsets into this GPU's pieces;
/// `frontier_bits` a bit for every delegate; `listed` room for a pair
/// per delegate; `*counter` is 0.
///
/// # Launch
/// Grid `ceil(delegate_count / BLOCK_SIZE)`, block
/// [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE), no shared memory.
///
/// # Thread mapping
/// Thread `d` takes delegate `d`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_list_delegates(
    rows: *const EdgeOffset,
    delegate_count: u32,
    frontier_bits: *const u32,
    listed: *mut u32,
    counter: *mut u64,
) {
    let delegate = gpu::global_thread_index();
    if delegate >= delegate_count {
        return;
    }
    // SAFETY: `delegate < delegate_count`, within the rows and the bits;
    // one atomic hands out the pair's slot and its chunks together, so
    // the slots run in the chunks' order; each slot is this thread's.
    unsafe {
        let bits = gpu::load_read_only(frontier_bits.add(delegate as usize / 32));
        if bits & (1 << (delegate % 32)) == 0 {
            return;
        }
        let (first, end) = row(rows, delegate);
        // A delegate's piece holds fewer than 2^32 edges.
        let chunks = ((end - first) as u32).div_ceil(CHUNK_EDGES);
        if chunks == 0 {
            return;
        }
        let before = gpu::atomic_add_u64(counter, (chunks as u64) << 32 | 1);
        let slot = before as u32 as usize;
        *listed.add(2 * slot) = (before >> 32) as u32;
        *listed.add(2 * slot + 1) = delegate;
    }
}

/// Expands the listed delegates' pieces for `level + 1`: chunk `c` of all
/// of them together (their chunks numbered as
/// [`distributed_list_delegates`] listed them) goes to block `c` modulo
/// the grid, which finds its delegate by a binary search of the list;
/// thread `t` takes the chunk's edge `t`. A neighbour, this GPU's own, is
/// claimed, labelled from the delegate and queued, its degree added to
/// `*next_edges`, as a top-down level labels any owned neighbour.
///
/// # Safety
/// `rows`, `listed` and `*counter` as the listing left them; `columns`
/// holds the pieces' neighbours, each owned here; `delegates` the
/// delegates' ids; the rest as for
/// [`distributed_top_down`](super::distributed_top_down).
///
/// # Launch
/// Any grid, block [`CHUNK_EDGES`], shared memory 8 bytes.
///
/// # Thread mapping
/// Block `b` takes the chunks `b`, `b + grid`, …; thread `t` their edge
/// `t`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_expand_delegates(
    owned: Owned,
    rows: *const EdgeOffset,
    columns: *const u32,
    delegates: *const u32,
    listed: *const u32,
    counter: *const u64,
    level: u32,
) {
    let owned = owned.in_global();
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    // SAFETY: the list holds `pairs` pairs in the order of their first
    // chunks, the first at chunk 0, so the search stays within it; an
    // edge is loaded only within its delegate's piece; every thread of
    // the block runs the same chunks and reaches the block's sum.
    unsafe {
        clear_block_sum(block_edges);
        let figures = gpu::load_read_only_u64(counter);
        let (pairs, chunks) = (figures as u32, (figures >> 32) as u32);
        let mut edges = 0;
        let mut chunk = gpu::block_index();
        while chunk < chunks {
            // The last pair whose first chunk is at or before this one.
            let (mut low, mut high) = (0, pairs);
            while high - low > 1 {
                let middle = (low + high) / 2;
                if gpu::load_read_only(listed.add(2 * middle as usize)) <= chunk {
                    low = middle;
                } else {
                    high = middle;
                }
            }
            let first_chunk = gpu::load_read_only(listed.add(2 * low as usize));
            let delegate = gpu::load_read_only(listed.add(2 * low as usize + 1));
            let (first_edge, end_edge) = row(rows, delegate);
            let edge = chunk_edge(first_edge, chunk - first_chunk, gpu::thread_index());
            if edge < end_edge {
                let neighbour = gpu::load_read_only(columns.add(edge as usize));
                if owned.claim(neighbour) {
                    let hub = gpu::load_read_only(delegates.add(delegate as usize));
                    owned.label(neighbour, hub, level + 1, &mut edges);
                }
            }
            chunk += gpu::grid_size();
        }
        add_block_sum(block_edges, edges, owned.next_edges);
    }
}
