//! The contract of `many_sources::betweenness_blocks`: Brandes's two
//! sweeps with a block a source (`kernels/src/many_sources/betweenness_blocks.rs`).
//!
//! Each block of the launch owns a *slot*: for every vertex a [`Mark`]
//! (its level and a path weight), a queue of the vertices in the order the
//! search reached them, where each level's run of that queue ends, and,
//! where vertex scores are asked for, the slot's own running totals. Slot
//! `b`'s arrays begin at `b * n` (`b * (n + 1)` for the level ends). A
//! block searches its sources one after another, and leaves its marks as
//! it found them: zero.
//!
//! Arcs go along the graph's out-rows ([`Rows`]) in both
//! sweeps, as in `abi::betweenness`; the scores are its [`Scores`].

use super::betweenness::Scores;
use super::{Rows, entry_points, in_global};

entry_points! {
    /// `betweenness_blocks`: every source of the list searched by one block,
    /// forward then backward, its dependencies added into the slot's totals
    /// and its arcs' shares into the arc scores.
    pub const SEARCH: Kernel<(Rows, Slots, *const u32, u32, Scores)> =
        Kernel::new("betweenness_blocks");
    /// `betweenness_blocks_totals`: the slots' totals summed into the vertex
    /// scores, and cleared.
    pub const TOTALS: Kernel<(Slots, *mut f64)> = Kernel::new("betweenness_blocks_totals");
}

/// Threads a block of [`SEARCH`]: a road network's level is a few hundred
/// vertices, so more, smaller blocks keep more sources in flight.
pub const BLOCK_SIZE: u32 = 128;

/// Threads a block of [`TOTALS`].
pub const TOTALS_BLOCK_SIZE: u32 = 256;

/// Dynamic shared memory of [`SEARCH`]: the queue's tail.
pub const SHARED_BYTES: u32 = 4;

/// A vertex in one slot's search. All zero is unreached, so a zeroed slot
/// is ready for a source.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Mark {
    /// The vertex's level plus one; 0 while unreached.
    pub depth: u32,
    /// Keeps `weight` on its own 8 bytes.
    pub unused: u32,
    /// In the forward sweep, the shortest paths from the source (σ); once
    /// the backward sweep has passed the vertex, the coefficient
    /// `(1 + δ) / σ` its predecessors multiply their σ by.
    pub weight: f64,
}

const _: () = assert!(core::mem::size_of::<Mark>() == 16);

/// The launch's slots, one a block.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Slots {
    /// `slots * n` marks, all zero before [`SEARCH`].
    pub marks: *mut Mark,
    /// `slots * n` queued vertices.
    pub queue: *mut u32,
    /// `slots * (n + 1)`: where each level's run of the queue ends.
    pub level_ends: *mut u32,
    /// `slots * n` running vertex totals, zero at first; null where vertex
    /// scores are not asked for.
    pub totals: *mut f64,
    /// `n`.
    pub vertex_count: u32,
    /// Blocks of [`SEARCH`], each its slot.
    pub slots: u32,
}

const _: () = assert!(core::mem::size_of::<Slots>() == 40);

// Not `totals`, which may be null.
in_global!(Slots {
    marks,
    queue,
    level_ends
});
