//! # Hub chunks: long neighbour lists dealt out to the whole grid
//!
//! The top-down gather of Merrill, Garland & Grimshaw ("Scalable GPU Graph
//! Traversal", PPoPP 2012; [`gather_neighbour_lists`]) gives a list of a
//! block's size or more to the block of the thread that holds its vertex,
//! and a grid has a block for every [`BLOCK_SIZE`] frontier vertices. On a
//! scale-free graph a small frontier can hold long lists: one hub holds
//! the level (a level of 2,483 vertices and 16.6 million edges on
//! Kronecker 24 took 11.1 ms so), and so do a few hundred vertices of a
//! thousand or two edges each, walked by the one or two blocks that hold
//! them (on Kronecker 22, a level of 294 vertices and 1.4 million edges
//! took 1.7 ms). Here every list of [`HUB_CHUNK_EDGES`] or more (a hub,
//! here) is cut instead into chunks of that many edges, one per thread of
//! a block, and a second launch gives every chunk a block of its own, as
//! [`crate::persistent_direction_optimizing`] does for its hubs inside its
//! one launch, in the spirit of Enterprise's classes of frontier vertices
//! by degree (Liu & Huang, SC 2015): [`hub_chunks_split`] parts the
//! frontier queue into the hubs' chunks and the other vertices, which the
//! gather expands as before (no list it walks fills a chunk), and
//! [`hub_chunks_expand`] expands the chunks. Both searches that go level
//! by level from the host use them: `direction-optimizing` on one GPU,
//! and each GPU of the search over several ([`crate::distributed`]).
//!
//! A chunk is a pair of words, the hub and the chunk's index in its list.
//!
//! [`BLOCK_SIZE`]: crate::abi::BLOCK_SIZE
//!
//! [`gather_neighbour_lists`]: crate::direction_optimizing::gather_neighbour_lists

use crate::abi::{EdgeOffset, HUB_CHUNK_EDGES};
use crate::direction_optimizing::{add_block_sum, append_to_queue, claim_and_append};
use crate::gpu;
use crate::visit::row;

/// Chunks of [`HUB_CHUNK_EDGES`] edges in a list of `(first, end)`, if it
/// is a hub's ([`HUB_CHUNK_EDGES`] edges or more); 0 for any other list.
#[inline(always)]
pub fn chunks_of((first, end): (EdgeOffset, EdgeOffset)) -> u32 {
    // A degree is below `n`, so it fits 32 bits.
    let degree = (end - first) as u32;
    if degree >= HUB_CHUNK_EDGES {
        degree.div_ceil(HUB_CHUNK_EDGES)
    } else {
        0
    }
}

/// Splits the frontier `queue` of `size` vertices: a hub ([`HUB_CHUNK_EDGES`]
/// edges or more) goes to `chunks` as (hub, chunk) pairs, one for every
/// [`HUB_CHUNK_EDGES`] of its edges, every other vertex to `light_queue`.
///
/// # Safety
/// `queue` holds `size` vertices `< n`; `row_offsets` has `n + 1` entries;
/// `light_queue` has room for `size` vertices and `chunks` for every
/// hub's chunks ([`hub_chunk_capacity`](crate::abi::hub_chunk_capacity)
/// of the queued edges); `light_size` and `chunk_count` are one `u32` each, 0.
///
/// # Launch
/// Grid `ceil(size / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE), no shared memory.
///
/// # Thread mapping
/// Thread `i` places `queue[i]`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hub_chunks_split(
    queue: *const u32,
    size: u32,
    row_offsets: *const EdgeOffset,
    light_queue: *mut u32,
    light_size: *mut u32,
    chunks: *mut u32,
    chunk_count: *mut u32,
) {
    let index = gpu::global_thread_index();
    if index >= size {
        return;
    }
    // SAFETY: `index < size`, vertices are `< n`, and each reserved slot
    // is this thread's alone, within its array (the contract).
    unsafe {
        let vertex = gpu::load_read_only(queue.add(index as usize));
        let count = chunks_of(row(row_offsets, vertex));
        if count == 0 {
            *light_queue.add(gpu::atomic_add(light_size, 1) as usize) = vertex;
            return;
        }
        let slot = gpu::atomic_add(chunk_count, count) as usize;
        for chunk in 0..count as usize {
            *chunks.add(2 * (slot + chunk)) = vertex;
            *chunks.add(2 * (slot + chunk) + 1) = chunk as u32;
        }
    }
}

/// Expands `chunk_count` hub chunks of level `level`'s frontier, a block
/// each: thread `t` of block `b` claims edge `t` of chunk `b` for `level +
/// 1`, appends what it wins to `next_frontier` and adds its degree to
/// `*next_frontier_edges`, as
/// [`direction_optimizing_top_down`](crate::direction_optimizing::direction_optimizing_top_down)
/// does for the other frontier vertices, into the same queue and count.
///
/// # Safety
/// `chunks` holds `chunk_count` pairs from [`hub_chunks_split`] (the
/// parameters are the gather's, a chunk list for its queue); the graph
/// as in `global_queue_expand`; `next_frontier` has room for every vertex,
/// `next_frontier_size` is one `u32` and `next_frontier_edges` one `u64`;
/// `visited`, `levels` and `parents` as for
/// [`claim`](crate::visit::claim).
///
/// # Launch
/// Grid `chunk_count` (or more: the blocks past it return), block
/// [`HUB_CHUNK_EDGES`] (whole warps), shared memory 8 bytes.
///
/// # Thread mapping
/// Block `b` takes chunk `b`, thread `t` its edge `t`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hub_chunks_expand(
    row_offsets: *const EdgeOffset,
    column_indices: *const u32,
    chunks: *const u32,
    chunk_count: u32,
    next_frontier: *mut u32,
    next_frontier_size: *mut u32,
    visited: *mut u32,
    levels: *mut u32,
    parents: *mut u32,
    level: u32,
    next_frontier_edges: *mut u64,
) {
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    let chunk = gpu::block_index();
    if chunk >= chunk_count {
        return;
    }
    let chunk = chunk as usize;
    // SAFETY: the launch gives the block's sum its 8 bytes of shared
    // memory; block `b < chunk_count` reads pair `b`; its hub's edge is
    // loaded only within the row; queue slots are handed out once each.
    // Every thread of the block reaches the block's sum.
    unsafe {
        if gpu::thread_index() == 0 {
            *block_edges = 0;
        }
        gpu::sync_threads();
        let hub = gpu::load_read_only(chunks.add(2 * chunk));
        let index = gpu::load_read_only(chunks.add(2 * chunk + 1));
        let (first_edge, end_edge) = row(row_offsets, hub);
        let edge = first_edge + (index * HUB_CHUNK_EDGES + gpu::thread_index()) as EdgeOffset;
        let mut edges = 0;
        if edge < end_edge {
            let neighbour = gpu::load_read_only(column_indices.add(edge as usize));
            claim_and_append(
                row_offsets,
                (visited, levels, parents),
                (neighbour, hub),
                level + 1,
                append_to_queue(next_frontier, next_frontier_size),
                &mut edges,
            );
        }
        add_block_sum(block_edges, edges, next_frontier_edges);
    }
}
