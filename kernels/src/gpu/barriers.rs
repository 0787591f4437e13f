//! Waiting for each other: the block's barriers (`__syncthreads`, and
//! `__syncthreads_or`), the warp's, a software grid barrier for
//! cooperative launches, and the clock and sleep of waits that spin.

use core::arch::{asm, nvptx};

use super::{add_release_gpu, load_acquire_gpu, thread_index};

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

/// `__nanosleep(nanoseconds)`: the warp pauses for about that long (at
/// most a microsecond), freeing the issue slots and memory pipes it would
/// spend spinning.
#[inline(always)]
pub fn sleep(nanoseconds: u32) {
    // SAFETY: nanosleep has no effect but a delay.
    unsafe { asm!("nanosleep.u32 {t};", t = in(reg32) nanoseconds, options(nostack)) }
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
