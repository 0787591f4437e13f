//! Host driver of the `hierarchy-sweep` variant: contracts the graph's
//! degree-2 chains, then builds a contraction hierarchy over the kept
//! vertices (`graph::hierarchy`), once; uploads its levels and arcs, each
//! vertex's place and each chain; and runs a search as three launches on
//! the stream: `hierarchy_sweep_search` (one block, the distances in shared
//! memory when they fit), then `chain-contracted`'s levels and parents
//! kernels, a thread per vertex each. The source's place gives the seeds.

use bfs_kernels::abi::chain_contracted;
use bfs_kernels::abi::hierarchy_sweep;
use cust::function::Function;
use cust::launch;
use cust::memory::DeviceBuffer;

use super::chain_contracted::{ChainLevels, seeds, upload_row_offsets};
use super::{Driver, DeviceGraph, Gpu, GpuBfs, GpuRun, Timer, allow_shared_memory, upload};
use crate::error::CudaContext;
use crate::graph::chains::ChainContraction;
use crate::graph::hierarchy::ContractionHierarchy;
use crate::{Csr, Error, Result};

/// The most kept vertices a hierarchy is built over: building it examines
/// each vertex's neighbour pairs round after round, and one block sweeps
/// it; past this, both take seconds (docs/decisions.md, "Road networks
/// and grids").
pub const MOST_KEPT_VERTICES: u32 = 1 << 18;

/// The hierarchy on both sides, the result buffers.
pub struct HierarchySweep<'g> {
    gpu: &'g Gpu,
    graph: &'g Csr,
    search_kernel: Function<'g>,
    hierarchy: ContractionHierarchy,
    level_starts: DeviceBuffer<u32>,
    wide_ends: DeviceBuffer<u32>,
    lower_rows: DeviceBuffer<u32>,
    lower_arcs: DeviceBuffer<u32>,
    higher_rows: DeviceBuffer<u32>,
    higher_arcs: DeviceBuffer<u32>,
    chain_levels: ChainLevels<'g>,
    distances_in_shared: bool,
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

    /// As [`new`](Self::new); the distances stay in global memory unless
    /// `shared` allows shared memory (and they fit), for tests of both placements.
    pub fn with_shared_distances(gpu: &'g Gpu, graph: &'g Csr, shared: bool) -> Result<Self> {
        Self::from_hierarchy(gpu, graph, Self::build(graph)?, shared)
    }

    /// Contracts `graph`'s chains and builds the hierarchy over its kept
    /// vertices; refuses a graph that keeps more than [`MOST_KEPT_VERTICES`].
    pub fn build(graph: &Csr) -> Result<ContractionHierarchy> {
        let vertex_count = graph.vertex_count();
        if vertex_count >= chain_contracted::IN_CHAIN {
            return Err(Error::Unsupported(format!(
                "hierarchy-sweep numbers kept vertices and chains in 31 bits; \
                 {vertex_count} vertices are too many"
            )));
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

    /// Uploads `hierarchy`, built from `graph` (by [`build`](Self::build),
    /// or loaded from the graph's prepared file), with the distances in
    /// shared memory where `shared` allows and they fit.
    pub fn from_hierarchy(
        gpu: &'g Gpu,
        graph: &'g Csr,
        hierarchy: ContractionHierarchy,
        shared: bool,
    ) -> Result<Self> {
        let kept_count = hierarchy.chains.kept_count();
        let search_kernel = gpu.kernel(hierarchy_sweep::SEARCH)?;
        let distances_in_shared = shared && distances_fit(gpu, kept_count);
        let shared_bytes = hierarchy_sweep::shared_bytes(kept_count, distances_in_shared);
        // `distances_fit` kept the size within the device's opt-in limit.
        allow_shared_memory(&search_kernel, shared_bytes as u32, hierarchy_sweep::SEARCH)?;
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
            distances_in_shared,
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
    /// and levels at their bounds (the driver reports what it allocated).
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
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
        Self::with_shared_distances(gpu, graph, true)
    }
}

impl GpuBfs for HierarchySweep<'_> {
    fn run(&mut self, graph: &DeviceGraph, source: u32) -> Result<GpuRun> {
        let ([(first, first_distance), (second, second_distance)], source_chain) =
            seeds(&self.hierarchy.chains, source);
        let stream = self.gpu.stream();
        let kept_count = self.hierarchy.chains.kept_count();
        let shared_bytes = hierarchy_sweep::shared_bytes(kept_count, self.distances_in_shared);
        let search = &self.search_kernel;
        self.timer.start(self.gpu)?;
        // SAFETY: the hierarchy was built from this graph (`Search::run`
        // checked `source < n`): its level starts ascend to `kept_count`,
        // each level's wide vertices end within it,
        // its lower and higher arcs join levels as the kernel's contract
        // says (heads kept indices, weights at least 1, paths shorter than
        // 2^31), and the seeds come from the source's place; the shared
        // memory is the size allowed in `new` for this placement;
        // `kept_levels` holds `kept_count` entries, `work` two. The
        // kernel's contract, arguments in its parameter order.
        unsafe {
            launch!(search<<<1, hierarchy_sweep::BLOCK_SIZE, shared_bytes as u32, stream>>>(
                self.level_starts.as_device_ptr(),
                self.wide_ends.as_device_ptr(),
                self.hierarchy.level_count(),
                self.lower_rows.as_device_ptr(),
                self.lower_arcs.as_device_ptr(),
                self.higher_rows.as_device_ptr(),
                self.higher_arcs.as_device_ptr(),
                kept_count,
                first,
                first_distance,
                second,
                second_distance,
                self.distances_in_shared as u32,
                self.chain_levels.kept_levels.as_device_ptr(),
                self.chain_levels.work.as_device_ptr()
            ))
            .context(|| "launching hierarchy_sweep_search".into())?;
        }
        self.chain_levels
            .launch(self.gpu, graph, source, source_chain)?;
        let elapsed = self.timer.stop(self.gpu)?;
        self.chain_levels.result(self.graph, source, elapsed)
    }

    fn device_bytes(&self) -> Option<u64> {
        Some(hierarchy_bytes(self.graph, &self.hierarchy))
    }
}
