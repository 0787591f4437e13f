//! Kernel entry point of the `persistent` variant.

use super::{EdgeOffset, entry_points};

entry_points! {
    /// Runs every level in one cooperative launch. Its parameters: the
    /// row offsets and columns, the queue, the frontier's start and size in
    /// it, the staged rows and their capacity, the grid barrier's words,
    /// the visited bitmap, the levels, the parents, the reached level, the
    /// first level and the frontier size at which the kernel hands back.
    pub const LEVELS: Kernel<Levels> = Kernel::new("persistent_levels");
}

/// The parameters of [`LEVELS`].
pub type Levels = (
    *const EdgeOffset,
    *const u32,
    *mut u32,
    u32,
    u32,
    *mut EdgeOffset,
    u32,
    *mut u64,
    *mut u32,
    *mut u32,
    *mut u32,
    *mut u32,
    u32,
    u32,
);

/// Threads per block of `persistent_levels` (one block per multiprocessor).
pub const BLOCK_SIZE: u32 = 1024;

/// Most entries of each frontier whose rows `persistent_levels` stages for
/// the next level (the host stages at most `n / 128`, so the staging, two
/// halves of `(first, end)` pairs, takes no more than a bitmap's bytes).
pub const STAGED_ROWS: u32 = 16384;

/// Dynamic shared memory of `persistent_levels`: the barrier's count.
pub const SHARED_BYTES: u32 = 4;
