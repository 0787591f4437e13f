//! # Hub chunks: long neighbour lists dealt out to the whole grid
//!
//! The top-down gather of Merrill, Garland & Grimshaw ("Scalable GPU Graph
//! Traversal", PPoPP 2012; [`gather_neighbour_lists`]) gives a list of a
//! block's size or more to the block of the thread that holds its vertex,
//! and a grid has a block for every [`BLOCK_SIZE`] frontier vertices. On a
//! scale-free graph a small frontier can hold long lists: one hub holds
//! the level (Kronecker 24 has a level of 2,483 vertices and 16.6 million
//! edges), and so do a few hundred vertices of a thousand or two edges
//! each (Kronecker 22: a level of 294 vertices and 1.4 million edges),
//! walked by the one or two blocks that hold them while the rest of the
//! grid waits. Here every list of [`hub_chunks::CHUNKED_LIST_EDGES`] (a
//! warp's worth; docs/decisions.md, "Direction-optimizing") or more, a
//! hub's here, is cut instead into chunks of
//! [`hub_chunks::CHUNK_EDGES`], one edge per thread of a block, the last chunk
//! short, and a second launch gives every chunk a block of its own, as
//! [`crate::device_loop::persistent_direction_optimizing`] does for its hubs inside its
//! one launch, in the spirit of Enterprise's classes of frontier vertices
//! by degree (Liu & Huang, SC 2015): [`hub_chunks_split`] parts the
//! frontier queue into the hubs' chunks and the other vertices, which the
//! gather expands as before (no list it walks fills a warp), and
//! [`hub_chunks_expand`] expands the chunks, its blocks' winners appended
//! to the next queue a block at a time. Both searches that go level
//! by level from the host use them: `direction-optimizing` on one GPU,
//! and each GPU of the search over several ([`crate::distributed`]).
//!
//! A chunk is a pair of words, the hub and the chunk's index in its list.
//!
//! [`BLOCK_SIZE`]: crate::abi::BLOCK_SIZE
//!
//! [`gather_neighbour_lists`]: crate::direction::direction_optimizing::gather_neighbour_lists

use crate::abi::EdgeOffset;
use crate::abi::frontier::FrontierLevel;
use crate::abi::hub_chunks;
use crate::direction::direction_optimizing::{add_block_sum, claim_and_append};
use crate::gpu;
use crate::visit::row;

/// Chunks of [`hub_chunks::CHUNK_EDGES`] edges in the list `(first, end)` where
/// lists of `min_edges` or more are chunked ([`hub_chunks::list_chunks`]).
#[inline(always)]
pub fn chunks_of((first, end): (EdgeOffset, EdgeOffset), min_edges: u32) -> u32 {
    // A degree is below `n`, so it fits 32 bits.
    hub_chunks::list_chunks((end - first) as u32, min_edges)
}

/// Edge `thread` of chunk `index` of the list that starts at
/// `first_edge`, counted in [`EdgeOffset`]: in a list of nearly 2^32
/// edges (a star's centre) the last chunks' edges lie past `u32`.
#[inline(always)]
pub fn chunk_edge(first_edge: EdgeOffset, index: u32, thread: u32) -> EdgeOffset {
    first_edge + index as EdgeOffset * hub_chunks::CHUNK_EDGES as EdgeOffset + thread as EdgeOffset
}

/// Splits the frontier `queue` of `size` vertices: a hub
/// ([`hub_chunks::CHUNKED_LIST_EDGES`] edges or more) goes to `chunks` as (hub, chunk)
/// pairs, one for every [`hub_chunks::CHUNK_EDGES`] of its edges or fewer at the
/// end, every other vertex to `light_queue`.
///
/// The rows are those of the vertices from `first_vertex` on (0 on one
/// GPU; a GPU of several holds its own vertices' rows alone). A vertex of
/// `delegated_degree` edges or more goes to neither list: on a GPU of
/// several its list is walked by every GPU, a piece each
/// ([`crate::distributed::delegates`]); one GPU passes `EdgeOffset::MAX`.
///
/// # Safety
/// `queue` holds `size` vertices, each `first_vertex` or more and with a
/// row in `row_offsets`;
/// `light_queue` has room for `size` vertices and `chunks` for every
/// hub's chunks ([`hub_chunks::list_chunks`] at [`hub_chunks::CHUNKED_LIST_EDGES`] summed over the
/// queue); `light_size` and `chunk_count` are one `u32` each, 0.
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
    first_vertex: u32,
    delegated_degree: EdgeOffset,
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
        let list = row(row_offsets, vertex - first_vertex);
        if list.1 - list.0 >= delegated_degree {
            return;
        }
        let count = chunks_of(list, hub_chunks::CHUNKED_LIST_EDGES);
        if count == 0 {
            let slot = gpu::coalesced_reserve_one(|total| gpu::atomic_add(light_size, total));
            *light_queue.add(slot as usize) = vertex;
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
/// 1`, appends what it wins to `next_frontier` (the block's winners
/// together, [`gpu::block_reserve_one`]: on a level of millions of edges
/// the warps' appends would queue up on one counter) and adds its degree
/// to `*next_frontier_edges`, as
/// [`direction_optimizing_top_down`](crate::direction::direction_optimizing::direction_optimizing_top_down)
/// does for the other frontier vertices, into the same queue and count.
///
/// # Safety
/// `level`'s frontier is a chunk list, `frontier_size` pairs from
/// [`hub_chunks_split`] (the parameters are the gather's, a chunk list for
/// its queue); the rest of `level` as in `global_queue_expand`;
/// `next_frontier_edges` is one `u64`.
///
/// # Launch
/// Grid `chunk_count` (or more: the blocks past it return), block
/// [`hub_chunks::CHUNK_EDGES`] (whole warps), shared memory
/// [`hub_chunks::EXPAND_SHARED_BYTES`](crate::abi::hub_chunks::EXPAND_SHARED_BYTES).
///
/// # Thread mapping
/// Block `b` takes chunk `b`, thread `t` its edge `t`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hub_chunks_expand(
    level: FrontierLevel,
    next_frontier_edges: *mut u64,
) {
    let level = level.in_global();
    // The level's "frontier" is the chunk list.
    let (chunks, chunk_count) = (level.frontier, level.frontier_size);
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    // SAFETY: the two words after the edge count, within the launch's bytes.
    let block_appends = unsafe { block_edges.add(1) }.cast::<u32>();
    let chunk = gpu::block_index();
    if chunk >= chunk_count {
        return;
    }
    let chunk = chunk as usize;
    // SAFETY: the launch gives the block's sums their shared memory; block
    // `b < chunk_count` reads pair `b`; its hub's edge is loaded only
    // within the row; queue slots are handed out once each. Every thread
    // of the block reaches the reservation and the block's sum.
    unsafe {
        if gpu::thread_index() == 0 {
            *block_edges = 0;
            *block_appends = 0;
        }
        gpu::sync_threads();
        let hub = gpu::load_read_only(chunks.add(2 * chunk));
        let index = gpu::load_read_only(chunks.add(2 * chunk + 1));
        let (first_edge, end_edge) = row(level.row_offsets, hub);
        let edge = chunk_edge(first_edge, index, gpu::thread_index());
        let (mut edges, mut won) = (0, None);
        if edge < end_edge {
            let neighbour = gpu::load_read_only(level.column_indices.add(edge as usize));
            claim_and_append(
                level.row_offsets,
                (level.visited, level.levels, level.parents),
                (neighbour, hub),
                level.level + 1,
                |neighbour, _| won = Some(neighbour),
                &mut edges,
            );
        }
        let slot = gpu::block_reserve_one(won.is_some(), block_appends, |total| {
            gpu::atomic_add(level.next_frontier_size, total)
        });
        if let Some(neighbour) = won {
            *level.next_frontier.add(slot as usize) = neighbour;
        }
        add_block_sum(block_edges, edges, next_frontier_edges);
    }
}
