//! # Hybrid CPU/GPU BFS: the device side
//!
//! The graph-search lecture's "use the CPU for small frontiers": a level
//! with a few vertices cannot fill a GPU, and its launch and round trip cost
//! more than the CPU takes to do it. The host runs such levels itself and the
//! large ones with [`block_queue_expand`](crate::textbook::block_queue::block_queue_expand).
//! Only frontiers cross the bus: the GPU's new frontier comes back each GPU
//! level (the host needs its size anyway), and the vertices the CPU
//! discovered go to the device, in one batch, before the next GPU level,
//! where this kernel marks them.
//!
//! Encodings as in [`crate::textbook::global_queue`]; `discoveries` holds
//! `(vertex, parent, level)` triples.

use crate::gpu;
use crate::visit::mark_visited;

/// Marks the vertices the CPU discovered as visited, with their levels and parents.
///
/// # Safety
/// `discoveries` holds `3 * count` words, each vertex and parent `< n`, each
/// vertex distinct; `levels` and `parents` have `n` entries, the `visited`
/// bitmap `ceil(n / 32)` words.
///
/// # Launch
/// Grid `ceil(count / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE), no shared memory.
///
/// # Thread mapping
/// Thread `i` marks triple `i`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hybrid_cpu_mark(
    discoveries: *const u32,
    count: u32,
    visited: *mut u32,
    levels: *mut u32,
    parents: *mut u32,
) {
    let index = gpu::global_thread_index();
    if index >= count {
        return;
    }
    // SAFETY: `index < count` and the triples hold distinct vertices `< n`
    // (the contract above), so each thread writes its own vertex.
    unsafe {
        let triple = discoveries.add(3 * index as usize);
        let vertex = *triple;
        mark_visited(visited, vertex);
        *parents.add(vertex as usize) = *triple.add(1);
        *levels.add(vertex as usize) = *triple.add(2);
    }
}
