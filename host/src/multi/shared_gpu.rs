//! Ranks that share one GPU and exchange by copies in its memory: the
//! search over several GPUs, run where a host has one, so that its logic
//! over 2, 3 or 5 ranks (the partition, the offsets of each exchange, the
//! ranks that own no vertex) is tested on any GPU. NCCL cannot do this: it
//! takes one rank a GPU.
//!
//! The ranks are threads of one process on the device's primary context,
//! so each rank's device pointers are valid on every other. A collective
//! waits for its rank's stream, meets the other ranks (each posts its
//! buffer's address), copies what it receives from theirs, and meets them
//! again before any rank goes on to overwrite its buffer. The copies are
//! synchronous: correct, and no measure of anything. The same meeting
//! passes a level's figures between ranks that are threads of one process
//! on GPUs of their own (`Member::words_from_every_rank`), beside NCCL.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use cust::memory::DevicePointer;
use cust::stream::Stream;

use super::{Collectives, Transfer};
use crate::error::{CudaContext, driver_result};
use crate::{Error, Result};

/// The ranks' meeting place.
pub struct Group {
    ranks: u32,
    /// How long a rank waits for the others at a meeting.
    timeout: Duration,
    meeting: Mutex<Meeting>,
    everyone_arrived: Condvar,
    /// `Meeting::completed`, read without the lock by ranks that spin.
    completed: AtomicU64,
    /// How long a rank spins for the others before it sleeps: [`SPIN`]
    /// where every rank can have a core, else not at all.
    spin: Duration,
    /// The first rank whose thread stopped on an error of its own
    /// ([`NO_RANK`] while none has).
    stopped: AtomicU32,
}

/// [`Group::stopped`] while every rank is running.
const NO_RANK: u32 = u32::MAX;

/// How long a rank spins, watching for the last rank's arrival, before it
/// sleeps on the condition variable: through a level's usual meeting, so
/// that the ranks leave it together rather than one woken after another.
const SPIN: Duration = Duration::from_millis(2);

/// A barrier that passes on an address from each rank.
struct Meeting {
    arrived: u32,
    /// Meetings completed; a rank waits for this to pass its own.
    completed: u64,
    /// The words posted for the meeting under way, by rank.
    posted: Vec<Vec<u64>>,
    /// Those of the last completed meeting, which every rank of it reads
    /// before the next can complete.
    last: Vec<Vec<u64>>,
}

impl Group {
    /// A group of `ranks`, each waiting at most `timeout` for the others.
    pub fn new(ranks: u32, timeout: Duration) -> Arc<Group> {
        Arc::new(Group {
            ranks,
            timeout,
            meeting: Mutex::new(Meeting {
                arrived: 0,
                completed: 0,
                posted: vec![Vec::new(); ranks as usize],
                last: Vec::new(),
            }),
            everyone_arrived: Condvar::new(),
            completed: AtomicU64::new(0),
            spin: match std::thread::available_parallelism() {
                Ok(cores) if cores.get() > ranks as usize => SPIN,
                _ => Duration::ZERO,
            },
            stopped: AtomicU32::new(NO_RANK),
        })
    }

    /// Tells the other ranks that `rank`'s thread stopped on an error of
    /// its own: each leaves the meeting it waits at, or its next, at once,
    /// rather than after the timeout; the first rank told is the one
    /// [`Group::stopped`] names.
    pub fn stop(&self, rank: u32) {
        let _ = self
            .stopped
            .compare_exchange(NO_RANK, rank, Ordering::AcqRel, Ordering::Acquire);
        // Under the lock, so that no rank goes to sleep after the notice.
        let _meeting = self.meeting.lock();
        self.everyone_arrived.notify_all();
    }

    /// The first rank whose thread stopped on an error of its own, if one
    /// has.
    pub fn stopped(&self) -> Option<u32> {
        match self.stopped.load(Ordering::Acquire) {
            NO_RANK => None,
            rank => Some(rank),
        }
    }

    /// The ranks of the group.
    pub fn ranks(&self) -> u32 {
        self.ranks
    }

    /// Rank `rank`'s side of the group.
    pub fn member(self: &Arc<Group>, rank: u32) -> Member {
        Member {
            group: Arc::clone(self),
            rank,
        }
    }
}

/// One rank of a [`Group`].
pub struct Member {
    group: Arc<Group>,
    rank: u32,
}

impl Member {
    /// Where another rank's thread has stopped on an error, this rank's
    /// reason to stop too.
    pub fn other_rank_stopped(&self) -> Option<Error> {
        self.group.stopped().map(|stopped| {
            Error::OtherRank(format!(
                "rank {}: gave up, since rank {stopped} of {} stopped",
                self.rank, self.group.ranks
            ))
        })
    }

    /// Passes this rank's `words` to every other rank and returns every
    /// rank's, in rank order, once all have come: the meeting of ranks
    /// that are threads of one process, on any GPUs.
    pub fn words_from_every_rank(&self, words: &[u32]) -> Result<Vec<u32>> {
        let everyone = self.meet(words.iter().map(|&word| word as u64).collect())?;
        Ok(everyone.iter().flatten().map(|&word| word as u32).collect())
    }

    /// Passes this rank's `pair` to every other rank and returns every
    /// rank's, in rank order, once all have come.
    pub fn pairs_from_every_rank(&self, pair: [u64; 2]) -> Result<Vec<[u64; 2]>> {
        let everyone = self.meet(pair.to_vec())?;
        Ok(everyone
            .iter()
            .map(|posted| [posted[0], posted[1]])
            .collect())
    }

    /// Waits until every rank has posted its words (this rank `posted`:
    /// addresses, counts), and returns them by rank.
    fn meet(&self, posted: Vec<u64>) -> Result<Vec<Vec<u64>>> {
        let group = &*self.group;
        let panicked = || Error::OtherRank("another rank's thread panicked".into());
        if let Some(stop) = self.other_rank_stopped() {
            return Err(stop);
        }
        let mut meeting = group.meeting.lock().map_err(|_| panicked())?;
        meeting.posted[self.rank as usize] = posted;
        meeting.arrived += 1;
        if meeting.arrived == group.ranks {
            meeting.arrived = 0;
            meeting.completed += 1;
            meeting.last = meeting.posted.clone();
            group.completed.store(meeting.completed, Ordering::Release);
            group.everyone_arrived.notify_all();
            return Ok(meeting.last.clone());
        }
        let this_meeting = meeting.completed;
        drop(meeting);
        let arrived = Instant::now();
        while group.completed.load(Ordering::Acquire) == this_meeting
            && group.stopped().is_none()
            && arrived.elapsed() < group.spin
        {
            std::hint::spin_loop();
        }
        // The words of the meeting stay until this rank comes to the next.
        let mut meeting = group.meeting.lock().map_err(|_| panicked())?;
        let deadline = arrived + group.timeout;
        while meeting.completed == this_meeting {
            if let Some(stop) = self.other_rank_stopped() {
                return Err(stop);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::OtherRank(format!(
                    "rank {}: not every one of the {} ranks came to their meeting within {} s",
                    self.rank,
                    group.ranks,
                    group.timeout.as_secs_f64()
                )));
            }
            meeting = group
                .everyone_arrived
                .wait_timeout(meeting, left)
                .map_err(|_| panicked())?
                .0;
        }
        Ok(meeting.last.clone())
    }
}

/// Copies `bytes` from `from` to `to`, device addresses of one context.
fn copy(to: u64, from: u64, bytes: u64, what: &str) -> Result<()> {
    if bytes == 0 || to == from {
        return Ok(());
    }
    // SAFETY: both ranges lie in live buffers of the shared context, posted
    // by ranks that wait at the next meeting until every copy is done.
    let result = unsafe { cust::sys::cuMemcpy(to, from, bytes as usize) };
    driver_result(result, || {
        format!("copying {what} between ranks sharing the GPU")
    })
}

/// Waits for the work queued on `stream` before a collective.
fn finish(stream: &Stream) -> Result<()> {
    stream
        .synchronize()
        .context(|| "waiting for a rank's stream".into())
}

impl Collectives for Member {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn ranks(&self) -> u32 {
        self.group.ranks
    }

    fn transport(&self) -> &'static str {
        "ranks sharing one GPU"
    }

    fn all_gather(
        &self,
        send: DevicePointer<u32>,
        receive: DevicePointer<u32>,
        count: usize,
        stream: &Stream,
    ) -> Result<()> {
        finish(stream)?;
        let sends = self.meet(vec![send.as_raw()])?;
        let bytes = 4 * count as u64;
        for (rank, from) in sends.iter().map(|posted| posted[0]).enumerate() {
            copy(receive.as_raw() + rank as u64 * bytes, from, bytes, "words")?;
        }
        // No rank overwrites what it sent before every rank has copied it.
        self.meet(Vec::new()).map(drop)
    }

    fn exchange(&self, sends: &[Transfer], receives: &[Transfer], stream: &Stream) -> Result<()> {
        finish(stream)?;
        // Each rank posts its sends as (peer, address, count) triples.
        let posted = sends
            .iter()
            .flat_map(|send| [send.peer as u64, send.words.as_raw(), send.count as u64])
            .collect();
        let everyone = self.meet(posted)?;
        // The k-th receive from a peer takes the peer's k-th send to this rank.
        let mut taken = vec![0usize; everyone.len()];
        for receive in receives {
            let peer = receive.peer as usize;
            let sent = everyone[peer]
                .chunks(3)
                .filter(|send| send[0] == self.rank as u64)
                .nth(taken[peer])
                .ok_or_else(|| {
                    Error::MultiGpu(format!(
                        "rank {}: rank {} sent nothing to receive",
                        self.rank, receive.peer
                    ))
                })?;
            taken[peer] += 1;
            if sent[2] != receive.count as u64 {
                return Err(Error::MultiGpu(format!(
                    "rank {}: rank {} sent {} words, {} were expected",
                    self.rank, receive.peer, sent[2], receive.count
                )));
            }
            copy(receive.words.as_raw(), sent[1], 4 * sent[2], "claims")?;
        }
        self.meet(Vec::new()).map(drop)
    }

    fn wait(&self, stream: &Stream) -> Result<()> {
        finish(stream)
    }

    fn timeout(&self) -> Duration {
        self.group.timeout
    }

    fn has_own_gpu(&self) -> bool {
        false
    }

    fn meets_on_host(&self) -> bool {
        true
    }

    fn meet_on_host(&self, words: &[u32]) -> Result<Vec<u32>> {
        self.words_from_every_rank(words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rank_that_stops_frees_the_others_from_their_meeting_at_once() {
        let group = Group::new(3, Duration::from_secs(600));
        let waiting = group.member(0);
        let started = Instant::now();
        let meeting = std::thread::spawn(move || waiting.words_from_every_rank(&[7]));
        std::thread::sleep(Duration::from_millis(50));
        group.stop(2);
        let left = meeting.join().expect("the rank's thread does not panic");
        assert!(started.elapsed() < Duration::from_secs(10));
        let error = left.expect_err("rank 2 never comes");
        assert!(matches!(error, Error::OtherRank(_)), "{error}");
        assert!(error.to_string().contains("rank 2 of 3 stopped"), "{error}");
        // A rank that comes to a meeting later leaves it at once too, and
        // the first rank that stopped stays the one named.
        group.stop(1);
        assert_eq!(group.stopped(), Some(2));
        assert!(matches!(
            group.member(1).words_from_every_rank(&[]),
            Err(Error::OtherRank(_))
        ));
    }

    #[test]
    fn a_meeting_every_rank_came_to_is_not_undone_by_a_later_stop() {
        let group = Group::new(2, Duration::from_secs(600));
        let other = group.member(1);
        let meeting = std::thread::spawn(move || other.words_from_every_rank(&[2]));
        let words = group.member(0).words_from_every_rank(&[1]);
        group.stop(1);
        assert_eq!(words.expect("both came"), vec![1, 2]);
        assert_eq!(
            meeting.join().expect("no panic").expect("both came"),
            vec![1, 2]
        );
    }
}
