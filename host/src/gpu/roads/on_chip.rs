//! Host driver of the `on-chip` variant: lays the graph out for one
//! thread-block cluster once (block `r` of `R` owns vertices `r, r + R, …`:
//! a segment of their rows and neighbours each), keeps that copy on the
//! device, and runs each search as one launch of one cluster of
//! `on_chip_search` (the sm_90 module), which stages its segments in
//! shared memory and never leaves it until the search is over. Levels and
//! parents come back in slot order and are put in vertex order after the
//! timer stops, as every variant's copy back is.
//!
//! The cluster: the largest the device schedules with the graph's
//! segments in its blocks' shared memory, 16 blocks on Hopper (past the
//! portable 8, by opt-in). A graph whose segments do not fit even then is
//! refused with the bytes it would need.

use bfs_kernels::abi::on_chip;
use cust::memory::DeviceBuffer;

use crate::error::CudaContext;
use crate::gpu::{
    DeviceGraph, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, Timer, address, cluster, copy_to_host,
};
use crate::{Bfs, Csr, Error, Result};

/// The cluster a graph runs in: its blocks, each block's vertices (slots)
/// and room for the most neighbours any block holds.
#[derive(Clone, Copy, Debug)]
struct ClusterShape {
    blocks: u32,
    slots: u32,
    neighbour_capacity: u32,
}

impl ClusterShape {
    /// The shape of a cluster of `blocks` blocks for `graph`.
    fn new(graph: &Csr, blocks: u32) -> ClusterShape {
        let vertex_count = graph.vertex_count();
        let neighbour_capacity = (0..blocks)
            .map(|rank| {
                (rank..vertex_count)
                    .step_by(blocks as usize)
                    .map(|vertex| graph.degree(vertex))
                    .sum::<u32>()
            })
            .max()
            .unwrap_or(0);
        ClusterShape {
            blocks,
            slots: vertex_count.div_ceil(blocks),
            neighbour_capacity,
        }
    }

    fn layout(&self) -> on_chip::OnChipLayout {
        on_chip::OnChipLayout::new(self.slots, self.neighbour_capacity)
    }

    /// The segments `on_chip_search` stages: `blocks + 1` word offsets,
    /// then each block's rows (`slots + 1`, padded) and neighbours.
    fn segments(&self, graph: &Csr) -> Vec<u32> {
        let (blocks, slots) = (self.blocks, self.slots);
        let mut words = Vec::with_capacity(
            (blocks + 1 + blocks * (slots + 1)) as usize + graph.edge_count() as usize,
        );
        words.resize(blocks as usize + 1, 0);
        for rank in 0..blocks {
            words[rank as usize] = words.len() as u32;
            let owned: Vec<u32> = (rank..graph.vertex_count())
                .step_by(blocks as usize)
                .collect();
            let mut offset = 0;
            for slot in 0..=slots as usize {
                words.push(offset);
                if let Some(&vertex) = owned.get(slot) {
                    offset += graph.degree(vertex);
                }
            }
            for &vertex in &owned {
                words.extend_from_slice(graph.neighbours(vertex));
            }
        }
        words[blocks as usize] = words.len() as u32;
        words
    }
}

/// The graph's segments on the device, the slot-ordered levels and
/// parents, and the cluster it runs in.
pub struct OnChip<'g> {
    gpu: &'g Gpu,
    kernel: Entry<'g, on_chip::Search>,
    shape: ClusterShape,
    segments: DeviceBuffer<u32>,
    levels: DeviceBuffer<u32>,
    parents: DeviceBuffer<u32>,
    timer: Timer,
}

impl<'g> OnChip<'g> {
    /// Levels, and parents where asked, in vertex order, from the
    /// slot-ordered buffers.
    fn result(&self, request: Request, vertex_count: u32) -> Result<Bfs> {
        let ClusterShape { blocks, slots, .. } = self.shape;
        let slot_of = |vertex: u32| ((vertex % blocks) * slots + vertex / blocks) as usize;
        let in_vertex_order = |buffer: &DeviceBuffer<u32>| -> Result<Vec<u32>> {
            let slots =
                copy_to_host(self.gpu, buffer).context(|| "copying the result back".to_string())?;
            Ok((0..vertex_count)
                .map(|vertex| slots[slot_of(vertex)])
                .collect())
        };
        Ok(Bfs {
            source: request.source,
            levels: in_vertex_order(&self.levels)?,
            parents: request
                .parents
                .then(|| in_vertex_order(&self.parents))
                .transpose()?,
        })
    }
}

impl<'g> Driver<'g> for OnChip<'g> {
    /// Device bytes besides the graph, for the largest cluster: the
    /// segments (the CSR again, with a row offset per slot and per block)
    /// and a level and a parent per slot.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        let blocks = cluster::MOST_BLOCKS as u64;
        let slots = (graph.vertex_count() as u64).div_ceil(blocks);
        4 * (blocks + 1 + blocks * (slots + 1) + graph.edge_count()) + 8 * blocks * slots
    }

    /// Lays `graph` out for the largest cluster `gpu` runs it in, and
    /// uploads it.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        let kernel = gpu.cluster_entry(on_chip::SEARCH, "on-chip")?;
        cluster::allow_large_clusters(kernel.function(), kernel.name())?;
        let limit = gpu.shared_memory_per_block();
        let mut needed = u64::MAX;
        let mut blocks = cluster::MOST_BLOCKS;
        let shape = loop {
            let shape = ClusterShape::new(graph, blocks);
            let bytes = shape.layout().bytes();
            needed = needed.min(bytes);
            if bytes <= limit as u64 {
                kernel.allow_shared_memory(bytes as u32)?;
                let launch = (blocks, on_chip::BLOCK_SIZE, bytes as u32);
                if cluster::max_active_clusters(gpu, kernel.function(), launch) > 0 {
                    break shape;
                }
            }
            if blocks == 1 {
                let why = if needed > limit as u64 {
                    format!(
                        "this graph needs {needed} bytes a block in a cluster of {}, and {} gives \
                         a block {limit}",
                        cluster::MOST_BLOCKS,
                        gpu.name()
                    )
                } else {
                    format!("{} schedules no cluster that holds this graph", gpu.name())
                };
                return Err(Error::Unsupported(format!(
                    "on-chip keeps the graph in one thread-block cluster's shared memory: {why}"
                )));
            }
            blocks /= 2;
        };
        let allocation = || "allocating the on-chip search's buffers".to_string();
        let slot_count = (shape.blocks * shape.slots).max(1) as usize;
        Ok(OnChip {
            gpu,
            kernel,
            shape,
            segments: DeviceBuffer::from_slice(&shape.segments(graph)).context(allocation)?,
            levels: DeviceBuffer::zeroed(slot_count).context(allocation)?,
            parents: DeviceBuffer::zeroed(slot_count).context(allocation)?,
            timer: Timer::new()?,
        })
    }
}

impl GpuBfs for OnChip<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
        let shared_bytes = self.shape.layout().bytes() as u32;
        self.timer.start(self.gpu)?;
        // SAFETY: `on_chip_search`'s contract: the segments `ClusterShape::segments` laid out for this cluster, the
        // graph's size, a checked source, and slot-ordered buffers of
        // `blocks * slots` entries; `new` found room for this cluster.
        unsafe {
            self.kernel.launch_cluster(
                self.gpu,
                (self.shape.blocks, on_chip::BLOCK_SIZE, shared_bytes),
                (
                    address(&self.segments).cast_const(),
                    graph.vertex_count,
                    self.shape.neighbour_capacity,
                    source,
                    address(&self.levels),
                    address(&self.parents),
                ),
            )?;
        }
        let elapsed = self.timer.stop(self.gpu)?;
        GpuRun::one_launch(
            request,
            self.result(request, graph.vertex_count)?,
            elapsed,
            |_| Ok(None),
        )
    }
}
