//! Kernel entry point of the `vertex-levels` variant.

/// Expands every vertex at the current level.
pub const STEP: &str = "vertex_levels_step";
