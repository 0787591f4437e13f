//! Where a run's wall time goes, phase by phase, from the process's start:
//! the time a user waits for, which `--json` and `--trace` report beside
//! the searches' own.
//!
//! The phases follow the main thread, one after another, so they add up
//! to the process's wall time (but for the exit after the report is
//! written). Work on other threads shows only where the main thread waits
//! for it: the device opens while the graph loads, and what of that is
//! not hidden is [`Phase::GpuWait`].

use std::time::{Duration, Instant};

use serde::Serialize;

/// A step of a run, in the order a run takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// From the process's start (the loader and the libraries it maps;
    /// `libcuda` is loaded later, by the device's opening) to the options
    /// parsed.
    Start,
    /// Reading or generating the graph.
    Load,
    /// Waiting for the device: CUDA's initialisation, its context and the
    /// kernels' module, where they took longer than the load.
    GpuWait,
    /// `auto`'s statistics of the graph, and its choice.
    Plan,
    /// Many sources' order (BFS-grown patches of a batch each) or sample.
    Order,
    /// Loading or building what the strategy needs before it searches
    /// (a contraction hierarchy, ghost zones).
    Preparation,
    /// The graph and the variant's buffers onto the device.
    Upload,
    /// The searches, from their launch to their end on the device.
    Search,
    /// The searches' results copied back (and mapped to the graph's ids).
    Download,
    /// What many searches add up to turned into the measure's values.
    Reduce,
    /// `--verify`'s checks.
    Verify,
    /// The summary, the trace and the files written.
    Output,
    /// Releasing the device's buffers and context.
    Teardown,
}

impl Phase {
    /// Its name in `--trace`.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Start => "process start",
            Phase::Load => "graph load",
            Phase::GpuWait => "GPU wait",
            Phase::Plan => "plan",
            Phase::Order => "sources' order",
            Phase::Preparation => "preparation",
            Phase::Upload => "upload",
            Phase::Search => "search",
            Phase::Download => "download",
            Phase::Reduce => "reduce",
            Phase::Verify => "verify",
            Phase::Output => "output",
            Phase::Teardown => "teardown",
        }
    }
}

/// The phases as one line, `load 0.012 s, order 0.030 s, …` (each
/// phase's short name; a preparation is named `hierarchy`, the output
/// `write`), in the order they first ended.
pub fn one_line(times: &[PhaseTime]) -> String {
    let name = |phase: Phase| match phase {
        Phase::Start => "start",
        Phase::Load => "load",
        Phase::GpuWait => "gpu-wait",
        Phase::Plan => "plan",
        Phase::Order => "order",
        Phase::Preparation => "hierarchy",
        Phase::Upload => "upload",
        Phase::Search => "search",
        Phase::Download => "download",
        Phase::Reduce => "reduce",
        Phase::Verify => "verify",
        Phase::Output => "write",
        Phase::Teardown => "teardown",
    };
    let parts: Vec<String> = times
        .iter()
        .map(|time| format!("{} {:.3} s", name(time.phase), time.seconds))
        .collect();
    parts.join(", ")
}

/// A phase's time, as `--json` writes it.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PhaseTime {
    /// Which phase.
    pub phase: Phase,
    /// Seconds it took.
    pub seconds: f64,
}

/// The main thread's phases so far.
#[derive(Clone, Debug)]
pub struct Phases {
    last: Instant,
    times: Vec<(Phase, Duration)>,
}

impl Phases {
    /// The phases of this process, the first ([`Phase::Start`]) from its
    /// start to now.
    pub fn since_process_start() -> Phases {
        Phases {
            last: Instant::now(),
            times: vec![(Phase::Start, process_age().unwrap_or_default())],
        }
    }

    /// Ends `phase` now: the time since the last phase ended is its (added
    /// to what it had, when it comes back).
    pub fn end(&mut self, phase: Phase) {
        let now = Instant::now();
        self.add(phase, now - self.last);
        self.last = now;
    }

    /// Moves `time` of `from`'s to `to` (the downloads inside the searches).
    pub fn move_time(&mut self, from: Phase, to: Phase, time: Duration) {
        if let Some((_, held)) = self.times.iter_mut().find(|(phase, _)| *phase == from) {
            let moved = time.min(*held);
            *held -= moved;
            self.add(to, moved);
        }
    }

    fn add(&mut self, phase: Phase, time: Duration) {
        match self.times.iter_mut().find(|(known, _)| *known == phase) {
            Some((_, held)) => *held += time,
            None => self.times.push((phase, time)),
        }
    }

    /// Each phase's time, in the order they first ended.
    pub fn times(&self) -> Vec<PhaseTime> {
        self.times
            .iter()
            .map(|&(phase, time)| PhaseTime {
                phase,
                seconds: time.as_secs_f64(),
            })
            .collect()
    }

    /// The phases' sum: the process's wall time until the last one ended.
    pub fn wall(&self) -> Duration {
        self.times.iter().map(|&(_, time)| time).sum()
    }
}

/// How long ago this process started. The kernel records the start in
/// clock ticks (`/proc/self/stat`: a hundredth of a second on most
/// systems); while the
/// process has not slept, its time on a processor and waiting for one
/// (`/proc/self/schedstat`, in nanoseconds) is its age, and more precise.
/// `None` where the system tells neither.
pub fn process_age() -> Option<Duration> {
    let ticked = age_in_ticks();
    let scheduled = time_scheduled();
    match (ticked, scheduled) {
        // Within a tick of each other: the process has not slept.
        (Some(ticked), Some(scheduled)) if ticked <= scheduled + TICK => Some(scheduled),
        (ticked, scheduled) => ticked.or(scheduled),
    }
}

/// The clock tick of most systems, the resolution of `/proc/self/stat`.
const TICK: Duration = Duration::from_millis(10);

/// This process's time on a processor and waiting for one, its threads'
/// summed (one thread, before any other starts).
fn time_scheduled() -> Option<Duration> {
    let schedstat = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let mut fields = schedstat.split_whitespace();
    let running: u64 = fields.next()?.parse().ok()?;
    let waiting: u64 = fields.next()?.parse().ok()?;
    // Some sandboxes' kernels keep no such account and report zeros.
    (running > 0).then(|| Duration::from_nanos(running + waiting))
}

/// The kernel's record of this process's start (in clock ticks) against
/// the boot-time clock it counts from.
fn age_in_ticks() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name, in parentheses, may hold spaces: count from its end.
    let fields = &stat[stat.rfind(')')? + 1..];
    // After the name: field 3 (state) first, so field 22 (start time) is the 20th.
    let start_ticks: u64 = fields.split_whitespace().nth(19)?.parse().ok()?;
    // SAFETY: sysconf reads a system constant.
    let ticks_per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes one timespec that lives on this stack frame.
    if ticks_per_second <= 0 || unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut now) } != 0
    {
        return None;
    }
    let now = Duration::new(now.tv_sec as u64, now.tv_nsec as u32);
    let started = Duration::from_secs_f64(start_ticks as f64 / ticks_per_second as f64);
    Some(now.saturating_sub(started))
}
