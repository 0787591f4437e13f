//! Kernel entry point of the `ghost-zones` variant.

use super::entry_points;

entry_points! {
    /// Runs every step of a search, each zone on the step's list searched
    /// `hops` levels by one block, a grid barrier between steps. Its
    /// parameters: the zone records, the images, the ghosts' rows and
    /// owners, the vertex count, the partition size, the zone count, the
    /// hops, the zone and image capacities, the source, then the levels,
    /// the parents, the unvisited bits, each vertex's queued step, the
    /// zone lists, the steps' words, the next entries and the counters.
    /// The records, images and lists are quads of words on 16 bytes, which
    /// the kernel loads and stores whole.
    pub const SEARCH: Kernel<Search> = Kernel::new("ghost_zone_search");
}

/// The parameters of [`SEARCH`].
pub type Search = (
    *const u32,
    *const u32,
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
    *mut u32,
    *mut u32,
    *mut u32,
    *mut u64,
    *mut u32,
    *mut u64,
);

/// Threads per block of `ghost_zone_search`: exactly these (it strides
/// by them when it copies a zone's image).
pub const BLOCK_SIZE: u32 = 1024;

/// Shared words of `ghost_zone_search` before its per-vertex arrays: the
/// grid barrier's count, three rotating queue tails, the block's next
/// entry of a step's list, padding to 16 bytes.
pub const HEADER_WORDS: u32 = 8;

/// Dynamic shared memory of `ghost_zone_search` for zones of at most
/// `zone_capacity` vertices (a multiple of 8, so that the image starts on
/// 16 bytes) and images of at most `image_capacity` words: the header,
/// then per zone vertex a level (`u32`), a parent and an entry in each of
/// two level queues (local indices, `u16`), then the zone's image
/// ([`GhostZoneImage`]).
pub const fn shared_bytes(zone_capacity: u32, image_capacity: u32) -> u32 {
    4 * HEADER_WORDS + 10 * zone_capacity + 4 * image_capacity
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
