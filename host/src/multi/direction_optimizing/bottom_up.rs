//! A rank's bottom-up level: the frontier's words all-gathered or read
//! from the other GPUs (or, fresh from a top-down level and sparse, the
//! ranks' queues exchanged), the owned unvisited vertices checked against
//! them; and the frontier's way back into the owned queue for a top-down
//! level.

use bfs_kernels::abi::BLOCK_SIZE;
use bfs_kernels::abi::distributed::{
    PEER_QUADS_PER_THREAD, PEER_WORDS_PER_THREAD, STATS_EDGES_WORD,
};
use cust::memory::{AsyncCopyDestination, DevicePointer};

use super::{Figures, Rank};
use crate::Result;
use crate::error::CudaContext;
use crate::gpu::{address, blocks_for, with_row_offsets};
use crate::multi::Transfer;

impl Rank<'_> {
    /// One bottom-up level over the owned unvisited vertices, once the
    /// frontier is whole on every rank; returns the next frontier's
    /// figures.
    pub(super) fn bottom_up_step(&mut self, level: u32, frontier: &Figures) -> Result<Figures> {
        let rank = self.rank() as usize;
        let stream = self.gpu.stream();
        let context = || format!("bottom-up level {level} on rank {rank}");
        if !self.frontier_in_queue {
            match self.peer_frontiers.is_some() {
                true => self.read_peer_frontiers()?,
                false => self.all_gather_frontier()?,
            }
        } else if frontier.vertices() < self.bitmap_words() {
            match self.peer_frontiers.is_some() {
                true => self.read_peer_queues(frontier)?,
                false => self.exchange_frontier_queues(frontier)?,
            }
        } else {
            // Gathered, not read from the other GPUs: their bits were set in
            // this level, after the last meeting, and a collective is what
            // waits for them.
            let owned = self.owned_queue(frontier);
            // SAFETY: a memset on the stream before the kernel that sets
            // the owned queue's bits.
            unsafe { self.frontier.set_zero_async(stream) }.context(context)?;
            self.set_frontier_bits(owned)?;
            self.all_gather_frontier()?;
        }
        // SAFETY: memsets on the stream, before the kernel that writes them.
        // The kernel writes the owned words of `next`; the others are
        // another rank's, which the next bottom-up level overwrites before
        // it reads them.
        unsafe {
            let owned = self.words_of(&self.owned);
            if !owned.is_empty() {
                self.next
                    .index(owned.start as usize..owned.end as usize)
                    .set_zero_async(stream)
                    .context(context)?;
            }
            self.stats.set_zero_async(stream).context(context)?;
        }
        if !self.owned.is_empty() {
            let first_word = self.words_of(&self.owned).start as usize;
            let count = self.owned.len() as u32;
            let shape = (blocks_for(count, BLOCK_SIZE), BLOCK_SIZE, 16);
            let columns = address(&self.columns).cast_const();
            let frontier = address(&self.frontier).cast_const();
            let (next, visited) = (
                address(&self.next).wrapping_add(first_word),
                address(&self.visited).wrapping_add(first_word),
            );
            let (levels, parents) = (address(&self.levels), address(&self.parents));
            // The figures: the found count in word 0, their edges (a `u64`)
            // from word `STATS_EDGES_WORD`.
            let found = address(&self.stats);
            let found_edges = found.wrapping_add(STATS_EDGES_WORD).cast::<u64>();
            // SAFETY: the kernel's vertex 0 is the first owned vertex, a
            // multiple of 32, so the bitmaps are passed from its word on,
            // and the rows (of the width the kernel reads), columns and
            // labels are the owned vertices'; neighbours index the whole
            // frontier bitmap; the figures hold the found count and edges:
            // `distributed_bottom_up`'s contract.
            unsafe {
                let wide = address(&self.rows).cast_const();
                with_row_offsets!(&self.kernels.bottom_up, wide, |kernel, rows| kernel.launch(
                    stream,
                    shape,
                    (
                        rows,
                        columns,
                        frontier,
                        next,
                        visited,
                        levels,
                        parents,
                        level,
                        count,
                        found,
                        found_edges,
                    ),
                ))
                .context(context)?;
            }
        }
        std::mem::swap(&mut self.frontier, &mut self.next);
        self.frontier_in_queue = false;
        self.figures(level + 1)
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
            kernel
                .launch(
                    stream,
                    (blocks_for(words.len() as u32, BLOCK_SIZE), BLOCK_SIZE, 0),
                    (
                        address(&self.frontier).cast_const(),
                        words.start,
                        words.len() as u32,
                        address(&self.queues[0]),
                        address(&self.stats),
                    ),
                )
                .context(context)?;
        }
        self.frontier_in_queue = true;
        Ok(())
    }

    /// The words of the bitmap over every vertex.
    fn bitmap_words(&self) -> u64 {
        (self.vertex_count as u64).div_ceil(32)
    }

    /// The owned frontier's queue and its size, fresh from a top-down
    /// level (`frontier`: every rank's figures of it).
    fn owned_queue(&self, frontier: &Figures) -> (DevicePointer<u32>, u32) {
        let size = frontier.vertices[self.rank() as usize] as u32;
        (self.queues[0].as_device_ptr(), size)
    }

    /// Sets the bits of a queue's vertices (a pointer and a size) in the
    /// frontier bitmap over every vertex.
    fn set_frontier_bits(&self, (queue, size): (DevicePointer<u32>, u32)) -> Result<()> {
        if size == 0 {
            return Ok(());
        }
        let stream = self.gpu.stream();
        let kernel = &self.kernels.queue_to_bitmap;
        // SAFETY: the queue holds `size` vertex ids of the graph, and the
        // bitmap covers every vertex: `direction_optimizing_queue_to_bitmap`'s
        // contract.
        unsafe {
            kernel.launch(
                stream,
                (blocks_for(size, BLOCK_SIZE), BLOCK_SIZE, 0),
                (queue.as_ptr(), size, address(&self.frontier)),
            )
        }
        .context(|| "setting the frontier's bits".into())
    }

    /// Where the frontier, fresh from a top-down level, holds fewer
    /// vertices than the bitmap has words, every rank sends its owned
    /// queue to every other instead of the bitmap's words (4 bytes a
    /// frontier vertex against an eighth of a byte a vertex of the
    /// graph), and each sets the bits of what it holds and received. The
    /// queues land one after the other in the all-gather's landing place,
    /// which holds at least a word a 32 vertices, so more than them.
    fn exchange_frontier_queues(&mut self, frontier: &Figures) -> Result<()> {
        let rank = self.rank() as usize;
        let stream = self.gpu.stream();
        let own = self.owned_queue(frontier);
        let mut sends = Vec::new();
        let mut receives = Vec::new();
        let mut landed = 0usize;
        for (peer, &count) in frontier.vertices.iter().enumerate() {
            if peer == rank {
                continue;
            }
            let count = count as usize;
            sends.push(Transfer {
                peer: peer as u32,
                words: own.0,
                count: own.1 as usize,
            });
            receives.push(Transfer {
                peer: peer as u32,
                // SAFETY: the landing place holds every other rank's
                // queue: fewer vertices than the bitmap's words, which it
                // holds (`padded_words` for each rank).
                words: unsafe { self.gathered_frontier.as_device_ptr().add(landed) },
                count,
            });
            landed += count;
        }
        // SAFETY: a memset on the stream before the kernels that set bits.
        unsafe { self.frontier.set_zero_async(stream) }
            .context(|| "clearing the frontier bitmap".into())?;
        self.set_frontier_bits(own)?;
        let communicator = &*self.communicator;
        self.exchange.time(stream, 4 * landed as u64, || {
            communicator.exchange(&sends, &receives, stream)
        })?;
        self.set_frontier_bits((self.gathered_frontier.as_device_ptr(), landed as u32))
    }

    /// Brings the other ranks' words of the frontier to this rank, read
    /// from their bitmaps (`distributed_read_peer_frontiers`): the ranks
    /// met after writing them, in the last level's figures.
    fn read_peer_frontiers(&mut self) -> Result<()> {
        let rank = self.rank();
        let stream = self.gpu.stream();
        let Some(peers) = &self.peer_frontiers else {
            return Ok(());
        };
        let (frontier, visited) = (self.frontier.as_device_ptr(), self.visited.as_device_ptr());
        let bitmaps = &peers.bitmaps[(frontier.as_raw() != peers.first_frontier) as usize];
        let grid = (
            blocks_for(peers.most_quads, BLOCK_SIZE * PEER_QUADS_PER_THREAD),
            self.ranges.len() as u32,
            1,
        );
        let kernel = &self.kernels.read_peer_frontiers;
        let bitmap_bytes = 4 * self.bitmap_words();
        self.exchange.time(stream, bitmap_bytes, || {
            // SAFETY: every rank's bitmap of the role `frontier` has here,
            // which this GPU reaches (peer access, or one shared context),
            // whole allocations, so 16-byte aligned as `frontier` and
            // `visited` are, and each rank's word bounds within them; the
            // other ranks wrote them before the last figures' meeting and
            // write them next after this level's:
            // `distributed_read_peer_frontiers`' contract.
            unsafe {
                kernel.launch(
                    stream,
                    (grid, BLOCK_SIZE, 0),
                    (
                        frontier.as_mut_ptr(),
                        visited.as_mut_ptr(),
                        address(bitmaps).cast_const(),
                        address(&peers.rank_words).cast_const(),
                        rank,
                    ),
                )
            }
            .context(|| format!("reading the other ranks' frontier words on rank {rank}"))
        })
    }

    /// Where the frontier, fresh from a top-down level, holds fewer
    /// vertices than the bitmap has words, and the ranks reach each
    /// other's memory, sets the bits of every rank's queue, the others'
    /// read where they lie (`distributed_read_peer_queues`): the ranks met
    /// after writing them, in the last level's figures.
    fn read_peer_queues(&mut self, frontier: &Figures) -> Result<()> {
        let rank = self.rank() as usize;
        let stream = self.gpu.stream();
        let context = || format!("reading the other ranks' frontier queues on rank {rank}");
        let Some(peers) = &mut self.peer_frontiers else {
            return Ok(());
        };
        let current = self.queues[0].as_device_ptr().as_raw();
        let queues = &peers.queues[(current != peers.first_queue) as usize];
        for (size, &vertices) in peers.queue_sizes_on_host.iter_mut().zip(&frontier.vertices) {
            *size = vertices as u32;
        }
        let most = frontier.vertices.iter().copied().max().unwrap_or(0) as u32;
        let others: u64 = frontier.vertices.iter().sum::<u64>() - frontier.vertices[rank];
        // SAFETY: a memset and a copy from page-locked memory on the stream
        // before the kernel that reads them; the host writes the sizes
        // again only in a later level, after waiting for this one.
        unsafe {
            self.frontier.set_zero_async(stream).context(context)?;
            peers
                .queue_sizes
                .async_copy_from(&peers.queue_sizes_on_host, stream)
                .context(context)?;
        }
        if most == 0 {
            return Ok(());
        }
        let grid = (
            blocks_for(most, BLOCK_SIZE * PEER_WORDS_PER_THREAD),
            self.ranges.len() as u32,
            1,
        );
        let kernel = &self.kernels.read_peer_queues;
        let frontier_bitmap = address(&self.frontier);
        let sizes = address(&peers.queue_sizes).cast_const();
        self.exchange.time(stream, 4 * others, || {
            // SAFETY: every rank's queue of the role `queues[0]` has here,
            // which this GPU reaches, holding as many vertex ids as the
            // sizes say; the other ranks wrote them before the last
            // figures' meeting and write them next after this level's; both
            // bitmaps cover every vertex: `distributed_read_peer_queues`'
            // contract.
            unsafe {
                kernel.launch(
                    stream,
                    (grid, BLOCK_SIZE, 0),
                    (
                        frontier_bitmap,
                        address(&self.visited),
                        address(queues).cast_const(),
                        sizes,
                        rank as u32,
                    ),
                )
            }
            .context(context)
        })
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
        let bitmap_bytes = 4 * self.bitmap_words();
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
