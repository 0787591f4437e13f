//! Kernel entry points of the `direction-optimizing` variant (Beamer et al. 2012).

use super::EdgeOffset;

/// A top-down level that also sums the new frontier's degrees.
pub const TOP_DOWN: &str = "direction_optimizing_top_down";
/// A bottom-up level over the frontier bitmap.
pub const BOTTOM_UP: &str = "direction_optimizing_bottom_up";
/// The same over row offsets in 32 bits.
pub const BOTTOM_UP_NARROW: &str = "direction_optimizing_bottom_up_narrow";
/// Frontier queue to bitmap.
pub const QUEUE_TO_BITMAP: &str = "direction_optimizing_queue_to_bitmap";
/// Frontier bitmap to queue.
pub const BITMAP_TO_QUEUE: &str = "direction_optimizing_bitmap_to_queue";

/// The thread a block elects to walk its neighbour list with the whole
/// block (in top-down gathering), and the list, in shared memory.
#[repr(C)]
pub struct ListOwner {
    /// The elected thread's index in its block.
    pub thread: u32,
    /// Its frontier vertex.
    pub vertex: u32,
    /// The vertex's row, `row_offsets[vertex]..row_offsets[vertex + 1]`.
    pub edges: (EdgeOffset, EdgeOffset),
}

const _: () = assert!(size_of::<ListOwner>() == 24);

/// Dynamic shared memory of `direction_optimizing_top_down`: the block's
/// edge count (`u64`), then the [`ListOwner`].
pub const TOP_DOWN_SHARED_BYTES: u32 = 8 + size_of::<ListOwner>() as u32;

/// gapbs's α: go bottom-up once the frontier's edges exceed the unexplored edges over α.
pub const ALPHA: u64 = 15;

/// gapbs's β: go back top-down once the frontier has fewer than `n / β` vertices and is shrinking.
pub const BETA: u64 = 18;
