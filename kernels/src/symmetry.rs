//! # Is the graph symmetric? Each arc's tail looked up in its head's row
//!
//! A graph is symmetric (an undirected one, stored as both arcs of each
//! edge) when every arc `(u, v)` has its reverse `(v, u)`. Each arc looks
//! for its tail in its head's row, which every CSR the host builds keeps
//! sorted, by binary search; an arc that finds none clears the answer.
//! The host's check is the same search on its cores, a cache miss or two
//! an arc; here the graph, on the device already for its searches, takes
//! one launch.
//!
//! The arcs are dealt out in equal runs rather than by vertex, so that a
//! hub's row does not fall to one thread: a warp takes
//! [`ARCS_A_WARP`] consecutive arcs, each lane every 32nd of them, so a
//! warp's loads of the columns are consecutive. A lane's arc needs its
//! tail, the row it lies in: one binary search of the row offsets finds
//! it for the lane's first arc, and it moves forward over the rows the
//! lane's later arcs pass (the merge-path split of a CSR's work: Merrill
//! & Garland, "Merge-based Parallel Sparse Matrix-Vector
//! Multiplication", SC 2016).
//!
//! Encodings: `abi::symmetry`.

use core::ptr::write_volatile;

use crate::abi::symmetry::ARCS_A_WARP;
use crate::abi::{EdgeOffset, Rows};
use crate::gpu::{self, WARP_SIZE};
use crate::visit::{RowOffset, row};

/// Clears `*symmetric` if an arc's reverse is not an arc.
///
/// # Safety
/// `rows` are a graph's `vertex_count + 1` offsets (the last
/// `arc_count`) and its columns, each row sorted; `symmetric` is one word,
/// which the host set non-zero.
///
/// # Launch
/// Blocks of `abi::symmetry::BLOCK_SIZE` threads, any number.
///
/// # Thread mapping
/// The grid's warp `w` of `W` takes the runs of [`ARCS_A_WARP`] arcs `w`,
/// `w + W`, …; lane `l` the run's arcs `l`, `l + 32`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn symmetry_check(
    rows: Rows,
    vertex_count: u32,
    arc_count: u64,
    symmetric: *mut u32,
) {
    let rows = rows.in_global();
    let symmetric = gpu::global(symmetric);
    let (first_warp, warps) = gpu::grid_warps();
    let mut run = first_warp as u64;
    while run * ARCS_A_WARP < arc_count {
        let end = ((run + 1) * ARCS_A_WARP).min(arc_count);
        let mut arc = run * ARCS_A_WARP + gpu::lane_index() as u64;
        // SAFETY: every arc is below `arc_count` and every tail below
        // `vertex_count` (`row_of`, and the cursor stops at the row that
        // holds the arc: the last offset is `arc_count`); every head is a
        // vertex (the contract). The flag's racing stores all write 0.
        unsafe {
            if arc < end {
                let mut tail = row_of(rows.offsets, vertex_count, arc);
                while arc < end {
                    while EdgeOffset::load_read_only(rows.offsets.add(tail as usize + 1)) <= arc {
                        tail += 1;
                    }
                    let head = gpu::load_read_only(rows.columns.add(arc as usize));
                    if !row_holds(rows, head, tail) {
                        write_volatile(symmetric, 0);
                    }
                    arc += WARP_SIZE as u64;
                }
            }
        }
        run += warps as u64;
    }
}

/// The vertex whose row holds `arc`: the last whose first offset is at
/// most `arc`.
///
/// # Safety
/// As [`symmetry_check`]'s, `arc < arc_count`.
#[inline(always)]
unsafe fn row_of(offsets: *const EdgeOffset, vertex_count: u32, arc: u64) -> u32 {
    // Always `offsets[low] <= arc < offsets[high]`: the first offset is
    // 0, the last `arc_count`.
    let (mut low, mut high) = (0, vertex_count);
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        // SAFETY: `middle < vertex_count` (the contract).
        match unsafe { EdgeOffset::load_read_only(offsets.add(middle as usize)) } <= arc {
            true => low = middle,
            false => high = middle,
        }
    }
    low
}

/// Whether `vertex`'s row holds `wanted`, by binary search.
///
/// # Safety
/// As [`symmetry_check`]'s, `vertex` a vertex.
#[inline(always)]
unsafe fn row_holds(rows: Rows, vertex: u32, wanted: u32) -> bool {
    // SAFETY: the row's offsets and columns are the graph's (the contract).
    unsafe {
        let (mut low, mut high) = row(rows.offsets, vertex);
        while low < high {
            let middle = low + (high - low) / 2;
            let column = gpu::load_read_only(rows.columns.add(middle as usize));
            if column == wanted {
                return true;
            }
            match column < wanted {
                true => low = middle + 1,
                false => high = middle,
            }
        }
        false
    }
}
