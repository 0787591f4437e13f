//! Whether a graph given as rows is symmetric, checked on the device:
//! `kernels/src/symmetry.rs` looks up every arc's reverse in one launch,
//! where the host's check ([`Csr::is_symmetric`]) takes a cache miss or
//! two an arc on its cores, the larger part of making a large graph of
//! unknown symmetry resident.

use bfs_kernels::abi::Rows;
use bfs_kernels::abi::symmetry::{ARCS_A_WARP, BLOCK_SIZE, CHECK};
use cust::memory::{CopyDestination, DeviceBuffer};

use super::memory::{DeviceGraph, address};
use super::{Gpu, blocks_for};
use crate::error::CudaContext;
use crate::{Csr, Result};

/// Blocks a multiprocessor: enough warps in flight to hide the searches'
/// memory latency.
const BLOCKS_A_MULTIPROCESSOR: u32 = 8;

/// Records in `graph` whether it is symmetric, from its copy on the
/// device, where nothing has said so yet.
pub(super) fn settle(gpu: &Gpu, graph: &Csr, on_device: &DeviceGraph) -> Result<()> {
    if graph.known_symmetric().is_some() {
        return Ok(());
    }
    let arc_count = graph.edge_count();
    if arc_count == 0 {
        graph.set_symmetric(true);
        return Ok(());
    }
    let context = || "checking the graph's symmetry".to_string();
    let flag = DeviceBuffer::from_slice(&[1u32]).context(context)?;
    let kernel = gpu.entry(CHECK)?;
    let warps = arc_count.div_ceil(ARCS_A_WARP);
    let blocks = blocks_for(u32::try_from(warps * 32).unwrap_or(u32::MAX), BLOCK_SIZE)
        .min(gpu.multiprocessors() * BLOCKS_A_MULTIPROCESSOR);
    let rows = Rows {
        offsets: address(&on_device.row_offsets).cast_const(),
        columns: address(&on_device.column_indices).cast_const(),
    };
    // SAFETY: the rows are `graph`'s, uploaded whole (`vertex_count + 1`
    // offsets, the last `arc_count`; every CSR's rows are sorted), and
    // the flag one word set to 1.
    unsafe {
        kernel.launch(
            gpu.stream(),
            (blocks, BLOCK_SIZE, 0),
            (rows, graph.vertex_count(), arc_count, address(&flag)),
        )
    }
    .context(context)?;
    let mut symmetric = [0u32];
    gpu.stream().synchronize().context(context)?;
    flag.copy_to(&mut symmetric[..]).context(context)?;
    graph.set_symmetric(symmetric[0] != 0);
    Ok(())
}
