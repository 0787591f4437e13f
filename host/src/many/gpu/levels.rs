//! A batch's levels on the GPU: the start, then level after level
//! top-down or bottom-up by gapbs's rule over the batch's frontier, the
//! host reading each level's figures and each source's count.

use bfs_kernels::abi::many_sources::{BLOCK_SIZE, Kept, Step, counting_shared_bytes};

use super::{GpuBatches, Placement, SWITCH, clear};
use crate::Result;
use crate::error::CudaContext;
use crate::many::{BatchCounts, Limits};
use cust::memory::AsyncCopyDestination;

impl GpuBatches<'_> {
    /// Runs a batch's levels from its `placed` sources (uploaded, placed
    /// as the placement says), keeping what `kept` points at; returns each
    /// of the batch's sources' vertices by distance.
    pub(super) fn levels(
        &mut self,
        placed: (u32, Placement),
        limits: Limits,
        kept: Kept,
    ) -> Result<BatchCounts> {
        let count = match placed.1 {
            Placement::EachItsOwn => placed.0,
            Placement::Seeds => 1,
        };
        let mut counts: BatchCounts = vec![vec![1]; count as usize];
        // The frontier's queue is `queues[current]`; the kernels write the
        // other.
        // SAFETY: the bitmaps are clear, the sources uploaded (`placed`),
        // the kept buffers cleared for them.
        unsafe {
            self.launch(
                &self.kernels.start,
                (placed.0.div_ceil(BLOCK_SIZE), 0),
                self.step(0, kept, placed, 0),
                "many_sources_start",
            )?;
        }
        let mut current = self.queue_frontier(0, self.step(0, kept, placed, 0))?;
        let mut figures = self.read_level(current)?;
        let (mut in_queue, mut next_clear) = (true, true);
        let mut unfinished = self.in_edges;
        let counting = counting_shared_bytes(self.words);
        let n = self.graph.vertex_count() as u64;
        let (mut top_down, mut previous) = (true, 0);
        let mut level = 1;
        while figures.frontier_vertices > 0 && limits.allows(level) {
            top_down = match top_down {
                true => !SWITCH.goes_bottom_up(figures.frontier_word_edges, unfinished),
                false => !SWITCH.stays_bottom_up(figures.frontier_vertices, previous, n),
            };
            if top_down && !in_queue {
                current = self.queue_frontier(current, self.step(current, kept, placed, level))?;
            }
            self.clear_figures(1 - current)?;
            let gpu = self.gpu;
            clear(gpu, &mut self.level_counts, "a level's counts")?;
            if top_down {
                if !next_clear {
                    clear(gpu, &mut self.next, "the next bitmap")?;
                }
                clear(gpu, &mut self.touched, "the touched bitmap")?;
                // SAFETY: the frontier's queue is `current`, its chunks
                // counted; `next` and `touched` are clear; the next queue's
                // figures zero. The settle runs after the expansion, with
                // the same step.
                unsafe {
                    let step = self.step(current, kept, placed, level);
                    let warps = BLOCK_SIZE / 32;
                    let chunk_blocks = figures
                        .frontier_chunks
                        .div_ceil(warps as u64)
                        .min(self.blocks as u64) as u32;
                    self.launch(
                        &self.kernels.top_down,
                        (chunk_blocks, 0),
                        step,
                        "many_sources_top_down",
                    )?;
                    self.launch(
                        &self.kernels.settle,
                        (self.blocks, counting),
                        step,
                        "many_sources_settle",
                    )?;
                }
            } else {
                // SAFETY: `frontier` holds the whole frontier; the next
                // queue's figures are zero; the heavy lists' gathered words
                // are zero (the last bottom-up level took them), and the
                // light kernel runs after the heavy one, with the same step.
                unsafe {
                    let step = self.step(current, kept, placed, level);
                    let chunks = self.heavy.chunk_count();
                    if chunks > 0 {
                        let groups_a_block = BLOCK_SIZE / self.words;
                        let blocks = chunks.div_ceil(groups_a_block).min(self.blocks);
                        self.launch(
                            &self.kernels.bottom_up_heavy,
                            (blocks, 0),
                            step,
                            "many_sources_bottom_up_heavy",
                        )?;
                    }
                    self.launch(
                        &self.kernels.bottom_up,
                        (self.blocks, counting),
                        step,
                        "many_sources_bottom_up",
                    )?;
                }
            }
            let next_figures = self.read_level(1 - current)?;
            std::mem::swap(&mut self.frontier, &mut self.next);
            if top_down {
                current = 1 - current;
            }
            (in_queue, next_clear) = (top_down, top_down);
            unfinished = unfinished.saturating_sub(next_figures.finished_edges);
            for (source, found) in counts.iter_mut().zip(self.level_counts_on_host.iter()) {
                source.push(*found as u64);
            }
            self.note_live()?;
            previous = figures.frontier_vertices;
            figures = next_figures;
            level += 1;
        }
        for source in &mut counts {
            while source.last() == Some(&0) {
                source.pop();
            }
        }
        Ok(counts)
    }

    /// Queues the frontier from its bitmap into the queue other than
    /// `current`, its figures cleared first; returns that queue, now the
    /// frontier's. `step` names `current` as the frontier's queue.
    fn queue_frontier(&mut self, current: usize, step: Step) -> Result<usize> {
        self.clear_figures(1 - current)?;
        // SAFETY: `frontier` holds the whole frontier (after the start, or
        // a bottom-up level, which writes every vertex's words).
        unsafe {
            self.launch(
                &self.kernels.queue,
                (self.blocks, 0),
                step,
                "many_sources_queue",
            )?
        };
        Ok(1 - current)
    }

    /// Marks the sources whose searches found nothing at the level just
    /// read as ended (`Batch::live`): their frontier is empty, so no vertex
    /// waits for their bits any more. Uploads the bits where they changed,
    /// before the next level's kernels on the stream (the host's copy is
    /// next written after the stream has passed them).
    fn note_live(&mut self) -> Result<()> {
        let mut changed = false;
        let counts = self.level_counts_on_host.chunks(32);
        for (live, counts) in self.live_on_host.iter_mut().zip(counts) {
            let found = counts.iter().enumerate().fold(0u32, |bits, (bit, &count)| {
                bits | (u32::from(count > 0) << bit)
            });
            changed |= *live & found != *live;
            *live &= found;
        }
        if changed {
            // SAFETY: see above; the buffers are `words` long each.
            unsafe {
                self.live
                    .async_copy_from(&self.live_on_host, self.gpu.stream())
            }
            .context(|| "uploading the live sources".into())?;
        }
        Ok(())
    }

    /// Clears the figures of queue `index`.
    fn clear_figures(&mut self, index: usize) -> Result<()> {
        clear(
            self.gpu,
            &mut self.queues[index].figures,
            "a level's figures",
        )
    }
}
