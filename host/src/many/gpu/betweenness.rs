//! The GPU's betweenness batches (`kernels/src/many_sources/betweenness.rs`):
//! a batch's sources placed, its forward and backward sweeps each one
//! cooperative launch, the scores added on the device from batch to batch
//! and read back once, at the end.
//!
//! The engine holds the graph and a batch's values for `width` sources:
//! distances, path counts and dependencies for every vertex and source,
//! and the levels' entries. They cost 24 bytes a vertex and source, so the
//! width is what the device's free memory allows ([`GpuBetweenness::width_for`]).

use bfs_kernels::abi::Rows;
use bfs_kernels::abi::betweenness::{
    self, BLOCK_SIZE, Levels, MOST_WIDTH, Paths, REACHED_SPAN, SHARED_BYTES, Scores,
};
use cust::memory::{CopyDestination, DeviceBuffer};

use super::betweenness_scores::ScoreSums;
use super::{check_room, clear};
use crate::error::CudaContext;
use crate::gpu::{Entry, Gpu, address, blocks_for, upload};
use crate::many::betweenness::{Betweenness, Dependencies, Wanted};
use crate::many::check_batch;
use crate::{Csr, Error, Result};

/// Device bytes a column (a source of the batch) takes a vertex: a
/// distance, a path count, a dependency and an entry, and an eighth of a
/// word of `queued_at`.
const BYTES_A_PAIR: f64 = 4.0 + 8.0 + 8.0 + 4.0 + 0.125;

/// The share of the free device memory a batch's values may take.
const MEMORY_SHARE: f64 = 0.75;

/// The batch's kernels.
struct Kernels<'g> {
    start: Entry<'g, (Paths, Levels, *const u32, u32)>,
    forward: Entry<'g, (Rows, Paths, Levels)>,
    backward: Entry<'g, (Rows, Paths, Levels, Scores)>,
    reached: Entry<'g, (Paths, u32, *mut u32)>,
}

/// The engine: the graph on the device, one batch's values and the scores.
pub struct GpuBetweenness<'g> {
    gpu: &'g Gpu,
    graph: &'g Csr,
    wanted: Wanted,
    width: u32,
    kernels: Kernels<'g>,
    offsets: DeviceBuffer<u64>,
    columns: DeviceBuffer<u32>,
    levels: DeviceBuffer<u32>,
    sigma: DeviceBuffer<f64>,
    delta: DeviceBuffer<f64>,
    entries: DeviceBuffer<u32>,
    queued_at: DeviceBuffer<u32>,
    level_starts: DeviceBuffer<u64>,
    level_words: DeviceBuffer<u64>,
    level_count: DeviceBuffer<u32>,
    sources: DeviceBuffer<u32>,
    reached: DeviceBuffer<u32>,
    scores: ScoreSums,
    /// With `endpoints`: each source's reached vertices but itself, added
    /// on the host as batches end.
    own_endpoints: Vec<f64>,
    /// Blocks of the cooperative launches: all resident at once.
    blocks: u32,
}

impl<'g> GpuBetweenness<'g> {
    /// Device bytes of an engine of `width` columns over `graph`.
    pub fn device_bytes(graph: &Csr, width: u32, wanted: Wanted) -> u64 {
        let (n, m) = (graph.vertex_count() as u64, graph.edge_count());
        let pairs = (BYTES_A_PAIR * n as f64 * width as f64) as u64;
        Csr::bytes_of(graph.vertex_count(), m)
            + pairs
            + ScoreSums::bytes(graph, wanted)
            + 8 * (n + 2)
            + 8 * width as u64
    }

    /// The widest batch, `32 · 2^k` columns and at most
    /// [`MOST_WIDTH`], no wider than `sources` need, whose engine takes at
    /// most three quarters of the device's free memory; an error where
    /// even 32 do not fit.
    pub fn width_for(gpu: &Gpu, graph: &Csr, sources: usize, wanted: Wanted) -> Result<u32> {
        let free = gpu.free_memory()?;
        let room = (free as f64 * MEMORY_SHARE) as u64;
        let needed = sources.div_ceil(32).next_power_of_two().max(1) * 32;
        let mut width = (needed.min(MOST_WIDTH as usize)) as u32;
        while width > 32 && Self::device_bytes(graph, width, wanted) > room {
            width /= 2;
        }
        let needed = Self::device_bytes(graph, width, wanted);
        check_room("betweenness", needed, (room, free))?;
        Ok(width)
    }

    /// An engine for batches of up to `width` sources (32 times a power
    /// of two, at most [`MOST_WIDTH`]) over `graph`.
    pub fn new(gpu: &'g Gpu, graph: &'g Csr, width: u32, wanted: Wanted) -> Result<Self> {
        let words = betweenness::words_of(width);
        if !width.is_multiple_of(32) || !words.is_power_of_two() || width > MOST_WIDTH {
            return Err(Error::Invalid(format!(
                "a betweenness batch takes 32 times a power of two sources, at most \
                 {MOST_WIDTH}; {width} was asked for"
            )));
        }
        let n = graph.vertex_count() as usize;
        if n as u64 * words as u64 > u32::MAX as u64 {
            return Err(Error::Unsupported(format!(
                "betweenness: {n} vertices in batches of {width} number more entries than \
                 32-bit ids hold; use a narrower batch"
            )));
        }
        let needed = Self::device_bytes(graph, width, wanted);
        let free = gpu.free_memory()?;
        check_room("betweenness", needed, (free, free))?;
        let kernels = Kernels {
            start: gpu.entry(betweenness::START)?,
            forward: gpu.entry(betweenness::FORWARD)?,
            backward: gpu.entry(betweenness::BACKWARD)?,
            reached: gpu.entry(betweenness::REACHED)?,
        };
        let resident = kernels
            .forward
            .check_cooperative(gpu, BLOCK_SIZE, SHARED_BYTES)?
            .min(
                kernels
                    .backward
                    .check_cooperative(gpu, BLOCK_SIZE, SHARED_BYTES)?,
            );
        let allocation = || "allocating the betweenness batch".to_string();
        let pairs = n * width as usize;
        Ok(GpuBetweenness {
            gpu,
            graph,
            wanted,
            width,
            kernels,
            offsets: upload(graph.row_offsets())?,
            columns: upload(graph.column_indices())?,
            levels: DeviceBuffer::zeroed(pairs.max(1)).context(allocation)?,
            sigma: DeviceBuffer::zeroed(pairs.max(1)).context(allocation)?,
            delta: DeviceBuffer::zeroed(pairs.max(1)).context(allocation)?,
            entries: DeviceBuffer::zeroed(pairs.max(1)).context(allocation)?,
            queued_at: DeviceBuffer::zeroed((n * words as usize).max(1)).context(allocation)?,
            level_starts: DeviceBuffer::zeroed(n + 2).context(allocation)?,
            level_words: DeviceBuffer::zeroed(3).context(allocation)?,
            level_count: DeviceBuffer::zeroed(1).context(allocation)?,
            sources: DeviceBuffer::zeroed(width as usize).context(allocation)?,
            reached: DeviceBuffer::zeroed(width as usize).context(allocation)?,
            scores: ScoreSums::new(graph, wanted)?,
            own_endpoints: vec![0.0; if wanted.endpoints { n } else { 0 }],
            blocks: gpu.multiprocessors() * resident,
        })
    }

    /// The parameter blocks of the batch's kernels.
    fn blocks(&self) -> (Rows, Paths, Levels) {
        (
            Rows {
                offsets: address(&self.offsets).cast_const(),
                columns: address(&self.columns).cast_const(),
            },
            Paths {
                levels: address(&self.levels),
                sigma: address(&self.sigma),
                delta: address(&self.delta),
                width: self.width,
                words: betweenness::words_of(self.width),
            },
            Levels {
                entries: address(&self.entries),
                queued_at: address(&self.queued_at),
                level_starts: address(&self.level_starts),
                level_words: address(&self.level_words),
                level_count: address(&self.level_count),
            },
        )
    }

    /// Queues the clearing of a batch's values: every pair unreached, no
    /// path counted, no entry queued.
    fn clear_batch(&mut self) -> Result<()> {
        let stream = self.gpu.stream();
        let context = || "clearing a betweenness batch".to_string();
        // SAFETY: memsets ordered on the stream with the batch's kernels;
        // the host does not touch the buffers meanwhile.
        unsafe {
            self.levels
                .set_32_async(u32::MAX, stream)
                .context(context)?;
            self.queued_at
                .set_32_async(u32::MAX, stream)
                .context(context)?;
            self.level_starts
                .index(0..2)
                .set_zero_async(stream)
                .context(context)?;
        }
        clear(self.gpu, &mut self.sigma, "a batch's path counts")?;
        clear(self.gpu, &mut self.level_words, "the grid barrier's words")
    }

    /// Waits for the batch's kernels.
    fn synchronize(&self) -> Result<()> {
        self.gpu
            .stream()
            .synchronize()
            .context(|| "running a betweenness batch".into())
    }

    /// With `endpoints`: adds each of `sources`' reached vertices but
    /// itself to its own score.
    fn add_own_endpoints(&mut self, sources: &[u32], paths: Paths) -> Result<()> {
        clear(self.gpu, &mut self.reached, "the reached counts")?;
        let n = self.graph.vertex_count();
        let warps = n.div_ceil(REACHED_SPAN) * betweenness::words_of(self.width);
        let shape = (blocks_for(warps * 32, BLOCK_SIZE), BLOCK_SIZE, 0);
        // SAFETY: `paths` holds the batch's distances, `reached` a count a
        // column; both sized for the graph and the width.
        unsafe {
            self.kernels.reached.launch(
                self.gpu.stream(),
                shape,
                (paths, n, address(&self.reached)),
            )
        }
        .context(|| "launching betweenness_reached".into())?;
        self.synchronize()?;
        let mut reached = vec![0; self.width as usize];
        self.reached
            .copy_to(&mut reached[..])
            .context(|| "reading the reached counts".into())?;
        for (&source, &count) in sources.iter().zip(&reached) {
            self.own_endpoints[source as usize] += count.saturating_sub(1) as f64;
        }
        Ok(())
    }
}

impl Betweenness for GpuBetweenness<'_> {
    fn batch_width(&self) -> usize {
        self.width as usize
    }

    fn add_batch(&mut self, sources: &[u32]) -> Result<()> {
        check_batch(sources, self.width as usize, self.graph.vertex_count())?;
        if sources.is_empty() {
            return Ok(());
        }
        // The last batch's kernels are done with the sources and the
        // reached counts before the copy overwrites them.
        self.synchronize()?;
        self.sources
            .index(..sources.len())
            .copy_from(sources)
            .context(|| "uploading a batch's sources".into())?;
        self.clear_batch()?;
        let (rows, paths, levels) = self.blocks();
        let count = sources.len() as u32;
        let cooperative = (self.blocks, BLOCK_SIZE, SHARED_BYTES);
        // SAFETY: the buffers are sized for the graph and the width
        // (`new`), cleared as each kernel's contract asks just above and
        // between the sweeps; the sources are vertices (checked); the
        // cooperative shape passed `check_cooperative` in `new`.
        unsafe {
            self.kernels
                .start
                .launch(
                    self.gpu.stream(),
                    (blocks_for(count, BLOCK_SIZE), BLOCK_SIZE, 0),
                    (paths, levels, address(&self.sources).cast_const(), count),
                )
                .context(|| "launching betweenness_start".into())?;
            self.kernels.forward.launch_cooperative(
                self.gpu,
                cooperative,
                (rows, paths, levels),
            )?;
            clear(self.gpu, &mut self.level_words, "the grid barrier's words")?;
            self.kernels.backward.launch_cooperative(
                self.gpu,
                cooperative,
                (rows, paths, levels, self.scores.block(true)),
            )?;
        }
        if self.wanted.endpoints && self.wanted.vertices {
            self.add_own_endpoints(sources, paths)?;
        }
        Ok(())
    }

    fn take(&mut self) -> Result<Dependencies> {
        self.synchronize()?;
        let mut dependencies = self.scores.take(self.gpu)?;
        if let Some(vertices) = &mut dependencies.vertices {
            for (value, own) in vertices.iter_mut().zip(&mut self.own_endpoints) {
                *value += std::mem::take(own);
            }
        }
        Ok(dependencies)
    }

    fn describe(&self) -> String {
        format!(
            "{}, {} sources a batch (Brandes, a lane a source)",
            self.gpu.name(),
            self.width
        )
    }
}
