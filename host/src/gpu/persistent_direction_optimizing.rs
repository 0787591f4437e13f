//! Host driver of the `persistent-direction-optimizing` variant: the
//! direction-optimizing search (Beamer et al. 2012) in one cooperative
//! launch of as many blocks as stay resident, the level loop and the
//! top-down/bottom-up switch on the device; the host waits once. A graph of
//! fewer than 2^32 CSR entries is searched over a copy of its row offsets
//! in 32 bits.

use bfs_kernels::abi::hub_chunks;
use bfs_kernels::abi::persistent_direction_optimizing;
use cust::function::Function;
use cust::memory::{CopyDestination, DeviceBuffer};

use super::queue::{FrontierQueues, visited_words};
use super::row_offsets::RowOffsets;
use super::{
    DeviceGraph, Driver, Gpu, GpuBfs, GpuRun, Step, check_cooperative, cooperative_launch,
    parameter,
};
use crate::error::CudaContext;
use crate::{Csr, Result};

/// The kernel and its grid, the narrow row offsets if it reads them, the
/// frontier queue and labels, three rotating bitmaps, the hubs' chunk
/// lists, the barriers' counters and the level the kernel reached.
pub struct PersistentDirectionOptimizing<'g> {
    gpu: &'g Gpu,
    kernel: Function<'g>,
    kernel_name: &'static str,
    narrow_row_offsets: Option<DeviceBuffer<u32>>,
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
        let kernel_name = match row_offsets {
            RowOffsets::Wide => persistent_direction_optimizing::SEARCH,
            RowOffsets::Narrow => persistent_direction_optimizing::SEARCH_NARROW,
        };
        let narrow_row_offsets =
            row_offsets.upload_copy(graph.row_offsets(), "persistent-direction-optimizing")?;
        let kernel = gpu.kernel(kernel_name)?;
        let blocks_per_multiprocessor = check_cooperative(
            gpu,
            &kernel,
            persistent_direction_optimizing::BLOCK_SIZE,
            persistent_direction_optimizing::SHARED_BYTES,
            kernel_name,
        )?;
        let words = visited_words(graph.vertex_count());
        let hub_chunk_capacity = hub_chunks::chunk_capacity(graph.edge_count()) as u32;
        Ok(PersistentDirectionOptimizing {
            gpu,
            kernel,
            kernel_name,
            narrow_row_offsets,
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
    fn run(&mut self, graph: &DeviceGraph, source: u32) -> Result<GpuRun> {
        let started = std::time::Instant::now();
        let (gpu, queues) = (self.gpu, &mut self.queues);
        queues.start(gpu, source)?;
        // SAFETY: a memset on the stream, ordered before the launch below.
        unsafe { self.counters.set_zero_async(gpu.stream()) }
            .context(|| "starting the persistent direction-optimizing kernel".into())?;
        let mut wide_row_offsets = graph.row_offsets.as_device_ptr();
        let mut narrow_row_offsets = self
            .narrow_row_offsets
            .as_ref()
            .map(|rows| rows.as_device_ptr());
        let mut column_indices = graph.column_indices.as_device_ptr();
        let mut queue = queues.queue.as_device_ptr();
        let mut visited = queues.visited.as_device_ptr();
        let mut levels = queues.levels.as_device_ptr();
        let mut parents = queues.parents.as_device_ptr();
        let mut bitmaps = self.bitmaps.as_device_ptr();
        let mut counters = self.counters.as_device_ptr();
        let mut reached = counters.wrapping_add(COUNTER_WORDS);
        let mut vertex_count = graph.vertex_count;
        let mut bottom_up_allowed = self.symmetric as u32;
        let mut hub_chunks = self.hub_chunks.as_device_ptr();
        let mut hub_chunk_capacity = self.hub_chunk_capacity;
        let row_offsets = match &mut narrow_row_offsets {
            Some(narrow) => parameter(narrow),
            None => parameter(&mut wide_row_offsets),
        };
        let mut parameters = [
            row_offsets,
            parameter(&mut column_indices),
            parameter(&mut queue),
            parameter(&mut visited),
            parameter(&mut levels),
            parameter(&mut parents),
            parameter(&mut bitmaps),
            parameter(&mut counters),
            parameter(&mut vertex_count),
            parameter(&mut bottom_up_allowed),
            parameter(&mut hub_chunks),
            parameter(&mut hub_chunk_capacity),
            parameter(&mut reached),
        ];
        // SAFETY: the parameters are the addresses of values of
        // `persistent_direction_optimizing`'s parameters, in its order and
        // types (the narrow kernel's row offsets are `u32`, from this
        // graph), all sized for the graph's `n` (checked by `Search::run`);
        // `start` left the source alone in the queue, labelled and visited,
        // the bitmaps are clear (zeroed at allocation, cleared by every
        // search), the hub chunks' halves sized by `hub_chunk_capacity`, the
        // counters and the reached word zeroed above; bottom-up runs
        // only on a symmetric graph; `new` found this many blocks of this
        // shape resident on a multiprocessor.
        unsafe {
            cooperative_launch(
                gpu,
                &self.kernel,
                (
                    self.blocks_per_multiprocessor * gpu.multiprocessors(),
                    persistent_direction_optimizing::BLOCK_SIZE,
                    persistent_direction_optimizing::SHARED_BYTES,
                ),
                &mut parameters,
                self.kernel_name,
            )?;
        }
        // The timer stops right behind the launch, before the host waits.
        let mut run = queues.finish(gpu, source)?;
        let mut levels = [0u64];
        self.counters
            .index(COUNTER_WORDS..)
            .copy_to(&mut levels[..])
            .context(|| {
                "reading the levels the persistent direction-optimizing kernel reached".into()
            })?;
        run.steps.push(Step {
            first_level: 0,
            levels: levels[0] as u32,
            elapsed: started.elapsed(),
            on_cpu: false,
            exchange: None,
            direction: None,
        });
        Ok(run)
    }
}
