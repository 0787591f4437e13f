//! # Distributed BFS: a GPU's part of a search over several, owner computes
//!
//! Beamer, Buluç, Asanović & Patterson, "Distributed Memory Breadth-First
//! Search Revisited: Enabling Bottom-Up Search" (IPDPSW 2013), 1D, with
//! the owner-computes top-down exchange of Buluç & Madduri ("Parallel
//! Breadth-First Search on Distributed Memory Systems", SC 2011). Each GPU
//! owns a range of vertices (a multiple of 32 ids, so its bits fill whole
//! bitmap words) and holds only what it must: its vertices' rows, levels
//! and parents, and four bitmaps over every vertex, a bit a vertex
//! (visited, the frontier, the next one, and where the frontier's
//! all-gather lands). Vertex `v`'s level and parent lie at
//! `v - first_vertex` on its owner.
//!
//! - **Top-down**, a GPU expands the frontier vertices it owns
//!   ([`distributed_top_down`], hubs' lists in chunks as one GPU does,
//!   [`distributed_expand_hub_chunks`]). A neighbour it owns it labels and
//!   queues at once. Another GPU's neighbour it claims in its own visited
//!   bitmap, so that it sends each vertex at most once, and appends the pair
//!   (vertex, parent) to its claims for that vertex's owner. The GPUs
//!   exchange claims pairwise (all-to-all), and each owner applies what it
//!   received ([`distributed_apply_claims`]): the first claim of a vertex
//!   still unvisited there labels and queues it. Where each GPU reaches
//!   the others' memory, a small level's claims are not sent: the GPUs
//!   meet on the GPU ([`distributed_meet_peers`]) and each owner applies
//!   its claims where their senders wrote them. A GPU's claims for one
//!   owner have a fixed capacity; a claim past it gives its bit back, and
//!   the host runs the level again, from the same frontier, after the
//!   exchange, until every claim has gone. The hubs' lists are cut by
//!   owner too, and every GPU walks its piece ([`delegates`]).
//! - **Bottom-up**, the GPUs all-gather the frontier's words they own
//!   (`n / 8` bytes in all), or, where each can reach the others' memory,
//!   read them from the others' bitmaps
//!   ([`distributed_read_peer_frontiers`]; fresh from a top-down level,
//!   the others' queues, [`distributed_read_peer_queues`]), and each
//!   checks its own unvisited vertices on its own rows
//!   ([`distributed_bottom_up`], `direction-optimizing`'s level, which
//!   also sums the degrees of what it finds). A GPU's visited bitmap holds
//!   the other GPUs' vertices as far as its own claims set them, enough to
//!   send each claim once, and, where it reads the frontiers in place, as
//!   far as those frontiers set them: the top-down levels after the
//!   bottom-up ones send no claim for the vertices those found. The owner
//!   decides.
//!
//! After each level the GPUs pass each other each one's count of the
//! vertices it found and their degrees, the level's status and the claims
//! it read ([`STATS_WORDS`](crate::abi::distributed::STATS_WORDS) words
//! each): the next direction's sums, the same on every GPU.
//!
//! A *claim region* holds `capacity` pairs, two words each (the vertex,
//! then its parent); a GPU has one region for each other GPU, in rank
//! order, to send from and one to receive into. A GPU's claim counts are
//! `u64`s, one for each destination rank (its own unused).

pub mod delegates;

use crate::abi::BLOCK_SIZE;
use crate::abi::direction_optimizing;
use crate::abi::distributed::{
    CLAIMS_PER_THREAD, MEETING_FAILED, Outbox, Owned, PEER_QUADS_PER_THREAD, PEER_WORDS_PER_THREAD,
};
use crate::direction::direction_optimizing::{
    add_block_sum, bottom_up_level, clear_block_sum, gather_neighbour_lists,
};
use crate::direction::hub_chunks::chunk_edge;
use crate::gpu;
use crate::visit::{entry_points_by_row_offset, row};

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
/// labels are added to `*owned.next_edges`; the vertices it claims get
/// `level + 1`.
///
/// # Safety
/// `owned` and `outbox` are as their types say; the owned rows index
/// `column_indices`, neighbours `< n`; `frontier` holds `frontier_size`
/// owned vertices.
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
pub unsafe extern "ptx-kernel" fn distributed_top_down(
    owned: Owned,
    outbox: Outbox,
    column_indices: *const u32,
    frontier: *const u32,
    frontier_size: u32,
    level: u32,
) {
    let (owned, outbox) = (owned.in_global(), outbox.in_global());
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    let owner_slot = block_edges
        .wrapping_add(1)
        .cast::<direction_optimizing::ListOwner>();
    // SAFETY: the launch provides the shared edge count and list owner,
    // every thread of whole warps runs the gathering, and the visits
    // follow the contract.
    unsafe {
        clear_block_sum(block_edges);
        let index = gpu::global_thread_index();
        let entry = if index < frontier_size {
            let vertex = gpu::load_read_only(frontier.add(index as usize));
            (vertex, row(owned.row_offsets, vertex - owned.first_vertex))
        } else {
            (0, (0, 0))
        };
        let mut edges = 0;
        gather_neighbour_lists(column_indices, owner_slot, entry, |neighbour, parent| {
            visit(&owned, &outbox, (neighbour, parent), level + 1, &mut edges);
        });
        add_block_sum(block_edges, edges, owned.next_edges);
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
pub unsafe extern "ptx-kernel" fn distributed_expand_hub_chunks(
    owned: Owned,
    outbox: Outbox,
    column_indices: *const u32,
    chunks: *const u32,
    chunk_count: u32,
    level: u32,
) {
    let (owned, outbox) = (owned.in_global(), outbox.in_global());
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    let chunk = gpu::block_index();
    if chunk >= chunk_count {
        return;
    }
    // SAFETY: block `b < chunk_count` reads pair `b`; its hub is owned and
    // its edge is loaded only within the row; every thread of the block
    // reaches the block's sum, whose shared memory the launch provides.
    unsafe {
        clear_block_sum(block_edges);
        let hub = gpu::load_read_only(chunks.add(2 * chunk as usize));
        let index = gpu::load_read_only(chunks.add(2 * chunk as usize + 1));
        let (first_edge, end_edge) = row(owned.row_offsets, hub - owned.first_vertex);
        let edge = chunk_edge(first_edge, index, gpu::thread_index());
        let mut edges = 0;
        if edge < end_edge {
            let neighbour = gpu::load_read_only(column_indices.add(edge as usize));
            visit(&owned, &outbox, (neighbour, hub), level + 1, &mut edges);
        }
        add_block_sum(block_edges, edges, owned.next_edges);
    }
}

/// Applies the claims this GPU received in a top-down level: grid row `s`
/// takes rank `s`'s claims for this GPU, `regions[s]`'s pairs, whose count
/// is the `u64` at `counts[s]`, at most `capacity`. Both are where the
/// exchange landed them here, or, where the GPUs reach each other's
/// memory, where rank `s` wrote them on its own GPU
/// ([`distributed_meet_peers`]); hence the volatile loads. The first claim
/// of a vertex still unvisited here sets its bit, labels it for `level + 1`
/// with the claim's parent, queues it and adds its degree to
/// `*next_edges`. A thread applies [`CLAIMS_PER_THREAD`] pairs, a block's
/// width apart: it loads them all, then issues their atomics together, and
/// only then looks at what came back, as each is a chain of scattered
/// accesses.
///
/// The first block of each row adds the pairs it takes to
/// `*received_pairs`, and where rank `s` claimed more than `capacity`
/// raises `*status` to `round + 1`: the level runs another round. A
/// `*status` of [`MEETING_FAILED`] (the meeting timed out) applies nothing.
///
/// # Safety
/// `regions` and `counts` hold an address a rank (this GPU's own unused),
/// each region 8-byte aligned and holding at least its count's (capped)
/// pairs of vertices this GPU owns, readable from this GPU and written by
/// no GPU during the launch; `status` is one `u32`, `received_pairs` one
/// `u64`; `owned` as for [`distributed_top_down`].
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
    owned: Owned,
    regions: *const u64,
    counts: *const u64,
    capacity: u32,
    rank: u32,
    round: u32,
    status: *mut u32,
    received_pairs: *mut u64,
    level: u32,
) {
    const PAIRS: usize = CLAIMS_PER_THREAD as usize;
    let sender = gpu::block_index_y();
    if sender == rank {
        return;
    }
    let owned = owned.in_global();
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    let first_pair = gpu::block_index() * BLOCK_SIZE * CLAIMS_PER_THREAD + gpu::thread_index();
    // SAFETY: the sender's region and count are read where the tables say
    // (the contract), the count capped at the region's capacity; its
    // pairs' vertices are owned here; every thread reaches the block's
    // sum, whose shared memory the launch provides.
    unsafe {
        if core::ptr::read_volatile(status) == MEETING_FAILED {
            return;
        }
        clear_block_sum(block_edges);
        let pairs_at = gpu::load_read_only_u64(regions.add(sender as usize)) as *const u64;
        let count_at = gpu::load_read_only_u64(counts.add(sender as usize)) as *const u64;
        let sent = core::ptr::read_volatile(count_at);
        let count = sent.min(capacity as u64) as u32;
        if gpu::block_index() == 0 && gpu::thread_index() == 0 {
            gpu::atomic_add_u64(received_pairs, count as u64);
            if sent > capacity as u64 {
                gpu::atomic_max(status, round + 1);
            }
        }
        // (vertex, parent, its visited word before the atomic); not
        // `.flatten()` below: the loops would not unroll, and the pairs
        // would go to local memory.
        let mut pairs = [None; PAIRS];
        for (k, pair) in pairs.iter_mut().enumerate() {
            let index = first_pair + k as u32 * BLOCK_SIZE;
            if index < count {
                // The pair in one load: the vertex in its low word.
                let both = core::ptr::read_volatile(pairs_at.add(index as usize));
                *pair = Some((both as u32, (both >> 32) as u32, 0u32));
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
        add_block_sum(block_edges, edges, owned.next_edges);
    }
}

/// The GPUs' meeting on the GPU, where each reaches the others' memory: a
/// round's claims are written (the top-down kernels before this one on
/// the stream), so each GPU tells every other, and waits until every
/// other has told it; then [`distributed_apply_claims`] reads each
/// sender's claims on the sender's GPU. No host takes part, and no
/// collective: one warp, lane `p` for rank `p`.
///
/// Lane `p` stores `sequence` into rank `p`'s `signals` at this rank's
/// slot, a release at system scope, which makes every write of the kernels
/// before it visible to rank `p`; then it polls this GPU's slot `p` with
/// acquire loads until rank `p`'s store arrives. `sequence` counts the
/// rounds, the same on every GPU, so a slot is never reset: a GPU cannot
/// be a round ahead, as the next round starts only after the ranks have
/// met on the host, after every GPU has applied what it read. A lane that
/// waits `timeout_ns` gives up and sets `*status` to [`MEETING_FAILED`]:
/// a rank that failed or was stopped never comes, and the host reports it
/// instead of waiting forever.
///
/// # Safety
/// `signals` has a word a rank; `peer_signals` holds each rank's
/// `signals` address, which this GPU reaches; `status` is one `u32`;
/// `rank < ranks <= 32`.
///
/// # Launch
/// Grid 1, block 32, no shared memory.
///
/// # Thread mapping
/// Lane `p < ranks` tells and waits for rank `p`; the others, and this
/// rank's own lane, return.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_meet_peers(
    signals: *mut u32,
    peer_signals: *const u64,
    rank: u32,
    ranks: u32,
    sequence: u32,
    timeout_ns: u64,
    status: *mut u32,
) {
    let peer = gpu::thread_index();
    if peer >= ranks || peer == rank {
        return;
    }
    // SAFETY: the slots lie within every rank's signals (the contract),
    // and the peer's address comes from the table.
    unsafe {
        let theirs = gpu::load_read_only_u64(peer_signals.add(peer as usize)) as *mut u32;
        gpu::store_release_system(theirs.add(rank as usize), sequence);
        let started = gpu::global_timer();
        while gpu::load_acquire_system(signals.add(peer as usize)) != sequence {
            if gpu::global_timer().wrapping_sub(started) > timeout_ns {
                core::ptr::write_volatile(status, MEETING_FAILED);
                return;
            }
        }
    }
}

/// Copies every other GPU's words of the frontier bitmap from that GPU's
/// own bitmap into this GPU's `frontier`, where the GPUs reach each
/// other's memory (peer access, over NVLink where they have it): a
/// bottom-up level's all-gather without a collective, each word read in
/// place and written where the kernel that checks the frontier reads it,
/// not landed in a staging buffer and copied again. Grid row `s` takes
/// rank `s`'s words, `rank_words[2 s] .. rank_words[2 s + 1]`, from the
/// bitmap at `bitmaps[s]`; this GPU's own row returns at once. The words
/// move in aligned quads, 16 bytes a load, as few loads as possible cross
/// the link: a thread copies [`PEER_QUADS_PER_THREAD`] quads, a block's
/// width apart, their loads issued before any store; a quad that the
/// rank's bounds cut moves word by word. Each word is also set in
/// `visited`: a frontier's vertices are visited, so a later top-down
/// level here sends no claim for them (most of the neighbours of a
/// frontier past the bottom-up levels were in those levels' frontiers).
///
/// # Safety
/// `bitmaps` holds an address a rank, 16-byte aligned: its frontier
/// bitmap over every vertex, which this GPU can reach and no GPU writes
/// during the launch (the ranks met after writing it, and meet again
/// before they write it next); `rank_words` holds a pair of word bounds a
/// rank within the bitmaps; `frontier` and `visited`, 16-byte aligned,
/// have a word for every 32 vertices.
///
/// # Launch
/// Grid `ceil(most quads a rank's words touch / (BLOCK_SIZE *
/// PEER_QUADS_PER_THREAD))` by `ranks`, block [`BLOCK_SIZE`], no shared
/// memory.
///
/// # Thread mapping
/// Thread `t` of block `b` in grid row `s` copies quads `rank_words[2 s] /
/// 4 + b * BLOCK_SIZE * PEER_QUADS_PER_THREAD + k * BLOCK_SIZE + t`, for
/// `k` below [`PEER_QUADS_PER_THREAD`], the words of each below
/// `rank_words[2 s + 1]` and from `rank_words[2 s]`, into `frontier` and
/// `visited`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_read_peer_frontiers(
    frontier: *mut u32,
    visited: *mut u32,
    bitmaps: *const u64,
    rank_words: *const u32,
    rank: u32,
) {
    const QUADS: usize = PEER_QUADS_PER_THREAD as usize;
    let owner = gpu::block_index_y();
    if owner == rank {
        return;
    }
    // SAFETY: the owner's bounds and bitmap are read within their
    // buffers; only words within its bounds are read and written, within
    // every bitmap (the contract), whole quads only where all four are;
    // no GPU writes the owner's bitmap meanwhile, and only this thread
    // this launch's words of `visited`.
    unsafe {
        let first = gpu::load_read_only(rank_words.add(2 * owner as usize));
        let end = gpu::load_read_only(rank_words.add(2 * owner as usize + 1));
        let owners_bitmap = gpu::load_read_only_u64(bitmaps.add(owner as usize)) as *const u32;
        let base = first / 4
            + gpu::block_index() * BLOCK_SIZE * PEER_QUADS_PER_THREAD
            + gpu::thread_index();
        let whole = |quad: u32| first <= 4 * quad && 4 * quad + 4 <= end;
        let mut quads = [None; QUADS];
        for (k, slot) in quads.iter_mut().enumerate() {
            let quad = base + k as u32 * BLOCK_SIZE;
            if whole(quad) {
                let at = owners_bitmap.add(4 * quad as usize).cast::<gpu::Quad>();
                *slot = Some(gpu::load_read_only_quad(at));
            }
        }
        for (k, slot) in quads.iter().enumerate() {
            let quad = base + k as u32 * BLOCK_SIZE;
            match *slot {
                Some(words) => {
                    let at = frontier.add(4 * quad as usize).cast::<gpu::Quad>();
                    gpu::store_volatile_quad(at, words);
                    let seen = visited.add(4 * quad as usize).cast::<gpu::Quad>();
                    let (gpu::Quad(old), gpu::Quad(new)) = (gpu::load_volatile_quad(seen), words);
                    let union = core::array::from_fn(|word| old[word] | new[word]);
                    gpu::store_volatile_quad(seen, gpu::Quad(union));
                }
                // A quad the bounds cut, word by word.
                None => {
                    for word in 4 * quad..4 * quad + 4 {
                        if first <= word && word < end {
                            let words = *owners_bitmap.add(word as usize);
                            *frontier.add(word as usize) = words;
                            *visited.add(word as usize) |= words;
                        }
                    }
                }
            }
        }
    }
}

/// Sets the bits of every GPU's frontier queue in this GPU's `frontier`
/// bitmap, reading each other GPU's queue where it lies, where the GPUs
/// reach each other's memory: a bottom-up level fresh from a top-down one,
/// whose frontier is a queue on each GPU, few enough vertices that the
/// queues cost less than the bitmap's words. Grid row `s` takes rank `s`'s
/// queue, `sizes[s]` vertices at `queues[s]` (this GPU's own too). A
/// thread sets [`PEER_WORDS_PER_THREAD`] vertices' bits, a block's width
/// apart, their loads issued before any atomic. The other ranks'
/// vertices' bits are also set in `visited`, as
/// [`distributed_read_peer_frontiers`] sets their words (this GPU's own
/// are set already).
///
/// # Safety
/// `queues` holds an address a rank: its frontier queue, which this GPU
/// reaches and no GPU writes during the launch (the ranks met after
/// writing them, and meet again before they write them next), of at least
/// `sizes[s]` vertex ids below `n`; `sizes` has a word a rank; `frontier`
/// and `visited` have a word for every 32 vertices.
///
/// # Launch
/// Grid `ceil(largest queue / (BLOCK_SIZE * PEER_WORDS_PER_THREAD))` by
/// `ranks`, block [`BLOCK_SIZE`], no shared memory.
///
/// # Thread mapping
/// Thread `t` of block `b` in grid row `s` takes entries `b * BLOCK_SIZE *
/// PEER_WORDS_PER_THREAD + k * BLOCK_SIZE + t` of rank `s`'s queue, for `k`
/// below [`PEER_WORDS_PER_THREAD`], those below `sizes[s]`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distributed_read_peer_queues(
    frontier: *mut u32,
    visited: *mut u32,
    queues: *const u64,
    sizes: *const u32,
    rank: u32,
) {
    const ENTRIES: usize = PEER_WORDS_PER_THREAD as usize;
    let owner = gpu::block_index_y();
    // SAFETY: the owner's queue and size are read within their buffers,
    // only entries below its size; each vertex's word lies in both
    // bitmaps (the contract); no GPU writes the queue meanwhile.
    unsafe {
        let size = gpu::load_read_only(sizes.add(owner as usize));
        let queue = gpu::load_read_only_u64(queues.add(owner as usize)) as *const u32;
        let base = gpu::block_index() * BLOCK_SIZE * PEER_WORDS_PER_THREAD + gpu::thread_index();
        let mut vertices = [None; ENTRIES];
        for (k, vertex) in vertices.iter_mut().enumerate() {
            let index = base + k as u32 * BLOCK_SIZE;
            if index < size {
                *vertex = Some(core::ptr::read_volatile(queue.add(index as usize)));
            }
        }
        // Not `.flatten()`: the loop would not unroll (as in
        // `distributed_apply_claims`).
        #[allow(clippy::manual_flatten)]
        for vertex in &vertices {
            if let Some(vertex) = *vertex {
                let (word, bit) = (vertex as usize / 32, 1 << (vertex % 32));
                gpu::atomic_or(frontier.add(word), bit);
                if owner != rank {
                    gpu::atomic_or(visited.add(word), bit);
                }
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
    distributed_bottom_up_narrow,
    |row_offsets,
     column_indices: *const u32,
     frontier_bitmap: *const u32,
     next_bitmap: *mut u32,
     visited: *mut u32,
     levels: *mut u32,
     parents: *mut u32,
     level: u32,
     vertex_count: u32,
     awake_count: *mut u32,
     found_edges: *mut u64| bottom_up_level(
        (row_offsets, column_indices),
        (frontier_bitmap, next_bitmap, visited),
        (levels, parents, level),
        vertex_count,
        (awake_count, Some(found_edges)),
    )
);
