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
//! As every GPU applies every claim and merges every word, each counts the
//! next frontier over all GPUs itself, its edges too from a replicated
//! array of degrees: the GPUs agree on the next level's direction without
//! an all-reduce (the level's counts, as
//! [`abi::distributed`](crate::abi::distributed) lays them out).
//!
//! Encodings as in [`crate::direction_optimizing`]; a pair is two words,
//! the vertex then its parent. A *slot* of capacity `c` is `1 + 2c`
//! words: the claim count, then that many pairs. Every GPU's slot has the
//! same capacity, one that the host knows holds every GPU's claims (the
//! most claims of any GPU, read back; or, for a small frontier, its
//! edges), so the slots all-gather in one collective of equal parts.

use crate::abi::BLOCK_SIZE;
use crate::abi::distributed::{
    CLAIMS_PER_THREAD, FRONTIER_EDGES, FRONTIER_VERTICES, OWNED_VERTICES,
};
use crate::direction_optimizing::add_block_sum;
use crate::gpu;

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

/// A pair of a slot as [`distributed_apply_claims`] applies it: the
/// claimed vertex and its parent, whether this GPU owns the vertex, and
/// what the apply's loads and atomics bring back, its degree and its word
/// of the next frontier before its bit was set.
#[derive(Clone, Copy)]
struct Pair {
    vertex: u32,
    parent: u32,
    owned: bool,
    degree: u32,
    word_before: u32,
}

impl Pair {
    fn new(vertex: u32, parent: u32, owned: &core::ops::Range<u32>) -> Pair {
        Pair {
            vertex,
            parent,
            owned: owned.contains(&vertex),
            degree: 0,
            word_before: 0,
        }
    }

    /// The vertex's bit in its bitmap word.
    fn bit(&self) -> u32 {
        1 << (self.vertex % 32)
    }

    /// Whether this pair set the vertex's bit in the next frontier: the
    /// first of the level's pairs to claim it.
    fn newly_found(&self) -> bool {
        self.word_before & self.bit() == 0
    }
}

/// Applies every GPU's claims of one top-down level, the pairs (vertex,
/// parent) of the GPUs' slots, each of capacity `capacity`, one after
/// another in `slots`: the first thread to set a vertex's bit in
/// `next_bitmap` also sets its visited bit and counts the vertex and its
/// degree (`degrees`, every vertex's) in `level_counts`; if this GPU owns
/// it (`first_vertex <= v < end_vertex`), appends it to `owned_queue` too,
/// counted in `level_counts[OWNED_VERTICES]`. The owner sets each owned
/// vertex's level to `next_level` and lowers its parent to the least
/// claimant's, so every GPU's copies agree whatever order the pairs came
/// in. This GPU's own slot (`own_slot`) skips the visited bit and the
/// labels: its claims wrote them already, and without them its pairs cost
/// two scattered accesses, not five.
///
/// A level can bring millions of pairs, each a chain of scattered
/// accesses, so a thread applies [`CLAIMS_PER_THREAD`] of them: it loads
/// them all, then issues their atomics and degree loads together, and
/// only then looks at what came back. A block takes its queue slots with
/// one atomic and adds its counts with one each.
///
/// # Safety
/// `slots` holds a slot of capacity `capacity` for each of the grid's
/// rows (`gridDim.y`, the GPUs), each with at most `capacity` pairs of
/// vertices `< n` and their parents, slot `own_slot` this GPU's claims,
/// visited and labelled here already; `degrees`, `levels` and `parents`
/// have `n` entries (an owned vertex not yet reached has
/// [`UNREACHED`](crate::abi::UNREACHED) in both labels); `next_bitmap`
/// (cleared before the level's first launch) and `visited` have
/// `ceil(n / 32)` words; `owned_queue` has room for every owned vertex;
/// `level_counts` has [`LEVEL_COUNTS`](crate::abi::distributed::LEVEL_COUNTS)
/// `u64`s, zeroed before the launch.
///
/// # Launch
/// Grid `ceil(capacity / (BLOCK_SIZE * CLAIMS_PER_THREAD))` by the GPUs'
/// count, block [`BLOCK_SIZE`] (whole warps), shared memory 24 bytes.
///
/// # Thread mapping
/// Thread `t` of block `b` in grid row `g` applies the pairs `b *
/// BLOCK_SIZE * CLAIMS_PER_THREAD + k * BLOCK_SIZE + t` of GPU `g`'s
/// slot, for `k` below [`CLAIMS_PER_THREAD`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_apply_claims(
    slots: *const u32,
    capacity: u32,
    own_slot: u32,
    first_vertex: u32,
    end_vertex: u32,
    degrees: *const u32,
    next_bitmap: *mut u32,
    visited: *mut u32,
    owned_queue: *mut u32,
    level_counts: *mut u64,
    levels: *mut u32,
    parents: *mut u32,
    next_level: u32,
) {
    const PAIRS: usize = CLAIMS_PER_THREAD as usize;
    let slot = (gpu::block_index_y() as usize) * (1 + 2 * capacity as usize);
    let claimed_here = gpu::block_index_y() == own_slot;
    let first_pair = gpu::block_index() * BLOCK_SIZE * CLAIMS_PER_THREAD + gpu::thread_index();
    let block_sums = gpu::dynamic_shared_memory::<u64>();
    // SAFETY: the grid row's slot lies within `slots`, and its pairs are
    // read for indices below its count only; vertices are `< n` and index
    // their bitmap words, degrees and labels (the contract); queue slots
    // are handed out once each, one per owned vertex. Every thread reaches
    // the block's reservation and sums, and the launch gives the two sums
    // their 16 bytes of shared memory and the reservation its 8: each
    // user's thread 0 clears its own after the others have passed its
    // barrier.
    unsafe {
        let block_appends = block_sums.add(2) as *mut u32;
        if gpu::thread_index() == 0 {
            (*block_sums, *block_sums.add(1)) = (0, 0);
            (*block_appends, *block_appends.add(1)) = (0, 0);
        }
        gpu::sync_threads();
        let count = gpu::load_read_only(slots.add(slot));
        let mut pairs = [None; PAIRS];
        for (k, pair) in pairs.iter_mut().enumerate() {
            let index = first_pair + k as u32 * BLOCK_SIZE;
            if index < count {
                let at = slots.add(slot + 1 + 2 * index as usize);
                let (vertex, parent) = (gpu::load_read_only(at), gpu::load_read_only(at.add(1)));
                *pair = Some(Pair::new(vertex, parent, &(first_vertex..end_vertex)));
            }
        }
        // Not `.flatten()`: the loop would not unroll, and the pairs would
        // go to local memory.
        #[allow(clippy::manual_flatten)]
        for pair in &mut pairs {
            if let Some(pair) = pair {
                let vertex = pair.vertex;
                if pair.owned && !claimed_here {
                    *levels.add(vertex as usize) = next_level;
                    gpu::atomic_min(parents.add(vertex as usize), pair.parent);
                }
                pair.degree = gpu::load_read_only(degrees.add(vertex as usize));
                pair.word_before =
                    gpu::atomic_or(next_bitmap.add(vertex as usize / 32), pair.bit());
            }
        }
        let (mut found, mut edges, mut owned_found) = (0, 0, 0);
        for pair in &pairs {
            if let Some(pair) = pair.filter(Pair::newly_found) {
                if !claimed_here {
                    gpu::atomic_or(visited.add(pair.vertex as usize / 32), pair.bit());
                }
                found += 1;
                edges += pair.degree as u64;
                owned_found += pair.owned as u32;
            }
        }
        let mut place = gpu::block_reserve(owned_found, block_appends, |total| {
            gpu::atomic_add_u64(level_counts.add(OWNED_VERTICES), total as u64) as u32
        });
        for pair in &pairs {
            if let Some(pair) = pair.filter(|pair| pair.owned && pair.newly_found()) {
                *owned_queue.add(place as usize) = pair.vertex;
                place += 1;
            }
        }
        add_block_sum(block_sums, found, level_counts.add(FRONTIER_VERTICES));
        add_block_sum(block_sums.add(1), edges, level_counts.add(FRONTIER_EDGES));
    }
}

/// Adds the next frontier's bits to the visited bitmap, after the GPUs
/// have all-gathered a bottom-up level's words, and counts them in
/// `level_counts[FRONTIER_VERTICES]` (a block's with one atomic).
///
/// # Safety
/// `next_bitmap` and `visited` have `word_count` words; `level_counts` has
/// [`LEVEL_COUNTS`](crate::abi::distributed::LEVEL_COUNTS) `u64`s, zeroed
/// before the launch.
///
/// # Launch
/// Grid `ceil(word_count / BLOCK_SIZE)`, block
/// [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE), shared memory 8 bytes.
///
/// # Thread mapping
/// Thread `w` merges and counts word `w`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_merge_visited(
    next_bitmap: *const u32,
    visited: *mut u32,
    word_count: u32,
    level_counts: *mut u64,
) {
    let word = gpu::global_thread_index();
    let block_sum = gpu::dynamic_shared_memory::<u64>();
    // SAFETY: word `w` is read and written for `w < word_count` only (the
    // contract), each thread its own; every thread reaches the block's sum,
    // and the launch gives it its 8 bytes of shared memory.
    unsafe {
        if gpu::thread_index() == 0 {
            *block_sum = 0;
        }
        gpu::sync_threads();
        let mut found = 0;
        if word < word_count {
            let bits = gpu::load_read_only(next_bitmap.add(word as usize));
            *visited.add(word as usize) |= bits;
            found = bits.count_ones();
        }
        add_block_sum(block_sum, found as u64, level_counts.add(FRONTIER_VERTICES));
    }
}
