//! Kernel entry point of the `on-chip` variant, in the sm_90 module.

use super::entry_points;

entry_points! {
    /// Searches the whole graph in one thread-block cluster's shared
    /// memory. Its parameters: the segments, the vertex count, the
    /// neighbour capacity, the source, the levels and the parents.
    pub const SEARCH: Kernel<Search> = Kernel::new("on_chip_search");
}

/// The parameters of [`SEARCH`].
pub type Search = (*const u32, u32, u32, u32, *mut u32, *mut u32);

/// Threads per block of `on_chip_search` (one block per multiprocessor of
/// the cluster).
pub const BLOCK_SIZE: u32 = 512;

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
