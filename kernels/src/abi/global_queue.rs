//! Kernel entry point of the `global-queue` variant.

/// Expands the frontier queue into the next one.
pub const EXPAND: &str = "global_queue_expand";
