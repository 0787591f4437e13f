//! The contract of `many_sources::betweenness`: Brandes's two sweeps for a
//! batch of sources at once (`kernels/src/many_sources/betweenness.rs`).
//!
//! A batch of `width` sources (a multiple of 32) keeps, for every vertex
//! and source, the source's distance to the vertex, the number of
//! shortest paths from the source to it (`sigma`, an `f64` as networkx
//! counts them) and the vertex's dependency on the source (`delta`).
//! They are vertex-major: vertex `v`'s values lie at `v * width ..
//! (v + 1) * width`, the batch's source `i` at column `i`, so a warp
//! reads one vertex's values for 32 sources, a *word* of the batch, in one
//! coalesced load.
//!
//! The levels' work lists hold *entries*, `vertex * words + word`: the
//! (vertex, word) pairs in which some source of the word has the vertex at
//! that level. Each level's entries follow the previous level's in one
//! array, `level_starts[d]` where level `d`'s begin; a pair enters a
//! level's list once (`queued_at` holds the last level it entered), and
//! at most 32 levels' lists (one a source of its word), so `n * width`
//! entries always suffice.
//!
//! Both sweeps go along the graph's out-rows ([`Rows`]): backward too, a
//! vertex's dependency gathering its successors', so a directed graph
//! needs no reverse.

use super::{Rows, entry_points, in_global};

entry_points! {
    /// `betweenness_start`: each source at distance 0 from itself, by one
    /// shortest path; level 0's entries.
    pub const START: Kernel<(Paths, Levels, *const u32, u32)> = Kernel::new("betweenness_start");
    /// `betweenness_forward`: every level's distances and path counts, in
    /// one cooperative launch.
    pub const FORWARD: Kernel<(Rows, Paths, Levels)> = Kernel::new("betweenness_forward");
    /// `betweenness_backward`: every level's dependencies, deepest first, in
    /// one cooperative launch, added into the scores.
    pub const BACKWARD: Kernel<(Rows, Paths, Levels, Scores)> = Kernel::new("betweenness_backward");
    /// `betweenness_reached`: the vertices each source reaches (for
    /// networkx's `endpoints`).
    pub const REACHED: Kernel<(Paths, u32, *mut u32)> = Kernel::new("betweenness_reached");
}

/// Threads a block of every kernel.
pub const BLOCK_SIZE: u32 = 512;

/// Dynamic shared memory of [`FORWARD`] and [`BACKWARD`]: the grid
/// barrier's count.
pub const SHARED_BYTES: u32 = 4;

/// Vertices a warp of [`REACHED`] counts over, for one word.
pub const REACHED_SPAN: u32 = 1024;

/// The most sources a batch takes: a vertex's columns are at most 128
/// words, and `n * width` entries must fit the device's memory.
pub const MOST_WIDTH: u32 = 4096;

/// The batch's per-(vertex, source) values, vertex-major (`n * width`
/// each).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Paths {
    /// Distances, [`UNREACHED`](super::UNREACHED) where none.
    pub levels: *mut u32,
    /// Shortest paths from the source, 0 where unreached.
    pub sigma: *mut f64,
    /// Dependencies, written by [`BACKWARD`] for every reached pair.
    pub delta: *mut f64,
    /// Columns a vertex: a multiple of 32, at most [`MOST_WIDTH`].
    pub width: u32,
    /// `width / 32`, a power of two.
    pub words: u32,
}

const _: () = assert!(core::mem::size_of::<Paths>() == 32);

/// The levels' entries and what the cooperative launches share.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Levels {
    /// Every level's entries, one level's after another's (`n * width`).
    pub entries: *mut u32,
    /// The last level each (vertex, word) entered, `u32::MAX` before any
    /// (`n * words`).
    pub queued_at: *mut u32,
    /// Where each level's entries begin, and the last level's end
    /// (`n + 2`; entries 0 and 1 zero before [`START`]).
    pub level_starts: *mut u64,
    /// Three words of the grid barrier, zero before [`FORWARD`] and
    /// [`BACKWARD`].
    pub level_words: *mut u64,
    /// Written by [`FORWARD`]: the levels it found, the sources' own
    /// included.
    pub level_count: *mut u32,
}

const _: () = assert!(core::mem::size_of::<Levels>() == 40);

/// Where [`BACKWARD`] adds the batch's dependencies: null where not asked.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Scores {
    /// A vertex's dependencies on every source but itself (`n`).
    pub vertices: *mut f64,
    /// Each arc's share of them, in CSR order (`m`).
    pub edges: *mut f64,
    /// Added to a vertex's score for each source that reaches it, itself
    /// left out: 1 for networkx's `endpoints`, else 0.
    pub endpoint: f64,
}

const _: () = assert!(core::mem::size_of::<Scores>() == 24);

/// The words a vertex of a batch of `width` columns, `width / 32`.
pub const fn words_of(width: u32) -> u32 {
    width / 32
}

in_global!(Paths {
    levels,
    sigma,
    delta
});

in_global!(Levels {
    entries,
    queued_at,
    level_starts,
    level_words,
    level_count
});
