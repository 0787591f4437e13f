//! A rank's top-down level: its frontier expanded, its claims of the other
//! ranks' vertices exchanged and applied by their owners ([`claims`]).
//!
//! [`claims`]: crate::multi::claims

use bfs_kernels::abi::BLOCK_SIZE;
use bfs_kernels::abi::direction_optimizing;
use bfs_kernels::abi::distributed::{
    Owned, STATS_EDGES_WORD, STATS_RECEIVED_WORD, STATS_STATUS_WORD,
};
use bfs_kernels::abi::hub_chunks;
use cust::memory::DevicePointer;

use super::{Figures, Rank};
use crate::Result;
use crate::error::CudaContext;
use crate::gpu::blocks_for;
use crate::multi::claims::OwnedLevel;

impl Rank<'_> {
    /// One top-down level from the owned frontier (`frontier`: every
    /// rank's figures of it); returns the next frontier's.
    pub(super) fn top_down_step(&mut self, level: u32, frontier: &Figures) -> Result<Figures> {
        let rank = self.rank() as usize;
        let owned_size = frontier.vertices[rank] as u32;
        self.frontier_to_queue(owned_size)?;
        let stream = self.gpu.stream();
        let context = || format!("top-down level {level} on rank {rank}");
        // SAFETY: a memset on the stream, before the kernels that count.
        unsafe { self.stats.set_zero_async(stream) }.context(context)?;
        let queue = self.queues[0].as_device_ptr();
        // The light vertices and the hubs' chunks: the whole queue where
        // its edges fill no chunk.
        let (light, chunks) = if owned_size == 0 {
            ((queue, 0), (queue, 0))
        } else if frontier.edges[rank] < hub_chunks::CHUNK_EDGES as u64 {
            ((queue, owned_size), (queue, 0))
        } else {
            let rows = self.rows.as_device_ptr();
            // Delegates are left out: every rank walks its piece of their
            // lists below.
            let delegated_degree = self.delegates.choice().degree as u64;
            // SAFETY: the queue holds `owned_size` owned vertices, whose
            // rows start at the first owned vertex's.
            unsafe {
                self.hubs.split(
                    self.gpu,
                    (queue, owned_size),
                    rows,
                    (self.owned.start, delegated_degree),
                )
            }?;
            self.communicator.wait(stream)?;
            let [light, chunks] = self.hubs.split_queues();
            (light, chunks)
        };
        let ranks = self.communicator.ranks();
        let in_place = self.claims.read_in_place(&frontier.edges);
        let mut round = 0;
        let figures = loop {
            self.claims.clear(stream)?;
            let owned = self.owned_labels(level);
            // Their labels are this rank's own: one round takes them all.
            if round == 0 && frontier.delegates.iter().any(|&bits| bits != 0) {
                self.delegates
                    .expand(self.gpu, &frontier.delegates, &owned)?;
            }
            self.expand(level, light, chunks)?;
            let overflowed = if in_place {
                // Each rank reads its claims where their senders wrote them,
                // at most as many as a sender's frontier has edges; the
                // figures tell whether a region overran.
                let capacity = self.claims.capacity() as u64;
                let bounds: Vec<u64> = frontier.edges.iter().map(|&e| e.min(capacity)).collect();
                let communicator = &*self.communicator;
                self.claims.meet_before_reading(
                    communicator,
                    stream,
                    &owned,
                    &mut self.exchange,
                )?;
                self.claims
                    .apply(stream, (rank as u32, ranks), (round, &bounds, true), &owned)?;
                false
            } else {
                let (overflowed, per_sender) = self.claims.exchange(
                    &*self.communicator,
                    stream,
                    &frontier.edges,
                    &mut self.exchange,
                )?;
                let round = (round, &per_sender[..], false);
                self.claims
                    .apply(stream, (rank as u32, ranks), round, &owned)?;
                overflowed
            };
            if !overflowed {
                let figures = self.figures(level + 1)?;
                if !figures.overflowed(round) {
                    break figures;
                }
            }
            self.exchange.another_round();
            round += 1;
        };
        if in_place {
            self.exchange.received(8 * figures.received_pairs[rank]);
        }
        self.queues.swap(0, 1);
        self.frontier_in_queue = true;
        Ok(figures)
    }

    /// Queues the top-down kernels over the light vertices and the hubs'
    /// chunks of the owned frontier.
    fn expand(
        &self,
        level: u32,
        (light, light_size): (DevicePointer<u32>, u32),
        (chunks, chunk_count): (DevicePointer<u32>, u32),
    ) -> Result<()> {
        let stream = self.gpu.stream();
        let context = || format!("expanding top-down level {level}");
        let owned = self.owned_labels(level).owned;
        let outbox = self.claims.outbox(self.rank());
        let columns = self.columns.as_device_ptr().as_ptr();
        let launches = [
            (
                &self.kernels.top_down,
                (light, light_size),
                (blocks_for(light_size, BLOCK_SIZE), BLOCK_SIZE),
                direction_optimizing::TOP_DOWN_SHARED_BYTES,
            ),
            (
                &self.kernels.expand_hub_chunks,
                (chunks, chunk_count),
                (chunk_count, hub_chunks::CHUNK_EDGES),
                8,
            ),
        ];
        for (kernel, (items, count), (grid, block), shared) in launches {
            if count == 0 {
                continue;
            }
            let parameters = (owned, outbox, columns, items.as_ptr(), count, level);
            // SAFETY: `items` holds `count` owned frontier vertices (or
            // chunk pairs of owned hubs, from the split); the owned block
            // and the outbox are this rank's buffers, the columns its rows':
            // the kernels' contract.
            unsafe { kernel.launch(stream, (grid, block, shared), parameters) }.context(context)?;
        }
        Ok(())
    }

    /// The owned vertices' buffers as the claims' kernels take them, for
    /// a level whose frontier is `level`.
    pub(super) fn owned_labels(&self, level: u32) -> OwnedLevel {
        let stats = self.stats.as_device_ptr();
        // SAFETY: the figures' words lie within them.
        let [edges, status, received] = [STATS_EDGES_WORD, STATS_STATUS_WORD, STATS_RECEIVED_WORD]
            .map(|word| unsafe { stats.add(word) });
        let owned = Owned {
            row_offsets: self.rows.as_device_ptr().as_ptr(),
            visited: self.visited.as_device_ptr().as_mut_ptr(),
            levels: self.levels.as_device_ptr().as_mut_ptr(),
            parents: self.parents.as_device_ptr().as_mut_ptr(),
            next_queue: self.queues[1].as_device_ptr().as_mut_ptr(),
            next_size: stats.as_mut_ptr(),
            next_edges: edges.as_mut_ptr().cast(),
            first_vertex: self.owned.start,
            end_vertex: self.owned.end,
        };
        OwnedLevel {
            owned,
            level,
            status,
            received_pairs: DevicePointer::from_raw(received.as_raw()),
        }
    }
}
