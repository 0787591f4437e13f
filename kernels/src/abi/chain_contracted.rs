//! Kernel entry points of the `chain-contracted` variant.

use super::{EdgeOffset, entry_points};

entry_points! {
    /// Searches the contracted graph (junctions joined by weighted chains)
    /// in one block, label-correcting, round by round. Its parameters: the
    /// contracted rows and arcs, the kept count, the two seeds each with
    /// its distance, the near–far delta, the queue capacity, the scratch
    /// region, the kept vertices' levels and the work counters.
    pub const SEARCH: Kernel<Search> = Kernel::new("chain_contracted_search");
    /// Gives every vertex its level from its junction's label or its
    /// chain's two ends. Its parameters: the places, the chains, the kept
    /// levels, the vertex count, the source, its chain and position, the
    /// levels and the parents.
    pub const LEVELS: Kernel<Levels> = Kernel::new("chain_contracted_levels");
    /// Gives every reached vertex a parent: a neighbour one level up. Its
    /// parameters: the row offsets and columns, the levels, the vertex
    /// count and the parents.
    pub const PARENTS: Kernel<Parents> = Kernel::new("chain_contracted_parents");
}

/// The parameters of [`SEARCH`].
pub type Search = (
    *const u32,
    *const u32,
    u32,
    u32,
    u32,
    u32,
    u32,
    u32,
    u32,
    *mut u32,
    *mut u32,
    *mut u64,
);

/// The parameters of [`LEVELS`].
pub type Levels = (
    *const u32,
    *const u32,
    *const u32,
    u32,
    u32,
    u32,
    u32,
    *mut u32,
    *mut u32,
);

/// The parameters of [`PARENTS`].
pub type Parents = (*const EdgeOffset, *const u32, *const u32, u32, *mut u32);

/// Threads of the single block of `chain_contracted_search`.
pub const BLOCK_SIZE: u32 = 1024;

/// A vertex's place, first word: set for a vertex inside a chain (the rest
/// is its chain's index), clear for a kept vertex (the rest is its index
/// among the kept ones). The second word is the vertex's position along
/// its chain (1 to the chain's length − 1; 0 for a kept vertex).
pub const IN_CHAIN: u32 = 1 << 31;

/// No vertex or no chain, where a parameter may name none (a second seed,
/// the source's chain when the source is kept).
pub const NO_ENTRY: u32 = u32::MAX;

/// Words of a chain's entry: its two ends (kept indices), its length
/// (edges from one end to the other) and one word of padding, so an entry
/// is one aligned 16-byte load.
pub const CHAIN_WORDS: u32 = 4;

/// Where `chain_contracted_search` keeps each array, in 32-bit words from
/// the start of its region (the block's shared memory when it fits there,
/// else a global scratch buffer): the header (three rotating queue sizes,
/// two rotating far-pile minima), a label per kept vertex (its distance),
/// the contracted rows (copied in, `kept_count + 1` words), two queues of
/// `queue_capacity` entries (vertices, then the distances they were
/// lowered to), two bitmaps of a bit per kept vertex (queued
/// for the next round) and the far pile's bitmap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainContractedLayout {
    /// The labels.
    pub labels: u32,
    /// The rows.
    pub rows: u32,
    /// The two queues, one after the other.
    pub queues: u32,
    /// The two bitmaps, one after the other.
    pub bitmaps: u32,
    /// The far pile's bitmap.
    pub far: u32,
    /// Words of each bitmap.
    pub bitmap_words: u32,
    /// Words in all.
    pub words: u32,
}

/// Words before `chain_contracted_search`'s labels: three rotating queue
/// sizes and two rotating far-pile minima.
pub const HEADER_WORDS: u32 = 5;

impl ChainContractedLayout {
    /// The layout for `kept_count` kept vertices and queues of `queue_capacity`.
    pub const fn new(kept_count: u32, queue_capacity: u32) -> ChainContractedLayout {
        let labels = HEADER_WORDS;
        let rows = labels + kept_count;
        let queues = rows + kept_count + 1;
        let bitmaps = queues + 4 * queue_capacity;
        let bitmap_words = kept_count.div_ceil(32);
        let far = bitmaps + 2 * bitmap_words;
        ChainContractedLayout {
            labels,
            rows,
            queues,
            bitmaps,
            far,
            bitmap_words,
            words: far + bitmap_words,
        }
    }

    /// The region's size in bytes.
    pub const fn bytes(&self) -> u64 {
        4 * self.words as u64
    }
}
