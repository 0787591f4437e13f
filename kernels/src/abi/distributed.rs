//! Kernel entry points of the multi-GPU search's exchange steps (besides
//! `direction_optimizing`'s, which each GPU runs on its own rows).

/// A top-down level over a GPU's own frontier: labels its own
/// neighbours, sends the others' to their owners.
pub const TOP_DOWN: &str = "distributed_top_down";
/// The same for its hubs' chunks.
pub const EXPAND_HUB_CHUNKS: &str = "distributed_expand_hub_chunks";
/// Applies the claims a GPU received.
pub const APPLY_CLAIMS: &str = "distributed_apply_claims";
/// The GPUs' meeting on the GPU before each reads the others' claims
/// (ranks that can reach each other's memory).
pub const MEET_PEERS: &str = "distributed_meet_peers";
/// A bottom-up level over a GPU's own vertices, summing the found
/// vertices' degrees.
pub const BOTTOM_UP: &str = "distributed_bottom_up";
/// The same over row offsets in 32 bits.
pub const BOTTOM_UP_NARROW: &str = "distributed_bottom_up_narrow";
/// Copies the other GPUs' words of the frontier bitmap from their own
/// bitmaps (ranks that can reach each other's memory).
pub const READ_PEER_FRONTIERS: &str = "distributed_read_peer_frontiers";

/// Sets the bits of every GPU's frontier queue, read where it lies (ranks
/// that can reach each other's memory).
pub const READ_PEER_QUEUES: &str = "distributed_read_peer_queues";
/// Marks the delegates a GPU owns that a level found, in the level's
/// figures.
pub const NOTE_DELEGATES: &str = "distributed_note_delegates";
/// Lists the frontier's delegates and their chunks on a GPU.
pub const LIST_DELEGATES: &str = "distributed_list_delegates";
/// Expands a GPU's pieces of the listed delegates' lists.
pub const EXPAND_DELEGATES: &str = "distributed_expand_delegates";

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
