//! # Many sources on a road network: a tree per source in each sweep of a contraction hierarchy
//!
//! PHAST (Delling, Goldberg, Nowatzyk & Werneck, "PHAST: Hardware-
//! Accelerated Shortest Path Trees", IPDPS 2011, §"Computing multiple
//! trees") finds a source's every distance with two sweeps over a
//! contraction hierarchy (`roads::hierarchy_sweep`), and carries `k` trees
//! at once by giving every vertex `k` labels side by side: a sweep then
//! reads each arc once for the whole batch, and the labels it reads are
//! contiguous. Here a level of a sweep is a launch: a warp takes one vertex
//! and 32 columns (sources), each lane the least of its own label and its
//! arcs' heads' labels plus the weights, every head's 32 labels one
//! coalesced load ([`hierarchy_trees_sweep`]). Upward through the levels
//! along the lower arcs, Bellman–Ford rounds over the core
//! ([`hierarchy_trees_core_round`]), then downward along the higher arcs;
//! the host launches them in order.
//!
//! The hierarchy is built over the kept vertices of the graph's chain
//! contraction (`graph/chains.rs`), so a chain's inner vertex at position
//! `j` of a chain of length `L` between `a` and `b` lies at
//! `min(d(a) + j, d(b) + L − j)`: its distances are two runs of
//! consecutive values, which meet where the two terms cross, so a chain
//! costs a source two ranges of a difference array whatever its length
//! ([`hierarchy_trees_count`], a block a group of sources, their
//! differences in shared memory). Only the source's own chain, where
//! `|i − j|` may be shorter, is walked vertex by vertex. What the host asks
//! for beyond the counts (per-vertex totals, each source's row of
//! distances) takes each vertex's distance from its place
//! ([`hierarchy_trees_totals`], [`hierarchy_trees_distances`]).
//!
//! Encodings: `abi::hierarchy_trees`.

use core::num::{NonZeroU32, NonZeroU64};
use core::ptr::{read_volatile, write_volatile};

use crate::abi::UNREACHED;
use crate::abi::chain_contracted::{CHAIN_WORDS, IN_CHAIN, NO_ENTRY};
use crate::abi::hierarchy_trees::{Arcs, Chains, Labels, Tally, difference_stride};
use crate::abi::many_sources::Kept;
use crate::gpu::{self, FULL_WARP, WARP_SIZE};
use crate::roads::hierarchy_sweep::least_along;

/// Places each source's seeds: its kept vertex at 0, or its chain's two
/// ends at their distances along it.
///
/// # Safety
/// `labels` holds `kept_count * width` labels, all [`UNREACHED`]; `seeds`
/// four words a source of the batch: a kept index and its distance, then a
/// second kept index (or `NO_ENTRY`) and its distance.
///
/// # Launch
/// Blocks of `abi::hierarchy_trees::BLOCK_SIZE` threads covering `count`.
///
/// # Thread mapping
/// Thread `t` takes source `t`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hierarchy_trees_seed(labels: Labels, seeds: *const u32) {
    let source = gpu::global_thread_index();
    if source >= labels.count {
        return;
    }
    // SAFETY: the source's four words and its column of the seeds' rows,
    // written by this thread alone (the contract).
    unsafe {
        let seeds = seeds.add(4 * source as usize);
        for pair in 0..2 {
            let seed = *seeds.add(2 * pair);
            if seed != NO_ENTRY {
                let label = labels.at(seed, source);
                *label = (*label).min(*seeds.add(2 * pair + 1));
            }
        }
    }
}

impl Labels {
    /// The label of kept vertex `vertex` for column `column`.
    #[inline(always)]
    fn at(self, vertex: u32, column: u32) -> *mut u32 {
        self.labels
            .wrapping_add(vertex as usize * self.width as usize + column as usize)
    }
}

/// One level of a sweep: each vertex of `arcs.first..arcs.end` takes, in
/// each column, the least of its label and its arcs' heads' labels plus
/// the arcs' weights.
///
/// # Safety
/// `labels` holds `kept_count * width` labels; `arcs.rows` has an entry
/// for every vertex of the level and the next; each arc's head is a kept
/// vertex of another level (not written during the launch); no label plus
/// a weight overflows but [`UNREACHED`] (which saturates).
///
/// # Launch
/// Blocks of `abi::hierarchy_trees::BLOCK_SIZE` threads, any number.
///
/// # Thread mapping
/// The grid's warp `w` of `W` takes the (vertex, 32 columns) pairs `w`,
/// `w + W`, … of the level, lane `l` the pair's column `l`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hierarchy_trees_sweep(labels: Labels, arcs: Arcs) {
    // SAFETY: the level's vertices take their own labels only, from
    // other levels' (the contract).
    unsafe {
        for_each_pair(labels, arcs, |vertex, column| {
            let own = labels.at(vertex, column);
            *own = pull(labels, arcs, vertex, column, *own, |label| *label);
        });
    }
}

/// One Bellman–Ford round over the core: as [`hierarchy_trees_sweep`] over
/// the core's vertices along their arcs to each other, whose labels other
/// warps lower meanwhile; sets `*lowered` where a label went down.
///
/// # Safety
/// As [`hierarchy_trees_sweep`], the heads being core vertices too;
/// `lowered` is a word of the launch's own.
///
/// # Launch
/// As [`hierarchy_trees_sweep`].
///
/// # Thread mapping
/// As [`hierarchy_trees_sweep`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hierarchy_trees_core_round(
    labels: Labels,
    arcs: Arcs,
    lowered: *mut u32,
) {
    let mut any_lowered = false;
    // SAFETY: a lane writes only its own vertex's label in its column,
    // and reads the others' as they are: a label only goes down, and any
    // value read is a path's length, so the round ends no higher than
    // from the labels at its start. Volatile, so that each load reads
    // memory, not a value cached before another warp lowered it.
    unsafe {
        for_each_pair(labels, arcs, |vertex, column| {
            let own = labels.at(vertex, column);
            let before = read_volatile(own);
            let least = pull(labels, arcs, vertex, column, before, |label| {
                read_volatile(label)
            });
            if least < before {
                write_volatile(own, least);
                any_lowered = true;
            }
        });
        if gpu::ballot(FULL_WARP, any_lowered) != 0 && gpu::lane_index() == 0 {
            gpu::atomic_or(lowered, 1);
        }
    }
}

/// `(numerator % divisor, numerator / divisor)`, and `(numerator, 0)`
/// for a divisor of 0, which no caller passes: a division that cannot
/// panic, as a kernel may not.
#[inline(always)]
fn divide(numerator: u32, divisor: u32) -> (u32, u32) {
    match NonZeroU32::new(divisor) {
        Some(divisor) => (numerator % divisor, numerator / divisor),
        None => (numerator, 0),
    }
}

/// Calls `body(vertex, column)` for this lane's pairs of the level (see
/// [`hierarchy_trees_sweep`]'s thread mapping). Every lane of a warp runs
/// the same pairs' loop.
#[inline(always)]
fn for_each_pair(labels: Labels, arcs: Arcs, mut body: impl FnMut(u32, u32)) {
    let slices = labels.width / WARP_SIZE;
    let pairs = (arcs.end - arcs.first) * slices;
    let (mut pair, warps) = gpu::grid_warps();
    while pair < pairs {
        let (slice, vertex) = divide(pair, slices);
        let (vertex, column) = (arcs.first + vertex, slice * WARP_SIZE + gpu::lane_index());
        body(vertex, column);
        pair += warps;
    }
}

/// The least of `least` and `vertex`'s arcs' heads' labels in `column`
/// plus the arcs' weights, each label read by `read`: `hierarchy_sweep`'s
/// pull, a column of the labels for its distances.
///
/// # Safety
/// `vertex`'s row and arcs are in bounds (the kernels' contracts).
#[inline(always)]
unsafe fn pull(
    labels: Labels,
    arcs: Arcs,
    vertex: u32,
    column: u32,
    least: u32,
    read: impl Fn(*mut u32) -> u32,
) -> u32 {
    // SAFETY: the arcs of `vertex`, heads kept vertices (the contract).
    unsafe {
        least_along(
            (arcs.rows, arcs.arcs),
            vertex,
            || least,
            |head| read(labels.at(head, column)),
        )
        .0
    }
}

/// The largest label of the batch's columns within `limit`, into
/// `*farthest` (an `atomicMax`; zero before the launch).
///
/// # Safety
/// `labels` holds `kept_count * width` labels; `farthest` is a word of
/// the launch's own.
///
/// # Launch
/// Blocks of `abi::hierarchy_trees::BLOCK_SIZE` threads, any number.
///
/// # Thread mapping
/// Grid thread `t` of `T` takes labels `t`, `t + T`, … (vertex-major).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hierarchy_trees_farthest(
    labels: Labels,
    kept_count: u32,
    limit: u32,
    farthest: *mut u32,
) {
    let total = kept_count as u64 * labels.width as u64;
    let step = gpu::grid_threads() as u64;
    let mut index = gpu::global_thread_index() as u64;
    let mut largest = 0;
    while index < total {
        // SAFETY: `index < kept_count * width` (the contract).
        let label = unsafe { *labels.labels.add(index as usize) };
        let column = match NonZeroU64::new(labels.width as u64) {
            Some(width) => (index % width) as u32,
            None => 0,
        };
        if column < labels.count && label <= limit {
            largest = largest.max(label);
        }
        index += step;
    }
    let largest = gpu::warp_max(largest);
    if gpu::lane_index() == 0 {
        // SAFETY: the launch's own word (the contract).
        unsafe { gpu::atomic_max(farthest, largest) };
    }
}

impl Chains {
    /// The source `source`'s own chain and its position there
    /// (`NO_ENTRY` where the source is kept).
    ///
    /// # Safety
    /// `source` is one of the batch's.
    #[inline(always)]
    unsafe fn own(self, source: u32) -> (u32, u32) {
        // SAFETY: two words a source (the contract).
        unsafe {
            (
                *self.own.add(2 * source as usize),
                *self.own.add(2 * source as usize + 1),
            )
        }
    }

    /// Chain `chain`'s ends and length.
    ///
    /// # Safety
    /// `chain < chain_count`.
    #[inline(always)]
    unsafe fn ends(self, chain: u32) -> (u32, u32, u32) {
        // SAFETY: `CHAIN_WORDS` words a chain (the contract).
        unsafe {
            let entry = self.chains.add((CHAIN_WORDS * chain) as usize);
            (
                gpu::load_read_only(entry),
                gpu::load_read_only(entry.add(1)),
                gpu::load_read_only(entry.add(2)),
            )
        }
    }

    /// Vertex `vertex`'s distance from the batch's source in `column`,
    /// [`UNREACHED`] where none within the limit.
    ///
    /// # Safety
    /// `vertex < vertex_count`, `column < count`; the sweeps are done.
    #[inline(always)]
    unsafe fn distance(self, labels: Labels, vertex: u32, column: u32) -> u32 {
        // SAFETY: the vertex's place, its chain's entry and the labels of
        // its ends (the contract).
        let distance = unsafe {
            let place = gpu::load_read_only(self.places.add(2 * vertex as usize));
            if place & IN_CHAIN == 0 {
                *labels.at(place, column)
            } else {
                let chain = place & !IN_CHAIN;
                let position = gpu::load_read_only(self.places.add(2 * vertex as usize + 1));
                let (first, second, length) = self.ends(chain);
                let (own_chain, own_position) = self.own(column);
                let along = if own_chain == chain {
                    own_position.abs_diff(position)
                } else {
                    UNREACHED
                };
                along
                    .min((*labels.at(first, column)).saturating_add(position))
                    .min((*labels.at(second, column)).saturating_add(length - position))
            }
        };
        if distance > self.limit {
            UNREACHED
        } else {
            distance
        }
    }
}

/// Counts, for each source of the batch, its vertices at each distance
/// within the limit into `tally.counts`: the kept vertices' labels, every
/// other chain's inner vertices as two runs, its own chain's one by one,
/// all as differences, then summed.
///
/// # Safety
/// The sweeps are done; `labels` and `chains` as [`Chains::distance`]
/// needs, `own` two words a source; every distance within the limit is
/// below `tally.bins`; `tally.counts` holds `count * bins` words;
/// `tally.scratch` is null (the differences in shared memory) or holds
/// `blocks * group * difference_stride(bins)` words.
///
/// # Launch
/// `count.div_ceil(group)` blocks of
/// `abi::hierarchy_trees::COUNT_BLOCK_SIZE` threads; dynamic shared memory
/// `abi::hierarchy_trees::count_shared_bytes(group, bins)` where
/// `scratch` is null, else none.
///
/// # Thread mapping
/// Block `b` counts sources `b * group ..`; its thread `t` of `T` takes
/// the (vertex or chain, source) items `t`, `t + T`, …, the source
/// fastest, then strides along each of its sources' own chains in turn;
/// warp `w` sums the differences of sources `w`, `w + T / 32`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hierarchy_trees_count(
    labels: Labels,
    chains: Chains,
    tally: Tally,
) {
    let group = tally.group;
    let stride = difference_stride(tally.bins);
    let first_source = gpu::block_index() * group;
    let differences = if tally.scratch.is_null() {
        gpu::dynamic_shared_memory::<u32>()
    } else {
        tally
            .scratch
            .wrapping_add(gpu::block_index() as usize * (group * stride) as usize)
    };
    let (thread, threads) = (gpu::thread_index(), gpu::block_size());
    // SAFETY: `differences` holds `group * stride` words of this block's
    // (the contract); every index below is a source of the group times the
    // stride plus a distance within the limit, below `bins`, plus one.
    // Differences are added atomically, read only after the barrier.
    unsafe {
        let mut index = thread;
        while index < group * stride {
            *differences.add(index as usize) = 0;
            index += threads;
        }
        gpu::sync_threads();
        let count_run = |member: u32, low: u32, high: u32| {
            if low <= high {
                let row = differences.add((member * stride) as usize);
                gpu::atomic_add(row.add(low as usize), 1);
                gpu::atomic_add(row.add(high as usize + 1), u32::MAX);
            }
        };
        let limit = chains.limit;

        // Kept vertices.
        let items = chains.kept_count * group;
        let mut item = thread;
        while item < items {
            let (member, vertex) = divide(item, group);
            let source = first_source + member;
            if source < labels.count {
                let at = *labels.at(vertex, source);
                if at <= limit {
                    count_run(member, at, at);
                }
            }
            item += threads;
        }

        // Chains, but each source's own.
        let items = chains.chain_count * group;
        let mut item = thread;
        while item < items {
            let (member, chain) = divide(item, group);
            let source = first_source + member;
            if source < labels.count && chains.own(source).0 != chain {
                let (first_end, second_end, length) = chains.ends(chain);
                let (first, second) = (
                    *labels.at(first_end, source),
                    *labels.at(second_end, source),
                );
                let inner = length - 1;
                // Positions 1..=split are nearer the first end.
                let split = match (first == UNREACHED, second == UNREACHED) {
                    (true, true) => None,
                    (false, true) => Some(inner),
                    (true, false) => Some(0),
                    (false, false) => {
                        let crossing = (second as i64 - first as i64 + length as i64) / 2;
                        Some(crossing.max(0).min(inner as i64) as u32)
                    }
                };
                if let Some(split) = split {
                    if split > 0 {
                        count_run(member, first + 1, (first + split).min(limit));
                    }
                    if split < inner {
                        count_run(member, second + 1, (second + inner - split).min(limit));
                    }
                }
            }
            item += threads;
        }

        // Each source's own chain, vertex by vertex.
        for member in 0..group {
            let source = first_source + member;
            if source >= labels.count {
                break;
            }
            let (chain, _) = chains.own(source);
            if chain == NO_ENTRY {
                continue;
            }
            let (_, _, length) = chains.ends(chain);
            let mut position = 1 + thread;
            while position < length {
                let vertex_distance = own_chain_distance(labels, chains, source, position);
                if vertex_distance <= limit {
                    count_run(member, vertex_distance, vertex_distance);
                }
                position += threads;
            }
        }
        gpu::sync_threads();

        // Sums: a warp a source, 32 distances at a time.
        let (warp, warps) = (thread / WARP_SIZE, threads / WARP_SIZE);
        let lane = gpu::lane_index();
        let mut member = warp;
        while member < group && first_source + member < labels.count {
            let row = differences.add((member * stride) as usize);
            let out = tally
                .counts
                .add(((first_source + member) * tally.bins) as usize);
            let mut carried = 0u32;
            let mut base = 0;
            while base < tally.bins {
                let at = base + lane;
                let difference = if at < tally.bins {
                    *row.add(at as usize)
                } else {
                    0
                };
                let running = carried.wrapping_add(gpu::warp_prefix_sum(difference));
                if at < tally.bins {
                    *out.add(at as usize) = running;
                }
                carried = gpu::shuffle(FULL_WARP, running, WARP_SIZE - 1);
                base += WARP_SIZE;
            }
            member += warps;
        }
    }
}

/// The distance from `source` to the vertex at `position` of its own
/// chain: along the chain, or around through either end.
///
/// # Safety
/// `source` lies inside a chain; `position` is inside it.
#[inline(always)]
unsafe fn own_chain_distance(labels: Labels, chains: Chains, source: u32, position: u32) -> u32 {
    // SAFETY: the source's chain and its ends' labels (the caller's).
    unsafe {
        let (chain, own_position) = chains.own(source);
        let (first, second, length) = chains.ends(chain);
        own_position
            .abs_diff(position)
            .min((*labels.at(first, source)).saturating_add(position))
            .min((*labels.at(second, source)).saturating_add(length - position))
    }
}

/// Adds every source's distance to each vertex into the per-vertex totals
/// of `kept` (sources that reach it, their distances' sum and reciprocals'
/// sum, the largest), a warp a vertex.
///
/// # Safety
/// As [`hierarchy_trees_count`] for `labels` and `chains`; `kept`'s totals
/// hold `vertex_count` entries each; nothing else writes them meanwhile.
///
/// # Launch
/// Blocks of `abi::hierarchy_trees::BLOCK_SIZE` threads, any number.
///
/// # Thread mapping
/// The grid's warp `w` of `W` takes vertices `w`, `w + W`, …, lane `l`
/// its sources `l`, `l + 32`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hierarchy_trees_totals(
    labels: Labels,
    chains: Chains,
    kept: Kept,
) {
    let (mut vertex, warps) = gpu::grid_warps();
    let lane = gpu::lane_index();
    while vertex < chains.vertex_count {
        let (mut reached, mut sum, mut reciprocals, mut farthest) = (0u32, 0u64, 0f64, 0u32);
        let mut source = lane;
        while source < labels.count {
            // SAFETY: a vertex and a source of the batch (the contract).
            let distance = unsafe { chains.distance(labels, vertex, source) };
            if distance != UNREACHED {
                reached += 1;
                sum += distance as u64;
                if distance > 0 {
                    reciprocals += 1.0 / distance as f64;
                }
                farthest = farthest.max(distance);
            }
            source += WARP_SIZE;
        }
        let reached = gpu::warp_sum(reached);
        let sum = gpu::warp_sum_u64(sum);
        let reciprocals = gpu::warp_sum_f64(reciprocals);
        let farthest = gpu::warp_max(farthest);
        if lane == 0 {
            // SAFETY: this warp's vertex's totals, written by it alone.
            unsafe {
                let v = vertex as usize;
                *kept.reached_by.add(v) += reached;
                *kept.distance_sums.add(v) += sum;
                *kept.reciprocal_sums.add(v) += reciprocals;
                let largest = kept.farthest.add(v);
                *largest = (*largest).max(farthest);
            }
        }
        vertex += warps;
    }
}

/// Writes every source's row of distances into `kept.distances`, `-1`
/// where unreached.
///
/// # Safety
/// As [`hierarchy_trees_count`] for `labels` and `chains`;
/// `kept.distances` holds `count * vertex_count` entries.
///
/// # Launch
/// Blocks of `abi::hierarchy_trees::BLOCK_SIZE` threads, any number.
///
/// # Thread mapping
/// Grid thread `t` of `T` takes vertices `t`, `t + T`, …, each for every
/// source in turn: a warp writes 32 consecutive entries of a row at once.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hierarchy_trees_distances(
    labels: Labels,
    chains: Chains,
    kept: Kept,
) {
    let step = gpu::grid_threads();
    let mut vertex = gpu::global_thread_index();
    while vertex < chains.vertex_count {
        for source in 0..labels.count {
            // SAFETY: a vertex and a source of the batch; its row's entry
            // (the contract).
            unsafe {
                let distance = chains.distance(labels, vertex, source);
                *kept
                    .distances
                    .add(source as usize * chains.vertex_count as usize + vertex as usize) =
                    if distance == UNREACHED {
                        -1
                    } else {
                        distance as i32
                    };
            }
        }
        vertex += step;
    }
}
