//! The GPU's betweenness for deep graphs (`kernels/src/many_sources/betweenness_blocks.rs`):
//! a block a source, each block's slot of marks, queue and totals on the
//! device for the whole run; the totals summed into the scores and read
//! back once, at the end.
//!
//! A slot costs 32 bytes a vertex, so the slots are as many as the
//! device keeps resident, or fewer where free memory says so
//! ([`GpuBlockBetweenness::slots_for`]).

use bfs_kernels::abi::Rows;
use bfs_kernels::abi::betweenness::Scores;
use bfs_kernels::abi::betweenness_blocks::{
    self, BLOCK_SIZE, Mark, SHARED_BYTES, Slots, TOTALS_BLOCK_SIZE,
};
use cust::memory::{CopyDestination, DeviceBuffer};

use super::betweenness_scores::ScoreSums;
use super::check_room;
use crate::error::CudaContext;
use crate::gpu::{Entry, Gpu, address, blocks_for, upload};
use crate::many::betweenness::{Betweenness, Dependencies, Wanted};
use crate::many::check_batch;
use crate::{Csr, Error, Result};

/// Device bytes a slot takes a vertex: a mark, a queue place, a level's
/// end and a running total.
const BYTES_A_VERTEX: u64 = 16 + 4 + 4 + 8;

/// The share of the free device memory the slots may take.
const MEMORY_SHARE: f64 = 0.75;

/// Sources a launch searches, a slot: enough that the blocks that finish
/// first find more to do while the deepest searches run.
const SOURCES_A_SLOT: usize = 16;

/// The kernels.
struct Kernels<'g> {
    search: Entry<'g, (Rows, Slots, *const u32, u32, Scores)>,
    totals: Entry<'g, (Slots, *mut f64)>,
}

/// The engine: the graph on the device, the slots and the scores.
pub struct GpuBlockBetweenness<'g> {
    gpu: &'g Gpu,
    graph: &'g Csr,
    wanted: Wanted,
    kernels: Kernels<'g>,
    offsets: DeviceBuffer<u64>,
    columns: DeviceBuffer<u32>,
    /// Two words a mark.
    marks: DeviceBuffer<u64>,
    queue: DeviceBuffer<u32>,
    level_ends: DeviceBuffer<u32>,
    totals: DeviceBuffer<f64>,
    sources: DeviceBuffer<u32>,
    scores: ScoreSums,
    slots: u32,
}

impl<'g> GpuBlockBetweenness<'g> {
    /// Device bytes of an engine of `slots` slots over `graph`.
    pub fn device_bytes(graph: &Csr, slots: u32, wanted: Wanted) -> u64 {
        let (n, m) = (graph.vertex_count() as u64, graph.edge_count());
        let sources = 4 * slots as u64 * SOURCES_A_SLOT as u64;
        Csr::bytes_of(graph.vertex_count(), m)
            + slots as u64 * (BYTES_A_VERTEX * n + 4)
            + ScoreSums::bytes(graph, wanted)
            + sources
    }

    /// The slots for `sources` sources: as many blocks as the device keeps
    /// resident, no more than the sources, and no more than three quarters
    /// of the free memory holds; an error where not even one fits.
    pub fn slots_for(gpu: &Gpu, graph: &Csr, sources: usize, wanted: Wanted) -> Result<u32> {
        let search = gpu.entry(betweenness_blocks::SEARCH)?;
        let resident = search
            .function()
            .max_active_blocks_per_multiprocessor(
                cust::function::BlockSize::x(BLOCK_SIZE),
                SHARED_BYTES as usize,
            )
            .context(|| "reading betweenness_blocks's occupancy".into())?;
        let free = gpu.free_memory()?;
        let room = (free as f64 * MEMORY_SHARE) as u64;
        let mut slots = (gpu.multiprocessors() * resident)
            .min(sources.max(1) as u32)
            .max(1);
        while slots > 1 && Self::device_bytes(graph, slots, wanted) > room {
            slots = slots * 3 / 4;
        }
        let needed = Self::device_bytes(graph, slots, wanted);
        check_room("betweenness", needed, (room, free))?;
        Ok(slots)
    }

    /// An engine of `slots` blocks over `graph`.
    pub fn new(gpu: &'g Gpu, graph: &'g Csr, slots: u32, wanted: Wanted) -> Result<Self> {
        let n = graph.vertex_count() as usize;
        if slots == 0 {
            return Err(Error::Invalid("betweenness: an engine of no slots".into()));
        }
        let needed = Self::device_bytes(graph, slots, wanted);
        let free = gpu.free_memory()?;
        check_room("betweenness", needed, (free, free))?;
        let allocation = || "allocating the betweenness slots".to_string();
        let s = slots as usize;
        Ok(GpuBlockBetweenness {
            gpu,
            graph,
            wanted,
            kernels: Kernels {
                search: gpu.entry(betweenness_blocks::SEARCH)?,
                totals: gpu.entry(betweenness_blocks::TOTALS)?,
            },
            offsets: upload(graph.row_offsets())?,
            columns: upload(graph.column_indices())?,
            marks: DeviceBuffer::zeroed((2 * s * n).max(1)).context(allocation)?,
            queue: DeviceBuffer::zeroed((s * n).max(1)).context(allocation)?,
            level_ends: DeviceBuffer::zeroed(s * (n + 1)).context(allocation)?,
            totals: DeviceBuffer::zeroed(if wanted.vertices { (s * n).max(1) } else { 1 })
                .context(allocation)?,
            sources: DeviceBuffer::zeroed(s * SOURCES_A_SLOT).context(allocation)?,
            scores: ScoreSums::new(graph, wanted)?,
            slots,
        })
    }

    fn slots(&self) -> Slots {
        Slots {
            marks: address(&self.marks).cast::<Mark>(),
            queue: address(&self.queue),
            level_ends: address(&self.level_ends),
            totals: match self.wanted.vertices {
                true => address(&self.totals),
                false => std::ptr::null_mut(),
            },
            vertex_count: self.graph.vertex_count(),
            slots: self.slots,
        }
    }

    fn synchronize(&self) -> Result<()> {
        self.gpu
            .stream()
            .synchronize()
            .context(|| "running the betweenness searches".into())
    }
}

impl Betweenness for GpuBlockBetweenness<'_> {
    fn batch_width(&self) -> usize {
        self.slots as usize * SOURCES_A_SLOT
    }

    fn add_batch(&mut self, sources: &[u32]) -> Result<()> {
        check_batch(sources, self.batch_width(), self.graph.vertex_count())?;
        if sources.is_empty() {
            return Ok(());
        }
        // The last launch is done with the sources before the copy
        // overwrites them.
        self.synchronize()?;
        self.sources
            .index(..sources.len())
            .copy_from(sources)
            .context(|| "uploading the sources".into())?;
        let rows = Rows {
            offsets: address(&self.offsets).cast_const(),
            columns: address(&self.columns).cast_const(),
        };
        // The vertices' scores are summed from the slots' totals at the end.
        let scores = self.scores.block(false);
        // SAFETY: the slots are sized for the graph and `self.slots`
        // blocks, their marks zero (allocated so, and each launch leaves
        // them so); the sources are vertices (checked); the arc scores
        // hold `m` values.
        unsafe {
            self.kernels.search.launch(
                self.gpu.stream(),
                (self.slots, BLOCK_SIZE, SHARED_BYTES),
                (
                    rows,
                    self.slots(),
                    address(&self.sources).cast_const(),
                    sources.len() as u32,
                    scores,
                ),
            )
        }
        .context(|| "launching betweenness_blocks".into())
    }

    fn take(&mut self) -> Result<Dependencies> {
        if self.wanted.vertices {
            let threads = self.graph.vertex_count().max(1);
            // SAFETY: the totals and scores are sized for the graph, and
            // the searches before on the stream are their only writers.
            unsafe {
                self.kernels.totals.launch(
                    self.gpu.stream(),
                    (
                        blocks_for(threads, TOTALS_BLOCK_SIZE).min(4096),
                        TOTALS_BLOCK_SIZE,
                        0,
                    ),
                    (self.slots(), self.scores.vertices()),
                )
            }
            .context(|| "launching betweenness_blocks_totals".into())?;
        }
        self.synchronize()?;
        self.scores.take(self.gpu)
    }

    fn describe(&self) -> String {
        format!(
            "{}, {} sources at once (Brandes, a block a source)",
            self.gpu.name(),
            self.slots
        )
    }
}
