//! The kernel↔host contract: kernel names, launch shapes, queue capacities
//! and data encodings.
//!
//! Both the kernels (built for `nvptx64`) and the host driver (built for the
//! CPU) compile this module, so a name or constant changes in one place.

/// Distance (and parent) of a vertex the search has not reached (yet, or at all).
pub const UNREACHED: u32 = u32::MAX;

/// A position in a CSR's edge array (its row offsets, edge counts and
/// cursors into it): 64 bits, so one GPU holds graphs past 2^32 CSR entries
/// (Kronecker scale 28 has 8.6 billion). Vertex ids stay `u32`.
pub type EdgeOffset = u64;

/// Threads per block for the one-thread-per-vertex and per-frontier-entry kernels.
pub const BLOCK_SIZE: u32 = 256;

/// Entries of a block's private queue in [`block_queue`] (Kirk & Hwu's `BLOCK_QUEUE_SIZE`).
pub const BLOCK_QUEUE_CAPACITY: u32 = 2048;

/// Dynamic shared memory of `block_queue_expand`: tail, start, then the queue.
pub const fn block_queue_shared_bytes() -> u32 {
    4 * (2 + BLOCK_QUEUE_CAPACITY)
}

/// Default number of w-queues per block in [`hierarchical_queue`].
pub const SUB_QUEUES: u32 = 8;

/// Most w-queues a block may have (one per lane of a warp).
pub const MAX_SUB_QUEUES: u32 = 32;

/// Entries of each w-queue.
pub const W_QUEUE_CAPACITY: u32 = 64;

/// Entries the b-queue takes directly from full w-queues; past that, vertices
/// go straight to the global queue.
pub const B_QUEUE_DIRECT_CAPACITY: u32 = 2048;

/// Dynamic shared memory of `hierarchical_queue_expand`, in 32-bit words:
/// w-queue tails and offsets, three b-queue counters, the w-queues, and the
/// b-queue (its direct entries plus room to consolidate every w-queue).
pub const fn hierarchical_shared_words(sub_queue_count: u32) -> u32 {
    2 * MAX_SUB_QUEUES + 3 + 2 * sub_queue_count * W_QUEUE_CAPACITY + B_QUEUE_DIRECT_CAPACITY
}

/// Threads of the single block of `small_frontier_levels`.
pub const SMALL_FRONTIER_BLOCK_SIZE: u32 = 1024;

/// Largest frontier `small_frontier_levels` keeps in shared memory, where
/// the device has room for it (the host lowers it to fit).
pub const SMALL_FRONTIER_CAPACITY: u32 = 4096;

/// Shared words of `small_frontier_levels` before its queues: three
/// rotating counters and the hand-over start.
pub const SMALL_FRONTIER_HEADER_WORDS: u32 = 4;

/// Dynamic shared memory of `small_frontier_levels` for queues of
/// `capacity` entries and a visited bitmap of `visited_words` words kept in
/// shared memory (0: kept in global memory): the header, two queues of a
/// vertex and its row (its first edge, an [`EdgeOffset`], and its degree:
/// four words) per entry, the bitmap.
pub const fn small_frontier_shared_bytes(capacity: u32, visited_words: u32) -> u32 {
    4 * (SMALL_FRONTIER_HEADER_WORDS + 2 * 4 * capacity + visited_words)
}

/// Kernel entry points of the `two-kernel` variant (Rodinia's BFS).
pub mod two_kernel {
    /// Expands every vertex whose frontier mask is set.
    pub const EXPAND: &str = "two_kernel_expand";
    /// Moves the vertices discovered by `EXPAND` into the next frontier.
    pub const UPDATE: &str = "two_kernel_update";
}

/// Kernel entry point of the `vertex-levels` variant.
pub mod vertex_levels {
    /// Expands every vertex at the current level.
    pub const STEP: &str = "vertex_levels_step";
}

/// Kernel entry point of the `global-queue` variant.
pub mod global_queue {
    /// Expands the frontier queue into the next one.
    pub const EXPAND: &str = "global_queue_expand";
}

/// Kernel entry point of the `block-queue` variant (also used by
/// `small-frontier` and `hybrid-cpu` for large frontiers).
pub mod block_queue {
    /// Expands the frontier through a block-private queue.
    pub const EXPAND: &str = "block_queue_expand";
    /// The same with plain loads instead of the read-only cache (benchmarks only).
    pub const EXPAND_PLAIN_LOADS: &str = "block_queue_expand_plain_loads";
}

/// Kernel entry point of the `hierarchical` variant.
pub mod hierarchical_queue {
    /// Expands the frontier through w-queues and the b-queue.
    pub const EXPAND: &str = "hierarchical_queue_expand";
}

/// Kernel entry point of the `small-frontier` variant.
pub mod small_frontier {
    /// Runs levels in one block while the frontier fits in shared memory.
    pub const LEVELS: &str = "small_frontier_levels";
}

/// Kernel entry point of the `hybrid-cpu` variant.
pub mod hybrid_cpu {
    /// Marks the vertices the CPU discovered on the device.
    pub const MARK: &str = "hybrid_cpu_mark";
}

/// Kernel entry points of the `direction-optimizing` variant (Beamer et al. 2012).
pub mod direction_optimizing {
    /// A top-down level that also sums the new frontier's degrees.
    pub const TOP_DOWN: &str = "direction_optimizing_top_down";
    /// A bottom-up level over the frontier bitmap.
    pub const BOTTOM_UP: &str = "direction_optimizing_bottom_up";
    /// The same over row offsets in 32 bits.
    pub const BOTTOM_UP_NARROW: &str = "direction_optimizing_bottom_up_narrow";
    /// Frontier queue to bitmap.
    pub const QUEUE_TO_BITMAP: &str = "direction_optimizing_queue_to_bitmap";
    /// Frontier bitmap to queue.
    pub const BITMAP_TO_QUEUE: &str = "direction_optimizing_bitmap_to_queue";
}

/// Kernel entry points of the hubs' lists cut into chunks, a block each,
/// for the searches that go level by level from the host.
pub mod hub_chunks {
    /// Splits a frontier queue into hub chunks and the other vertices.
    pub const SPLIT: &str = "hub_chunks_split";
    /// Expands hub chunks, a block each.
    pub const EXPAND: &str = "hub_chunks_expand";
}

/// Kernel entry points of the multi-GPU search's exchange steps (besides
/// `direction_optimizing`'s, which each GPU runs on its own rows).
pub mod distributed {
    /// A top-down level over a GPU's own frontier: labels its own
    /// neighbours, sends the others' to their owners.
    pub const TOP_DOWN: &str = "distributed_top_down";
    /// The same for its hubs' chunks.
    pub const EXPAND_HUB_CHUNKS: &str = "distributed_expand_hub_chunks";
    /// Applies the claims a GPU received.
    pub const APPLY_CLAIMS: &str = "distributed_apply_claims";
    /// A bottom-up level over a GPU's own vertices, summing the found
    /// vertices' degrees.
    pub const BOTTOM_UP: &str = "distributed_bottom_up";
    /// The same over row offsets in 32 bits.
    pub const BOTTOM_UP_NARROW: &str = "distributed_bottom_up_narrow";

    /// A GPU's figures of a level, as the GPUs all-gather them: the
    /// vertices it found (a `u32` word, its next queue's size), a word of
    /// padding, and their edges (a `u64`, from word [`STATS_EDGES_WORD`]).
    pub const STATS_WORDS: usize = 4;
    /// Where a level's figures hold the found vertices' edges.
    pub const STATS_EDGES_WORD: usize = 2;

    /// Pairs a thread of `distributed_apply_claims` applies, a block's
    /// width apart: their loads and atomics in flight together.
    pub const CLAIMS_PER_THREAD: u32 = 4;
}

/// Kernel entry point of the `persistent` variant.
pub mod persistent {
    /// Runs every level in one cooperative launch.
    pub const LEVELS: &str = "persistent_levels";
}

/// Threads per block of `persistent_levels` (one block per multiprocessor).
pub const PERSISTENT_BLOCK_SIZE: u32 = 1024;

/// Most entries of each frontier whose rows `persistent_levels` stages for
/// the next level (the host stages at most `n / 128`, so the staging, two
/// halves of `(first, end)` pairs, takes no more than a bitmap's bytes).
pub const PERSISTENT_STAGED_ROWS: u32 = 16384;

/// Dynamic shared memory of `persistent_levels`: the barrier's count.
pub const PERSISTENT_SHARED_BYTES: u32 = 4;

/// Kernel entry point of the `persistent-direction-optimizing` variant.
pub mod persistent_direction_optimizing {
    /// Runs a direction-optimizing search in one cooperative launch.
    pub const SEARCH: &str = "persistent_direction_optimizing";
    /// The same, the row offsets in 32 bits.
    pub const SEARCH_NARROW: &str = "persistent_direction_optimizing_narrow";
}

/// Threads per block of `persistent_direction_optimizing`, whose grid is
/// as many blocks as stay resident: smaller blocks than
/// `persistent_levels`' let more threads stay resident when a kernel's
/// registers keep a second 1,024-thread block off a multiprocessor, and
/// bottom-up levels hide their latency with threads.
pub const PERSISTENT_DIRECTION_BLOCK_SIZE: u32 = 512;

/// Counters of each barrier of `persistent_direction_optimizing` (three
/// sets rotate): the barrier's word, whose high half counts the next
/// frontier, the next frontier's edges, and its hubs' chunks.
pub const PERSISTENT_DIRECTION_COUNTERS: u32 = 3;

/// Edges of a hub's chunk: one per thread of a block. A top-down level
/// treats a frontier vertex of a chunk's edges or more as a hub: its list
/// is cut into chunks that every block shares, instead of being walked by
/// the one block that holds the vertex (`hub_chunks` for the searches that
/// go level by level, `persistent_direction_optimizing` in its grid).
pub const HUB_CHUNK_EDGES: u32 = PERSISTENT_DIRECTION_BLOCK_SIZE;

/// The shortest list that `hub_chunks_split` cuts into chunks (of
/// [`HUB_CHUNK_EDGES`], the last one short), a block each: a warp's
/// worth. The gather that walks the shorter lists has a block for every
/// [`BLOCK_SIZE`] frontier vertices, too few where a small frontier holds
/// lists of tens or hundreds of edges: on Kronecker 26 (H100), a level
/// whose 1,700 vertices hold 18 million edges gave its lists below a
/// chunk to 7 blocks, which took 0.40 ms; chunked from here, the lists
/// left to the gather took 0.05 ms.
/// (`persistent_direction_optimizing` chunks hubs only: its gather has
/// the whole grid.)
pub const CHUNKED_LIST_EDGES: u32 = 32;

/// The chunks of [`HUB_CHUNK_EDGES`] edges that a list of `degree` edges
/// is cut into where lists of `min_edges` or more are: 0 for a shorter
/// list. The kernels and the host, which sizes the chunk list by it,
/// count alike.
pub const fn list_chunks(degree: u32, min_edges: u32) -> u32 {
    if degree >= min_edges {
        degree.div_ceil(HUB_CHUNK_EDGES)
    } else {
        0
    }
}

/// Dynamic shared memory of `hub_chunks_expand`: the block's edge count
/// (`u64`), then its count of claimed vertices and their first queue slot.
pub const HUB_CHUNKS_EXPAND_SHARED_BYTES: u32 = 8 + 4 + 4;

/// Chunk pairs (hub, chunk) the hubs among `edge_count` edges may take: a
/// list of `d >= HUB_CHUNK_EDGES` edges takes `ceil(d / HUB_CHUNK_EDGES)`
/// chunks, at most twice `d / HUB_CHUNK_EDGES`.
pub const fn hub_chunk_capacity(edge_count: u64) -> u64 {
    2 * (edge_count / HUB_CHUNK_EDGES as u64) + 1
}

/// Dynamic shared memory of `persistent_direction_optimizing`: the block's
/// edge count (`u64`), the gather's [`ListOwner`], the barrier's count
/// (`u32`), padded to 8 bytes.
pub const PERSISTENT_DIRECTION_SHARED_BYTES: u32 = 8 + size_of::<ListOwner>() as u32 + 4 + 4;

/// Kernel entry point of the `partitioned` variant.
pub mod partitioned {
    /// Searches partitions in shared memory, each block on its own, until
    /// nothing is outstanding.
    pub const SEARCH: &str = "partitioned_search";
}

/// Threads per block of `partitioned_search` (one block per multiprocessor).
pub const PARTITIONED_BLOCK_SIZE: u32 = 1024;

/// Shared words of `partitioned_search` before its per-vertex arrays:
/// three rotating queue tails, three rotating seed levels, the dirty bits
/// taken, the outbox's tail, two rotating seed counts, the partition's
/// first edge (an [`EdgeOffset`] at word 10, 8-byte aligned).
pub const PARTITIONED_HEADER_WORDS: u32 = 12;

/// Dynamic shared memory of `partitioned_search` for partitions of
/// `partition_size` vertices and `column_capacity` neighbours: the header,
/// per vertex a state word, a parent, an entry in each of two level queues
/// and in the outbox, the partition's row offsets (one more than its
/// vertices), its neighbours.
pub const fn partitioned_shared_bytes(partition_size: u32, column_capacity: u32) -> u32 {
    4 * (PARTITIONED_HEADER_WORDS + 6 * partition_size + 1 + column_capacity)
}

/// The kernels whose PTX `host/build.rs` gives a `.maxntid` directive,
/// with the most threads a block they are launched with: CUDA C's
/// `__launch_bounds__(threads)`, which Rust cannot spell. ptxas, offline or
/// in the driver, then fits their registers to that many threads (64 each
/// at 1,024), spilling if it must; without it, it may take more and the
/// launch fails for want of registers.
pub const LAUNCH_BOUNDS: [(&str, u32); 1] = [(ghost_zones::SEARCH, GHOST_ZONES_BLOCK_SIZE)];

/// Kernel entry point of the `ghost-zones` variant.
pub mod ghost_zones {
    /// Runs every step of a search, each zone on the step's list searched
    /// `hops` levels by one block, a grid barrier between steps.
    pub const SEARCH: &str = "ghost_zone_search";
}

/// Kernel entry point that maps a renumbered search's levels and parents
/// back to the graph's own ids.
pub mod renumbering {
    /// A thread per vertex gathers its level and parent from its new id.
    pub const GATHER: &str = "renumbering_gather";
}

/// Threads per block of `ghost_zone_search`: exactly these (it strides
/// by them when it copies a zone's image).
pub const GHOST_ZONES_BLOCK_SIZE: u32 = 1024;

/// Shared words of `ghost_zone_search` before its per-vertex arrays: the
/// grid barrier's count, three rotating queue tails, the block's next
/// entry of a step's list, padding to 16 bytes.
pub const GHOST_ZONES_HEADER_WORDS: u32 = 8;

/// Dynamic shared memory of `ghost_zone_search` for zones of at most
/// `zone_capacity` vertices (a multiple of 8, so that the image starts on
/// 16 bytes) and images of at most `image_capacity` words: the header,
/// then per zone vertex a level (`u32`), a parent and an entry in each of
/// two level queues (local indices, `u16`), then the zone's image
/// ([`GhostZoneImage`]).
pub const fn ghost_zones_shared_bytes(zone_capacity: u32, image_capacity: u32) -> u32 {
    4 * GHOST_ZONES_HEADER_WORDS + 10 * zone_capacity + 4 * image_capacity
}

/// A zone as a step's list names it, and as `zone_records` holds it for
/// the listing to copy: what its block needs before it copies the image,
/// in one 16-byte load (one round trip to memory, not one for the zone's
/// id and another for where its image lies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GhostZoneRecord {
    /// The zone (its partition).
    pub zone: u32,
    /// Where its image starts in the images, in quads (4 words).
    pub first_quad: u32,
    /// Quads of its image.
    pub quads: u32,
    /// Vertices of the zone.
    pub vertices: u32,
}

impl GhostZoneRecord {
    /// The record as the four words the device reads.
    pub const fn words(&self) -> [u32; 4] {
        [self.zone, self.first_quad, self.quads, self.vertices]
    }

    /// The record of four words as [`words`](Self::words) writes them.
    pub const fn from_words([zone, first_quad, quads, vertices]: [u32; 4]) -> GhostZoneRecord {
        GhostZoneRecord {
            zone,
            first_quad,
            quads,
            vertices,
        }
    }
}

/// A zone's *image*: what the block that searches it reads besides the
/// levels, laid out by the host exactly as the block's shared memory holds
/// it, so that the block copies it in one piece, 16 bytes a load. Three
/// parts, each padded to whole quads (4 words): the rows (the zone's
/// vertices' offsets into its neighbours, from 0, one more), the ghosts'
/// ids (renumbered; the partition's own are its first id plus their local
/// index) and the neighbours (local indices, `u16`, two to a word). Images
/// follow each other in one array, each starting on a quad.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GhostZoneImage {
    /// Words of the rows.
    pub rows: u32,
    /// Words of the ghosts' ids.
    pub ghost_ids: u32,
    /// Words of the neighbours.
    pub columns: u32,
}

impl GhostZoneImage {
    /// The image of a zone of `vertices`, `interior` of them its
    /// partition's, with `edges` neighbours in all.
    pub const fn new(vertices: u32, interior: u32, edges: u32) -> GhostZoneImage {
        GhostZoneImage {
            rows: (vertices + 1).next_multiple_of(4),
            ghost_ids: (vertices - interior).next_multiple_of(4),
            columns: edges.div_ceil(2).next_multiple_of(4),
        }
    }

    /// Where the neighbours start, in words.
    pub const fn columns_start(&self) -> u32 {
        self.rows + self.ghost_ids
    }

    /// Words of the whole image, a multiple of 4.
    pub const fn words(&self) -> u32 {
        self.columns_start() + self.columns
    }
}

/// Kernel entry point of the `warp-specialized` variant.
pub mod warp_specialized {
    /// Searches every partition in its block's shared memory, a searcher
    /// warp and a messenger warp a block, until nothing is outstanding.
    pub const SEARCH: &str = "warp_specialized_search";
}

/// Threads per block of `warp_specialized_search`: the searcher warp and
/// the messenger warp.
pub const WARP_SPECIALIZED_BLOCK_SIZE: u32 = 64;

/// Where `warp_specialized_search` keeps each array in a block's shared
/// memory, in 32-bit words, for a partition of `partition_size` vertices
/// and up to `column_capacity` neighbours.
///
/// The control words come first (see the kernel: what the two warps tell
/// each other), then the incoming ring (the vertices the messenger took
/// from the dirty bits, with their labels' levels and parents), a state
/// word and a parent per vertex, the rows, the neighbours, two level
/// queues and the outbox (vertices whose neighbours outside the partition
/// the messenger is to lower, with their levels). Queues and the outbox
/// hold a power of two of entries, at least a partition's; the incoming
/// ring twice that, and at least twice [`WARP_SPECIALIZED_TAKE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpSpecializedLayout {
    /// Entries of each queue and of the outbox, a power of two.
    pub queue_capacity: u32,
    /// Entries of the incoming ring, a power of two.
    pub incoming_capacity: u32,
    /// The incoming ring: vertices, then levels, then parents.
    pub incoming: u32,
    /// Each vertex's state word: `level << 1 | queued`.
    pub states: u32,
    /// Each vertex's parent, as a global vertex id.
    pub parents: u32,
    /// Each vertex's first neighbour, and one past the last vertex's last.
    pub rows: u32,
    /// The partition's neighbours, as global vertex ids.
    pub neighbours: u32,
    /// The two level queues, one after the other.
    pub queues: u32,
    /// The outbox ring: vertices, then levels.
    pub outbox: u32,
    /// Words in all.
    pub words: u32,
}

/// Control words at the start of `warp_specialized_search`'s shared memory.
pub const WARP_SPECIALIZED_CONTROL_WORDS: u32 = 8;

/// Dirty bits the messenger of `warp_specialized_search` takes at once (a
/// word a lane): it takes them only while the incoming ring has room for
/// them all.
pub const WARP_SPECIALIZED_TAKE: u32 = 32 * 32;

impl WarpSpecializedLayout {
    /// The layout for partitions of `partition_size` vertices and room for
    /// `column_capacity` neighbours.
    pub const fn new(partition_size: u32, column_capacity: u32) -> WarpSpecializedLayout {
        let queue_capacity = partition_size.next_power_of_two();
        let incoming_capacity = if queue_capacity > WARP_SPECIALIZED_TAKE {
            2 * queue_capacity
        } else {
            2 * WARP_SPECIALIZED_TAKE
        };
        let incoming = WARP_SPECIALIZED_CONTROL_WORDS;
        let states = incoming + 3 * incoming_capacity;
        let parents = states + partition_size;
        let rows = parents + partition_size;
        let neighbours = rows + partition_size + 1;
        let queues = neighbours + column_capacity;
        let outbox = queues + 2 * queue_capacity;
        WarpSpecializedLayout {
            queue_capacity,
            incoming_capacity,
            incoming,
            states,
            parents,
            rows,
            neighbours,
            queues,
            outbox,
            words: outbox + 2 * queue_capacity,
        }
    }

    /// Dynamic shared memory of one block, in bytes.
    pub const fn bytes(&self) -> u64 {
        4 * self.words as u64
    }
}

/// Kernel entry points of the `chain-contracted` variant.
pub mod chain_contracted {
    /// Searches the contracted graph (junctions joined by weighted chains)
    /// in one block, label-correcting, round by round.
    pub const SEARCH: &str = "chain_contracted_search";
    /// Gives every vertex its level from its junction's label or its
    /// chain's two ends.
    pub const LEVELS: &str = "chain_contracted_levels";
    /// Gives every reached vertex a parent: a neighbour one level up.
    pub const PARENTS: &str = "chain_contracted_parents";
}

/// Threads of the single block of `chain_contracted_search`.
pub const CHAIN_CONTRACTED_BLOCK_SIZE: u32 = 1024;

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
pub const CHAIN_CONTRACTED_HEADER_WORDS: u32 = 5;

impl ChainContractedLayout {
    /// The layout for `kept_count` kept vertices and queues of `queue_capacity`.
    pub const fn new(kept_count: u32, queue_capacity: u32) -> ChainContractedLayout {
        let labels = CHAIN_CONTRACTED_HEADER_WORDS;
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

/// Kernel entry point of the `hierarchy-sweep` variant (its levels and
/// parents come from `chain_contracted`'s kernels).
pub mod hierarchy_sweep {
    /// Sweeps a contraction hierarchy over the kept vertices up and down,
    /// level by level, in one block.
    pub const SEARCH: &str = "hierarchy_sweep_search";
}

/// Threads of the single block of `hierarchy_sweep_search`.
pub const HIERARCHY_SWEEP_BLOCK_SIZE: u32 = 1024;

/// Words of `hierarchy_sweep_search`'s shared memory before its distances:
/// three rotating flags, set by a core round that lowered a distance.
pub const HIERARCHY_SWEEP_HEADER_WORDS: u32 = 3;

/// Shared memory of `hierarchy_sweep_search`, in bytes: the header, and a
/// distance per kept vertex when they are kept there.
pub const fn hierarchy_sweep_shared_bytes(kept_count: u32, distances_in_shared: bool) -> u64 {
    let distances = if distances_in_shared { kept_count } else { 0 };
    4 * (HIERARCHY_SWEEP_HEADER_WORDS + distances) as u64
}

/// Kernel entry point of the `on-chip` variant, in the sm_90 module.
pub mod on_chip {
    /// Searches the whole graph in one thread-block cluster's shared memory.
    pub const SEARCH: &str = "on_chip_search";
}

/// Threads per block of `on_chip_search` (one block per multiprocessor of
/// the cluster).
pub const ON_CHIP_BLOCK_SIZE: u32 = 512;

/// Neighbours a thread of `on_chip_search` claims at once: their
/// `atomicOr`s are in flight together, so a vertex of a road network (two
/// or three neighbours) pays one round trip to the other blocks, not one
/// per neighbour. The neighbours are padded to a whole batch.
pub const CLAIM_BATCH: u32 = 4;

/// Where `on_chip_search` keeps each array in a block's shared memory, in
/// 32-bit words. Every block of the cluster has the same layout, so an
/// array's offset here addresses it in any block of the cluster.
///
/// A block owns `slots` vertices (every `ranks`-th, from its rank) and
/// holds their rows and neighbours: three rotating "the next frontier is
/// not empty" flags, the visited bitmap and two frontier bitmaps over its
/// slots (slot `s` in word `s mod W`, `W` their words), each slot's parent and level, the rows (`slots + 1` offsets into
/// its neighbours) and up to `neighbour_capacity` neighbours, and
/// [`CLAIM_BATCH`]` - 1` words of padding, read past the last batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnChipLayout {
    /// Three rotating flags: the frontier of level `l` is not empty when `flags[l % 3]` is set.
    pub flags: u32,
    /// The visited bitmap, one bit per slot.
    pub visited: u32,
    /// The two frontier bitmaps, one after the other: see [`frontier`](Self::frontier).
    pub frontiers: u32,
    /// Words of each bitmap, a power of two: see [`word`](Self::word).
    pub bitmap_words: u32,
    /// Each slot's parent.
    pub parents: u32,
    /// Each slot's level.
    pub levels: u32,
    /// Each slot's first neighbour, and one past the last slot's last.
    pub rows: u32,
    /// The slots' neighbours, as global vertex ids.
    pub neighbours: u32,
    /// Words in all.
    pub words: u32,
}

impl OnChipLayout {
    /// The layout for `slots` vertices a block and room for `neighbour_capacity` neighbours.
    pub const fn new(slots: u32, neighbour_capacity: u32) -> OnChipLayout {
        let bitmap_words = slots.div_ceil(32).next_power_of_two();
        let flags = 0;
        let visited = flags + 3;
        let frontiers = visited + bitmap_words;
        let parents = visited + 3 * bitmap_words;
        let levels = parents + slots;
        let rows = levels + slots;
        let neighbours = rows + slots + 1;
        OnChipLayout {
            flags,
            visited,
            frontiers,
            bitmap_words,
            parents,
            levels,
            rows,
            neighbours,
            words: neighbours + neighbour_capacity + CLAIM_BATCH - 1,
        }
    }

    /// The frontier bitmap of `level`: the two alternate.
    pub const fn frontier(&self, level: u32) -> u32 {
        self.frontiers + (level % 2) * self.bitmap_words
    }

    /// The bitmap word of `slot`. Slots go round the words, so slots of
    /// neighbouring vertices, which often share a frontier, fall in
    /// different words, each a thread's, and not in one thread's word.
    pub const fn word(&self, slot: u32) -> u32 {
        slot & (self.bitmap_words - 1)
    }

    /// The bit of `slot` in its [`word`](Self::word).
    pub const fn bit(&self, slot: u32) -> u32 {
        1 << (slot >> self.bitmap_words.trailing_zeros())
    }

    /// The slot of bit `bit_index` of bitmap word `word`.
    pub const fn slot(&self, word: u32, bit_index: u32) -> u32 {
        bit_index << self.bitmap_words.trailing_zeros() | word
    }

    /// Dynamic shared memory of one block, in bytes.
    pub const fn bytes(&self) -> u64 {
        4 * self.words as u64
    }
}

/// The thread a block elects to walk its neighbour list with the whole
/// block (in top-down gathering), and the list, in shared memory.
#[repr(C)]
pub struct ListOwner {
    /// The elected thread's index in its block.
    pub thread: u32,
    /// Its frontier vertex.
    pub vertex: u32,
    /// The vertex's row, `row_offsets[vertex]..row_offsets[vertex + 1]`.
    pub edges: (EdgeOffset, EdgeOffset),
}

const _: () = assert!(size_of::<ListOwner>() == 24);

/// Dynamic shared memory of `direction_optimizing_top_down`: the block's
/// edge count (`u64`), then the [`ListOwner`].
pub const DIRECTION_TOP_DOWN_SHARED_BYTES: u32 = 8 + size_of::<ListOwner>() as u32;

/// gapbs's α: go bottom-up once the frontier's edges exceed the unexplored edges over α.
pub const DIRECTION_ALPHA: u64 = 15;

/// gapbs's β: go back top-down once the frontier has fewer than `n / β` vertices and is shrinking.
pub const DIRECTION_BETA: u64 = 18;

/// Every kernel entry point of the sm_90 module (thread-block clusters),
/// loaded only on devices of compute capability 9.0 or newer.
pub const SM90_KERNEL_NAMES: &[&str] = &[on_chip::SEARCH];

/// Every kernel entry point of the main module, so a build check can find each one in the PTX.
pub const KERNEL_NAMES: &[&str] = &[
    two_kernel::EXPAND,
    two_kernel::UPDATE,
    vertex_levels::STEP,
    global_queue::EXPAND,
    block_queue::EXPAND,
    block_queue::EXPAND_PLAIN_LOADS,
    hierarchical_queue::EXPAND,
    small_frontier::LEVELS,
    hybrid_cpu::MARK,
    direction_optimizing::TOP_DOWN,
    direction_optimizing::BOTTOM_UP,
    direction_optimizing::BOTTOM_UP_NARROW,
    direction_optimizing::QUEUE_TO_BITMAP,
    direction_optimizing::BITMAP_TO_QUEUE,
    distributed::TOP_DOWN,
    distributed::EXPAND_HUB_CHUNKS,
    distributed::APPLY_CLAIMS,
    distributed::BOTTOM_UP,
    distributed::BOTTOM_UP_NARROW,
    hub_chunks::SPLIT,
    hub_chunks::EXPAND,
    persistent::LEVELS,
    persistent_direction_optimizing::SEARCH,
    persistent_direction_optimizing::SEARCH_NARROW,
    partitioned::SEARCH,
    ghost_zones::SEARCH,
    renumbering::GATHER,
    warp_specialized::SEARCH,
    chain_contracted::SEARCH,
    chain_contracted::LEVELS,
    chain_contracted::PARENTS,
    hierarchy_sweep::SEARCH,
];
