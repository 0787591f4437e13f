//! # Ghost zones: `hops` BFS levels per grid barrier
//!
//! A level-synchronous search waits at a grid barrier once per level, and a
//! grid or a road network has thousands of levels, each a chain of
//! dependent memory accesses ending in that barrier. Iterative stencil
//! codes meet the same wall and climb it with *ghost zones* (Meng &
//! Skadron, "Performance Modeling and Automatic Ghost Zone Optimization for
//! Iterative Stencil Loops on GPUs", ICS 2009): a block takes its tile plus
//! a margin as deep as the steps it will run, computes all of them on its
//! own, and keeps only its tile; the margin's work is repeated by the
//! neighbours, the synchronisations are divided by the depth. Here the
//! tiles are BFS-grown partitions of consecutive ids (`graph::reorder`) and
//! the margin of a partition is every vertex that reaches it within `hops`
//! edges (`graph::ghost_zones`): its *zone*. A vertex `j <= hops` levels
//! past the frontier is reached by a shortest path from a frontier vertex
//! whose every vertex reaches it within `j` edges, so the whole path lies
//! in the zone, and a search of the zone alone from the frontier finds its
//! partition's levels exactly, `hops` levels at once.
//!
//! A step, from the frontier at level `L = step * hops`, for each zone on
//! the step's list (one a block, the rest to the blocks that finish
//! first; each entry is the zone's record, [`ghost_zones::GhostZoneRecord`]: where its
//! image lies, in the same load as the zone's id):
//! 1. unless its partition has no unvisited vertex left (then nothing
//!    follows), copy the zone's *image* into shared memory: its rows, its
//!    ghosts' ids and its neighbours, which the host laid out as shared
//!    memory holds them ([`ghost_zones::GhostZoneImage`]), so that the copy is one
//!    piece of 16-byte loads, all in flight at once; then gather the
//!    zone's levels, queueing the vertices at `L`, the frontier;
//! 2. search the zone `hops` levels, a block barrier each: a vertex in the
//!    queue of `L + j - 1` claims its unreached neighbours for `L + j` with
//!    a shared `atomicCAS`, four threads sharing its edges, records itself
//!    as their parent and queues them;
//! 3. write back the partition's own new levels and parents (ghosts are
//!    left to their owners: only the owner's are exact);
//! 4. list for the next step the zones that now hold a frontier vertex, a
//!    vertex at `L + hops`: its own partition's, and those that hold it as
//!    a ghost, if they still have unvisited vertices, each by the threads
//!    that found such vertices, in parallel (no thread lists after the
//!    block's last barrier: that would add its round trips to the step).
//!    An exchange on each zone's `queued_at` word lists a zone once, its
//!    record's load on its way meanwhile, and the count of the list rides
//!    on the grid barrier, as in [`crate::device_loop::persistent`].
//!
//! Each vertex's level is written by its own partition's block, once, so
//! there are no global atomics on labels. Another zone may stage that
//! vertex as a ghost in the same step, while it is written: a level past
//! the step's frontier is read as unreached, which it was when the step
//! began; the next step reads it, after the grid barrier, with coherent
//! loads. The search ends when a step lists no zone.
//!
//! The kernel counts the zone searches, the edges it examined and the
//! levels it searched, and the steps (grid barriers), so the work repeated
//! in the ghosts can be measured.

use crate::abi::UNREACHED;
use crate::abi::ghost_zones;
use crate::gpu::{self, FULL_WARP, Quad};

/// Runs the whole search from `source`, `hops` levels per step.
///
/// # Safety
/// The zones of [`graph::ghost_zones`](../../bfs/graph/ghost_zones/index.html),
/// renumbered ids throughout: `zone_records[z]` ([`ghost_zones::GhostZoneRecord`])
/// gives zone `z`'s vertices, at most `zone_capacity` (a multiple of 8, at
/// most 2^16), partition `z`'s ids `z * partition_size ..` first, and its
/// image ([`ghost_zones::GhostZoneImage`]) in `images`; `ghost_of_rows` has `n + 1`
/// entries indexing `ghost_of`, zone ids. `levels` and `parents` have `n`
/// entries, all [`UNREACHED`] but the source's (0 and itself);
/// `unvisited` holds each partition's count of vertices (the source's
/// included: the kernel takes it off); `queued_at` has `zone_count`
/// zeros; `zone_lists` has `2 * zone_count` records; `step_words` three
/// `u64` set to 0, `next_entries` three `u32` set to 0; `counters` four
/// `u64` set to 0, which receive the zone searches (a zone listed in vain,
/// its partition visited, counts too), edges examined and levels
/// searched, added up, and the steps.
///
/// # Launch
/// Cooperative, at most the occupancy's blocks, blocks of exactly
/// [`ghost_zones::BLOCK_SIZE`] threads (its launch bounds,
/// [`LAUNCH_BOUNDS`](crate::abi::LAUNCH_BOUNDS)), shared memory
/// [`ghost_zones::shared_bytes`](crate::abi::ghost_zones::shared_bytes)`(zone_capacity,
/// image_capacity)`, `image_capacity` a multiple of 4; a zone whose image
/// has more words is read where it lies, in global memory.
///
/// # Thread mapping
/// Block `b` searches entry `b` of a step's list (`B` blocks); entries
/// from `B` on go to the blocks that finish first, one at a time; within
/// a zone, thread `t` copies quads of the image and handles vertices and
/// queue entries `t`, `t + blockDim`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn ghost_zone_search(
    zone_records: *const Quad,
    images: *const Quad,
    ghost_of_rows: *const u32,
    ghost_of: *const u32,
    vertex_count: u32,
    partition_size: u32,
    zone_count: u32,
    hops: u32,
    zone_capacity: u32,
    image_capacity: u32,
    source: u32,
    levels: *mut u32,
    parents: *mut u32,
    unvisited: *mut u32,
    queued_at: *mut u32,
    zone_lists: *mut Quad,
    step_words: *mut u64,
    next_entries: *mut u32,
    counters: *mut u64,
) {
    let header = SharedZone::new(zone_capacity);
    let zones = Zones {
        images,
        ghost_of_rows,
        ghost_of,
        vertex_count,
        partition_size,
        zone_capacity,
        image_capacity,
        hops,
    };
    let (mut searches, mut edges_examined, mut levels_searched) = (0u64, 0u64, 0u64);
    // SAFETY: every index is within the arrays the contract sizes: zones
    // below `zone_count` (the lists hold each at most once a step, so at
    // most `zone_count` entries), their vertices and edges, `n` vertices.
    // Loop bounds come from the grid barrier's count, the same for every
    // thread, so all threads reach every barrier.
    unsafe {
        // Step 0's list: the zones that hold the source.
        if gpu::global_thread_index() == 0 {
            let listing = Listing {
                records: zone_records,
                list: zone_lists,
                word: step_words,
                queued_at,
                unvisited,
                tag: 1,
            };
            let own = source / partition_size.max(1);
            gpu::atomic_add(unvisited.add(own as usize), u32::MAX);
            listing.list_zone(own);
            zones.list_holders(&listing, source);
        }
        let mut listed = gpu::grid_barrier_with_count(step_words, gpu::grid_size(), header.barrier);
        let mut step = 0u32;
        while listed > 0 {
            let word = step_words.add(((step + 1) % 3) as usize);
            let next_entry = next_entries.add((step % 3) as usize);
            if gpu::global_thread_index() == 0 {
                core::ptr::write_volatile(step_words.add(((step + 2) % 3) as usize), 0);
                core::ptr::write_volatile(next_entries.add(((step + 2) % 3) as usize), 0);
            }
            let list = zone_lists.add(((step % 2) * zone_count) as usize);
            let listing = Listing {
                records: zone_records,
                list: zone_lists.add((((step + 1) % 2) * zone_count) as usize),
                word,
                queued_at,
                unvisited,
                tag: step + 2,
            };
            let mut entry = gpu::block_index();
            while entry < listed {
                let record = ghost_zones::GhostZoneRecord::from_words(
                    gpu::load_volatile_quad(list.add(entry as usize)).0,
                );
                let (edges, levels_run) =
                    zones.search(&record, step * hops, (levels, parents), &listing);
                searches += 1;
                edges_examined += edges;
                levels_searched += levels_run as u64;
                // Past the first round, the next entry goes to whichever
                // block asks first: one that found its zone had nothing
                // left to search (about one search in seven on a grid: the
                // step that reached a partition's last vertices lists it
                // once more) takes another while the others still search.
                // Thread 0 writes the shared word after the search's last
                // barrier, the block reads it after this one, and the next
                // write follows the next search's barriers.
                entry = if listed > gpu::grid_size() {
                    if gpu::thread_index() == 0 {
                        *header.next_entry = gpu::grid_size() + gpu::atomic_add(next_entry, 1);
                    }
                    gpu::sync_threads();
                    *header.next_entry
                } else {
                    listed
                };
            }
            listed = gpu::grid_barrier_with_count(word, gpu::grid_size(), header.barrier);
            step += 1;
        }
        if edges_examined > 0 {
            gpu::atomic_add_u64(counters.add(1), edges_examined);
        }
        if gpu::thread_index() == 0 {
            gpu::atomic_add_u64(counters, searches);
            gpu::atomic_add_u64(counters.add(2), levels_searched);
            if gpu::block_index() == 0 {
                *counters.add(3) = step as u64;
            }
        }
    }
}

/// The zones' arrays and shape, as the kernel's contract gives them.
#[derive(Clone, Copy)]
struct Zones {
    images: *const Quad,
    ghost_of_rows: *const u32,
    ghost_of: *const u32,
    vertex_count: u32,
    partition_size: u32,
    zone_capacity: u32,
    image_capacity: u32,
    hops: u32,
}

/// Where a step lists the zones for the next: the zones' records, which
/// the list copies, the list, the barrier word whose high half counts it,
/// each zone's `queued_at` word (`tag` once listed for the next step) and
/// unvisited count.
struct Listing {
    records: *const Quad,
    list: *mut Quad,
    word: *mut u64,
    queued_at: *mut u32,
    unvisited: *mut u32,
    tag: u32,
}

impl Listing {
    /// Lists `zone` for the next step, once, unless its partition has no
    /// vertex left to reach (then its search could change nothing; the
    /// count only falls, so a stale read lists a zone in vain, never
    /// leaves one out).
    ///
    /// # Safety
    /// `zone` is below the zone count; the listing's arrays are the kernel's.
    #[inline(always)]
    unsafe fn list_zone(&self, zone: u32) {
        // SAFETY: forwarded from the caller.
        unsafe {
            if self.may_list(zone) {
                self.list_once(zone);
            }
        }
    }

    /// Whether `zone` may still need listing: not yet listed for the next
    /// step, its partition not all reached. Two independent loads, one
    /// round trip to memory (most zones a search finds were listed already
    /// by another vertex; a stale read only costs the exchange).
    ///
    /// # Safety
    /// As [`list_zone`](Self::list_zone).
    #[inline(always)]
    unsafe fn may_list(&self, zone: u32) -> bool {
        // SAFETY: forwarded from the caller.
        unsafe {
            let queued_at = core::ptr::read_volatile(self.queued_at.add(zone as usize));
            let unvisited = core::ptr::read_volatile(self.unvisited.add(zone as usize));
            queued_at != self.tag && unvisited > 0
        }
    }

    /// Lists `zone`'s record unless another thread's exchange on its
    /// `queued_at` word did first (the record's load is on its way during
    /// the exchange).
    ///
    /// # Safety
    /// As [`list_zone`](Self::list_zone).
    #[inline(always)]
    unsafe fn list_once(&self, zone: u32) {
        // SAFETY: forwarded from the caller.
        unsafe {
            let record = gpu::load_read_only_quad(self.records.add(zone as usize));
            if gpu::atomic_exchange(self.queued_at.add(zone as usize), self.tag) != self.tag {
                let slot = (gpu::atomic_add_u64(self.word, 1 << 32) >> 32) as u32;
                gpu::store_volatile_quad(self.list.add(slot as usize), record);
            }
        }
    }
}

impl Zones {
    /// Lists every zone that holds `vertex` as a ghost.
    ///
    /// # Safety
    /// `vertex` is below `n`; the arrays are the kernel's.
    #[inline(always)]
    unsafe fn list_holders(&self, listing: &Listing, vertex: u32) {
        // SAFETY: forwarded from the caller.
        unsafe {
            let first = gpu::load_read_only(self.ghost_of_rows.add(vertex as usize));
            let end = gpu::load_read_only(self.ghost_of_rows.add(vertex as usize + 1));
            // A few holders at once, each round trip theirs together: the
            // zones, then whether each may need listing, then the exchanges.
            let mut holder = first;
            while holder < end {
                let mut zones = [None; HOLDERS_IN_FLIGHT];
                for (k, zone) in zones.iter_mut().enumerate() {
                    if holder + (k as u32) < end {
                        *zone = Some(gpu::load_read_only(self.ghost_of.add(holder as usize + k)));
                    }
                }
                let mut wanted = [false; HOLDERS_IN_FLIGHT];
                for k in 0..HOLDERS_IN_FLIGHT {
                    if let Some(zone) = zones[k] {
                        wanted[k] = listing.may_list(zone);
                    }
                }
                for k in 0..HOLDERS_IN_FLIGHT {
                    if let (Some(zone), true) = (zones[k], wanted[k]) {
                        listing.list_once(zone);
                    }
                }
                holder += HOLDERS_IN_FLIGHT as u32;
            }
        }
    }

    /// One step of the zone of `record`, by the whole block, from the
    /// frontier at `level`: copy its image, gather its levels, search
    /// `hops` levels, write back, list the next step's zones. Returns the
    /// edges this thread examined and the levels searched.
    ///
    /// # Safety
    /// As [`ghost_zone_search`], with `record` one of its zones' records;
    /// every thread of the block calls it.
    #[inline(always)]
    unsafe fn search(
        &self,
        record: &ghost_zones::GhostZoneRecord,
        level: u32,
        labels: (*mut u32, *mut u32),
        listing: &Listing,
    ) -> (u64, u32) {
        let shared = SharedZone::new(self.zone_capacity);
        let zone = record.zone;
        // SAFETY: the record bounds the zone's image (the contract); the
        // copy stays within `image_capacity` words of shared memory; every
        // thread reaches the barriers (the bounds are the same for all).
        unsafe {
            let image = self.images.add(record.first_quad as usize);
            if gpu::thread_index() == 0 {
                *shared.tails = 0;
                *shared.tails.add(1) = 0;
            }
            // A zone listed by its own vertices in the step that reached
            // its last ones has nothing left to search.
            let unvisited = gpu::thread_index() == 0
                && core::ptr::read_volatile(listing.unvisited.add(zone as usize)) > 0;
            if !gpu::sync_threads_or(unvisited) {
                return (0, 0);
            }
            if record.quads * 4 > self.image_capacity {
                return self.search_image((record, level), image.cast(), labels, listing, &shared);
            }
            copy_image((image, record.quads), shared.image);
            gpu::sync_threads();
            // A second copy of the search, with the image in shared memory
            // where the compiler sees it is (shared loads, not generic ones).
            self.search_image(
                (record, level),
                shared.image.cast_const().cast(),
                labels,
                listing,
                &shared,
            )
        }
    }

    /// The rest of [`search`](Self::search), with the zone's image at
    /// `image` (shared or global memory): gather the levels, queueing the
    /// vertices at the step's level, search `hops` levels, write back the
    /// partition's, list the next step's zones.
    ///
    /// # Safety
    /// As [`search`](Self::search), `image` the zone's image, unchanged
    /// while it runs.
    #[inline(always)]
    unsafe fn search_image(
        &self,
        (record, level): (&ghost_zones::GhostZoneRecord, u32),
        image: *const u32,
        (levels, parents): (*mut u32, *mut u32),
        listing: &Listing,
        shared: &SharedZone,
    ) -> (u64, u32) {
        let (thread, threads) = (gpu::thread_index(), gpu::block_size());
        let (zone, size) = (record.zone, record.vertices);
        let first = zone * self.partition_size;
        let interior = self.partition_size.min(self.vertex_count - first);
        let layout = ghost_zones::GhostZoneImage::new(size, interior, 0);
        let mut edges_examined = 0u64;
        // SAFETY: indices within the zone's vertices and image, the shared
        // arrays sized for `zone_capacity` vertices, and `n` vertices;
        // barriers are reached by every thread (bounds read from shared
        // memory after a barrier).
        unsafe {
            let rows = image;
            let ghost_ids = image.add(layout.rows as usize);
            let columns = image.add(layout.columns_start() as usize).cast::<u16>();
            let id_of = |vertex: u32| {
                if vertex < interior {
                    first + vertex
                } else {
                    *ghost_ids.add((vertex - interior) as usize)
                }
            };

            // 1. Gather the levels; those at `level` form the frontier.
            for_each_batch(size, |vertices| {
                let mut found = [UNREACHED; LEVELS_IN_FLIGHT];
                for k in 0..LEVELS_IN_FLIGHT {
                    if let Some(vertex) = vertices[k] {
                        found[k] = core::ptr::read_volatile(levels.add(id_of(vertex) as usize));
                    }
                }
                // A ghost's owner may be writing its level in this very
                // step: anything past `level` is this step's news, and the
                // ghost counts as unreached, as it was when the step began.
                for level_found in &mut found {
                    if *level_found > level {
                        *level_found = UNREACHED;
                    }
                }
                for k in 0..LEVELS_IN_FLIGHT {
                    if let Some(vertex) = vertices[k] {
                        *shared.state.add(vertex as usize) = found[k];
                        if found[k] == level {
                            *shared.queues.add(gpu::atomic_add(shared.tails, 1) as usize) =
                                vertex as u16;
                        }
                    }
                }
            });
            gpu::sync_threads();

            // 2. Search the zone `hops` levels, while there is a frontier.
            let mut searched = 0;
            while searched < self.hops {
                let queue = shared.queue((searched % 2) as usize);
                let next_queue = shared.queue(((searched + 1) % 2) as usize);
                let listed = *shared.tails.add((searched % 3) as usize);
                if listed == 0 {
                    break;
                }
                let next_tail = shared.tails.add(((searched + 1) % 3) as usize);
                if thread == 0 {
                    *shared.tails.add(((searched + 2) % 3) as usize) = 0;
                }
                let next_level = level + searched + 1;
                let mut slot = thread;
                while slot < listed * EDGE_LANES {
                    let vertex = *queue.add((slot / EDGE_LANES) as usize) as u32;
                    let (first_edge, end_edge) =
                        (*rows.add(vertex as usize), *rows.add(vertex as usize + 1));
                    let mut edge = first_edge + slot % EDGE_LANES;
                    while edge < end_edge {
                        edges_examined += 1;
                        let neighbour = *columns.add(edge as usize) as usize;
                        let state = shared.state.add(neighbour);
                        if *state == UNREACHED
                            && gpu::atomic_compare_exchange(state, UNREACHED, next_level)
                                == UNREACHED
                        {
                            *shared.parents.add(neighbour) = vertex as u16;
                            *next_queue.add(gpu::atomic_add(next_tail, 1) as usize) =
                                neighbour as u16;
                        }
                        edge += EDGE_LANES;
                    }
                    slot += threads;
                }
                gpu::sync_threads();
                searched += 1;
            }

            // 3. Write back the partition's new levels; 4. list the zones
            // that hold its vertices at the last level searched.
            let bound = level + self.hops;
            let mut reached = 0u32;
            let mut at_bound = false;
            let mut vertex = thread;
            while vertex < interior {
                let found = *shared.state.add(vertex as usize);
                if found != UNREACHED && found > level {
                    let id = first + vertex;
                    let parent = *shared.parents.add(vertex as usize) as u32;
                    core::ptr::write_volatile(levels.add(id as usize), found);
                    core::ptr::write_volatile(parents.add(id as usize), id_of(parent));
                    reached += 1;
                    if found == bound {
                        at_bound = true;
                        self.list_holders(listing, id);
                    }
                }
                vertex += threads;
            }
            // The zone itself, once a warp (its count is read before this
            // step's vertices are taken off it: the next step's check
            // above drops it if they were the last).
            if gpu::ballot(FULL_WARP, at_bound) != 0 && gpu::lane_index() == 0 {
                listing.list_zone(zone);
            }
            let reached = gpu::warp_sum(reached);
            if gpu::lane_index() == 0 && reached > 0 {
                gpu::atomic_add(listing.unvisited.add(zone as usize), reached.wrapping_neg());
            }
            gpu::sync_threads();
            (edges_examined, searched)
        }
    }
}

/// Quads of the image a thread loads at once, so that their latencies
/// overlap: a zone of 6,000 vertices and 24,000 edges has an image of
/// some 5,500 quads, one batch of the block's 1,024 threads.
const QUADS_IN_FLIGHT: usize = 6;

/// Copies `count` quads from `image` to `to`, the block's threads each
/// `QUADS_IN_FLIGHT` at once, in flight together: thread `t` copies `t`,
/// `t + T`, … `t + (QUADS_IN_FLIGHT - 1) T` (`T` =
/// [`ghost_zones::BLOCK_SIZE`], the launch's block), then the batch
/// `QUADS_IN_FLIGHT T` further.
///
/// # Safety
/// `image` has `count` quads, read-only while the kernel runs; `to` room
/// for them.
#[inline(always)]
unsafe fn copy_image((image, count): (*const Quad, u32), to: *mut Quad) {
    let stride = ghost_zones::BLOCK_SIZE as usize;
    let mut first = gpu::thread_index();
    // SAFETY: each index is checked against `count`; the offsets from
    // `first` are constants, so that the loads share one address register.
    unsafe {
        while first < count {
            let (from, into) = (
                image.wrapping_add(first as usize),
                to.wrapping_add(first as usize),
            );
            let mut in_flight = [Quad([0; 4]); QUADS_IN_FLIGHT];
            for (k, quad) in in_flight.iter_mut().enumerate() {
                if first as usize + k * stride < count as usize {
                    *quad = gpu::load_read_only_quad(from.add(k * stride));
                }
            }
            for (k, quad) in in_flight.iter().enumerate() {
                if first as usize + k * stride < count as usize {
                    *into.add(k * stride) = *quad;
                }
            }
            first += (QUADS_IN_FLIGHT * stride) as u32;
        }
    }
}

/// Levels a thread loads at once when gathering a zone's.
const LEVELS_IN_FLIGHT: usize = 8;

/// Zones holding a vertex as a ghost that a thread checks at once when
/// listing them: a vertex of a grid is a ghost of a few.
const HOLDERS_IN_FLIGHT: usize = 2;

/// Threads that share a queued vertex's edges, each taking every
/// `EDGE_LANES`-th: a level's chain is one edge long on a grid or a road
/// network (a handful of neighbours), not the vertex's degree. Two or
/// eight ran the grids slower (docs/decisions.md, "Road networks and
/// grids").
const EDGE_LANES: u32 = 4;

/// Calls `stage` for the block's items `0..count` in batches of
/// `LEVELS_IN_FLIGHT` a thread: thread `t` gets `t`, `t + T`, … `t +
/// (LEVELS_IN_FLIGHT - 1) T` (`T` threads), then the batch
/// `LEVELS_IN_FLIGHT T` further; `None` past `count`.
#[inline(always)]
fn for_each_batch(count: u32, mut stage: impl FnMut(&[Option<u32>; LEVELS_IN_FLIGHT])) {
    let threads = gpu::block_size();
    let mut base = gpu::thread_index();
    while base < count {
        let mut items = [None; LEVELS_IN_FLIGHT];
        for (k, item) in items.iter_mut().enumerate() {
            let index = base + k as u32 * threads;
            if index < count {
                *item = Some(index);
            }
        }
        stage(&items);
        base += LEVELS_IN_FLIGHT as u32 * threads;
    }
}

/// A zone's arrays in the block's shared memory, as
/// [`ghost_zones::shared_bytes`](crate::abi::ghost_zones::shared_bytes) lays
/// them out: the header (the grid barrier's word, three rotating queue
/// tails, the block's next entry of a step's list), then per vertex a
/// level, a parent and two queue entries, then the image.
struct SharedZone {
    barrier: *mut u32,
    tails: *mut u32,
    next_entry: *mut u32,
    state: *mut u32,
    parents: *mut u16,
    queues: *mut u16,
    image: *mut Quad,
    capacity: usize,
}

impl SharedZone {
    #[inline(always)]
    fn new(zone_capacity: u32) -> SharedZone {
        let shared = gpu::dynamic_shared_memory::<u32>();
        let capacity = zone_capacity as usize;
        // SAFETY: offsets within the dynamic shared memory the launch gives
        // (`ghost_zones::shared_bytes(zone_capacity, _)`, the image last, on
        // 16 bytes: the header is 32, the rest 10 bytes a vertex, and
        // `zone_capacity` a multiple of 8).
        unsafe {
            let state = shared.add(ghost_zones::HEADER_WORDS as usize);
            let parents = state.add(capacity).cast::<u16>();
            let queues = parents.add(capacity);
            SharedZone {
                barrier: shared,
                tails: shared.add(1),
                next_entry: shared.add(4),
                state,
                parents,
                queues,
                image: queues.add(2 * capacity).cast::<Quad>(),
                capacity,
            }
        }
    }

    /// Queue `which` (0 or 1) of the two that alternate by level.
    #[inline(always)]
    fn queue(&self, which: usize) -> *mut u16 {
        // SAFETY: within the two queues of `capacity` entries.
        unsafe { self.queues.add(which * self.capacity) }
    }
}
