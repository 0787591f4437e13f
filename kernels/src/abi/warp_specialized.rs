//! Kernel entry point of the `warp-specialized` variant.

use super::{EdgeOffset, entry_points};

entry_points! {
    /// Searches every partition in its block's shared memory, a searcher
    /// warp and a messenger warp a block, until nothing is outstanding.
    /// Its parameters: those of
    /// [`partitioned::SEARCH`](super::partitioned::SEARCH) without the
    /// level window.
    pub const SEARCH: Kernel<Search> = Kernel::new("warp_specialized_search");
}

/// The parameters of [`SEARCH`].
pub type Search = (
    *const EdgeOffset,
    *const u32,
    u32,
    u32,
    u32,
    *mut u64,
    *mut u32,
    *mut u64,
    *mut u64,
);

/// Threads per block of `warp_specialized_search`: the searcher warp and
/// the messenger warp.
pub const BLOCK_SIZE: u32 = 64;

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
/// ring twice that, and at least twice [`TAKE`].
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
pub const CONTROL_WORDS: u32 = 8;

/// Dirty bits the messenger of `warp_specialized_search` takes at once (a
/// word a lane): it takes them only while the incoming ring has room for
/// them all.
pub const TAKE: u32 = 32 * 32;

impl WarpSpecializedLayout {
    /// The layout for partitions of `partition_size` vertices and room for
    /// `column_capacity` neighbours.
    pub const fn new(partition_size: u32, column_capacity: u32) -> WarpSpecializedLayout {
        let queue_capacity = partition_size.next_power_of_two();
        let incoming_capacity = if queue_capacity > TAKE {
            2 * queue_capacity
        } else {
            2 * TAKE
        };
        let incoming = CONTROL_WORDS;
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
