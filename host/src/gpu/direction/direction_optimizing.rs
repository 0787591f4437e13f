//! Host driver of the `direction-optimizing` variant (Beamer et al. 2012,
//! gapbs's `DOBFS`): top-down levels from the frontier queue while the
//! frontier's edges are few, bottom-up levels over bitmaps while it is large,
//! switching by the α/β rule with the counts the kernels return. A top-down
//! level expands its hubs' lists in chunks, a block each (`hub_chunks`);
//! a bottom-up level reads its rows in 32 bits where the graph allows
//! ([`RowOffsets`]). Directed (non-symmetric) graphs run top-down only.

use bfs_kernels::abi::BLOCK_SIZE;
use bfs_kernels::abi::EdgeOffset;
use bfs_kernels::abi::direction_optimizing::{self, BottomUp, Switch};
use cust::memory::{AsyncCopyDestination, DeviceBuffer, LockedBuffer};

use super::hub_chunks::{ChunkedTopDown, TopDownLevel};
use crate::error::CudaContext;
use crate::gpu::queue::{FrontierQueues, at_level, visited_words};
use crate::gpu::row_offsets::{ByRowOffset, RowOffsets, with_row_offsets};
use crate::gpu::{
    DeviceGraph, Direction, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, Step, address, blocks_for,
};
use crate::{Csr, Result};

/// The switch of this search: α = 30, not gapbs's 15 (which
/// `persistent-direction-optimizing` and the CPU engine keep), and
/// gapbs's β = 18. A top-down level on a GPU claims each vertex with an
/// atomic, so a level just under gapbs's switch costs several bottom-up
/// ones; but with every list of a chunk or more dealt out to the grid, a
/// level of a few per cent of the unexplored edges still runs faster
/// top-down, so a larger α switches too soon (docs/decisions.md,
/// "Direction-optimizing"). The search over GPUs takes it too
/// ([`crate::multi`]).
pub const LEVEL_BY_LEVEL: Switch = Switch::new(30, Switch::GAPBS.beta.get());

/// The kernels, the queues, the two bitmaps and the step counters.
pub struct DirectionOptimizing<'g> {
    gpu: &'g Gpu,
    graph: &'g Csr,
    symmetric: bool,
    top_down: ChunkedTopDown<'g>,
    bottom_up: ByRowOffset<'g, BottomUp<EdgeOffset>, BottomUp<u32>>,
    queue_to_bitmap: Entry<'g, direction_optimizing::QueueToBitmap>,
    bitmap_to_queue: Entry<'g, direction_optimizing::BitmapToQueue>,
    queues: FrontierQueues,
    frontier_bitmap: DeviceBuffer<u32>,
    next_bitmap: DeviceBuffer<u32>,
    /// `scout_count`: the degrees of the frontier a top-down level found.
    next_frontier_edges: DeviceBuffer<u64>,
    next_frontier_edges_on_host: LockedBuffer<u64>,
    /// `awake_count`: the vertices a bottom-up level found.
    awake: DeviceBuffer<u32>,
    awake_on_host: LockedBuffer<u32>,
}

impl<'g> DirectionOptimizing<'g> {
    /// As [`new`](Self::new), the bottom-up level's row offsets
    /// `row_offsets` wide (a test of the wide kernel on a small graph) or
    /// narrow.
    pub fn with_row_offsets(gpu: &'g Gpu, graph: &'g Csr, row_offsets: RowOffsets) -> Result<Self> {
        let words = visited_words(graph.vertex_count());
        let allocation = || "allocating direction-optimizing buffers".to_string();
        Ok(DirectionOptimizing {
            gpu,
            graph,
            symmetric: graph.is_symmetric(),
            top_down: ChunkedTopDown::new(gpu, graph, 0..graph.vertex_count())?,
            bottom_up: row_offsets.entry(
                gpu,
                (
                    direction_optimizing::BOTTOM_UP,
                    direction_optimizing::BOTTOM_UP_NARROW,
                ),
                graph.row_offsets(),
                "direction-optimizing",
            )?,
            queue_to_bitmap: gpu.entry(direction_optimizing::QUEUE_TO_BITMAP)?,
            bitmap_to_queue: gpu.entry(direction_optimizing::BITMAP_TO_QUEUE)?,
            queues: FrontierQueues::new(graph.vertex_count())?,
            frontier_bitmap: DeviceBuffer::zeroed(words).context(allocation)?,
            next_bitmap: DeviceBuffer::zeroed(words).context(allocation)?,
            next_frontier_edges: DeviceBuffer::zeroed(1).context(allocation)?,
            next_frontier_edges_on_host: LockedBuffer::new(&0, 1).context(allocation)?,
            awake: DeviceBuffer::zeroed(1).context(allocation)?,
            awake_on_host: LockedBuffer::new(&0, 1).context(allocation)?,
        })
    }

    /// One top-down level from a frontier of `frontier_size` vertices (and
    /// `frontier_edges` edges, where known); returns the next frontier's
    /// size and its edges.
    fn top_down_step(
        &mut self,
        graph: &DeviceGraph,
        (frontier_size, frontier_edges): (u32, Option<u64>),
        level: u32,
    ) -> Result<(u32, u64)> {
        let (stream, queues) = (self.gpu.stream(), &mut self.queues);
        queues.clear_next_size(self.gpu)?;
        let context = || "running a top-down level".to_string();
        // SAFETY: a memset on the stream, before the kernels that add to it.
        unsafe { self.next_frontier_edges.set_zero_async(stream) }.context(context)?;
        let expansion = TopDownLevel {
            level: queues.level(graph, frontier_size, level),
            next_frontier_edges: self.next_frontier_edges.as_device_ptr(),
            frontier_edges,
        };
        // SAFETY: queues, labels and graph sized for the same `n` (checked
        // by `Search::run`), and `top_down` for this graph; the queue holds
        // `frontier_size` vertices and room for every vertex after them.
        // The page-locked count is read after `advance` synchronizes the
        // stream.
        unsafe {
            self.top_down.run(self.gpu, &expansion)?;
            self.next_frontier_edges
                .async_copy_to(&mut self.next_frontier_edges_on_host, stream)
                .context(context)?;
        }
        let next_size = queues.advance(self.gpu)?;
        Ok((next_size, self.next_frontier_edges_on_host[0]))
    }

    /// One bottom-up level from `frontier_bitmap`; returns `awake_count`.
    fn bottom_up_step(&mut self, graph: &DeviceGraph, level: u32) -> Result<u32> {
        let (stream, queues) = (self.gpu.stream(), &self.queues);
        let vertex_count = graph.vertex_count;
        let context = || "running a bottom-up level".to_string();
        let shape = (blocks_for(vertex_count, BLOCK_SIZE), BLOCK_SIZE, 4);
        let columns = address(&graph.column_indices).cast_const();
        let (frontier, next) = (
            address(&self.frontier_bitmap).cast_const(),
            address(&self.next_bitmap),
        );
        let (visited, levels, parents) = (
            address(&queues.visited),
            address(&queues.levels),
            address(&queues.parents),
        );
        let awake = address(&self.awake);
        // SAFETY: the row offsets of the width the kernel reads, bitmaps of
        // `ceil(n / 32)` words, the rest sized for `n` and the graph
        // symmetric (checked before choosing bottom-up):
        // `direction_optimizing_bottom_up`'s contract. The page-locked count
        // is read after the stream synchronizes.
        unsafe {
            self.next_bitmap.set_zero_async(stream).context(context)?;
            self.awake.set_zero_async(stream).context(context)?;
            let wide = address(&graph.row_offsets).cast_const();
            with_row_offsets!(&self.bottom_up, wide, |kernel, rows| kernel.launch(
                stream,
                shape,
                (
                    rows,
                    columns,
                    frontier,
                    next,
                    visited,
                    levels,
                    parents,
                    level,
                    vertex_count,
                    awake,
                ),
            ))
            .context(context)?;
            self.awake
                .async_copy_to(&mut self.awake_on_host, stream)
                .context(context)?;
        }
        stream.synchronize().context(context)?;
        std::mem::swap(&mut self.frontier_bitmap, &mut self.next_bitmap);
        Ok(self.awake_on_host[0])
    }

    /// The frontier queue (of `frontier_size`) into `frontier_bitmap`.
    fn queue_to_bitmap(&mut self, frontier_size: u32) -> Result<()> {
        let (stream, kernel) = (self.gpu.stream(), &self.queue_to_bitmap);
        let context = || "converting the frontier queue to a bitmap".to_string();
        // SAFETY: the queue holds `frontier_size` ids `< n` and the bitmap
        // has `ceil(n / 32)` words: `direction_optimizing_queue_to_bitmap`'s contract.
        unsafe {
            self.frontier_bitmap
                .set_zero_async(stream)
                .context(context)?;
            kernel
                .launch(
                    stream,
                    (blocks_for(frontier_size, BLOCK_SIZE), BLOCK_SIZE, 0),
                    (
                        self.queues.frontier().as_ptr(),
                        frontier_size,
                        address(&self.frontier_bitmap),
                    ),
                )
                .context(context)
        }
    }

    /// `frontier_bitmap` into the frontier queue; returns its size.
    fn bitmap_to_queue(&mut self) -> Result<u32> {
        let (stream, kernel) = (self.gpu.stream(), &self.bitmap_to_queue);
        let words = self.frontier_bitmap.len() as u32;
        self.queues.clear_next_size(self.gpu)?;
        // SAFETY: the bitmap has `words` words whose set bits are distinct
        // vertices `< n`, discovered since the queue's current frontier, so
        // the queue has room for them after it:
        // `direction_optimizing_bitmap_to_queue`'s contract.
        unsafe {
            kernel.launch(
                stream,
                (blocks_for(words, BLOCK_SIZE), BLOCK_SIZE, 0),
                (
                    address(&self.frontier_bitmap).cast_const(),
                    0,
                    words,
                    self.queues.next_frontier().as_mut_ptr(),
                    address(&self.queues.next_frontier_size),
                ),
            )
        }
        .context(|| "converting the frontier bitmap to a queue".into())?;
        self.queues.advance(self.gpu)
    }
}

impl<'g> Driver<'g> for DirectionOptimizing<'g> {
    /// The frontier queues, the hub chunks' buffers, two bitmaps, the
    /// counters and the narrow row offsets where the graph takes them.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        let vertex_count = graph.vertex_count();
        bottom_up_row_offsets(graph).copy_bytes(vertex_count as u64 + 1)
            + FrontierQueues::workspace_bytes(vertex_count)
            + ChunkedTopDown::workspace_bytes(graph, 0..vertex_count)
            + 2 * 4 * visited_words(vertex_count) as u64
            + 8
            + 4
    }

    /// Loads the kernels and allocates the buffers for `graph`, the
    /// bottom-up level's row offsets narrow where it allows.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        Self::with_row_offsets(gpu, graph, bottom_up_row_offsets(graph))
    }
}

impl GpuBfs for DirectionOptimizing<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
        self.queues.start(self.gpu, source)?;
        let vertex_count = self.graph.vertex_count() as u64;
        let mut edges_to_check = self.graph.edge_count();
        let mut scout_count = self.graph.degree(source) as u64;
        // The frontier's edges, known after a top-down level only.
        let mut frontier_edges = Some(scout_count);
        let (mut frontier_size, mut level) = (1u32, 0u32);
        while frontier_size > 0 {
            let started = std::time::Instant::now();
            if self.symmetric && LEVEL_BY_LEVEL.goes_bottom_up(scout_count, edges_to_check) {
                self.queue_to_bitmap(frontier_size)
                    .map_err(|error| at_level(error, level))?;
                let mut awake = frontier_size;
                let mut started = started;
                loop {
                    let previous = awake;
                    awake = self
                        .bottom_up_step(graph, level)
                        .map_err(|error| at_level(error, level))?;
                    let growing_or_large =
                        LEVEL_BY_LEVEL.stays_bottom_up(awake.into(), previous.into(), vertex_count);
                    if awake == 0 || !growing_or_large {
                        frontier_size = self
                            .bitmap_to_queue()
                            .map_err(|error| at_level(error, level))?;
                    }
                    let step = Step::gpu_level(level, started).going(Direction::BottomUp);
                    self.queues.steps.push(step);
                    level += 1;
                    started = std::time::Instant::now();
                    if awake == 0 || !growing_or_large {
                        break;
                    }
                }
                scout_count = 1;
                frontier_edges = None;
            } else {
                edges_to_check = edges_to_check.saturating_sub(scout_count);
                (frontier_size, scout_count) = self
                    .top_down_step(graph, (frontier_size, frontier_edges), level)
                    .map_err(|error| at_level(error, level))?;
                frontier_edges = Some(scout_count);
                let step = Step::gpu_level(level, started).going(Direction::TopDown);
                self.queues.steps.push(step);
                level += 1;
            }
        }
        self.queues.finish(self.gpu, request)
    }
}

/// The bottom-up level's row offsets for `graph`: narrow where it allows,
/// wide (no copy) where it does not or never runs bottom-up (a directed graph).
fn bottom_up_row_offsets(graph: &Csr) -> RowOffsets {
    if graph.is_symmetric() {
        RowOffsets::for_graph(graph)
    } else {
        RowOffsets::Wide
    }
}
