//! Kernel entry points of the multi-GPU search's exchange steps (besides
//! `direction_optimizing`'s, which each GPU runs on its own rows).

use super::{EdgeOffset, entry_points, in_global};

entry_points! {
    /// A top-down level over a GPU's own frontier: labels its own
    /// neighbours, sends the others' to their owners. Its parameters: the
    /// owned vertices, the outbox, the columns of the owned rows, the
    /// frontier queue, its size, and its level.
    pub const TOP_DOWN: Kernel<Expansion> = Kernel::new("distributed_top_down");
    /// The same for its hubs' chunks (the "frontier" is the chunk list).
    pub const EXPAND_HUB_CHUNKS: Kernel<Expansion> = Kernel::new("distributed_expand_hub_chunks");
    /// Applies the claims a GPU received. Its parameters: the owned vertices,
    /// each sender's region's and count's addresses, the regions' capacity,
    /// this rank, the round, the level's status and received pairs (its
    /// figures'), and the level.
    pub const APPLY_CLAIMS: Kernel<Application> = Kernel::new("distributed_apply_claims");
    /// The GPUs' meeting on the GPU before each reads the others' claims
    /// (ranks that can reach each other's memory). Its parameters: this
    /// rank's signals, every rank's signals' address, the rank, the
    /// ranks, the round's sequence number, the timeout in nanoseconds and
    /// the level's status.
    pub const MEET_PEERS: Kernel<MeetPeers> = Kernel::new("distributed_meet_peers");
    /// A bottom-up level over a GPU's own vertices, summing the found
    /// vertices' degrees.
    pub const BOTTOM_UP: Kernel<BottomUp<EdgeOffset>> = Kernel::new("distributed_bottom_up");
    /// The same over row offsets in 32 bits.
    pub const BOTTOM_UP_NARROW: Kernel<BottomUp<u32>> = Kernel::new("distributed_bottom_up_narrow");
    /// Copies the other GPUs' words of the frontier bitmap from their own
    /// bitmaps (ranks that can reach each other's memory). Its parameters:
    /// the frontier and visited bitmaps, every rank's bitmap's address,
    /// the ranks' word bounds and this rank.
    pub const READ_PEER_FRONTIERS: Kernel<PeerReading> =
        Kernel::new("distributed_read_peer_frontiers");
    /// Sets the bits of every GPU's frontier queue, read where it lies
    /// (ranks that can reach each other's memory). Its parameters: the
    /// frontier and visited bitmaps, every rank's queue's address, their
    /// sizes and this rank.
    pub const READ_PEER_QUEUES: Kernel<PeerReading> = Kernel::new("distributed_read_peer_queues");
    /// Marks the delegates a GPU owns that a level found, in the level's
    /// figures. Its parameters: the delegates' ids, the owned ones' first and
    /// end, the owned vertices' levels, the first owned vertex, the level,
    /// and the bits.
    pub const NOTE_DELEGATES: Kernel<DelegateNote> = Kernel::new("distributed_note_delegates");
    /// Lists the frontier's delegates and their chunks on a GPU. Its
    /// parameters: the delegates' row offsets, their count, the frontier's
    /// bits, the listed delegates and their counter.
    pub const LIST_DELEGATES: Kernel<ListDelegates> = Kernel::new("distributed_list_delegates");
    /// Expands a GPU's pieces of the listed delegates' lists. Its
    /// parameters: the owned vertices, the pieces' rows and columns, the
    /// delegates' ids, the listed delegates and their counter, and the level.
    pub const EXPAND_DELEGATES: Kernel<DelegateExpansion> =
        Kernel::new("distributed_expand_delegates");
}

/// The parameters of [`MEET_PEERS`].
pub type MeetPeers = (*mut u32, *const u64, u32, u32, u32, u64, *mut u32);

/// The parameters of [`LIST_DELEGATES`].
pub type ListDelegates = (*const EdgeOffset, u32, *const u32, *mut u32, *mut u64);

/// The parameters of [`BOTTOM_UP`] (`O` = [`EdgeOffset`]) and
/// [`BOTTOM_UP_NARROW`] (`O` = `u32`): those of
/// [`direction_optimizing::BOTTOM_UP`](super::direction_optimizing::BOTTOM_UP)
/// over the owned vertices, then the found edges' sum.
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
    *mut u64,
);

/// The parameters of [`READ_PEER_FRONTIERS`] and [`READ_PEER_QUEUES`].
pub type PeerReading = (*mut u32, *mut u32, *const u64, *const u32, u32);

/// The parameters of [`TOP_DOWN`] and [`EXPAND_HUB_CHUNKS`].
pub type Expansion = (Owned, Outbox, *const u32, *const u32, u32, u32);

/// The parameters of [`NOTE_DELEGATES`].
pub type DelegateNote = (*const u32, u32, u32, *const u32, u32, u32, *mut u32);

/// The parameters of [`EXPAND_DELEGATES`].
pub type DelegateExpansion = (
    Owned,
    *const EdgeOffset,
    *const u32,
    *const u32,
    *const u32,
    *const u64,
    u32,
);

/// The parameters of [`APPLY_CLAIMS`].
pub type Application = (
    Owned,
    *const u64,
    *const u64,
    u32,
    u32,
    u32,
    *mut u32,
    *mut u64,
    u32,
);

/// What a GPU holds of the vertices it owns, `first_vertex..end_vertex`,
/// as its exchange kernels take them: their rows, levels and parents
/// (indexed from `first_vertex`), the visited bitmap over every vertex,
/// and the next frontier's queue (global ids), its size and its edges.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Owned {
    /// The owned vertices' rows: `end_vertex - first_vertex + 1` offsets.
    pub row_offsets: *const EdgeOffset,
    /// The visited bitmap over every vertex, `ceil(n / 32)` words.
    pub visited: *mut u32,
    /// The owned vertices' levels.
    pub levels: *mut u32,
    /// The owned vertices' parents.
    pub parents: *mut u32,
    /// The next frontier's queue, room for every owned vertex.
    pub next_queue: *mut u32,
    /// The next queue's size, one `u32`.
    pub next_size: *mut u32,
    /// The next queue's vertices' degrees, summed: one `u64`.
    pub next_edges: *mut u64,
    /// The first vertex owned.
    pub first_vertex: u32,
    /// One past the last vertex owned.
    pub end_vertex: u32,
}

const _: () = assert!(size_of::<Owned>() == 64);

/// Where a GPU's claims for the other GPUs go: a region of `capacity`
/// pairs for each other rank (in rank order, two words a pair: the vertex,
/// then its parent), counted in `counts` (one `u64` for each rank); rank
/// `r` owns the vertices below `rank_ends[r]` and from the rank before's
/// end.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Outbox {
    /// The regions, `ranks - 1` of `capacity` pairs.
    pub regions: *mut u32,
    /// Each destination rank's count of claims (its own unused).
    pub counts: *mut u64,
    /// Where each rank's vertices end, ascending, the last `n`.
    pub rank_ends: *const u32,
    /// Pairs in a region.
    pub capacity: u32,
    /// This GPU's rank.
    pub rank: u32,
}

const _: () = assert!(size_of::<Outbox>() == 32);

in_global!(Owned {
    row_offsets,
    visited,
    levels,
    parents,
    next_queue,
    next_size,
    next_edges
});

in_global!(Outbox {
    regions,
    counts,
    rank_ends
});

/// A GPU's figures of a level, as the GPUs all-gather them: the
/// vertices it found (a `u32` word, its next queue's size), the level's
/// status (word [`STATS_STATUS_WORD`]), their edges (a `u64`, from word
/// [`STATS_EDGES_WORD`]) and the claims it read from the other GPUs (a
/// `u64`, from word [`STATS_RECEIVED_WORD`]).
pub const STATS_WORDS: usize = 6;
/// Where a level's figures hold its status: 0; `r + 1` where claims of
/// round `r` overran a region (the level runs round `r + 1`); or
/// [`MEETING_FAILED`].
pub const STATS_STATUS_WORD: usize = 1;
/// Where a level's figures hold the found vertices' edges.
pub const STATS_EDGES_WORD: usize = 2;
/// Where a level's figures hold the claim pairs read from the other GPUs.
pub const STATS_RECEIVED_WORD: usize = 4;
/// The status of a level whose GPUs' meeting timed out: a rank never came.
pub const MEETING_FAILED: u32 = u32::MAX;

/// Pairs a thread of `distributed_apply_claims` applies, a block's
/// width apart: their loads and atomics in flight together
/// (docs/decisions.md, "Several GPUs").
pub const CLAIMS_PER_THREAD: u32 = 4;

/// Queue entries a thread of `distributed_read_peer_queues` reads, a
/// block's width apart: their loads from the other GPU in flight
/// together.
pub const PEER_WORDS_PER_THREAD: u32 = 4;

/// Quads (16 bytes) of bitmap words a thread of
/// `distributed_read_peer_frontiers` copies, a block's width apart: their
/// loads from the other GPU in flight together.
pub const PEER_QUADS_PER_THREAD: u32 = 2;
