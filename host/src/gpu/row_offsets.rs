//! Row offsets in 32 bits for the kernels whose bottom-up levels read a
//! row per unvisited vertex (`direction-optimizing`,
//! `persistent-direction-optimizing`): the device graph keeps its offsets
//! in 64 bits, and a graph of fewer than 2^32 CSR entries gets a copy in
//! 32, which halves the bytes those levels read for their rows; so does a
//! GPU's part of the search over several, whose rows hold fewer.

use bfs_kernels::abi::{EdgeOffset, Kernel};
use cust::memory::DeviceBuffer;
use rayon::prelude::*;

use super::{Entry, Gpu, upload};
use crate::{Csr, Error, Result};

/// A kernel of two entry points, one a width of row offsets (the kernels'
/// `entry_points_by_row_offset!`), loaded for the width a graph takes:
/// the wide one reads the graph's own offsets, the narrow one a copy in 32
/// bits, held here. Its parameters are `Wide` and `Narrow`, which differ
/// in the row offsets alone.
pub(crate) enum ByRowOffset<'g, Wide, Narrow> {
    /// The entry point over 64-bit offsets.
    Wide(Entry<'g, Wide>),
    /// The entry point over 32-bit offsets, and the copy it reads.
    Narrow(Entry<'g, Narrow>, DeviceBuffer<u32>),
}

impl<Wide, Narrow> ByRowOffset<'_, Wide, Narrow> {
    /// As [`Entry::check_cooperative`], for the entry point loaded.
    pub(crate) fn check_cooperative(
        &self,
        gpu: &Gpu,
        block_size: u32,
        shared_bytes: u32,
    ) -> Result<u32> {
        match self {
            ByRowOffset::Wide(entry) => entry.check_cooperative(gpu, block_size, shared_bytes),
            ByRowOffset::Narrow(entry, _) => entry.check_cooperative(gpu, block_size, shared_bytes),
        }
    }
}

/// Runs `$launch` with `$entry` the entry point `$kernel` (a
/// [`ByRowOffset`]) loaded and `$rows` the row offsets it reads: `$wide`
/// (the graph's own, 64 bits) for the wide one, its copy for the narrow
/// one. A closure over either width: the launch is written once, and
/// checked against each entry point's parameters.
macro_rules! with_row_offsets {
    ($kernel:expr, $wide:expr, |$entry:ident, $rows:ident| $launch:expr) => {
        match $kernel {
            $crate::gpu::ByRowOffset::Wide($entry) => {
                let $rows = $wide;
                $launch
            }
            $crate::gpu::ByRowOffset::Narrow($entry, narrow) => {
                let $rows = $crate::gpu::address(narrow).cast_const();
                $launch
            }
        }
    };
}
pub(crate) use with_row_offsets;

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

    /// The entry point of `kernels` (wide, narrow) for this width over
    /// `offsets`, with their copy where narrow; an error naming `variant`
    /// where they do not fit 32 bits.
    pub(crate) fn entry<'g, Wide, Narrow>(
        self,
        gpu: &'g Gpu,
        (wide, narrow): (Kernel<Wide>, Kernel<Narrow>),
        offsets: &[EdgeOffset],
        variant: &str,
    ) -> Result<ByRowOffset<'g, Wide, Narrow>> {
        if self == RowOffsets::Wide {
            return Ok(ByRowOffset::Wide(gpu.entry(wide)?));
        }
        let copy: Vec<u32> = offsets
            .par_iter()
            .map(|&offset| u32::try_from(offset))
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| {
                Error::Unsupported(format!(
                    "{variant}: {} CSR entries do not fit 32-bit row offsets",
                    offsets.last().copied().unwrap_or(0)
                ))
            })?;
        let copy = upload(&copy)?;
        Ok(ByRowOffset::Narrow(gpu.entry(narrow)?, copy))
    }
}
