//! Counting degrees and scattering edges into CSR rows a batch of edges at
//! a time, through a small direct-mapped table in front of the shared
//! atomic counters.
//!
//! Many threads count and place edges at once, each edge with an atomic on
//! its tail's counter. On a scale-free graph a few hubs hold much of every
//! batch's edges, and every thread's atomics then fight over the same few
//! cache lines. A table per batch gathers a vertex's edges first: its count is added in
//! one atomic when the vertex leaves the table, and its heads are written
//! as one run of slots reserved with one atomic ([`ROW_RUN`] at most).
//! Ordinary vertices pass through the table at the cost of one more
//! memory access each.
//!
//! On a large graph the time goes to memory: each ordinary vertex's
//! counter and the slots of its row are cache misses, and an atomic waits
//! for every store before it. So both are fetched ahead ([`prefetch`]): a
//! counter when its vertex enters the table (it leaves, and its atomic
//! runs, some hundreds of edges later), and a run's slots when the atomic
//! reserves them, the heads written [`PENDING`] runs later.

use std::sync::atomic::{AtomicU64, Ordering};

/// Entries of the table.
const SLOTS: usize = 256;

/// Most heads a row's entry holds before they are written out together.
pub const ROW_RUN: usize = 15;

/// Runs reserved and waiting for their slots' cache lines before their
/// heads are written.
const PENDING: usize = 16;

/// A vertex id no graph has (ids are below `u32::MAX`): an empty slot.
const EMPTY: u32 = u32::MAX;

/// Asks for the cache line at `address` ahead of its use: a hint, where
/// the target has one.
fn prefetch<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// The slot of `vertex`: Fibonacci hashing, so consecutive ids spread.
fn slot_of(vertex: u32) -> usize {
    (vertex.wrapping_mul(0x9E37_79B9) >> (32 - SLOTS.trailing_zeros())) as usize
}

/// A batch's degree counts on their way to the shared counters.
pub struct BatchDegrees<'c> {
    counters: &'c [AtomicU64],
    vertices: Vec<u32>,
    counts: Vec<u64>,
}

impl<'c> BatchDegrees<'c> {
    /// An empty table in front of `counters`.
    pub fn new(counters: &'c [AtomicU64]) -> Self {
        BatchDegrees {
            counters,
            vertices: vec![EMPTY; SLOTS],
            counts: vec![0; SLOTS],
        }
    }

    /// Counts one more edge of `vertex`.
    pub fn add(&mut self, vertex: u32) {
        let slot = slot_of(vertex);
        if self.vertices[slot] != vertex {
            self.flush(slot);
            self.vertices[slot] = vertex;
            prefetch(&self.counters[vertex as usize]);
        }
        self.counts[slot] += 1;
    }

    /// Adds a slot's count to its vertex's counter, and empties it.
    fn flush(&mut self, slot: usize) {
        if self.counts[slot] > 0 {
            self.counters[self.vertices[slot] as usize]
                .fetch_add(self.counts[slot], Ordering::Relaxed);
            self.counts[slot] = 0;
        }
    }
}

impl Drop for BatchDegrees<'_> {
    /// The batch's last counts reach the counters.
    fn drop(&mut self) {
        (0..SLOTS).for_each(|slot| self.flush(slot));
    }
}

/// Where a batch's heads go: `write(slot, head)` puts a head at a slot of
/// the column array that a row's cursor handed out.
pub trait Columns: Sync {
    /// # Safety
    /// `slot` is in bounds, and no other thread writes it.
    unsafe fn write(&self, slot: usize, head: u32);

    /// The address of `slot`, for a prefetch.
    fn address(&self, slot: usize) -> *const u32;
}

/// A run of heads whose slots are reserved, waiting to be written.
#[derive(Clone, Copy)]
struct Run {
    first: usize,
    length: u8,
    heads: [u32; ROW_RUN],
}

/// A batch's edges on their way to their rows: each row's cursor (its
/// counter) hands out a run of slots at a time.
pub struct BatchRows<'c, C: Columns> {
    cursors: &'c [AtomicU64],
    columns: &'c C,
    vertices: Vec<u32>,
    lengths: Vec<u8>,
    heads: Vec<[u32; ROW_RUN]>,
    /// A ring of reserved runs; `next` is the oldest.
    pending: [Run; PENDING],
    next: usize,
}

impl<'c, C: Columns> BatchRows<'c, C> {
    /// An empty table in front of the rows' `cursors` into `columns`.
    pub fn new(cursors: &'c [AtomicU64], columns: &'c C) -> Self {
        BatchRows {
            cursors,
            columns,
            vertices: vec![EMPTY; SLOTS],
            lengths: vec![0; SLOTS],
            heads: vec![[0; ROW_RUN]; SLOTS],
            pending: [Run {
                first: 0,
                length: 0,
                heads: [0; ROW_RUN],
            }; PENDING],
            next: 0,
        }
    }

    /// Places `head` in `tail`'s row.
    ///
    /// # Safety
    /// Over all batches, the edges placed in each row are no more than its
    /// cursor has slots left within the row (the degree the count gave).
    pub unsafe fn place(&mut self, tail: u32, head: u32) {
        let slot = slot_of(tail);
        if self.vertices[slot] != tail {
            // SAFETY: forwarded from the caller.
            unsafe { self.write_out(slot) };
            self.vertices[slot] = tail;
            prefetch(&self.cursors[tail as usize]);
        }
        let length = self.lengths[slot] as usize;
        self.heads[slot][length] = head;
        self.lengths[slot] += 1;
        if length + 1 == ROW_RUN {
            // SAFETY: forwarded from the caller.
            unsafe { self.write_out(slot) };
        }
    }

    /// Reserves a run of its row's slots for a slot's heads, and empties
    /// it; the heads wait in the ring, and the oldest run there is written.
    ///
    /// # Safety
    /// As [`place`](Self::place).
    unsafe fn write_out(&mut self, slot: usize) {
        let length = self.lengths[slot];
        if length == 0 {
            return;
        }
        let cursor = &self.cursors[self.vertices[slot] as usize];
        let first = cursor.fetch_add(length as u64, Ordering::Relaxed) as usize;
        prefetch(self.columns.address(first));
        let run = Run {
            first,
            length,
            heads: self.heads[slot],
        };
        let oldest = std::mem::replace(&mut self.pending[self.next], run);
        self.next = (self.next + 1) % PENDING;
        // SAFETY: forwarded from the caller.
        unsafe { self.write(oldest) };
        self.lengths[slot] = 0;
    }

    /// Writes a reserved run's heads.
    ///
    /// # Safety
    /// The run's slots were handed out by a cursor, to this table alone.
    unsafe fn write(&self, run: Run) {
        for (offset, &head) in run.heads[..run.length as usize].iter().enumerate() {
            // SAFETY: the cursor handed out `first..first + length` to this
            // thread alone, within the row (the caller's contract).
            unsafe { self.columns.write(run.first + offset, head) };
        }
    }
}

impl<C: Columns> Drop for BatchRows<'_, C> {
    /// The batch's last heads reach their rows.
    fn drop(&mut self) {
        // SAFETY: `place`'s callers promised room for every head placed,
        // and the ring's runs were reserved by `write_out`.
        unsafe {
            (0..SLOTS).for_each(|slot| self.write_out(slot));
            self.pending.iter().for_each(|&run| self.write(run));
        }
    }
}
