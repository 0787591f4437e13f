//! Row offsets in 32 bits for the kernels whose bottom-up levels read a
//! row per unvisited vertex (`direction-optimizing`,
//! `persistent-direction-optimizing`): the device graph keeps its offsets
//! in 64 bits, and a graph of fewer than 2^32 CSR entries gets a copy in
//! 32, which halves the bytes those levels read for their rows; so does a
//! GPU's part of the search over several, whose rows hold fewer.

use bfs_kernels::abi::EdgeOffset;
use cust::memory::DeviceBuffer;
use rayon::prelude::*;

use super::upload;
use crate::{Csr, Error, Result};

/// The width of the row offsets a kernel reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOffsets {
    /// The graph's own, 64 bits each.
    Wide,
    /// A copy in 32 bits (the graph has fewer than 2^32 CSR entries): a
    /// bottom-up level reads 8 bytes per unvisited vertex's row, not 16.
    /// The bottom-up levels of a graph that reads every unvisited row pay
    /// for the wide offsets' bytes, and win them back here
    /// (docs/decisions.md, "Direction-optimizing").
    Narrow,
}

impl RowOffsets {
    /// Narrow where `graph` allows it.
    pub fn for_graph(graph: &Csr) -> RowOffsets {
        Self::for_edges(graph.edge_count())
    }

    /// Narrow where rows holding `edges` CSR entries in all allow it.
    pub fn for_edges(edges: u64) -> RowOffsets {
        if edges <= u32::MAX as u64 {
            RowOffsets::Narrow
        } else {
            RowOffsets::Wide
        }
    }

    /// Device bytes of the copy this width takes of `offsets` row offsets
    /// (a row more than the vertices).
    pub fn copy_bytes(self, offsets: u64) -> u64 {
        match self {
            RowOffsets::Narrow => 4 * offsets,
            RowOffsets::Wide => 0,
        }
    }

    /// The copy this width takes of `offsets` (none where wide), uploaded;
    /// an error naming `variant` where they do not fit 32 bits.
    pub fn upload_copy(
        self,
        offsets: &[EdgeOffset],
        variant: &str,
    ) -> Result<Option<DeviceBuffer<u32>>> {
        if self == RowOffsets::Wide {
            return Ok(None);
        }
        let narrow: Vec<u32> = offsets
            .par_iter()
            .map(|&offset| u32::try_from(offset))
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| {
                Error::Unsupported(format!(
                    "{variant}: {} CSR entries do not fit 32-bit row offsets",
                    offsets.last().copied().unwrap_or(0)
                ))
            })?;
        Ok(Some(upload(&narrow)?))
    }
}
