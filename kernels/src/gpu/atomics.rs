//! Atomics: CUDA's relaxed `atomicAdd` family, then the ordered ones.
//!
//! The NVPTX backend lowers every atomic read-modify-write to a relaxed
//! `atom.global.*`, whatever `Ordering` it is given. Code that publishes
//! data through an atomic uses the explicitly ordered ones below
//! ([`add_release_gpu`], [`load_acquire_gpu`], …: inline PTX) instead.

use core::arch::asm;
use core::sync::atomic::{AtomicU32, Ordering};

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

/// `atomicAdd(address, value)` on an `f64`, its old value unread
/// (`red.add.f64`): the order of concurrent adds is the hardware's, so
/// sums of integers (path counts below 2^53) are exact and others round
/// as any order of the same additions would.
///
/// # Safety
/// As for [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_add_f64(address: *mut f64, value: f64) {
    // SAFETY: the caller guarantees a valid, aligned, atomically used
    // address; a .b64 register stands for an .f64 operand in PTX.
    unsafe {
        asm!(
            "red.relaxed.gpu.add.f64 [{address}], {value};",
            address = in(reg64) address,
            value = in(reg64) value.to_bits(),
            options(nostack),
        )
    }
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
