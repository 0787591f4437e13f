//! Host driver of the `chain-contracted` variant: contracts the graph's
//! degree-2 chains once (`graph::chains`), uploads the contracted graph,
//! each vertex's place and each chain, and runs a search as three launches
//! on the stream: `chain_contracted_search` (one block, its arrays in
//! shared memory when they fit, else in a global scratch buffer), then
//! `chain_contracted_levels` and `chain_contracted_parents`, a thread per
//! vertex each. The source's place, looked up on the host, gives the seeds.

use bfs_kernels::abi::{BLOCK_SIZE, chain_contracted};
use std::time::Duration;

use cust::memory::{CopyDestination, DeviceBuffer};

use crate::error::CudaContext;
use crate::gpu::{
    DeviceGraph, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, Timer, Work, address, blocks_for,
    download, upload,
};
use crate::graph::chains::{ChainContraction, Place, WeightedRows};
use crate::{Csr, Error, Result};

/// The fewest queue entries worth keeping the search in shared memory:
/// with fewer, rounds that overflow the queue scan the whole bitmap.
const FEWEST_SHARED_QUEUE_ENTRIES: u32 = 1024;

/// The near pile's width: a round relaxes only vertices whose label is
/// below the far pile's least label, when it was last refilled, plus this.
/// Narrow piles relax fewer arcs twice but take more rounds; this width
/// balanced the two on a road network (docs/decisions.md, "Road networks
/// and grids").
pub const NEAR_FAR_DELTA: u32 = 192;

/// The contraction on both sides, the result buffers and the search's region.
pub struct ChainContracted<'g> {
    gpu: &'g Gpu,
    graph: &'g Csr,
    search_kernel: Entry<'g, chain_contracted::Search>,
    contraction: ChainContraction,
    row_offsets: DeviceBuffer<u32>,
    arcs: DeviceBuffer<u32>,
    /// The search's region when it does not fit in shared memory.
    scratch: Option<DeviceBuffer<u32>>,
    chain_levels: ChainLevels<'g>,
    queue_capacity: u32,
    timer: Timer,
}

/// What the variants that search a chain contraction's kept vertices
/// share: each vertex's place and each chain on the device, the kept
/// vertices' distances and the work counters their search writes, and the
/// two kernels that give every vertex its level and parent from them.
pub(super) struct ChainLevels<'g> {
    levels_kernel: Entry<'g, chain_contracted::Levels>,
    parents_kernel: Entry<'g, chain_contracted::Parents>,
    places: DeviceBuffer<u32>,
    chains: DeviceBuffer<u32>,
    /// A distance per kept vertex, written by the search.
    pub(super) kept_levels: DeviceBuffer<u32>,
    levels: DeviceBuffer<u32>,
    parents: DeviceBuffer<u32>,
    /// The search's barriers and the arcs it examined, written by the search.
    pub(super) work: DeviceBuffer<u64>,
}

impl<'g> ChainLevels<'g> {
    /// Uploads `contraction`'s places and chains and allocates the rest.
    pub(super) fn new(gpu: &'g Gpu, contraction: &ChainContraction) -> Result<Self> {
        let allocation = || "allocating the chains' levels and parents".to_string();
        let vertex_count = contraction.places.len() / 2;
        Ok(ChainLevels {
            levels_kernel: gpu.entry(chain_contracted::LEVELS)?,
            parents_kernel: gpu.entry(chain_contracted::PARENTS)?,
            places: upload(&contraction.places)?,
            chains: upload(&contraction.chains)?,
            kept_levels: DeviceBuffer::zeroed(contraction.kept_count().max(1) as usize)
                .context(allocation)?,
            levels: DeviceBuffer::zeroed(vertex_count).context(allocation)?,
            parents: DeviceBuffer::zeroed(vertex_count).context(allocation)?,
            work: DeviceBuffer::zeroed(2).context(allocation)?,
        })
    }

    /// Device bytes besides the places and chains: a level per kept vertex,
    /// a level and a parent per vertex, the work counters.
    pub(super) fn bytes(vertex_count: u64, kept_count: u32) -> u64 {
        4 * kept_count as u64 + 8 * vertex_count + 16
    }

    /// Launches the levels and parents kernels on the stream, after the
    /// search wrote `kept_levels`, for a search from `source` on
    /// `source_chain` (chain and position; `chain_contracted::NO_ENTRY` when it is kept).
    pub(super) fn launch(
        &self,
        gpu: &Gpu,
        graph: &DeviceGraph,
        source: u32,
        (chain, position): (u32, u32),
    ) -> Result<()> {
        let (levels, parents, stream) = (&self.levels_kernel, &self.parents_kernel, gpu.stream());
        let vertex_count = graph.vertex_count;
        let blocks = blocks_for(vertex_count, BLOCK_SIZE);
        // SAFETY: places and chains come from the contraction of this
        // graph, whose kept vertices the search numbered alike;
        // `kept_levels` has an entry per kept vertex, `levels` and
        // `parents` `n`, and `source < n` (`Search::run` checked it). Each
        // kernel's contract, arguments in its parameter order; both run
        // after the search, in order on the one stream.
        unsafe {
            levels
                .launch(
                    stream,
                    (blocks, BLOCK_SIZE, 0),
                    (
                        address(&self.places).cast_const(),
                        address(&self.chains).cast_const(),
                        address(&self.kept_levels).cast_const(),
                        vertex_count,
                        source,
                        chain,
                        position,
                        address(&self.levels),
                        address(&self.parents),
                    ),
                )
                .context(|| "launching chain_contracted_levels".into())?;
            parents
                .launch(
                    stream,
                    (blocks, BLOCK_SIZE, 0),
                    (
                        address(&graph.row_offsets).cast_const(),
                        address(&graph.column_indices).cast_const(),
                        address(&self.levels).cast_const(),
                        vertex_count,
                        address(&self.parents),
                    ),
                )
                .context(|| "launching chain_contracted_parents".into())?;
        }
        Ok(())
    }

    /// The finished search from `source` over `graph`, timed `elapsed`:
    /// its levels, parents and work.
    pub(super) fn result(
        &self,
        gpu: &Gpu,
        graph: &Csr,
        request: Request,
        elapsed: Duration,
    ) -> Result<GpuRun> {
        let result = download(gpu, request, &self.levels, Some(&self.parents))?;
        GpuRun::one_launch(request, result, elapsed, |result| {
            let mut work = [0u64; 2];
            self.work
                .copy_to(&mut work[..])
                .context(|| "reading the search's work counters".into())?;
            Ok(Some(Work {
                barriers: work[0] as u32,
                partition_searches: 0,
                // The parents' pass examines every reached vertex's edges once.
                edges_examined: work[1] + result.edges_traversed(graph),
                levels_searched: 0,
            }))
        })
    }
}

/// The seeds for a search from `source` over `contraction`'s kept
/// vertices (kept indices and their distances; the second `chain_contracted::NO_ENTRY` when
/// the source is kept), and the source's chain and position (`chain_contracted::NO_ENTRY`
/// and 0 when it is kept).
pub(crate) fn seeds(contraction: &ChainContraction, source: u32) -> ([(u32, u32); 2], (u32, u32)) {
    match contraction.place(source) {
        Place::Kept(kept) => (
            [(kept, 0), (chain_contracted::NO_ENTRY, 0)],
            (chain_contracted::NO_ENTRY, 0),
        ),
        Place::InChain { chain, position } => {
            let ends = contraction.chain(chain);
            (
                [
                    (ends.first_end, position),
                    (ends.second_end, ends.length - position),
                ],
                (chain, position),
            )
        }
    }
}

/// Entries of each queue, and whether the region fits in shared memory,
/// for `kept_count` kept vertices on `gpu`.
fn region_shape(gpu: &Gpu, kept_count: u32) -> (u32, bool) {
    let fixed = chain_contracted::ChainContractedLayout::new(kept_count, 0).bytes();
    let room = (gpu.shared_memory_per_block() as u64).saturating_sub(fixed) / 16;
    let wanted = kept_count.max(2);
    let in_shared = room >= wanted.min(FEWEST_SHARED_QUEUE_ENTRIES) as u64;
    if in_shared {
        (wanted.min(room as u32), true)
    } else {
        (wanted, false)
    }
}

impl<'g> ChainContracted<'g> {
    /// As [`new`](Self::new), with queues of `queue_capacity` entries (at
    /// least 2) instead of as many as fit: a round that queues more scans
    /// the bitmap instead (for tests of that path).
    pub fn with_queue_capacity(
        gpu: &'g Gpu,
        graph: &'g Csr,
        queue_capacity: Option<u32>,
    ) -> Result<Self> {
        let vertex_count = graph.vertex_count();
        if vertex_count >= chain_contracted::IN_CHAIN {
            return Err(Error::Unsupported(format!(
                "chain-contracted numbers kept vertices and chains in 31 bits; \
                 {vertex_count} vertices are too many"
            )));
        }
        let contraction = ChainContraction::of(graph);
        let kept_count = contraction.kept_count();
        let (fitting_capacity, in_shared) = region_shape(gpu, kept_count);
        let queue_capacity = queue_capacity.map_or(fitting_capacity, |capacity| {
            capacity.clamp(2, fitting_capacity)
        });
        let layout = chain_contracted::ChainContractedLayout::new(kept_count, queue_capacity);
        let search_kernel = gpu.entry(chain_contracted::SEARCH)?;
        let scratch = if in_shared {
            // `region_shape` kept the layout within the device's opt-in limit.
            search_kernel.allow_shared_memory(layout.bytes() as u32)?;
            None
        } else {
            Some(
                DeviceBuffer::zeroed(layout.words as usize)
                    .context(|| "allocating chain-contracted's search region".into())?,
            )
        };
        Ok(ChainContracted {
            gpu,
            graph,
            search_kernel,
            row_offsets: upload_row_offsets(&contraction.graph, "chain-contracted")?,
            arcs: upload(&contraction.graph.arcs)?,
            scratch,
            chain_levels: ChainLevels::new(gpu, &contraction)?,
            queue_capacity,
            contraction,
            timer: Timer::new()?,
        })
    }
}

impl<'g> Driver<'g> for ChainContracted<'g> {
    /// Device bytes besides the graph: the contraction, a level per kept
    /// vertex, a level and a parent per vertex, the work counters, and the
    /// scratch region where shared memory is too small for it.
    fn workspace_bytes(gpu: &Gpu, graph: &Csr) -> u64 {
        let contraction = ChainContraction::of(graph);
        let kept_count = contraction.kept_count();
        let (queue_capacity, in_shared) = region_shape(gpu, kept_count);
        let scratch = if in_shared {
            0
        } else {
            chain_contracted::ChainContractedLayout::new(kept_count, queue_capacity).bytes()
        };
        let vertex_count = (contraction.places.len() / 2) as u64;
        contraction.bytes() + ChainLevels::bytes(vertex_count, kept_count) + scratch
    }

    /// Contracts `graph`'s chains and uploads the contraction.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        Self::with_queue_capacity(gpu, graph, None)
    }
}

impl GpuBfs for ChainContracted<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
        let ([(first, first_distance), (second, second_distance)], source_chain) =
            seeds(&self.contraction, source);
        let stream = self.gpu.stream();
        let kept_count = self.contraction.kept_count();
        let (scratch, shared_bytes) = match &self.scratch {
            Some(scratch) => (address(scratch), 0),
            None => (
                std::ptr::null_mut(),
                chain_contracted::ChainContractedLayout::new(kept_count, self.queue_capacity)
                    .bytes() as u32,
            ),
        };
        let search = &self.search_kernel;
        self.timer.start(self.gpu)?;
        // SAFETY: the contraction was built from this graph (`Search::run`
        // checked `source < n`): its rows, arcs (heads kept indices, weights
        // at least 1, paths shorter than 2^31), with the seeds its place
        // names; the region is the shared memory allowed in `new` for this
        // layout, or the scratch buffer of its words; `kept_levels` holds
        // `kept_count` entries, `work` two. The kernel's contract, arguments
        // in its parameter order.
        unsafe {
            search
                .launch(
                    stream,
                    (1, chain_contracted::BLOCK_SIZE, shared_bytes),
                    (
                        address(&self.row_offsets).cast_const(),
                        address(&self.arcs).cast_const(),
                        kept_count,
                        first,
                        first_distance,
                        second,
                        second_distance,
                        NEAR_FAR_DELTA,
                        self.queue_capacity,
                        scratch,
                        address(&self.chain_levels.kept_levels),
                        address(&self.chain_levels.work),
                    ),
                )
                .context(|| "launching chain_contracted_search".into())?;
        }
        self.chain_levels
            .launch(self.gpu, graph, source, source_chain)?;
        let elapsed = self.timer.stop(self.gpu)?;
        self.chain_levels
            .result(self.gpu, self.graph, request, elapsed)
    }
}

/// Uploads the row offsets of a contracted graph (`variant`'s), narrowed to
/// the 32 bits its kernels take: a contracted graph has fewer arcs than its
/// graph has CSR entries, or a few more with shortcuts, so only graphs of
/// billions of edges are refused.
pub(crate) fn upload_row_offsets(rows: &WeightedRows, variant: &str) -> Result<DeviceBuffer<u32>> {
    let narrow = rows.narrow_row_offsets().ok_or_else(|| {
        Error::Unsupported(format!(
            "{variant} keeps 32-bit arc offsets; its contracted graph has {} arcs",
            rows.arc_count()
        ))
    })?;
    upload(&narrow)
}
