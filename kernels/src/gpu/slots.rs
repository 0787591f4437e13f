//! Queue slots reserved together: a warp's lanes with one atomic, the
//! lanes that diverged into a call with one a key, a block's threads with
//! one global atomic (built from the warp's votes and the block barrier).

use super::{
    FULL_WARP, active_mask, atomic_add, ballot, lane_index, match_any, shuffle, sync_threads,
    thread_index,
};

/// Warp-aggregated reservation: each lane reserves `count` consecutive
/// slots, the whole warp with one atomic, `reserve(total)`, which returns
/// the first of `total` slots (an `atomicAdd` on a tail, say). Returns this
/// lane's first slot; lanes get their slots in lane order.
///
/// Each lane's exclusive prefix sum of the counts is built from one
/// `ballot` per bit of the counts; lane 0 reserves the warp's total and
/// `shuffle` broadcasts the first slot.
///
/// Every lane of the warp executes it (with a count of 0 if it has nothing
/// to reserve).
#[inline(always)]
pub fn warp_reserve(count: u32, reserve: impl FnOnce(u32) -> u32) -> u32 {
    let lanes_below = (1u32 << lane_index()) - 1;
    let (mut total, mut before, mut bit) = (0, 0, 0);
    while ballot(FULL_WARP, count.checked_shr(bit).unwrap_or(0) != 0) != 0 {
        let plane = ballot(FULL_WARP, (count >> bit) & 1 != 0);
        total += plane.count_ones() << bit;
        before += (plane & lanes_below).count_ones() << bit;
        bit += 1;
    }
    if total == 0 {
        return 0;
    }
    let first = if lane_index() == 0 { reserve(total) } else { 0 };
    shuffle(FULL_WARP, first, 0) + before
}

/// Warp-aggregated reservation of one slot for each lane that `wants` one:
/// one `ballot`, and for a warp with takers one `reserve(total)` by the
/// lowest of them and one `shuffle`. Returns this lane's slot (meaningless
/// for a lane that wants none); takers get theirs in lane order. The cheap
/// case of [`warp_reserve`], for counts of 0 or 1: a warp with no taker pays
/// one vote.
///
/// Every lane of the warp executes it.
#[inline(always)]
pub fn warp_reserve_one(wants: bool, reserve: impl FnOnce(u32) -> u32) -> u32 {
    let takers = ballot(FULL_WARP, wants);
    if takers == 0 {
        return 0;
    }
    hand_out_one_each(FULL_WARP, takers, reserve)
}

/// Warp-aggregated reservation of one slot for each lane that calls it,
/// among the lanes of its warp that call it together: [`active_mask`]
/// names them, the lowest reserves them all with one `reserve(total)`, and
/// [`shuffle`] hands out the first slot. Returns this lane's slot; lanes
/// get theirs in lane order. For code where lanes diverge (a lane that won
/// a claim, inside a loop others have left); where every lane of the warp
/// calls it, [`warp_reserve_one`] does the same. (The coalesced-group
/// atomic of NVIDIA's "CUDA Pro Tip: Optimized Filtering with
/// Warp-Aggregated Atomics".)
#[inline(always)]
pub fn coalesced_reserve_one(reserve: impl FnOnce(u32) -> u32) -> u32 {
    let lanes = active_mask();
    hand_out_one_each(lanes, lanes, reserve)
}

/// [`coalesced_reserve_one`] for lanes that append to different queues:
/// the lanes calling it together that pass the same `key` (the queue) share
/// one `reserve(total)`, by the lowest of them, which reserves on the
/// queue of its own `key`. Returns this lane's slot in its key's queue.
/// One atomic per distinct key in the warp, where one a lane would queue
/// up on a few hot counters.
#[inline(always)]
pub fn coalesced_reserve_keyed(key: u32, reserve: impl FnOnce(u32) -> u32) -> u32 {
    let lanes = active_mask();
    hand_out_one_each(lanes, match_any(lanes, key), reserve)
}

/// One slot for each of the `takers` (a non-empty subset of the lanes in
/// `mask`): the lowest taker reserves them all with `reserve(total)`, and
/// a shuffle over `mask` passes the first slot; each taker's slot follows
/// the takers below it. Every lane in `mask` executes it.
#[inline(always)]
fn hand_out_one_each(mask: u32, takers: u32, reserve: impl FnOnce(u32) -> u32) -> u32 {
    let leader = takers.trailing_zeros();
    let first = if lane_index() == leader {
        reserve(takers.count_ones())
    } else {
        0
    };
    let lanes_below = (1u32 << lane_index()) - 1;
    shuffle(mask, first, leader) + (takers & lanes_below).count_ones()
}

/// Block-aggregated reservation of one slot for each thread that `wants`
/// one: each warp takes its takers' places in the block's count
/// ([`warp_reserve_one`] on `shared[0]`), then thread 0 reserves the
/// block's total with one `reserve(total)` and passes the first slot
/// through `shared[1]`. Returns this thread's slot (meaningless for one
/// that wants none). One global atomic a block, not one a warp: for a
/// kernel whose every thread may append to one queue, where the warps'
/// atomics on its tail queue up behind each other.
///
/// # Safety
/// `shared` is two words of shared memory, `shared[0]` 0 and both
/// written by no thread since the block's last barrier. Every thread of
/// the block executes it; it leaves `shared[0]` 0 again.
#[inline(always)]
pub unsafe fn block_reserve_one(
    wants: bool,
    shared: *mut u32,
    reserve: impl FnOnce(u32) -> u32,
) -> u32 {
    // SAFETY: the contract.
    unsafe {
        let in_block = warp_reserve_one(wants, |total| atomic_add(shared, total));
        hand_out_block_total(in_block, shared, reserve)
    }
}

/// [`block_reserve_one`]'s second half: once every warp has added its
/// share to `shared[0]`, thread 0 reserves the total with one
/// `reserve(total)` and passes the first slot through `shared[1]`;
/// returns that slot plus `in_block`, this thread's place in the block.
///
/// # Safety
/// As [`block_reserve_one`], every warp's share added to `shared[0]`.
#[inline(always)]
unsafe fn hand_out_block_total(
    in_block: u32,
    shared: *mut u32,
    reserve: impl FnOnce(u32) -> u32,
) -> u32 {
    // SAFETY: the contract; the first barrier orders every warp's share
    // before thread 0 reads the total, the second its slot before the
    // block reads it.
    unsafe {
        sync_threads();
        if thread_index() == 0 {
            let total = *shared;
            *shared = 0;
            *shared.add(1) = if total > 0 { reserve(total) } else { 0 };
        }
        sync_threads();
        *shared.add(1) + in_block
    }
}
