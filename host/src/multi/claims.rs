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
//!
//! Where the ranks reach each other's memory ([`Reach::PeerMemory`]) and
//! no rank's frontier has more than [`IN_PLACE_EDGES`] edges, nothing is
//! sent: the ranks meet once their claims are written (on the GPU,
//! `distributed_meet_peers`, where each has a GPU of its own), and each
//! owner applies its claims where their senders wrote them, counts and
//! all; a region that overran shows in the level's figures, and the level
//! runs another round (`peers.rs`).
//!
//! [`Reach::PeerMemory`]: super::Reach::PeerMemory

use bfs_kernels::abi::distributed::{CLAIMS_PER_THREAD, Outbox, Owned};
use bfs_kernels::abi::{BLOCK_SIZE, distributed};
use cust::memory::{AsyncCopyDestination, DeviceBuffer, DevicePointer, LockedBuffer};
use cust::stream::Stream;

use super::clock::ExchangeClock;
use super::{Collectives, Transfer};

mod peers;

use crate::Result;
use crate::error::CudaContext;
use crate::gpu::{Entry, Gpu, blocks_for};
use peers::PeerClaims;

/// The most frontier edges of any rank for which a top-down level sends
/// its claims' room by the edges instead of reading back the ranks' claim
/// counts: at most 128 KB from each rank, against a round trip to the host
/// (docs/decisions.md, "Several GPUs").
pub const UNCOUNTED_SLOT_EDGES: u64 = 1 << 14;

/// The most frontier edges of any rank for which a top-down level's
/// owners read their claims where the senders wrote them, where they can:
/// past it, the loads across the links cost more than the collective's
/// copies (docs/decisions.md, "Several GPUs").
pub const IN_PLACE_EDGES: u64 = 1 << 20;

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
    apply: Entry<'g, distributed::Application>,
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
    /// Where the apply kernel finds each sender's claims for this rank and
    /// their count once exchanged: in `incoming` and `gathered_counts`.
    landed: ClaimSources,
    /// Where the ranks read each other's claims in place: where they lie,
    /// and the ranks' meeting.
    peers: Option<PeerClaims<'g>>,
}

/// An address a rank: where its claims for this rank lie, and their count.
struct ClaimSources {
    pairs: DeviceBuffer<u64>,
    counts: DeviceBuffer<u64>,
}

impl<'g> Claims<'g> {
    /// Device bytes of the buffers for `ranks` ranks, regions of
    /// `capacity` pairs.
    pub fn device_bytes(capacity: u32, ranks: u32) -> u64 {
        let others = ranks.saturating_sub(1).max(1) as u64;
        let capacity = capacity.max(1) as u64;
        let ranks = ranks as u64;
        // The regions, the counts and gathered counts, the ranks' ends; the
        // two tables of claims' sources, the meeting's words and table.
        2 * 4 * 2 * capacity * others
            + 8 * ranks * (1 + ranks)
            + 4 * ranks
            + (2 * 2 * 8 + 4 + 8) * ranks
    }

    /// The buffers of rank `rank`, of as many as `rank_ends` has (where
    /// each rank's vertices end), with regions of `capacity` pairs; the
    /// claims travel by the ranks' collectives until
    /// [`Self::read_from_peers`].
    pub fn new(gpu: &'g Gpu, rank: u32, capacity: u32, rank_ends: &[u32]) -> Result<Claims<'g>> {
        let ranks = rank_ends.len();
        let capacity = capacity.max(1);
        let region_words = 2 * capacity as usize * ranks.saturating_sub(1).max(1);
        let allocation = || "allocating the claims' regions".to_string();
        let incoming = DeviceBuffer::zeroed(region_words).context(allocation)?;
        let gathered_counts = DeviceBuffer::<u64>::zeroed(ranks * ranks).context(allocation)?;
        // What sender `s` claimed for this rank lands in its region of
        // `incoming`, its count at `s * ranks + rank` of the gathered counts.
        let rank = rank as usize;
        let landed: Vec<[u64; 2]> = (0..ranks)
            .map(|sender| {
                let counts = gathered_counts.as_device_ptr().as_raw();
                [
                    region_address(incoming.as_device_ptr().as_raw(), capacity, sender, rank),
                    counts + 8 * (sender * ranks + rank) as u64,
                ]
            })
            .collect();
        Ok(Claims {
            apply: gpu.entry(distributed::APPLY_CLAIMS)?,
            capacity,
            outgoing: DeviceBuffer::zeroed(region_words).context(allocation)?,
            incoming,
            counts: DeviceBuffer::zeroed(ranks).context(allocation)?,
            gathered_counts,
            counts_on_host: LockedBuffer::new(&0, ranks * ranks).context(allocation)?,
            rank_ends: DeviceBuffer::from_slice(rank_ends).context(allocation)?,
            landed: ClaimSources::new(&landed)?,
            peers: None,
        })
    }

    /// Pairs a region holds.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Whether the ranks read a level's claims where their senders wrote
    /// them, the ranks' frontiers having `frontier_edges`.
    pub fn read_in_place(&self, frontier_edges: &[u64]) -> bool {
        self.peers.is_some() && frontier_edges.iter().all(|&edges| edges <= IN_PLACE_EDGES)
    }

    /// The top-down kernels' outbox for rank `rank`: the regions, the
    /// counts, the capacity and the ranks' ends.
    pub fn outbox(&self, rank: u32) -> Outbox {
        Outbox {
            regions: self.outgoing.as_device_ptr().as_mut_ptr(),
            counts: self.counts.as_device_ptr().as_mut_ptr(),
            rank_ends: self.rank_ends.as_device_ptr().as_ptr(),
            capacity: self.capacity,
            rank,
        }
    }

    /// Exchanges a region's worth of words (or a million pairs, if
    /// fewer) with every other rank, and waits for it: the ranks' meeting
    /// point. At setup it makes NCCL connect the ranks pairwise, so that
    /// the first search's first exchange does not; before each search it
    /// holds every rank until all have come, and its traffic wakes the
    /// links between the GPUs, which NVLink puts into a low-power state
    /// after a while idle (docs/decisions.md, "Several GPUs").
    pub fn meet(&self, communicator: &dyn Collectives, stream: &Stream) -> Result<()> {
        let (rank, ranks) = (communicator.rank() as usize, communicator.ranks() as usize);
        let words = 2 * self.capacity.min(1 << 20) as u64;
        if ranks > 1 {
            let sends = self.transfers(&self.outgoing, (rank, ranks), |_| words);
            let receives = self.transfers(&self.incoming, (rank, ranks), |_| words);
            communicator.exchange(&sends, &receives, stream)?;
        }
        communicator.wait(stream)
    }

    /// A transfer with each rank but `rank` of `ranks`: its region in
    /// `buffer`, `words_for(peer)` words of it.
    fn transfers(
        &self,
        buffer: &DeviceBuffer<u32>,
        (rank, ranks): (usize, usize),
        words_for: impl Fn(usize) -> u64,
    ) -> Vec<Transfer> {
        let regions = buffer.as_device_ptr().as_raw();
        (0..ranks)
            .filter(|&peer| peer != rank)
            .map(|peer| Transfer {
                peer: peer as u32,
                words: DevicePointer::from_raw(region_address(regions, self.capacity, peer, rank)),
                count: words_for(peer) as usize,
            })
            .collect()
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
    /// is rank `r`'s frontier's edges, which bound its claims. Returns
    /// whether a rank's claims for some owner overran its region (then the
    /// level runs another round), and the pairs received from each rank
    /// (at most).
    pub fn exchange(
        &mut self,
        communicator: &dyn Collectives,
        stream: &Stream,
        frontier_edges: &[u64],
        clock: &mut ExchangeClock,
    ) -> Result<(bool, Vec<u64>)> {
        let (rank, ranks) = (communicator.rank() as usize, communicator.ranks() as usize);
        let capacity = self.capacity as u64;
        if ranks == 1 {
            // Every vertex is this rank's: no claim leaves it.
            return Ok((false, vec![0]));
        }
        let counts = words_of(self.counts.as_device_ptr());
        let gathered = words_of(self.gathered_counts.as_device_ptr());
        let uncounted = frontier_edges
            .iter()
            .all(|&edges| edges <= UNCOUNTED_SLOT_EDGES.min(capacity));
        let overflowed = if uncounted {
            false
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
            self.counts_on_host.iter().any(|&count| count > capacity)
        };
        // The pairs rank `s` sends rank `d`: where the frontiers' edges
        // bound the claims, that bound, else the count gathered.
        let all = &self.counts_on_host[..];
        let sent = |s: usize, d: usize| match (s == d, uncounted) {
            (true, _) => 0,
            (false, true) => frontier_edges[s].min(capacity),
            (false, false) => all[s * ranks + d].min(capacity),
        };
        let mut sends = self.transfers(&self.outgoing, (rank, ranks), |peer| 2 * sent(rank, peer));
        let mut receives =
            self.transfers(&self.incoming, (rank, ranks), |peer| 2 * sent(peer, rank));
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
        let per_sender: Vec<u64> = (0..ranks).map(|s| sent(s, rank)).collect();
        let received_bytes = 8 * per_sender.iter().sum::<u64>();
        clock.time(stream, received_bytes, || {
            communicator.exchange(&sends, &receives, stream)
        })?;
        Ok((overflowed, per_sender))
    }

    /// Queues the application of round `round`'s claims for this rank
    /// (`per_sender[s]` pairs at most from rank `s`), exchanged or, `in
    /// place`, where their senders wrote them, on the owned vertices'
    /// labels and next queue: `owned` is the rows, the range, the visited
    /// bitmap, the labels, the level and its figures, as
    /// `distributed_apply_claims` takes them.
    pub fn apply(
        &self,
        stream: &Stream,
        (rank, ranks): (u32, u32),
        (round, per_sender, in_place): (u32, &[u64], bool),
        owned: &OwnedLevel,
    ) -> Result<()> {
        let sources = match (&self.peers, in_place) {
            (Some(peers), true) => &peers.written,
            _ => &self.landed,
        };
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
        let parameters = (
            owned.owned,
            sources.pairs.as_device_ptr().as_ptr(),
            sources.counts.as_device_ptr().as_ptr(),
            self.capacity,
            rank,
            round,
            owned.status.as_mut_ptr(),
            owned.received_pairs.as_mut_ptr(),
            owned.level,
        );
        // SAFETY: the sources hold each rank's region of `capacity` pairs
        // for this rank, holding at least its count's (capped) pairs of
        // vertices this rank owns, and the count's address: received here,
        // or on the sender's GPU, which this GPU reaches, after the ranks'
        // meeting; the owned block is the rank's own buffers.
        unsafe { kernel.launch(stream, (grid, BLOCK_SIZE, 8), parameters) }
            .context(|| format!("applying top-down level {}'s claims", owned.level))
    }
}

/// The address of the region for rank `peer` in rank `holder`'s regions
/// at `regions` (one of `capacity` pairs for each rank but `holder`, in
/// rank order).
fn region_address(regions: u64, capacity: u32, peer: usize, holder: usize) -> u64 {
    let index = peer - (peer > holder) as usize;
    regions + 4 * 2 * index as u64 * capacity as u64
}

impl ClaimSources {
    /// The tables of `sources`: a region's address and its count's, a rank.
    fn new(sources: &[[u64; 2]]) -> Result<ClaimSources> {
        let context = || "placing the claims' sources".to_string();
        let table = |which: usize| {
            let addresses: Vec<u64> = sources.iter().map(|source| source[which]).collect();
            DeviceBuffer::from_slice(&addresses).context(context)
        };
        Ok(ClaimSources {
            pairs: table(0)?,
            counts: table(1)?,
        })
    }
}

/// What the claims' kernels read and write of a rank's own vertices in a
/// level: the owned vertices as the kernels take them, the level, and the
/// level's status and the claim pairs it read (its figures').
pub struct OwnedLevel {
    /// The owned vertices' rows, labels and next queue.
    pub owned: Owned,
    /// The frontier's level; the vertices claimed get `level + 1`.
    pub level: u32,
    /// The level's status (its figures' word).
    pub status: DevicePointer<u32>,
    /// The claim pairs the level read from the other ranks (its figures').
    pub received_pairs: DevicePointer<u64>,
}

/// A buffer of `u64`s as twice as many words, for the collectives, which
/// move words.
pub fn words_of(pointer: DevicePointer<u64>) -> DevicePointer<u32> {
    DevicePointer::from_raw(pointer.as_raw())
}
