//! A graph's own thread: it owns the graph and everything that searches
//! it (the GPU's searches and batches, the CPU engines), and runs each
//! call that Python makes on it, one after another.
//!
//! Why a thread: the host library's searches borrow the GPU and the graph
//! for as long as they live (`Search<'g>`, `GpuBatches<'g>`), and they are
//! not `Send`, while a Python object must be `Send` and `Sync` and a
//! search must run with the GIL released. On this thread the graph lies in
//! the thread's own frame and the engines borrow it there, a scope the
//! compiler checks: no `unsafe`, no self-referencing struct, no leaked
//! graph. A call is one message each way; the caller waits for its answer
//! with the GIL released. Dropping the worker ends the thread after the
//! calls already sent, freeing the graph's device memory before the drop
//! returns.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel, sync_channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bfs::Csr;
use bfs::graph::prepared::Preparations;

use crate::resident::Resident;

/// A call to run on the graph's thread.
type Job = Box<dyn FnOnce(&mut Resident<'_>) + Send>;

/// How long each side of a call polls for the other before it sleeps: a
/// sleeping thread takes tens of microseconds to wake, as long as a
/// resident search of a road network, so the graph's thread looks for the
/// next call this long after each, and the caller for its answer (a
/// core's time, bounded, for a call's answer as soon as it is found).
const POLL: Duration = Duration::from_millis(1);

/// The next message on `queue`: polled for [`POLL`], then waited for
/// asleep; `None` once its sender is gone.
fn receive<T>(queue: &Receiver<T>) -> Option<T> {
    let polled = Instant::now();
    loop {
        match queue.try_recv() {
            Ok(message) => return Some(message),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) if polled.elapsed() < POLL => std::hint::spin_loop(),
            Err(TryRecvError::Empty) => return queue.recv().ok(),
        }
    }
}

/// The thread that holds a graph and runs the calls on it.
pub struct Worker {
    jobs: Option<Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

/// What a call gets where the thread has stopped: after a panic in the
/// library (a bug), every later call on the graph.
pub const STOPPED: &str =
    "the graph's thread stopped after an internal error (a bug; the message above says where)";

impl Worker {
    /// Starts the thread that holds `graph` (with the preparations its
    /// file lists).
    pub fn start(graph: Csr, preparations: Preparations) -> bfs::Result<Worker> {
        let (jobs, queue) = channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("bfs-graph".into())
            .spawn(move || {
                let mut resident = Resident::new(&graph, preparations);
                while let Some(job) = receive(&queue) {
                    // A panic leaves the engines in no known state: the
                    // thread stops, and every later call says so.
                    if catch_unwind(AssertUnwindSafe(|| job(&mut resident))).is_err() {
                        break;
                    }
                }
            })
            .map_err(|error| bfs::Error::Threads { threads: 1, error })?;
        Ok(Worker {
            jobs: Some(jobs),
            thread: Some(thread),
        })
    }

    /// Runs `job` on the graph's thread and returns its answer; `None`
    /// where the thread has stopped.
    pub fn call<R, F>(&self, job: F) -> Option<R>
    where
        R: Send + 'static,
        F: FnOnce(&mut Resident<'_>) -> R + Send + 'static,
    {
        let (answer, reply) = sync_channel(1);
        let job: Job = Box::new(move |resident| {
            let _ = answer.send(job(resident));
        });
        self.jobs.as_ref()?.send(job).ok()?;
        receive(&reply)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
