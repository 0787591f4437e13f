//! # Betweenness centrality from many sources at once: Brandes's two sweeps, a lane a source
//!
//! Brandes, "A Faster Algorithm for Betweenness Centrality" (Journal of
//! Mathematical Sociology, 2001): a breadth-first search from a source `s`
//! counts the shortest paths `σ(v)` to every vertex (`σ(w)` sums `σ(v)`
//! over the predecessors `v` of `w`, the neighbours one level nearer),
//! and a sweep back from the deepest level gives each vertex its
//! dependency `δ(v) = Σ σ(v) / σ(w) · (1 + δ(w))` over its successors
//! `w`. A vertex's betweenness sums its dependencies over the sources
//! (networkx's `_single_source_shortest_path_basic` and
//! `_accumulate_basic`, the same operations in the same order a term).
//!
//! On the GPU a batch searches from up to `abi::betweenness::MOST_WIDTH`
//! sources together, as the many-sources batches do (MS-BFS: Then et al.,
//! VLDB 2015; the level-synchronous GPU form: McLaughlin & Bader,
//! "Scalable and High Performance Betweenness Centrality on the GPU",
//! SC 2014): a level's work list holds (vertex, word) *entries*, a warp
//! takes one and each lane one of the word's 32 sources, so a pass over a
//! vertex's arcs serves every source that has it at the level, and each
//! neighbour's 32 values are one coalesced load.
//!
//! - **Forward** ([`betweenness_forward`]): from each entry of level
//!   `d − 1`, each lane whose source has the vertex at `d − 1` claims the
//!   unreached neighbours at `d` (a compare-and-swap) and adds its `σ` to
//!   theirs (an `f64` atomic add: path counts are integers, exact in any
//!   order); the warp appends each neighbour that one of its lanes
//!   claimed, once a level and word.
//! - **Backward** ([`betweenness_backward`]): deepest level first, each
//!   lane gathers its vertex's `δ` from its successors, which are at the
//!   next level, finished; no atomics but the scores'. A vertex's score
//!   takes the warp's sum of its lanes' `δ`, an arc's score each lane's
//!   term for it (edge betweenness).
//!
//! Both sweeps run every level in one cooperative launch, a grid barrier
//! between levels (as `device_loop::persistent`), so a road network's
//! thousand levels cost no round trip to the host. The level's entries
//! ride on the barrier's count.
//!
//! Encodings: `abi::betweenness`.

use core::ptr::{read_volatile, write_volatile};

use crate::abi::Rows;
use crate::abi::UNREACHED;
use crate::abi::betweenness::{Levels, Paths, REACHED_SPAN, Scores};
use crate::gpu::{self, FULL_WARP, WARP_SIZE};
use crate::visit::row;

impl Paths {
    /// The place of `vertex`'s value for the batch's source `column`.
    #[inline(always)]
    fn at(self, vertex: u32, column: u32) -> usize {
        vertex as usize * self.width as usize + column as usize
    }

    /// The vertex and word of an entry (`words` is a power of two), or of
    /// any other pair numbered `vertex * words + word`.
    #[inline(always)]
    fn entry(self, entry: u32) -> (u32, u32) {
        (
            entry >> self.words.trailing_zeros(),
            entry & (self.words - 1),
        )
    }
}

/// Places the batch's sources: source `i` at distance 0 from itself by one
/// path, and each (source, word) in level 0's entries once.
///
/// # Safety
/// `paths` as `abi::betweenness` says, every level [`UNREACHED`] and every
/// `sigma` 0; `levels.queued_at` all `u32::MAX`; `levels.level_starts[1]`
/// zero; `sources` holds `count ≤ width` vertices.
///
/// # Launch
/// Blocks of `abi::betweenness::BLOCK_SIZE` threads covering `count`.
///
/// # Thread mapping
/// Thread `t` takes the batch's source `t`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn betweenness_start(
    paths: Paths,
    levels: Levels,
    sources: *const u32,
    count: u32,
) {
    let column = gpu::global_thread_index();
    if column >= count {
        return;
    }
    let (paths, levels) = (paths.in_global(), levels.in_global());
    // SAFETY: the column's own values; an entry's slot is handed out once
    // by the count in `level_starts[1]` (the contract).
    unsafe {
        let source = *sources.add(column as usize);
        let at = paths.at(source, column);
        *paths.levels.add(at) = 0;
        *paths.sigma.add(at) = 1.0;
        let entry = source * paths.words + column / WARP_SIZE;
        if gpu::atomic_exchange(levels.queued_at.add(entry as usize), 0) != 0 {
            let slot = gpu::atomic_add_u64(levels.level_starts.add(1), 1);
            *levels.entries.add(slot as usize) = entry;
        }
    }
}

/// The forward sweep: every level's distances and path counts, from level
/// 0's entries, until a level finds nothing; writes where each level's
/// entries begin and how many levels there are.
///
/// # Safety
/// As [`betweenness_start`], which ran before on the stream; the three
/// barrier words zero; `rows` the graph's, `n` rows.
///
/// # Launch
/// Cooperative, at most the occupancy's blocks, of
/// `abi::betweenness::BLOCK_SIZE` threads, with
/// `abi::betweenness::SHARED_BYTES` of shared memory.
///
/// # Thread mapping
/// The grid's warp `w` of `W` takes the level's entries `w`, `w + W`, …;
/// lane `l` the entry's source `32 · word + l`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn betweenness_forward(rows: Rows, paths: Paths, levels: Levels) {
    let (rows, paths, levels) = (rows.in_global(), paths.in_global(), levels.in_global());
    let barrier_count = gpu::dynamic_shared_memory::<u32>();
    let (first_warp, warps) = gpu::grid_warps();
    let lane = gpu::lane_index();
    // SAFETY: entries are read within their level and written at slots the
    // level's count hands out once each, below `n * width` (each entry
    // enters at most 32 levels' lists); a lane's values are written only
    // by atomics during the launch, and read with volatile loads. Loop
    // exits depend on the count every thread gets from the same barrier,
    // so all reach every barrier; lanes of a warp run the same entries and
    // arcs, so all reach every vote.
    unsafe {
        let mut level = 1u32;
        let mut start = 0u64;
        let mut size = read_volatile(levels.level_starts.add(1));
        loop {
            if size == 0 {
                break;
            }
            let count_word = levels.level_words.add((level % 3) as usize);
            if gpu::global_thread_index() == 0 {
                write_volatile(levels.level_words.add(((level + 1) % 3) as usize), 0);
            }
            let next_start = start + size;
            let mut index = first_warp as u64;
            while index < size {
                let entry = read_volatile(levels.entries.add((start + index) as usize));
                let (vertex, word) = paths.entry(entry);
                let column = word * WARP_SIZE + lane;
                let at = paths.at(vertex, column);
                let here = read_volatile(paths.levels.add(at)) == level - 1;
                let sigma = match here {
                    true => read_volatile(paths.sigma.add(at)),
                    false => 0.0,
                };
                let (first_arc, end_arc) = row(rows.offsets, vertex);
                for arc in first_arc..end_arc {
                    let head = gpu::load_read_only(rows.columns.add(arc as usize));
                    let claimed = here && reach(paths, paths.at(head, column), level, sigma);
                    let claims = gpu::ballot(FULL_WARP, claimed);
                    if claims != 0 && lane == 0 {
                        let entry = head * paths.words + word;
                        if gpu::atomic_exchange(levels.queued_at.add(entry as usize), level)
                            != level
                        {
                            let slot = gpu::atomic_add_u64(count_word, 1 << 32) >> 32;
                            write_volatile(levels.entries.add((next_start + slot) as usize), entry);
                        }
                    }
                }
                index += warps as u64;
            }
            start = next_start;
            size = gpu::grid_barrier_with_count(count_word, gpu::grid_size(), barrier_count) as u64;
            if gpu::global_thread_index() == 0 {
                *levels.level_starts.add(level as usize) = start;
                *levels.level_starts.add(level as usize + 1) = start + size;
            }
            level += 1;
        }
        if gpu::global_thread_index() == 0 {
            *levels.level_count = level - 1;
        }
    }
}

/// One lane's arc to the value at `there` at `level`: claims it where it
/// is unreached and adds `sigma` to its paths where it lies at `level`;
/// returns whether this lane claimed it.
///
/// # Safety
/// `there` is within the batch's values.
#[inline(always)]
unsafe fn reach(paths: Paths, there: usize, level: u32, sigma: f64) -> bool {
    // SAFETY: the caller's contract.
    unsafe {
        let distance = paths.levels.add(there);
        let mut found = read_volatile(distance);
        let mut claimed = false;
        if found == UNREACHED {
            found = gpu::atomic_compare_exchange(distance, UNREACHED, level);
            if found == UNREACHED {
                (found, claimed) = (level, true);
            }
        }
        if found == level {
            gpu::atomic_add_f64(paths.sigma.add(there), sigma);
        }
        claimed
    }
}

/// The backward sweep: every level's dependencies, from the deepest to
/// level 0, each added into the scores asked for.
///
/// # Safety
/// As [`betweenness_forward`], which ran before on the stream and whose
/// level starts and count this reads; the barrier words zero; `scores`
/// null or of `n` (vertices) and `m` (edges) values.
///
/// # Launch
/// As [`betweenness_forward`].
///
/// # Thread mapping
/// As [`betweenness_forward`], the level's entries.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn betweenness_backward(
    rows: Rows,
    paths: Paths,
    levels: Levels,
    scores: Scores,
) {
    let (rows, paths, levels) = (rows.in_global(), paths.in_global(), levels.in_global());
    let barrier_count = gpu::dynamic_shared_memory::<u32>();
    let (first_warp, warps) = gpu::grid_warps();
    let lane = gpu::lane_index();
    // SAFETY: distances, path counts and entries were written by the
    // launches before; dependencies are written at a level and read at
    // the level before it, past a barrier, with volatile loads; scores
    // only by atomics. Every thread runs the same levels, and the lanes
    // of a warp the same entries and arcs, so all reach every barrier and
    // every shuffle.
    unsafe {
        let level_count = *levels.level_count;
        let mut level = level_count;
        while level > 0 {
            level -= 1;
            let start = *levels.level_starts.add(level as usize);
            let size = *levels.level_starts.add(level as usize + 1) - start;
            let mut index = first_warp as u64;
            while index < size {
                let entry = *levels.entries.add((start + index) as usize);
                let (vertex, word) = paths.entry(entry);
                let column = word * WARP_SIZE + lane;
                let at = paths.at(vertex, column);
                let here = *paths.levels.add(at) == level;
                let sigma = match here {
                    true => *paths.sigma.add(at),
                    false => 0.0,
                };
                let mut delta = 0.0;
                let (first_arc, end_arc) = row(rows.offsets, vertex);
                for arc in first_arc..end_arc {
                    let head = gpu::load_read_only(rows.columns.add(arc as usize));
                    let share = match here {
                        true => share(paths, paths.at(head, column), level + 1, sigma),
                        false => 0.0,
                    };
                    delta += share;
                    if !scores.edges.is_null() {
                        add_warp_sum(scores.edges.add(arc as usize), share);
                    }
                }
                if here {
                    write_volatile(paths.delta.add(at), delta);
                }
                if !scores.vertices.is_null() && level > 0 {
                    let own = match here {
                        true => delta + scores.endpoint,
                        false => 0.0,
                    };
                    add_warp_sum(scores.vertices.add(vertex as usize), own);
                }
                index += warps as u64;
            }
            let word = levels.level_words.add((level % 3) as usize);
            if gpu::global_thread_index() == 0 {
                write_volatile(levels.level_words.add(((level + 2) % 3) as usize), 0);
            }
            gpu::grid_barrier_with_count(word, gpu::grid_size(), barrier_count);
        }
    }
}

/// A successor's term of a lane's dependency: where the value at `there`
/// lies at `next`, `σ(v) · (1 + δ(w)) / σ(w)` in networkx's order of
/// operations; else 0.
///
/// # Safety
/// `there` is within the batch's values; its dependency was written at
/// `next` where it lies there.
#[inline(always)]
unsafe fn share(paths: Paths, there: usize, next: u32, sigma: f64) -> f64 {
    // SAFETY: the caller's contract.
    unsafe {
        if *paths.levels.add(there) != next {
            return 0.0;
        }
        let coefficient = (1.0 + read_volatile(paths.delta.add(there))) / *paths.sigma.add(there);
        sigma * coefficient
    }
}

/// Adds the warp's sum of `value` into `*total`, once, where some lane's
/// is not zero.
///
/// # Safety
/// `total` is valid and only added to atomically during the launch; every
/// lane of the warp calls it.
#[inline(always)]
unsafe fn add_warp_sum(total: *mut f64, value: f64) {
    if gpu::ballot(FULL_WARP, value != 0.0) == 0 {
        return;
    }
    let sum = gpu::warp_sum_f64(value);
    if gpu::lane_index() == 0 {
        // SAFETY: the caller's contract.
        unsafe { gpu::atomic_add_f64(total, sum) };
    }
}

/// The vertices each source reaches, added into `reached` (a count a
/// column).
///
/// # Safety
/// `paths.levels` holds `vertex_count * width` distances; `reached` holds
/// `width` counts, only added to during the launch.
///
/// # Launch
/// Blocks of `abi::betweenness::BLOCK_SIZE` threads, any number.
///
/// # Thread mapping
/// The grid's warp `w` of `W` takes the (word, span of
/// `REACHED_SPAN` vertices) pairs `w`, `w + W`, …; lane `l` the word's
/// source `l`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn betweenness_reached(
    paths: Paths,
    vertex_count: u32,
    reached: *mut u32,
) {
    let paths = paths.in_global();
    let (first_warp, warps) = gpu::grid_warps();
    let spans = vertex_count.div_ceil(REACHED_SPAN);
    let pairs = spans * paths.words;
    let mut pair = first_warp;
    while pair < pairs {
        let (span, word) = paths.entry(pair);
        let first = span * REACHED_SPAN;
        let end = vertex_count.min(first + REACHED_SPAN);
        let column = word * WARP_SIZE + gpu::lane_index();
        let mut count = 0;
        for vertex in first..end {
            // SAFETY: `vertex < n`, `column < width` (the contract).
            if unsafe { *paths.levels.add(paths.at(vertex, column)) } != UNREACHED {
                count += 1;
            }
        }
        if count != 0 {
            // SAFETY: `column < width` (the contract).
            unsafe { gpu::atomic_add(reached.add(column as usize), count) };
        }
        pair += warps;
    }
}
