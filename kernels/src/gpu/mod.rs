//! Device primitives: the CUDA built-ins the kernels need, in one place.
//!
//! Everything that needs an intrinsic or inline PTX lives here, so the
//! technique files read like the textbook: `thread_index()`,
//! `sync_threads()`, `atomic_add(tail, 1)`. By topic, in reading order:
//! which thread this is (`ids`), loads the compiler cannot spell
//! (`memory`), atomics, relaxed and ordered (`atomics`), a warp's votes and
//! shuffles (`warp`), barriers of a warp, a block and a grid (`barriers`),
//! and queue slots reserved a warp or a block at a time (`slots`). Each is
//! re-exported here: a kernel calls `gpu::thread_index()`. The sm_90
//! module adds the thread-block clusters' (`cluster`).

use core::arch::asm;

mod atomics;
mod barriers;
mod ids;
mod memory;
mod slots;
mod warp;

#[cfg(bfs_sm90)]
pub mod cluster;

pub use atomics::*;
pub use barriers::*;
pub use ids::*;
pub use memory::*;
pub use slots::*;
pub use warp::*;

/// Kernels never panic: they index with raw pointers behind explicit bounds
/// checks. This handler only satisfies `no_std`; `ptxas` would reject a
/// kernel that could reach a `core` panic path (an unresolved symbol).
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no other effect.
    unsafe { asm!("trap;", options(noreturn, nostack)) }
}
