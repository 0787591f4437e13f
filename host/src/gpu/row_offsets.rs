//! Row offsets in 32 bits for the kernels whose bottom-up levels read a
//! row per unvisited vertex (`direction-optimizing`,
//! `persistent-direction-optimizing`): the device graph keeps its offsets
//! in 64 bits, and a graph of fewer than 2^32 CSR entries gets a copy in
//! 32, which halves the bytes those levels read for their rows.

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
    /// Uniform 2^22 vertices, 2^25 edges, on an H100 had run 3.3% slower
    /// in one launch after the offsets became 64 bits; narrow, it gains
    /// 2.4% on an H200 (BENCHMARKS.md, issue 11).
    Narrow,
}

impl RowOffsets {
    /// Narrow where `graph` allows it.
    pub fn for_graph(graph: &Csr) -> RowOffsets {
        if graph.edge_count() <= u32::MAX as u64 {
            RowOffsets::Narrow
        } else {
            RowOffsets::Wide
        }
    }

    /// Device bytes of the copy this width takes for `graph`.
    pub fn copy_bytes(self, graph: &Csr) -> u64 {
        match self {
            RowOffsets::Narrow => 4 * (graph.vertex_count() as u64 + 1),
            RowOffsets::Wide => 0,
        }
    }

    /// The copy this width takes for `graph` (none where wide), uploaded;
    /// an error naming `variant` where the graph's offsets do not fit.
    pub fn upload_copy(self, graph: &Csr, variant: &str) -> Result<Option<DeviceBuffer<u32>>> {
        if self == RowOffsets::Wide {
            return Ok(None);
        }
        let narrow: Vec<u32> = graph
            .row_offsets()
            .par_iter()
            .map(|&offset| u32::try_from(offset))
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| {
                Error::Unsupported(format!(
                    "{variant}: {} CSR entries do not fit 32-bit row offsets",
                    graph.edge_count()
                ))
            })?;
        Ok(Some(upload(&narrow)?))
    }
}
