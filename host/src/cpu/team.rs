//! A fork-join team of threads that stays awake between the levels of a
//! search, as an OpenMP team does between its parallel regions.
//!
//! A search forks one job per large level and joins it before the next, so
//! the cost that matters is the fork's latency, not its throughput. Rayon's
//! workers go to sleep as soon as they run out of work and take longer to
//! wake than a level of a road network takes; these workers instead spin
//! on the fork counter for [`SPIN_BEFORE_SLEEP`] after each job, so that
//! the next level's fork is a store and a cache miss, and only then park,
//! each on its own, so that a wake-up is no convoy on one lock (the OpenMP
//! runtimes' `GOMP_SPINCOUNT` / `KMP_BLOCKTIME` do the same).
//! The spin is short because what runs between searches (`--sources`'
//! checks and counts, the bench's) runs on rayon's pool, and a team that
//! spins through it holds the cores rayon's threads need (see
//! docs/decisions.md, "CPU engine").

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long an idle worker spins before it sleeps: long enough to outlast
/// the gap between two parallel levels of a search that no sequential
/// level separates, short enough that an idle team leaves its cores to
/// rayon's pool between searches (see docs/decisions.md, "CPU engine").
pub const SPIN_BEFORE_SLEEP: Duration = Duration::from_micros(50);

/// A job for every member of the team, given the member's index (0 is the
/// thread that forked it).
type Job<'a> = dyn Fn(usize) + Sync + 'a;

/// The threads of a team, parked between jobs.
pub struct Team {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

/// What the forking thread and the workers share.
struct Shared {
    /// The current fork's job: a `&Job` on the forking thread's stack,
    /// valid while `unfinished` is above zero.
    job: AtomicPtr<()>,
    /// The current fork: forks so far, shifted left by [`MEMBER_BITS`], and
    /// the members that run it, in one word, so that a worker reads both at
    /// once; [`DISBANDED`] once the team is dropped. Only the forking
    /// thread writes it.
    forks: AtomicU64,
    /// Workers that have not yet finished the current job.
    unfinished: AtomicUsize,
    /// Workers parked, or about to be.
    sleeping: AtomicUsize,
    /// More members than hardware threads: waiting ones yield their core
    /// instead of spinning on it, since the one they wait for may need it.
    oversubscribed: bool,
    /// A worker's panic, raised again on the forking thread.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// The value of [`Shared::forks`] that tells the workers to exit.
const DISBANDED: u64 = u64::MAX;

/// Bits of [`Shared::forks`] that count the members of a fork.
const MEMBER_BITS: u32 = 16;
const MEMBERS_MASK: u64 = (1 << MEMBER_BITS) - 1;

/// Most members a team can have.
pub const MAX_MEMBERS: usize = MEMBERS_MASK as usize - 1;

impl Team {
    /// A team of `threads` members (at least one, at most [`MAX_MEMBERS`]):
    /// the calling thread and `threads - 1` workers.
    pub fn new(threads: usize) -> std::io::Result<Team> {
        let shared = Arc::new(Shared {
            job: AtomicPtr::new(std::ptr::null_mut()),
            forks: AtomicU64::new(0),
            unfinished: AtomicUsize::new(0),
            sleeping: AtomicUsize::new(0),
            oversubscribed: threads > super::hardware_threads(),
            panic: Mutex::new(None),
        });
        let workers = (1..threads.clamp(1, MAX_MEMBERS))
            .map(|member| {
                let shared = Arc::clone(&shared);
                thread::Builder::new()
                    .name(format!("bfs-team-{member}"))
                    .spawn(move || shared.serve(member))
            })
            .collect::<std::io::Result<_>>()?;
        Ok(Team { shared, workers })
    }

    /// Members of the team, the calling thread included.
    pub fn size(&self) -> usize {
        self.workers.len() + 1
    }

    /// Runs `job(member)` on every member at once and returns when all have
    /// finished: a fork and a join. A panic in any member is raised here.
    pub fn fork_join(&self, job: &Job<'_>) {
        self.fork_join_first(self.size(), job);
    }

    /// [`fork_join`](Team::fork_join) on the first `members` members only
    /// (at least the calling thread): the others stay where they wait, and
    /// the join waits for no more than the work needs.
    pub fn fork_join_first(&self, members: usize, job: &Job<'_>) {
        let members = members.clamp(1, self.size());
        if members == 1 {
            return job(0);
        }
        let shared = &*self.shared;
        let job_on_stack: &Job<'_> = job;
        shared.job.store(
            (&raw const job_on_stack).cast_mut().cast(),
            Ordering::Relaxed,
        );
        shared.unfinished.store(members - 1, Ordering::Relaxed);
        // Dekker's handshake with `Shared::next_fork`: the fork is published
        // before the sleepers are counted, and a worker counts itself before
        // it checks for a fork, so one of the two sees the other (and an
        // unpark before its park makes the park return at once).
        let previous = shared.forks.load(Ordering::Relaxed);
        let fork = ((previous >> MEMBER_BITS) + 1) << MEMBER_BITS | members as u64;
        shared.forks.store(fork, Ordering::SeqCst);
        if shared.sleeping.load(Ordering::SeqCst) > 0 {
            self.wake_all();
        }
        // The join below runs even when `job` panics here, so no worker
        // still reads `job_on_stack` when this frame unwinds.
        let own = panic::catch_unwind(AssertUnwindSafe(|| job(0)));
        while shared.unfinished.load(Ordering::Acquire) > 0 {
            if shared.oversubscribed {
                thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        if let Err(payload) = own {
            panic::resume_unwind(payload);
        }
        if let Some(payload) = shared
            .panic
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            panic::resume_unwind(payload);
        }
    }

    /// Unparks every worker (a worker not parked keeps the token, and its
    /// next park returns at once).
    fn wake_all(&self) {
        for worker in &self.workers {
            worker.thread().unpark();
        }
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        self.shared.forks.store(DISBANDED, Ordering::SeqCst);
        self.wake_all();
        for worker in self.workers.drain(..) {
            // A worker's panic was raised by the fork it happened in.
            let _ = worker.join();
        }
    }
}

impl Shared {
    /// A worker's life: wait for a fork, run its job, count itself done.
    fn serve(&self, member: usize) {
        let mut seen = 0;
        loop {
            let forks = self.next_fork(seen);
            if forks == DISBANDED {
                return;
            }
            seen = forks;
            if member as u64 >= forks & MEMBERS_MASK {
                continue;
            }
            let job = self.job.load(Ordering::Relaxed).cast::<&Job<'_>>();
            // SAFETY: the fork stored `job` before it counted itself (and
            // this load comes after the acquire that saw the count), and
            // the forking thread keeps it alive until `unfinished`, which
            // this worker decrements only after the call, reaches zero.
            let job = unsafe { *job };
            if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| job(member))) {
                *self.panic.lock().unwrap_or_else(PoisonError::into_inner) = Some(payload);
            }
            self.unfinished.fetch_sub(1, Ordering::Release);
        }
    }

    /// Waits until the fork count differs from `seen` (spinning, then
    /// parked) and returns it.
    fn next_fork(&self, seen: u64) -> u64 {
        let spin = if self.oversubscribed {
            Duration::ZERO
        } else {
            SPIN_BEFORE_SLEEP
        };
        let spin_until = Instant::now() + spin;
        loop {
            for _ in 0..64 {
                let forks = self.forks.load(Ordering::Acquire);
                if forks != seen {
                    return forks;
                }
                std::hint::spin_loop();
            }
            if Instant::now() >= spin_until {
                break;
            }
        }
        self.sleeping.fetch_add(1, Ordering::SeqCst);
        let forks = loop {
            let forks = self.forks.load(Ordering::SeqCst);
            if forks != seen {
                break forks;
            }
            thread::park();
        };
        self.sleeping.fetch_sub(1, Ordering::SeqCst);
        forks
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    use std::time::Duration;

    use super::{SPIN_BEFORE_SLEEP, Team};

    #[test]
    fn each_fork_runs_each_of_its_members_once_and_no_other() {
        let team = Team::new(4).expect("threads start");
        for round in 0..3000 {
            // Now and then the workers outwait their spin and park.
            if round % 1000 == 999 {
                std::thread::sleep(SPIN_BEFORE_SLEEP + Duration::from_millis(5));
            }
            let members = 1 + round % 4;
            let runs: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
            team.fork_join_first(members, &|member| {
                runs[member].fetch_add(1, Relaxed);
            });
            for (member, count) in runs.iter().enumerate() {
                assert_eq!(
                    count.load(Relaxed),
                    usize::from(member < members),
                    "round {round}, member {member} of {members}"
                );
            }
        }
    }

    #[test]
    fn a_panicking_member_panics_the_fork_and_the_team_goes_on() {
        let team = Team::new(3).expect("threads start");
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            team.fork_join(&|member| assert_ne!(member, 2, "member 2 fails"));
        }));
        assert!(outcome.is_err());
        let runs = AtomicUsize::new(0);
        team.fork_join(&|_| {
            runs.fetch_add(1, Relaxed);
        });
        assert_eq!(runs.into_inner(), 3);
    }
}
