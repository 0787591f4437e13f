//! Results into vectors their owner gave back: a search's levels and
//! parents are copied out of the staging into vectors that earlier
//! results' owners returned ([`Gpu::recycle`](super::Gpu::recycle)),
//! whose pages are faulted in already. A fresh result of a road network's
//! size is mostly fresh pages: the C library hands freed blocks that large
//! back to the kernel and maps them anew for the next one, and the copy
//! then faults them in one by one, which for a single search cost more
//! than the search itself. Python's `Graph.bfs` gives each array's vector
//! back as numpy frees it; a caller that gives nothing back gets fresh
//! vectors, as before.
//!
//! Only searches whose labels come back whole from the device take them
//! (those that renumber or assemble their result on the host do not).
//! The vectors are plain ones, owned by the pool while they are in it:
//! nothing is registered with the driver, so giving one back, or never
//! giving it, needs no CUDA call and leaves nothing behind.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

/// Most vectors a device keeps: a loop of searches with parents needs the
/// two of the result in hand and the two before it.
const MOST_KEPT: usize = 4;

/// Most bytes a device keeps, all its vectors together (their capacity):
/// past it, the search and the copy dwarf the pages' faults, and the
/// memory kept would not be small.
const MOST_KEPT_BYTES: usize = 256 << 20;

/// A device's vectors given back, oldest first.
#[derive(Default)]
pub struct Recycled {
    kept: Mutex<VecDeque<Vec<u32>>>,
}

impl Recycled {
    /// Keeps `vector` for a later result, the oldest kept ones making room
    /// past [`MOST_KEPT`] or [`MOST_KEPT_BYTES`]; an empty one, or one
    /// larger than all the room, is freed.
    pub(super) fn give(&self, vector: Vec<u32>) {
        let bytes = |vector: &Vec<u32>| vector.capacity() * size_of::<u32>();
        if vector.is_empty() || bytes(&vector) > MOST_KEPT_BYTES {
            return;
        }
        let mut freed = Vec::new();
        {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            kept.push_back(vector);
            while kept.len() > MOST_KEPT || kept.iter().map(bytes).sum::<usize>() > MOST_KEPT_BYTES
            {
                freed.extend(kept.pop_front());
            }
        }
        // Freed after the lock, which a search may be waiting for.
        drop(freed);
    }

    /// The vector of `len` values given back last (holding stale values),
    /// where there is one.
    pub(super) fn take(&self, len: usize) -> Option<Vec<u32>> {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let at = kept.iter().rposition(|vector| vector.len() == len)?;
        kept.remove(at)
    }
}
