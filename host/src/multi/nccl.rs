//! NCCL, loaded at run time (`libnccl.so.2`), so the project builds and
//! runs on one GPU without it: the few functions the multi-GPU search
//! calls, declared from `nccl.h` (NCCL 2.x) and loaded in `library.rs`,
//! each wrapped once in a safe method that turns its status into
//! [`Error::MultiGpu`].
//!
//! Every process that opens NCCL here sets `NCCL_NVLS_ENABLE=0` first:
//! NVLink SHARP (multicast) stays off, as the machines this runs on
//! require. It also sets `NCCL_RUNTIME_CONNECT=0` unless the user chose:
//! the ranks connect while joining, not in the first search's first
//! collective of each kind, where connecting would count as search time
//! (docs/decisions.md, "Several GPUs").
//!
//! No call here waits for another rank without a bound. Joining, and every
//! wait for a stream that holds a collective, give up after the ranks'
//! timeout; NCCL's own teardown (`ncclCommAbort`, `ncclCommDestroy`) can
//! wait for a rank that is gone (NCCL frees what the ranks of a host share
//! only once each has let go), so it runs on a thread of its own, which the
//! rank leaves behind after [`LET_GO_WAIT`].

use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use cust::memory::DevicePointer;
use cust::stream::Stream;

mod library;

pub use library::LIBRARY_VARIABLE;
use library::{IN_PROGRESS, Library, RawComm, SUCCESS, Status, UINT32, check, library};

use super::shared_gpu::Member;
use super::{Collectives, Transfer};
use crate::error::driver_result;
use crate::{Error, Result};

/// `ncclUniqueId`: the bytes rank 0 makes and every rank passes to
/// [`Communicator::join`].
#[repr(C)]
#[derive(Clone, Copy)]
pub struct UniqueId(pub [u8; UNIQUE_ID_BYTES]);

/// `NCCL_UNIQUE_ID_BYTES`.
pub const UNIQUE_ID_BYTES: usize = 128;

/// How often a joining rank looks whether another rank of this process
/// stopped, while NCCL joins them.
const JOIN_POLL: Duration = Duration::from_millis(10);

/// How long a rank waits for NCCL to abort or destroy its communicator
/// before it leaves the call running on its thread: long enough for a
/// teardown that waits for nothing, short against the ranks' timeout.
pub const LET_GO_WAIT: Duration = Duration::from_secs(2);

/// A new unique id (rank 0 makes it; the others receive it).
pub fn unique_id() -> Result<UniqueId> {
    let library = library()?;
    let mut id = UniqueId([0; UNIQUE_ID_BYTES]);
    // SAFETY: writes one ncclUniqueId.
    let status = unsafe { (library.get_unique_id)(&mut id) };
    check(library, status, "ncclGetUniqueId")?;
    Ok(id)
}

/// One rank's NCCL communicator, on the CUDA context current on the
/// thread that joined.
pub struct Communicator {
    raw: RawComm,
    library: &'static Library,
    rank: u32,
    ranks: u32,
    /// How long [`Collectives::wait`] waits for a stream that holds a
    /// collective before it gives the other ranks up.
    timeout: Duration,
    /// Whether the communicator was aborted (then it is freed already).
    aborted: Cell<bool>,
    /// Where the ranks are threads of this process, their meeting on the
    /// host.
    meeting: Option<Member>,
}

/// A raw handle (a CUDA context, a communicator) handed to or from the
/// thread that joins, or that tears the communicator down.
struct Handle(*mut c_void);

// SAFETY: the handles are only passed between threads, each used by one
// thread at a time, as CUDA and NCCL allow.
unsafe impl Send for Handle {}

impl Communicator {
    /// Joins communicator `id` as `rank` of `ranks`, on the CUDA context
    /// current on this thread, once every rank has joined; an error after
    /// `timeout` if they have not, or at once where `meeting` (the ranks'
    /// meeting on the host, where they are threads of this process) tells
    /// that another rank stopped (the join, which NCCL does not bound,
    /// waits on a thread of its own, left behind then).
    pub fn join(
        id: UniqueId,
        (rank, ranks): (u32, u32),
        timeout: Duration,
        meeting: Option<Member>,
    ) -> Result<Communicator> {
        let library = library()?;
        let mut context: cust::sys::CUcontext = std::ptr::null_mut();
        // SAFETY: writes one context handle (null when none is current).
        unsafe { cust::sys::cuCtxGetCurrent(&mut context) };
        let context = Handle(context.cast());
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let context = context;
            let mut raw: RawComm = std::ptr::null_mut();
            // SAFETY: makes the joining thread's context current here (the
            // context outlives the join: its owner waits for this result or
            // gives up on it), then writes one communicator handle; the id
            // is passed by value.
            let status = unsafe {
                cust::sys::cuCtxSetCurrent(context.0.cast());
                (library.comm_init_rank)(&mut raw, ranks as c_int, id, rank as c_int)
            };
            // The receiver may have given up; then the handle is abandoned.
            let _ = sender.send((status, Handle(raw)));
        });
        let started = Instant::now();
        let (status, raw) = loop {
            match receiver.recv_timeout(JOIN_POLL) {
                Ok(joined) => break joined,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Error::MultiGpu(format!(
                        "rank {rank}: the thread joining the NCCL communicator stopped"
                    )));
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if let Some(stop) = meeting.as_ref().and_then(Member::other_rank_stopped) {
                return Err(stop);
            }
            if started.elapsed() > timeout {
                return Err(Error::OtherRank(format!(
                    "rank {rank}: not every one of the {ranks} ranks joined within {} s",
                    timeout.as_secs_f64()
                )));
            }
        };
        check(library, status, "ncclCommInitRank")?;
        Ok(Communicator {
            raw: raw.0,
            library,
            rank,
            ranks,
            timeout,
            aborted: Cell::new(false),
            meeting,
        })
    }

    /// Aborts the communicator: its pending operations end, and it is
    /// freed. For a rank that gives the others up; returns within
    /// [`LET_GO_WAIT`] whether or not NCCL has finished.
    fn abort(&self) {
        if !self.aborted.replace(true) {
            let abort = self.library.comm_abort;
            // SAFETY: a live communicator, aborted once; it is not used after.
            let_go(Handle(self.raw), move |raw| unsafe { abort(raw) });
        }
    }

    /// The error NCCL reports for the communicator's pending operations
    /// (another rank gone, a broken connection), if any.
    fn async_error(&self) -> Option<Error> {
        let mut status = SUCCESS;
        // SAFETY: a live communicator; writes one status.
        let queried = unsafe { (self.library.comm_get_async_error)(self.raw, &mut status) };
        [queried, status]
            .into_iter()
            .find(|&status| status != SUCCESS && status != IN_PROGRESS)
            .map(|status| check(self.library, status, "reports").expect_err("not a success"))
    }

    /// Opens a group, queues `calls`' operations and closes it, whatever
    /// they returned.
    fn group(&self, calls: impl FnOnce() -> Result<()>) -> Result<()> {
        // SAFETY: group calls take no arguments.
        let started = unsafe { (self.library.group_start)() };
        check(self.library, started, "ncclGroupStart")?;
        let result = calls();
        // SAFETY: closes the group opened above.
        let ended = check(
            self.library,
            unsafe { (self.library.group_end)() },
            "ncclGroupEnd",
        );
        result.and(ended)
    }
}

/// The collectives as NCCL's: an all-gather, and pairwise sends and
/// receives in one group.
impl Collectives for Communicator {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn ranks(&self) -> u32 {
        self.ranks
    }

    fn transport(&self) -> &'static str {
        "NCCL"
    }

    fn all_gather(
        &self,
        send: DevicePointer<u32>,
        receive: DevicePointer<u32>,
        count: usize,
        stream: &Stream,
    ) -> Result<()> {
        // SAFETY: `send` holds `count` u32s and `receive` `ranks * count`
        // on this rank's device.
        let status = unsafe {
            (self.library.all_gather)(
                send.as_raw() as *const c_void,
                receive.as_raw() as *mut c_void,
                count,
                UINT32,
                self.raw,
                stream.as_inner().cast(),
            )
        };
        check(self.library, status, "ncclAllGather")
    }

    fn exchange(&self, sends: &[Transfer], receives: &[Transfer], stream: &Stream) -> Result<()> {
        self.group(|| {
            for (transfers, call, name) in [
                (sends, self.library.send, "ncclSend"),
                (receives, self.library.receive, "ncclRecv"),
            ] {
                for transfer in transfers.iter().filter(|transfer| transfer.count > 0) {
                    // SAFETY: each buffer holds its count of words on this
                    // rank's device (the caller's contract), and the peer
                    // queues the matching call.
                    let status = unsafe {
                        call(
                            transfer.words.as_raw() as *mut c_void,
                            transfer.count,
                            UINT32,
                            transfer.peer as c_int,
                            self.raw,
                            stream.as_inner().cast(),
                        )
                    };
                    check(self.library, status, name)?;
                }
            }
            Ok(())
        })
    }

    fn wait(&self, stream: &Stream) -> Result<()> {
        let started = Instant::now();
        loop {
            // SAFETY: queries a live stream of the current context.
            let result = unsafe { cust::sys::cuStreamQuery(stream.as_inner()) };
            match result {
                cust::sys::CUresult::CUDA_SUCCESS => return Ok(()),
                cust::sys::CUresult::CUDA_ERROR_NOT_READY => {}
                _ => {
                    // The collective's kernels may still wait for the others.
                    self.abort();
                    return driver_result(result, || format!("rank {}: waiting", self.rank));
                }
            }
            if let Some(error) = self.async_error() {
                self.abort();
                return Err(Error::OtherRank(format!(
                    "rank {}: the exchange with {} failed ({error})",
                    self.rank,
                    silent_ranks(self.rank, self.ranks)
                )));
            }
            // A rank of this process that stopped never joins the
            // collective: no need to wait out the timeout.
            if let Some(stop) = self.meeting.as_ref().and_then(Member::other_rank_stopped) {
                self.abort();
                return Err(stop);
            }
            let waited = started.elapsed();
            if waited > self.timeout {
                self.abort();
                return Err(Error::OtherRank(format!(
                    "rank {} of {}: {} did not answer within {} s (killed, or failed?); the exchange was aborted",
                    self.rank,
                    self.ranks,
                    silent_ranks(self.rank, self.ranks),
                    self.timeout.as_secs_f64()
                )));
            }
            // Spin through a level's usual length, then let other threads run.
            if waited > Duration::from_millis(2) {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    fn has_own_gpu(&self) -> bool {
        // Ranks that meet on the host are threads, which take a GPU each;
        // processes may share one.
        self.meeting.is_some()
    }

    fn meets_on_host(&self) -> bool {
        self.meeting.is_some()
    }

    fn give_up(&self) -> bool {
        self.abort();
        true
    }

    fn meet_on_host(&self, words: &[u32]) -> Result<Vec<u32>> {
        let Some(meeting) = &self.meeting else {
            return Err(Error::MultiGpu(format!(
                "rank {}: the ranks are processes of their own, which do not meet on the host",
                self.rank
            )));
        };
        // A rank that gave up leaves the others' collectives nothing to
        // wait for: abort them too.
        meeting
            .words_from_every_rank(words)
            .inspect_err(|_| self.abort())
    }
}

/// Who did not answer a wait of rank `rank` of `ranks`, or broke its
/// exchange: with two ranks, the other one by name; with more, NCCL cannot
/// tell which.
fn silent_ranks(rank: u32, ranks: u32) -> String {
    match ranks {
        2 => format!("rank {}", 1 - rank),
        _ => "another rank".to_string(),
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        if self.aborted.get() {
            return;
        }
        let destroy = self.library.comm_destroy;
        // SAFETY: the handle came from ncclCommInitRank, was not aborted,
        // and is destroyed once.
        let_go(Handle(self.raw), move |raw| unsafe { destroy(raw) });
    }
}

/// Runs `teardown` (an abort or a destroy) on the communicator `raw`, on a
/// thread of its own, and waits for it at most [`LET_GO_WAIT`]: past that
/// it is left running, and the rank goes on without it. The context current
/// here is made current there, for NCCL's frees.
fn let_go(raw: Handle, teardown: impl FnOnce(RawComm) -> Status + Send + 'static) {
    let mut context: cust::sys::CUcontext = std::ptr::null_mut();
    // SAFETY: writes one context handle (null when none is current).
    unsafe { cust::sys::cuCtxGetCurrent(&mut context) };
    let context = Handle(context.cast());
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (raw, context) = (raw, context);
        // SAFETY: the communicator's context outlives its teardown, which
        // its owner waits for or leaves running to the process's end (a
        // rank that gives up does not free its GPU: `Collectives::give_up`).
        unsafe { cust::sys::cuCtxSetCurrent(context.0.cast()) };
        teardown(raw.0);
        let _ = done.send(());
    });
    let _ = finished.recv_timeout(LET_GO_WAIT);
}
