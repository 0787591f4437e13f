//! Kernel entry point of the `hierarchical-queue` variant.

use super::entry_points;
use super::frontier::FrontierLevel;

/// Default number of w-queues per block in `hierarchical_queue_expand`.
pub const SUB_QUEUES: u32 = 8;

/// Most w-queues a block may have (one per lane of a warp).
pub const MAX_SUB_QUEUES: u32 = 32;

/// Entries of each w-queue.
pub const W_QUEUE_CAPACITY: u32 = 64;

/// Entries the b-queue takes directly from full w-queues; past that, vertices
/// go straight to the global queue.
pub const B_QUEUE_DIRECT_CAPACITY: u32 = 2048;

/// Dynamic shared memory of `hierarchical_queue_expand`, in 32-bit words:
/// w-queue tails and offsets, three b-queue counters, the w-queues, and the
/// b-queue (its direct entries plus room to consolidate every w-queue).
pub const fn shared_words(sub_queue_count: u32) -> u32 {
    2 * MAX_SUB_QUEUES + 3 + 2 * sub_queue_count * W_QUEUE_CAPACITY + B_QUEUE_DIRECT_CAPACITY
}

entry_points! {
    /// Expands the frontier through w-queues and the b-queue; its parameters:
    /// the level, and the w-queues a block (at most [`MAX_SUB_QUEUES`]).
    pub const EXPAND: Kernel<(FrontierLevel, u32)> = Kernel::new("hierarchical_queue_expand");
}
