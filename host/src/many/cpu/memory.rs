//! The engine's memory: each vertex's words in one cache line (huge pages
//! asked for), bitmaps of a bit a vertex, and distance rows as atomics.

use std::sync::atomic::{AtomicI32, AtomicU64};

use super::MOST_WORDS;

/// A bitmap of `vertex_count` zero bits.
pub(super) fn bitmap(vertex_count: usize) -> Vec<AtomicU64> {
    (0..vertex_count.div_ceil(64))
        .map(|_| AtomicU64::new(0))
        .collect()
}

/// Words in cache lines: a vertex's words (a power of two of them, up to
/// [`MOST_WORDS`], one line) never straddle two lines.
pub(super) struct Lines {
    lines: Vec<Line>,
    words: usize,
}

/// A cache line of words.
#[repr(C, align(64))]
struct Line([AtomicU64; MOST_WORDS]);

impl Lines {
    /// `words` zero words.
    pub(super) fn new(words: usize) -> Lines {
        let length = words.div_ceil(MOST_WORDS);
        let mut lines = Vec::with_capacity(length);
        // A level reads neighbours' lines at random.
        crate::graph::prefer_huge_pages(lines.spare_capacity_mut());
        lines.extend((0..length).map(|_| Line(std::array::from_fn(|_| AtomicU64::new(0)))));
        Lines { lines, words }
    }

    /// The words, in order.
    pub(super) fn words(&self) -> &[AtomicU64] {
        // SAFETY: a `Line` is `MOST_WORDS` words and nothing else
        // (`repr(C)`, its size its alignment), so the vector's lines are
        // contiguous words, at least `self.words` of them.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast(), self.words) }
    }
}

const _: () = assert!(size_of::<Line>() == 8 * MOST_WORDS);

/// `rows` as atomics, which the members of a level write at once (each
/// element by one member only).
pub(super) fn atomic_rows(rows: &mut [i32]) -> &[AtomicI32] {
    // SAFETY: `AtomicI32` has the size, alignment and bit validity of
    // `i32`, and the exclusive borrow of `rows` is held for as long as the
    // atomics are used.
    unsafe { &*(std::ptr::from_mut(rows) as *const [AtomicI32]) }
}
