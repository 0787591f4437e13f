//! Host driver of the `hierarchy-sweep` variant: contracts the graph's
//! degree-2 chains, then builds a contraction hierarchy over the kept
//! vertices (`graph::hierarchy`), once; uploads its levels and arcs, each
//! vertex's place and each chain; and runs a search as three launches on
//! the stream: the sweeps (one block with the distances in shared memory
//! where they fit, else every block of a cooperative launch), then
//! `chain-contracted`'s levels and parents kernels, a thread per vertex
//! each. The source's place gives the seeds.

use bfs_kernels::abi::chain_contracted;
use bfs_kernels::abi::hierarchy_sweep;
use cust::memory::DeviceBuffer;

use super::chain_contracted::{ChainLevels, seeds, upload_row_offsets};
use crate::error::CudaContext;
use crate::gpu::{
    DeviceGraph, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, Timer, address, upload,
};
use crate::graph::chains::ChainContraction;
use crate::graph::hierarchy::{
    CONTRACTION_WORK_PER_ENTRY, ContractionHierarchy, contraction_budget, contraction_work,
};
use crate::{Csr, Error, Result};

/// The most kept vertices a hierarchy is built over: building it examines
/// each vertex's neighbour pairs round after round, which takes seconds
/// at millions of junctions (docs/decisions.md, "Road networks and
/// grids"); the grid's sweeps take any that fit the device.
pub const MOST_KEPT_VERTICES: u32 = 1 << 24;

/// Where a search keeps the kept vertices' distances, and who sweeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// One block, the distances in its shared memory.
    SharedMemory,
    /// One block, the distances in global memory.
    GlobalMemory,
    /// Every block of a cooperative launch, the distances in global memory.
    Grid,
}

impl Placement {
    /// The fastest `gpu` runs for `kept_count` distances: shared memory
    /// where they fit, else the grid where the device launches
    /// cooperatively.
    pub fn for_hierarchy(gpu: &Gpu, kept_count: u32) -> Placement {
        if distances_fit(gpu, kept_count) {
            Placement::SharedMemory
        } else if gpu.cooperative_launch() {
            Placement::Grid
        } else {
            Placement::GlobalMemory
        }
    }
}

/// Blocks of the grid's sweep on each multiprocessor: a level's vertices
/// are few enough that more blocks add more to each grid barrier's
/// arrivals than they take off the level (docs/decisions.md, "Road
/// networks and grids").
const GRID_BLOCKS_PER_MULTIPROCESSOR: u32 = 1;

/// The grid's sweep: its kernel, its blocks, its barrier words and flags.
struct GridSweep<'g> {
    kernel: Entry<'g, hierarchy_sweep::GridSearch>,
    blocks: u32,
    barrier_words: DeviceBuffer<u64>,
    flags: DeviceBuffer<u32>,
}

impl<'g> GridSweep<'g> {
    /// Loads the kernel and sizes the grid: [`GRID_BLOCKS_PER_MULTIPROCESSOR`]
    /// blocks on each multiprocessor, as many as stay resident.
    fn new(gpu: &'g Gpu) -> Result<Self> {
        let kernel = gpu.entry(hierarchy_sweep::GRID_SEARCH)?;
        let resident = kernel.check_cooperative(
            gpu,
            hierarchy_sweep::GRID_BLOCK_SIZE,
            hierarchy_sweep::GRID_SHARED_BYTES,
        )?;
        let allocation = || "allocating the hierarchy sweep's barrier words".to_string();
        Ok(GridSweep {
            kernel,
            blocks: resident.min(GRID_BLOCKS_PER_MULTIPROCESSOR) * gpu.multiprocessors(),
            barrier_words: DeviceBuffer::zeroed(3).context(allocation)?,
            flags: DeviceBuffer::zeroed(3).context(allocation)?,
        })
    }
}

/// The hierarchy on both sides, the result buffers.
pub struct HierarchySweep<'g> {
    gpu: &'g Gpu,
    graph: &'g Csr,
    search_kernel: Entry<'g, hierarchy_sweep::Search>,
    hierarchy: ContractionHierarchy,
    level_starts: DeviceBuffer<u32>,
    wide_ends: DeviceBuffer<u32>,
    lower_rows: DeviceBuffer<u32>,
    lower_arcs: DeviceBuffer<u32>,
    higher_rows: DeviceBuffer<u32>,
    higher_arcs: DeviceBuffer<u32>,
    chain_levels: ChainLevels<'g>,
    placement: Placement,
    grid: Option<GridSweep<'g>>,
    timer: Timer,
}

/// Whether `kept_count` distances fit one block's shared memory on `gpu`.
fn distances_fit(gpu: &Gpu, kept_count: u32) -> bool {
    hierarchy_sweep::shared_bytes(kept_count, true) <= gpu.shared_memory_per_block() as u64
}

/// Device bytes besides the graph for a hierarchy of `kept_count` vertices,
/// `level_count` levels and `arc_count` arcs, over `vertex_count` vertices
/// in `chain_count` chains: the places and chains, the level starts and
/// wide ends, both rows and arcs, and [`ChainLevels`]'s.
fn bytes(
    vertex_count: u32,
    chain_count: u32,
    kept_count: u32,
    level_count: u32,
    arc_count: u64,
) -> u64 {
    8 * vertex_count as u64
        + 16 * chain_count as u64
        + 4 * (2 * level_count as u64 + 1)
        + 8 * (kept_count as u64 + 1)
        + 8 * arc_count
        + ChainLevels::bytes(vertex_count as u64, kept_count)
}

impl<'g> HierarchySweep<'g> {
    /// As [`new`](Self::new), with the distances placed as `placement`
    /// says (in global memory where shared memory would not hold them),
    /// for tests of every placement.
    pub fn with_placement(gpu: &'g Gpu, graph: &'g Csr, placement: Placement) -> Result<Self> {
        Self::from_hierarchy(gpu, graph, Self::build(graph)?, Some(placement))
    }

    /// Contracts `graph`'s chains and builds the hierarchy over its kept
    /// vertices; refuses, before it starts, a graph whose contraction
    /// would take more than its budget ([`contraction_budget`]), and one
    /// that keeps more than [`MOST_KEPT_VERTICES`].
    pub fn build(graph: &Csr) -> Result<ContractionHierarchy> {
        if let Some(why) = Self::refusal(graph) {
            return Err(Error::Unsupported(why));
        }
        let contraction = ChainContraction::of(graph);
        let kept_count = contraction.kept_count();
        if kept_count > MOST_KEPT_VERTICES {
            return Err(Error::Unsupported(format!(
                "hierarchy-sweep builds hierarchies over at most {MOST_KEPT_VERTICES} kept \
                 vertices (junctions and dead ends); this graph keeps {kept_count}"
            )));
        }
        Ok(ContractionHierarchy::over(graph, contraction))
    }

    /// Why a hierarchy of `graph` is not built, found in one pass over its
    /// rows: more vertices than 31 bits number, or a contraction past its
    /// budget (hubs, whose rows each of their neighbours rewrites).
    fn refusal(graph: &Csr) -> Option<String> {
        let vertex_count = graph.vertex_count();
        if vertex_count >= chain_contracted::IN_CHAIN {
            return Some(format!(
                "hierarchy-sweep numbers kept vertices and chains in 31 bits; \
                 {vertex_count} vertices are too many"
            ));
        }
        let (work, budget) = (contraction_work(graph), contraction_budget(graph));
        if work <= budget {
            return None;
        }
        let largest = (0..vertex_count).map(|vertex| graph.degree(vertex)).max();
        Some(format!(
            "hierarchy-sweep: contracting this graph would rewrite about {work} row entries \
             (its degrees squared, summed; its largest degree is {}), past the budget of \
             {budget} ({CONTRACTION_WORK_PER_ENTRY} a CSR entry)",
            largest.unwrap_or(0)
        ))
    }

    /// Uploads `hierarchy`, built from `graph` (by [`build`](Self::build),
    /// or loaded from the graph's prepared file), its distances placed as
    /// `placement` says, else as [`Placement::for_hierarchy`] finds best.
    pub fn from_hierarchy(
        gpu: &'g Gpu,
        graph: &'g Csr,
        hierarchy: ContractionHierarchy,
        placement: Option<Placement>,
    ) -> Result<Self> {
        let kept_count = hierarchy.chains.kept_count();
        let placement = match placement {
            None => Placement::for_hierarchy(gpu, kept_count),
            Some(Placement::SharedMemory) if !distances_fit(gpu, kept_count) => {
                Placement::GlobalMemory
            }
            Some(placement) => placement,
        };
        let search_kernel = gpu.entry(hierarchy_sweep::SEARCH)?;
        let shared_bytes =
            hierarchy_sweep::shared_bytes(kept_count, placement == Placement::SharedMemory);
        // `distances_fit` kept the size within the device's opt-in limit.
        search_kernel.allow_shared_memory(shared_bytes as u32)?;
        let grid = match placement {
            Placement::Grid => Some(GridSweep::new(gpu)?),
            _ => None,
        };
        Ok(HierarchySweep {
            gpu,
            graph,
            search_kernel,
            level_starts: upload(&hierarchy.level_starts)?,
            wide_ends: upload(&hierarchy.wide_ends)?,
            lower_rows: upload_row_offsets(&hierarchy.lower, "hierarchy-sweep")?,
            lower_arcs: upload(&hierarchy.lower.arcs)?,
            higher_rows: upload_row_offsets(&hierarchy.higher, "hierarchy-sweep")?,
            higher_arcs: upload(&hierarchy.higher.arcs)?,
            chain_levels: ChainLevels::new(gpu, &hierarchy.chains)?,
            placement,
            grid,
            hierarchy,
            timer: Timer::new()?,
        })
    }
}

/// Device bytes besides the graph of `hierarchy`, built for `graph`.
pub fn hierarchy_bytes(graph: &Csr, hierarchy: &ContractionHierarchy) -> u64 {
    bytes(
        graph.vertex_count(),
        hierarchy.chains.chain_count(),
        hierarchy.chains.kept_count(),
        hierarchy.level_count(),
        hierarchy.lower.arc_count() + hierarchy.higher.arc_count(),
    )
}

impl<'g> Driver<'g> for HierarchySweep<'g> {
    /// Device bytes besides the graph, at the most: the hierarchy's arcs
    /// and levels at their bounds (the driver reports what it allocated);
    /// none for a graph [`new`](Self::new) refuses before allocating, so
    /// that the refusal comes without contracting its chains first.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        if Self::refusal(graph).is_some() {
            return 0;
        }
        let contraction = ChainContraction::of(graph);
        let kept_count = contraction.kept_count();
        bytes(
            graph.vertex_count(),
            contraction.chain_count(),
            kept_count,
            kept_count + 1,
            ContractionHierarchy::most_arcs(graph, &contraction),
        )
    }

    /// Contracts `graph`'s chains, builds the hierarchy and uploads it.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        Self::from_hierarchy(gpu, graph, Self::build(graph)?, None)
    }
}

impl GpuBfs for HierarchySweep<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
        let ([(first, first_distance), (second, second_distance)], source_chain) =
            seeds(&self.hierarchy.chains, source);
        let seeds = hierarchy_sweep::Seeds {
            first,
            first_distance,
            second,
            second_distance,
        };
        let stream = self.gpu.stream();
        let kept_count = self.hierarchy.chains.kept_count();
        let hierarchy = hierarchy_sweep::Hierarchy {
            level_starts: address(&self.level_starts).cast_const(),
            wide_ends: address(&self.wide_ends).cast_const(),
            lower_rows: address(&self.lower_rows).cast_const(),
            lower_arcs: address(&self.lower_arcs).cast_const(),
            higher_rows: address(&self.higher_rows).cast_const(),
            higher_arcs: address(&self.higher_arcs).cast_const(),
            level_count: self.hierarchy.level_count(),
            kept_count,
        };
        let kept_levels = address(&self.chain_levels.kept_levels);
        let work = address(&self.chain_levels.work);
        self.timer.start(self.gpu)?;
        match &mut self.grid {
            Some(grid) => {
                let context = || "starting hierarchy_sweep_grid_search".to_string();
                // SAFETY: memsets on the stream, ordered before the launch.
                unsafe {
                    grid.barrier_words.set_zero_async(stream).context(context)?;
                    grid.flags.set_zero_async(stream).context(context)?;
                    self.chain_levels
                        .work
                        .set_zero_async(stream)
                        .context(context)?;
                }
                // SAFETY: as for the one block below, and the barrier
                // words, flags and work zeroed above; `GridSweep::new`
                // found this many blocks of this shape resident.
                unsafe {
                    grid.kernel.launch_cooperative(
                        self.gpu,
                        (
                            grid.blocks,
                            hierarchy_sweep::GRID_BLOCK_SIZE,
                            hierarchy_sweep::GRID_SHARED_BYTES,
                        ),
                        (
                            hierarchy,
                            seeds,
                            kept_levels,
                            address(&grid.barrier_words),
                            address(&grid.flags),
                            work,
                        ),
                    )?;
                }
            }
            None => {
                let in_shared = self.placement == Placement::SharedMemory;
                let shared_bytes = hierarchy_sweep::shared_bytes(kept_count, in_shared);
                let search = &self.search_kernel;
                // SAFETY: the hierarchy was built from this graph
                // (`Search::run` checked `source < n`): its level starts
                // ascend to `kept_count`, each level's wide vertices end
                // within it, its lower and higher arcs join levels as the
                // kernel's contract says (heads kept indices, weights at
                // least 1, paths shorter than 2^31), and the seeds come
                // from the source's place; the shared memory is the size
                // allowed in `new` for this placement; `kept_levels` holds
                // `kept_count` entries, `work` two: the kernel's contract.
                unsafe {
                    search
                        .launch(
                            stream,
                            (1, hierarchy_sweep::BLOCK_SIZE, shared_bytes as u32),
                            (hierarchy, seeds, u32::from(in_shared), kept_levels, work),
                        )
                        .context(|| "launching hierarchy_sweep_search".into())?;
                }
            }
        }
        self.chain_levels
            .launch(self.gpu, graph, source, source_chain)?;
        let elapsed = self.timer.stop(self.gpu)?;
        self.chain_levels
            .result(self.gpu, self.graph, request, elapsed)
    }

    fn device_bytes(&self) -> Option<u64> {
        Some(hierarchy_bytes(self.graph, &self.hierarchy))
    }
}
