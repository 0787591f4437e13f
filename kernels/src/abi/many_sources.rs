//! The contract of `many_sources`: batches of searches from many sources
//! at once, a bit per source in each vertex's words (MS-BFS).
//!
//! A batch of `32 * words` sources keeps three bitmaps of `words` 32-bit
//! words a vertex, vertex-major (vertex `v`'s words at `v * words ..`):
//! `visited`, `frontier` (the vertices at the level just reached) and
//! `next`. Bit `b` of word `w` stands for the batch's source `32 * w + b`.
//! A *group* of `words` lanes (a power of two, at most a warp) holds one
//! vertex, a lane a word.

use crate::abi::{EdgeOffset, entry_points};

entry_points! {
    /// `many_sources_start`: places the batch's sources.
    pub const START: Kernel<(Step,)> = Kernel::new("many_sources_start");
    /// `many_sources_queue`: queues the frontier from its bitmap.
    pub const QUEUE: Kernel<(Step,)> = Kernel::new("many_sources_queue");
    /// `many_sources_top_down`: expands the frontier's chunks of edges.
    pub const TOP_DOWN: Kernel<(Step,)> = Kernel::new("many_sources_top_down");
    /// `many_sources_settle`: takes what a top-down level found.
    pub const SETTLE: Kernel<(Step,)> = Kernel::new("many_sources_settle");
    /// `many_sources_bottom_up`: every unfinished vertex gathers its
    /// neighbours' frontier words.
    pub const BOTTOM_UP: Kernel<(Step,)> = Kernel::new("many_sources_bottom_up");
    /// `many_sources_bottom_up_heavy`: the chunks of the long in-lists,
    /// gathered before [`BOTTOM_UP`] takes their vertices' bits.
    pub const BOTTOM_UP_HEAVY: Kernel<(Step,)> = Kernel::new("many_sources_bottom_up_heavy");
}

/// Threads a block.
pub const BLOCK_SIZE: u32 = 256;

/// The most words a vertex (sources a batch / 32): a group is at most a warp.
pub const MOST_WORDS: u32 = 32;

/// Edges of a top-down chunk: a lane each, a warp a chunk.
pub const CHUNK_EDGES: u32 = 32;

/// Bit planes of a lane's counters of the sources' vertices at a level
/// (bit-sliced: plane `i` holds bit `i` of each of the word's 32 counts):
/// a lane flushes them before it has taken `2^COUNTER_PLANES - 1` vertices.
pub const COUNTER_PLANES: usize = 16;

/// Dynamic shared memory of the kernels that count a level's vertices
/// (`BOTTOM_UP`, `SETTLE`): a block's counts, one a source of the batch,
/// added into the level's once a block.
pub const fn counting_shared_bytes(words: u32) -> u32 {
    4 * 32 * words
}

/// In-neighbours a bottom-up group loads before it looks whether every
/// bit is set: loads in flight, against edges read past the last bit.
pub const GATHER_AHEAD: u32 = 4;

/// Waits for loads a bottom-up group may spend on one list or chunk of a
/// list, each wait [`GATHER_AHEAD`] loads of its lanes at most: a longer
/// in-list is *heavy*, cut into chunks that groups all over the grid
/// gather at once, so that no group walks a hub's list alone while the
/// grid waits for it.
pub const HEAVY_WAITS: u32 = 32;

/// Edges of a heavy chunk, and the longest light in-list, for a batch of
/// `words` words a vertex: [`HEAVY_WAITS`] waits of as many loads as a
/// group has in flight (`words` lanes, [`GATHER_AHEAD`] neighbours each
/// at most).
pub const fn heavy_chunk_edges(words: u32) -> u32 {
    let lanes_in_flight = if words < GATHER_AHEAD {
        words
    } else {
        GATHER_AHEAD
    };
    HEAVY_WAITS * lanes_in_flight
}

/// What a level's kernels count as they go, read by the host after it:
/// the next frontier (its vertices, their edges, its top-down chunks), the
/// vertices that a top-down level touched, and the edges of the vertices
/// whose every source bit is set at this level.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelFigures {
    /// Vertices of the next frontier (its queue's length).
    pub frontier_vertices: u64,
    /// Their edges, gapbs's `scout_count`.
    pub frontier_edges: u64,
    /// Their edges, each as many times as its tail has non-zero frontier
    /// words: the word reads a top-down level over them takes.
    pub frontier_word_edges: u64,
    /// Their chunks of [`CHUNK_EDGES`] (its chunk list's length).
    pub frontier_chunks: u64,
    /// Vertices a top-down level touched (`touched_queue`'s length).
    pub touched: u64,
    /// In-edges of the vertices whose every source bit is now set.
    pub finished_edges: u64,
}

const _: () = assert!(core::mem::size_of::<LevelFigures>() == 48);

/// The graph as a batch's kernels read it: the rows a frontier is expanded
/// along, and the rows each vertex gathers its neighbours' words from (its
/// in-neighbours: the same rows where the graph is symmetric, its
/// transpose's where not).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Rows {
    /// Out-rows: `n + 1` offsets, and their columns.
    pub out_offsets: *const EdgeOffset,
    pub out_columns: *const u32,
    /// In-rows: `n + 1` offsets, and their columns.
    pub in_offsets: *const EdgeOffset,
    pub in_columns: *const u32,
    /// Vertices.
    pub vertex_count: u32,
    /// Words a vertex: the batch's sources / 32, a power of two, at most
    /// [`MOST_WORDS`] ([`words_for`]).
    pub words: u32,
}

const _: () = assert!(core::mem::size_of::<Rows>() == 40);

/// A batch's bitmaps (`n * words` words each), which the host swaps
/// between levels (`frontier` and `next`), and what its levels share.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Batch {
    pub visited: *mut u32,
    pub frontier: *mut u32,
    pub next: *mut u32,
    /// Which of a frontier vertex's words are non-zero, a word a vertex.
    pub frontier_masks: *mut u32,
    /// The vertices a top-down level touched: a bit each, and their list
    /// (`n`).
    pub touched: *mut u32,
    pub touched_queue: *mut u32,
    /// Each source's count of the vertices found at the level (`32 *
    /// words`; null where not kept).
    pub level_counts: *mut u32,
    /// The valid bits of each word ([`valid_bits`]): the last word's past
    /// the batch's sources are clear (`words` words).
    pub valid_bits: *const u32,
    /// The bits of the sources whose frontier is not empty (`words`
    /// words), which the host sets from the level's counts: only they can
    /// reach a vertex at the next level, so a vertex that has every one
    /// of them is done for the level, though a source that has ended (in
    /// a small component, or with no edges) never reaches it.
    pub live: *const u32,
}

const _: () = assert!(core::mem::size_of::<Batch>() == 72);

/// The heavy in-lists, longer than [`heavy_chunk_edges`] (for the batch's
/// words): their chunks, which [`BOTTOM_UP_HEAVY`] gathers, and the bits
/// each heavy vertex gathered, which [`BOTTOM_UP`] takes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Heavy {
    /// Chunks, triples of a vertex, its heavy ordinal and the chunk's
    /// index in its list (`3 * chunk_count`).
    pub chunks: *const u32,
    /// Each vertex's heavy ordinal, `u32::MAX` where its list is light
    /// (`n`).
    pub ordinals: *const u32,
    /// The bits the chunks of each heavy vertex gathered at this level,
    /// `words` words an ordinal, zero between levels (`BOTTOM_UP` clears
    /// what it takes).
    pub gathered: *mut u32,
    /// Chunks in all.
    pub chunk_count: u32,
    /// Edges of a chunk ([`heavy_chunk_edges`]).
    pub chunk_edges: u32,
}

const _: () = assert!(core::mem::size_of::<Heavy>() == 32);

/// What a batch keeps of its levels beside the counts, where asked: null
/// pointers where not.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Kept {
    /// Per vertex (`n` each): the sources that reached it, their
    /// distances' sum, their distances' reciprocals' sum, the largest.
    pub reached_by: *mut u32,
    pub distance_sums: *mut u64,
    pub reciprocal_sums: *mut f64,
    pub farthest: *mut u32,
    /// Every source's distances, a row of `n` a source in the batch's
    /// order, `-1` where unreached.
    pub distances: *mut i32,
}

const _: () = assert!(core::mem::size_of::<Kept>() == 40);

/// A frontier as a queue: its vertices (`n`) and its chunks, pairs of a
/// vertex and a chunk index (`n + m / CHUNK_EDGES` pairs), with its
/// figures. The host keeps two and alternates them: the frontier's, read,
/// and the next one's, written.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Queue {
    pub vertices: *mut u32,
    pub chunks: *mut u32,
    pub figures: *mut LevelFigures,
}

const _: () = assert!(core::mem::size_of::<Queue>() == 24);

/// Every parameter of the batch's kernels, passed by value: one block,
/// so that a launch passes exactly what the kernels read.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub rows: Rows,
    pub batch: Batch,
    pub kept: Kept,
    pub heavy: Heavy,
    /// The frontier's queue (read) and the next frontier's (written).
    pub current: Queue,
    pub next: Queue,
    /// The batch's sources, for [`START`].
    pub sources: *const u32,
    pub source_count: u32,
    /// The distance of the vertices the level finds.
    pub level: u32,
    /// Non-zero where the sources are the seeds of one search (source 0
    /// of the batch), for [`START`].
    pub seeds: u32,
}

const _: () = assert!(core::mem::size_of::<Step>() == 40 + 72 + 40 + 32 + 24 + 24 + 24);

/// The valid bits of word `word` of a batch of `sources` sources.
pub const fn valid_bits(sources: u32, word: u32) -> u32 {
    let first = word * 32;
    if sources >= first + 32 {
        u32::MAX
    } else if sources > first {
        (1u32 << (sources - first)) - 1
    } else {
        0
    }
}

/// Words a vertex for a batch of `sources`: the least power of two whose
/// words hold them, at most [`MOST_WORDS`].
pub const fn words_for(sources: u32) -> u32 {
    let words = sources.div_ceil(32);
    if words <= 1 {
        1
    } else if words >= MOST_WORDS {
        MOST_WORDS
    } else {
        words.next_power_of_two()
    }
}
