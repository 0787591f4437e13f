//! # Betweenness centrality for deep graphs: a block a source
//!
//! Brandes's two sweeps (Brandes 2001; see `betweenness`), with a thread
//! block searching one source at a time through a queue of its own: the
//! *work-efficient* method of McLaughlin & Bader ("Scalable and High
//! Performance Betweenness Centrality on the GPU", SC 2014), which they
//! found the faster one where graphs are deep and their levels narrow.
//! There the lane-a-source batches of `betweenness` waste their lanes: the
//! 32 sources of a word reach a vertex at up to 32 different levels, so
//! the warp passes over the vertex up to 32 times for one lane's work
//! each time. A block a source does each source's `n + m` work once, and
//! keeps a source per block in flight (thousands of them), its levels
//! separated by the block's own barrier instead of the grid's.
//!
//! - **Forward:** the threads share the level's run of the queue, a
//!   vertex a thread; an unreached neighbour is claimed with a
//!   compare-and-swap on its depth and appended to the queue, and every
//!   neighbour at the next level gains the vertex's σ (an `f64` atomic
//!   add: integer path counts, exact in any order).
//! - **Backward:** from the deepest level up, a vertex gathers
//!   `σ(v) · (1 + δ(w)) / σ(w)` over its successors `w` (networkx's
//!   operations), then replaces its σ with its own coefficient
//!   `(1 + δ(v)) / σ(v)` for its predecessors, one level up, to read. A
//!   vertex's dependency goes into the slot's totals, which only this
//!   block writes; an arc's share into the arc scores, atomically.
//!
//! A vertex and its weight share one 16-byte [`Mark`], so looking at a
//! neighbour is one sector's read. Encodings: `abi::betweenness_blocks`.

use core::ptr::{read_volatile, write_volatile};

use crate::abi::Rows;
use crate::abi::betweenness::Scores;
use crate::abi::betweenness_blocks::{Mark, Slots};
use crate::gpu;
use crate::visit::row;

/// Searches `sources` (`count` of them), block `b` the sources `b`,
/// `b + slots`, …, adding each one's dependencies into slot `b`'s totals
/// (with `scores.endpoint` for each vertex it reaches, and the vertices
/// it reaches, itself left out, to its own) and its arcs' shares into
/// `scores.edges`. `scores.vertices` is not read.
///
/// # Safety
/// `slots` as `abi::betweenness_blocks` says, its marks all zero, sized
/// for `rows`'s `n` vertices and the launch's blocks; `sources` holds
/// `count` vertices; `scores.edges` null or `m` values, added to only
/// atomically during the launch.
///
/// # Launch
/// `slots.slots` blocks of `abi::betweenness_blocks::BLOCK_SIZE` threads,
/// with `abi::betweenness_blocks::SHARED_BYTES` of shared memory.
///
/// # Thread mapping
/// Block `b` takes its slot and its sources; its threads share each
/// level's run of the queue, thread `t` of `T` the run's `t`, `t + T`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn betweenness_blocks(
    rows: Rows,
    slots: Slots,
    sources: *const u32,
    count: u32,
    scores: Scores,
) {
    let (rows, slots) = (rows.in_global(), slots.in_global());
    let tail = gpu::dynamic_shared_memory::<u32>();
    let n = slots.vertex_count as usize;
    let slot = gpu::block_index() as usize;
    let (thread, threads) = (gpu::thread_index(), gpu::block_size());
    // SAFETY: the slot's arrays are this block's alone (the contract), and
    // every index below is a vertex, a queue place below `n` (each vertex
    // is queued once a source) or a level below `n + 1`. Values another
    // thread wrote are read past a block barrier, or through atomics.
    // Every thread runs the same sources and levels, so all reach every
    // barrier.
    unsafe {
        let marks = slots.marks.add(slot * n);
        let queue = slots.queue.add(slot * n);
        let level_ends = slots.level_ends.add(slot * (n + 1));
        let totals = match slots.totals.is_null() {
            true => slots.totals,
            false => slots.totals.add(slot * n),
        };
        let mut next = slot as u32;
        while next < count {
            let source = *sources.add(next as usize);
            if thread == 0 {
                write_mark(marks.add(source as usize), 1, 1.0);
                *queue = source;
                write_volatile(tail, 1);
            }
            gpu::sync_threads();
            let deepest = forward(rows, marks, queue, level_ends, tail);
            let reached = *level_ends.add(deepest as usize);
            backward(rows, marks, queue, level_ends, deepest, totals, scores);
            if thread == 0 && !totals.is_null() && scores.endpoint != 0.0 {
                *totals.add(source as usize) += (reached - 1) as f64;
            }
            // Leaves the marks as the next source needs them.
            let mut place = thread;
            while place < reached {
                write_mark(marks.add(*queue.add(place as usize) as usize), 0, 0.0);
                place += threads;
            }
            gpu::sync_threads();
            next += slots.slots;
        }
    }
}

/// The forward sweep of one source, queued at place 0 with depth 1 and
/// σ 1: every level's run of the queue and its end; returns the deepest
/// level.
///
/// # Safety
/// As [`betweenness_blocks`], for the slot's `marks`, `queue` and
/// `level_ends`; `tail` the block's shared queue tail, 1.
#[inline(always)]
unsafe fn forward(
    rows: Rows,
    marks: *mut Mark,
    queue: *mut u32,
    level_ends: *mut u32,
    tail: *mut u32,
) -> u32 {
    let (thread, threads) = (gpu::thread_index(), gpu::block_size());
    // SAFETY: the caller's contract.
    unsafe {
        let (mut level, mut start, mut end) = (0u32, 0u32, 1u32);
        loop {
            if thread == 0 {
                *level_ends.add(level as usize) = end;
            }
            let mut place = start + thread;
            while place < end {
                let vertex = *queue.add(place as usize);
                let sigma = read_volatile(&raw const (*marks.add(vertex as usize)).weight);
                let (first_arc, end_arc) = row(rows.offsets, vertex);
                let mut arc = first_arc;
                while arc < end_arc {
                    let (heads, depths) = ahead(rows, marks, arc, end_arc);
                    for k in 0..AHEAD {
                        if heads[k] == NO_HEAD {
                            continue;
                        }
                        let mark = marks.add(heads[k] as usize);
                        let mut found = depths[k];
                        if found == 0 {
                            found =
                                gpu::atomic_compare_exchange(&raw mut (*mark).depth, 0, level + 2);
                            if found == 0 {
                                found = level + 2;
                                let at = gpu::coalesced_reserve_one(|k| gpu::atomic_add(tail, k));
                                write_volatile(queue.add(at as usize), heads[k]);
                            }
                        }
                        if found == level + 2 {
                            gpu::atomic_add_f64(&raw mut (*mark).weight, sigma);
                        }
                    }
                    arc += AHEAD as u64;
                }
                place += threads;
            }
            gpu::sync_threads();
            let next_end = read_volatile(tail);
            // Every thread has read the tail before any appends again.
            gpu::sync_threads();
            if next_end == end {
                return level;
            }
            (level, start, end) = (level + 1, end, next_end);
        }
    }
}

/// The backward sweep of one source whose forward sweep reached `deepest`
/// levels past its own: each vertex's dependency, into `totals` (where not
/// null, the source's own left out) and its arcs' shares into
/// `scores.edges` (where not null).
///
/// # Safety
/// As [`forward`], which ran before and wrote the level ends.
#[inline(always)]
unsafe fn backward(
    rows: Rows,
    marks: *mut Mark,
    queue: *const u32,
    level_ends: *const u32,
    deepest: u32,
    totals: *mut f64,
    scores: Scores,
) {
    let (thread, threads) = (gpu::thread_index(), gpu::block_size());
    // SAFETY: the caller's contract. A vertex's weight changes from its σ
    // to its coefficient while its own level runs, where only its own
    // thread reads it; the level above reads it past the barrier.
    unsafe {
        let mut level = deepest + 1;
        while level > 0 {
            level -= 1;
            let start = match level {
                0 => 0,
                _ => *level_ends.add(level as usize - 1),
            };
            let mut place = start + thread;
            while place < *level_ends.add(level as usize) {
                let vertex = *queue.add(place as usize);
                let mark = marks.add(vertex as usize);
                let sigma = read_volatile(&raw const (*mark).weight);
                let mut delta = 0.0;
                let (first_arc, end_arc) = row(rows.offsets, vertex);
                let mut arc = first_arc;
                while arc < end_arc {
                    let (heads, depths) = ahead(rows, marks, arc, end_arc);
                    let mut coefficients = [0.0; AHEAD];
                    for k in 0..AHEAD {
                        if heads[k] != NO_HEAD && depths[k] == level + 2 {
                            coefficients[k] =
                                read_volatile(&raw const (*marks.add(heads[k] as usize)).weight);
                        }
                    }
                    for k in 0..AHEAD {
                        if heads[k] != NO_HEAD && depths[k] == level + 2 {
                            let share = sigma * coefficients[k];
                            delta += share;
                            if !scores.edges.is_null() {
                                gpu::atomic_add_f64(
                                    scores.edges.add((arc + k as u64) as usize),
                                    share,
                                );
                            }
                        }
                    }
                    arc += AHEAD as u64;
                }
                write_volatile(&raw mut (*mark).weight, (1.0 + delta) / sigma);
                if !totals.is_null() && level > 0 {
                    *totals.add(vertex as usize) += delta + scores.endpoint;
                }
                place += threads;
            }
            gpu::sync_threads();
        }
    }
}

/// Arcs a thread reads ahead: their heads, then their depths, before it
/// acts on any, so a road vertex's few arcs cost a memory round trip a
/// step, not one an arc.
const AHEAD: usize = 4;

/// Past a row's end, among the heads read ahead.
const NO_HEAD: u32 = u32::MAX;

/// The heads of arcs `arc .. arc + AHEAD` before `end_arc`, and their
/// marks' depths; [`NO_HEAD`] (depth 0) past the end.
///
/// # Safety
/// The arcs are a row's of `rows`; `marks` the slot's.
#[inline(always)]
unsafe fn ahead(
    rows: Rows,
    marks: *const Mark,
    arc: u64,
    end_arc: u64,
) -> ([u32; AHEAD], [u32; AHEAD]) {
    let (mut heads, mut depths) = ([NO_HEAD; AHEAD], [0; AHEAD]);
    // SAFETY: the caller's contract; each arc below `end_arc`.
    unsafe {
        for (k, head) in heads.iter_mut().enumerate() {
            if arc + (k as u64) < end_arc {
                *head = gpu::load_read_only(rows.columns.add(arc as usize + k));
            }
        }
        for (depth, &head) in depths.iter_mut().zip(&heads) {
            if head != NO_HEAD {
                *depth = read_volatile(&raw const (*marks.add(head as usize)).depth);
            }
        }
    }
    (heads, depths)
}

/// Writes a mark's depth and weight.
///
/// # Safety
/// `mark` is valid, and no other thread touches it meanwhile.
#[inline(always)]
unsafe fn write_mark(mark: *mut Mark, depth: u32, weight: f64) {
    // SAFETY: the caller's contract.
    unsafe {
        write_volatile(&raw mut (*mark).depth, depth);
        write_volatile(&raw mut (*mark).weight, weight);
    }
}

/// Adds each vertex's totals over the slots into `vertex_scores`, and
/// clears them.
///
/// # Safety
/// `slots.totals` and `vertex_scores` as [`betweenness_blocks`] left them,
/// `vertex_scores` of `n` values.
///
/// # Launch
/// Blocks of `abi::betweenness_blocks::TOTALS_BLOCK_SIZE` threads, any
/// number.
///
/// # Thread mapping
/// Grid thread `t` of `T` takes vertices `t`, `t + T`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn betweenness_blocks_totals(slots: Slots, vertex_scores: *mut f64) {
    let n = slots.vertex_count as usize;
    let step = gpu::grid_threads() as usize;
    let mut vertex = gpu::global_thread_index() as usize;
    while vertex < n {
        let mut sum = 0.0;
        for slot in 0..slots.slots as usize {
            // SAFETY: `slot * n + vertex` is within the totals (the
            // contract); each is this thread's alone.
            unsafe {
                let total = slots.totals.add(slot * n + vertex);
                sum += *total;
                *total = 0.0;
            }
        }
        // SAFETY: `vertex < n`, this thread's alone.
        unsafe { *vertex_scores.add(vertex) += sum };
        vertex += step;
    }
}
