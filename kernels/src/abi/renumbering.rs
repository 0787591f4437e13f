//! Kernel entry point that maps a renumbered search's levels and parents
//! back to the graph's own ids.

use super::entry_points;

entry_points! {
    /// A thread per vertex gathers its level and parent from its new id.
    /// Its parameters: the new ids, the old ids, the renumbered levels and
    /// parents, the vertex count, and the levels and parents by own id.
    pub const GATHER: Kernel<Gather> = Kernel::new("renumbering_gather");
}

/// The parameters of [`GATHER`].
pub type Gather = (
    *const u32,
    *const u32,
    *const u32,
    *const u32,
    u32,
    *mut u32,
    *mut u32,
);
