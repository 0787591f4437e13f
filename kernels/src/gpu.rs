//! Device primitives: the CUDA built-ins the kernels need, in one place.
//!
//! Thread and block ids, the block barrier, atomics, warp vote and shuffle,
//! read-only loads and dynamic shared memory. Everything that needs an
//! intrinsic or inline PTX lives here, so the technique files read like the
//! textbook: `thread_index()`, `sync_threads()`, `atomic_add(tail, 1)`.
//!
//! Ordering: the NVPTX backend lowers every atomic read-modify-write to a
//! relaxed `atom.global.*`, whatever `Ordering` it is given. Code that
//! publishes data through an atomic uses the explicitly ordered
//! [`add_release_gpu`] and [`load_acquire_gpu`] (inline PTX) instead.

use core::arch::asm;
use core::arch::nvptx;
use core::sync::atomic::{AtomicU32, Ordering};

/// Lanes in a warp.
pub const WARP_SIZE: u32 = 32;

/// `threadIdx.x`.
#[inline(always)]
pub fn thread_index() -> u32 {
    // SAFETY: reads the special register %tid.x, always defined in a kernel.
    unsafe { nvptx::_thread_idx_x() as u32 }
}

/// `blockIdx.x`.
#[inline(always)]
pub fn block_index() -> u32 {
    // SAFETY: reads the special register %ctaid.x, always defined in a kernel.
    unsafe { nvptx::_block_idx_x() as u32 }
}

/// `blockIdx.y`.
#[inline(always)]
pub fn block_index_y() -> u32 {
    // SAFETY: reads the special register %ctaid.y, always defined in a kernel.
    unsafe { nvptx::_block_idx_y() as u32 }
}

/// `blockDim.x`.
#[inline(always)]
pub fn block_size() -> u32 {
    // SAFETY: reads the special register %ntid.x, always defined in a kernel.
    unsafe { nvptx::_block_dim_x() as u32 }
}

/// `gridDim.x`.
#[inline(always)]
pub fn grid_size() -> u32 {
    // SAFETY: reads the special register %nctaid.x, always defined in a kernel.
    unsafe { nvptx::_grid_dim_x() as u32 }
}

/// `blockIdx.x * blockDim.x + threadIdx.x`: this thread's index in a 1D grid.
#[inline(always)]
pub fn global_thread_index() -> u32 {
    block_index() * block_size() + thread_index()
}

/// This thread's lane within its warp.
#[inline(always)]
pub fn lane_index() -> u32 {
    thread_index() % WARP_SIZE
}

/// `__syncthreads()`: every thread of the block waits here, and the block's
/// shared-memory writes before it are visible to the block after it.
///
/// Must be reached by all threads of the block, or by none.
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: bar.sync 0 has no memory effects beyond ordering; the caller
    // keeps it in uniform control flow (the documented contract).
    unsafe { nvptx::_syncthreads() }
}

/// `atomicAdd(address, value)`: returns the old value.
///
/// # Safety
/// `address` is valid, aligned, and only accessed atomically while others may race.
#[inline(always)]
pub unsafe fn atomic_add(address: *mut u32, value: u32) -> u32 {
    // SAFETY: forwarded from the caller.
    unsafe { AtomicU32::from_ptr(address) }.fetch_add(value, Ordering::Relaxed)
}

/// `atomicAdd(address, value)` on a 64-bit counter: returns the old value.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_add_u64(address: *mut u64, value: u64) -> u64 {
    // SAFETY: forwarded from the caller.
    unsafe { core::sync::atomic::AtomicU64::from_ptr(address) }.fetch_add(value, Ordering::Relaxed)
}

/// `atomicOr(address, value)`: returns the old value.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_or(address: *mut u32, value: u32) -> u32 {
    // SAFETY: forwarded from the caller.
    unsafe { AtomicU32::from_ptr(address) }.fetch_or(value, Ordering::Relaxed)
}

/// `atomicExch(address, value)`: returns the old value.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_exchange(address: *mut u32, value: u32) -> u32 {
    // SAFETY: forwarded from the caller.
    unsafe { AtomicU32::from_ptr(address) }.swap(value, Ordering::Relaxed)
}

/// The value at `address`, read by an atomic (`atomicOr(address, 0)`):
/// for words other threads write atomically, with no barrier between.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_read(address: *mut u32) -> u32 {
    // SAFETY: forwarded from the caller.
    unsafe { atomic_or(address, 0) }
}

/// `atomicCAS(address, expected, new)`: returns the old value; the swap
/// happened exactly when it equals `expected`.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_compare_exchange(address: *mut u32, expected: u32, new: u32) -> u32 {
    // SAFETY: forwarded from the caller.
    match unsafe { AtomicU32::from_ptr(address) }.compare_exchange(
        expected,
        new,
        Ordering::Relaxed,
        Ordering::Relaxed,
    ) {
        Ok(old) | Err(old) => old,
    }
}

/// `atomicMin(address, value)`: returns the old value.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_min(address: *mut u32, value: u32) -> u32 {
    // SAFETY: forwarded from the caller.
    unsafe { AtomicU32::from_ptr(address) }.fetch_min(value, Ordering::Relaxed)
}

/// `atomicMax(address, value)`: returns the old value.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_max(address: *mut u32, value: u32) -> u32 {
    // SAFETY: forwarded from the caller.
    unsafe { AtomicU32::from_ptr(address) }.fetch_max(value, Ordering::Relaxed)
}

/// `atomicMin(address, value)` on a 64-bit word: returns the old value.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_min_u64(address: *mut u64, value: u64) -> u64 {
    // SAFETY: forwarded from the caller.
    unsafe { core::sync::atomic::AtomicU64::from_ptr(address) }.fetch_min(value, Ordering::Relaxed)
}

/// `atomicAnd(address, value)`: returns the old value.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_and(address: *mut u32, value: u32) -> u32 {
    // SAFETY: forwarded from the caller.
    unsafe { AtomicU32::from_ptr(address) }.fetch_and(value, Ordering::Relaxed)
}

/// `__syncwarp()`: the warp's lanes wait for each other here, and their
/// memory accesses before it are ordered before those after it.
///
/// Every lane of the warp must reach it.
#[inline(always)]
pub fn sync_warp() {
    // SAFETY: bar.warp.sync reads only its mask; every lane takes part (the
    // documented contract).
    unsafe { asm!("bar.warp.sync 0xffffffff;", options(nostack)) }
}

/// `__nanosleep(nanoseconds)`: the warp pauses for about that long (at
/// most a microsecond), freeing the issue slots and memory pipes it would
/// spend spinning.
#[inline(always)]
pub fn sleep(nanoseconds: u32) {
    // SAFETY: nanosleep has no effect but a delay.
    unsafe { asm!("nanosleep.u32 {t};", t = in(reg32) nanoseconds, options(nostack)) }
}

/// `__threadfence_block()`: this thread's memory accesses before it are
/// seen by the block before those after it (shared memory, between warps).
#[inline(always)]
pub fn fence_block() {
    // SAFETY: a fence has no effect but ordering.
    unsafe { asm!("fence.acq_rel.cta;", options(nostack)) }
}

/// `atom.release.gpu.or`: `atomicOr` that returns the old word, ordering
/// this thread's earlier accesses before it, GPU-wide: whoever sees the
/// bits with an acquire also sees what this thread wrote before setting them.
///
/// # Safety
/// `address` is a valid, aligned global address, only accessed atomically
/// while others may race.
#[inline(always)]
pub unsafe fn fetch_or_release_gpu(address: *mut u32, bits: u32) -> u32 {
    let old: u32;
    // SAFETY: the caller guarantees a valid, aligned, atomically used address.
    unsafe {
        asm!(
            "atom.release.gpu.global.or.b32 {old}, [{address}], {bits};",
            old = out(reg32) old,
            address = in(reg64) address,
            bits = in(reg32) bits,
            options(nostack),
        )
    }
    old
}

/// `atom.acquire.gpu.exch`: swaps `value` in and returns the old word,
/// ordering this thread's later accesses after it (the acquire that pairs
/// with [`fetch_or_release_gpu`]).
///
/// # Safety
/// As for [`fetch_or_release_gpu`].
#[inline(always)]
pub unsafe fn exchange_acquire_gpu(address: *mut u32, value: u32) -> u32 {
    let old: u32;
    // SAFETY: the caller guarantees a valid, aligned, atomically used address.
    unsafe {
        asm!(
            "atom.acquire.gpu.global.exch.b32 {old}, [{address}], {value};",
            old = out(reg32) old,
            address = in(reg64) address,
            value = in(reg32) value,
            options(nostack),
        )
    }
    old
}

/// `__syncthreads_or(predicate)`: a block barrier that also tells every
/// thread whether any thread passed a true predicate.
///
/// Must be reached by all threads of the block, or by none.
#[inline(always)]
pub fn sync_threads_or(predicate: bool) -> bool {
    let any: u32;
    // SAFETY: bar.red has the memory effects of bar.sync; the caller keeps
    // it in uniform control flow (the documented contract).
    unsafe {
        asm!(
            "{{ .reg .pred %p; .reg .pred %q; setp.ne.u32 %p, {predicate}, 0; bar.red.or.pred %q, 0, %p; selp.u32 {any}, 1, 0, %q; }}",
            any = out(reg32) any,
            predicate = in(reg32) predicate as u32,
            options(nostack),
        )
    }
    any != 0
}

/// A software grid barrier that also delivers a count: every thread of
/// every block waits here, the writes of all threads before it are visible
/// to all threads after it, and each gets the high half of `*word`.
///
/// `*word` is a 64-bit pair: the high half counts whatever the level
/// appended (with 64-bit atomics adding `n << 32`), the low half the blocks
/// that arrived. Thread 0 of each block arrives with a release `red.add`
/// of 1 (after the block barrier, so it releases its whole block's writes)
/// and polls with acquire loads until all `blocks` have; the load that sees
/// the last arrival also sees every count added before it, so nobody reads
/// the count again. Thread 0 hands it to its block through shared memory.
///
/// # Safety
/// Every block of the grid is resident at once (a cooperative launch with
/// at most the occupancy's blocks), `blocks` is the grid size, `word` is 0
/// in its low half before the first arrival and touched by nothing else
/// until every block has left, `shared` is one word of shared memory only
/// this barrier uses, and every thread of the grid reaches the barrier, or
/// none does.
#[inline(always)]
pub unsafe fn grid_barrier_with_count(word: *mut u64, blocks: u32, shared: *mut u32) -> u32 {
    sync_threads();
    if thread_index() == 0 {
        // SAFETY: `word` and `shared` are the barrier's own (the contract).
        unsafe {
            add_release_gpu(word, 1);
            let mut value = load_acquire_gpu(word);
            while value as u32 != blocks {
                value = load_acquire_gpu(word);
            }
            *shared = (value >> 32) as u32;
        }
    }
    sync_threads();
    // SAFETY: written by thread 0 before the block barrier just passed, and
    // not again before every thread has passed the next one.
    unsafe { *shared }
}

/// `ld.acquire.gpu` of 64 bits: a load that orders this thread's later
/// accesses after it, seeing what a matching release made visible anywhere
/// on the GPU.
///
/// # Safety
/// `address` is valid and aligned.
#[inline(always)]
pub unsafe fn load_acquire_gpu(address: *const u64) -> u64 {
    let value: u64;
    // SAFETY: the caller guarantees a valid, aligned address.
    unsafe {
        asm!(
            "ld.acquire.gpu.global.u64 {value}, [{address}];",
            value = out(reg64) value,
            address = in(reg64) address,
            options(nostack),
        )
    }
    value
}

/// `red.release.gpu.add` of 64 bits: an `atomicAdd` nobody waits for,
/// ordering this thread's earlier accesses (and, after a block barrier, its
/// block's) before it, GPU-wide.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn add_release_gpu(address: *mut u64, value: u64) {
    // SAFETY: the caller guarantees a valid, aligned, atomically used address.
    unsafe {
        asm!(
            "red.release.gpu.global.add.u64 [{address}], {value};",
            address = in(reg64) address,
            value = in(reg64) value,
            options(nostack),
        )
    }
}

/// `st.release.sys` of 32 bits: a store that orders this thread's earlier
/// accesses, and whatever happened before them (the kernels before it on
/// its stream), before it for every observer of the system, another GPU
/// reading over NVLink included.
///
/// # Safety
/// `address` is a valid, aligned global address, on this GPU or another
/// that this one reaches.
#[inline(always)]
pub unsafe fn store_release_system(address: *mut u32, value: u32) {
    // SAFETY: the caller guarantees a valid, aligned address.
    unsafe {
        asm!(
            "st.release.sys.global.u32 [{address}], {value};",
            address = in(reg64) address,
            value = in(reg32) value,
            options(nostack),
        )
    }
}

/// `ld.acquire.sys` of 32 bits: the load that pairs with
/// [`store_release_system`], ordering this thread's later accesses after
/// it, system-wide.
///
/// # Safety
/// `address` is valid and aligned.
#[inline(always)]
pub unsafe fn load_acquire_system(address: *const u32) -> u32 {
    let value: u32;
    // SAFETY: the caller guarantees a valid, aligned address.
    unsafe {
        asm!(
            "ld.acquire.sys.global.u32 {value}, [{address}];",
            value = out(reg32) value,
            address = in(reg64) address,
            options(nostack),
        )
    }
    value
}

/// `%globaltimer`: nanoseconds of the GPU's clock, the same on every SM
/// (for timeouts, not for timing code).
#[inline(always)]
pub fn global_timer() -> u64 {
    let nanoseconds: u64;
    // SAFETY: reads a special register.
    unsafe {
        asm!(
            "mov.u64 {t}, %globaltimer;",
            t = out(reg64) nanoseconds,
            options(nostack, nomem),
        )
    }
    nanoseconds
}

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

/// [`block_reserve_one`] for `count` slots a thread: each warp takes its
/// threads' places in the block's count with [`warp_reserve`]. Returns this
/// thread's first slot (meaningless where `count` is 0); within a warp,
/// lanes get theirs in lane order.
///
/// # Safety
/// As [`block_reserve_one`].
#[inline(always)]
pub unsafe fn block_reserve(count: u32, shared: *mut u32, reserve: impl FnOnce(u32) -> u32) -> u32 {
    // SAFETY: the contract.
    unsafe {
        let in_block = warp_reserve(count, |total| atomic_add(shared, total));
        hand_out_block_total(in_block, shared, reserve)
    }
}

/// The block reservations' second half: once every warp has added its
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

/// Every lane of a warp, for warp-wide votes and shuffles.
pub const FULL_WARP: u32 = u32::MAX;

/// `__ldg(address)`: a load through the read-only (non-coherent) data cache.
///
/// # Safety
/// `address` is valid and aligned, and nothing writes it while the kernel runs.
#[inline(always)]
pub unsafe fn load_read_only(address: *const u32) -> u32 {
    let value: u32;
    // SAFETY: the caller guarantees a valid address that no one writes
    // during this launch, which is what ld.global.nc requires.
    unsafe {
        asm!(
            "ld.global.nc.u32 {value}, [{address}];",
            value = out(reg32) value,
            address = in(reg64) address,
            options(readonly, nostack, pure),
        )
    }
    value
}

/// [`load_read_only`] of a 64-bit word (an edge offset).
///
/// # Safety
/// As [`load_read_only`].
#[inline(always)]
pub unsafe fn load_read_only_u64(address: *const u64) -> u64 {
    let value: u64;
    // SAFETY: as in `load_read_only`.
    unsafe {
        asm!(
            "ld.global.nc.u64 {value}, [{address}];",
            value = out(reg64) value,
            address = in(reg64) address,
            options(readonly, nostack, pure),
        )
    }
    value
}

/// Four words on 16 bytes, what one vector load or store moves.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Quad(pub [u32; 4]);

/// [`load_read_only`] of a [`Quad`], one 16-byte load.
///
/// # Safety
/// As [`load_read_only`], `address` on 16 bytes.
#[inline(always)]
pub unsafe fn load_read_only_quad(address: *const Quad) -> Quad {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: as in `load_read_only`.
    unsafe {
        asm!(
            "ld.global.nc.v4.u32 {{{a}, {b}, {c}, {d}}}, [{address}];",
            a = out(reg32) a,
            b = out(reg32) b,
            c = out(reg32) c,
            d = out(reg32) d,
            address = in(reg64) address,
            options(readonly, nostack, pure),
        )
    }
    Quad([a, b, c, d])
}

/// A volatile load of a [`Quad`], one 16-byte load (what
/// `read_volatile` of a `Quad` does in four, through local memory).
///
/// # Safety
/// `address` is valid, in global memory, on 16 bytes.
#[inline(always)]
pub unsafe fn load_volatile_quad(address: *const Quad) -> Quad {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: the caller guarantees a valid, aligned address.
    unsafe {
        asm!(
            "ld.volatile.global.v4.u32 {{{a}, {b}, {c}, {d}}}, [{address}];",
            a = out(reg32) a,
            b = out(reg32) b,
            c = out(reg32) c,
            d = out(reg32) d,
            address = in(reg64) address,
            options(readonly, nostack),
        )
    }
    Quad([a, b, c, d])
}

/// A volatile store of a [`Quad`], one 16-byte store.
///
/// # Safety
/// `address` is valid, in global memory, on 16 bytes.
#[inline(always)]
pub unsafe fn store_volatile_quad(address: *mut Quad, Quad([a, b, c, d]): Quad) {
    // SAFETY: the caller guarantees a valid, aligned address.
    unsafe {
        asm!(
            "st.volatile.global.v4.u32 [{address}], {{{a}, {b}, {c}, {d}}};",
            address = in(reg64) address,
            a = in(reg32) a,
            b = in(reg32) b,
            c = in(reg32) c,
            d = in(reg32) d,
            options(nostack),
        )
    }
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

/// `extern __shared__ T memory[]`: the block's dynamic shared memory, sized
/// by the `shared_mem_bytes` launch parameter.
#[inline(always)]
pub fn dynamic_shared_memory<T>() -> *mut T {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<T>()
}

/// Kernels never panic: they index with raw pointers behind explicit bounds
/// checks. This handler only satisfies `no_std`; `ptxas` would reject a
/// kernel that could reach a `core` panic path (an unresolved symbol).
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no other effect.
    unsafe { asm!("trap;", options(noreturn, nostack)) }
}
