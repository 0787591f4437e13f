//! Kernel entry point of the `vertex-levels` variant.

use super::{EdgeOffset, entry_points};

entry_points! {
    /// Expands every vertex at the current level. Its parameters: the rows and
    /// columns, the levels and parents, the flag of a discovery, `n`, and the
    /// level.
    pub const STEP: Kernel<Step> = Kernel::new("vertex_levels_step");
}

/// The parameters of [`STEP`].
pub type Step = (
    *const EdgeOffset,
    *const u32,
    *mut u32,
    *mut u32,
    *mut u32,
    u32,
    u32,
);
