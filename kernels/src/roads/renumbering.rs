//! # A renumbered search's result in the graph's own ids
//!
//! Variants that renumber the graph before searching it (`ghost_zones`:
//! each partition's vertices given consecutive ids, `graph::reorder` on the
//! host) find levels and parents in the new ids. The graph's own ids come
//! back by a gather: vertex `v`'s level is the level of its new id, its
//! parent the old id of its new id's parent. On the device that is one pass
//! of a thread per vertex, its writes coalesced and its reads random, which
//! the memory system serves from many warps at once; the copy back to the
//! host is then the plain copy of any other variant's result.

use crate::abi::UNREACHED;
use crate::gpu;

/// Writes each vertex's level and parent in the graph's own ids:
/// `levels[v] = renumbered_levels[new_ids[v]]` and
/// `parents[v] = old_ids[renumbered_parents[new_ids[v]]]` (an unreached
/// vertex's parent stays `UNREACHED`).
///
/// # Safety
/// `new_ids` and `old_ids` hold `vertex_count` entries, each `< vertex_count`
/// (inverse permutations); `renumbered_levels` and `renumbered_parents` hold
/// `vertex_count` entries, each parent `UNREACHED` or `< vertex_count`, none
/// written during the launch (they are read through the read-only cache);
/// `levels` and `parents` hold `vertex_count` entries and overlap none of
/// the inputs.
///
/// # Launch
/// Grid `ceil(n / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE).
///
/// # Thread mapping
/// Thread `i` of the grid takes vertex `i` of the graph's own ids.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn renumbering_gather(
    new_ids: *const u32,
    old_ids: *const u32,
    renumbered_levels: *const u32,
    renumbered_parents: *const u32,
    vertex_count: u32,
    levels: *mut u32,
    parents: *mut u32,
) {
    let vertex = gpu::global_thread_index();
    if vertex >= vertex_count {
        return;
    }
    // SAFETY: `vertex < n` and every id read is below `n` (the contract);
    // this thread alone writes `vertex`'s entries of the outputs.
    unsafe {
        let new = gpu::load_read_only(new_ids.add(vertex as usize)) as usize;
        let parent = gpu::load_read_only(renumbered_parents.add(new));
        *levels.add(vertex as usize) = gpu::load_read_only(renumbered_levels.add(new));
        *parents.add(vertex as usize) = match parent {
            UNREACHED => UNREACHED,
            parent => gpu::load_read_only(old_ids.add(parent as usize)),
        };
    }
}
