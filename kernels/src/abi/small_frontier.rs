//! Kernel entry point of the `small-frontier` variant.

use super::entry_points;
use super::frontier::FrontierLevel;

/// Threads of the single block of `small_frontier_levels`.
pub const BLOCK_SIZE: u32 = 1024;

/// Largest frontier `small_frontier_levels` keeps in shared memory, where
/// the device has room for it (the host lowers it to fit).
pub const CAPACITY: u32 = 4096;

/// Shared words of `small_frontier_levels` before its queues: three
/// rotating counters and the hand-over start.
pub const HEADER_WORDS: u32 = 4;

/// Dynamic shared memory of `small_frontier_levels` for queues of
/// `capacity` entries and a visited bitmap of `visited_words` words kept in
/// shared memory (0: kept in global memory): the header, two queues of a
/// vertex and its row (its first edge, an [`EdgeOffset`](super::EdgeOffset), and its degree:
/// four words) per entry, the bitmap.
pub const fn shared_bytes(capacity: u32, visited_words: u32) -> u32 {
    4 * (HEADER_WORDS + 2 * 4 * capacity + visited_words)
}

entry_points! {
    /// Runs levels in one block while the frontier fits in shared memory.
    pub const LEVELS: Kernel<(FrontierLevel, *mut u32, u32, u32, u32)> =
        Kernel::new("small_frontier_levels");
}
