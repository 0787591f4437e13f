//! The parameter block of one level over a frontier queue, which every
//! queue kernel takes: `global_queue_expand`, `block_queue_expand`,
//! `hierarchical_queue_expand`, `small_frontier_levels`,
//! `direction_optimizing_top_down` and `hub_chunks_expand` (whose
//! "frontier" is a list of hubs' chunks).
//!
//! Encodings: `visited` is a bitmap, bit `v % 32` of word `v / 32` set once
//! `v` is claimed; `levels` and `parents` hold [`UNREACHED`](super::UNREACHED)
//! for a vertex not reached; `*next_frontier_size` counts the entries of
//! `next_frontier`.

use super::{EdgeOffset, in_global};

/// A level's graph, frontier, next frontier and labels, as device
/// addresses, passed by value.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct FrontierLevel {
    /// The rows: `n + 1` offsets into `column_indices`.
    pub row_offsets: *const EdgeOffset,
    /// The rows' neighbours, each `< n`.
    pub column_indices: *const u32,
    /// The frontier: `frontier_size` vertex ids.
    pub frontier: *const u32,
    /// Where the next frontier goes, with room for every vertex not yet
    /// claimed.
    pub next_frontier: *mut u32,
    /// The next frontier's size, one `u32`.
    pub next_frontier_size: *mut u32,
    /// The visited bitmap, `ceil(n / 32)` words.
    pub visited: *mut u32,
    /// Each vertex's level, `n` entries.
    pub levels: *mut u32,
    /// Each vertex's parent, `n` entries.
    pub parents: *mut u32,
    /// Vertices in the frontier.
    pub frontier_size: u32,
    /// The frontier's level; the vertices it claims get `level + 1`.
    pub level: u32,
}

const _: () = assert!(size_of::<FrontierLevel>() == 72);

in_global!(FrontierLevel {
    row_offsets,
    column_indices,
    frontier,
    next_frontier,
    next_frontier_size,
    visited,
    levels,
    parents
});
