//! Graphs in compressed sparse row (CSR) form, loaded or generated.
//!
//! Vertex ids are 0-based `u32`; row offsets are [`EdgeOffset`]s (64 bits),
//! so a graph may have more than 2^32 CSR entries. Each vertex's neighbours
//! are sorted, with duplicates and self loops removed. An undirected graph
//! stores each edge in both directions.

mod batched;
pub mod binary;
pub mod binned;
pub mod chains;
pub mod dimacs;
pub mod edge_list;
pub mod generate;
pub mod ghost_zones;
pub mod hierarchy;
pub mod matrix_market;
pub mod prepared;
pub mod reorder;
pub mod road;
pub mod snap;

use std::io::IsTerminal;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use batched::{BatchDegrees, BatchRows, Columns};
pub use bfs_kernels::abi::EdgeOffset;
use rayon::prelude::*;

use crate::{Error, Result};

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

/// A function given the edges `(tail, head)`, 0-based, a batch at a time,
/// from many threads.
pub type Visitor<'a> = &'a (dyn Fn(&[(u32, u32)]) + Sync);

/// A graph in CSR form: the neighbours of `v` are
/// `column_indices[row_offsets[v]..row_offsets[v + 1]]`.
#[derive(Clone, Debug, Eq)]
pub struct Csr {
    row_offsets: Vec<EdgeOffset>,
    column_indices: Vec<u32>,
    /// [`is_symmetric`](Csr::is_symmetric), once asked: a pass over every edge.
    symmetric: OnceLock<bool>,
    /// For an undirected graph built from edge tuples (the generators'):
    /// the tuples ending at each vertex, duplicates and self loops
    /// included (a loop ends twice at its vertex), which Graph500 counts
    /// as traversed ([`Bfs::input_edges_traversed`](crate::Bfs::input_edges_traversed)).
    input_edge_ends: Option<Vec<u32>>,
}

/// Graphs are equal when their rows are: the input tuples they were built
/// from do not count.
impl PartialEq for Csr {
    fn eq(&self, other: &Csr) -> bool {
        self.row_offsets == other.row_offsets && self.column_indices == other.column_indices
    }
}

impl Csr {
    /// Builds the CSR of `vertex_count` vertices from directed `(tail, head)`
    /// edges; with `symmetric`, each edge is also added reversed. Sorts each
    /// adjacency list and drops duplicates and self loops.
    ///
    /// An id `>= vertex_count` is an error.
    pub fn from_edges(vertex_count: u32, edges: &[(u32, u32)], symmetric: bool) -> Result<Csr> {
        Self::from_edge_chunks(vertex_count, vec![edges], symmetric)
    }

    /// [`from_edges`](Self::from_edges) over edges in chunks (as the
    /// generators produce them), in parallel.
    pub fn from_edge_chunks<C>(vertex_count: u32, chunks: Vec<C>, symmetric: bool) -> Result<Csr>
    where
        C: AsRef<[(u32, u32)]> + Sync,
    {
        let beyond = chunks.par_iter().find_map_any(|chunk| {
            chunk
                .as_ref()
                .iter()
                .find(|&&(tail, head)| tail.max(head) >= vertex_count)
                .copied()
        });
        if let Some((tail, head)) = beyond {
            return Err(Error::Invalid(format!(
                "edge {tail} -> {head} names a vertex beyond the {vertex_count} vertices"
            )));
        }
        let pass = |visit: Visitor<'_>| -> Result<u64> {
            chunks.par_iter().for_each(|chunk| visit(chunk.as_ref()));
            Ok(chunks.iter().map(|chunk| chunk.as_ref().len() as u64).sum())
        };
        Self::from_edge_passes(vertex_count, symmetric, pass, Error::GraphTooLarge)
    }

    /// Builds a CSR from a source of directed edges that can be walked twice
    /// (chunks of edges in memory, or a seeded generator run again), in
    /// parallel and without holding them: the first `pass` counts each vertex's degree,
    /// the degrees are prefix-summed into row offsets, and the second `pass`
    /// scatters each edge to its row through an atomic cursor (both a batch
    /// at a time, through `batched`'s tables); then the rows are sorted
    /// and deduplicated. Self loops are dropped; with `symmetric`
    /// each edge is also added reversed, and the tuples' ends at each
    /// vertex are kept for Graph500's edge count. `pass` returns the entries it
    /// visited; `too_large` makes the error for a graph beyond the host's memory.
    pub fn from_edge_passes<E>(
        vertex_count: u32,
        symmetric: bool,
        pass: impl Fn(Visitor<'_>) -> Result<u64, E>,
        too_large: impl Fn(String) -> E,
    ) -> Result<Csr, E> {
        let offsets_bytes = size_of::<EdgeOffset>() as u64 * (vertex_count as u64 + 1);
        let loops_bytes = if symmetric {
            4 * vertex_count as u64
        } else {
            0
        };
        fits_in_host_memory(2 * offsets_bytes + loops_bytes, vertex_count, None)
            .map_err(&too_large)?;
        let counters = zeroed_counters(vertex_count as usize + 1);
        let loops: Vec<AtomicU32> = match symmetric {
            true => (0..vertex_count)
                .into_par_iter()
                .map(|_| AtomicU32::new(0))
                .collect(),
            false => Vec::new(),
        };
        let entries = pass(&|edges| {
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
        })?;
        let copies = if symmetric { 2 } else { 1 };
        fits_in_host_memory(
            2 * offsets_bytes + loops_bytes + 4 * entries * copies,
            vertex_count,
            Some(entries * copies),
        )
        .map_err(&too_large)?;
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
        })?;
        drop(counters);
        let mut graph = Self::sorted_and_deduplicated(offsets, column_indices);
        graph.input_edge_ends = input_edge_ends;
        if symmetric {
            // Each edge went in both ways: no pass over the edges needed to know.
            graph.symmetric = OnceLock::from(true);
        }
        Ok(graph)
    }

    /// Sorts each row, drops duplicates (in parallel over ranges of rows)
    /// and compacts the rows.
    fn sorted_and_deduplicated(row_offsets: Vec<EdgeOffset>, mut column_indices: Vec<u32>) -> Csr {
        let vertex_count = row_offsets.len() - 1;
        let ranges = balanced_ranges(&row_offsets, rayon::current_num_threads() * 8);
        let mut kept = vec![0u32; vertex_count];
        let mut columns_left: &mut [u32] = &mut column_indices;
        let mut kept_left: &mut [u32] = &mut kept;
        let mut tasks = Vec::with_capacity(ranges.len());
        for &(first, end) in &ranges {
            let width = (row_offsets[end] - row_offsets[first]) as usize;
            let (columns, rest) = std::mem::take(&mut columns_left).split_at_mut(width);
            columns_left = rest;
            let (kept, rest) = std::mem::take(&mut kept_left).split_at_mut(end - first);
            kept_left = rest;
            tasks.push((first, columns, kept));
        }
        tasks.into_par_iter().for_each(|(first, columns, kept)| {
            let base = row_offsets[first] as usize;
            for (row, kept) in kept.iter_mut().enumerate() {
                let vertex = first + row;
                let begin = row_offsets[vertex] as usize - base;
                let end = row_offsets[vertex + 1] as usize - base;
                *kept = sort_and_deduplicate(&mut columns[begin..end]);
            }
        });
        Self::compacted(row_offsets, &kept, column_indices)
    }

    /// The CSR of rows that keep only their first `kept[v]` entries, moved
    /// together.
    fn compacted(
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
        Csr {
            row_offsets,
            column_indices,
            symmetric: OnceLock::new(),
            input_edge_ends: None,
        }
    }

    /// A CSR from its arrays, checked: offsets start at 0, never decrease
    /// and end at `m`; each row is strictly increasing, with ids `< n`.
    pub fn from_parts(
        row_offsets: Vec<EdgeOffset>,
        column_indices: Vec<u32>,
    ) -> Result<Csr, String> {
        let vertex_count = row_offsets.len().checked_sub(1).ok_or("no row offsets")?;
        if vertex_count >= u32::MAX as usize {
            return Err(format!("{vertex_count} vertices do not fit u32 ids"));
        }
        if row_offsets[0] != 0 || row_offsets[vertex_count] as usize != column_indices.len() {
            return Err("row offsets must run from 0 to the number of edges".into());
        }
        if let Some(vertex) =
            (0..vertex_count).find(|&vertex| row_offsets[vertex] > row_offsets[vertex + 1])
        {
            return Err(format!("row offsets decrease at vertex {vertex}"));
        }
        let bad_row = (0..vertex_count).into_par_iter().find_any(|&vertex| {
            let row =
                &column_indices[row_offsets[vertex] as usize..row_offsets[vertex + 1] as usize];
            row.windows(2).any(|pair| pair[0] >= pair[1])
                || row
                    .last()
                    .is_some_and(|&last| last as usize >= vertex_count)
        });
        match bad_row {
            Some(vertex) => Err(format!(
                "row {vertex} is unsorted, repeats a neighbour or names one beyond the graph"
            )),
            None => Ok(Csr {
                row_offsets,
                column_indices,
                symmetric: OnceLock::new(),
                input_edge_ends: None,
            }),
        }
    }

    /// The graph of a square `nalgebra_sparse` matrix: entry `(i, j)` is the
    /// edge `i -> j`; values are ignored, the diagonal (self loops) dropped.
    pub fn from_nalgebra<T>(matrix: &nalgebra_sparse::CsrMatrix<T>) -> Result<Csr> {
        if matrix.nrows() != matrix.ncols() || matrix.nrows() >= u32::MAX as usize {
            return Err(Error::GraphTooLarge(format!(
                "a {}×{} matrix: a graph needs a square one with fewer than 2^32 - 1 rows",
                matrix.nrows(),
                matrix.ncols()
            )));
        }
        let edges: Vec<(u32, u32)> = matrix
            .row_iter()
            .enumerate()
            .flat_map(|(row, entries)| {
                entries
                    .col_indices()
                    .iter()
                    .map(move |&column| (row as u32, column as u32))
                    .collect::<Vec<_>>()
            })
            .collect();
        Csr::from_edges(matrix.nrows() as u32, &edges, false)
    }

    /// The adjacency matrix as an `nalgebra_sparse` matrix, with `value` at every edge.
    pub fn to_nalgebra<T: Clone>(&self, value: T) -> nalgebra_sparse::CsrMatrix<T> {
        let n = self.vertex_count() as usize;
        let offsets = self
            .row_offsets
            .iter()
            .map(|&offset| offset as usize)
            .collect();
        let columns = self
            .column_indices
            .iter()
            .map(|&column| column as usize)
            .collect();
        let values = vec![value; self.column_indices.len()];
        nalgebra_sparse::CsrMatrix::try_from_csr_data(n, n, offsets, columns, values)
            .expect("a Csr is a valid CSR pattern: sorted, unique, in-range rows")
    }

    /// Number of vertices, `n`.
    pub fn vertex_count(&self) -> u32 {
        (self.row_offsets.len() - 1) as u32
    }

    /// Number of directed edges stored, `m` (twice the undirected edges).
    pub fn edge_count(&self) -> EdgeOffset {
        self.column_indices.len() as EdgeOffset
    }

    /// Out-degree of `vertex`: its row names each neighbour once (a
    /// checked invariant), so the degree is below `n` and fits 32 bits.
    pub fn degree(&self, vertex: u32) -> u32 {
        (self.row_offsets[vertex as usize + 1] - self.row_offsets[vertex as usize]) as u32
    }

    /// The input edge tuples ending at each vertex, where the graph was
    /// built from tuples of an undirected graph (see the field).
    pub fn input_edge_ends(&self) -> Option<&[u32]> {
        self.input_edge_ends.as_deref()
    }

    /// The graph with the input edge ends it was built from (read back from
    /// a file): one per vertex, none below the vertex's degree (every CSR
    /// entry came from a tuple's end), else an error.
    pub fn with_input_edge_ends(mut self, ends: Vec<u32>) -> Result<Csr, String> {
        if ends.len() != self.vertex_count() as usize {
            return Err(format!(
                "{} input edge ends for {} vertices",
                ends.len(),
                self.vertex_count()
            ));
        }
        let below = (0..self.vertex_count())
            .into_par_iter()
            .find_first(|&vertex| (ends[vertex as usize]) < self.degree(vertex));
        if let Some(vertex) = below {
            return Err(format!(
                "vertex {vertex} has {} input edge ends but degree {}",
                ends[vertex as usize],
                self.degree(vertex)
            ));
        }
        self.input_edge_ends = Some(ends);
        Ok(self)
    }

    /// The input edge tuples the graph was built from, where it knows
    /// them: Graph500's edge count.
    pub fn input_edge_count(&self) -> Option<u64> {
        let ends = self.input_edge_ends()?;
        Some(ends.par_iter().map(|&ends| ends as u64).sum::<u64>() / 2)
    }

    /// Sorted neighbours of `vertex`.
    pub fn neighbours(&self, vertex: u32) -> &[u32] {
        let begin = self.row_offsets[vertex as usize] as usize;
        let end = self.row_offsets[vertex as usize + 1] as usize;
        &self.column_indices[begin..end]
    }

    /// The `n + 1` row offsets.
    pub fn row_offsets(&self) -> &[EdgeOffset] {
        &self.row_offsets
    }

    /// The `m` column indices (neighbour ids).
    pub fn column_indices(&self) -> &[u32] {
        &self.column_indices
    }

    /// Whether the graph is known to be symmetric without a pass over its
    /// edges: built so, or asked before.
    pub fn known_symmetric(&self) -> Option<bool> {
        self.symmetric.get().copied()
    }

    /// Records whether the graph is symmetric, where its maker knows (a
    /// renumbering of a graph that is), sparing [`is_symmetric`](Self::is_symmetric)'s pass.
    pub(crate) fn set_symmetric(&self, symmetric: bool) {
        let _ = self.symmetric.set(symmetric);
    }

    /// Whether every edge `(u, v)` has its reverse `(v, u)`: computed on
    /// the first call (a search of every edge's reverse), remembered after.
    pub fn is_symmetric(&self) -> bool {
        *self.symmetric.get_or_init(|| {
            (0..self.vertex_count()).into_par_iter().all(|tail| {
                self.neighbours(tail)
                    .iter()
                    .all(|&head| self.neighbours(head).binary_search(&tail).is_ok())
            })
        })
    }
}

/// Checks that building a graph of `vertex_count` vertices (and `edges`,
/// once known) needs no more than the host memory it may use
/// ([`host_memory`]), so a file that declares an absurd graph gets a clear
/// error instead of the out-of-memory killer.
fn fits_in_host_memory(bytes: u64, vertex_count: u32, edges: Option<u64>) -> Result<(), String> {
    match host_memory()? {
        Some((available, what)) if bytes > available => Err(format!(
            "{vertex_count} vertices{} need {} MB of host memory to build, {} MB are available ({})",
            edges
                .map(|edges| format!(" and {edges} directed edges"))
                .unwrap_or_default(),
            bytes / 1_000_000,
            available / 1_000_000,
            if what == HOST_MEMORY_VARIABLE {
                format!("set by {HOST_MEMORY_VARIABLE}")
            } else {
                format!(
                    "{what}; set {HOST_MEMORY_VARIABLE} to the machine's real limit if it is higher"
                )
            }
        )),
        _ => Ok(()),
    }
}

/// The variable that sets the host memory a graph may be built in, in
/// bytes or with a `K`, `M`, `G` or `T` suffix (powers of 1,024).
pub const HOST_MEMORY_VARIABLE: &str = "BFS_HOST_MEMORY";

/// The host memory a graph may be built in, and where the figure comes
/// from: [`HOST_MEMORY_VARIABLE`] where it is set (for machines whose
/// memory grows as it is used, where the kernel's counts see too little);
/// else, inside a control group with a memory limit, what the group has
/// left (cgroup v2's `memory.max` less `memory.current`, or v1's
/// `memory.limit_in_bytes` less `memory.usage_in_bytes`): the limit the
/// out-of-memory killer enforces; else the kernel's `MemAvailable`. `None`
/// where none can be read.
fn host_memory() -> Result<Option<(u64, &'static str)>, String> {
    if let Some(value) = std::env::var_os(HOST_MEMORY_VARIABLE) {
        let value = value.to_string_lossy();
        return parse_size(&value)
            .map(|bytes| Some((bytes, HOST_MEMORY_VARIABLE)))
            .ok_or_else(|| {
                format!(
                    "{HOST_MEMORY_VARIABLE}={value} is not a size (bytes, or a number with K, M, G or T)"
                )
            });
    }
    let read =
        |path: &str| -> Option<u64> { std::fs::read_to_string(path).ok()?.trim().parse().ok() };
    // An unlimited v1 group reads as a page-rounded `i64::MAX`.
    let limited = |limit: u64| limit < 1 << 62;
    let group_room = [
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        (
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            "/sys/fs/cgroup/memory/memory.usage_in_bytes",
        ),
    ]
    .into_iter()
    .find_map(|(limit, usage)| {
        let limit = read(limit).filter(|&limit| limited(limit))?;
        Some(limit.saturating_sub(read(usage)?))
    });
    if let Some(room) = group_room {
        return Ok(Some((room, "the control group's limit less its use")));
    }
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text
                .lines()
                .find(|line| line.starts_with("MemAvailable:"))?;
            Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
        });
    Ok(available.map(|bytes| (bytes, "MemAvailable")))
}

/// `value` as bytes: a whole number, with an optional `K`, `M`, `G` or `T`
/// (powers of 1,024).
fn parse_size(value: &str) -> Option<u64> {
    let value = value.trim();
    let (number, unit) = match value.char_indices().last()? {
        (end, suffix) if suffix.is_ascii_alphabetic() => (&value[..end], suffix),
        _ => (value, 'B'),
    };
    let shift = match unit.to_ascii_uppercase() {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        'T' => 40,
        _ => return None,
    };
    number.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// `count` atomic counters at 0, allocated zeroed, so pages are mapped only
/// as they are used: a header's false claim of billions of vertices costs
/// nothing until its entries are read and found wanting.
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
fn sort_and_deduplicate(row: &mut [u32]) -> u32 {
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

/// Where a graph comes from: a file, or a generator specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphSource {
    /// A Matrix Market file.
    File(std::path::PathBuf),
    /// A generated graph, `gen:SPEC` on the command line (see [`generate::Spec`]).
    Generated(generate::Spec),
}

impl GraphSource {
    /// Parses a `--graph` argument: `gen:SPEC` or a path.
    pub fn parse(argument: &str) -> Result<GraphSource> {
        match argument.strip_prefix("gen:") {
            Some(spec) => Ok(GraphSource::Generated(spec.parse()?)),
            None => Ok(GraphSource::File(argument.into())),
        }
    }

    /// Loads or generates the graph.
    pub fn load(&self) -> Result<Csr> {
        self.load_with(Reader::Fast)
    }

    /// Loads (with `reader` for Matrix Market) or generates the graph.
    pub fn load_with(&self, reader: Reader) -> Result<Csr> {
        match self {
            GraphSource::File(path) => load_with(path, reader),
            GraphSource::Generated(spec) => spec.generate(),
        }
    }

    /// Loads or generates the graph and, for a binary CSR file, lists the
    /// preparations stored after its CSR.
    pub fn load_prepared(&self, reader: Reader) -> Result<(Csr, prepared::Preparations)> {
        match self {
            GraphSource::File(path) => load_prepared(path, reader),
            GraphSource::Generated(spec) => Ok((spec.generate()?, prepared::Preparations::none())),
        }
    }

    /// A short name for summaries.
    pub fn name(&self) -> String {
        match self {
            GraphSource::File(path) => path.display().to_string(),
            GraphSource::Generated(spec) => format!("gen:{spec}"),
        }
    }
}

/// The file formats the loader reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Matrix Market coordinate (`.mtx`).
    MatrixMarket,
    /// SNAP edge list (`.txt`, `.el`, `.edges`).
    Snap,
    /// DIMACS shortest-path graph (`.gr`).
    Dimacs,
    /// The binary CSR cache (`.bcsr`).
    Binary,
}

/// Which Matrix Market reader to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Reader {
    /// The parallel reader.
    #[default]
    Fast,
    /// `nalgebra-sparse`'s reader, the reference.
    Reference,
}

impl Format {
    /// The format of `path`: by content where it says (the Matrix Market
    /// banner, the binary magic), else by extension (a `.gz` suffix is
    /// looked through), else DIMACS if the first line is a `c` or `p` line,
    /// else SNAP.
    pub fn detect(path: &Path, head: &[u8]) -> Format {
        if head.starts_with(binary::MAGIC) {
            return Format::Binary;
        }
        if head.len() >= 14 && head[..14].eq_ignore_ascii_case(b"%%MatrixMarket") {
            return Format::MatrixMarket;
        }
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let name = name.strip_suffix(".gz").unwrap_or(&name);
        match name.rsplit_once('.').map(|(_, extension)| extension) {
            Some("mtx") => Format::MatrixMarket,
            Some("gr") => Format::Dimacs,
            Some("bcsr") => Format::Binary,
            Some("txt" | "el" | "edges" | "snap" | "tsv") => Format::Snap,
            _ if head.starts_with(b"c ") || head.starts_with(b"p ") => Format::Dimacs,
            _ => Format::Snap,
        }
    }
}

/// Loads a graph file of any supported format, with the fast reader.
pub fn load(path: &Path) -> Result<Csr> {
    load_with(path, Reader::Fast)
}

/// [`load_with`], and for a binary CSR file the preparations stored
/// after its CSR (none for the other formats).
pub fn load_prepared(path: &Path, reader: Reader) -> Result<(Csr, prepared::Preparations)> {
    let mut head = [0u8; 16];
    let head_length = std::fs::File::open(path)
        .and_then(|mut file| std::io::Read::read(&mut file, &mut head))
        .map_err(|error| Error::Io {
            path: path.into(),
            error,
        })?;
    if Format::detect(path, &head[..head_length]) == Format::Binary {
        return binary::read_prepared(path).map_err(|(line, message)| Error::Format {
            path: path.into(),
            line,
            message,
        });
    }
    Ok((load_with(path, reader)?, prepared::Preparations::none()))
}

/// Loads a graph file of any supported format: plain files are
/// memory-mapped, `.gz` files decompressed as they stream in. A progress bar
/// appears on a terminal when the load takes more than a second.
pub fn load_with(path: &Path, reader: Reader) -> Result<Csr> {
    let io_error = |error| Error::Io {
        path: path.into(),
        error,
    };
    let format_error = |(line, message): (Option<u64>, String)| Error::Format {
        path: path.into(),
        line,
        message,
    };
    let file = std::fs::File::open(path).map_err(io_error)?;
    let mut head = [0u8; 16];
    let head_length = std::io::Read::read(&mut &file, &mut head).map_err(io_error)?;
    let head = &head[..head_length];
    let decompressed;
    let mapped;
    let bytes: &[u8] = if head.starts_with(&[0x1f, 0x8b]) {
        let mut text = Vec::new();
        let mut decoder =
            flate2::read::MultiGzDecoder::new(std::fs::File::open(path).map_err(io_error)?);
        std::io::Read::read_to_end(&mut decoder, &mut text).map_err(io_error)?;
        decompressed = text;
        &decompressed
    } else {
        if Format::detect(path, head) == Format::Binary {
            return binary::read(path).map_err(format_error);
        }
        // SAFETY: the map is only read; as with any reader of a file, one
        // changed underneath by another process gives wrong data (or SIGBUS
        // if truncated), never unsoundness in this process's own memory.
        mapped = unsafe { memmap2::Mmap::map(&file) }.map_err(io_error)?;
        &mapped
    };
    let progress = Progress::bytes(path, bytes.len() as u64);
    let report = |bytes| progress.advance(bytes);
    let graph = match Format::detect(path, &bytes[..bytes.len().min(16)]) {
        Format::MatrixMarket if reader == Reader::Reference => {
            let text = std::str::from_utf8(bytes)
                .map_err(|error| format_error((None, format!("not UTF-8: {error}"))))?;
            matrix_market::parse_reference(text)
        }
        Format::MatrixMarket => matrix_market::parse(bytes, &report),
        Format::Snap => snap::parse(bytes, &report),
        Format::Dimacs => dimacs::parse(bytes, &report),
        Format::Binary => {
            return Err(format_error((
                None,
                "a compressed binary CSR file is not supported".into(),
            )));
        }
    };
    progress.finish();
    graph.map_err(format_error)
}

/// Writes `graph` to `path`: the binary CSR cache for `.bcsr`, else Matrix Market.
pub fn save(graph: &Csr, path: &Path) -> Result<()> {
    save_ordered(graph, path, matrix_market::EntryOrder::RowMajor)
}

/// [`save`], a Matrix Market file's entries in `order` (a binary cache is
/// always in CSR order).
pub fn save_ordered(graph: &Csr, path: &Path, order: matrix_market::EntryOrder) -> Result<()> {
    let binary = path
        .extension()
        .is_some_and(|extension| extension == "bcsr");
    crate::output::write_with(path, |mut writer| {
        if binary {
            binary::write(graph, &mut writer)
        } else {
            matrix_market::write(graph, order, &mut writer)
        }
    })
}

/// A progress bar for long loads and generations: drawn only on a
/// terminal, and only once the work has taken a second.
pub(crate) struct Progress {
    bar: indicatif::ProgressBar,
    started: std::time::Instant,
}

impl Progress {
    /// A bar over the `bytes` of the file at `path`.
    fn bytes(path: &Path, bytes: u64) -> Progress {
        Self::new(
            format!("loading {}", path.display()),
            bytes,
            "{msg} {bar:40} {bytes}/{total_bytes} ({bytes_per_sec})",
        )
    }

    /// A bar over `edges` edges, with `message` before it.
    pub(crate) fn edges(message: &str, edges: u64) -> Progress {
        Self::new(
            message.to_string(),
            edges,
            "{msg} {bar:40} {human_pos}/{human_len} edges ({per_sec})",
        )
    }

    fn new(message: String, total: u64, template: &str) -> Progress {
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::hidden(),
        );
        let style = indicatif::ProgressStyle::with_template(template).expect("a valid template");
        bar.set_style(style);
        bar.set_message(message);
        Progress {
            bar,
            started: std::time::Instant::now(),
        }
    }

    /// Adds `done` to the bar's count.
    pub(crate) fn advance(&self, done: u64) {
        if self.bar.is_hidden()
            && self.started.elapsed().as_secs_f64() > 1.0
            && std::io::stderr().is_terminal()
        {
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        self.bar.inc(done);
    }

    /// Clears the bar.
    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
