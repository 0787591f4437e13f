//! A rank's bottom-up level: the frontier's words all-gathered, the owned
//! unvisited vertices checked against them; and the frontier's way back
//! into the owned queue for a top-down level.

use bfs_kernels::abi::BLOCK_SIZE;
use bfs_kernels::abi::distributed::STATS_EDGES_WORD;
use cust::launch;
use cust::memory::AsyncCopyDestination;

use super::{Figures, Rank};
use crate::Result;
use crate::error::CudaContext;
use crate::gpu::blocks_for;

impl Rank<'_> {
    /// One bottom-up level over the owned unvisited vertices, once the
    /// frontier is whole on every rank; returns the next frontier's
    /// figures.
    pub(super) fn bottom_up_step(&mut self, level: u32, frontier: &Figures) -> Result<Figures> {
        let rank = self.rank() as usize;
        let stream = self.gpu.stream();
        let context = || format!("bottom-up level {level} on rank {rank}");
        if self.frontier_in_queue {
            let owned_size = frontier.vertices[rank] as u32;
            let kernel = &self.kernels.queue_to_bitmap;
            // SAFETY: a memset, then the owned queue's `owned_size`
            // vertices' bits set in the bitmap over every vertex:
            // `direction_optimizing_queue_to_bitmap`'s contract.
            unsafe {
                self.frontier.set_zero_async(stream).context(context)?;
                launch!(kernel<<<blocks_for(owned_size, BLOCK_SIZE), BLOCK_SIZE, 0, stream>>>(
                    self.queues[0].as_device_ptr(),
                    owned_size,
                    self.frontier.as_device_ptr()
                ))
                .context(context)?;
            }
        }
        self.all_gather_frontier()?;
        // SAFETY: memsets on the stream, before the kernel that writes them.
        unsafe {
            self.next.set_zero_async(stream).context(context)?;
            self.stats.set_zero_async(stream).context(context)?;
        }
        if !self.owned.is_empty() {
            let first_word = self.words_of(&self.owned).start as usize;
            let count = self.owned.len() as u32;
            let stats = self.stats.as_device_ptr();
            let rows = match &self.narrow_rows {
                Some(narrow) => narrow.as_device_ptr().as_raw(),
                None => self.rows.as_device_ptr().as_raw(),
            };
            let kernel = &self.kernels.bottom_up;
            // SAFETY: the kernel's vertex 0 is the first owned vertex, a
            // multiple of 32, so the bitmaps are passed from its word on,
            // and the rows (of the width the kernel reads), columns and
            // labels are the owned vertices'; neighbours index the whole
            // frontier bitmap; the figures hold the found count and edges:
            // `distributed_bottom_up`'s contract.
            unsafe {
                launch!(kernel<<<blocks_for(count, BLOCK_SIZE), BLOCK_SIZE, 16, stream>>>(
                    rows,
                    self.columns.as_device_ptr(),
                    self.frontier.as_device_ptr(),
                    self.next.as_device_ptr().add(first_word),
                    self.visited.as_device_ptr().add(first_word),
                    self.levels.as_device_ptr(),
                    self.parents.as_device_ptr(),
                    level,
                    count,
                    stats,
                    stats.add(STATS_EDGES_WORD)
                ))
                .context(context)?;
            }
        }
        std::mem::swap(&mut self.frontier, &mut self.next);
        self.frontier_in_queue = false;
        self.figures()
    }

    /// Where the frontier is the owned words of the bitmap, converts them
    /// into the owned queue (`owned_size` vertices, the last level's count).
    pub(super) fn frontier_to_queue(&mut self, owned_size: u32) -> Result<()> {
        if self.frontier_in_queue || owned_size == 0 {
            self.frontier_in_queue = true;
            return Ok(());
        }
        let stream = self.gpu.stream();
        let context = || "converting the owned frontier to a queue".to_string();
        let words = self.words_of(&self.owned);
        let kernel = &self.kernels.bitmap_to_queue;
        // SAFETY: a memset of the figures (the size's counter), then the
        // owned words, within the bitmap, whose set bits are the owned
        // frontier vertices, which the queue has room for:
        // `direction_optimizing_bitmap_to_queue`'s contract.
        unsafe {
            self.stats.set_zero_async(stream).context(context)?;
            launch!(kernel<<<blocks_for(words.len() as u32, BLOCK_SIZE), BLOCK_SIZE, 0, stream>>>(
                self.frontier.as_device_ptr(),
                words.start,
                words.len() as u32,
                self.queues[0].as_device_ptr(),
                self.stats.as_device_ptr()
            ))
            .context(context)?;
        }
        self.frontier_in_queue = true;
        Ok(())
    }

    /// Brings every rank's words of the frontier to every rank: one
    /// all-gather of `padded_words` from each (NCCL's all-gather, not one
    /// broadcast a rank, which was slower on four GPUs: docs/decisions.md),
    /// then each other rank's words copied from where they landed to their
    /// place in the bitmap.
    fn all_gather_frontier(&mut self) -> Result<()> {
        let rank = self.rank() as usize;
        let stream = self.gpu.stream();
        let padded = self.padded_words;
        let bitmap_bytes = 4 * (self.vertex_count as u64).div_ceil(32);
        let own = self.words_of(&self.owned).start as usize;
        // SAFETY: the bitmap runs `padded` words past its last vertex's.
        let own_words = unsafe { self.frontier.as_device_ptr().add(own) };
        let gathered = self.gathered_frontier.as_device_ptr();
        let communicator = &*self.communicator;
        self.exchange.time(stream, bitmap_bytes, || {
            communicator.all_gather(own_words, gathered, padded, stream)
        })?;
        for (peer, range) in self.ranges.iter().enumerate() {
            let words = self.words_of(range);
            if peer == rank || words.is_empty() {
                continue;
            }
            let (start, count) = (words.start as usize, words.len());
            let landed = self
                .gathered_frontier
                .index(peer * padded..peer * padded + count);
            // SAFETY: a copy on the stream after the all-gather that wrote
            // `landed`, before the kernel that reads the bitmap; both
            // ranges hold `count` words.
            unsafe {
                self.frontier
                    .index(start..start + count)
                    .async_copy_from(&landed, stream)
            }
            .context(|| format!("placing rank {peer}'s frontier words"))?;
        }
        Ok(())
    }
}
