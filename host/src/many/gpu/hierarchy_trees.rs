//! The GPU's batches on road networks (`kernels/src/many_sources/hierarchy_trees.rs`):
//! PHAST's two sweeps of the contraction hierarchy that `hierarchy-sweep`
//! builds, carrying a shortest-path tree per source of the batch.
//!
//! A bit-parallel batch (`GpuBatches`) pays a level, a host round trip,
//! for each of a road network's thousand levels. Here a batch costs the
//! hierarchy's levels twice (Luxembourg: 44), whatever the sources, each
//! level a launch queued without waiting; the host waits twice a batch,
//! for the largest label (which sizes the counts) and for the counts.
//! A core left uncontracted (hubs) takes Bellman–Ford rounds between the
//! sweeps, a few rounds a wait.

use bfs_kernels::abi::UNREACHED;
use bfs_kernels::abi::hierarchy_trees::{self, Arcs, BLOCK_SIZE, Chains, Labels, Tally};
use bfs_kernels::abi::many_sources::Kept;
use cust::memory::{CopyDestination, DeviceBuffer, LockedBuffer};
use rayon::prelude::*;

mod results;

use super::kept::DeviceTotals;
use super::{check_room, checked};
use crate::error::{CudaContext, driver_result};
use crate::gpu::roads::chain_contracted::{seeds, upload_row_offsets};
use crate::gpu::roads::hierarchy_sweep;
use crate::gpu::{Entry, Gpu, HierarchySweep, upload};
use crate::graph::hierarchy::ContractionHierarchy;
use crate::many::{BatchCounts, Keep, Limits, ManySources, VertexTotals};
use crate::{Csr, Error, Result};

/// The most sources a batch takes: its labels are the kept vertices
/// times this many words, and a batch's fixed costs (a launch a level,
/// two waits) are shared by more sources the wider it is
/// (docs/many-sources.md).
pub const MOST_WIDTH: u32 = 4096;

/// The share of the free device memory a batch's labels may take.
const LABELS_SHARE_OF_FREE: f64 = 0.5;

/// Core rounds launched between two looks at whether the last lowered a
/// label: rounds past the last that lowers one cost a launch each, a look
/// costs a wait.
const CORE_ROUNDS_A_LOOK: usize = 4;

/// The kernels, each with its parameters.
struct Kernels<'g> {
    seed: Entry<'g, (Labels, *const u32)>,
    sweep: Entry<'g, (Labels, Arcs)>,
    core_round: Entry<'g, (Labels, Arcs, *mut u32)>,
    farthest: Entry<'g, (Labels, u32, u32, *mut u32)>,
    count: Entry<'g, (Labels, Chains, Tally)>,
    totals: Entry<'g, (Labels, Chains, Kept)>,
    distances: Entry<'g, (Labels, Chains, Kept)>,
}

/// The engine: the hierarchy and the chains on the device, and one
/// batch's labels, reused batch after batch.
pub struct HierarchyTrees<'g> {
    gpu: &'g Gpu,
    graph: &'g Csr,
    kernels: Kernels<'g>,
    hierarchy: ContractionHierarchy,
    /// The lower and the higher arcs: rows, then (head, weight) pairs.
    lower: (DeviceBuffer<u32>, DeviceBuffer<u32>),
    higher: (DeviceBuffer<u32>, DeviceBuffer<u32>),
    places: DeviceBuffer<u32>,
    chains: DeviceBuffer<u32>,
    /// The longest chain's length: no vertex lies further from the kept
    /// vertex nearest it.
    longest_chain: u32,
    /// Columns a vertex: the most sources a batch takes.
    width: u32,
    labels: DeviceBuffer<u32>,
    /// Four words a source (its seeds), then two (its own chain).
    seeds: DeviceBuffer<u32>,
    own: DeviceBuffer<u32>,
    /// The largest label, then a word a core round.
    flags: DeviceBuffer<u32>,
    counts: DeviceBuffer<u32>,
    counts_on_host: LockedBuffer<u32>,
    scratch: DeviceBuffer<u32>,
    /// The dynamic shared memory the count kernel is allowed.
    count_shared_allowed: u32,
    totals: Option<DeviceTotals>,
    distances: Option<DeviceBuffer<i32>>,
    /// Blocks of a grid-striding launch: every multiprocessor full.
    blocks: u32,
}

impl<'g> HierarchyTrees<'g> {
    /// Device bytes of an engine of `width` sources a batch for `graph`,
    /// whose hierarchy keeps `kept_count` vertices, besides the hierarchy,
    /// the counts and what is kept: the labels, the places and chains.
    pub fn device_bytes(graph: &Csr, kept_count: u32, width: u32) -> u64 {
        4 * kept_count as u64 * width as u64 + 8 * graph.vertex_count() as u64
    }

    /// An engine over `graph` whose batches take up to `width` sources
    /// (rounded up to 32, at most [`MOST_WIDTH`]); builds the graph's
    /// contraction hierarchy, or refuses a graph `hierarchy-sweep` refuses.
    pub fn new(gpu: &'g Gpu, graph: &'g Csr, width: u32) -> Result<HierarchyTrees<'g>> {
        refuse_directed(graph)?;
        Self::from_hierarchy(gpu, graph, HierarchySweep::build(graph)?, width)
    }

    /// [`new`](Self::new) with `hierarchy`, built from `graph` (or loaded
    /// from its prepared file).
    pub fn from_hierarchy(
        gpu: &'g Gpu,
        graph: &'g Csr,
        hierarchy: ContractionHierarchy,
        width: u32,
    ) -> Result<HierarchyTrees<'g>> {
        refuse_directed(graph)?;
        let kept_count = hierarchy.chains.kept_count();
        let free = gpu.free_memory()?;
        // As wide as asked, within the share of the free memory, by 32s.
        let fitting =
            (LABELS_SHARE_OF_FREE * free as f64 / (4.0 * kept_count.max(1) as f64)) as u32;
        let width = width
            .clamp(1, MOST_WIDTH)
            .next_multiple_of(32)
            .min(fitting / 32 * 32)
            .max(32);
        let needed = Self::device_bytes(graph, kept_count, width)
            + hierarchy_sweep::hierarchy_bytes(graph, &hierarchy);
        check_room(
            "many sources over a contraction hierarchy",
            needed,
            (free, free),
        )?;
        let allocation = || "allocating a batch's labels".to_string();
        let zeroed = |count: usize| DeviceBuffer::<u32>::zeroed(count.max(1)).context(allocation);
        let kernels = Kernels {
            seed: gpu.entry(hierarchy_trees::SEED)?,
            sweep: gpu.entry(hierarchy_trees::SWEEP)?,
            core_round: gpu.entry(hierarchy_trees::CORE_ROUND)?,
            farthest: gpu.entry(hierarchy_trees::FARTHEST)?,
            count: gpu.entry(hierarchy_trees::COUNT)?,
            totals: gpu.entry(hierarchy_trees::TOTALS)?,
            distances: gpu.entry(hierarchy_trees::DISTANCES)?,
        };
        let longest_chain = (0..hierarchy.chains.chain_count())
            .map(|chain| hierarchy.chains.chain(chain).length)
            .max()
            .unwrap_or(0);
        let variant = "many sources over a contraction hierarchy";
        Ok(HierarchyTrees {
            gpu,
            graph,
            kernels,
            lower: (
                upload_row_offsets(&hierarchy.lower, variant)?,
                upload(&hierarchy.lower.arcs)?,
            ),
            higher: (
                upload_row_offsets(&hierarchy.higher, variant)?,
                upload(&hierarchy.higher.arcs)?,
            ),
            places: upload(&hierarchy.chains.places)?,
            chains: upload(&hierarchy.chains.chains)?,
            longest_chain,
            width,
            labels: zeroed(kept_count as usize * width as usize)?,
            seeds: zeroed(4 * width as usize)?,
            own: zeroed(2 * width as usize)?,
            flags: zeroed(1 + CORE_ROUNDS_A_LOOK)?,
            counts: zeroed(1)?,
            counts_on_host: LockedBuffer::new(&0, 1).context(allocation)?,
            scratch: zeroed(1)?,
            count_shared_allowed: 0,
            totals: None,
            distances: None,
            blocks: 16 * gpu.multiprocessors(),
            hierarchy,
        })
    }

    /// The batch's labels, for `count` sources.
    fn labels(&self, count: u32) -> Labels {
        Labels {
            labels: self.labels.as_device_ptr().as_raw() as *mut u32,
            width: self.width,
            count,
        }
    }

    /// Level `level`'s vertices with `arcs`' rows.
    fn arcs(&self, arcs: &(DeviceBuffer<u32>, DeviceBuffer<u32>), level: usize) -> Arcs {
        let starts = &self.hierarchy.level_starts;
        Arcs {
            rows: arcs.0.as_device_ptr().as_raw() as *mut u32,
            arcs: arcs.1.as_device_ptr().as_raw() as *mut u32,
            first: starts[level],
            end: starts[level + 1],
        }
    }

    /// The places, chains and sources' own chains, within `limits`.
    fn chains(&self, limits: Limits) -> Chains {
        let contraction = &self.hierarchy.chains;
        Chains {
            places: self.places.as_device_ptr().as_raw() as *mut u32,
            chains: self.chains.as_device_ptr().as_raw() as *mut u32,
            own: self.own.as_device_ptr().as_raw() as *mut u32,
            vertex_count: self.graph.vertex_count(),
            kept_count: contraction.kept_count(),
            chain_count: contraction.chain_count(),
            limit: limits.depth_limit.unwrap_or(UNREACHED - 1),
        }
    }

    /// Blocks of `BLOCK_SIZE` threads for `items` items, a thread each (or
    /// a warp each, where `per_warp`), at most a grid-striding launch's.
    fn blocks_for(&self, items: u64, per_warp: bool) -> u32 {
        let threads = if per_warp { items * 32 } else { items };
        threads
            .div_ceil(BLOCK_SIZE as u64)
            .clamp(1, self.blocks as u64) as u32
    }

    /// Launches the sweep of `level` along `arcs`.
    fn sweep(&self, count: u32, level: usize, upward: bool) -> Result<()> {
        let arcs = self.arcs(if upward { &self.lower } else { &self.higher }, level);
        if arcs.first == arcs.end {
            return Ok(());
        }
        let pairs = (arcs.end - arcs.first) as u64 * (self.width / 32) as u64;
        let shape = (self.blocks_for(pairs, true), BLOCK_SIZE, 0);
        // SAFETY: the labels hold `kept_count * width` words; the level's
        // rows and arcs are the hierarchy's, whose heads lie in other
        // levels (lower going up, higher coming down), weights at least 1.
        unsafe {
            self.kernels
                .sweep
                .launch(self.gpu.stream(), shape, (self.labels(count), arcs))
        }
        .context(|| "launching hierarchy_trees_sweep".into())
    }

    /// Bellman–Ford rounds over the core until one lowers no label.
    fn core_rounds(&mut self, count: u32) -> Result<()> {
        let core_level = self.hierarchy.level_count() as usize - 1;
        let arcs = self.arcs(&self.higher, core_level);
        if arcs.first == arcs.end {
            return Ok(());
        }
        let pairs = (arcs.end - arcs.first) as u64 * (self.width / 32) as u64;
        let shape = (self.blocks_for(pairs, true), BLOCK_SIZE, 0);
        let context = || "running the core's rounds".to_string();
        let flags = self.flags.as_device_ptr().as_raw() as *mut u32;
        let mut looks = [0u32; 1 + CORE_ROUNDS_A_LOOK];
        loop {
            super::clear(self.gpu, &mut self.flags, "the core's flags")?;
            for round in 0..CORE_ROUNDS_A_LOOK {
                let lowered = flags.wrapping_add(1 + round);
                // SAFETY: as a sweep's level, the core's arcs joining core
                // vertices; `lowered` one of the engine's flags.
                unsafe {
                    self.kernels.core_round.launch(
                        self.gpu.stream(),
                        shape,
                        (self.labels(count), arcs, lowered),
                    )
                }
                .context(context)?;
            }
            self.flags.copy_to(&mut looks[..]).context(context)?;
            if looks[CORE_ROUNDS_A_LOOK] == 0 {
                return Ok(());
            }
        }
    }

    /// Searches `sources`' trees: seeds, the upward sweep, the core, the
    /// downward sweep; returns the largest label.
    fn sweeps(&mut self, sources: &[u32]) -> Result<u32> {
        let count = sources.len() as u32;
        let contraction = &self.hierarchy.chains;
        let (mut seed_words, mut own_words) = (Vec::new(), Vec::new());
        for &source in sources {
            let ([(first, first_distance), (second, second_distance)], (chain, position)) =
                seeds(contraction, source);
            seed_words.extend([first, first_distance, second, second_distance]);
            own_words.extend([chain, position]);
        }
        let context = || "starting a batch".to_string();
        self.seeds
            .index(..seed_words.len())
            .copy_from(&seed_words[..])
            .context(context)?;
        self.own
            .index(..own_words.len())
            .copy_from(&own_words[..])
            .context(context)?;
        let stream = self.gpu.stream();
        // SAFETY: a memset of every label to UNREACHED (all bits set), on
        // the stream before the kernels that read them.
        let result = unsafe {
            cust::sys::cuMemsetD32Async(
                self.labels.as_device_ptr().as_raw(),
                UNREACHED,
                self.labels.len(),
                stream.as_inner(),
            )
        };
        driver_result(result, context)?;
        let shape = (self.blocks_for(count as u64, false), BLOCK_SIZE, 0);
        let seeds = self.seeds.as_device_ptr().as_raw() as *const u32;
        // SAFETY: four seed words a source, kept indices (or NO_ENTRY) of
        // the labels' rows.
        unsafe {
            self.kernels
                .seed
                .launch(stream, shape, (self.labels(count), seeds))
        }
        .context(|| "launching hierarchy_trees_seed".into())?;
        let core_level = self.hierarchy.level_count() as usize - 1;
        for level in 1..=core_level {
            self.sweep(count, level, true)?;
        }
        self.core_rounds(count)?;
        for level in (0..core_level).rev() {
            self.sweep(count, level, false)?;
        }

        super::clear(self.gpu, &mut self.flags, "the largest label")?;
        let kept_count = self.hierarchy.chains.kept_count();
        let items = kept_count as u64 * self.width as u64;
        let shape = (self.blocks_for(items, false), BLOCK_SIZE, 0);
        let farthest = self.flags.as_device_ptr().as_raw() as *mut u32;
        // SAFETY: the labels' `kept_count * width` words; the flag word
        // zeroed above.
        unsafe {
            self.kernels.farthest.launch(
                stream,
                shape,
                (self.labels(count), kept_count, UNREACHED - 1, farthest),
            )
        }
        .context(|| "launching hierarchy_trees_farthest".into())?;
        let mut largest = [0u32];
        self.flags
            .index(..1)
            .copy_to(&mut largest[..])
            .context(|| "reading the largest label".into())?;
        Ok(largest[0])
    }

    /// The hierarchy's kept share of the vertices, its levels and core.
    fn shape(&self) -> String {
        let kept = self.hierarchy.chains.kept_count();
        let core = self.hierarchy.core();
        format!(
            "{:.0}% of the vertices kept, {} levels, a core of {}",
            100.0 * kept as f64 / self.graph.vertex_count().max(1) as f64,
            self.hierarchy.level_count(),
            core.end - core.start
        )
    }
}

/// Refuses a directed graph, before its hierarchy (all core) is built:
/// the trees' counts take each chain's inner vertices from both ends.
fn refuse_directed(graph: &Csr) -> Result<()> {
    match graph.is_symmetric() {
        true => Ok(()),
        false => Err(Error::Unsupported(
            "a contraction hierarchy's batches search undirected graphs; this one is directed"
                .into(),
        )),
    }
}

impl ManySources for HierarchyTrees<'_> {
    fn batch_width(&self) -> usize {
        self.width as usize
    }

    fn search_batch(
        &mut self,
        sources: &[u32],
        limits: Limits,
        mut keep: Keep<'_>,
    ) -> Result<BatchCounts> {
        let count = sources.len();
        if !checked(
            sources,
            self.batch_width(),
            &keep,
            self.graph.vertex_count(),
        )? {
            return Ok(Vec::new());
        }
        let largest = self.sweeps(sources)?;
        let limit = limits.depth_limit.unwrap_or(UNREACHED - 1);
        // An inner vertex lies within half its chain of a kept vertex as
        // near the source (both ends lie in the source's component), or
        // along the source's own chain.
        let beyond = largest.saturating_add(self.longest_chain.div_ceil(2));
        let bins = beyond.max(self.longest_chain).min(limit) + 1;
        self.keep(&mut keep, count as u32, limits)?;
        let counts = self.count(count as u32, limits, bins)?;
        Ok(counts
            .par_chunks_exact(bins as usize)
            .map(|row| {
                let last = row
                    .iter()
                    .rposition(|&found| found != 0)
                    .map_or(0, |at| at + 1);
                row[..last].iter().map(|&found| found as u64).collect()
            })
            .collect())
    }

    fn describe(&self) -> String {
        format!(
            "{}, {} sources a batch, a tree each in the sweeps of a contraction hierarchy ({})",
            self.gpu.name(),
            self.batch_width(),
            self.shape()
        )
    }

    fn add_held_totals(&mut self, totals: &mut VertexTotals) -> Result<()> {
        match self.totals.as_mut() {
            Some(device) => device.add_into(self.gpu, totals),
            None => Ok(()),
        }
    }
}
