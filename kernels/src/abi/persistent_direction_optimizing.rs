//! Kernel entry point of the `persistent-direction-optimizing` variant.

use super::{EdgeOffset, entry_points};

entry_points! {
    /// Runs a direction-optimizing search in one cooperative launch.
    pub const SEARCH: Kernel<Search<EdgeOffset>> = Kernel::new("persistent_direction_optimizing");
    /// The same, the row offsets in 32 bits.
    pub const SEARCH_NARROW: Kernel<Search<u32>> =
        Kernel::new("persistent_direction_optimizing_narrow");
}

/// The parameters of [`SEARCH`] (`O` = [`EdgeOffset`]) and
/// [`SEARCH_NARROW`] (`O` = `u32`): the row offsets and columns, the
/// queue, the visited bitmap, the levels, the parents, the three bitmaps,
/// the counters, the vertex count, whether bottom-up levels are allowed,
/// the hubs' chunks and their capacity, and the reached level.
pub type Search<O> = (
    *const O,
    *const u32,
    *mut u32,
    *mut u32,
    *mut u32,
    *mut u32,
    *mut u32,
    *mut u64,
    u32,
    u32,
    *mut u32,
    u32,
    *mut u64,
);

/// Threads per block of `persistent_direction_optimizing`, whose grid is
/// as many blocks as stay resident: smaller blocks than
/// `persistent_levels`' let more threads stay resident when a kernel's
/// registers keep a second 1,024-thread block off a multiprocessor, and
/// bottom-up levels hide their latency with threads.
pub const BLOCK_SIZE: u32 = 512;

/// Counters of each barrier of `persistent_direction_optimizing` (three
/// sets rotate): the barrier's word, whose high half counts the next
/// frontier, the next frontier's edges, and its hubs' chunks.
pub const COUNTERS: u32 = 3;

/// Dynamic shared memory of `persistent_direction_optimizing`: the block's
/// edge count (`u64`), the gather's [`super::direction_optimizing::ListOwner`], the barrier's count
/// (`u32`), padded to 8 bytes.
pub const SHARED_BYTES: u32 =
    8 + size_of::<super::direction_optimizing::ListOwner>() as u32 + 4 + 4;
