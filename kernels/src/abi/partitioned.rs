//! Kernel entry point of the `partitioned` variant.

use super::{EdgeOffset, entry_points};

entry_points! {
    /// Searches partitions in shared memory, each block on its own, until
    /// nothing is outstanding. Its parameters: the row offsets and
    /// columns, the vertex count, the partition size, the column capacity,
    /// the level window, then the labels, the dirty bits, the outstanding
    /// count and the counters.
    pub const SEARCH: Kernel<Search> = Kernel::new("partitioned_search");
}

/// The parameters of [`SEARCH`].
pub type Search = (
    *const EdgeOffset,
    *const u32,
    u32,
    u32,
    u32,
    u32,
    *mut u64,
    *mut u32,
    *mut u64,
    *mut u64,
);

/// Threads per block of `partitioned_search` (one block per multiprocessor).
pub const BLOCK_SIZE: u32 = 1024;

/// Shared words of `partitioned_search` before its per-vertex arrays:
/// three rotating queue tails, three rotating seed levels, the dirty bits
/// taken, the outbox's tail, two rotating seed counts, the partition's
/// first edge (an [`EdgeOffset`] at word 10, 8-byte aligned).
pub const HEADER_WORDS: u32 = 12;

/// Dynamic shared memory of `partitioned_search` for partitions of
/// `partition_size` vertices and `column_capacity` neighbours: the header,
/// per vertex a state word, a parent, an entry in each of two level queues
/// and in the outbox, the partition's row offsets (one more than its
/// vertices), its neighbours.
pub const fn shared_bytes(partition_size: u32, column_capacity: u32) -> u32 {
    4 * (HEADER_WORDS + 6 * partition_size + 1 + column_capacity)
}
