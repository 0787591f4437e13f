//! Host driver of the `persistent-direction-optimizing` variant: the
//! direction-optimizing search (Beamer et al. 2012) in one cooperative
//! launch of as many blocks as stay resident, the level loop and the
//! top-down/bottom-up switch on the device; the host waits once. A graph of
//! fewer than 2^32 CSR entries is searched over a copy of its row offsets
//! in 32 bits.

use bfs_kernels::abi::persistent_direction_optimizing::{self, Search};
use bfs_kernels::abi::{EdgeOffset, hub_chunks};
use cust::memory::{CopyDestination, DeviceBuffer};

use crate::error::CudaContext;
use crate::gpu::queue::{FrontierQueues, visited_words};
use crate::gpu::row_offsets::{ByRowOffset, RowOffsets, with_row_offsets};
use crate::gpu::{DeviceGraph, Driver, Gpu, GpuBfs, GpuRun, Request, Step, address};
use crate::{Csr, Result};

/// The kernel and its grid, the narrow row offsets if it reads them, the
/// frontier queue and labels, three rotating bitmaps, the hubs' chunk
/// lists, the barriers' counters and the level the kernel reached.
pub struct PersistentDirectionOptimizing<'g> {
    gpu: &'g Gpu,
    kernel: ByRowOffset<'g, Search<EdgeOffset>, Search<u32>>,
    blocks_per_multiprocessor: u32,
    symmetric: bool,
    queues: FrontierQueues,
    /// Clear between searches: the kernel clears them before it returns.
    bitmaps: DeviceBuffer<u32>,
    /// Two halves of (hub, chunk) pairs: the chunks of the frontier's hubs.
    hub_chunks: DeviceBuffer<u32>,
    hub_chunk_capacity: u32,
    /// The barriers' counters, then the levels the kernel reached.
    counters: DeviceBuffer<u64>,
}

/// Words of the barriers' counters, before the report.
const COUNTER_WORDS: usize = 3 * persistent_direction_optimizing::COUNTERS as usize;

impl<'g> PersistentDirectionOptimizing<'g> {
    /// As [`new`](Self::new), the row offsets `row_offsets` wide (a test
    /// of the wide kernel on a small graph) or narrow.
    pub fn with_row_offsets(gpu: &'g Gpu, graph: &'g Csr, row_offsets: RowOffsets) -> Result<Self> {
        let allocation = || "allocating persistent direction-optimizing buffers".to_string();
        let kernel = row_offsets.entry(
            gpu,
            (
                persistent_direction_optimizing::SEARCH,
                persistent_direction_optimizing::SEARCH_NARROW,
            ),
            graph.row_offsets(),
            "persistent-direction-optimizing",
        )?;
        let blocks_per_multiprocessor = kernel.check_cooperative(
            gpu,
            persistent_direction_optimizing::BLOCK_SIZE,
            persistent_direction_optimizing::SHARED_BYTES,
        )?;
        let words = visited_words(graph.vertex_count());
        let hub_chunk_capacity = hub_chunks::chunk_capacity(graph.edge_count()) as u32;
        Ok(PersistentDirectionOptimizing {
            gpu,
            kernel,
            blocks_per_multiprocessor,
            symmetric: graph.is_symmetric(),
            queues: FrontierQueues::new(graph.vertex_count())?,
            bitmaps: DeviceBuffer::zeroed(3 * words).context(allocation)?,
            hub_chunks: DeviceBuffer::zeroed(4 * hub_chunk_capacity as usize)
                .context(allocation)?,
            hub_chunk_capacity,
            counters: DeviceBuffer::zeroed(COUNTER_WORDS + 1).context(allocation)?,
        })
    }
}

impl<'g> Driver<'g> for PersistentDirectionOptimizing<'g> {
    /// The narrow row offsets where the graph allows them, the frontier
    /// queues, three bitmaps, the hubs' chunks, the counters and the
    /// reached level.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        let vertex_count = graph.vertex_count();
        RowOffsets::for_graph(graph).copy_bytes(vertex_count as u64 + 1)
            + FrontierQueues::workspace_bytes(vertex_count)
            + 3 * 4 * visited_words(vertex_count) as u64
            + 2 * 8 * hub_chunks::chunk_capacity(graph.edge_count())
            + 8 * (COUNTER_WORDS as u64 + 1)
    }

    /// Loads the kernel, sizes its grid to the blocks that stay resident,
    /// and allocates the buffers for `graph`, its row offsets narrow where
    /// it allows.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        Self::with_row_offsets(gpu, graph, RowOffsets::for_graph(graph))
    }
}

impl GpuBfs for PersistentDirectionOptimizing<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
        let started = std::time::Instant::now();
        let (gpu, queues) = (self.gpu, &mut self.queues);
        queues.start(gpu, source)?;
        // SAFETY: a memset on the stream, ordered before the launch below.
        unsafe { self.counters.set_zero_async(gpu.stream()) }
            .context(|| "starting the persistent direction-optimizing kernel".into())?;
        let columns = address(&graph.column_indices).cast_const();
        let (queue, visited) = (address(&queues.queue), address(&queues.visited));
        let (levels, parents) = (address(&queues.levels), address(&queues.parents));
        let (bitmaps, counters) = (address(&self.bitmaps), address(&self.counters));
        let reached = counters.wrapping_add(COUNTER_WORDS);
        let (vertex_count, bottom_up_allowed) = (graph.vertex_count, u32::from(self.symmetric));
        let (hub_chunks, hub_chunk_capacity) = (address(&self.hub_chunks), self.hub_chunk_capacity);
        let shape = (
            self.blocks_per_multiprocessor * gpu.multiprocessors(),
            persistent_direction_optimizing::BLOCK_SIZE,
            persistent_direction_optimizing::SHARED_BYTES,
        );
        // SAFETY: `persistent_direction_optimizing`'s contract (the narrow
        // kernel's row offsets a copy of this graph's), its buffers sized
        // for the graph's `n` (checked by `Search::run`); `start` left the source alone in the queue, labelled and visited,
        // the bitmaps are clear (zeroed at allocation, cleared by every
        // search), the hub chunks' halves sized by `hub_chunk_capacity`, the
        // counters and the reached word zeroed above; bottom-up runs
        // only on a symmetric graph; `new` found this many blocks of this
        // shape resident on a multiprocessor.
        unsafe {
            let wide = address(&graph.row_offsets).cast_const();
            with_row_offsets!(&self.kernel, wide, |kernel, rows| kernel
                .launch_cooperative(
                    gpu,
                    shape,
                    (
                        rows,
                        columns,
                        queue,
                        visited,
                        levels,
                        parents,
                        bitmaps,
                        counters,
                        vertex_count,
                        bottom_up_allowed,
                        hub_chunks,
                        hub_chunk_capacity,
                        reached,
                    ),
                ))?;
        }
        // The timer stops right behind the launch, before the host waits.
        let mut run = queues.finish(gpu, request)?;
        let mut levels = [0u64];
        self.counters
            .index(COUNTER_WORDS..)
            .copy_to(&mut levels[..])
            .context(|| {
                "reading the levels the persistent direction-optimizing kernel reached".into()
            })?;
        run.steps
            .push(Step::on_gpu(0, levels[0] as u32, started.elapsed()));
        Ok(run)
    }
}
