//! Cache-blocked CSR construction: edges binned by their tail's block of
//! vertices, then each block's rows built where they fit in cache
//! (propagation blocking: Beamer, Asanović and Patterson, *Reducing
//! PageRank Communication via Propagation Blocking*, IPDPS 2017).
//!
//! Counting degrees and scattering into the CSR straight from a file touch
//! a random row per entry when the file is not sorted by row (a shuffled
//! export, a column-major SuiteSparse file): a cache miss, under an atomic,
//! per entry. Here each parsed piece of the file sorts its own entries by
//! block of [`Binning::block_vertices`] tails (a counting sort over a few
//! thousand bins, in cache), and then one task per block counts, scatters,
//! sorts and deduplicates that block's rows, whose counters and columns stay
//! in cache, without atomics, and writing only its own part of the CSR.
//! The price is the binned entries in memory: 8 bytes per directed edge
//! until the CSR is built.

use rayon::prelude::*;

use super::{Csr, EdgeOffset, pieces_mut, sort_and_deduplicate};

/// How entries are binned: by `tail >> shift`.
#[derive(Clone, Copy, Debug)]
pub struct Binning {
    vertex_count: u32,
    shift: u32,
    symmetric: bool,
}

/// One piece's entries `(tail, head)`, sorted by bin: bin `b` holds
/// `edges[starts[b]..starts[b + 1]]`.
pub struct BinnedPiece {
    edges: Vec<(u32, u32)>,
    starts: Vec<usize>,
}

impl BinnedPiece {
    fn bin(&self, bin: usize) -> &[(u32, u32)] {
        &self.edges[self.starts[bin]..self.starts[bin + 1]]
    }
}

impl Binning {
    /// Bins for a graph of `vertex_count` vertices; with `symmetric`, each
    /// entry is also binned reversed. Blocks are small enough that a
    /// block's counters (8 bytes a vertex) stay in a core's L2 cache, and
    /// numerous enough that every thread has several.
    pub fn new(vertex_count: u32, symmetric: bool) -> Binning {
        let blocks_wanted = (rayon::current_num_threads() * 8) as u32;
        let per_block = (vertex_count / blocks_wanted).max(1);
        let shift = per_block.ilog2().clamp(10, 16);
        Binning {
            vertex_count,
            shift,
            symmetric,
        }
    }

    /// Vertices per block.
    pub fn block_vertices(&self) -> usize {
        1 << self.shift
    }

    fn bins(&self) -> usize {
        (self.vertex_count as usize).div_ceil(self.block_vertices())
    }

    /// Directed edges each entry becomes.
    pub fn copies(&self) -> u64 {
        if self.symmetric { 2 } else { 1 }
    }

    /// Sorts a piece's entries (ids below the vertex count) by bin,
    /// dropping self loops and adding the reversed copies. `None` when
    /// memory for them cannot be had.
    pub fn bin(&self, entries: &[(u32, u32)]) -> Option<BinnedPiece> {
        let bins = self.bins();
        let mut starts = vec![0usize; bins + 1];
        let copies = |&(tail, head): &(u32, u32)| {
            let reversed = (self.symmetric).then_some((head, tail));
            [Some((tail, head)), reversed]
                .into_iter()
                .flatten()
                .filter(|(tail, head)| tail != head)
        };
        for (tail, _) in entries.iter().flat_map(copies) {
            starts[(tail >> self.shift) as usize + 1] += 1;
        }
        for bin in 0..bins {
            starts[bin + 1] += starts[bin];
        }
        let mut edges = Vec::new();
        edges.try_reserve_exact(starts[bins]).ok()?;
        edges.resize(starts[bins], (0, 0));
        let mut cursors = starts.clone();
        for (tail, head) in entries.iter().flat_map(copies) {
            let cursor = &mut cursors[(tail >> self.shift) as usize];
            edges[*cursor] = (tail, head);
            *cursor += 1;
        }
        Some(BinnedPiece { edges, starts })
    }

    /// The CSR of the binned pieces' edges, rows sorted and deduplicated.
    /// `None` when memory for its columns cannot be had.
    pub fn build(&self, pieces: &[BinnedPiece]) -> Option<Csr> {
        let block = self.block_vertices();
        let vertex_count = self.vertex_count as usize;
        // Each block's degrees, in its own stretch of the row offsets.
        let mut row_offsets: Vec<EdgeOffset> = vec![0; vertex_count + 1];
        let block_edges: Vec<u64> = row_offsets[..vertex_count]
            .par_chunks_mut(block)
            .enumerate()
            .map(|(bin, degrees)| {
                let first = (bin * block) as u32;
                let mut edges = 0;
                for piece in pieces {
                    for &(tail, _) in piece.bin(bin) {
                        degrees[(tail - first) as usize] += 1;
                    }
                    edges += piece.bin(bin).len() as u64;
                }
                edges
            })
            .collect();
        let total: u64 = block_edges.iter().sum();
        let mut block_starts = Vec::with_capacity(block_edges.len() + 1);
        block_starts.push(0usize);
        for &edges in &block_edges {
            block_starts.push(block_starts.last().copied().unwrap_or(0) + edges as usize);
        }
        // Degrees become offsets, block by block from the block's start.
        row_offsets[..vertex_count]
            .par_chunks_mut(block)
            .zip(&block_starts)
            .for_each(|(offsets, &start)| {
                let mut offset = start as EdgeOffset;
                for entry in offsets {
                    let degree = *entry;
                    *entry = offset;
                    offset += degree;
                }
            });
        row_offsets[vertex_count] = total;

        // Each block scatters into, sorts and deduplicates its own rows.
        let mut column_indices = Vec::new();
        column_indices.try_reserve_exact(total as usize).ok()?;
        column_indices.resize(total as usize, 0u32);
        let mut kept = vec![0u32; vertex_count];
        let columns = pieces_mut(
            &mut column_indices,
            block_edges.iter().map(|&edges| edges as usize),
        );
        let tasks = columns.into_par_iter().zip(kept.par_chunks_mut(block));
        tasks.enumerate().for_each(|(bin, (columns, kept))| {
            let first = bin * block;
            let start = block_starts[bin] as EdgeOffset;
            let offsets = &row_offsets[first..=first + kept.len()];
            let mut cursors: Vec<usize> = offsets
                .iter()
                .map(|&offset| (offset - start) as usize)
                .collect();
            for piece in pieces {
                for &(tail, head) in piece.bin(bin) {
                    let cursor = &mut cursors[tail as usize - first];
                    columns[*cursor] = head;
                    *cursor += 1;
                }
            }
            for (row, kept) in kept.iter_mut().enumerate() {
                let begin = (offsets[row] - start) as usize;
                let end = (offsets[row + 1] - start) as usize;
                *kept = sort_and_deduplicate(&mut columns[begin..end]);
            }
        });
        Some(Csr::compacted(row_offsets, &kept, column_indices))
    }
}
