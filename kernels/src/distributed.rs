//! # Distributed BFS: the steps a GPU of several takes besides its search
//!
//! Beamer, Buluç, Asanović & Patterson, "Distributed Memory Breadth-First
//! Search Revisited: Enabling Bottom-Up Search" (IPDPSW 2013), 1D: each of
//! the GPUs owns a range of vertices (a multiple of 32 ids, so its bits
//! fill whole bitmap words) and holds their rows; the frontier and visited
//! bitmaps are replicated on every GPU. A level runs the single-GPU
//! kernels of [`crate::direction_optimizing`] on a GPU's own rows, then the
//! GPUs exchange what they found through NCCL:
//! - bottom-up, each GPU finds parents for its own unvisited vertices in
//!   the replicated frontier, and the GPUs all-gather the words of the
//!   next frontier they own; [`distributed_merge_visited`] adds them to
//!   the visited bitmap;
//! - top-down, each GPU expands the frontier vertices it owns, claiming
//!   neighbours (any GPU's) in its copy of the visited bitmap, as one GPU
//!   does (hubs' lists in chunks, [`crate::hub_chunks`]);
//!   [`distributed_pack_claims`] pairs each claimed vertex with its
//!   parent in this GPU's slot, the GPUs all-gather the slots, and
//!   [`distributed_apply_claims`] sets their bits everywhere and, on each
//!   vertex's owner, its level, its parent and its place in the owner's
//!   next frontier queue.
//!
//! Encodings as in [`crate::direction_optimizing`]; a pair is two words,
//! the vertex then its parent. A *slot* of capacity `c` is `1 + 2c`
//! words: the claim count, then that many pairs. Every GPU's slot has the
//! same capacity, one that the host knows holds every GPU's claims (the
//! most claims of any GPU, read back; or, for a small frontier, its
//! edges), so the slots all-gather in one collective of equal parts.

use crate::abi::EdgeOffset;
use crate::direction_optimizing::add_block_sum;
use crate::gpu;
use crate::visit::row;

/// Fills this GPU's slot of capacity `capacity`: the count `*claim_count`,
/// then claimed vertex `claims[i]` and its parent `parents[claims[i]]` as
/// pair `i`. The count stays on the device: the host chose a capacity
/// that holds it.
///
/// # Safety
/// `*claim_count <= capacity`; `claims` holds `*claim_count` vertex ids
/// `< n`; `parents` has `n` entries; `slot` has `1 + 2 * capacity` words.
///
/// # Launch
/// Grid `ceil(capacity / BLOCK_SIZE)` (at least 1), block
/// [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE), no shared memory.
///
/// # Thread mapping
/// Thread `i` writes pair `i`, if there is one; thread 0 the count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_pack_claims(
    claims: *const u32,
    claim_count: *const u32,
    parents: *const u32,
    slot: *mut u32,
    capacity: u32,
) {
    let index = gpu::global_thread_index();
    // SAFETY: the count is one u32 and fits the slot; pair `index` is
    // written for `index < count` only, and claimed ids are `< n` (the
    // contract).
    unsafe {
        let count = *claim_count;
        if index == 0 {
            *slot = count;
        }
        if index >= count || index >= capacity {
            return;
        }
        let vertex = gpu::load_read_only(claims.add(index as usize));
        let pair = slot.add(1 + 2 * index as usize);
        *pair = vertex;
        *pair.add(1) = gpu::load_read_only(parents.add(vertex as usize));
    }
}

/// Applies every GPU's claims of one top-down level, the pairs (vertex,
/// parent) of the GPUs' slots, each of capacity `capacity`, one after
/// another in `slots`: the first thread to set a vertex's bit in
/// `next_bitmap` also sets its visited bit and, if this GPU owns it
/// (`first_vertex <= v < end_vertex`), appends it to `owned_queue` and adds
/// its degree to `*owned_edges` (a warp's queue slots taken with one
/// atomic, a block's degrees added with one: a level can bring millions
/// of pairs). The owner sets each owned vertex's level
/// to `next_level` and lowers its parent to the least claimant's, so every
/// GPU's copies agree whatever order the pairs came in.
///
/// # Safety
/// `slots` holds a slot of capacity `capacity` for each of the grid's
/// rows (`gridDim.y`, the GPUs), each with at most `capacity` pairs of
/// vertices `< n` and their parents; `row_offsets` has `n + 1` entries; `next_bitmap` (cleared before the
/// level's first launch) and `visited` have `ceil(n / 32)` words; `levels`
/// and `parents` `n` entries (an owned vertex not yet reached has
/// [`UNREACHED`](crate::abi::UNREACHED) in both); `owned_queue` has room for every owned vertex;
/// `owned_size` one `u32`, `owned_edges` one `u64`.
///
/// # Launch
/// Grid `ceil(capacity / BLOCK_SIZE)` by the GPUs' count, block
/// [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE) (whole warps), shared memory 8 bytes.
///
/// # Thread mapping
/// Thread `i` of grid row `g` applies pair `i` of GPU `g`'s slot.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_apply_claims(
    slots: *const u32,
    capacity: u32,
    first_vertex: u32,
    end_vertex: u32,
    row_offsets: *const EdgeOffset,
    next_bitmap: *mut u32,
    visited: *mut u32,
    owned_queue: *mut u32,
    owned_size: *mut u32,
    owned_edges: *mut u64,
    levels: *mut u32,
    parents: *mut u32,
    next_level: u32,
) {
    let index = gpu::global_thread_index();
    let slot = (gpu::block_index_y() as usize) * (1 + 2 * capacity as usize);
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    // SAFETY: the grid row's slot lies within `slots`, and its pairs are
    // read for `index` below its count only; vertices are
    // `< n` and index their bitmap words, rows and labels (the contract);
    // queue slots are handed out once each, one per owned vertex. Every
    // thread reaches the warp's reservation and the block's sum, and the
    // launch gives the sum its 8 bytes of shared memory.
    unsafe {
        if gpu::thread_index() == 0 {
            *block_edges = 0;
        }
        gpu::sync_threads();
        let mut newly_owned = None;
        if index < gpu::load_read_only(slots.add(slot)) {
            let pair = slots.add(slot + 1 + 2 * index as usize);
            let (vertex, parent) = (gpu::load_read_only(pair), gpu::load_read_only(pair.add(1)));
            let owned = first_vertex <= vertex && vertex < end_vertex;
            if owned {
                *levels.add(vertex as usize) = next_level;
                gpu::atomic_min(parents.add(vertex as usize), parent);
            }
            let (word, bit) = ((vertex / 32) as usize, 1 << (vertex % 32));
            if gpu::atomic_or(next_bitmap.add(word), bit) & bit == 0 {
                gpu::atomic_or(visited.add(word), bit);
                newly_owned = owned.then_some(vertex);
            }
        }
        let slot = gpu::warp_reserve_one(newly_owned.is_some(), |total| {
            gpu::atomic_add(owned_size, total)
        });
        let mut degree = 0;
        if let Some(vertex) = newly_owned {
            *owned_queue.add(slot as usize) = vertex;
            let (first_edge, end_edge) = row(row_offsets, vertex);
            degree = end_edge - first_edge;
        }
        add_block_sum(block_edges, degree, owned_edges);
    }
}

/// Lays out a level's counts for their all-reduce, so they never visit
/// the host before it: `totals[0]` and `totals[2]` get `*count` (this
/// GPU's next queue's size, or a bottom-up level's found vertices),
/// `totals[1]` gets `*edges` (that queue's edges). The GPUs then sum
/// `totals[0..2]`, and one copy brings the host both sums and, in
/// `totals[2]`, this GPU's own count.
///
/// # Safety
/// `count` is one `u32`, `edges` one `u64`, `totals` three `u64`s.
///
/// # Launch
/// Grid 1, block 1, no shared memory.
///
/// # Thread mapping
/// The one thread writes all three.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_level_totals(
    count: *const u32,
    edges: *const u64,
    totals: *mut u64,
) {
    // SAFETY: the contract's sizes; one thread, no other writer.
    unsafe {
        *totals = *count as u64;
        *totals.add(1) = *edges;
        *totals.add(2) = *count as u64;
    }
}

/// Adds the next frontier's bits to the visited bitmap, after the GPUs
/// have all-gathered a bottom-up level's words.
///
/// # Safety
/// `next_bitmap` and `visited` have `word_count` words.
///
/// # Launch
/// Grid `ceil(word_count / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE), no shared memory.
///
/// # Thread mapping
/// Thread `w` merges word `w`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_merge_visited(
    next_bitmap: *const u32,
    visited: *mut u32,
    word_count: u32,
) {
    let word = gpu::global_thread_index();
    if word >= word_count {
        return;
    }
    // SAFETY: `word < word_count` (the contract); each thread its own word.
    unsafe { *visited.add(word as usize) |= gpu::load_read_only(next_bitmap.add(word as usize)) };
}
