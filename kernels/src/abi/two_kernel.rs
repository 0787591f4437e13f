//! Kernel entry points of the `two-kernel` variant (Rodinia's BFS).

/// Expands every vertex whose frontier mask is set.
pub const EXPAND: &str = "two_kernel_expand";
/// Moves the vertices discovered by `EXPAND` into the next frontier.
pub const UPDATE: &str = "two_kernel_update";
