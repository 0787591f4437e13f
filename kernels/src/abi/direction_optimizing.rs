//! Kernel entry points of the `direction-optimizing` variant (Beamer et al. 2012).

use core::num::NonZeroU64;

use super::frontier::FrontierLevel;
use super::{EdgeOffset, entry_points};

entry_points! {
    /// A top-down level that also sums the new frontier's degrees.
    pub const TOP_DOWN: Kernel<(FrontierLevel, *mut u64)> =
        Kernel::new("direction_optimizing_top_down");
    /// A bottom-up level over the frontier bitmap.
    pub const BOTTOM_UP: Kernel<BottomUp<EdgeOffset>> =
        Kernel::new("direction_optimizing_bottom_up");
    /// The same over row offsets in 32 bits.
    pub const BOTTOM_UP_NARROW: Kernel<BottomUp<u32>> =
        Kernel::new("direction_optimizing_bottom_up_narrow");
    /// Frontier queue to bitmap. Its parameters: the queue, its size and
    /// the bitmap.
    pub const QUEUE_TO_BITMAP: Kernel<QueueToBitmap> =
        Kernel::new("direction_optimizing_queue_to_bitmap");
    /// Frontier bitmap to queue. Its parameters: the bitmap, its first
    /// word and word count, the queue and its size.
    pub const BITMAP_TO_QUEUE: Kernel<BitmapToQueue> =
        Kernel::new("direction_optimizing_bitmap_to_queue");
}

/// The parameters of [`QUEUE_TO_BITMAP`].
pub type QueueToBitmap = (*const u32, u32, *mut u32);

/// The parameters of [`BITMAP_TO_QUEUE`].
pub type BitmapToQueue = (*const u32, u32, u32, *mut u32, *mut u32);

/// The parameters of [`BOTTOM_UP`] (`O` = [`EdgeOffset`]) and
/// [`BOTTOM_UP_NARROW`] (`O` = `u32`): the row offsets and columns, the
/// frontier, next and visited bitmaps, the levels and parents, the level,
/// the vertex count and the awake count.
pub type BottomUp<O> = (
    *const O,
    *const u32,
    *const u32,
    *mut u32,
    *mut u32,
    *mut u32,
    *mut u32,
    u32,
    u32,
    *mut u32,
);

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

/// Beamer's switch between the directions, as gapbs's `DOBFS` takes it:
/// the one rule of every direction-optimizing search here (the CPU
/// engine's and its batches of sources', the level-by-level GPU search's,
/// the search over GPUs' and the persistent kernel's), each passing its own
/// α and β
/// (docs/decisions.md, "Direction-optimizing").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switch {
    /// Go bottom-up once the frontier's edges exceed the unexplored edges
    /// over α.
    pub alpha: NonZeroU64,
    /// Stay bottom-up while the frontier grows or holds more than `n / β`
    /// vertices.
    pub beta: NonZeroU64,
}

impl Switch {
    /// gapbs's α = 15 and β = 18.
    pub const GAPBS: Switch = Switch::new(15, 18);

    /// The switch of `alpha` and `beta`; a zero fails the build, as the
    /// callers' switches are constants. (Inline: never code of its own in
    /// the kernels' module, whose every function must assemble.)
    #[inline]
    pub const fn new(alpha: u64, beta: u64) -> Switch {
        match (NonZeroU64::new(alpha), NonZeroU64::new(beta)) {
            (Some(alpha), Some(beta)) => Switch { alpha, beta },
            _ => panic!("α and β are divisors"),
        }
    }

    /// Whether a top-down search goes bottom-up before the next level:
    /// the frontier's edges (`scout_count`) exceed the edges not yet
    /// explored (`edges_to_check`) over α.
    #[inline(always)]
    pub fn goes_bottom_up(self, scout_count: u64, edges_to_check: u64) -> bool {
        scout_count > edges_to_check / self.alpha
    }

    /// Whether a bottom-up phase goes on after a level that found `awake`
    /// vertices, the level before it `previous`, in a graph of
    /// `vertex_count`: while the frontier grows or is large (more than
    /// `n / β`).
    #[inline(always)]
    pub fn stays_bottom_up(self, awake: u64, previous: u64, vertex_count: u64) -> bool {
        awake >= previous || awake > vertex_count / self.beta
    }
}
