//! Host driver of the `warp-specialized` variant: renumbers the graph into
//! BFS-grown partitions once (`graph::reorder`), one per block, with as
//! many blocks as the multiprocessors hold at once (each block is only two
//! warps, so several share a multiprocessor), keeps the renumbered CSR on
//! the device, and runs each search as one cooperative launch of
//! `warp_specialized_search`. Every partition stays in its block's shared
//! memory for the whole search (its neighbours too where they fit; else
//! the kernel reads them from global memory), so a graph whose partitions'
//! per-vertex arrays do not fit is refused with the bytes they would need.
//! Levels and parents come back in the renumbered ids and are mapped to
//! the graph's own after the timer stops.

use bfs_kernels::abi::warp_specialized;

use super::partitioned::{PartitionLabels, grow_partitions, shared_limit};
use crate::gpu::{DeviceGraph, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, Timer, address};
use crate::graph::reorder::Renumbering;
use crate::{Csr, Error, Result};

/// Partitions a multiprocessor takes. More, smaller partitions put more
/// searchers to work at once, but the wave crosses more boundaries, each a
/// round trip through L2. On a road network more partitions gained
/// little, so one a multiprocessor stays (docs/decisions.md, "Road
/// networks and grids").
pub const PARTITIONS_PER_MULTIPROCESSOR: u32 = 1;

/// The renumbered graph on the device, the labels and the launch's shape.
pub struct WarpSpecialized<'g> {
    gpu: &'g Gpu,
    kernel: Entry<'g, warp_specialized::Search>,
    renumbering: Renumbering,
    graph: DeviceGraph,
    labels: PartitionLabels,
    partition_size: u32,
    column_capacity: u32,
    timer: Timer,
}

impl<'g> Driver<'g> for WarpSpecialized<'g> {
    /// Device bytes besides the graph: its renumbered copy and the labels.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        DeviceGraph::bytes(graph) + PartitionLabels::bytes(graph.vertex_count())
    }

    /// Renumbers `graph` into partitions sized to `gpu` and uploads it, or
    /// says why the partitions cannot stay in shared memory.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        let vertex_count = graph.vertex_count();
        if vertex_count >= 1 << 31 {
            return Err(Error::Unsupported(format!(
                "warp-specialized keeps levels in 31 bits; {vertex_count} vertices are too many"
            )));
        }
        let kernel = gpu.entry(warp_specialized::SEARCH)?;
        let blocks = gpu.multiprocessors() * PARTITIONS_PER_MULTIPROCESSOR;
        let partition_size = vertex_count.div_ceil(blocks).next_multiple_of(32).max(32);
        let partitions = vertex_count.div_ceil(partition_size).max(1);
        let vertex_bytes = warp_specialized::WarpSpecializedLayout::new(partition_size, 0).bytes();
        let shared_limit = shared_limit(gpu) as u64;
        // Refused before the partitions are grown: that reads every edge.
        if vertex_bytes > shared_limit {
            return Err(Error::Unsupported(format!(
                "warp-specialized keeps each partition in shared memory: {partitions} partitions of \
                 {partition_size} vertices need {vertex_bytes} bytes a block, and {} has {shared_limit}",
                gpu.name()
            )));
        }
        let (renumbering, renumbered, most_columns) = grow_partitions(graph, partition_size)?;
        // Neighbours that do not fit stay in global memory (the kernel reads them there).
        let column_capacity = most_columns.min(((shared_limit - vertex_bytes) / 4) as u32);
        let shared_bytes =
            warp_specialized::WarpSpecializedLayout::new(partition_size, column_capacity).bytes();
        let shared_bytes = shared_bytes as u32;
        kernel.allow_shared_memory(shared_bytes)?;
        let resident = kernel.check_cooperative(gpu, warp_specialized::BLOCK_SIZE, shared_bytes)?;
        if partitions > resident * gpu.multiprocessors() {
            return Err(Error::Unsupported(format!(
                "warp-specialized needs its {partitions} blocks of {shared_bytes} bytes of shared \
                 memory resident at once; {} holds {}",
                gpu.name(),
                resident * gpu.multiprocessors()
            )));
        }
        Ok(WarpSpecialized {
            gpu,
            kernel,
            graph: DeviceGraph::upload(gpu, &renumbered)?,
            renumbering,
            labels: PartitionLabels::new(vertex_count)?,
            partition_size,
            column_capacity,
            timer: Timer::new()?,
        })
    }
}

impl GpuBfs for WarpSpecialized<'_> {
    fn run(&mut self, _graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
        self.timer.start(self.gpu)?;
        self.labels
            .reset(self.gpu, self.renumbering.new_ids[source as usize])?;
        let vertex_count = self.graph.vertex_count;
        let blocks = vertex_count.div_ceil(self.partition_size).max(1);
        let shared_bytes =
            warp_specialized::WarpSpecializedLayout::new(self.partition_size, self.column_capacity)
                .bytes() as u32;
        let (labels, dirty, outstanding, counters) = self.labels.addresses();
        // SAFETY: `warp_specialized_search`'s contract: the renumbered CSR grown into partitions of `partition_size` (a
        // multiple of 32) with room for `column_capacity` neighbours, labels,
        // dirty bitmap and outstanding count for its `n` vertices reset by
        // `reset`; one block per partition, all resident (`new` checked
        // the occupancy with this shared memory).
        unsafe {
            self.kernel.launch_cooperative(
                self.gpu,
                (blocks, warp_specialized::BLOCK_SIZE, shared_bytes),
                (
                    address(&self.graph.row_offsets).cast_const(),
                    address(&self.graph.column_indices).cast_const(),
                    self.graph.vertex_count,
                    self.partition_size,
                    self.column_capacity,
                    labels,
                    dirty,
                    outstanding,
                    counters,
                ),
            )?;
        }
        let elapsed = self.timer.stop(self.gpu)?;
        self.labels
            .finish(self.gpu, &self.renumbering, request, elapsed)
    }
}
