//! A warp's lanes together: who is here (`__activemask`), votes
//! (`__ballot_sync`, `__match_any_sync`), shuffles, and the sums and
//! minima, maxima and prefix sums built from them.

use core::arch::asm;

use super::{WARP_SIZE, lane_index};

/// Every lane of a warp, for warp-wide votes and shuffles.
pub const FULL_WARP: u32 = u32::MAX;

/// `__activemask()`: the lanes of this warp executing this instruction
/// together with this one.
#[inline(always)]
pub fn active_mask() -> u32 {
    let lanes: u32;
    // SAFETY: activemask reads no memory and synchronizes nothing.
    unsafe {
        asm!(
            "activemask.b32 {lanes};",
            lanes = out(reg32) lanes,
            options(nomem, nostack),
        )
    }
    lanes
}

/// `__ballot_sync(mask, predicate)`: bit i is set when lane i of `mask`
/// passed a true predicate.
///
/// Every lane named in `mask` must execute it.
#[inline(always)]
pub fn ballot(mask: u32, predicate: bool) -> u32 {
    let ballot: u32;
    // SAFETY: vote.sync reads only registers; the caller names the
    // participating lanes in `mask` (the documented contract).
    unsafe {
        asm!(
            "{{ .reg .pred %p; setp.ne.u32 %p, {predicate}, 0; vote.sync.ballot.b32 {ballot}, %p, {mask}; }}",
            ballot = out(reg32) ballot,
            predicate = in(reg32) predicate as u32,
            mask = in(reg32) mask,
            options(nomem, nostack),
        )
    }
    ballot
}

/// `__match_any_sync(mask, value)`: the lanes of `mask` whose `value`
/// equals this lane's.
///
/// Every lane named in `mask` must execute it.
#[inline(always)]
pub fn match_any(mask: u32, value: u32) -> u32 {
    let peers: u32;
    // SAFETY: match.sync reads only registers; the caller names the
    // participating lanes in `mask` (the documented contract).
    unsafe {
        asm!(
            "match.any.sync.b32 {peers}, {value}, {mask};",
            peers = out(reg32) peers,
            value = in(reg32) value,
            mask = in(reg32) mask,
            options(nomem, nostack),
        )
    }
    peers
}

/// `__shfl_sync(mask, value, source_lane)`: `value` as held by `source_lane`.
///
/// Every lane named in `mask` must execute it.
#[inline(always)]
pub fn shuffle(mask: u32, value: u32, source_lane: u32) -> u32 {
    let shuffled: u32;
    // SAFETY: shfl.sync reads only registers; the caller names the
    // participating lanes in `mask` (the documented contract).
    unsafe {
        asm!(
            "shfl.sync.idx.b32 {shuffled}, {value}, {source_lane}, 0x1f, {mask};",
            shuffled = out(reg32) shuffled,
            value = in(reg32) value,
            source_lane = in(reg32) source_lane,
            mask = in(reg32) mask,
            options(nomem, nostack),
        )
    }
    shuffled
}

/// [`shuffle`] of a 64-bit value (an edge offset), as two 32-bit shuffles.
///
/// Every lane named in `mask` must execute it.
#[inline(always)]
pub fn shuffle_u64(mask: u32, value: u64, source_lane: u32) -> u64 {
    let low = shuffle(mask, value as u32, source_lane);
    let high = shuffle(mask, (value >> 32) as u32, source_lane);
    (high as u64) << 32 | low as u64
}

/// `__shfl_xor_sync(FULL_WARP, value, lane_mask)`: `value` as held by the
/// lane whose index differs from this one's in the bits of `lane_mask`.
///
/// Every lane of the warp must execute it.
#[inline(always)]
pub fn shuffle_xor(value: u32, lane_mask: u32) -> u32 {
    let shuffled: u32;
    // SAFETY: shfl.sync reads only registers; every lane takes part (the
    // documented contract).
    unsafe {
        asm!(
            "shfl.sync.bfly.b32 {shuffled}, {value}, {lane_mask}, 0x1f, 0xffffffff;",
            shuffled = out(reg32) shuffled,
            value = in(reg32) value,
            lane_mask = in(reg32) lane_mask,
            options(nomem, nostack),
        )
    }
    shuffled
}

/// The least of `value` over the warp, in every lane (a butterfly of five
/// shuffles), so one lane, not 32, updates a shared minimum.
///
/// Every lane of the warp must execute it.
#[inline(always)]
pub fn warp_min(value: u32) -> u32 {
    let mut least = value;
    let mut lane_mask = WARP_SIZE / 2;
    while lane_mask > 0 {
        least = least.min(shuffle_xor(least, lane_mask));
        lane_mask /= 2;
    }
    least
}

/// The sum of `value` over the warp, in every lane (a butterfly of five shuffles).
///
/// Every lane of the warp must execute it.
#[inline(always)]
pub fn warp_sum(value: u32) -> u32 {
    let mut sum = value;
    let mut lane_mask = WARP_SIZE / 2;
    while lane_mask > 0 {
        sum += shuffle_xor(sum, lane_mask);
        lane_mask /= 2;
    }
    sum
}

/// [`warp_sum`] of a 64-bit value, as two 32-bit butterflies.
///
/// Every lane of the warp must execute it.
#[inline(always)]
pub fn warp_sum_u64(value: u64) -> u64 {
    let mut sum = value;
    let mut lane_mask = WARP_SIZE / 2;
    while lane_mask > 0 {
        let low = shuffle_xor(sum as u32, lane_mask);
        let high = shuffle_xor((sum >> 32) as u32, lane_mask);
        sum += (high as u64) << 32 | low as u64;
        lane_mask /= 2;
    }
    sum
}

/// The largest of `value` over the warp, in every lane.
///
/// Every lane of the warp must execute it.
#[inline(always)]
pub fn warp_max(value: u32) -> u32 {
    !warp_min(!value)
}

/// [`warp_sum`] of an `f64`, a butterfly of shuffles of its bits.
///
/// Every lane of the warp must execute it.
#[inline(always)]
pub fn warp_sum_f64(value: f64) -> f64 {
    let mut sum = value;
    let mut lane_mask = WARP_SIZE / 2;
    while lane_mask > 0 {
        let other = shuffle_u64(FULL_WARP, sum.to_bits(), lane_index() ^ lane_mask);
        sum += f64::from_bits(other);
        lane_mask /= 2;
    }
    sum
}

/// The inclusive prefix sum of `value` over the warp's lanes, wrapping
/// (so that two's-complement differences add up): Hillis & Steele's
/// five steps.
///
/// Every lane of the warp must execute it.
#[inline(always)]
pub fn warp_prefix_sum(value: u32) -> u32 {
    let lane = lane_index();
    let mut sum = value;
    let mut offset = 1;
    while offset < WARP_SIZE {
        let below = shuffle(FULL_WARP, sum, lane.saturating_sub(offset));
        if lane >= offset {
            sum = sum.wrapping_add(below);
        }
        offset *= 2;
    }
    sum
}
