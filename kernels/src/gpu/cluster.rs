//! Thread-block cluster primitives (sm_90): the cluster's ranks, its
//! barrier, and accesses to another block's shared memory.
//!
//! A cluster is a group of blocks that the hardware runs at once on
//! neighbouring multiprocessors of one GPC. Each block can address the
//! shared memory of every other through the *shared::cluster* window
//! ("distributed shared memory"): `mapa` turns an address in this block's
//! shared memory into the same offset in block `rank`'s, and the
//! `.shared::cluster` forms of `ld`, `st`, `atom` and `red` use it. Source:
//! the PTX ISA (8.x), sections on `mapa`, `barrier.cluster` and the
//! shared state space; the CUDA C++ Programming Guide, "Distributed Shared
//! Memory".
//!
//! Only the sm_90 module compiles this file: these instructions do not
//! assemble for older targets.

use core::arch::asm;

/// `%cluster_ctarank`: this block's rank in its cluster.
#[inline(always)]
pub fn rank() -> u32 {
    let rank: u32;
    // SAFETY: reads a special register, defined in every kernel on sm_90.
    unsafe {
        asm!("mov.u32 {rank}, %cluster_ctarank;", rank = out(reg32) rank, options(nomem, nostack, pure))
    }
    rank
}

/// `%cluster_nctarank`: blocks in this block's cluster.
#[inline(always)]
pub fn size() -> u32 {
    let size: u32;
    // SAFETY: reads a special register, defined in every kernel on sm_90.
    unsafe {
        asm!("mov.u32 {size}, %cluster_nctarank;", size = out(reg32) size, options(nomem, nostack, pure))
    }
    size
}

/// `cluster.sync()`: every thread of every block of the cluster waits here;
/// what each wrote to any block's shared memory before it is visible to
/// all after it (`arrive` has release semantics and `wait` acquire ones
/// by default; spelling them out needs PTX ISA 8.0, this module is 7.8).
///
/// Must be reached by all threads of the cluster, or by none.
#[inline(always)]
pub fn barrier() {
    // SAFETY: a barrier with release/acquire ordering and no other effect;
    // the caller keeps it in cluster-uniform control flow (the contract).
    unsafe {
        asm!(
            "barrier.cluster.arrive.aligned;",
            "barrier.cluster.wait.aligned;",
            options(nostack)
        )
    }
}

/// The shared-window address of `pointer`, a generic pointer into this
/// block's shared memory: the offset that [`map`] carries to another block.
#[inline(always)]
pub fn shared_address(pointer: *const u32) -> u32 {
    let address: u32;
    // SAFETY: converts an address; touches no memory. The caller passes a
    // pointer into shared memory (else the result is meaningless, not unsafe).
    unsafe {
        asm!(
            "{{ .reg .u64 %window; cvta.to.shared.u64 %window, {pointer}; cvt.u32.u64 {address}, %window; }}",
            address = out(reg32) address,
            // The pointer's value as a number: the conversion reads no
            // memory through it.
            pointer = in(reg64) pointer as u64,
            options(nomem, nostack, pure),
        )
    }
    address
}

/// `mapa`: the shared::cluster address of `address` (a [`shared_address`]
/// of this block) in the shared memory of block `rank` of the cluster.
#[inline(always)]
pub fn map(address: u32, rank: u32) -> u32 {
    let mapped: u32;
    // SAFETY: computes an address; touches no memory.
    unsafe {
        asm!(
            "mapa.shared::cluster.u32 {mapped}, {address}, {rank};",
            mapped = out(reg32) mapped,
            address = in(reg32) address,
            rank = in(reg32) rank,
            options(nomem, nostack, pure),
        )
    }
    mapped
}

/// `atomicOr` on a word of any block's shared memory (`address` from
/// [`map`]): returns the old word.
///
/// # Safety
/// `address` is an aligned word of a block of this cluster that has not
/// exited, only accessed atomically while others may race.
#[inline(always)]
pub unsafe fn fetch_or(address: u32, bits: u32) -> u32 {
    let old: u32;
    // SAFETY: the caller guarantees a valid, live, atomically used word.
    unsafe {
        asm!(
            "atom.shared::cluster.or.b32 {old}, [{address}], {bits};",
            old = out(reg32) old,
            address = in(reg32) address,
            bits = in(reg32) bits,
            options(nostack),
        )
    }
    old
}

/// `atomicOr` without the old word (`red`): the thread does not wait for it.
///
/// # Safety
/// As for [`fetch_or`].
#[inline(always)]
pub unsafe fn or(address: u32, bits: u32) {
    // SAFETY: the caller guarantees a valid, live, atomically used word.
    unsafe {
        asm!(
            "red.shared::cluster.or.b32 [{address}], {bits};",
            address = in(reg32) address,
            bits = in(reg32) bits,
            options(nostack),
        )
    }
}

/// A store to a word of any block's shared memory (`address` from [`map`]).
///
/// # Safety
/// `address` is an aligned word of a block of this cluster that has not
/// exited, and no other thread accesses it before the next [`barrier`].
#[inline(always)]
pub unsafe fn store(address: u32, value: u32) {
    // SAFETY: the caller guarantees a valid, live word no one races on.
    unsafe {
        asm!(
            "st.shared::cluster.u32 [{address}], {value};",
            address = in(reg32) address,
            value = in(reg32) value,
            options(nostack),
        )
    }
}
