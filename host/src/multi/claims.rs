//! A top-down level's claims between ranks, owner computes (the buffers
//! and the exchange of `distributed`'s kernels): each rank appends the
//! vertices it claims for another rank to that rank's region, the ranks
//! all-gather their counts, exchange the regions pairwise, and each owner
//! applies what it received.
//!
//! A region holds [`region_capacity`] pairs, a thirty-second of the
//! graph's vertices, not every vertex: a level that claims more for one
//! owner runs again from the same frontier (the claims past the capacity
//! gave their bits back), as many rounds as it needs.
//!
//! Where every rank's frontier has at most [`UNCOUNTED_SLOT_EDGES`] edges
//! (and a region holds that many), those edges bound each rank's claims,
//! and the ranks send that many pairs' room, each region followed by its
//! count, without an all-gather of the counts or reading them back: one
//! collective a level fewer and no round trip to the host. Otherwise the
//! host reads the counts and sends exactly the claims.

use bfs_kernels::abi::distributed::CLAIMS_PER_THREAD;
use bfs_kernels::abi::{BLOCK_SIZE, distributed};
use cust::function::Function;
use cust::launch;
use cust::memory::{AsyncCopyDestination, DeviceBuffer, DevicePointer, LockedBuffer};
use cust::stream::Stream;

use super::clock::ExchangeClock;
use super::{Collectives, Transfer};
use crate::Result;
use crate::error::CudaContext;
use crate::gpu::{Gpu, blocks_for};

/// The most frontier edges of any rank for which a top-down level sends
/// its claims' room by the edges instead of reading back the ranks' claim
/// counts: at most 128 KB from each rank, against a round trip to the host
/// (docs/decisions.md, "Several GPUs").
pub const UNCOUNTED_SLOT_EDGES: u64 = 1 << 14;

/// Pairs a claim region holds, for a graph of `vertex_count` vertices: a
/// thirty-second of them (at least [`UNCOUNTED_SLOT_EDGES`] times four),
/// so that a rank's regions, sent and received, cost half a byte a vertex
/// for each other rank, where replicated claims cost 16 bytes.
pub fn region_capacity(vertex_count: u32) -> u32 {
    (vertex_count / 32)
        .max(4 * UNCOUNTED_SLOT_EDGES as u32)
        .min(vertex_count)
        .max(1)
}

/// A rank's claim buffers.
pub struct Claims<'g> {
    apply: Function<'g>,
    capacity: u32,
    /// The regions this rank sends from and receives into, one for each
    /// other rank, in rank order.
    outgoing: DeviceBuffer<u32>,
    incoming: DeviceBuffer<u32>,
    /// This rank's claim count for each rank (`u64`s), and every rank's,
    /// all-gathered (rank `s`'s for rank `d` at `s * ranks + d`), and
    /// their copy in page-locked host memory.
    counts: DeviceBuffer<u64>,
    gathered_counts: DeviceBuffer<u64>,
    counts_on_host: LockedBuffer<u64>,
    /// Where each rank's vertices end, for the kernels' owner lookup.
    rank_ends: DeviceBuffer<u32>,
}

/// What the exchange of one round found: whether any rank's claims
/// overran a region (then the level runs another round).
pub struct Round {
    pub overflowed: bool,
}

impl<'g> Claims<'g> {
    /// Device bytes of the buffers for `ranks` ranks, regions of
    /// `capacity` pairs.
    pub fn device_bytes(capacity: u32, ranks: u32) -> u64 {
        let others = ranks.saturating_sub(1).max(1) as u64;
        let capacity = capacity.max(1) as u64;
        2 * 4 * 2 * capacity * others + 8 * ranks as u64 * (1 + ranks as u64) + 4 * ranks as u64
    }

    /// The buffers of a rank of `ranks`, whose vertices end at
    /// `rank_ends`, with regions of `capacity` pairs.
    pub fn new(gpu: &'g Gpu, capacity: u32, rank_ends: &[u32]) -> Result<Claims<'g>> {
        let ranks = rank_ends.len();
        let capacity = capacity.max(1);
        let region_words = 2 * capacity as usize * ranks.saturating_sub(1).max(1);
        let allocation = || "allocating the claims' regions".to_string();
        Ok(Claims {
            apply: gpu.kernel(distributed::APPLY_CLAIMS)?,
            capacity,
            outgoing: DeviceBuffer::zeroed(region_words).context(allocation)?,
            incoming: DeviceBuffer::zeroed(region_words).context(allocation)?,
            counts: DeviceBuffer::zeroed(ranks).context(allocation)?,
            gathered_counts: DeviceBuffer::zeroed(ranks * ranks).context(allocation)?,
            counts_on_host: LockedBuffer::new(&0, ranks * ranks).context(allocation)?,
            rank_ends: DeviceBuffer::from_slice(rank_ends).context(allocation)?,
        })
    }

    /// The top-down kernels' outbox: the regions, the counts, the
    /// capacity and the ranks' ends.
    pub fn outbox(
        &self,
    ) -> (
        DevicePointer<u32>,
        DevicePointer<u64>,
        u32,
        DevicePointer<u32>,
    ) {
        (
            self.outgoing.as_device_ptr(),
            self.counts.as_device_ptr(),
            self.capacity,
            self.rank_ends.as_device_ptr(),
        )
    }

    /// Exchanges a region's worth of words (or a million pairs, if
    /// fewer) with every other rank, and waits for it: the ranks' meeting
    /// point. At setup it makes NCCL connect the ranks pairwise, so that
    /// the first search's first exchange does not; before each search it
    /// holds every rank until all have come, and its traffic wakes the
    /// links between the GPUs, which NVLink puts into a low-power state
    /// after a while idle (docs/decisions.md, "Several GPUs").
    pub fn meet(&self, communicator: &dyn Collectives, stream: &Stream) -> Result<()> {
        let (rank, ranks) = (communicator.rank(), communicator.ranks());
        let words = 2 * self.capacity.min(1 << 20) as usize;
        let transfers = |buffer: &DeviceBuffer<u32>| {
            (0..ranks)
                .filter(|&peer| peer != rank)
                .map(|peer| Transfer {
                    peer,
                    words: self.region(buffer, rank as usize, peer as usize),
                    count: words,
                })
                .collect::<Vec<_>>()
        };
        if ranks > 1 {
            let (sends, receives) = (transfers(&self.outgoing), transfers(&self.incoming));
            communicator.exchange(&sends, &receives, stream)?;
        }
        communicator.wait(stream)
    }

    /// Rank `rank`'s region in `buffer` for rank `peer`.
    fn region(&self, buffer: &DeviceBuffer<u32>, rank: usize, peer: usize) -> DevicePointer<u32> {
        let index = peer - (peer > rank) as usize;
        // SAFETY: a region of `capacity` pairs for each other rank.
        unsafe {
            buffer
                .as_device_ptr()
                .add(2 * index * self.capacity as usize)
        }
    }

    /// Clears this rank's counts before a round's kernels.
    pub fn clear(&mut self, stream: &Stream) -> Result<()> {
        // SAFETY: a memset on the stream, before the kernels that count.
        unsafe { self.counts.set_zero_async(stream) }.context(|| "clearing the claim counts".into())
    }

    /// Exchanges a round's claims (the top-down kernels queued on the
    /// stream before): sends each region to its rank and receives each
    /// rank's, the counts all-gathered before (or, where the frontiers'
    /// edges bound them, each sent after its region); `frontier_edges[r]`
    /// is rank `r`'s frontier's edges, which bound its claims. Returns the
    /// round, and the pairs received from each rank (at most).
    pub fn exchange(
        &mut self,
        communicator: &dyn Collectives,
        stream: &Stream,
        frontier_edges: &[u64],
        clock: &mut ExchangeClock,
    ) -> Result<(Round, Vec<u64>)> {
        let (rank, ranks) = (communicator.rank() as usize, communicator.ranks() as usize);
        let capacity = self.capacity as u64;
        if ranks == 1 {
            // Every vertex is this rank's: no claim leaves it.
            return Ok((Round { overflowed: false }, vec![0]));
        }
        let counts = words_of(self.counts.as_device_ptr());
        let gathered = words_of(self.gathered_counts.as_device_ptr());
        let uncounted = frontier_edges
            .iter()
            .all(|&edges| edges <= UNCOUNTED_SLOT_EDGES.min(capacity));
        // `sent[s][d]`: the pairs rank `s` sends rank `d`.
        let (sent, overflowed) = if uncounted {
            let bound = |s: usize, d: usize| {
                if s == d {
                    0
                } else {
                    frontier_edges[s].min(capacity)
                }
            };
            let sent = (0..ranks)
                .map(|s| (0..ranks).map(|d| bound(s, d)).collect())
                .collect();
            (sent, false)
        } else {
            clock.time(stream, 0, || {
                communicator.all_gather(counts, gathered, 2 * ranks, stream)
            })?;
            // SAFETY: a copy on the stream after the all-gather; the
            // page-locked counts are read once the stream has passed it.
            unsafe {
                self.gathered_counts
                    .async_copy_to(&mut self.counts_on_host, stream)
                    .context(|| "reading the claim counts".into())?;
            }
            communicator.wait(stream)?;
            let all = &self.counts_on_host[..];
            let overflowed = all.iter().any(|&count| count > capacity);
            let sent: Vec<Vec<u64>> = all
                .chunks(ranks)
                .enumerate()
                .map(|(s, row)| {
                    row.iter()
                        .enumerate()
                        .map(|(d, &count)| if s == d { 0 } else { count.min(capacity) })
                        .collect()
                })
                .collect();
            (sent, overflowed)
        };
        let region = |buffer: &DeviceBuffer<u32>, peer: usize| self.region(buffer, rank, peer);
        let transfers = |buffer: &DeviceBuffer<u32>, count_of: &dyn Fn(usize) -> u64| {
            (0..ranks)
                .filter(|&peer| peer != rank)
                .map(|peer| Transfer {
                    peer: peer as u32,
                    words: region(buffer, peer),
                    count: 2 * count_of(peer) as usize,
                })
                .collect::<Vec<_>>()
        };
        let mut sends = transfers(&self.outgoing, &|peer| sent[rank][peer]);
        let mut receives = transfers(&self.incoming, &|peer| sent[peer][rank]);
        if uncounted {
            // No all-gather told the owners how many pairs are claims: each
            // count travels after its region, to where the all-gather
            // would have put it.
            for peer in (0..ranks).filter(|&peer| peer != rank) {
                let count_of = |pointer: DevicePointer<u32>, index: usize| Transfer {
                    peer: peer as u32,
                    // SAFETY: a count (two words) for each rank, and one
                    // for each pair of ranks gathered.
                    words: unsafe { pointer.add(2 * index) },
                    count: 2,
                };
                sends.push(count_of(counts, peer));
                receives.push(count_of(gathered, peer * ranks + rank));
            }
        }
        let per_sender: Vec<u64> = (0..ranks).map(|s| sent[s][rank]).collect();
        let received_bytes = 8 * per_sender.iter().sum::<u64>();
        clock.time(stream, received_bytes, || {
            communicator.exchange(&sends, &receives, stream)
        })?;
        Ok((Round { overflowed }, per_sender))
    }

    /// Queues the application of the claims received (`per_sender[s]`
    /// pairs at most from rank `s`) on the owned vertices' labels and next
    /// queue: `owned` is the rows, the range, the visited bitmap, the
    /// labels, the level and the next queue, its size and edges, as
    /// `distributed_apply_claims` takes them.
    pub fn apply(
        &self,
        stream: &Stream,
        (rank, ranks): (u32, u32),
        per_sender: &[u64],
        owned: &Owned,
    ) -> Result<()> {
        let most = per_sender.iter().copied().max().unwrap_or(0);
        if most == 0 {
            return Ok(());
        }
        let kernel = &self.apply;
        let grid = (
            blocks_for(most as u32, BLOCK_SIZE * CLAIMS_PER_THREAD),
            ranks,
            1,
        );
        // SAFETY: a region of `capacity` pairs for each other rank, holding
        // at least its count's (capped) pairs of vertices this rank owns,
        // as the exchange received them; the counts gathered are every
        // rank's; the rest is `Owned`'s contract.
        unsafe {
            launch!(kernel<<<grid, BLOCK_SIZE, 8, stream>>>(
                self.incoming.as_device_ptr(),
                self.capacity,
                self.gathered_counts.as_device_ptr(),
                rank,
                ranks,
                owned.row_offsets,
                owned.first_vertex,
                owned.end_vertex,
                owned.visited,
                owned.levels,
                owned.parents,
                owned.level,
                owned.next_queue,
                owned.next_size,
                owned.next_edges
            ))
        }
        .context(|| format!("applying top-down level {}'s claims", owned.level))
    }
}

/// What the claims' kernels read and write of a rank's own vertices.
pub struct Owned {
    pub row_offsets: DevicePointer<u64>,
    pub first_vertex: u32,
    pub end_vertex: u32,
    pub visited: DevicePointer<u32>,
    pub levels: DevicePointer<u32>,
    pub parents: DevicePointer<u32>,
    pub level: u32,
    pub next_queue: DevicePointer<u32>,
    pub next_size: DevicePointer<u32>,
    pub next_edges: DevicePointer<u64>,
}

/// A buffer of `u64`s as twice as many words, for the collectives, which
/// move words.
pub fn words_of(pointer: DevicePointer<u64>) -> DevicePointer<u32> {
    DevicePointer::from_raw(pointer.as_raw())
}
