//! Memory the compiler cannot spell: loads through the read-only data
//! cache, 16 bytes at a time, the block's dynamic shared memory, and
//! addresses known to be global.

use core::arch::asm;

unsafe extern "C" {
    /// `isspacep.global`: whether a generic address lies in global memory.
    #[link_name = "llvm.nvvm.isspacep.global"]
    safe fn is_global_address(address: *const u8) -> bool;
}

/// `address`, known to the compiler as an address in global memory, as a
/// kernel's pointer parameters are: loads, stores and atomics through it,
/// and through addresses computed from it, are `ld.global`, `st.global`
/// and `atom.global`, not generic ones that must first find the space.
/// For the addresses of a parameter block passed by value, which the
/// compiler cannot see are global (docs/decisions.md, "The textbook's
/// kernels"). A kernel given an address outside global memory traps here.
///
/// How: `isspacep.global`, and an assumption of its answer, which LLVM's
/// address-space inference reads. The check that traps is the answer's
/// one use besides the assumption, without which LLVM drops the
/// assumption as unused before the inference runs; and the inference
/// rewrites addresses computed from the assumed one, not that one itself,
/// so the result is `address` plus a zero the compiler cannot see through
/// (ptxas folds it).
#[inline(always)]
pub fn global<T>(address: *mut T) -> *mut T {
    let in_global = is_global_address(address.cast_const().cast());
    // SAFETY: traps unless `in_global`; reads and writes nothing.
    unsafe {
        asm!(
            "{{ .reg .pred %outside; setp.eq.u32 %outside, {in_global}, 0; @%outside trap; }}",
            in_global = in(reg32) in_global as u32,
            options(nomem, nostack),
        )
    }
    // SAFETY: past the check, the address is global.
    unsafe { core::hint::assert_unchecked(in_global) };
    let zero: usize;
    // SAFETY: moves a constant into a register.
    unsafe {
        asm!(
            "mov.u64 {zero}, 0;",
            zero = out(reg64) zero,
            options(pure, nomem, nostack),
        )
    }
    address.wrapping_byte_add(zero)
}

/// A pointer [`global`] marks, whether the kernel writes through it
/// (`*mut`) or only reads (`*const`): what a parameter block's
/// `in_global` maps its addresses through.
pub trait GlobalAddress {
    /// The pointer, marked by [`global`].
    fn in_global(self) -> Self;
}

impl<T> GlobalAddress for *mut T {
    #[inline(always)]
    fn in_global(self) -> Self {
        global(self)
    }
}

impl<T> GlobalAddress for *const T {
    #[inline(always)]
    fn in_global(self) -> Self {
        global(self.cast_mut()).cast_const()
    }
}

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

/// `extern __shared__ T memory[]`: the block's dynamic shared memory, sized
/// by the `shared_mem_bytes` launch parameter.
#[inline(always)]
pub fn dynamic_shared_memory<T>() -> *mut T {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<T>()
}
