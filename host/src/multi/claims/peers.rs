//! Claims read where their senders wrote them, for ranks that reach each
//! other's memory: where each sender's region and count for this rank
//! lie, and the ranks' meeting before they read (on the GPU,
//! `distributed_meet_peers`, where each rank has a GPU of its own; on the
//! host where ranks share one).

use std::time::Duration;

use bfs_kernels::abi::distributed;
use cust::memory::DeviceBuffer;
use cust::stream::Stream;

use super::{ClaimSources, Claims, OwnedLevel, region_address};
use crate::Result;
use crate::error::CudaContext;
use crate::gpu::{Entry, Gpu, address};
use crate::multi::clock::ExchangeClock;
use crate::multi::{Collectives, all_gather_words};

/// The claims read where their senders wrote them: each sender's region
/// for this rank and count, and how the ranks meet before they read.
pub(super) struct PeerClaims<'g> {
    pub(super) written: ClaimSources,
    /// On the GPU where each rank has one of its own; ranks sharing a GPU
    /// meet on the host, as a GPU that waits for another rank's kernel
    /// on the same GPU may never run it (streams share the GPU's queues).
    on_gpu: Option<GpuMeeting<'g>>,
}

/// What the ranks' meeting on the GPU takes (`distributed_meet_peers`).
struct GpuMeeting<'g> {
    meet: Entry<'g, distributed::MeetPeers>,
    /// The other ranks' arrivals at this rank, a word a rank, and every
    /// rank's such words.
    signals: DeviceBuffer<u32>,
    peer_signals: DeviceBuffer<u64>,
    /// Rounds met so far: the value each rank stores for the next.
    sequence: u32,
    timeout: Duration,
}

impl<'g> Claims<'g> {
    /// From now on, reads each sender's claims where it wrote them, once
    /// the ranks have met, in levels of few edges: every rank calls it,
    /// together, where the ranks reach each other's memory.
    pub fn read_from_peers(&mut self, communicator: &dyn Collectives, gpu: &'g Gpu) -> Result<()> {
        let rank = communicator.rank() as usize;
        let context = || "placing the other ranks' claims".to_string();
        let signals =
            DeviceBuffer::<u32>::zeroed(communicator.ranks() as usize).context(context)?;
        let own = [
            self.outgoing.as_device_ptr().as_raw(),
            self.counts.as_device_ptr().as_raw(),
            signals.as_device_ptr().as_raw(),
        ];
        let every_rank = all_gather_words(communicator, gpu, own)?;
        // Sender `s` wrote its claims for this rank in its own outgoing
        // region for this rank, their count at `rank` of its counts.
        let written: Vec<[u64; 2]> = every_rank
            .iter()
            .enumerate()
            .map(|(sender, &[outgoing, counts, _])| {
                [
                    region_address(outgoing, self.capacity, rank, sender),
                    counts + 8 * rank as u64,
                ]
            })
            .collect();
        let peer_signals: Vec<u64> = every_rank.iter().map(|words| words[2]).collect();
        let on_gpu = match communicator.has_own_gpu() {
            true => Some(GpuMeeting {
                meet: gpu.entry(distributed::MEET_PEERS)?,
                signals,
                peer_signals: DeviceBuffer::from_slice(&peer_signals).context(context)?,
                sequence: 0,
                timeout: communicator.timeout(),
            }),
            false => None,
        };
        self.peers = Some(PeerClaims {
            written: ClaimSources::new(&written)?,
            on_gpu,
        });
        Ok(())
    }

    /// Meets the other ranks once this round's claims are written (the
    /// kernels queued before), before each reads its claims where their
    /// senders wrote them: on the GPU, queued, where each rank has a GPU
    /// of its own, else on the host, once the stream is done. Timed as the
    /// round's exchange. A rank that never comes to the meeting on the GPU
    /// sets the level's status (`owned.status`) to `MEETING_FAILED` after
    /// the ranks' timeout.
    pub fn meet_before_reading(
        &mut self,
        communicator: &dyn Collectives,
        stream: &Stream,
        owned: &OwnedLevel,
        clock: &mut ExchangeClock,
    ) -> Result<()> {
        let (rank, ranks) = (communicator.rank(), communicator.ranks());
        let Some(PeerClaims {
            on_gpu: Some(meeting),
            ..
        }) = &mut self.peers
        else {
            communicator.wait(stream)?;
            let arrived = std::time::Instant::now();
            communicator.meet_on_host(&[])?;
            clock.met_on_host(arrived.elapsed());
            return Ok(());
        };
        meeting.sequence = meeting.sequence.wrapping_add(1);
        let kernel = &meeting.meet;
        let timeout_ns = meeting.timeout.as_nanos().min(u64::MAX as u128) as u64;
        clock.time(stream, 0, || {
            // SAFETY: a word a rank in `signals`, every rank's signals'
            // address in the table, which this GPU reaches (peer access),
            // and the level's status word: `distributed_meet_peers`'
            // contract (`ranks` at most 32, as peer access allows 8).
            unsafe {
                kernel.launch(
                    stream,
                    (1, 32, 0),
                    (
                        address(&meeting.signals),
                        address(&meeting.peer_signals).cast_const(),
                        rank,
                        ranks,
                        meeting.sequence,
                        timeout_ns,
                        owned.status.as_mut_ptr(),
                    ),
                )
            }
            .context(|| format!("meeting the other ranks in level {}", owned.level))
        })
    }
}
