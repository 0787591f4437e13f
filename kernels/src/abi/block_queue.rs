//! Kernel entry point of the `block-queue` variant (also used by
//! `small-frontier` and `hybrid-cpu` for large frontiers).

use super::entry_points;
use super::frontier::FrontierLevel;

/// Entries of a block's private queue in `block_queue_expand` (Kirk & Hwu's `BLOCK_QUEUE_SIZE`).
pub const CAPACITY: u32 = 2048;

/// Dynamic shared memory of `block_queue_expand`: tail, start, then the queue.
pub const fn shared_bytes() -> u32 {
    4 * (2 + CAPACITY)
}

entry_points! {
    /// Expands the frontier through a block-private queue.
    pub const EXPAND: Kernel<(FrontierLevel,)> = Kernel::new("block_queue_expand");
    /// The same with plain loads instead of the read-only cache (benchmarks only).
    pub const EXPAND_PLAIN_LOADS: Kernel<(FrontierLevel,)> =
        Kernel::new("block_queue_expand_plain_loads");
}
