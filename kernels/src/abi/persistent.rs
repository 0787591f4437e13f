//! Kernel entry point of the `persistent` variant.

/// Runs every level in one cooperative launch.
pub const LEVELS: &str = "persistent_levels";

/// Threads per block of `persistent_levels` (one block per multiprocessor).
pub const BLOCK_SIZE: u32 = 1024;

/// Most entries of each frontier whose rows `persistent_levels` stages for
/// the next level (the host stages at most `n / 128`, so the staging, two
/// halves of `(first, end)` pairs, takes no more than a bitmap's bytes).
pub const STAGED_ROWS: u32 = 16384;

/// Dynamic shared memory of `persistent_levels`: the barrier's count.
pub const SHARED_BYTES: u32 = 4;
