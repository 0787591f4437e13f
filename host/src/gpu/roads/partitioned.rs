//! Host driver of the `partitioned` variant: renumbers the graph into
//! BFS-grown partitions once (`graph::reorder`), keeps the renumbered CSR
//! on the device, and runs each search as one cooperative launch of
//! `partitioned_search`, whose blocks search partitions in shared memory,
//! each on its own, with no grid barrier. Levels and parents come back in
//! the renumbered ids and are mapped to the graph's own after the timer
//! stops, as every variant's copy back is.
//!
//! The partition size: when every partition fits one block's shared memory
//! with one block per multiprocessor, that (each block keeps its partition
//! for the whole search); otherwise the largest that fits, each block
//! staging its partitions in turn. A partition with more neighbours than
//! the shared memory holds reads them from global memory.

use std::time::Duration;

use bfs_kernels::abi::partitioned;
use cust::memory::{CopyDestination, DeviceBuffer};

use crate::error::CudaContext;
use crate::gpu::queue::visited_words;
use crate::gpu::{
    DeviceGraph, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, Timer, Work, address, copy_to_host,
};
use crate::graph::reorder::Renumbering;
use crate::{Bfs, Csr, Error, Result, UNREACHED};

/// Shared memory every device gives a block, opt-in or not.
const GUARANTEED_SHARED_BYTES: u32 = 48 * 1024;

/// Room for this many times a partition's average neighbours.
const COLUMN_SLACK: f64 = 1.25;

/// Levels a search of a partition kept in shared memory goes past its
/// lowest seed. Short windows take in the neighbours' news often, so few
/// levels are searched twice; a kept partition's search costs little
/// besides its levels. Wider windows examine several times a
/// level-synchronous search's edges on a road network, and shorter ones
/// gain nothing (docs/decisions.md, "Road networks and grids").
pub const KEPT_LEVEL_WINDOW: u32 = 16;

/// The same for partitions staged anew at each search (more partitions
/// than blocks): each search pays for its staging, so it goes far, but
/// not without bound: on a grid, windows both shorter and longer ran
/// slower (docs/decisions.md, "Road networks and grids").
pub const STAGED_LEVEL_WINDOW: u32 = 1024;

/// The renumbered graph on the device, the labels, the dirty bitmap, the
/// count of outstanding dirty bits and the kernel's counters.
pub struct Partitioned<'g> {
    gpu: &'g Gpu,
    kernel: Entry<'g, partitioned::Search>,
    renumbering: Renumbering,
    graph: DeviceGraph,
    labels: PartitionLabels,
    partition_size: u32,
    column_capacity: u32,
    level_window: u32,
    timer: Timer,
}

impl<'g> Partitioned<'g> {
    /// As [`new`](Self::new), with partitions of `partition_size` vertices
    /// (a positive multiple of 32 that fits the block's shared memory):
    /// small ones make partitions staged anew at each search, even on a
    /// small graph.
    pub fn with_partition_size(gpu: &'g Gpu, graph: &Csr, partition_size: u32) -> Result<Self> {
        let vertex_count = graph.vertex_count();
        if vertex_count >= 1 << 30 {
            return Err(Error::Invalid(format!(
                "partitioned keeps levels in 30 bits; {vertex_count} vertices are too many"
            )));
        }
        let shared_limit = shared_limit(gpu);
        if partition_size == 0
            || !partition_size.is_multiple_of(32)
            || partitioned::shared_bytes(partition_size, 0) > shared_limit
        {
            return Err(Error::Invalid(format!(
                "a partition size must be a positive multiple of 32 whose arrays fit {shared_limit} \
                 bytes of shared memory; {partition_size} is not"
            )));
        }
        let (renumbering, renumbered, most_columns) = grow_partitions(graph, partition_size)?;
        let column_capacity = most_columns
            .min(shared_limit.saturating_sub(partitioned::shared_bytes(partition_size, 0)) / 4);
        let shared_bytes = partitioned::shared_bytes(partition_size, column_capacity);
        let kernel = gpu.entry(partitioned::SEARCH)?;
        kernel.allow_shared_memory(shared_bytes)?;
        kernel.check_cooperative(gpu, partitioned::BLOCK_SIZE, shared_bytes)?;
        Ok(Partitioned {
            gpu,
            kernel,
            graph: DeviceGraph::upload(gpu, &renumbered)?,
            renumbering,
            labels: PartitionLabels::new(vertex_count)?,
            partition_size,
            column_capacity,
            level_window: if vertex_count.div_ceil(partition_size) <= gpu.multiprocessors() {
                KEPT_LEVEL_WINDOW
            } else {
                STAGED_LEVEL_WINDOW
            },
            timer: Timer::new()?,
        })
    }
}

impl<'g> Driver<'g> for Partitioned<'g> {
    /// Device bytes besides the graph: its renumbered copy and the labels
    /// (`PartitionLabels::bytes`).
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        DeviceGraph::bytes(graph) + PartitionLabels::bytes(graph.vertex_count())
    }

    /// Renumbers `graph`, uploads it and allocates the search's buffers,
    /// with partitions sized to `gpu`.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        Self::with_partition_size(gpu, graph, partition_size(graph, gpu))
    }
}

impl GpuBfs for Partitioned<'_> {
    fn run(&mut self, _graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
        self.timer.start(self.gpu)?;
        self.labels
            .reset(self.gpu, self.renumbering.new_ids[source as usize])?;
        let shared_bytes = partitioned::shared_bytes(self.partition_size, self.column_capacity);
        let (labels, dirty, outstanding, counters) = self.labels.addresses();
        // SAFETY: `partitioned_search`'s contract: the renumbered CSR grown into partitions of `partition_size` (a
        // multiple of 32, `partition_size()`), labels, dirty bitmap and
        // outstanding count for its `n` vertices reset by `reset`; `new`
        // checked the launch shape with this shared memory.
        unsafe {
            self.kernel.launch_cooperative(
                self.gpu,
                (
                    self.gpu.multiprocessors(),
                    partitioned::BLOCK_SIZE,
                    shared_bytes,
                ),
                (
                    address(&self.graph.row_offsets).cast_const(),
                    address(&self.graph.column_indices).cast_const(),
                    self.graph.vertex_count,
                    self.partition_size,
                    self.column_capacity,
                    self.level_window,
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

/// What a search over renumbered partitions keeps on the device besides the
/// graph: a 64-bit label per vertex (the level in the high half, the parent
/// in the low half, [`UNREACHED`] in both when unreached, lowered together
/// by one `atomicMin`), the dirty bitmap, the 64-bit count of outstanding
/// work and three work counters. Shared by `partitioned` and
/// `warp-specialized`, whose kernels keep the same labels.
pub(super) struct PartitionLabels {
    pub(super) labels: DeviceBuffer<u64>,
    pub(super) dirty: DeviceBuffer<u32>,
    pub(super) outstanding: DeviceBuffer<u32>,
    pub(super) counters: DeviceBuffer<u64>,
}

impl PartitionLabels {
    /// Device bytes for `vertex_count` vertices.
    pub(super) fn bytes(vertex_count: u32) -> u64 {
        8 * vertex_count as u64 + 4 * visited_words(vertex_count) as u64 + 8 + 8 * 3
    }

    pub(super) fn new(vertex_count: u32) -> Result<Self> {
        let allocation = || "allocating the partition search's labels".to_string();
        Ok(PartitionLabels {
            labels: DeviceBuffer::zeroed(vertex_count.max(1) as usize).context(allocation)?,
            dirty: DeviceBuffer::zeroed(visited_words(vertex_count)).context(allocation)?,
            outstanding: DeviceBuffer::zeroed(2).context(allocation)?,
            counters: DeviceBuffer::zeroed(3).context(allocation)?,
        })
    }

    /// What the search kernels take last: the labels, the dirty bits, the
    /// outstanding count (a `u64` the host resets as two words) and the
    /// counters.
    pub(super) fn addresses(&self) -> (*mut u64, *mut u32, *mut u64, *mut u64) {
        (
            address(&self.labels),
            address(&self.dirty),
            address(&self.outstanding).cast::<u64>(),
            address(&self.counters),
        )
    }

    /// Labels every vertex unreached but `source` (level 0) and marks the
    /// source dirty, so that its partition's block starts the search.
    pub(super) fn reset(&mut self, gpu: &Gpu, source: u32) -> Result<()> {
        let stream = gpu.stream();
        let context = || "initialising the search".to_string();
        let (at, word) = (source as usize, (source / 32) as usize);
        // SAFETY: memsets ordered on the one stream before the kernel that
        // reads these buffers; the host does not touch them meanwhile.
        unsafe {
            self.labels
                .set_32_async(UNREACHED, stream)
                .context(context)?;
            self.labels
                .index(at..=at)
                .set_32_async(0, stream)
                .context(context)?;
            self.dirty.set_32_async(0, stream).context(context)?;
            self.dirty
                .index(word..=word)
                .set_32_async(1 << (source % 32), stream)
                .context(context)?;
            // `outstanding`, a 64-bit count in two words: 1, the source's bit.
            self.outstanding.set_32_async(0, stream).context(context)?;
            self.outstanding
                .index(0..=0)
                .set_32_async(1, stream)
                .context(context)?;
            self.counters.set_zero_async(stream).context(context)
        }
    }

    /// The search's result, once its kernel has run (in `elapsed`): the
    /// levels and parents in the graph's own ids, and the work counters
    /// the kernel added to (partition searches or dirty bits taken, edges
    /// examined, levels searched).
    pub(super) fn finish(
        &self,
        gpu: &Gpu,
        renumbering: &Renumbering,
        request: Request,
        elapsed: Duration,
    ) -> Result<GpuRun> {
        let result = self.result(gpu, renumbering, request)?;
        GpuRun::one_launch(request, result, elapsed, |_| {
            let mut counters = [0u64; 3];
            self.counters
                .copy_to(&mut counters[..])
                .context(|| "reading the search's work counters".into())?;
            Ok(Some(Work {
                barriers: 0,
                partition_searches: counters[0],
                edges_examined: counters[1],
                levels_searched: counters[2],
            }))
        })
    }

    /// Levels, and parents where asked, in the graph's own ids, from the
    /// renumbered labels.
    fn result(&self, gpu: &Gpu, renumbering: &Renumbering, request: Request) -> Result<Bfs> {
        let labels =
            copy_to_host(gpu, &self.labels).context(|| "copying the result back".into())?;
        let source = request.source;
        let Renumbering { old_ids, new_ids } = renumbering;
        let label = |vertex: u32| labels[new_ids[vertex as usize] as usize];
        let levels = (0..new_ids.len() as u32)
            .map(|vertex| (label(vertex) >> 32) as u32)
            .collect();
        let parents = request.parents.then(|| {
            (0..new_ids.len() as u32)
                .map(|vertex| match label(vertex) {
                    u64::MAX => UNREACHED,
                    // The source's label is (0, 0): its parent is itself.
                    _ if vertex == source => source,
                    packed => old_ids[packed as u32 as usize],
                })
                .collect()
        });
        Ok(Bfs {
            source,
            levels,
            parents,
        })
    }
}

/// `graph` renumbered into BFS-grown partitions of `partition_size`
/// consecutive ids: the renumbering, the renumbered graph, and the most
/// neighbours (CSR entries) any one partition has, which the kernels
/// count from the partition's first edge in 32 bits.
pub(super) fn grow_partitions(graph: &Csr, partition_size: u32) -> Result<(Renumbering, Csr, u32)> {
    let renumbering = Renumbering::grown_partitions(graph, partition_size);
    let renumbered = renumbering.apply(graph);
    let vertex_count = graph.vertex_count();
    let rows = renumbered.row_offsets();
    let most_columns = (0..vertex_count.div_ceil(partition_size))
        .map(|partition| {
            let first = partition * partition_size;
            let end = (first + partition_size).min(vertex_count);
            rows[end as usize] - rows[first as usize]
        })
        .max()
        .unwrap_or(0);
    let most_columns = u32::try_from(most_columns).map_err(|_| {
        Error::Unsupported(format!(
            "a partition's edges are counted in 32 bits; a partition of {partition_size} \
             vertices has {most_columns}"
        ))
    })?;
    Ok((renumbering, renumbered, most_columns))
}

/// The most shared memory the kernel's block may take on `gpu`.
pub(super) fn shared_limit(gpu: &Gpu) -> u32 {
    gpu.shared_memory_per_block().max(GUARANTEED_SHARED_BYTES)
}

/// Vertices per partition, a multiple of 32 (a dirty-bitmap word belongs
/// to one partition): `n` over the multiprocessors where that fits in the
/// block's shared memory with room for its neighbours, else the most that
/// fits.
fn partition_size(graph: &Csr, gpu: &Gpu) -> u32 {
    let (multiprocessors, shared_limit) = (gpu.multiprocessors(), shared_limit(gpu));
    let average_degree = graph.edge_count() as f64 / graph.vertex_count().max(1) as f64;
    let fits = |size: u32| {
        let columns = (size as f64 * average_degree * COLUMN_SLACK).ceil() as u32;
        partitioned::shared_bytes(size, columns) <= shared_limit
    };
    let one_per_block = graph
        .vertex_count()
        .div_ceil(multiprocessors.max(1))
        .next_multiple_of(32)
        .max(32);
    if fits(one_per_block) {
        return one_per_block;
    }
    let mut size = 32;
    while size + 32 < one_per_block && fits(size + 32) {
        size += 32;
    }
    size
}
