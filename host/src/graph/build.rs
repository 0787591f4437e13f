//! Building a [`Csr`] from edge tuples in parallel: degrees counted, rows
//! scattered through atomic cursors, then each row sorted and deduplicated.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use super::batched::{BatchDegrees, BatchRows, Columns};
use super::host_memory::fits_in_host_memory;
use super::{Csr, EdgeOffset};
use crate::{Error, Result};

/// Checks that a CSR of `vertex_count` vertices built from at most
/// `most_edges` edges (mirrored where `symmetric`) fits in the host's
/// memory as [`Csr::from_edge_passes`] builds it: the row offsets and the
/// cursors beside them, the self loops' counts, and the entries.
pub(super) fn build_fits(
    vertex_count: u32,
    most_edges: u64,
    symmetric: bool,
) -> Result<(), String> {
    let offsets_bytes = size_of::<EdgeOffset>() as u64 * (vertex_count as u64 + 1);
    let (copies, loops_bytes) = match symmetric {
        true => (2, 4 * vertex_count as u64),
        false => (1, 0),
    };
    let most_entries = most_edges.saturating_mul(copies);
    let bytes = (2 * offsets_bytes + loops_bytes).saturating_add(most_entries.saturating_mul(4));
    fits_in_host_memory(
        bytes,
        vertex_count,
        (most_entries > 0).then_some(most_entries),
    )
}

/// A function given the edges `(tail, head)`, 0-based, a batch at a time,
/// from many threads.
pub type Visitor<'a> = &'a (dyn Fn(&[(u32, u32)]) + Sync);

/// Edges of a slice that [`Csr::from_edges`] visits as one batch.
const EDGES_PER_BATCH: usize = 1 << 16;

impl Csr {
    /// Builds the CSR of `vertex_count` vertices from directed `(tail, head)`
    /// edges, in parallel; with `symmetric`, each edge is also added
    /// reversed. Sorts each adjacency list and drops duplicates and self
    /// loops.
    ///
    /// An id `>= vertex_count` is an error.
    pub fn from_edges(vertex_count: u32, edges: &[(u32, u32)], symmetric: bool) -> Result<Csr> {
        let beyond = edges
            .par_iter()
            .find_first(|&&(tail, head)| tail.max(head) >= vertex_count);
        if let Some(&(tail, head)) = beyond {
            return Err(Error::Invalid(format!(
                "edge {tail} -> {head} names a vertex beyond the {vertex_count} vertices"
            )));
        }
        let pass = |visit: Visitor<'_>| edges.par_chunks(EDGES_PER_BATCH).for_each(visit);
        Self::from_edge_passes((vertex_count, edges.len() as u64), symmetric, pass)
    }

    /// Builds a CSR from a source of directed edges that can be walked twice
    /// (chunks of edges in memory, or a seeded generator run again), in
    /// parallel and without holding them: the first `pass` counts each vertex's degree,
    /// the degrees are prefix-summed into row offsets, and the second `pass`
    /// scatters each edge to its row through an atomic cursor (both a batch
    /// at a time, through `batched`'s tables); then the rows are sorted
    /// and deduplicated. Self loops are dropped; with `symmetric`
    /// each edge is also added reversed, and the tuples' ends at each
    /// vertex are kept for Graph500's edge count. `pass` visits at most
    /// `most_edges` edges. A graph whose most edges would not fit the
    /// host's memory is refused before any pass, at once, not after a
    /// count of its edges.
    pub fn from_edge_passes(
        (vertex_count, most_edges): (u32, u64),
        symmetric: bool,
        pass: impl Fn(Visitor<'_>),
    ) -> Result<Csr> {
        build_fits(vertex_count, most_edges, symmetric).map_err(Error::GraphTooLarge)?;
        let mut counters = zeroed_counters(vertex_count as usize + 1);
        prefer_huge_pages(&mut counters);
        let loops: Vec<AtomicU32> = match symmetric {
            true => (0..vertex_count)
                .into_par_iter()
                .map(|_| AtomicU32::new(0))
                .collect(),
            false => Vec::new(),
        };
        pass(&|edges| {
            let mut degrees = BatchDegrees::new(&counters);
            for &(tail, head) in edges {
                if tail == head {
                    if symmetric {
                        loops[tail as usize].fetch_add(1, Ordering::Relaxed);
                    }
                } else {
                    degrees.add(tail);
                    if symmetric {
                        degrees.add(head);
                    }
                }
            }
        });
        let input_edge_ends = symmetric
            .then(|| input_edge_ends(&counters, loops))
            .flatten();

        // Degrees become row offsets; the counters become each row's cursor.
        let mut offsets = Vec::with_capacity(counters.len());
        let mut total: EdgeOffset = 0;
        for counter in &counters {
            offsets.push(total);
            total += counter.swap(total, Ordering::Relaxed);
        }
        let mut column_indices = vec![0u32; total as usize];
        prefer_huge_pages(&mut column_indices);
        let columns = SharedColumns(column_indices.as_mut_ptr());
        pass(&|edges| {
            let mut rows = BatchRows::new(&counters, &columns);
            for &(tail, head) in edges.iter().filter(|(tail, head)| tail != head) {
                // SAFETY: the second pass visits the same edges as the
                // first, so each row gets as many heads as its cursor has
                // slots, and rows lie within `column_indices`.
                unsafe {
                    rows.place(tail, head);
                    if symmetric {
                        rows.place(head, tail);
                    }
                }
            }
        });
        drop(counters);
        let mut graph = Self::sorted_and_deduplicated(offsets, column_indices, Loops::Absent);
        graph.input_edge_ends = input_edge_ends;
        if symmetric {
            // Each edge went in both ways: no pass over the edges needed to know.
            graph.symmetric = OnceLock::from(true);
        }
        Ok(graph)
    }

    /// A CSR from rows as other libraries hold them (scipy's CSR, a
    /// networkx graph's adjacency): the offsets checked as
    /// [`from_parts`](Self::from_parts) checks them and every id below
    /// `n`, but a row may be unsorted, repeat a neighbour or name its own
    /// vertex. Rows that do are sorted and deduplicated and lose their self
    /// loops (in parallel), so the graph is the one [`from_edges`](Self::from_edges)
    /// builds from the same entries; rows that do not are taken as they are.
    pub fn from_rows(
        row_offsets: Vec<EdgeOffset>,
        column_indices: Vec<u32>,
    ) -> Result<Csr, String> {
        let vertex_count = super::csr::vertex_count_of(&row_offsets, column_indices.len())?;
        let row = |vertex: usize| {
            &column_indices[row_offsets[vertex] as usize..row_offsets[vertex + 1] as usize]
        };
        // One pass over the rows says both whether every id is a vertex
        // and whether the rows are canonical: sorted, no repeats, no loops.
        let (named, canonical) = balanced_ranges(&row_offsets, rayon::current_num_threads() * 8)
            .into_par_iter()
            .map(|(first, end)| {
                let (mut named, mut canonical) = (true, true);
                for vertex in first..end {
                    let mut last = None;
                    for &column in row(vertex) {
                        named &= (column as usize) < vertex_count;
                        canonical &= last < Some(column) && column as usize != vertex;
                        last = Some(column);
                    }
                }
                (named, canonical)
            })
            .reduce(|| (true, true), |(a, b), (c, d)| (a && c, b && d));
        if !named {
            let &column = column_indices
                .iter()
                .find(|&&column| column as usize >= vertex_count)
                .expect("the pass found one");
            return Err(format!(
                "column index {column} names no vertex: the graph has {vertex_count}"
            ));
        }
        Ok(match canonical {
            true => Csr::from_valid_parts(row_offsets, column_indices),
            false => Self::sorted_and_deduplicated(row_offsets, column_indices, Loops::Drop),
        })
    }

    /// Sorts each row, drops duplicates (and, where `loops` says, the
    /// row's own vertex), in parallel over ranges of rows, and compacts
    /// the rows.
    fn sorted_and_deduplicated(
        row_offsets: Vec<EdgeOffset>,
        mut column_indices: Vec<u32>,
        loops: Loops,
    ) -> Csr {
        let vertex_count = row_offsets.len() - 1;
        let ranges = balanced_ranges(&row_offsets, rayon::current_num_threads() * 8);
        let mut kept = vec![0u32; vertex_count];
        let widths = ranges
            .iter()
            .map(|&(first, end)| (row_offsets[end] - row_offsets[first]) as usize);
        let columns = pieces_mut(&mut column_indices, widths);
        let kept_pieces = pieces_mut(&mut kept, ranges.iter().map(|&(first, end)| end - first));
        let tasks = ranges.into_par_iter().zip(columns).zip(kept_pieces);
        tasks.for_each(|(((first, _), columns), kept)| {
            let base = row_offsets[first] as usize;
            for (row, kept) in kept.iter_mut().enumerate() {
                let vertex = first + row;
                let begin = row_offsets[vertex] as usize - base;
                let end = row_offsets[vertex + 1] as usize - base;
                let row = &mut columns[begin..end];
                *kept = sort_and_deduplicate(row);
                if loops == Loops::Drop {
                    *kept = without(&mut row[..*kept as usize], vertex as u32);
                }
            }
        });
        Self::compacted(row_offsets, &kept, column_indices)
    }

    /// The CSR of rows that keep only their first `kept[v]` entries, moved
    /// together.
    pub(super) fn compacted(
        mut row_offsets: Vec<EdgeOffset>,
        kept: &[u32],
        mut column_indices: Vec<u32>,
    ) -> Csr {
        let vertex_count = row_offsets.len() - 1;
        let mut write = 0usize;
        for vertex in 0..vertex_count {
            let begin = row_offsets[vertex] as usize;
            let count = kept[vertex] as usize;
            column_indices.copy_within(begin..begin + count, write);
            row_offsets[vertex] = write as EdgeOffset;
            write += count;
        }
        row_offsets[vertex_count] = write as EdgeOffset;
        column_indices.truncate(write);
        column_indices.shrink_to_fit();
        Csr::from_valid_parts(row_offsets, column_indices)
    }
}

/// Each vertex's input tuple ends: its counted degree (loops left out) and
/// twice its loops; `None` where a count passes `u32`.
fn input_edge_ends(degrees: &[AtomicU64], loops: Vec<AtomicU32>) -> Option<Vec<u32>> {
    loops
        .into_par_iter()
        .zip(degrees)
        .map(|(loops, degree)| {
            let ends = degree.load(Ordering::Relaxed) + 2 * loops.into_inner() as u64;
            u32::try_from(ends).ok()
        })
        .collect()
}

/// `count` atomic counters at 0, allocated zeroed, so pages are mapped only
/// as they are used: a header's false claim of billions of vertices costs
/// nothing until its entries are read and found wanting.
fn zeroed_counters(count: usize) -> Vec<AtomicU64> {
    let mut zeros = std::mem::ManuallyDrop::new(vec![0u64; count]);
    // SAFETY: `AtomicU64` has the size, alignment and bit validity of `u64`,
    // and all-zero bits are `AtomicU64::new(0)`; the allocation is handed
    // over whole (pointer, length, capacity) and the original never dropped.
    unsafe {
        Vec::from_raw_parts(
            zeros.as_mut_ptr().cast::<AtomicU64>(),
            zeros.len(),
            zeros.capacity(),
        )
    }
}

/// Asks the kernel to back `values`, not yet touched, with huge pages
/// where it will: the passes' writes land at random across them, and
/// with 4-KB pages nearly each one misses the TLB. Only a hint: where
/// the kernel declines, nothing changes.
pub(crate) fn prefer_huge_pages<T>(values: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = values.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(values);
        let aligned = start.next_multiple_of(PAGE);
        if end > aligned {
            // SAFETY: the range lies within `values`, this process's
            // memory, and the advice changes no byte of it.
            unsafe {
                libc::madvise(
                    aligned as *mut libc::c_void,
                    end - aligned,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = values;
}

/// The column array, written from many threads at slots the row cursors
/// hand out exactly once.
struct SharedColumns(*mut u32);

// SAFETY: the pointer is only written through `write`, at distinct slots.
unsafe impl Sync for SharedColumns {}

impl Columns for SharedColumns {
    unsafe fn write(&self, slot: usize, head: u32) {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.add(slot).write(head) }
    }

    fn address(&self, slot: usize) -> *const u32 {
        self.0.wrapping_add(slot)
    }
}

/// Sorts `row` and moves its distinct entries to its front; returns how
/// many there are.
pub(super) fn sort_and_deduplicate(row: &mut [u32]) -> u32 {
    row.sort_unstable();
    let mut unique = 0;
    for index in 0..row.len() {
        if index == 0 || row[index] != row[unique - 1] {
            row[unique] = row[index];
            unique += 1;
        }
    }
    unique as u32
}

/// Whether rows may hold self loops to drop when they are sorted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Loops {
    /// None are there: the edges were filtered before.
    Absent,
    /// Some may be: each row drops its own vertex.
    Drop,
}

/// Removes `vertex` from the sorted, distinct `row` where it is there,
/// moving the entries after it forward; returns the entries left.
fn without(row: &mut [u32], vertex: u32) -> u32 {
    match row.binary_search(&vertex) {
        Ok(at) => {
            row.copy_within(at + 1.., at);
            row.len() as u32 - 1
        }
        Err(_) => row.len() as u32,
    }
}

/// Splits the rows into about `pieces` ranges `(first, end)` of similar
/// edge counts, for parallel work over rows.
fn balanced_ranges(row_offsets: &[EdgeOffset], pieces: usize) -> Vec<(usize, usize)> {
    let vertex_count = row_offsets.len() - 1;
    let total = row_offsets[vertex_count];
    let target = (total / pieces.max(1) as EdgeOffset).max(1 << 14);
    let mut ranges = Vec::new();
    let mut first = 0;
    while first < vertex_count {
        let goal = row_offsets[first] + target;
        let end = row_offsets[first + 1..].partition_point(|&offset| offset < goal) + first + 1;
        let end = end.clamp(first + 1, vertex_count);
        ranges.push((first, end));
        first = end;
    }
    ranges
}

/// `values` cut into consecutive pieces of `lengths` (which must add up to
/// at most its length), each piece its own mutable slice, so that threads
/// can fill them at once.
pub(crate) fn pieces_mut<T>(
    mut values: &mut [T],
    lengths: impl IntoIterator<Item = usize>,
) -> Vec<&mut [T]> {
    lengths
        .into_iter()
        .map(|length| {
            let (piece, rest) = std::mem::take(&mut values).split_at_mut(length);
            values = rest;
            piece
        })
        .collect()
}
