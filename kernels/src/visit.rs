//! The steps every queue-based kernel shares: walking an adjacency list and
//! claiming an unvisited neighbour.
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

/// The neighbours of `vertex`: `column_indices[row_offsets[v]..row_offsets[v + 1]]`,
/// loaded through the read-only data cache (the graph never changes during a search).
///
/// # Safety
/// `vertex < n`, `row_offsets` has `n + 1` entries and `column_indices` has
/// `row_offsets[n]`, none written while the kernel runs.
#[inline(always)]
pub unsafe fn neighbours(
    row_offsets: *const u32,
    column_indices: *const u32,
    vertex: u32,
) -> impl Iterator<Item = u32> {
    // SAFETY: forwarded from the caller.
    unsafe { neighbours_through::<true>(row_offsets, column_indices, vertex) }
}

/// [`neighbours`], through the read-only cache or with plain loads, so a
/// benchmark can measure what the read-only cache buys.
///
/// # Safety
/// As [`neighbours`].
#[inline(always)]
pub unsafe fn neighbours_through<const READ_ONLY_CACHE: bool>(
    row_offsets: *const u32,
    column_indices: *const u32,
    vertex: u32,
) -> impl Iterator<Item = u32> {
    // SAFETY: in bounds per the contract.
    let (first_edge, end_edge) = unsafe {
        (
            load::<READ_ONLY_CACHE>(row_offsets.add(vertex as usize)),
            load::<READ_ONLY_CACHE>(row_offsets.add(vertex as usize + 1)),
        )
    };
    // SAFETY: `first_edge..end_edge` lies within `column_indices` per the contract.
    (first_edge..end_edge)
        .map(move |edge| unsafe { load::<READ_ONLY_CACHE>(column_indices.add(edge as usize)) })
}

/// A load of data no thread writes during the launch: through the read-only
/// cache (`ld.global.nc`, CUDA's `__ldg`) or a plain `ld.global`.
///
/// # Safety
/// `address` is valid and aligned, and nothing writes it during the launch.
#[inline(always)]
pub unsafe fn load<const READ_ONLY_CACHE: bool>(address: *const u32) -> u32 {
    // SAFETY: forwarded from the caller.
    unsafe {
        if READ_ONLY_CACHE {
            gpu::load_read_only(address)
        } else {
            *address
        }
    }
}
