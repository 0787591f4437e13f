//! Delegates (`kernels/src/distributed/delegates.rs`; Pearce, Gokhale &
//! Amato, SC 2014; Pan, Pearce & Owens, IPDPS 2018): the host side. Which
//! vertices are delegates ([`Choice`], the same on every rank), each
//! rank's pieces of their lists, and a top-down level's steps: the note
//! of the delegates a level found, which travels with its figures, and
//! the next level's expansion of the frontier's delegates.
//!
//! The delegates are the vertices of the most edges, down to a degree
//! where their lists together hold a thirty-second of the CSR entries
//! ([`DELEGATED_SHARE`]): a rank's pieces add at most a thirty-second to
//! its columns, however many ranks there are. On a Kronecker graph those
//! are the hubs whose lists fill the large top-down levels: a vertex is a
//! frontier's neighbour about as often as it has edges, so its list
//! weighs there about as its degree squared, and the heaviest few hold
//! most of that weight. More delegates cost every level: each adds a bit
//! to the figures the ranks pass, and the lighter ones, found late, add
//! the expansion's launches to small levels.

use std::ops::Range;

use bfs_kernels::abi::hub_chunks::CHUNK_EDGES;
use bfs_kernels::abi::{BLOCK_SIZE, EdgeOffset, distributed};
use cust::memory::{AsyncCopyDestination, DeviceBuffer, DevicePointer, LockedBuffer};
use rayon::prelude::*;

use super::claims::OwnedLevel;
use crate::error::CudaContext;
use crate::gpu::{Entry, Gpu, address, blocks_for, upload};
use crate::{Csr, Result};

/// The delegates' lists hold at most one CSR entry in this many.
pub const DELEGATED_SHARE: u64 = 32;

/// The fewest edges of a delegate: a chunk's, so that a frontier holding
/// one always takes the split of its hubs, which leaves it out.
pub const FEWEST_DELEGATED_EDGES: u32 = CHUNK_EDGES;

/// Blocks of the expansion for each multiprocessor: its chunks dealt out
/// to a grid that fills the GPU.
const EXPAND_BLOCKS_PER_MULTIPROCESSOR: u32 = 8;

/// The delegates of a graph: every vertex of `degree` edges or more, by
/// id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The least degree of a delegate.
    pub degree: u32,
    /// The delegates' ids, ascending.
    pub ids: Vec<u32>,
}

impl Choice {
    /// No delegates (one rank, whose lists are all its own): every list
    /// lies with its owner alone.
    pub fn none() -> Choice {
        Choice {
            degree: u32::MAX,
            ids: Vec::new(),
        }
    }

    /// The vertices of the most edges of `graph`, down to the lowest
    /// degree at which every vertex of that degree or more holds, with the
    /// others, at most a [`DELEGATED_SHARE`]th of the CSR entries, and no
    /// fewer than [`FEWEST_DELEGATED_EDGES`].
    pub fn of(graph: &Csr) -> Choice {
        let mut degrees: Vec<u32> = (0..graph.vertex_count())
            .into_par_iter()
            .map(|vertex| graph.degree(vertex))
            .filter(|&degree| degree >= FEWEST_DELEGATED_EDGES)
            .collect();
        degrees.par_sort_unstable_by(|a, b| b.cmp(a));
        let budget = graph.edge_count() / DELEGATED_SHARE;
        let (mut held, mut degree) = (0u64, u32::MAX);
        // Whole runs of one degree at a time: each degree is in or out.
        for run in degrees.chunk_by(|a, b| a == b) {
            held += run[0] as u64 * run.len() as u64;
            if held > budget {
                break;
            }
            degree = run[0];
        }
        if degree == u32::MAX {
            return Choice::none();
        }
        let ids = (0..graph.vertex_count())
            .into_par_iter()
            .filter(|&vertex| graph.degree(vertex) >= degree)
            .collect();
        Choice { degree, ids }
    }

    /// The delegates `owned` holds, as indices into [`ids`](Self::ids).
    pub fn owned_by(&self, owned: &Range<u32>) -> Range<u32> {
        let index = |vertex| self.ids.partition_point(|&id| id < vertex) as u32;
        index(owned.start)..index(owned.end)
    }

    /// Each delegate's neighbours in `owned`: `ids.len() + 1` offsets and
    /// the neighbours they index.
    fn pieces(&self, graph: &Csr, owned: &Range<u32>) -> (Vec<EdgeOffset>, Vec<u32>) {
        let lists: Vec<Vec<u32>> = self
            .ids
            .par_iter()
            .map(|&hub| {
                let neighbours = graph.neighbours(hub).iter();
                neighbours.copied().filter(|v| owned.contains(v)).collect()
            })
            .collect();
        let ends = lists.iter().scan(0, |end, list| {
            *end += list.len() as EdgeOffset;
            Some(*end)
        });
        (std::iter::once(0).chain(ends).collect(), lists.concat())
    }

    /// Device bytes of the pieces `owned` holds and of the level's lists.
    pub fn device_bytes(&self, graph: &Csr, owned: &Range<u32>) -> u64 {
        let count = self.ids.len() as u64;
        let edges: u64 = self
            .ids
            .par_iter()
            .map(|&hub| {
                let neighbours = graph.neighbours(hub).iter();
                neighbours.filter(|v| owned.contains(v)).count() as u64
            })
            .sum();
        4 * count + 8 * (count + 1) + 4 * edges + 4 * self.words() as u64 + 4 * 2 * count + 8
    }

    /// Words of a bitmap with a bit for each delegate.
    pub fn words(&self) -> usize {
        self.ids.len().div_ceil(32)
    }

    /// Whether `vertex` is a delegate, and which.
    pub fn index_of(&self, vertex: u32) -> Option<usize> {
        self.ids.binary_search(&vertex).ok()
    }
}

/// A rank's pieces of the delegates' lists and the buffers of a level's
/// expansion.
pub struct Delegates<'g> {
    choice: Choice,
    /// The delegates this rank owns, as indices.
    owned: Range<u32>,
    ids: DeviceBuffer<u32>,
    rows: DeviceBuffer<EdgeOffset>,
    columns: DeviceBuffer<u32>,
    /// The frontier's delegates, every rank's bits together, and where the
    /// host puts them on their way.
    frontier_bits: DeviceBuffer<u32>,
    bits_on_host: LockedBuffer<u32>,
    /// The level's list of (first chunk, delegate) pairs and its counter.
    listed: DeviceBuffer<u32>,
    counter: DeviceBuffer<u64>,
    grid: u32,
    note: Entry<'g, distributed::DelegateNote>,
    list: Entry<'g, distributed::ListDelegates>,
    expand: Entry<'g, distributed::DelegateExpansion>,
}

impl<'g> Delegates<'g> {
    /// Uploads `owned`'s pieces of `choice`'s delegates of `graph`.
    pub fn new(gpu: &'g Gpu, graph: &Csr, choice: Choice, owned: &Range<u32>) -> Result<Self> {
        let (rows, columns) = choice.pieces(graph, owned);
        let allocation = || "allocating the delegates' buffers".to_string();
        let count = choice.ids.len();
        let delegated_chunks = columns.len().div_ceil(CHUNK_EDGES as usize).max(1) as u32;
        Ok(Delegates {
            owned: choice.owned_by(owned),
            ids: upload(&choice.ids)?,
            rows: upload(&rows)?,
            columns: upload(&columns)?,
            frontier_bits: DeviceBuffer::zeroed(choice.words().max(1)).context(allocation)?,
            bits_on_host: LockedBuffer::new(&0, choice.words().max(1)).context(allocation)?,
            listed: DeviceBuffer::zeroed(2 * count.max(1)).context(allocation)?,
            counter: DeviceBuffer::zeroed(1).context(allocation)?,
            grid: delegated_chunks.min(EXPAND_BLOCKS_PER_MULTIPROCESSOR * gpu.multiprocessors()),
            note: gpu.entry(distributed::NOTE_DELEGATES)?,
            list: gpu.entry(distributed::LIST_DELEGATES)?,
            expand: gpu.entry(distributed::EXPAND_DELEGATES)?,
            choice,
        })
    }

    /// The delegates.
    pub fn choice(&self) -> &Choice {
        &self.choice
    }

    /// Queues the note of the owned delegates at level `level` (the level
    /// just found) into `bits`, a bit for each delegate, cleared.
    pub fn note(
        &self,
        gpu: &Gpu,
        owned: &OwnedLevel,
        level: u32,
        bits: DevicePointer<u32>,
    ) -> Result<()> {
        let count = self.owned.len() as u32;
        if count == 0 {
            return Ok(());
        }
        let (stream, note) = (gpu.stream(), &self.note);
        let parameters = (
            self.ids.as_device_ptr().as_ptr(),
            self.owned.start,
            self.owned.end,
            owned.owned.levels.cast_const(),
            owned.owned.first_vertex,
            level,
            bits.as_mut_ptr(),
        );
        let shape = (blocks_for(count, BLOCK_SIZE), BLOCK_SIZE, 0);
        // SAFETY: the owned delegates' ids lie in the owned range, whose
        // levels `owned` holds; `bits` has a bit for each delegate.
        unsafe { note.launch(stream, shape, parameters) }
            .context(|| format!("noting the delegates of level {level}"))
    }

    /// Queues the expansion of this rank's pieces of the frontier's
    /// delegates (`frontier_bits`, every rank's, a bit a delegate) for the
    /// level after `owned.level`.
    pub fn expand(&mut self, gpu: &Gpu, frontier_bits: &[u32], owned: &OwnedLevel) -> Result<()> {
        let count = self.choice.ids.len() as u32;
        let stream = gpu.stream();
        let context = || format!("expanding the delegates of level {}", owned.level);
        self.bits_on_host.copy_from_slice(frontier_bits);
        let (list, expand) = (&self.list, &self.expand);
        // SAFETY: the copy reads the page-locked bits, which the host next
        // writes a level later, once the stream has passed it (each level
        // ends with the host waiting for its figures); the list has room
        // for every delegate and its counter is cleared before it; the
        // pieces' neighbours are owned, as the expansion requires.
        unsafe {
            self.frontier_bits
                .async_copy_from(&self.bits_on_host, stream)
                .context(context)?;
            self.counter.set_zero_async(stream).context(context)?;
            list.launch(
                stream,
                (blocks_for(count, BLOCK_SIZE), BLOCK_SIZE, 0),
                (
                    address(&self.rows).cast_const(),
                    count,
                    address(&self.frontier_bits).cast_const(),
                    address(&self.listed),
                    address(&self.counter),
                ),
            )
            .context(context)?;
            let parameters = (
                owned.owned,
                self.rows.as_device_ptr().as_ptr(),
                self.columns.as_device_ptr().as_ptr(),
                self.ids.as_device_ptr().as_ptr(),
                self.listed.as_device_ptr().as_ptr(),
                self.counter.as_device_ptr().as_ptr(),
                owned.level,
            );
            expand
                .launch(stream, (self.grid, CHUNK_EDGES, 8), parameters)
                .context(context)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::generate::{Shape, Spec};

    fn kronecker() -> Csr {
        let shape = Shape::Kronecker {
            scale: 12,
            edge_factor: 16,
        };
        Spec { shape, seed: 3 }.generate().unwrap()
    }

    #[test]
    fn the_delegates_are_the_heaviest_lists_within_their_share() {
        let graph = kronecker();
        let choice = Choice::of(&graph);
        assert!(!choice.ids.is_empty(), "a Kronecker graph has hubs");
        let held: u64 = choice.ids.iter().map(|&v| graph.degree(v) as u64).sum();
        assert!(held <= graph.edge_count() / DELEGATED_SHARE);
        assert!(choice.degree >= FEWEST_DELEGATED_EDGES);
        for vertex in 0..graph.vertex_count() {
            let delegated = graph.degree(vertex) >= choice.degree;
            assert_eq!(
                choice.index_of(vertex).is_some(),
                delegated,
                "vertex {vertex}"
            );
        }
        // The next degree down would break the share.
        let lower = (0..graph.vertex_count())
            .map(|v| graph.degree(v))
            .filter(|&degree| degree < choice.degree)
            .max()
            .unwrap_or(0);
        let with_lower: u64 = (0..graph.vertex_count())
            .map(|v| graph.degree(v))
            .filter(|&degree| degree >= lower)
            .map(u64::from)
            .sum();
        assert!(
            lower < FEWEST_DELEGATED_EDGES || with_lower > graph.edge_count() / DELEGATED_SHARE
        );
    }

    #[test]
    fn the_pieces_hold_each_delegated_edge_once_with_its_owner() {
        let graph = kronecker();
        let choice = Choice::of(&graph);
        let ranges = super::super::partition::edge_balanced(&graph, 3);
        let mut seen = vec![Vec::new(); choice.ids.len()];
        for owned in &ranges {
            let (rows, columns) = choice.pieces(&graph, owned);
            assert_eq!(rows.len(), choice.ids.len() + 1);
            for (index, pair) in rows.windows(2).enumerate() {
                let piece = &columns[pair[0] as usize..pair[1] as usize];
                assert!(piece.iter().all(|v| owned.contains(v)));
                seen[index].extend_from_slice(piece);
            }
            let owned_ids = choice.owned_by(owned);
            assert!(
                owned_ids
                    .clone()
                    .all(|i| owned.contains(&choice.ids[i as usize]))
            );
        }
        for (index, mut neighbours) in seen.into_iter().enumerate() {
            neighbours.sort_unstable();
            let mut expected = graph.neighbours(choice.ids[index]).to_vec();
            expected.sort_unstable();
            assert_eq!(neighbours, expected);
        }
    }

    #[test]
    fn a_graph_without_long_lists_has_no_delegates() {
        let shape = Shape::Grid {
            width: 64,
            height: 64,
            missing: 0.0,
        };
        let grid = Spec { shape, seed: 1 }.generate().unwrap();
        assert_eq!(Choice::of(&grid), Choice::none());
    }
}
