//! The GPU driver: CUDA context, the embedded kernels, device-resident
//! graphs, and the BFS variants, one file each.
//!
//! A [`Search`] uploads a graph once and keeps every buffer of its variant
//! allocated, so many searches from different sources reuse them. Each
//! variant implements [`GpuBfs`] and is registered in [`Variant`]; the tests
//! loop over [`Variant::ALL`] (those the device runs: [`Gpu::variants`]), so
//! a new variant is tested by adding it there.

mod auto;
pub mod block_queue;
mod chain_contracted;
mod cluster;
mod direction_optimizing;
pub mod ghost_zones;
mod global_queue;
mod hierarchical_queue;
mod hierarchy_sweep;
pub(crate) mod hub_chunks;
mod hybrid_cpu;
pub mod kernel_code;
mod on_chip;
mod partitioned;
mod persistent;
mod persistent_direction_optimizing;
mod queue;
mod row_offsets;
mod small_frontier;
mod two_kernel;
mod vertex_levels;
mod warp_specialized;

pub use auto::{
    CHAINS_KEPT_SHARE, HIERARCHY_PAYS_FROM_SEARCHES, LEVEL_BY_LEVEL_LEAST_EDGES,
    PREPARED_HIERARCHY_PAYS_FROM_SEARCHES, PREPARED_ZONES_PAY_FROM_SEARCHES, Plan, Strategy,
    Workload, ZONES_PAY_FROM_SEARCHES, build_preparation, plan, strategy, strategy_on,
};
pub use chain_contracted::ChainContracted;
pub use direction_optimizing::{DirectionOptimizing, LEVEL_BY_LEVEL_ALPHA};
pub use ghost_zones::{GhostZoneSearch, zone_capacity as ghost_zone_capacity};
pub use hierarchical_queue::HierarchicalQueue;
pub use hierarchy_sweep::{HierarchySweep, MOST_KEPT_VERTICES};
pub use hybrid_cpu::CPU_FRONTIER_THRESHOLD;
pub use kernel_code::{CLUSTER_KERNELS_PTX, KERNELS_PTX, KernelCode};
pub use partitioned::Partitioned;
pub use persistent_direction_optimizing::PersistentDirectionOptimizing;
pub use row_offsets::RowOffsets;

use std::fmt;
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use cust::context::{Context, CurrentContext};
use cust::device::{Device, DeviceAttribute};
use cust::error::CudaResult;
use cust::event::{Event, EventFlags};
use cust::function::Function;
use cust::memory::{CopyDestination, DeviceBuffer, DeviceCopy, DeviceSlice};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
use rayon::prelude::*;

use crate::error::{CudaContext, describe_cuda, driver_result};
use crate::graph::EdgeOffset;
use crate::graph::prepared::Preparation;
use crate::{Bfs, Csr, Error, Result, UNREACHED};

/// An open CUDA device with the kernels loaded and a stream to run them on.
pub struct Gpu {
    module: Module,
    /// What `module` was loaded from.
    kernel_code: KernelCode,
    /// The sm_90 module, loaded when a cluster kernel is first asked for
    /// (on devices with thread-block clusters).
    cluster_module: OnceLock<std::result::Result<Module, String>>,
    compute_capability: (i32, i32),
    stream: Stream,
    name: String,
    multiprocessors: u32,
    cooperative_launch: bool,
    shared_memory_per_block: u32,
    /// How long opening the device took, step by step.
    startup: Startup,
    /// When the last search's timer stopped: what follows it in the
    /// search (copying the result back) is the download.
    last_timer_stop: Mutex<Option<Instant>>,
    // Dropped last: the module and stream belong to this context.
    context: Context,
}

/// How long opening a device took: the steps every CUDA program pays
/// before its first kernel, and the kernels' module.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Startup {
    /// `cuInit` and counting the devices, in seconds.
    pub cuda_init_seconds: f64,
    /// Creating the context (the device's primary one) and reading its
    /// attributes.
    pub context_seconds: f64,
    /// Loading the kernels' module (and, from PTX, the driver's JIT).
    pub module_load_seconds: f64,
}

impl Gpu {
    /// Opens the first CUDA device and loads the kernels: machine code for
    /// its architecture where it was built, else the PTX.
    ///
    /// Fails with [`Error::NoDevice`] when there is no driver or no GPU.
    pub fn open() -> Result<Gpu> {
        Self::on_device(0, None)
    }

    /// Opens CUDA device `ordinal` (of [`device_count`](Self::device_count))
    /// and loads the kernels, for one GPU of a multi-GPU search.
    pub fn open_device(ordinal: u32) -> Result<Gpu> {
        Self::on_device(ordinal, None)
    }

    /// CUDA devices the driver sees; [`Error::NoDevice`] without a driver.
    pub fn device_count() -> Result<u32> {
        let no_device = |error: cust::error::CudaError| Error::NoDevice(describe_cuda(&error));
        cust::init(cust::CudaFlags::empty()).map_err(no_device)?;
        Device::num_devices().map_err(no_device)
    }

    /// As [`open`](Self::open), loading the kernels from `ptx` instead of the
    /// embedded PTX (kernels built apart, or a broken module in tests). It
    /// must define every entry point of [`bfs_kernels::abi::KERNEL_NAMES`] with
    /// the same parameters. The cluster kernels are the embedded ones.
    pub fn with_ptx(ptx: &str) -> Result<Gpu> {
        Self::on_device(0, Some(ptx))
    }

    /// Opens device `ordinal` and loads `ptx`, or the embedded kernels.
    fn on_device(ordinal: u32, ptx: Option<&str>) -> Result<Gpu> {
        let no_device = |error: cust::error::CudaError| Error::NoDevice(describe_cuda(&error));
        let started = Instant::now();
        let count = Self::device_count()?;
        let initialised = Instant::now();
        if count == 0 {
            return Err(Error::NoDevice("the driver reports no GPU".into()));
        }
        if ordinal >= count {
            return Err(Error::MultiGpu(format!(
                "GPU {ordinal} was asked for; the driver sees {count}"
            )));
        }
        let device = Device::get_device(ordinal).map_err(no_device)?;
        let context = Context::new(device).context(|| "creating a context".into())?;
        let name = device.name().context(|| "reading the device name".into())?;
        let attribute = |attribute, what: &str| {
            device
                .get_attribute(attribute)
                .context(|| format!("reading the device's {what}"))
        };
        let multiprocessors =
            attribute(DeviceAttribute::MultiprocessorCount, "multiprocessor count")? as u32;
        use cust::sys::CUdevice_attribute as Attribute;
        let cooperative_launch =
            raw_attribute(device, Attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH) > 0;
        let shared_memory_per_block = raw_attribute(
            device,
            Attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        )
        .max(0) as u32;
        let compute_capability = (
            attribute(
                DeviceAttribute::ComputeCapabilityMajor,
                "compute capability",
            )?,
            attribute(
                DeviceAttribute::ComputeCapabilityMinor,
                "compute capability",
            )?,
        );
        let stream =
            Stream::new(StreamFlags::NON_BLOCKING, None).context(|| "creating a stream".into())?;
        let context_created = Instant::now();
        let (module, kernel_code) = match ptx {
            Some(ptx) => (kernel_code::load_ptx(ptx)?, KernelCode::Ptx),
            None => kernel_code::load(kernel_code::Kernels::All, compute_capability)?,
        };
        let seconds = |from: Instant, to: Instant| (to - from).as_secs_f64();
        Ok(Gpu {
            module,
            kernel_code,
            cluster_module: OnceLock::new(),
            compute_capability,
            stream,
            name,
            multiprocessors,
            cooperative_launch,
            shared_memory_per_block,
            startup: Startup {
                cuda_init_seconds: seconds(started, initialised),
                context_seconds: seconds(initialised, context_created),
                module_load_seconds: seconds(context_created, Instant::now()),
            },
            last_timer_stop: Mutex::new(None),
            context,
        })
    }

    /// Makes this device's context current on the calling thread (a
    /// device opened on another thread, while the graph loaded).
    pub fn make_current(&self) -> Result<()> {
        CurrentContext::set_current(&self.context)
            .context(|| "making the device's context current".into())
    }

    /// What the kernels' module was loaded from.
    pub fn kernel_code(&self) -> &KernelCode {
        &self.kernel_code
    }

    /// How long opening the device took.
    pub fn startup(&self) -> Startup {
        self.startup
    }

    /// When the last search's device timer stopped (see [`Search::run`]).
    fn last_timer_stop(&self) -> Option<Instant> {
        *self
            .last_timer_stop
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The device's name, e.g. `NVIDIA H100 80GB HBM3`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Device memory the driver reports free, in bytes.
    pub fn free_memory(&self) -> Result<u64> {
        let (free, _total) =
            cust::memory::mem_get_info().context(|| "querying free device memory".into())?;
        Ok(free as u64)
    }

    /// Streaming multiprocessors on the device.
    fn multiprocessors(&self) -> u32 {
        self.multiprocessors
    }

    /// Whether the device runs cooperative launches (all blocks resident at once).
    pub fn cooperative_launch(&self) -> bool {
        self.cooperative_launch
    }

    /// The most shared memory a block may use, in bytes, once a kernel opts in.
    fn shared_memory_per_block(&self) -> u32 {
        self.shared_memory_per_block
    }

    /// The stream every variant runs on.
    pub(crate) fn stream(&self) -> &Stream {
        &self.stream
    }

    /// A kernel of the loaded module, by its entry name in [`bfs_kernels::abi`].
    pub(crate) fn kernel(&self, name: &str) -> Result<Function<'_>> {
        self.module
            .get_function(name)
            .context(|| format!("finding kernel {name}"))
    }

    /// A kernel of the sm_90 module, for `variant`; an error on a device
    /// without thread-block clusters.
    fn cluster_kernel(&self, name: &str, variant: &str) -> Result<Function<'_>> {
        if !self.has_clusters() {
            let (major, minor) = self.compute_capability;
            return Err(Error::Unsupported(format!(
                "{variant} needs thread-block clusters (compute capability 9.0 or newer); {} has {major}.{minor}",
                self.name
            )));
        }
        let module = self
            .cluster_module
            .get_or_init(|| {
                kernel_code::load(kernel_code::Kernels::Cluster, self.compute_capability)
                    .map(|(module, _)| module)
                    .map_err(|error| format!("loading the cluster kernels: {error}"))
            })
            .as_ref()
            .map_err(|error| Error::Invalid(error.clone()))?;
        module
            .get_function(name)
            .context(|| format!("finding kernel {name}"))
    }

    /// Whether the device has thread-block clusters (compute capability 9.0 or newer).
    fn has_clusters(&self) -> bool {
        self.compute_capability.0 >= 9
    }

    /// Whether this device runs `variant` at all: every variant but
    /// `on-chip` runs everywhere; that one needs thread-block clusters.
    pub fn runs(&self, variant: Variant) -> bool {
        variant != Variant::OnChip || self.has_clusters()
    }

    /// Every variant this device runs, in [`Variant::ALL`]'s order.
    pub fn variants(&self) -> Vec<Variant> {
        Variant::ALL
            .iter()
            .copied()
            .filter(|&variant| self.runs(variant))
            .collect()
    }
}

/// A device attribute that cust's list predates; 0 if the driver cannot tell.
fn raw_attribute(device: Device, attribute: cust::sys::CUdevice_attribute) -> i32 {
    let mut value = 0;
    // SAFETY: writes one int for a valid device handle.
    let result = unsafe { cust::sys::cuDeviceGetAttribute(&mut value, attribute, device.as_raw()) };
    if result == cust::sys::CUresult::CUDA_SUCCESS {
        value
    } else {
        0
    }
}

/// A graph resident in device memory, in CSR form.
pub struct DeviceGraph {
    row_offsets: DeviceBuffer<EdgeOffset>,
    column_indices: DeviceBuffer<u32>,
    vertex_count: u32,
}

impl DeviceGraph {
    /// Bytes the CSR occupies on the device: `8 (n + 1) + 4 m`.
    pub fn bytes(graph: &Csr) -> u64 {
        size_of::<EdgeOffset>() as u64 * (graph.vertex_count() as u64 + 1) + 4 * graph.edge_count()
    }

    fn upload(graph: &Csr) -> Result<DeviceGraph> {
        Ok(DeviceGraph {
            row_offsets: upload(graph.row_offsets())?,
            column_indices: upload(graph.column_indices())?,
            vertex_count: graph.vertex_count(),
        })
    }
}

/// Copies `values` to a new device buffer. An empty array still gets a
/// 1-element buffer: kernels take a valid pointer, and cust rejects
/// zero-sized allocations.
pub(crate) fn upload<T: DeviceCopy + Default>(values: &[T]) -> Result<DeviceBuffer<T>> {
    let empty = [T::default()];
    let values = if values.is_empty() {
        &empty[..]
    } else {
        values
    };
    DeviceBuffer::from_slice(values).context(|| "uploading the graph".into())
}

/// One BFS strategy on the GPU, with its buffers allocated for a graph size.
pub trait GpuBfs {
    /// Runs one search from `source` (already checked to be a vertex).
    fn run(&mut self, graph: &DeviceGraph, source: u32) -> Result<GpuRun>;

    /// Device bytes allocated besides the graph, where the variant's
    /// `workspace_bytes` could only bound them before building.
    fn device_bytes(&self) -> Option<u64> {
        None
    }
}

/// The result of a GPU search and its time.
pub struct GpuRun {
    /// Levels (and parents, where the variant records them).
    pub result: Bfs,
    /// Device time from initialisation to the last level, measured with CUDA events.
    pub elapsed: Duration,
    /// The host's level loop, step by step (for `--trace`).
    pub steps: Vec<Step>,
    /// Barriers and work, for variants whose grid barriers are not one per level.
    pub work: Option<Work>,
    /// Host time from the search's end on the device to its result in
    /// host memory (copied back, and mapped to the graph's own ids where
    /// the variant renumbers), set by [`Search::run`].
    pub download: Duration,
}

impl GpuRun {
    /// A search that ran all its levels in one launch: one step of them all.
    fn one_launch(result: Bfs, elapsed: Duration, work: Option<Work>) -> GpuRun {
        GpuRun {
            steps: vec![Step {
                first_level: 0,
                levels: result.level_count(),
                elapsed,
                on_cpu: false,
                exchange: None,
                direction: None,
            }],
            result,
            elapsed,
            work,
            download: Duration::ZERO,
        }
    }
}

/// What a search that does not go level by level did: its barriers, its
/// partition searches and the edges it examined, which a level-synchronous
/// search examines once each (`Bfs::edges_traversed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Work {
    /// Barriers between the search's rounds: grid-wide ones, or, for a
    /// one-block search (`chain-contracted`, `hierarchy-sweep`), its
    /// block's, one a round or a level of the hierarchy.
    pub barriers: u32,
    /// Searches of one partition by one block, each of many levels (for
    /// `warp-specialized`, whose searchers never stop: the dirty bits its
    /// messengers took).
    pub partition_searches: u64,
    /// Adjacency entries examined, re-expansions included.
    pub edges_examined: u64,
    /// Levels searched inside partitions, added up over all their searches.
    pub levels_searched: u64,
}

/// One step of a host level loop: one level, or several levels in one launch
/// (`small-frontier`), on the GPU or (`hybrid-cpu`) the CPU.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// The level of the frontier the step expanded first.
    pub first_level: u32,
    /// Levels it expanded.
    pub levels: u32,
    /// Host time from the step's launch to its result: the cost of a level
    /// as the loop sees it, launch and round trip included.
    pub elapsed: Duration,
    /// Whether the CPU ran it.
    pub on_cpu: bool,
    /// What the level exchanged between GPUs, in a search over several.
    pub exchange: Option<Exchange>,
    /// Which way the level went, in a direction-optimizing search that
    /// goes level by level.
    pub direction: Option<Direction>,
}

/// Which way a level of a direction-optimizing search went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the frontier's vertices to their unvisited neighbours.
    TopDown,
    /// From the unvisited vertices to a neighbour in the frontier.
    BottomUp,
}

impl Direction {
    /// Its name in `--trace` and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::TopDown => "top-down",
            Direction::BottomUp => "bottom-up",
        }
    }
}

/// The exchange time of a search's `steps`, if it ran over GPUs.
pub fn exchange_time(steps: &[Step]) -> Option<Duration> {
    steps
        .iter()
        .filter_map(|step| step.exchange)
        .map(|exchange| exchange.elapsed)
        .reduce(|sum, elapsed| sum + elapsed)
}

/// The median over searches of their exchange time per level (each
/// search's `steps`), if they ran over GPUs.
pub fn median_exchange_per_level<'s>(
    searches: impl IntoIterator<Item = &'s [Step]>,
) -> Option<Duration> {
    let mut per_level: Vec<Duration> = searches
        .into_iter()
        .filter_map(|steps| Some(exchange_time(steps)? / steps.len() as u32))
        .collect();
    per_level.sort();
    per_level.get(per_level.len() / 2).copied()
}

/// A level's exchange between the GPUs of a search over several
/// ([`crate::multi`]).
#[derive(Clone, Copy, Debug)]
pub struct Exchange {
    /// Device time in the level's collectives (CUDA events around each):
    /// the transfers and each rank's wait for the slowest; not the host's
    /// copies of the counts between them.
    pub elapsed: Duration,
    /// Bytes the rank received: the claims sent to it
    /// (vertex and parent, 8 bytes each) on a top-down level, the whole
    /// frontier bitmap on a bottom-up one.
    pub bytes: u64,
}

impl Step {
    /// A one-level step on the GPU that started at `started`.
    pub(crate) fn gpu_level(level: u32, started: std::time::Instant) -> Step {
        Step {
            first_level: level,
            levels: 1,
            elapsed: started.elapsed(),
            on_cpu: false,
            exchange: None,
            direction: None,
        }
    }

    /// The step, which went in `direction`.
    pub(crate) fn going(self, direction: Direction) -> Step {
        Step {
            direction: Some(direction),
            ..self
        }
    }
}

/// The BFS variants, each a kernel file in `kernels/src` and a driver file here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Rodinia's expand/update kernel pair with an `over` flag.
    TwoKernel,
    /// One thread per vertex per level over a level array.
    VertexLevels,
    /// A frontier queue with a global atomic tail.
    GlobalQueue,
    /// Block-privatized queues in shared memory.
    BlockQueue,
    /// w-queues → b-queue → g-queue.
    Hierarchical,
    /// Single-block launches for frontiers that fit in shared memory.
    SmallFrontier,
    /// Small frontiers on the CPU, large ones on the GPU.
    HybridCpu,
    /// Top-down from a queue, bottom-up over bitmaps (Beamer et al. 2012).
    DirectionOptimizing,
    /// Every level in one cooperative launch, a grid barrier between levels.
    Persistent,
    /// Direction-optimizing in one cooperative launch, the level loop on the device.
    PersistentDirectionOptimizing,
    /// Degree-2 chains contracted into weighted edges, searched by one block in rounds.
    ChainContracted,
    /// Chains contracted, then a contraction hierarchy swept up and down by levels (PHAST).
    HierarchySweep,
    /// Partitions searched in shared memory, many levels at a time, no grid barrier.
    Partitioned,
    /// Partitions with their ghost zones, `hops` levels per grid barrier.
    GhostZones,
    /// Partitions in shared memory, a searcher and a messenger warp each, no barrier.
    WarpSpecialized,
    /// The whole graph in one thread-block cluster's shared memory (sm_90).
    OnChip,
    /// The strategy the graph's degrees call for.
    Auto,
}

impl Variant {
    /// Every variant, in the order the textbook introduces them.
    pub const ALL: &[Variant] = &[
        Variant::TwoKernel,
        Variant::VertexLevels,
        Variant::GlobalQueue,
        Variant::BlockQueue,
        Variant::Hierarchical,
        Variant::SmallFrontier,
        Variant::HybridCpu,
        Variant::DirectionOptimizing,
        Variant::Persistent,
        Variant::PersistentDirectionOptimizing,
        Variant::ChainContracted,
        Variant::HierarchySweep,
        Variant::Partitioned,
        Variant::GhostZones,
        Variant::WarpSpecialized,
        Variant::OnChip,
        Variant::Auto,
    ];

    /// The name used by `--variant`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::TwoKernel => "two-kernel",
            Variant::VertexLevels => "vertex-levels",
            Variant::GlobalQueue => "global-queue",
            Variant::BlockQueue => "block-queue",
            Variant::Hierarchical => "hierarchical",
            Variant::SmallFrontier => "small-frontier",
            Variant::HybridCpu => "hybrid-cpu",
            Variant::DirectionOptimizing => "direction-optimizing",
            Variant::Persistent => "persistent",
            Variant::PersistentDirectionOptimizing => "persistent-direction-optimizing",
            Variant::ChainContracted => "chain-contracted",
            Variant::HierarchySweep => "hierarchy-sweep",
            Variant::Partitioned => "partitioned",
            Variant::GhostZones => "ghost-zones",
            Variant::WarpSpecialized => "warp-specialized",
            Variant::OnChip => "on-chip",
            Variant::Auto => "auto",
        }
    }

    /// One line on what the variant does.
    pub fn description(self) -> &'static str {
        match self {
            Variant::TwoKernel => {
                "Rodinia: one thread per vertex, expand and update kernels, host loop on an `over` flag"
            }
            Variant::VertexLevels => {
                "one thread per vertex per level, expanding the vertices at the current level (O(V·L))"
            }
            Variant::GlobalQueue => {
                "frontier queue: atomicOr on a visited bitmap claims a vertex, atomicAdd appends it (Kirk & Hwu Fig. 12.7)"
            }
            Variant::BlockQueue => {
                "block-privatized queue in shared memory, one atomicAdd per block (Fig. 12.8)"
            }
            Variant::Hierarchical => {
                "w-queues -> b-queue -> g-queue, warp-interleaved sub-queues (Fig. 12.11)"
            }
            Variant::SmallFrontier => {
                "many levels per single-block launch while the frontier fits in shared memory"
            }
            Variant::HybridCpu => "levels with small frontiers on the CPU, large ones on the GPU",
            Variant::DirectionOptimizing => {
                "top-down from a queue (hubs' lists in chunks, a block each), bottom-up over bitmaps, switched by the alpha/beta rule (Beamer et al. 2012), a launch a level"
            }
            Variant::Persistent => {
                "every level in one cooperative launch of one block per multiprocessor, a grid barrier between levels"
            }
            Variant::PersistentDirectionOptimizing => {
                "direction-optimizing in one cooperative launch: the level loop and the switch on the device, a grid barrier between levels"
            }
            Variant::ChainContracted => {
                "degree-2 chains contracted into weighted edges; one block runs label-correcting rounds over the junctions in shared memory, then every vertex's level from its chain's ends"
            }
            Variant::HierarchySweep => {
                "degree-2 chains contracted, then a contraction hierarchy over the junctions (shortcuts, levels); one block sweeps its levels up, then down (PHAST): a barrier per hierarchy level, whatever the BFS depth"
            }
            Variant::Partitioned => {
                "vertices renumbered into BFS-grown partitions, each searched in shared memory by one block, many levels at a time; no grid barrier"
            }
            Variant::GhostZones => {
                "BFS-grown partitions, each with every vertex that reaches it within 16 hops (its ghost zone, fewer hops where that would not fit); one cooperative launch: a block stages a zone in shared memory, searches it 16 levels and keeps its partition's levels, a grid barrier per 16 levels (ghost zones of stencil codes, Meng & Skadron 2009)"
            }
            Variant::WarpSpecialized => {
                "BFS-grown partitions kept in shared memory, one a block: a searcher warp searches its partition without barriers, a messenger warp carries labels across partitions; asynchronous, label-correcting"
            }
            Variant::OnChip => {
                "the whole graph in one thread-block cluster's distributed shared memory (sm_90), a cluster barrier between levels; no global memory in a level"
            }
            Variant::Auto => {
                "road-like graphs (low average and maximum degree): hierarchy-sweep where they are mostly degree-2 chains, else ghost-zones, where the run's searches repay building them or the file holds them prepared (bfs prepare); otherwise small-frontier and persistent by frontier size; other graphs persistent-direction-optimizing, or direction-optimizing from 100 million CSR entries"
            }
        }
    }

    /// Whether the variant records a BFS parent per vertex (all but Rodinia's).
    pub fn records_parents(self) -> bool {
        self != Variant::TwoKernel
    }

    /// Device bytes the variant allocates besides the graph, for `graph` on `gpu`.
    fn workspace_bytes(self, gpu: &Gpu, graph: &Csr) -> u64 {
        let vertex_count = graph.vertex_count();
        match self {
            Variant::TwoKernel => two_kernel::TwoKernel::workspace_bytes(vertex_count),
            Variant::VertexLevels => vertex_levels::VertexLevels::workspace_bytes(vertex_count),
            Variant::GlobalQueue | Variant::BlockQueue | Variant::Hierarchical => {
                queue::FrontierQueues::workspace_bytes(vertex_count)
            }
            Variant::SmallFrontier => small_frontier::SmallFrontier::workspace_bytes(vertex_count),
            // The CPU's discoveries, staged, at most 3 words a vertex.
            Variant::HybridCpu => {
                queue::FrontierQueues::workspace_bytes(vertex_count) + 12 * vertex_count as u64
            }
            Variant::Persistent => persistent::Persistent::workspace_bytes(vertex_count),
            Variant::PersistentDirectionOptimizing => {
                persistent_direction_optimizing::PersistentDirectionOptimizing::workspace_bytes(
                    graph,
                )
            }
            Variant::ChainContracted => {
                chain_contracted::ChainContracted::workspace_bytes(gpu, graph)
            }
            Variant::HierarchySweep => hierarchy_sweep::HierarchySweep::workspace_bytes(graph),
            Variant::Partitioned => partitioned::Partitioned::workspace_bytes(graph),
            Variant::GhostZones => GhostZoneSearch::workspace_bytes(graph),
            Variant::WarpSpecialized => warp_specialized::WarpSpecialized::workspace_bytes(graph),
            Variant::OnChip => on_chip::OnChip::workspace_bytes(graph),
            Variant::DirectionOptimizing => {
                direction_optimizing::DirectionOptimizing::workspace_bytes(graph)
            }
            Variant::Auto => auto::workspace_bytes(gpu, graph, strategy_on(gpu, graph), None),
        }
    }

    fn create<'g>(self, gpu: &'g Gpu, graph: &'g Csr) -> Result<Box<dyn GpuBfs + 'g>> {
        let vertex_count = graph.vertex_count();
        Ok(match self {
            Variant::TwoKernel => Box::new(two_kernel::TwoKernel::new(gpu, vertex_count)?),
            Variant::VertexLevels => Box::new(vertex_levels::VertexLevels::new(gpu, vertex_count)?),
            Variant::GlobalQueue => Box::new(global_queue::new(gpu, vertex_count)?),
            Variant::BlockQueue => Box::new(block_queue::new(gpu, vertex_count)?),
            Variant::Hierarchical => Box::new(HierarchicalQueue::new(gpu, vertex_count)?),
            Variant::SmallFrontier => {
                Box::new(small_frontier::SmallFrontier::new(gpu, vertex_count)?)
            }
            Variant::HybridCpu => Box::new(hybrid_cpu::HybridCpu::new(gpu, graph)?),
            Variant::DirectionOptimizing => {
                Box::new(direction_optimizing::DirectionOptimizing::new(gpu, graph)?)
            }
            Variant::Persistent => Box::new(persistent::Persistent::new(gpu, vertex_count)?),
            Variant::PersistentDirectionOptimizing => Box::new(
                persistent_direction_optimizing::PersistentDirectionOptimizing::new(gpu, graph)?,
            ),
            Variant::ChainContracted => {
                Box::new(chain_contracted::ChainContracted::new(gpu, graph)?)
            }
            Variant::HierarchySweep => Box::new(hierarchy_sweep::HierarchySweep::new(gpu, graph)?),
            Variant::Partitioned => Box::new(partitioned::Partitioned::new(gpu, graph)?),
            Variant::GhostZones => Box::new(GhostZoneSearch::new(gpu, graph)?),
            Variant::WarpSpecialized => {
                Box::new(warp_specialized::WarpSpecialized::new(gpu, graph)?)
            }
            Variant::OnChip => Box::new(on_chip::OnChip::new(gpu, graph)?),
            Variant::Auto => auto::create(gpu, graph, strategy_on(gpu, graph), None)?,
        })
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = String;

    fn from_str(name: &str) -> Result<Variant, String> {
        Variant::ALL
            .iter()
            .copied()
            .find(|variant| variant.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Variant::ALL.iter().map(|variant| variant.name()).collect();
                format!("unknown variant '{name}' (one of: {})", names.join(", "))
            })
    }
}

/// A graph on the device with one variant ready to search it, any number of times.
pub struct Search<'g> {
    gpu: &'g Gpu,
    graph: DeviceGraph,
    bfs: Box<dyn GpuBfs + 'g>,
    variant: Variant,
    device_bytes: u64,
}

impl<'g> Search<'g> {
    /// Uploads `graph` and allocates `variant`'s buffers, after checking that
    /// both fit in the device's free memory.
    pub fn new(gpu: &'g Gpu, graph: &'g Csr, variant: Variant) -> Result<Search<'g>> {
        Self::with(gpu, graph, variant, |gpu, graph| variant.create(gpu, graph))
    }

    /// As [`new`](Self::new), for `auto`'s `strategy` where `variant` is
    /// `auto` (its choice for many searches where `None`), with the
    /// strategy's or the variant's `preparation` where it was built or
    /// loaded already (a variant that needs none ignores it).
    pub fn prepared(
        gpu: &'g Gpu,
        graph: &'g Csr,
        variant: Variant,
        strategy: Option<Strategy>,
        preparation: Option<Preparation>,
    ) -> Result<Search<'g>> {
        let strategy = match variant {
            Variant::Auto => Some(strategy.unwrap_or_else(|| strategy_on(gpu, graph))),
            Variant::HierarchySweep => Some(Strategy::HierarchySweep),
            Variant::GhostZones => Some(Strategy::GhostZones),
            _ => None,
        };
        let Some(strategy) = strategy else {
            return Self::new(gpu, graph, variant);
        };
        let workspace_bytes = auto::workspace_bytes(gpu, graph, strategy, preparation.as_ref());
        Self::with_workspace(gpu, graph, variant, workspace_bytes, |gpu, graph| {
            match (variant, preparation) {
                (Variant::HierarchySweep, Some(Preparation::Hierarchy(hierarchy))) => Ok(Box::new(
                    HierarchySweep::from_hierarchy(gpu, graph, hierarchy, true)?,
                )),
                (Variant::GhostZones, Some(Preparation::GhostZones(zones))) => {
                    Ok(Box::new(GhostZoneSearch::from_zones(gpu, zones)?))
                }
                (Variant::Auto, preparation) => auto::create(gpu, graph, strategy, preparation),
                _ => variant.create(gpu, graph),
            }
        })
    }

    /// As [`new`](Self::new), with a driver built by `create` (a variant with
    /// non-default parameters, such as [`HierarchicalQueue::with_sub_queues`]).
    pub fn with(
        gpu: &'g Gpu,
        graph: &'g Csr,
        variant: Variant,
        create: impl FnOnce(&'g Gpu, &'g Csr) -> Result<Box<dyn GpuBfs + 'g>>,
    ) -> Result<Search<'g>> {
        Self::with_workspace(
            gpu,
            graph,
            variant,
            variant.workspace_bytes(gpu, graph),
            create,
        )
    }

    /// [`with`](Self::with), `workspace_bytes` the variant's bytes besides
    /// the graph (a bound, where it can only be known once built).
    fn with_workspace(
        gpu: &'g Gpu,
        graph: &'g Csr,
        variant: Variant,
        workspace_bytes: u64,
        create: impl FnOnce(&'g Gpu, &'g Csr) -> Result<Box<dyn GpuBfs + 'g>>,
    ) -> Result<Search<'g>> {
        let needed = DeviceGraph::bytes(graph) + workspace_bytes;
        let free = gpu.free_memory()?;
        if needed > free {
            return Err(Error::DeviceMemory {
                variant: variant.name(),
                needed,
                free,
            });
        }
        let device_graph = DeviceGraph::upload(graph)?;
        let graph_bytes = DeviceGraph::bytes(graph);
        let bfs = create(gpu, graph)?;
        let device_bytes = graph_bytes + bfs.device_bytes().unwrap_or(workspace_bytes);
        Ok(Search {
            gpu,
            graph: device_graph,
            bfs,
            variant,
            device_bytes,
        })
    }

    /// Device bytes this search allocated: the graph and the variant's buffers.
    pub fn device_bytes(&self) -> u64 {
        self.device_bytes
    }

    /// Runs one BFS from `source`.
    pub fn run(&mut self, source: u32) -> Result<GpuRun> {
        if source >= self.graph.vertex_count {
            return Err(Error::SourceOutOfRange {
                vertex: source.into(),
                vertex_count: self.graph.vertex_count,
            });
        }
        // A search's download is timed from its own timer's stop.
        *self
            .gpu
            .last_timer_stop
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        let mut run = self
            .bfs
            .run(&self.graph, source)
            .map_err(|error| match error {
                Error::Cuda { context, error } => Error::Cuda {
                    context: format!("variant {}, {context}", self.variant),
                    error,
                },
                other => other,
            })?;
        if let Some(stopped) = self.gpu.last_timer_stop() {
            run.download = stopped.elapsed();
        }
        Ok(run)
    }
}

/// CUDA events around a search: device time from `start` to `stop` on the stream.
struct Timer {
    start: Event,
    stop: Event,
}

impl Timer {
    fn new() -> Result<Timer> {
        let context = || "creating timer events".to_string();
        Ok(Timer {
            start: Event::new(EventFlags::DEFAULT).context(context)?,
            stop: Event::new(EventFlags::DEFAULT).context(context)?,
        })
    }

    fn start(&self, gpu: &Gpu) -> Result<()> {
        self.start
            .record(gpu.stream())
            .context(|| "starting the timer".into())
    }

    /// Records the stop, waits for it, and returns the time since the start.
    fn stop(&self, gpu: &Gpu) -> Result<Duration> {
        let context = || "stopping the timer".to_string();
        self.stop.record(gpu.stream()).context(context)?;
        self.stop.synchronize().context(context)?;
        *gpu.last_timer_stop
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Instant::now());
        self.stop.elapsed(&self.start).context(context)
    }
}

/// Queues the reset of a search's labels from `source` on `gpu`'s stream:
/// every vertex unreached, except the source, at level 0 and its own parent.
fn reset_labels(
    gpu: &Gpu,
    levels: &mut DeviceBuffer<u32>,
    parents: &mut DeviceBuffer<u32>,
    source: u32,
) -> Result<()> {
    let (stream, at) = (gpu.stream(), source as usize..=source as usize);
    let context = || "initialising the search".to_string();
    // SAFETY: memsets ordered on the one stream before any kernel that reads
    // these buffers; the host does not touch them meanwhile.
    unsafe {
        levels.set_32_async(UNREACHED, stream).context(context)?;
        parents.set_32_async(UNREACHED, stream).context(context)?;
        levels
            .index(at.clone())
            .set_32_async(0, stream)
            .context(context)?;
        parents
            .index(at)
            .set_32_async(source, stream)
            .context(context)
    }
}

/// Copies a finished search's per-vertex arrays back to the host.
fn download(
    source: u32,
    levels: &DeviceBuffer<u32>,
    parents: Option<&DeviceBuffer<u32>>,
) -> Result<Bfs> {
    let context = || "copying the result back".to_string();
    let copy = |buffer: &DeviceBuffer<u32>| copy_to_host(buffer).context(context);
    Ok(Bfs {
        source,
        levels: copy(levels)?,
        parents: parents.map(copy).transpose()?,
    })
}

/// `buffer`'s values in a new vector, whose pages are first touched on
/// every core: a copy into untouched memory faults its pages in on the
/// driver's one thread. On one H100's host, a Kronecker 26 search's
/// levels (268 MB): 212–220 ms that way, 38–51 ms touched first.
pub(crate) fn copy_to_host<T: DeviceCopy + Default + Send>(
    buffer: &DeviceSlice<T>,
) -> CudaResult<Vec<T>> {
    let mut values: Vec<T> = (0..buffer.len())
        .into_par_iter()
        .map(|_| T::default())
        .collect();
    buffer.copy_to(&mut values[..])?;
    Ok(values)
}

/// Lets `kernel` (named `name`) take `bytes` of dynamic shared memory, past
/// the 48 KB every kernel gets, up to the device's opt-in limit.
fn allow_shared_memory(kernel: &Function<'_>, bytes: u32, name: &str) -> Result<()> {
    // SAFETY: sets an attribute of a loaded kernel; the driver refuses a
    // size beyond the device's limit with an error, returned here.
    let result = unsafe {
        cust::sys::cuFuncSetAttribute(
            kernel.to_raw(),
            cust::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
    };
    driver_result(result, || format!("allowing {name} its shared memory"))
}

/// Checks that one block of `block_size` threads and `shared_bytes` of
/// shared memory fits on a multiprocessor, as a cooperative launch of one
/// block per multiprocessor needs, and that the device runs such launches;
/// returns how many such blocks stay resident on a multiprocessor.
fn check_cooperative(
    gpu: &Gpu,
    kernel: &Function<'_>,
    block_size: u32,
    shared_bytes: u32,
    name: &str,
) -> Result<u32> {
    if !gpu.cooperative_launch() {
        return Err(Error::Invalid(format!(
            "{} does not support cooperative launches",
            gpu.name()
        )));
    }
    let resident = kernel
        .max_active_blocks_per_multiprocessor(
            cust::function::BlockSize::x(block_size),
            shared_bytes as usize,
        )
        .context(|| format!("reading {name}'s occupancy"))?;
    if resident == 0 {
        return Err(Error::Invalid(format!(
            "{name} cannot fit one block on a multiprocessor"
        )));
    }
    Ok(resident)
}

/// A kernel parameter as `cuLaunchCooperativeKernel` takes it: the address of its value.
fn parameter<T>(value: &mut T) -> *mut std::ffi::c_void {
    (value as *mut T).cast()
}

/// Launches `kernel` (named `name`) on `gpu`'s stream as a cooperative
/// launch of `blocks` blocks of `block_size` threads, all resident at once
/// (cust has no call for it).
///
/// # Safety
/// `parameters` are the addresses of values of the kernel's parameters,
/// in its order and types, meeting its contract; [`check_cooperative`]
/// passed for this kernel, block size and `shared_bytes`, and its blocks
/// per multiprocessor times the multiprocessors are at least `blocks`.
unsafe fn launch_cooperative(
    gpu: &Gpu,
    kernel: &Function<'_>,
    (blocks, block_size, shared_bytes): (u32, u32, u32),
    parameters: &mut [*mut std::ffi::c_void],
    name: &str,
) -> Result<()> {
    // SAFETY: the caller's contract, and the blocks are within the
    // occupancy `check_cooperative` found.
    let result = unsafe {
        cust::sys::cuLaunchCooperativeKernel(
            kernel.to_raw(),
            blocks,
            1,
            1,
            block_size,
            1,
            1,
            shared_bytes,
            gpu.stream().as_inner(),
            parameters.as_mut_ptr(),
        )
    };
    driver_result(result, || format!("launching {name}"))
}

/// Blocks of `block_size` threads needed to give each of `count` items a thread.
pub(crate) fn blocks_for(count: u32, block_size: u32) -> u32 {
    count.div_ceil(block_size).max(1)
}
