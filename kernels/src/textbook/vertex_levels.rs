//! # Vertex-parallel BFS over a level array
//!
//! The simplest GPU BFS (Harish & Narayanan 2007; the "BFS: vertex-parallel"
//! baseline of the graph-search lecture and of Merrill et al. 2012, §3): each
//! level launches one thread per vertex; a thread whose vertex carries the
//! current level labels every unreached neighbour with the next level. No
//! queue: the frontier is implicit in `levels`, so each level costs O(V)
//! threads even when the frontier is a handful of vertices, O(V·L) work in all.
//!
//! Encodings: `levels[v]` is the distance or [`UNREACHED`](crate::abi::UNREACHED);
//! `parents[v]` doubles as the claim word (unreached while `UNREACHED`);
//! `*discovered` is set to 1 when the level labelled any vertex.

use crate::abi::{EdgeOffset, UNREACHED};
use crate::gpu;
use crate::visit::neighbours;

/// One level: expand every vertex whose level is `level`.
///
/// # Safety
/// `row_offsets` has `vertex_count + 1` entries, `column_indices` has
/// `row_offsets[vertex_count]` entries, each `< vertex_count`; `levels` and
/// `parents` have `vertex_count` entries; `discovered` points to one `u32`.
///
/// # Launch
/// Grid `ceil(vertex_count / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE), no shared memory.
///
/// # Thread mapping
/// Thread `v` owns vertex `v`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vertex_levels_step(
    row_offsets: *const EdgeOffset,
    column_indices: *const u32,
    levels: *mut u32,
    parents: *mut u32,
    discovered: *mut u32,
    vertex_count: u32,
    level: u32,
) {
    let vertex = gpu::global_thread_index();
    if vertex >= vertex_count {
        return;
    }
    // SAFETY: `vertex < vertex_count` and neighbours are `< vertex_count`
    // (the contract above). Vertices at `level` are never written in this
    // launch; the CAS on `parents` picks one writer per neighbour.
    unsafe {
        if *levels.add(vertex as usize) != level {
            return;
        }
        for neighbour in neighbours(row_offsets, column_indices, vertex) {
            let neighbour = neighbour as usize;
            if *levels.add(neighbour) == UNREACHED
                && gpu::atomic_compare_exchange(parents.add(neighbour), UNREACHED, vertex)
                    == UNREACHED
            {
                *levels.add(neighbour) = level + 1;
                *discovered = 1;
            }
        }
    }
}
