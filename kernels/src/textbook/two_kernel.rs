//! # Two-kernel BFS (Rodinia)
//!
//! The level-synchronous BFS of the Rodinia benchmark suite (Che et al.,
//! "Rodinia: A Benchmark Suite for Heterogeneous Computing", IISWC 2009),
//! itself after Harish & Narayanan, "Accelerating Large Graph Algorithms on
//! the GPU Using CUDA" (HiPC 2007). One thread per vertex, two kernels per
//! level:
//!
//! 1. [`two_kernel_expand`]: every vertex in the frontier leaves it and gives
//!    each unvisited neighbour its own level + 1, marking it in `updating`.
//! 2. [`two_kernel_update`]: every `updating` vertex joins the frontier, is
//!    marked visited, and raises the `over` flag so the host runs another level.
//!
//! The host repeats the pair until `over` stays 0. Splitting the level in two
//! kernels is what makes it race-free without atomics: a vertex becomes
//! `visited` only between launches, so within `expand` the frontier (visited)
//! and the vertices being written (unvisited) never overlap.
//!
//! Encodings: `levels[v]` is the BFS distance from the source, or
//! [`UNREACHED`](crate::abi::UNREACHED); the masks hold one byte per vertex,
//! 1 for set and 0 for clear.

use crate::abi::EdgeOffset;
use crate::gpu;

/// Kernel 1: expand the frontier.
///
/// # Safety
/// `row_offsets` has `vertex_count + 1` entries, `column_indices` has
/// `row_offsets[vertex_count]` entries, each `< vertex_count`; `frontier`,
/// `updating`, `visited` and `levels` have `vertex_count` entries.
///
/// # Launch
/// Grid `ceil(vertex_count / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE), no shared memory.
///
/// # Thread mapping
/// Thread `v` owns vertex `v` and walks its whole adjacency list.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn two_kernel_expand(
    row_offsets: *const EdgeOffset,
    column_indices: *const u32,
    frontier: *mut u8,
    updating: *mut u8,
    visited: *const u8,
    levels: *mut u32,
    vertex_count: u32,
) {
    let vertex = gpu::global_thread_index() as usize;
    if vertex >= vertex_count as usize {
        return;
    }
    // SAFETY: `vertex < vertex_count` and every neighbour is `< vertex_count`
    // (the buffer contract above). Writers of `levels[neighbour]` all store
    // the same value (this level + 1), and no thread reads an unvisited
    // vertex's level in this kernel, so the racing stores are benign.
    unsafe {
        if *frontier.add(vertex) == 0 {
            return;
        }
        *frontier.add(vertex) = 0;
        let next_level = *levels.add(vertex) + 1;
        let first_edge = *row_offsets.add(vertex);
        let end_edge = *row_offsets.add(vertex + 1);
        for edge in first_edge..end_edge {
            let neighbour = *column_indices.add(edge as usize) as usize;
            if *visited.add(neighbour) == 0 {
                *levels.add(neighbour) = next_level;
                *updating.add(neighbour) = 1;
            }
        }
    }
}

/// Kernel 2: turn the discovered vertices into the next frontier.
///
/// # Safety
/// `frontier`, `updating` and `visited` have `vertex_count` entries; `over`
/// points to one `u32`.
///
/// # Launch
/// As [`two_kernel_expand`].
///
/// # Thread mapping
/// Thread `v` owns vertex `v`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn two_kernel_update(
    frontier: *mut u8,
    updating: *mut u8,
    visited: *mut u8,
    over: *mut u32,
    vertex_count: u32,
) {
    let vertex = gpu::global_thread_index() as usize;
    if vertex >= vertex_count as usize {
        return;
    }
    // SAFETY: `vertex < vertex_count` (the buffer contract above); every
    // writer of `over` stores 1.
    unsafe {
        if *updating.add(vertex) != 0 {
            *frontier.add(vertex) = 1;
            *visited.add(vertex) = 1;
            *over = 1;
            *updating.add(vertex) = 0;
        }
    }
}
