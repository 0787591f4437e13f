//! The steps every queue-based kernel shares: walking an adjacency list and
//! claiming an unvisited neighbour.
//!
//! Kirk & Hwu (*Programming Massively Parallel Processors*, 3rd ed., §12.3):
//! `if (atomicExch(&visited[neighbour], 1) == 0) { label it; enqueue it }`.
//! Here `visited` is a bitmap, one bit per vertex (bit `v % 32` of word
//! `v / 32`): 32 times less memory, and cache, than a word per vertex. The
//! claim is `atomicOr` of the vertex's bit, which returns the old word;
//! exactly one thread sees the bit clear, so each vertex is labelled and
//! enqueued once and its parent is the winner's vertex.
//!
//! Two ways to claim, for two kinds of level. [`claim`] reads the bit first
//! and skips the atomic when it is already set (test-and-test-and-set): for
//! large levels, where most neighbours are visited and atomics are traffic.
//! [`expand_in_warp_step`] is for the small levels of high-diameter graphs,
//! where a level costs the latency of its chain of dependent memory
//! accesses, not their number: it loads several neighbours at once and
//! sends their atomics together, without the read first (one round trip,
//! not two), and a warp reserves its queue slots with one atomic.

use crate::abi::EdgeOffset;
use crate::abi::frontier::FrontierLevel;
use crate::gpu::{self, FULL_WARP};

/// A row offset as the device holds it: [`EdgeOffset`] (`u64`) for any
/// graph, or `u32` for a graph of fewer than 2^32 CSR entries, whose rows
/// then cost half the bytes to read (a bottom-up level reads one per
/// unvisited vertex). Kernels compute with [`EdgeOffset`] either way.
pub trait RowOffset: Copy {
    /// The offset at `address`, through the read-only cache, widened.
    ///
    /// # Safety
    /// `address` is valid and aligned, and nothing writes it during the launch.
    unsafe fn load_read_only(address: *const Self) -> EdgeOffset;

    /// The offset, widened.
    fn widen(self) -> EdgeOffset;
}

impl RowOffset for EdgeOffset {
    #[inline(always)]
    unsafe fn load_read_only(address: *const Self) -> EdgeOffset {
        // SAFETY: forwarded from the caller.
        unsafe { gpu::load_read_only_u64(address) }
    }

    #[inline(always)]
    fn widen(self) -> EdgeOffset {
        self
    }
}

impl RowOffset for u32 {
    #[inline(always)]
    unsafe fn load_read_only(address: *const Self) -> EdgeOffset {
        // SAFETY: forwarded from the caller.
        unsafe { gpu::load_read_only(address) as EdgeOffset }
    }

    #[inline(always)]
    fn widen(self) -> EdgeOffset {
        self as EdgeOffset
    }
}

/// Defines a kernel's two entry points, `$wide` over [`EdgeOffset`] row
/// offsets and `$narrow` over `u32` ones, each taking its row offsets as
/// `$rows` and the other parameters, and running `$body`, a call generic
/// over the offsets' width, with them. The narrow one serves a graph of
/// fewer than 2^32 CSR entries, where a level that reads a row per vertex
/// reads 8 bytes a row, not 16.
macro_rules! entry_points_by_row_offset {
    (
        $(#[$wide_attribute:meta])* $wide:ident,
        $narrow:ident,
        |$rows:ident, $($parameter:ident: $type:ty),* $(,)?| $body:expr
    ) => {
        $(#[$wide_attribute])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $wide(
            $rows: *const $crate::abi::EdgeOffset,
            $($parameter: $type),*
        ) {
            // SAFETY: forwarded from the caller.
            unsafe { $body }
        }

        #[doc = concat!("[`", stringify!($wide), "`] with row offsets in 32 bits.")]
        ///
        /// # Safety
        #[doc = concat!("As [`", stringify!($wide), "`].")]
        ///
        /// # Launch
        #[doc = concat!("As [`", stringify!($wide), "`].")]
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $narrow($rows: *const u32, $($parameter: $type),*) {
            // SAFETY: forwarded from the caller.
            unsafe { $body }
        }
    };
}
pub(crate) use entry_points_by_row_offset;

/// Claims `neighbour`, discovered from `vertex`, for `next_level`; returns
/// whether this thread won it (and so must enqueue it).
///
/// # Safety
/// `neighbour` indexes `levels` and `parents`, and its bit `visited`, all
/// owned by the caller's kernel for this launch.
#[inline(always)]
pub unsafe fn claim(
    visited: *mut u32,
    levels: *mut u32,
    parents: *mut u32,
    neighbour: u32,
    vertex: u32,
    next_level: u32,
) -> bool {
    let (word, bit) = (visited_word(visited, neighbour), visited_bit(neighbour));
    // SAFETY: in bounds per the contract; the plain read may be stale, which
    // only sends a thread on to the atomic, and the atomic decides.
    unsafe {
        if core::ptr::read_volatile(word) & bit != 0 || gpu::atomic_or(word, bit) & bit != 0 {
            return false;
        }
        label(levels, parents, neighbour, vertex, next_level);
    }
    true
}

impl FrontierLevel {
    /// [`claim`]s `neighbour`, discovered from frontier vertex `vertex`,
    /// for the next level, in this level's labels.
    ///
    /// # Safety
    /// As [`claim`]: `neighbour < n`.
    #[inline(always)]
    pub unsafe fn claim(&self, neighbour: u32, vertex: u32) -> bool {
        // SAFETY: forwarded from the caller.
        unsafe {
            claim(
                self.visited,
                self.levels,
                self.parents,
                neighbour,
                vertex,
                self.level + 1,
            )
        }
    }
}

/// Claims all of `vertex`'s neighbours, `column_indices[edge..end]`, for
/// `next_level`, in step with the other lanes of its warp: [`CLAIM_BATCH`]
/// at a time ([`claim_batch`]), each batch's queue slots reserved for the
/// whole warp at once ([`warp_reserve`](gpu::warp_reserve)) through
/// `reserve(total)`, which returns the first of `total` slots (an atomic on
/// a queue's tail). Calls `append(slot, neighbour, row)` for each neighbour
/// this thread won, with the neighbour's row.
///
/// # Safety
/// Every lane of the warp calls it (one with nothing to expand passes an
/// empty row, `edge == end`); `edge <= end <= row_offsets[n]`; the graph as
/// for [`neighbours`], and `visited`, `levels`, `parents` as for [`claim`].
#[inline(always)]
pub unsafe fn expand_in_warp_step<O: RowOffset>(
    graph: (*const O, *const u32),
    labels: (*mut u32, *mut u32, *mut u32),
    (vertex, (mut edge, end)): (u32, (EdgeOffset, EdgeOffset)),
    next_level: u32,
    mut reserve: impl FnMut(u32) -> u32,
    mut append: impl FnMut(u32, u32, (EdgeOffset, EdgeOffset)),
) {
    while gpu::ballot(FULL_WARP, edge < end) != 0 {
        let batch = if edge < end {
            // SAFETY: `edge < end` within the row (the contract).
            unsafe { claim_batch(graph, labels, (edge, end), vertex, next_level) }
        } else {
            Batch::EMPTY
        };
        let mut slot = gpu::warp_reserve(batch.won.count_ones(), &mut reserve);
        for k in 0..CLAIM_BATCH {
            if batch.won & (1 << k) != 0 {
                append(slot, batch.neighbours[k], batch.rows[k]);
                slot += 1;
            }
        }
        edge += (end - edge).min(CLAIM_BATCH as EdgeOffset);
    }
}

/// Neighbours a thread claims at once in [`claim_batch`].
const CLAIM_BATCH: usize = 4;

/// The outcome of [`claim_batch`].
struct Batch {
    /// The neighbours examined (entries past the row's end are unused).
    neighbours: [u32; CLAIM_BATCH],
    /// Bit `k` is set when this thread won `neighbours[k]`.
    won: u32,
    /// Each won neighbour's row, `(first_edge, end_edge)`.
    rows: [(EdgeOffset, EdgeOffset); CLAIM_BATCH],
}

impl Batch {
    /// No neighbours: what a lane with nothing to claim contributes to a
    /// warp-wide step.
    const EMPTY: Batch = Batch {
        neighbours: [0; CLAIM_BATCH],
        won: 0,
        rows: [(0, 0); CLAIM_BATCH],
    };
}

/// Claims the neighbours `column_indices[edge..end.min(edge + CLAIM_BATCH)]`
/// of `vertex` for `next_level`, with their loads in flight together and
/// then their atomics; each neighbour's row is loaded alongside its atomic,
/// so a kernel can queue the row with the vertex and the next level need
/// not wait for it.
///
/// # Safety
/// `edge < end <= row_offsets[n]`, the graph as for [`neighbours`], and
/// `visited`, `levels`, `parents` as for [`claim`].
#[inline(always)]
// Indexed loops over a constant range unroll and keep the arrays in
// registers; zipped iterators left them in a 72-byte stack frame.
#[allow(clippy::needless_range_loop)]
unsafe fn claim_batch<O: RowOffset>(
    (row_offsets, column_indices): (*const O, *const u32),
    (visited, levels, parents): (*mut u32, *mut u32, *mut u32),
    (edge, end): (EdgeOffset, EdgeOffset),
    vertex: u32,
    next_level: u32,
) -> Batch {
    let mut batch = Batch::EMPTY;
    let count = (end - edge) as usize;
    // SAFETY: edges `edge..end` lie within the row (the contract), and only
    // those are loaded; neighbours are vertex ids `< n`.
    unsafe {
        for k in 0..CLAIM_BATCH {
            if k < count {
                batch.neighbours[k] = gpu::load_read_only(column_indices.add(edge as usize + k));
            }
        }
        let mut old_words = [u32::MAX; CLAIM_BATCH];
        for k in 0..CLAIM_BATCH {
            if k < count {
                let neighbour = batch.neighbours[k];
                old_words[k] =
                    gpu::atomic_or(visited_word(visited, neighbour), visited_bit(neighbour));
                batch.rows[k] = row(row_offsets, neighbour);
            }
        }
        for k in 0..CLAIM_BATCH {
            let neighbour = batch.neighbours[k];
            if old_words[k] & visited_bit(neighbour) == 0 {
                label(levels, parents, neighbour, vertex, next_level);
                batch.won |= 1 << k;
            }
        }
    }
    batch
}

/// Whether `vertex`'s bit is set in the `visited` bitmap.
///
/// # Safety
/// `vertex`'s word is within `visited`.
#[inline(always)]
pub unsafe fn is_visited(visited: *const u32, vertex: u32) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        core::ptr::read_volatile(visited.add((vertex / 32) as usize)) & visited_bit(vertex) != 0
    }
}

/// Sets `vertex`'s bit in the `visited` bitmap (atomically: the word's
/// other 31 vertices may be claimed at the same time).
///
/// # Safety
/// `vertex`'s word is within `visited`.
#[inline(always)]
pub unsafe fn mark_visited(visited: *mut u32, vertex: u32) {
    // SAFETY: forwarded from the caller.
    unsafe { gpu::atomic_or(visited_word(visited, vertex), visited_bit(vertex)) };
}

/// The `visited` word holding `vertex`'s bit.
#[inline(always)]
fn visited_word(visited: *mut u32, vertex: u32) -> *mut u32 {
    visited.wrapping_add((vertex / 32) as usize)
}

/// `vertex`'s bit within its `visited` word.
#[inline(always)]
fn visited_bit(vertex: u32) -> u32 {
    1 << (vertex % 32)
}

/// Records a claimed `neighbour`'s level and parent.
///
/// # Safety
/// `neighbour` indexes `levels` and `parents`, and this thread claimed it.
#[inline(always)]
unsafe fn label(levels: *mut u32, parents: *mut u32, neighbour: u32, vertex: u32, level: u32) {
    // SAFETY: forwarded from the caller; the claim makes the writes this thread's alone.
    unsafe {
        *levels.add(neighbour as usize) = level;
        *parents.add(neighbour as usize) = vertex;
    }
}

/// `vertex`'s row: `(row_offsets[v], row_offsets[v + 1])`, loaded together
/// through the read-only cache.
///
/// # Safety
/// `vertex < n` and `row_offsets` has `n + 1` entries, not written while the kernel runs.
#[inline(always)]
pub unsafe fn row<O: RowOffset>(row_offsets: *const O, vertex: u32) -> (EdgeOffset, EdgeOffset) {
    // SAFETY: in bounds per the contract.
    unsafe {
        (
            O::load_read_only(row_offsets.add(vertex as usize)),
            O::load_read_only(row_offsets.add(vertex as usize + 1)),
        )
    }
}

/// The neighbours of `vertex`: `column_indices[row_offsets[v]..row_offsets[v + 1]]`,
/// loaded through the read-only data cache (the graph never changes during a search).
///
/// # Safety
/// `vertex < n`, `row_offsets` has `n + 1` entries and `column_indices` has
/// `row_offsets[n]`, none written while the kernel runs.
#[inline(always)]
pub unsafe fn neighbours<O: RowOffset>(
    row_offsets: *const O,
    column_indices: *const u32,
    vertex: u32,
) -> impl Iterator<Item = u32> {
    // SAFETY: forwarded from the caller.
    unsafe { neighbours_through::<O, true>(row_offsets, column_indices, vertex) }
}

/// [`neighbours`], through the read-only cache or with plain loads, so a
/// benchmark can measure what the read-only cache buys.
///
/// # Safety
/// As [`neighbours`].
#[inline(always)]
pub unsafe fn neighbours_through<O: RowOffset, const READ_ONLY_CACHE: bool>(
    row_offsets: *const O,
    column_indices: *const u32,
    vertex: u32,
) -> impl Iterator<Item = u32> {
    // SAFETY: in bounds per the contract.
    let (first_edge, end_edge) = unsafe {
        if READ_ONLY_CACHE {
            row(row_offsets, vertex)
        } else {
            (
                (*row_offsets.add(vertex as usize)).widen(),
                (*row_offsets.add(vertex as usize + 1)).widen(),
            )
        }
    };
    // SAFETY: the row lies within `column_indices` per the contract.
    unsafe { row_neighbours::<READ_ONLY_CACHE>(column_indices, (first_edge, end_edge)) }
}

/// The neighbours in the row `column_indices[first_edge..end_edge]`,
/// counted from the row's start in 32 bits (a degree is below `n`), so the
/// loop's index stays one register where a 64-bit edge offset would take two.
///
/// # Safety
/// The row lies within `column_indices`, which no thread writes during the launch.
#[inline(always)]
pub unsafe fn row_neighbours<const READ_ONLY_CACHE: bool>(
    column_indices: *const u32,
    (first_edge, end_edge): (EdgeOffset, EdgeOffset),
) -> impl Iterator<Item = u32> {
    let row = column_indices.wrapping_add(first_edge as usize);
    // SAFETY: each index is below the row's length (the contract).
    (0..(end_edge - first_edge) as u32)
        .map(move |index| unsafe { load::<READ_ONLY_CACHE>(row.add(index as usize)) })
}

/// A load of data no thread writes during the launch: through the read-only
/// cache (`ld.global.nc`, CUDA's `__ldg`) or a plain `ld.global`.
///
/// # Safety
/// `address` is valid and aligned, and nothing writes it during the launch.
#[inline(always)]
pub unsafe fn load<const READ_ONLY_CACHE: bool>(address: *const u32) -> u32 {
    // SAFETY: forwarded from the caller.
    unsafe {
        if READ_ONLY_CACHE {
            gpu::load_read_only(address)
        } else {
            *address
        }
    }
}
