//! The frontier of a top-down level, a queue in one piece per team member,
//! and how the members share out its chunks and fill their own queues.

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Frontier vertices a member takes at a time in a top-down level: fewer,
/// longer chunks mean fewer claims of the shared cursor per level, until
/// the last members wait on the others' chunks (see docs/decisions.md,
/// "CPU engine").
const TOP_DOWN_CHUNK: usize = 256;

/// A queue of vertices in one piece per team member: the piece it claimed.
#[derive(Default)]
pub(crate) struct Frontier {
    pub(crate) pieces: Vec<Vec<u32>>,
    /// A chunk cursor per piece, for [`Frontier::for_each_chunk`].
    cursors: Vec<PaddedCursor>,
}

impl Frontier {
    pub(crate) fn len(&self) -> usize {
        self.pieces.iter().map(Vec::len).sum()
    }

    /// Takes the members' queues as the new frontier, leaving theirs (the
    /// old frontier's pieces) emptied for reuse.
    pub(crate) fn take(&mut self, claimed: &mut [Mutex<Vec<u32>>]) {
        self.pieces.resize_with(claimed.len(), Vec::new);
        self.cursors
            .resize_with(claimed.len(), PaddedCursor::default);
        for ((piece, queue), cursor) in self.pieces.iter_mut().zip(claimed).zip(&mut self.cursors) {
            let queue = queue.get_mut().unwrap_or_else(|poison| poison.into_inner());
            std::mem::swap(piece, queue);
            queue.clear();
            *cursor.0.get_mut() = 0;
        }
    }

    /// Lets [`for_each_chunk`](Frontier::for_each_chunk) hand out the
    /// frontier's chunks once more.
    pub(crate) fn rewind(&mut self) {
        for cursor in &mut self.cursors {
            *cursor.0.get_mut() = 0;
        }
    }

    /// Runs `work` on chunks of the frontier for `member`, which takes its
    /// own piece's chunks first and then helps with the others': a member
    /// expands what it claimed, whose neighbours' cache lines it holds, and
    /// only the end of a level moves lines between cores. Once per
    /// frontier, or per [`rewind`](Frontier::rewind).
    pub(crate) fn for_each_chunk(&self, member: usize, mut work: impl FnMut(&[u32])) {
        let pieces = self.pieces.len();
        for piece in (member % pieces..pieces).chain(0..member % pieces) {
            let vertices = &self.pieces[piece];
            for_each_chunk(
                &self.cursors[piece].0,
                vertices.len(),
                TOP_DOWN_CHUNK,
                |range| work(&vertices[range]),
            );
        }
    }
}

/// A chunk cursor alone in its cache line (two, for the adjacent-line
/// prefetcher), so that members taking chunks of different pieces do not
/// contend.
#[derive(Default)]
#[repr(align(128))]
struct PaddedCursor(AtomicUsize);

/// Hands out `0..length` in chunks of `chunk` through `cursor`, shared by
/// the team, until none is left (OpenMP's `schedule(dynamic, chunk)`).
pub(crate) fn for_each_chunk(
    cursor: &AtomicUsize,
    length: usize,
    chunk: usize,
    mut work: impl FnMut(Range<usize>),
) {
    loop {
        let start = cursor.fetch_add(chunk, Relaxed);
        if start >= length {
            return;
        }
        work(start..(start + chunk).min(length));
    }
}

/// Runs `work` on a member's queue moved out of its shared slot, and moves
/// it back: pushing to a `Vec` that lives beside the other members' would
/// make every push bounce the cache line of their lengths between cores.
pub(crate) fn with_own_queue(slot: &Mutex<Vec<u32>>, work: impl FnOnce(&mut Vec<u32>)) {
    let mut slot = slot.lock().unwrap_or_else(|poison| poison.into_inner());
    let mut queue = std::mem::take(&mut *slot);
    work(&mut queue);
    *slot = queue;
}
