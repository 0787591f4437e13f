//! Kernel entry point of the `hierarchy-sweep` variant (its levels and
//! parents come from `chain_contracted`'s kernels).

use super::entry_points;

entry_points! {
    /// Sweeps a contraction hierarchy over the kept vertices up and down,
    /// level by level, in one block. Its parameters: the levels' starts and
    /// wide ends, the level count, the lower and higher rows and arcs, the
    /// kept count, the two seeds each with its distance, whether the
    /// distances are in shared memory, the kept levels and the work
    /// counters.
    pub const SEARCH: Kernel<Search> = Kernel::new("hierarchy_sweep_search");
    /// The same sweeps by every block of a cooperative launch, a grid
    /// barrier a level, the distances in global memory: for hierarchies
    /// too large for one block's shared memory. Its parameters: those of
    /// [`SEARCH`] to the second seed's distance, then the kept levels, the
    /// grid barrier's words, the flags and the work counters.
    pub const GRID_SEARCH: Kernel<GridSearch> = Kernel::new("hierarchy_sweep_grid_search");
}

/// The parameters of [`SEARCH`].
pub type Search = (
    *const u32,
    *const u32,
    u32,
    *const u32,
    *const u32,
    *const u32,
    *const u32,
    u32,
    u32,
    u32,
    u32,
    u32,
    u32,
    *mut u32,
    *mut u64,
);

/// The parameters of [`GRID_SEARCH`].
pub type GridSearch = (
    *const u32,
    *const u32,
    u32,
    *const u32,
    *const u32,
    *const u32,
    *const u32,
    u32,
    u32,
    u32,
    u32,
    u32,
    *mut u32,
    *mut u64,
    *mut u32,
    *mut u64,
);

/// Threads per block of `hierarchy_sweep_grid_search` (its launch bound).
pub const GRID_BLOCK_SIZE: u32 = 512;

/// Dynamic shared memory of `hierarchy_sweep_grid_search`: the grid
/// barrier's word.
pub const GRID_SHARED_BYTES: u32 = 4;

/// Threads of the single block of `hierarchy_sweep_search`.
pub const BLOCK_SIZE: u32 = 1024;

/// Words of `hierarchy_sweep_search`'s shared memory before its distances:
/// three rotating flags, set by a core round that lowered a distance.
pub const HEADER_WORDS: u32 = 3;

/// Shared memory of `hierarchy_sweep_search`, in bytes: the header, and a
/// distance per kept vertex when they are kept there.
pub const fn shared_bytes(kept_count: u32, distances_in_shared: bool) -> u64 {
    let distances = if distances_in_shared { kept_count } else { 0 };
    4 * (HEADER_WORDS + distances) as u64
}
