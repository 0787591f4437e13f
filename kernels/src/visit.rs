//! The step every queue-based kernel shares: claiming an unvisited neighbour.
//!
//! Kirk & Hwu (*Programming Massively Parallel Processors*, 3rd ed., §12.3):
//! `if (atomicExch(&visited[neighbour], 1) == 0) { label it; enqueue it }`.
//! Exactly one thread wins each vertex, so each vertex is labelled and
//! enqueued once and its parent is the winner's vertex. A plain read first
//! skips the atomic for the common case of an already-visited neighbour
//! (test-and-test-and-set); the atomic still decides every race.

use crate::abi::VISITED;
use crate::gpu;

/// Claims `neighbour`, discovered from `vertex`, for `next_level`; returns
/// whether this thread won it (and so must enqueue it).
///
/// # Safety
/// `neighbour` indexes `visited`, `levels` and `parents`, which the caller's
/// kernel owns for this launch.
#[inline(always)]
pub unsafe fn claim(
    visited: *mut u32,
    levels: *mut u32,
    parents: *mut u32,
    neighbour: u32,
    vertex: u32,
    next_level: u32,
) -> bool {
    let neighbour = neighbour as usize;
    // SAFETY: in bounds per the contract; the plain read may be stale, which
    // only sends a thread on to the atomic, and the atomic exchange decides.
    unsafe {
        if core::ptr::read_volatile(visited.add(neighbour)) == VISITED
            || gpu::atomic_exchange(visited.add(neighbour), VISITED) == VISITED
        {
            return false;
        }
        *levels.add(neighbour) = next_level;
        *parents.add(neighbour) = vertex;
    }
    true
}
