//! # On-chip search: the whole graph in one thread-block cluster's shared memory
//!
//! On a road network a level is a few hundred vertices, and what a level
//! costs is its chain of dependent memory accesses and its barrier, each
//! access a round trip to L2 in one block (`small_frontier`;
//! docs/decisions.md, "Road networks and grids"). Luxembourg's
//! graph (1.4 MB as CSR) does not fit one multiprocessor's shared memory
//! (227 KB), but it fits the sixteen of a thread-block cluster (sm_90),
//! whose blocks read, write and update each other's shared memory
//! directly (distributed shared memory, `crate::gpu::cluster`) and meet at a
//! hardware cluster barrier. So here one cluster holds the graph, and a
//! level touches no global memory at all.
//!
//! The search is the distributed-memory BFS with a 1D partition of Yoo et
//! al. (SC 2005) and Buluç & Madduri (SC 2011), with the cluster's blocks
//! as its processors and shared-memory atomics as its messages: block `r`
//! of `R` owns vertices `r, r + R, r + 2R, …` (its *slots*: vertex
//! `i * R + r` is slot `i`), holds their rows and neighbours (staged from
//! a copy of the CSR in this order, once per search), their parents and
//! levels, and for its slots a visited bitmap and two frontier bitmaps
//! (Beamer et al.'s bitmap frontier, top-down only). A level:
//! 1. each thread takes words of its block's frontier bitmap, clears them,
//!    and for each vertex in them records its level and walks its neighbours;
//! 2. a neighbour is claimed by an `atomicOr` on its owner's visited word,
//!    in whichever block that is; the winner writes the parent into the
//!    owner's shared memory and sets the bit in the owner's next frontier;
//! 3. each warp that claimed anything sets the next level's flag in every
//!    block, and the cluster barrier ends the level. The search ends at a
//!    level whose flag nobody set.
//!
//! Cyclic ownership spreads each level's frontier over the blocks, and
//! slots go round the bitmap words (`on_chip::OnChipLayout::word`), so no thread
//! walks a run of neighbouring vertices one after another: a bitmap word
//! of consecutive slots would hold several vertices of one frontier, each
//! costing its thread a round trip.
//! Levels and parents go to global memory once, at the end, in slot order
//! (the host maps them back to vertex ids, after the timer, as every
//! variant's copy back is).

use crate::abi::UNREACHED;
use crate::abi::on_chip;
use crate::gpu::{self, cluster};

/// Runs the whole search in one cluster.
///
/// # Safety
/// `segments` holds `R + 1` word offsets (`R` the cluster's blocks), then
/// for each rank `r` its segment, at offsets `segments[r] .. segments[r +
/// 1]`: `slots + 1` row offsets (into the segment's neighbours, from 0;
/// padded with the last past the block's own slots), then the neighbours,
/// at most `neighbour_capacity`, as vertex ids `< vertex_count`; `slots`
/// is `vertex_count` over `R`, rounded up; `source < vertex_count`;
/// `levels` and `parents` have `R * slots` entries.
///
/// # Launch
/// One cluster of `R` blocks (`R ≤ 32`) and no other block, block
/// [`on_chip::BLOCK_SIZE`](crate::abi::on_chip::BLOCK_SIZE) (whole warps),
/// shared memory [`on_chip::OnChipLayout::new`]`(slots, neighbour_capacity).bytes()`.
///
/// # Thread mapping
/// Thread `t` of block `r` stages, clears and writes back words and slots
/// `t`, `t + blockDim`, … of its block, and expands the vertices of
/// frontier words `t`, `t + blockDim`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn on_chip_search(
    segments: *const u32,
    vertex_count: u32,
    neighbour_capacity: u32,
    source: u32,
    levels: *mut u32,
    parents: *mut u32,
) {
    // (`max(1)`: a cluster has a block; this tells the compiler, so the
    // divisions by `ranks` have no panic path.)
    let (rank, ranks) = (cluster::rank(), cluster::size().max(1));
    let (thread, threads) = (gpu::thread_index(), gpu::block_size());
    let slots = vertex_count.div_ceil(ranks);
    let layout = on_chip::OnChipLayout::new(slots, neighbour_capacity);
    let shared: *mut u32 = gpu::dynamic_shared_memory();
    let base = cluster::shared_address(shared);
    // SAFETY: every offset below is inside the layout's words, the shared
    // memory the launch gives each block (the contract); the segment
    // offsets and neighbour ids are the host's, checked by the contract.
    unsafe {
        // Stage this block's rows and neighbours, and start every slot
        // unreached and every bitmap clear.
        let first = *segments.add(rank as usize);
        let length = *segments.add(rank as usize + 1) - first;
        let mut word = thread;
        while word < length {
            *shared.add((layout.rows + word) as usize) =
                gpu::load_read_only(segments.add((first + word) as usize));
            word += threads;
        }
        // Flags, bitmaps, and the words past the neighbours (the last
        // claim batch's padding) start at 0.
        let mut word = thread;
        while word < layout.parents {
            *shared.add(word as usize) = 0;
            word += threads;
        }
        let mut word = layout.rows + length + thread;
        while word < layout.words {
            *shared.add(word as usize) = 0;
            word += threads;
        }
        let mut slot = thread;
        while slot < slots {
            *shared.add((layout.parents + slot) as usize) = UNREACHED;
            *shared.add((layout.levels + slot) as usize) = UNREACHED;
            slot += threads;
        }
        gpu::sync_threads();
        if thread == 0 {
            // Level 0's frontier, the source, is not empty in any block.
            *shared.add(layout.flags as usize) = 1;
            if source % ranks == rank {
                let slot = source / ranks;
                let (word, bit) = (layout.word(slot), layout.bit(slot));
                *shared.add((layout.visited + word) as usize) = bit;
                *shared.add((layout.frontier(0) + word) as usize) = bit;
                *shared.add((layout.parents + slot) as usize) = source;
            }
        }
        // Every block staged before any touches another's shared memory.
        cluster::barrier();

        let mut level = 0;
        while *shared.add((layout.flags + level % 3) as usize) != 0 {
            if thread == 0 {
                // Flag of level + 2: last read before the barrier this
                // level began with; next set after the one it ends with.
                *shared.add((layout.flags + (level + 2) % 3) as usize) = 0;
            }
            let (frontier, next) = (layout.frontier(level), layout.frontier(level + 1));
            let mut claimed = false;
            let mut word = thread;
            while word < layout.bitmap_words {
                let mut bits = *shared.add((frontier + word) as usize);
                if bits != 0 {
                    *shared.add((frontier + word) as usize) = 0;
                }
                while bits != 0 {
                    let slot = layout.slot(word, bits.trailing_zeros());
                    bits &= bits - 1;
                    *shared.add((layout.levels + slot) as usize) = level;
                    let vertex = slot * ranks + rank;
                    let begin = *shared.add((layout.rows + slot) as usize);
                    let end = *shared.add((layout.rows + slot + 1) as usize);
                    for first in (begin..end).step_by(on_chip::CLAIM_BATCH as usize) {
                        claimed |= claim_batch(
                            (shared, base, &layout),
                            (rank, ranks),
                            (first, end),
                            (vertex, next),
                        );
                    }
                }
                word += threads;
            }
            // One warp's claims flag level + 1 in every block, a lane each:
            // a block barrier to gather them per block first would add to
            // every level's chain (docs/decisions.md, "Road networks and
            // grids").
            let warp_claimed = gpu::ballot(gpu::FULL_WARP, claimed) != 0;
            let lane = gpu::lane_index();
            if warp_claimed && lane < ranks {
                let flag = base + 4 * (layout.flags + (level + 1) % 3);
                cluster::or(cluster::map(flag, lane), 1);
            }
            cluster::barrier();
            level += 1;
        }

        // No block touches another's shared memory past the last barrier:
        // write this block's slots back and leave.
        let mut slot = thread;
        while slot < slots {
            let at = (rank * slots + slot) as usize;
            *levels.add(at) = *shared.add((layout.levels + slot) as usize);
            *parents.add(at) = *shared.add((layout.parents + slot) as usize);
            slot += threads;
        }
    }
}

/// A neighbour to claim: the shared::cluster address of its visited word
/// in its owner's shared memory, its bit there (0: no neighbour, a padding
/// entry of the batch), its owner and its slot.
#[derive(Clone, Copy)]
struct Claim {
    visited_word: u32,
    bit: u32,
    owner: u32,
    slot: u32,
}

/// Claims for `vertex` its neighbours at `first .. first + on_chip::CLAIM_BATCH`
/// (those below `end`), in their owners' shared memory: `atomicOr`s on
/// their visited bits, all issued before any is looked at, and for each
/// that set its bit, the parent and the bit in the frontier bitmap at
/// `next`. Returns whether any was claimed.
///
/// # Safety
/// `shared` is this block's shared memory and `base` its shared-window
/// address, laid out as `layout`, as every block of the cluster (`ranks`
/// blocks, this one `rank`) is; `first < end`, and the neighbours below
/// `end` are vertex ids of the graph.
#[inline(always)]
unsafe fn claim_batch(
    (shared, base, layout): (*const u32, u32, &on_chip::OnChipLayout),
    (rank, ranks): (u32, u32),
    (first, end): (u32, u32),
    (vertex, next): (u32, u32),
) -> bool {
    let claim = |offset: u32| -> Claim {
        // SAFETY: inside the layout's neighbours and their padding of
        // `on_chip::CLAIM_BATCH - 1` words (the contract); a word past `end` is
        // read, not used.
        let neighbour = unsafe { *shared.add((layout.neighbours + first + offset) as usize) };
        if first + offset >= end {
            // An `atomicOr` of no bits on this block's own visited words.
            return Claim {
                visited_word: cluster::map(base + 4 * layout.visited, rank),
                bit: 0,
                owner: rank,
                slot: 0,
            };
        }
        let (owner, slot) = (neighbour % ranks, neighbour / ranks);
        Claim {
            visited_word: cluster::map(base + 4 * (layout.visited + layout.word(slot)), owner),
            bit: layout.bit(slot),
            owner,
            slot,
        }
    };
    let (first_claim, second, third, fourth) = (claim(0), claim(1), claim(2), claim(3));
    // SAFETY: visited words of live blocks of the cluster (the contract),
    // only ever accessed atomically during the search. Four named values,
    // not an array: an array would live on the stack.
    let old = unsafe {
        (
            cluster::fetch_or(first_claim.visited_word, first_claim.bit),
            cluster::fetch_or(second.visited_word, second.bit),
            cluster::fetch_or(third.visited_word, third.bit),
            cluster::fetch_or(fourth.visited_word, fourth.bit),
        )
    };
    let won = |claim: Claim, old: u32| -> bool {
        if claim.bit == 0 || old & claim.bit != 0 {
            return false;
        }
        let in_owner = |offset: u32| cluster::map(base + 4 * offset, claim.owner);
        // SAFETY: the owner's parent and frontier words, live until the
        // last barrier; only the claim's winner writes the parent.
        unsafe {
            cluster::store(in_owner(layout.parents + claim.slot), vertex);
            cluster::or(in_owner(next + layout.word(claim.slot)), claim.bit);
        }
        true
    };
    // `|`, not `||`: every winner records its claim.
    won(first_claim, old.0) | won(second, old.1) | won(third, old.2) | won(fourth, old.3)
}
