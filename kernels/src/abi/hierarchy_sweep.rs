//! Kernel entry point of the `hierarchy-sweep` variant (its levels and
//! parents come from `chain_contracted`'s kernels).

use super::{entry_points, in_global};

entry_points! {
    /// Sweeps a contraction hierarchy over the kept vertices up and down,
    /// level by level, in one block. Its parameters: the hierarchy, the
    /// seeds, whether the distances are in shared memory, the kept levels
    /// and the work counters.
    pub const SEARCH: Kernel<Search> = Kernel::new("hierarchy_sweep_search");
    /// The same sweeps by every block of a cooperative launch, a grid
    /// barrier a level, the distances in global memory: for hierarchies
    /// too large for one block's shared memory. Its parameters: the
    /// hierarchy, the seeds, the kept levels, the grid barrier's words, the
    /// flags and the work counters.
    pub const GRID_SEARCH: Kernel<GridSearch> = Kernel::new("hierarchy_sweep_grid_search");
}

/// The parameters of [`SEARCH`].
pub type Search = (Hierarchy, Seeds, u32, *mut u32, *mut u64);

/// The parameters of [`GRID_SEARCH`].
pub type GridSearch = (Hierarchy, Seeds, *mut u32, *mut u64, *mut u32, *mut u64);

/// A contraction hierarchy over the kept vertices, as the sweeps read it:
/// the vertices renumbered level by level, so a level is a range.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Hierarchy {
    /// The first vertex of each level, then `kept_count`: `level_count + 1`
    /// entries.
    pub level_starts: *const u32,
    /// The end of each level's wide vertices (the host puts them first).
    pub wide_ends: *const u32,
    /// `kept_count + 1` offsets into `lower_arcs`.
    pub lower_rows: *const u32,
    /// Each lower arc's head (a kept index) and weight (at least 1): a
    /// vertex's arcs to vertices of lower levels.
    pub lower_arcs: *const u32,
    /// `kept_count + 1` offsets into `higher_arcs`.
    pub higher_rows: *const u32,
    /// The same, to vertices of higher levels, and within the core.
    pub higher_arcs: *const u32,
    /// Levels, the core (the vertices left uncontracted) the last.
    pub level_count: u32,
    /// Kept vertices.
    pub kept_count: u32,
}

const _: () = assert!(core::mem::size_of::<Hierarchy>() == 56);

in_global!(Hierarchy {
    level_starts,
    wide_ends,
    lower_rows,
    lower_arcs,
    higher_rows,
    higher_arcs
});

/// Where a search starts in the hierarchy: one or two kept vertices, each
/// with its distance from the source (a source inside a chain reaches the
/// chain's two ends).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Seeds {
    pub first: u32,
    pub first_distance: u32,
    /// `chain_contracted::NO_ENTRY` where the source is kept.
    pub second: u32,
    pub second_distance: u32,
}

const _: () = assert!(core::mem::size_of::<Seeds>() == 16);

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
