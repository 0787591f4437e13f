//! # Distributed BFS: a GPU's part of a search over several, owner computes
//!
//! Beamer, Buluç, Asanović & Patterson, "Distributed Memory Breadth-First
//! Search Revisited: Enabling Bottom-Up Search" (IPDPSW 2013), 1D, with
//! the owner-computes top-down exchange of Buluç & Madduri ("Parallel
//! Breadth-First Search on Distributed Memory Systems", SC 2011). Each GPU
//! owns a range of vertices (a multiple of 32 ids, so its bits fill whole
//! bitmap words) and holds only what it must: its vertices' rows, levels
//! and parents, and two bitmaps over every vertex (visited and frontier, a
//! bit a vertex). Vertex `v`'s level and parent lie at `v - first_vertex`
//! on its owner.
//!
//! - **Top-down**, a GPU expands the frontier vertices it owns
//!   ([`distributed_top_down`], hubs' lists in chunks as one GPU does,
//!   [`distributed_expand_hub_chunks`]). A neighbour it owns it labels and
//!   queues at once. Another GPU's neighbour it claims in its own visited
//!   bitmap, so that it sends each vertex at most once, and appends the pair
//!   (vertex, parent) to its claims for that vertex's owner. The GPUs
//!   exchange claims pairwise (all-to-all), and each owner applies what it
//!   received ([`distributed_apply_claims`]): the first claim of a vertex
//!   still unvisited there labels and queues it. A GPU's claims for one
//!   owner have a fixed capacity; a claim past it gives its bit back, and
//!   the host runs the level again, from the same frontier, after the
//!   exchange, until every claim has gone.
//! - **Bottom-up**, the GPUs all-gather the frontier's words they own
//!   (`n / 8` bytes in all), or, where each can reach the others' memory,
//!   read them from the others' bitmaps
//!   ([`distributed_read_peer_frontiers`]), and each checks its own
//!   unvisited vertices on its own rows ([`distributed_bottom_up`],
//!   `direction-optimizing`'s level, which also sums the degrees of what
//!   it finds). A GPU's visited
//!   bitmap holds the other GPUs' vertices only as far as its own claims
//!   set them: enough to send each claim once; the owner decides.
//!
//! After each level the GPUs all-gather each one's count of the vertices
//! it found and their degrees ([`STATS_WORDS`](crate::abi::distributed::STATS_WORDS)
//! words each): the next direction's sums, the same on every GPU.
//!
//! A *claim region* holds `capacity` pairs, two words each (the vertex,
//! then its parent); a GPU has one region for each other GPU, in rank
//! order, to send from and one to receive into. A GPU's claim counts are
//! `u64`s, one for each destination rank (its own unused).

use crate::abi::direction_optimizing;
use crate::abi::distributed::{CLAIMS_PER_THREAD, PEER_WORDS_PER_THREAD};
use crate::abi::{BLOCK_SIZE, EdgeOffset};
use crate::direction_optimizing::{add_block_sum, bottom_up_level, gather_neighbour_lists};
use crate::gpu;
use crate::hub_chunks::chunk_edge;
use crate::visit::{RowOffset, entry_points_by_row_offset, row};

/// What a GPU holds of the vertices it owns, `first_vertex..end_vertex`:
/// their rows, levels and parents (indexed from `first_vertex`), the
/// visited bitmap over every vertex, and the next frontier's queue (global
/// ids) and its size.
#[derive(Clone, Copy)]
struct Owned {
    row_offsets: *const EdgeOffset,
    first_vertex: u32,
    end_vertex: u32,
    visited: *mut u32,
    levels: *mut u32,
    parents: *mut u32,
    next_queue: *mut u32,
    next_size: *mut u32,
}

impl Owned {
    fn owns(&self, vertex: u32) -> bool {
        self.first_vertex <= vertex && vertex < self.end_vertex
    }

    /// Sets `vertex`'s visited bit; whether this thread set it. A plain
    /// read first, as [`claim`](crate::visit::claim) does: most of a large
    /// level's neighbours are visited.
    ///
    /// # Safety
    /// `vertex < n`.
    unsafe fn claim(&self, vertex: u32) -> bool {
        let (word, bit) = (
            self.visited.wrapping_add(vertex as usize / 32),
            1 << (vertex % 32),
        );
        // SAFETY: the word is within the bitmap (the contract); a stale read
        // only sends the thread on to the atomic, which decides.
        unsafe { core::ptr::read_volatile(word) & bit == 0 && gpu::atomic_or(word, bit) & bit == 0 }
    }

    /// Labels owned `vertex`, which this thread claimed, for `level` from
    /// `parent`, queues it (the lanes that queue together with one
    /// atomic) and adds its degree to `edges`.
    ///
    /// # Safety
    /// This thread claimed `vertex`, which this GPU owns; the next queue has
    /// room for every owned vertex.
    unsafe fn label(&self, vertex: u32, parent: u32, level: u32, edges: &mut u64) {
        let local = (vertex - self.first_vertex) as usize;
        // SAFETY: `local` is below the owned count, which the labels, the
        // rows (plus one) and the queue cover; each slot is handed out once.
        unsafe {
            *self.levels.add(local) = level;
            *self.parents.add(local) = parent;
            let (first, end) = row(self.row_offsets, local as u32);
            *edges += end - first;
            let slot = gpu::coalesced_reserve_one(|total| gpu::atomic_add(self.next_size, total));
            *self.next_queue.add(slot as usize) = vertex;
        }
    }
}

/// Where a GPU's claims for the other GPUs go: a region of `capacity`
/// pairs for each other rank, counted in `counts` (one `u64` for each
/// rank); rank `r` owns the vertices below `rank_ends[r]` and from the
/// rank before's end.
#[derive(Clone, Copy)]
struct Outbox {
    regions: *mut u32,
    counts: *mut u64,
    capacity: u32,
    rank_ends: *const u32,
    rank: u32,
}

impl Outbox {
    /// Appends the claim of `vertex` (another GPU's, claimed here) from
    /// `parent` to its owner's region; where that is full, gives the
    /// vertex's bit in `visited` back, so that the level's next round
    /// claims it again.
    ///
    /// # Safety
    /// `vertex < n`, another rank's, claimed by this thread in `visited`.
    unsafe fn send(&self, vertex: u32, parent: u32, visited: *mut u32) {
        // SAFETY: the last rank's end is `n`, past every vertex, so the
        // search stops within `rank_ends`; the region and the count are
        // the owner's; a slot below the capacity is this thread's alone.
        unsafe {
            let mut owner = 0;
            while vertex >= gpu::load_read_only(self.rank_ends.add(owner as usize)) {
                owner += 1;
            }
            let slot = gpu::coalesced_reserve_keyed(owner, |total| {
                let before = gpu::atomic_add_u64(self.counts.add(owner as usize), total as u64);
                // Past 2^31 every slot is past the capacity anyway; held
                // there, the slots of a warp's lanes cannot wrap.
                before.min(1 << 31) as u32
            });
            if slot < self.capacity {
                let region = owner - (owner > self.rank) as u32;
                let pair = self
                    .regions
                    .add(2 * (region as usize * self.capacity as usize + slot as usize));
                *pair = vertex;
                *pair.add(1) = parent;
            } else {
                gpu::atomic_and(visited.add(vertex as usize / 32), !(1 << (vertex % 32)));
            }
        }
    }
}

/// The top-down visit of one edge, from `parent` (owned) to `neighbour`:
/// labels an owned neighbour, sends another GPU's to its owner, once each.
///
/// # Safety
/// As [`Owned::claim`], [`Owned::label`] and [`Outbox::send`].
#[inline(always)]
unsafe fn visit(
    owned: &Owned,
    outbox: &Outbox,
    (neighbour, parent): (u32, u32),
    level: u32,
    edges: &mut u64,
) {
    // SAFETY: forwarded from the caller.
    unsafe {
        if !owned.claim(neighbour) {
            return;
        }
        if owned.owns(neighbour) {
            owned.label(neighbour, parent, level, edges);
        } else {
            outbox.send(neighbour, parent, owned.visited);
        }
    }
}

/// One top-down level over this GPU's frontier queue: each owned
/// frontier vertex's list, walked by its block, its warp or its thread by
/// length ([`gather_neighbour_lists`]), each edge visited as
/// [`Owned`]/[`Outbox`] describe; the degrees of the owned vertices it
/// labels are added to `*next_edges`.
///
/// # Safety
/// `row_offsets` holds the owned vertices' rows (`end_vertex -
/// first_vertex + 1` entries) into `column_indices`, neighbours `< n`;
/// `frontier` holds `frontier_size` owned vertices; `visited` has `ceil(n
/// / 32)` words; `levels`, `parents` and `next_queue` one entry an owned
/// vertex; `next_size` is one `u32`, `next_edges` one `u64`; `claims` has
/// `ranks - 1` regions of `claim_capacity` pairs, `claim_counts` and
/// `rank_ends` one entry a rank (`rank_ends` ascending, the last `n`).
///
/// # Launch
/// Grid `ceil(frontier_size / BLOCK_SIZE)`, block [`BLOCK_SIZE`] (whole
/// warps), shared memory
/// [`direction_optimizing::TOP_DOWN_SHARED_BYTES`](crate::abi::direction_optimizing::TOP_DOWN_SHARED_BYTES).
///
/// # Thread mapping
/// Thread `i` owns `frontier[i]`; its block walks the longest lists of
/// its threads together, its warp the long ones, itself the short one.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn distributed_top_down(
    row_offsets: *const EdgeOffset,
    column_indices: *const u32,
    first_vertex: u32,
    end_vertex: u32,
    frontier: *const u32,
    frontier_size: u32,
    visited: *mut u32,
    levels: *mut u32,
    parents: *mut u32,
    level: u32,
    next_queue: *mut u32,
    next_size: *mut u32,
    next_edges: *mut u64,
    claims: *mut u32,
    claim_counts: *mut u64,
    claim_capacity: u32,
    rank_ends: *const u32,
    rank: u32,
) {
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    let owner_slot = block_edges
        .wrapping_add(1)
        .cast::<direction_optimizing::ListOwner>();
    let owned = Owned {
        row_offsets,
        first_vertex,
        end_vertex,
        visited,
        levels,
        parents,
        next_queue,
        next_size,
    };
    let outbox = Outbox {
        regions: claims,
        counts: claim_counts,
        capacity: claim_capacity,
        rank_ends,
        rank,
    };
    // SAFETY: the launch provides the shared edge count and list owner,
    // every thread of whole warps runs the gathering, and the visits
    // follow the contract.
    unsafe {
        if gpu::thread_index() == 0 {
            *block_edges = 0;
        }
        gpu::sync_threads();
        let index = gpu::global_thread_index();
        let entry = if index < frontier_size {
            let vertex = gpu::load_read_only(frontier.add(index as usize));
            (vertex, row(row_offsets, vertex - first_vertex))
        } else {
            (0, (0, 0))
        };
        let mut edges = 0;
        gather_neighbour_lists(column_indices, owner_slot, entry, |neighbour, parent| {
            visit(&owned, &outbox, (neighbour, parent), level + 1, &mut edges);
        });
        add_block_sum(block_edges, edges, next_edges);
    }
}

/// [`distributed_top_down`] for the hubs' chunks of this GPU's frontier
/// (`hub_chunks_split`'s pairs, global hub ids): block `b` walks chunk
/// `b`, thread `t` its edge `t`.
///
/// # Safety
/// As [`distributed_top_down`], `chunks` holding `chunk_count` pairs of
/// owned hubs and chunk indices within their lists.
///
/// # Launch
/// Grid `chunk_count` (or more: the blocks past it return), block
/// [`hub_chunks::CHUNK_EDGES`](crate::abi::hub_chunks::CHUNK_EDGES), shared memory 8 bytes.
///
/// # Thread mapping
/// Block `b` takes chunk `b`, thread `t` its edge `t`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn distributed_expand_hub_chunks(
    row_offsets: *const EdgeOffset,
    column_indices: *const u32,
    first_vertex: u32,
    end_vertex: u32,
    chunks: *const u32,
    chunk_count: u32,
    visited: *mut u32,
    levels: *mut u32,
    parents: *mut u32,
    level: u32,
    next_queue: *mut u32,
    next_size: *mut u32,
    next_edges: *mut u64,
    claims: *mut u32,
    claim_counts: *mut u64,
    claim_capacity: u32,
    rank_ends: *const u32,
    rank: u32,
) {
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    let chunk = gpu::block_index();
    if chunk >= chunk_count {
        return;
    }
    let owned = Owned {
        row_offsets,
        first_vertex,
        end_vertex,
        visited,
        levels,
        parents,
        next_queue,
        next_size,
    };
    let outbox = Outbox {
        regions: claims,
        counts: claim_counts,
        capacity: claim_capacity,
        rank_ends,
        rank,
    };
    // SAFETY: block `b < chunk_count` reads pair `b`; its hub is owned and
    // its edge is loaded only within the row; every thread of the block
    // reaches the block's sum, whose shared memory the launch provides.
    unsafe {
        if gpu::thread_index() == 0 {
            *block_edges = 0;
        }
        gpu::sync_threads();
        let hub = gpu::load_read_only(chunks.add(2 * chunk as usize));
        let index = gpu::load_read_only(chunks.add(2 * chunk as usize + 1));
        let (first_edge, end_edge) = row(row_offsets, hub - first_vertex);
        let edge = chunk_edge(first_edge, index, gpu::thread_index());
        let mut edges = 0;
        if edge < end_edge {
            let neighbour = gpu::load_read_only(column_indices.add(edge as usize));
            visit(&owned, &outbox, (neighbour, hub), level + 1, &mut edges);
        }
        add_block_sum(block_edges, edges, next_edges);
    }
}

/// Applies the claims this GPU received in a top-down level: grid row `s`
/// takes rank `s`'s region (`received`, the other ranks' in rank order),
/// whose count is `claim_counts[s * ranks + rank]` (the ranks' counts,
/// all-gathered), at most `capacity`. The first claim of a vertex still
/// unvisited here sets its bit, labels it for `level + 1` with the claim's
/// parent, queues it and adds its degree to `*next_edges`. A thread
/// applies [`CLAIMS_PER_THREAD`] pairs, a block's width apart: it loads
/// them all, then issues their atomics together, and only then looks at
/// what came back, as each is a chain of scattered accesses.
///
/// # Safety
/// `received` has `ranks - 1` regions of `capacity` pairs, each rank's
/// holding at least its count's (capped) pairs of vertices this GPU owns;
/// `claim_counts` has `ranks * ranks` `u64`s; the rest as for
/// [`distributed_top_down`].
///
/// # Launch
/// Grid `ceil(most pairs / (BLOCK_SIZE * CLAIMS_PER_THREAD))` by `ranks`,
/// block [`BLOCK_SIZE`], shared memory 8 bytes.
///
/// # Thread mapping
/// Thread `t` of block `b` in grid row `s` applies pairs `b * BLOCK_SIZE *
/// CLAIMS_PER_THREAD + k * BLOCK_SIZE + t` of rank `s`'s region, for `k`
/// below [`CLAIMS_PER_THREAD`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn distributed_apply_claims(
    received: *const u32,
    capacity: u32,
    claim_counts: *const u64,
    rank: u32,
    ranks: u32,
    row_offsets: *const EdgeOffset,
    first_vertex: u32,
    end_vertex: u32,
    visited: *mut u32,
    levels: *mut u32,
    parents: *mut u32,
    level: u32,
    next_queue: *mut u32,
    next_size: *mut u32,
    next_edges: *mut u64,
) {
    const PAIRS: usize = CLAIMS_PER_THREAD as usize;
    let sender = gpu::block_index_y();
    if sender == rank {
        return;
    }
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    let owned = Owned {
        row_offsets,
        first_vertex,
        end_vertex,
        visited,
        levels,
        parents,
        next_queue,
        next_size,
    };
    let region = (sender - (sender > rank) as u32) as usize * capacity as usize;
    let first_pair = gpu::block_index() * BLOCK_SIZE * CLAIMS_PER_THREAD + gpu::thread_index();
    // SAFETY: the sender's count is read from the gathered counts and
    // capped at the region's capacity; its pairs' vertices are owned here
    // (the contract); every thread reaches the block's sum, whose shared
    // memory the launch provides.
    unsafe {
        if gpu::thread_index() == 0 {
            *block_edges = 0;
        }
        gpu::sync_threads();
        let sent = gpu::load_read_only_u64(claim_counts.add((sender * ranks + rank) as usize));
        let count = sent.min(capacity as u64) as u32;
        // (vertex, parent, its visited word before the atomic); not
        // `.flatten()` below: the loops would not unroll, and the pairs
        // would go to local memory.
        let mut pairs = [None; PAIRS];
        for (k, pair) in pairs.iter_mut().enumerate() {
            let index = first_pair + k as u32 * BLOCK_SIZE;
            if index < count {
                let at = received.add(2 * (region + index as usize));
                *pair = Some((
                    gpu::load_read_only(at),
                    gpu::load_read_only(at.add(1)),
                    0u32,
                ));
            }
        }
        // The atomics together; each returns the word before its bit.
        #[allow(clippy::manual_flatten)]
        for pair in &mut pairs {
            if let Some((vertex, _, word_before)) = pair {
                let word = owned.visited.add(*vertex as usize / 32);
                *word_before = gpu::atomic_or(word, 1 << (*vertex % 32));
            }
        }
        let mut edges = 0;
        #[allow(clippy::manual_flatten)]
        for pair in &pairs {
            if let Some((vertex, parent, word_before)) = *pair
                && word_before & (1 << (vertex % 32)) == 0
            {
                owned.label(vertex, parent, level + 1, &mut edges);
            }
        }
        add_block_sum(block_edges, edges, next_edges);
    }
}

/// Copies every other GPU's words of the frontier bitmap from that GPU's
/// own bitmap into this GPU's `frontier`, where the GPUs reach each
/// other's memory (peer access, over NVLink where they have it): a
/// bottom-up level's all-gather without a collective, each word read in
/// place and written where the kernel that checks the frontier reads it,
/// not landed in a staging buffer and copied again. Grid row `s` takes
/// rank `s`'s words, `rank_words[2 s] .. rank_words[2 s + 1]`, from the
/// bitmap at `bitmaps[s]`; this GPU's own row returns at once. A thread
/// copies [`PEER_WORDS_PER_THREAD`] words, a block's width apart, their
/// loads issued before any store: each crosses the link between the GPUs.
///
/// # Safety
/// `bitmaps` holds an address a rank: its frontier bitmap over every
/// vertex, which this GPU can reach and no GPU writes during the launch
/// (the ranks met after writing it, and meet again before they write it
/// next); `rank_words` holds a pair of word bounds a rank within the
/// bitmaps; `frontier` has a word for every 32 vertices.
///
/// # Launch
/// Grid `ceil(most words of a rank / (BLOCK_SIZE * PEER_WORDS_PER_THREAD))`
/// by `ranks`, block [`BLOCK_SIZE`], no shared memory.
///
/// # Thread mapping
/// Thread `t` of block `b` in grid row `s` copies words `rank_words[2 s] +
/// b * BLOCK_SIZE * PEER_WORDS_PER_THREAD + k * BLOCK_SIZE + t`, for `k`
/// below [`PEER_WORDS_PER_THREAD`], those below `rank_words[2 s + 1]`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_read_peer_frontiers(
    frontier: *mut u32,
    bitmaps: *const u64,
    rank_words: *const u32,
    rank: u32,
) {
    const WORDS: usize = PEER_WORDS_PER_THREAD as usize;
    let owner = gpu::block_index_y();
    if owner == rank {
        return;
    }
    // SAFETY: the owner's bounds and bitmap are read within their
    // buffers; only words below its end are read and written, within
    // every bitmap (the contract); no GPU writes the owner's bitmap
    // meanwhile.
    unsafe {
        let first = gpu::load_read_only(rank_words.add(2 * owner as usize));
        let end = gpu::load_read_only(rank_words.add(2 * owner as usize + 1));
        let owners_bitmap = gpu::load_read_only_u64(bitmaps.add(owner as usize)) as *const u32;
        let base =
            first + gpu::block_index() * BLOCK_SIZE * PEER_WORDS_PER_THREAD + gpu::thread_index();
        let mut words = [0u32; WORDS];
        for (k, word) in words.iter_mut().enumerate() {
            let index = base + k as u32 * BLOCK_SIZE;
            if index < end {
                *word = core::ptr::read(owners_bitmap.add(index as usize));
            }
        }
        for (k, &word) in words.iter().enumerate() {
            let index = base + k as u32 * BLOCK_SIZE;
            if index < end {
                *frontier.add(index as usize) = word;
            }
        }
    }
}

entry_points_by_row_offset!(
    /// One bottom-up level over this GPU's own vertices, as
    /// `direction_optimizing_bottom_up` runs it (the bitmaps passed from
    /// the first owned vertex's word, the rows, columns and labels the
    /// owned vertices'), that also adds the found vertices' degrees to
    /// `*found_edges`: the next direction's figure, whose rows only the
    /// owner holds.
    ///
    /// # Safety
    /// As `direction_optimizing_bottom_up` over `vertex_count` owned
    /// vertices, neighbours indexing the whole frontier bitmap;
    /// `found_edges` is one `u64`.
    ///
    /// # Launch
    /// Grid `ceil(vertex_count / BLOCK_SIZE)`, block [`BLOCK_SIZE`],
    /// shared memory 16 bytes.
    ///
    /// # Thread mapping
    /// Thread `v` owns the GPU's `v`-th vertex.
    distributed_bottom_up,

    /// [`distributed_bottom_up`] with row offsets in 32 bits.
    ///
    /// # Safety
    /// As [`distributed_bottom_up`].
    ///
    /// # Launch
    /// As [`distributed_bottom_up`].
    distributed_bottom_up_narrow,
    bottom_up_counting_edges(
        column_indices: *const u32,
        frontier_bitmap: *const u32,
        next_bitmap: *mut u32,
        visited: *mut u32,
        levels: *mut u32,
        parents: *mut u32,
        level: u32,
        vertex_count: u32,
        awake_count: *mut u32,
        found_edges: *mut u64,
    )
);

/// Both entry points' level.
///
/// # Safety
/// As [`distributed_bottom_up`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn bottom_up_counting_edges<O: RowOffset>(
    row_offsets: *const O,
    column_indices: *const u32,
    frontier_bitmap: *const u32,
    next_bitmap: *mut u32,
    visited: *mut u32,
    levels: *mut u32,
    parents: *mut u32,
    level: u32,
    vertex_count: u32,
    awake_count: *mut u32,
    found_edges: *mut u64,
) {
    // SAFETY: forwarded from the caller.
    unsafe {
        bottom_up_level(
            (row_offsets, column_indices),
            (frontier_bitmap, next_bitmap, visited),
            (levels, parents, level),
            vertex_count,
            (awake_count, Some(found_edges)),
        )
    }
}
