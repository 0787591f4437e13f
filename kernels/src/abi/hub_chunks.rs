//! Kernel entry points of the hubs' lists cut into chunks, a block each,
//! for the searches that go level by level from the host.

use super::frontier::FrontierLevel;
use super::{EdgeOffset, entry_points};

entry_points! {
    /// Splits a frontier queue into hub chunks and the other vertices. Its
    /// parameters: the queue and its size, the row offsets, the first
    /// vertex they start at, the degree from which a vertex is delegated,
    /// the light queue and its size, the chunks and their count.
    pub const SPLIT: Kernel<Split> = Kernel::new("hub_chunks_split");
    /// Expands hub chunks, a block each.
    pub const EXPAND: Kernel<(FrontierLevel, *mut u64)> = Kernel::new("hub_chunks_expand");
}

/// The parameters of [`SPLIT`].
pub type Split = (
    *const u32,
    u32,
    *const EdgeOffset,
    u32,
    EdgeOffset,
    *mut u32,
    *mut u32,
    *mut u32,
    *mut u32,
);

/// Edges of a hub's chunk: one per thread of a block. A top-down level
/// treats a frontier vertex of a chunk's edges or more as a hub: its list
/// is cut into chunks that every block shares, instead of being walked by
/// the one block that holds the vertex (`hub_chunks` for the searches that
/// go level by level, `persistent_direction_optimizing` in its grid;
/// docs/decisions.md, "Direction-optimizing").
pub const CHUNK_EDGES: u32 = super::persistent_direction_optimizing::BLOCK_SIZE;

/// The shortest list that `hub_chunks_split` cuts into chunks (of
/// [`CHUNK_EDGES`], the last one short), a block each: a warp's
/// worth. The gather that walks the shorter lists has a block for every
/// [`BLOCK_SIZE`](super::BLOCK_SIZE) frontier vertices, too few where a small frontier holds
/// lists of tens or hundreds of edges: Kronecker 26 has a level whose
/// 1,700 vertices hold 18 million edges, which gave its lists below a
/// chunk to 7 blocks (docs/decisions.md, "Direction-optimizing").
/// (`persistent_direction_optimizing` chunks hubs only: its gather has
/// the whole grid.)
pub const CHUNKED_LIST_EDGES: u32 = 32;

/// The chunks of [`CHUNK_EDGES`] edges that a list of `degree` edges
/// is cut into where lists of `min_edges` or more are: 0 for a shorter
/// list. The kernels and the host, which sizes the chunk list by it,
/// count alike.
pub const fn list_chunks(degree: u32, min_edges: u32) -> u32 {
    if degree >= min_edges {
        degree.div_ceil(CHUNK_EDGES)
    } else {
        0
    }
}

/// Dynamic shared memory of `hub_chunks_expand`: the block's edge count
/// (`u64`), then its count of claimed vertices and their first queue slot.
pub const EXPAND_SHARED_BYTES: u32 = 8 + 4 + 4;

/// Chunk pairs (hub, chunk) the hubs among `edge_count` edges may take: a
/// list of `d >= CHUNK_EDGES` edges takes `ceil(d / CHUNK_EDGES)`
/// chunks, at most twice `d / CHUNK_EDGES`.
pub const fn chunk_capacity(edge_count: u64) -> u64 {
    2 * (edge_count / CHUNK_EDGES as u64) + 1
}
