//! The GPU's batches (`kernels/src/many_sources.rs`): MS-BFS with a bit
//! per source, a level top-down from the frontier's chunks or bottom-up
//! over every unfinished vertex, by gapbs's rule over the batch's
//! frontier, the host reading the level's figures after each.
//!
//! The engine holds the graph (and, where it is directed, its reverse for
//! the bottom-up levels) and a batch's bitmaps for up to
//! [`MOST_WORDS`]` * 32` sources, reused batch after batch.

use bfs_kernels::abi::direction_optimizing::Switch;
use bfs_kernels::abi::many_sources::{
    self, BLOCK_SIZE, Batch, CHUNK_EDGES, Kept, LevelFigures, MOST_WORDS, Queue, Rows, Step,
};
use cust::function::BlockSize;
use cust::memory::{AsyncCopyDestination, CopyDestination, DeviceBuffer, LockedBuffer};

use super::{BatchCounts, Keep, Limits, ManySources, VertexTotals, check_batch};
use crate::error::CudaContext;

mod betweenness;
mod betweenness_blocks;
mod betweenness_scores;
mod heavy;
mod hierarchy_trees;
mod kept;
mod levels;

use crate::gpu::{Entry, Gpu, upload};
use crate::{Csr, Error, Result};
use heavy::HeavyLists;
use kept::DeviceTotals;

pub use betweenness::GpuBetweenness;
pub use betweenness_blocks::GpuBlockBetweenness;
pub use hierarchy_trees::{HierarchyTrees, MOST_WIDTH};

/// The direction rule of a batch: Beamer's switch (`abi`'s, as every
/// search takes it) with the frontier's edges counted in words, as a
/// top-down level reads a word for each of a frontier tail's non-zero
/// words for each of its edges, and a bottom-up one a vertex's whole row
/// of words (one coalesced load) for each in-edge it scans until every
/// source's bit is set. So α is 4 against gapbs's 15, which counts edges
/// and whose bottom-up check stops at a vertex's first parent; β is
/// gapbs's (docs/decisions.md, "Direction-optimizing").
const SWITCH: Switch = Switch::new(4, 18);

/// Words of one [`LevelFigures`].
const FIGURE_WORDS: usize = size_of::<LevelFigures>() / 8;

/// How a batch's uploaded sources are placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placement {
    /// Source `i` is the batch's source `i`.
    EachItsOwn,
    /// Every source is a seed of the batch's one search.
    Seeds,
}

/// The kernels of a batch, each taking one [`Step`].
struct Kernels<'g> {
    start: Entry<'g, (Step,)>,
    queue: Entry<'g, (Step,)>,
    top_down: Entry<'g, (Step,)>,
    settle: Entry<'g, (Step,)>,
    bottom_up_heavy: Entry<'g, (Step,)>,
    bottom_up: Entry<'g, (Step,)>,
}

/// A frontier as a queue, on the device.
struct DeviceQueue {
    vertices: DeviceBuffer<u32>,
    chunks: DeviceBuffer<u32>,
    /// A [`LevelFigures`], as words.
    figures: DeviceBuffer<u64>,
}

/// The engine: the graph on the device and one batch's buffers.
pub struct GpuBatches<'g> {
    gpu: &'g Gpu,
    graph: &'g Csr,
    kernels: Kernels<'g>,
    words: u32,
    out_offsets: DeviceBuffer<u64>,
    out_columns: DeviceBuffer<u32>,
    /// The reverse graph's rows, where the graph is directed.
    in_rows: Option<(DeviceBuffer<u64>, DeviceBuffer<u32>)>,
    /// The in-rows' edges in all.
    in_edges: u64,
    /// The in-lists that bottom-up levels gather in chunks.
    heavy: HeavyLists,
    visited: DeviceBuffer<u32>,
    frontier: DeviceBuffer<u32>,
    next: DeviceBuffer<u32>,
    frontier_masks: DeviceBuffer<u32>,
    touched: DeviceBuffer<u32>,
    touched_queue: DeviceBuffer<u32>,
    queues: [DeviceQueue; 2],
    level_counts: DeviceBuffer<u32>,
    valid_bits: DeviceBuffer<u32>,
    /// The live sources' bits (`Batch::live`), and the host's copy, which
    /// it sets from each level's counts.
    live: DeviceBuffer<u32>,
    live_on_host: LockedBuffer<u32>,
    sources: DeviceBuffer<u32>,
    figures_on_host: LockedBuffer<u64>,
    level_counts_on_host: LockedBuffer<u32>,
    totals: Option<DeviceTotals>,
    distances: Option<DeviceBuffer<i32>>,
    /// Blocks of a grid-striding launch: every multiprocessor full.
    blocks: u32,
}

impl<'g> GpuBatches<'g> {
    /// Device bytes of an engine of `words` words a vertex for `graph`,
    /// besides kept totals and distances.
    pub fn device_bytes(graph: &Csr, words: u32) -> u64 {
        let (n, m) = (graph.vertex_count() as u64, graph.edge_count());
        let graph_bytes = Csr::bytes_of(graph.vertex_count(), m);
        let reverse = if graph.is_symmetric() { 0 } else { graph_bytes };
        let bitmaps = 3 * 4 * n * words as u64;
        let queues = 2 * (4 * n + 8 * (n + m / CHUNK_EDGES as u64));
        let heavy = HeavyLists::device_bytes(n, m, words);
        graph_bytes + reverse + bitmaps + queues + heavy + 4 * n + 4 * n + n / 8
    }

    /// An engine for batches of up to `32 * words` sources over `graph`
    /// (`words` a power of two, at most [`MOST_WORDS`]).
    pub fn new(gpu: &'g Gpu, graph: &'g Csr, words: u32) -> Result<GpuBatches<'g>> {
        if !words.is_power_of_two() || words > MOST_WORDS {
            return Err(Error::Invalid(format!(
                "a batch takes 1 to {MOST_WORDS} words a vertex, a power of two; {words} was asked for"
            )));
        }
        let needed = Self::device_bytes(graph, words);
        let free = gpu.free_memory()?;
        check_room("many sources", needed, (free, free))?;
        let (n, m) = (graph.vertex_count() as usize, graph.edge_count() as usize);
        let allocation = || "allocating a batch's buffers".to_string();
        let zeroed = |count: usize| DeviceBuffer::<u32>::zeroed(count.max(1)).context(allocation);
        let queue = || -> Result<DeviceQueue> {
            Ok(DeviceQueue {
                vertices: zeroed(n)?,
                chunks: zeroed(2 * (n + m / CHUNK_EDGES as usize))?,
                figures: DeviceBuffer::zeroed(FIGURE_WORDS).context(allocation)?,
            })
        };
        let reverse = graph.reversed();
        let heavy = HeavyLists::new(reverse.as_ref().unwrap_or(graph).row_offsets(), words)?;
        let in_rows = match reverse {
            Some(reverse) => Some((
                upload(reverse.row_offsets())?,
                upload(reverse.column_indices())?,
            )),
            None => None,
        };
        let kernels = Kernels {
            start: gpu.entry(many_sources::START)?,
            queue: gpu.entry(many_sources::QUEUE)?,
            top_down: gpu.entry(many_sources::TOP_DOWN)?,
            settle: gpu.entry(many_sources::SETTLE)?,
            bottom_up_heavy: gpu.entry(many_sources::BOTTOM_UP_HEAVY)?,
            bottom_up: gpu.entry(many_sources::BOTTOM_UP)?,
        };
        let mut resident = u32::MAX;
        for kernel in [
            &kernels.queue,
            &kernels.top_down,
            &kernels.settle,
            &kernels.bottom_up_heavy,
            &kernels.bottom_up,
        ] {
            let blocks = kernel
                .function()
                .max_active_blocks_per_multiprocessor(BlockSize::x(BLOCK_SIZE), 0)
                .context(|| "reading a batch kernel's occupancy".into())?;
            resident = resident.min(blocks.max(1));
        }
        let words_count = n * words as usize;
        Ok(GpuBatches {
            gpu,
            graph,
            kernels,
            words,
            out_offsets: upload(graph.row_offsets())?,
            out_columns: upload(graph.column_indices())?,
            in_rows,
            in_edges: graph.edge_count(),
            heavy,
            visited: zeroed(words_count)?,
            frontier: zeroed(words_count)?,
            next: zeroed(words_count)?,
            frontier_masks: zeroed(n)?,
            touched: zeroed(n.div_ceil(32))?,
            touched_queue: zeroed(n)?,
            queues: [queue()?, queue()?],
            level_counts: zeroed(32 * words as usize)?,
            valid_bits: zeroed(words as usize)?,
            live: zeroed(words as usize)?,
            live_on_host: LockedBuffer::new(&0, words as usize).context(allocation)?,
            sources: zeroed(32 * words as usize)?,
            figures_on_host: LockedBuffer::new(&0, FIGURE_WORDS).context(allocation)?,
            level_counts_on_host: LockedBuffer::new(&0, 32 * words as usize).context(allocation)?,
            totals: None,
            distances: None,
            blocks: gpu.multiprocessors() * resident,
        })
    }

    /// The step's parameters for a level at `level`, the frontier's queue
    /// `current` and the next one the other, with what `kept` points at.
    fn step(&self, current: usize, kept: Kept, placed: (u32, Placement), level: u32) -> Step {
        let (source_count, placement) = placed;
        let raw = |buffer: &DeviceBuffer<u32>| buffer.as_device_ptr().as_raw() as *mut u32;
        let (in_offsets, in_columns) = match &self.in_rows {
            Some((offsets, columns)) => (offsets, columns),
            None => (&self.out_offsets, &self.out_columns),
        };
        let queue = |index: usize| Queue {
            vertices: raw(&self.queues[index].vertices),
            chunks: raw(&self.queues[index].chunks),
            figures: self.queues[index].figures.as_device_ptr().as_raw() as *mut LevelFigures,
        };
        Step {
            rows: Rows {
                out_offsets: self.out_offsets.as_device_ptr().as_raw() as *const u64,
                out_columns: raw(&self.out_columns),
                in_offsets: in_offsets.as_device_ptr().as_raw() as *const u64,
                in_columns: raw(in_columns),
                vertex_count: self.graph.vertex_count(),
                words: self.words,
            },
            batch: Batch {
                visited: raw(&self.visited),
                frontier: raw(&self.frontier),
                next: raw(&self.next),
                frontier_masks: raw(&self.frontier_masks),
                touched: raw(&self.touched),
                touched_queue: raw(&self.touched_queue),
                level_counts: raw(&self.level_counts),
                valid_bits: raw(&self.valid_bits),
                live: raw(&self.live),
            },
            kept,
            heavy: self.heavy.block(),
            current: queue(current),
            next: queue(1 - current),
            sources: raw(&self.sources),
            source_count,
            level,
            seeds: (placement == Placement::Seeds) as u32,
        }
    }

    /// Launches `kernel` over `blocks` blocks, with `shared_bytes` of
    /// dynamic shared memory, with `step`.
    ///
    /// # Safety
    /// `step` meets the kernel's contract (`kernels/src/many_sources.rs`).
    unsafe fn launch(
        &self,
        kernel: &Entry<'_, (Step,)>,
        (blocks, shared_bytes): (u32, u32),
        step: Step,
        name: &str,
    ) -> Result<()> {
        let shape = (blocks.max(1), BLOCK_SIZE, shared_bytes);
        // SAFETY: the caller's contract.
        unsafe { kernel.launch(self.gpu.stream(), shape, (step,)) }
            .context(|| format!("launching {name}"))
    }

    /// Readies a batch of `slots` sources placed from `sources`: uploads
    /// them and each word's valid bits, readies what `keep` asks for, and
    /// clears the bitmaps; returns the kept buffers' pointers.
    fn start(&mut self, sources: &[u32], slots: u32, keep: &Keep<'_>) -> Result<Kept> {
        let context = || "starting a batch".to_string();
        if sources.len() > self.sources.len() {
            self.sources = DeviceBuffer::zeroed(sources.len()).context(context)?;
        }
        self.sources
            .index(..sources.len())
            .copy_from(sources)
            .context(context)?;
        let valid: Vec<u32> = (0..self.words)
            .map(|word| many_sources::valid_bits(slots, word))
            .collect();
        self.valid_bits.copy_from(&valid[..]).context(context)?;
        // Every source is live at the start.
        self.live.copy_from(&valid[..]).context(context)?;
        self.live_on_host.copy_from_slice(&valid);
        let kept = self.kept_for(keep, slots as usize)?;
        for buffer in [&mut self.visited, &mut self.frontier, &mut self.next] {
            clear(self.gpu, buffer, "a batch's bitmaps")?;
        }
        Ok(kept)
    }

    /// One search from every one of `seeds` at once, within `limits`: each
    /// vertex's distance to its nearest seed, `-1` where none reaches it.
    /// The seeds are the batch's source 0 together.
    pub fn search_from_seeds(&mut self, seeds: &[u32], limits: Limits) -> Result<Vec<i32>> {
        let n = self.graph.vertex_count();
        if seeds.is_empty() {
            return Err(Error::Invalid("a search from no seed".into()));
        }
        let mut row = vec![0; n as usize];
        let mut keep = Keep::Distances(&mut row);
        keep.check(&seeds[..1], n)?;
        Keep::Counts.check(seeds, n)?;
        let kept = self.start(seeds, 1, &keep)?;
        self.levels((seeds.len() as u32, Placement::Seeds), limits, kept)?;
        self.keep_results(&mut keep, 1)?;
        Ok(row)
    }

    /// Reads the figures of queue `index` and the level's counts, once the
    /// stream has passed the level.
    fn read_level(&mut self, index: usize) -> Result<LevelFigures> {
        let context = || "reading a level's figures".to_string();
        // SAFETY: copies on the stream after the level's kernels; the
        // page-locked words are read after the stream is synchronized.
        unsafe {
            self.queues[index]
                .figures
                .async_copy_to(&mut self.figures_on_host, self.gpu.stream())
                .context(context)?;
            self.level_counts
                .async_copy_to(&mut self.level_counts_on_host, self.gpu.stream())
                .context(context)?;
        }
        self.gpu.stream().synchronize().context(context)?;
        let words = &self.figures_on_host;
        Ok(LevelFigures {
            frontier_vertices: words[0],
            frontier_edges: words[1],
            frontier_word_edges: words[2],
            frontier_chunks: words[3],
            touched: words[4],
            finished_edges: words[5],
        })
    }
}

/// Checks a batch of `sources` for an engine of `width` sources a batch
/// over `vertex_count` vertices, and what `keep` asks for: `false` for an
/// empty batch, which has nothing to search.
fn checked(sources: &[u32], width: usize, keep: &Keep<'_>, vertex_count: u32) -> Result<bool> {
    if sources.is_empty() {
        return Ok(false);
    }
    check_batch(sources, width, vertex_count)?;
    keep.check(sources, vertex_count)?;
    Ok(true)
}

/// Refuses an engine (`variant`) of `needed` device bytes where they pass
/// `room`, of the `free` bytes the device has.
fn check_room(variant: &'static str, needed: u64, (room, free): (u64, u64)) -> Result<()> {
    match needed > room {
        true => Err(Error::DeviceMemory {
            variant,
            needed,
            free,
        }),
        false => Ok(()),
    }
}

/// Queues a memset of `buffer` to zero on `gpu`'s stream.
fn clear<T: cust::memory::DeviceCopy + bytemuck::Zeroable>(
    gpu: &Gpu,
    buffer: &mut DeviceBuffer<T>,
    what: &str,
) -> Result<()> {
    // SAFETY: a memset ordered on the stream with the kernels that read
    // the buffer; the host does not touch it meanwhile.
    unsafe { buffer.set_zero_async(gpu.stream()) }.context(|| format!("clearing {what}"))
}

impl ManySources for GpuBatches<'_> {
    fn batch_width(&self) -> usize {
        32 * self.words as usize
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
        let kept = self.start(sources, count as u32, &keep)?;
        let counts = self.levels((count as u32, Placement::EachItsOwn), limits, kept)?;
        self.keep_results(&mut keep, count)?;
        Ok(counts)
    }

    fn describe(&self) -> String {
        format!(
            "{}, {} sources a batch",
            self.gpu.name(),
            self.batch_width()
        )
    }

    fn add_held_totals(&mut self, totals: &mut VertexTotals) -> Result<()> {
        self.add_totals(totals)
    }
}
