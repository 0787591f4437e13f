//! Results straight into page-locked memory that their caller holds: the
//! device copies a search's levels and parents into vectors of locked
//! pages, which the caller reads in place (Python's `Graph.bfs` hands them
//! to numpy), so that no thread copies them a second time. A result that
//! comes through the staging (`staging.rs`) into an ordinary vector costs
//! the host that copy, and for a road network's result, whose pages the
//! C library maps afresh each search, the faults of its pages besides:
//! more than the search itself.
//!
//! Locking pages is slow (the driver pins each one), so each
//! [`LockedLabels`] goes back to its device when dropped, and a later
//! search of as many vertices copies into it again. A device keeps a few
//! of those given back and locks at most [`MOST_LOCKED_BYTES`] in all:
//! locked pages are taken from the rest of the system ("CUDA C++ Best
//! Practices Guide", 9.1.1, pinned memory). Past that, and for a result
//! larger than [`MOST_BYTES_A_RESULT`], whose bus time dwarfs the copy,
//! the result comes back through the staging.
//!
//! Only searches whose labels come back whole from the device take locked
//! vectors (those that renumber or assemble their result on the host come
//! back in ordinary ones), and only where the caller asks
//! ([`Search::run_locked`](super::Search::run_locked)).

use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, PoisonError};

use cust::context::Context;
use cust::context::legacy::ContextStack;
use cust::error::CudaResult;
use cust::memory::LockedBuffer;

use super::staging::zeroed_locked;

/// Most bytes of locked results a device holds, given back or not.
pub const MOST_LOCKED_BYTES: usize = 1 << 30;

/// Most bytes of one locked result: a graph of 16 million vertices.
pub const MOST_BYTES_A_RESULT: usize = 64 << 20;

/// Most vectors a device keeps given back: a loop of searches with
/// parents needs the two of the result in hand and the two before it.
const MOST_KEPT: usize = 4;

/// A search's levels or parents in page-locked memory, copied there by
/// the device; dropped, they go back to the device for a later search.
pub struct LockedLabels {
    /// Always `Some` but in `drop`.
    buffer: Option<LockedBuffer<u32>>,
    pool: Arc<Shared>,
}

impl Deref for LockedLabels {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        self.buffer.as_deref().expect("taken only in drop")
    }
}

impl DerefMut for LockedLabels {
    fn deref_mut(&mut self) -> &mut [u32] {
        self.buffer.as_deref_mut().expect("taken only in drop")
    }
}

impl Drop for LockedLabels {
    fn drop(&mut self) {
        if let Some(buffer) = self.buffer.take() {
            self.pool.give(buffer);
        }
    }
}

/// A search's levels, or its parents: in locked memory where the device
/// copied them there, else in an ordinary vector.
pub enum Labels {
    /// Copied by the device into locked memory.
    Locked(LockedLabels),
    /// Copied back through the staging, or made on the host.
    Vector(Vec<u32>),
}

impl Deref for Labels {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match self {
            Labels::Locked(labels) => labels,
            Labels::Vector(labels) => labels,
        }
    }
}

impl DerefMut for Labels {
    fn deref_mut(&mut self) -> &mut [u32] {
        match self {
            Labels::Locked(labels) => labels,
            Labels::Vector(labels) => labels,
        }
    }
}

/// Where a search's labels go when its request asks for locked ones:
/// filled by the copy back of a search whose labels come back whole.
#[derive(Default)]
pub(crate) struct LockedDestination {
    copied: Mutex<Option<LockedCopy>>,
}

/// The locked vectors a search copied its labels into.
pub(crate) struct LockedCopy {
    pub levels: LockedLabels,
    pub parents: Option<LockedLabels>,
}

impl LockedDestination {
    pub(super) fn fill(&self, copy: LockedCopy) {
        *self.copied.lock().unwrap_or_else(PoisonError::into_inner) = Some(copy);
    }

    pub(super) fn take(&self) -> Option<LockedCopy> {
        self.copied
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

/// A device's locked vectors, shared with every [`LockedLabels`] out, so
/// that one dropped after its device still has where to go.
pub(super) struct LockedPool(Arc<Shared>);

/// Those given back, oldest first, the bytes of all locked and not freed,
/// and the device's context, retained while any vector is out: the
/// driver frees locked memory with it current.
struct Shared {
    held: Mutex<Held>,
    context: Context,
}

#[derive(Default)]
struct Held {
    kept: VecDeque<LockedBuffer<u32>>,
    locked_bytes: usize,
}

fn bytes(buffer: &LockedBuffer<u32>) -> usize {
    size_of_val(&buffer[..])
}

impl LockedPool {
    /// The pool of the device whose (primary) context is `context`.
    pub(super) fn new(context: Context) -> LockedPool {
        LockedPool(Arc::new(Shared {
            held: Mutex::default(),
            context,
        }))
    }

    /// A locked vector of `len` values (stale ones), given back before or
    /// new, or `None` where a result of `len` stays out of locked memory.
    /// Called with the device's context current.
    pub(super) fn take(&self, len: usize) -> CudaResult<Option<LockedLabels>> {
        let wanted = len * size_of::<u32>();
        if len == 0 || wanted > MOST_BYTES_A_RESULT {
            return Ok(None);
        }
        let labels = |buffer| LockedLabels {
            buffer: Some(buffer),
            pool: Arc::clone(&self.0),
        };
        let mut held = self.0.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = held.kept.iter().rposition(|buffer| buffer.len() == len) {
            return Ok(held.kept.remove(at).map(labels));
        }
        while held.locked_bytes + wanted > MOST_LOCKED_BYTES {
            let Some(oldest) = held.kept.pop_front() else {
                return Ok(None);
            };
            held.locked_bytes -= bytes(&oldest);
        }
        let buffer = zeroed_locked::<u32>(len)?;
        held.locked_bytes += wanted;
        Ok(Some(labels(buffer)))
    }
}

impl Shared {
    /// Keeps `buffer` for a later result, freeing the oldest kept past
    /// [`MOST_KEPT`].
    fn give(&self, buffer: LockedBuffer<u32>) {
        let freed: Vec<_> = {
            let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
            held.kept.push_back(buffer);
            let surplus = held.kept.len().saturating_sub(MOST_KEPT);
            let freed: Vec<_> = held.kept.drain(..surplus).collect();
            held.locked_bytes -= freed.iter().map(bytes).sum::<usize>();
            freed
        };
        self.free(freed);
    }

    /// Frees `buffers` with the context current: numpy frees arrays on
    /// threads that may have none. Pushed and popped, so that the thread's
    /// own context, where it has one, is current again after.
    fn free(&self, buffers: Vec<LockedBuffer<u32>>) {
        if buffers.is_empty() {
            return;
        }
        let pushed = ContextStack::push(&self.context).is_ok();
        drop(buffers);
        if pushed {
            let _ = ContextStack::pop();
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        let kept = std::mem::take(
            &mut self
                .held
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner)
                .kept,
        );
        self.free(kept.into());
    }
}
