//! # Hierarchy sweep: a road network's distances in two sweeps over a contraction hierarchy
//!
//! `chain_contracted` takes a round, a barrier, per hop of the contracted
//! graph's shortest paths (Luxembourg: about 300). A contraction hierarchy
//! over the same junctions (`graph::hierarchy` on the host: Geisberger et
//! al., "Contraction Hierarchies", WEA 2008) adds shortcuts so that some
//! shortest path between any two vertices climbs to ever higher vertices
//! and then descends. PHAST (Delling, Goldberg, Nowatzyk & Werneck,
//! "PHAST: Hardware-Accelerated Shortest Path Trees", IPDPS 2011) finds
//! every distance from a source with two sweeps over that hierarchy, and
//! a sweep goes level by level: the vertices of a level share no arc, so
//! each takes its distance at once, from levels already done. A barrier a
//! level, twice the hierarchy's levels in all (Luxembourg: 42 levels, 86
//! barriers with the two of the start, against 1,000 to 1,200 BFS levels),
//! whatever the source; no queue, and no atomic outside the core.
//!
//! [`hierarchy_sweep_search`], one block, the distances in shared memory
//! when they fit:
//! 1. *Upward*: level by level from the lowest, each vertex takes the least
//!    of its own distance (the seeds' are set) and its lower neighbours'
//!    plus the arcs' weights: the shortest paths that only climb. A level
//!    lasts as long as its slowest thread, and the top levels' few vertices
//!    have many lower arcs (Luxembourg: up to 63), so a *wide* vertex (the
//!    host puts them first in their level) gets a warp: a lane an arc, then
//!    a warp minimum, so no thread walks a long list alone
//!    (docs/decisions.md, "Road networks and grids").
//! 2. *Core*: the vertices left uncontracted (hubs; every vertex of a
//!    directed graph; none on Luxembourg) share arcs, so they run
//!    Bellman–Ford rounds instead, each pushing (`atomicMin`) along the
//!    core's arcs, until a round lowers nothing.
//! 3. *Downward*: level by level from the highest, each vertex takes the
//!    least of its distance and its higher neighbours' plus the arcs'
//!    weights: the climb, then the descent.
//!
//! [`hierarchy_sweep_grid_search`] runs the same sweeps with every block
//! of a cooperative launch, for hierarchies whose distances do not fit one
//! block's shared memory: a level's vertices are dealt out to the whole
//! grid, the distances stay in global memory, and a grid barrier ends each
//! level (PHAST's sweeps on many multiprocessors). Past a few thousand
//! vertices a level, the grid's threads outrun one block by far more
//! than the grid barrier costs.
//!
//! The vertices are the chain contraction's kept ones, renumbered level by
//! level, so a level is a range of indices and thread `t` takes its
//! vertices `t`, `t + blockDim`, …: reads of the rows are coalesced. Every
//! vertex's level and parent then come from `chain_contracted`'s kernels,
//! as the distances of the kept vertices are the same.

use core::ptr::{read_volatile, write_volatile};

use crate::abi::UNREACHED;
use crate::abi::chain_contracted;
use crate::abi::hierarchy_sweep::{self, Hierarchy, Seeds};
use crate::gpu::{self, WARP_SIZE};

/// Arcs a thread reads at once: their loads in flight together, then their distances.
const PULL_BATCH: usize = 4;

/// The vertices of `level`.
///
/// # Safety
/// `level < hierarchy.level_count`.
#[inline(always)]
unsafe fn level_range(hierarchy: &Hierarchy, level: u32) -> (u32, u32) {
    // SAFETY: `level_starts` has `level_count + 1` entries (the contract).
    unsafe {
        (
            gpu::load_read_only(hierarchy.level_starts.add(level as usize)),
            gpu::load_read_only(hierarchy.level_starts.add(level as usize + 1)),
        )
    }
}

/// Sweeps the hierarchy from the seeds and writes each kept vertex's
/// distance to `kept_levels`.
///
/// # Safety
/// `hierarchy` is as its fields say ([`Hierarchy`]): at least one level,
/// the level starts ascending from 0, each level's wide vertices within
/// it, arcs' heads `< kept_count`; a lower arc joins a vertex to one of a
/// lower level, a higher arc to one of a higher level, or one core vertex
/// (the last level) to another; no path's length reaches `u32::MAX`. The
/// seeds are `< kept_count`, the second may be
/// `chain_contracted::NO_ENTRY`; `kept_levels` has `kept_count` entries;
/// `work` two.
///
/// # Launch
/// Grid 1, block [`hierarchy_sweep::BLOCK_SIZE`](crate::abi::hierarchy_sweep::BLOCK_SIZE);
/// shared memory `hierarchy_sweep::shared_bytes(kept_count, distances_in_shared)`.
///
/// # Thread mapping
/// Thread `t` takes the vertices `t`, `t + blockDim`, … of each level;
/// in the upward sweep, warp `w` first takes its wide vertices `w`,
/// `w + blockDim / 32`, …, lane `l` their arcs `l`, `l + 32`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hierarchy_sweep_search(
    hierarchy: Hierarchy,
    seeds: Seeds,
    distances_in_shared: u32,
    kept_levels: *mut u32,
    work: *mut u64,
) {
    let hierarchy = hierarchy.in_global();
    let flags = gpu::dynamic_shared_memory::<u32>();
    // SAFETY: the shared memory holds the header, and the distances after
    // it when `distances_in_shared` (the contract); else they are
    // `kept_levels`. A branch on a kernel parameter, uniform over the
    // block; two calls so that each inlined copy knows its distances'
    // state space.
    unsafe {
        if distances_in_shared != 0 {
            let distances = flags.add(hierarchy_sweep::HEADER_WORDS as usize);
            sweep(Block, hierarchy, (flags, distances), seeds, work);
            for_each_strided(Block, 0..hierarchy.kept_count, |vertex| {
                *kept_levels.add(vertex) = *distances.add(vertex);
            });
        } else {
            sweep(Block, hierarchy, (flags, kept_levels), seeds, work);
        }
    }
}

/// [`hierarchy_sweep_search`] by every block of a cooperative launch: the
/// distances in `kept_levels`, a grid barrier a level.
///
/// # Safety
/// As [`hierarchy_sweep_search`], and: `barrier_words` has three words,
/// `flags` three, `work` two, all zero at the launch and touched by
/// nothing else while it runs.
///
/// # Launch
/// Cooperative: at most as many blocks as stay resident, of
/// [`hierarchy_sweep::GRID_BLOCK_SIZE`](crate::abi::hierarchy_sweep::GRID_BLOCK_SIZE)
/// threads (whole warps); shared memory
/// [`hierarchy_sweep::GRID_SHARED_BYTES`](crate::abi::hierarchy_sweep::GRID_SHARED_BYTES).
///
/// # Thread mapping
/// Grid thread `t` of `T` takes the vertices `t`, `t + T`, … of each
/// level; in the upward sweep, the grid's warp `w` of `W` first takes its
/// wide vertices `w`, `w + W`, …, lane `l` their arcs `l`, `l + 32`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hierarchy_sweep_grid_search(
    hierarchy: Hierarchy,
    seeds: Seeds,
    kept_levels: *mut u32,
    barrier_words: *mut u64,
    flags: *mut u32,
    work: *mut u64,
) {
    let hierarchy = hierarchy.in_global();
    let grid = Grid {
        words: barrier_words,
        shared: gpu::dynamic_shared_memory::<u32>(),
        passed: 0,
    };
    // SAFETY: the grid is resident (a cooperative launch within the
    // occupancy), the barrier words, flags and work are the launch's own
    // and zero (the contract), the shared word is the barrier's.
    unsafe { sweep(grid, hierarchy, (flags, kept_levels), seeds, work) }
}

/// The threads that sweep together, and the barrier that ends a level:
/// one block, or the whole grid.
trait Team: Copy {
    /// Whether other blocks write the distances this one reads: their
    /// loads and stores then go to L2, never to this multiprocessor's L1.
    const ACROSS_BLOCKS: bool;

    /// This thread's rank in the team.
    fn rank(&self) -> u32;

    /// Threads in the team.
    fn size(&self) -> u32;

    /// Waits for the whole team; what any of it wrote before is visible
    /// to all of it after.
    ///
    /// # Safety
    /// Every thread of the team calls it, as many times as the others.
    unsafe fn barrier(&mut self);
}

/// One block: `bar.sync`.
#[derive(Clone, Copy)]
struct Block;

impl Team for Block {
    const ACROSS_BLOCKS: bool = false;

    #[inline(always)]
    fn rank(&self) -> u32 {
        gpu::thread_index()
    }

    #[inline(always)]
    fn size(&self) -> u32 {
        gpu::block_size()
    }

    #[inline(always)]
    unsafe fn barrier(&mut self) {
        gpu::sync_threads();
    }
}

/// Every block of a cooperative launch: a grid barrier on three rotating
/// words, each zeroed again by the first thread once every block has
/// left the barrier that last used it.
#[derive(Clone, Copy)]
struct Grid {
    words: *mut u64,
    shared: *mut u32,
    passed: u32,
}

impl Team for Grid {
    const ACROSS_BLOCKS: bool = true;

    #[inline(always)]
    fn rank(&self) -> u32 {
        gpu::global_thread_index()
    }

    #[inline(always)]
    fn size(&self) -> u32 {
        gpu::grid_threads()
    }

    #[inline(always)]
    unsafe fn barrier(&mut self) {
        // SAFETY: barrier `k` uses word `k % 3`; every block has left
        // barrier `k - 1` before any passes barrier `k`, so word
        // `(k + 2) % 3` is free to zero, and barrier `k + 1`'s release
        // orders the zero before barrier `k + 2`'s arrivals.
        unsafe {
            gpu::grid_barrier_with_count(
                self.words.add((self.passed % 3) as usize),
                gpu::grid_size(),
                self.shared,
            );
            if self.rank() == 0 {
                write_volatile(self.words.add(((self.passed + 2) % 3) as usize), 0);
            }
        }
        self.passed += 1;
    }
}

/// A distance or flag another thread of the team may have written before
/// the last barrier.
///
/// # Safety
/// `address` is valid and not written during the call.
#[inline(always)]
unsafe fn load<T: Team>(address: *const u32) -> u32 {
    // SAFETY: the caller's.
    unsafe {
        if T::ACROSS_BLOCKS {
            read_volatile(address)
        } else {
            *address
        }
    }
}

/// A distance other threads of the team read after the next barrier.
///
/// # Safety
/// `address` is valid and no other thread accesses it during the call.
#[inline(always)]
unsafe fn store<T: Team>(address: *mut u32, value: u32) {
    // SAFETY: the caller's.
    unsafe {
        if T::ACROSS_BLOCKS {
            write_volatile(address, value)
        } else {
            *address = value
        }
    }
}

/// [`hierarchy_sweep_search`] with its distances at `distances`.
///
/// # Safety
/// As [`hierarchy_sweep_search`]; `flags` has the header's words,
/// `distances` `kept_count` entries.
#[inline(always)]
unsafe fn sweep<T: Team>(
    mut team: T,
    hierarchy: Hierarchy,
    (flags, distances): (*mut u32, *mut u32),
    seeds: Seeds,
    work: *mut u64,
) {
    let (thread, kept_count) = (team.rank(), hierarchy.kept_count);
    let core_level = hierarchy.level_count - 1;
    // SAFETY: vertices and heads are `< kept_count`, levels
    // `< level_count` (the contract). Within a level, a thread writes only
    // its own vertices' distances and reads those of other levels, written
    // before the barrier that ended theirs; in the core rounds, distances
    // are only accessed atomically, and each round's flag is set before
    // the barrier that precedes its reads and cleared two rounds later.
    // Every thread runs every loop the same number of times (their bounds
    // are kernel parameters or read after a barrier), so every thread
    // reaches every barrier.
    unsafe {
        for_each_strided(team, 0..kept_count, |vertex| {
            store::<T>(distances.add(vertex), UNREACHED);
        });
        if thread < hierarchy_sweep::HEADER_WORDS {
            store::<T>(flags.add(thread as usize), 0);
        }
        if thread == 0 && !T::ACROSS_BLOCKS {
            *work.add(1) = 0;
        }
        team.barrier();
        if thread == 0 {
            let seeds = [
                (seeds.first, seeds.first_distance),
                (seeds.second, seeds.second_distance),
            ];
            for (seed, distance) in seeds {
                if seed != chain_contracted::NO_ENTRY {
                    let label = distances.add(seed as usize);
                    store::<T>(label, load::<T>(label).min(distance));
                }
            }
        }
        team.barrier();
        let (mut barriers, mut arcs_read) = (2u64, 0u64);

        // Upward: the core last, from its lower neighbours only; a warp
        // for each wide vertex, a thread for each of the others.
        let (warp, warps) = (thread / WARP_SIZE, team.size() / WARP_SIZE);
        for level in 1..=core_level {
            let (first, end) = level_range(&hierarchy, level);
            let wide_end = gpu::load_read_only(hierarchy.wide_ends.add(level as usize));
            let mut wide = first + warp;
            while wide < wide_end {
                arcs_read += pull_by_warp::<T>(
                    (hierarchy.lower_rows, hierarchy.lower_arcs),
                    distances,
                    wide,
                );
                wide += warps;
            }
            for_each_strided(team, wide_end..end, |vertex| {
                arcs_read += pull::<T>(
                    (hierarchy.lower_rows, hierarchy.lower_arcs),
                    distances,
                    vertex as u32,
                );
            });
            team.barrier();
            barriers += 1;
        }

        // The core: Bellman–Ford rounds; round r sets flag r % 3 if it
        // lowered a distance.
        let (first, end) = level_range(&hierarchy, core_level);
        let mut round = 0;
        if first < end {
            loop {
                if thread == 0 {
                    store::<T>(flags.add(((round + 1) % 3) as usize), 0);
                }
                let mut lowered = false;
                for_each_strided(team, first..end, |vertex| {
                    let distance = gpu::atomic_read(distances.add(vertex));
                    if distance == UNREACHED {
                        return;
                    }
                    let (rows, arcs) = (hierarchy.higher_rows, hierarchy.higher_arcs);
                    let (mut arc, arc_end) = (
                        gpu::load_read_only(rows.add(vertex)),
                        gpu::load_read_only(rows.add(vertex + 1)),
                    );
                    arcs_read += (arc_end - arc) as u64;
                    while arc < arc_end {
                        let head = gpu::load_read_only(arcs.add(2 * arc as usize));
                        let through =
                            distance + gpu::load_read_only(arcs.add(2 * arc as usize + 1));
                        if through < gpu::atomic_min(distances.add(head as usize), through) {
                            lowered = true;
                        }
                        arc += 1;
                    }
                });
                if lowered {
                    gpu::atomic_or(flags.add((round % 3) as usize), 1);
                }
                team.barrier();
                barriers += 1;
                if load::<T>(flags.add((round % 3) as usize)) == 0 {
                    break;
                }
                round += 1;
            }
        }

        // Downward: the highest contracted level first.
        for level in (0..core_level).rev() {
            let (first, end) = level_range(&hierarchy, level);
            for_each_strided(team, first..end, |vertex| {
                arcs_read += pull::<T>(
                    (hierarchy.higher_rows, hierarchy.higher_arcs),
                    distances,
                    vertex as u32,
                );
            });
            team.barrier();
            barriers += 1;
        }

        if thread == 0 {
            *work = barriers;
        }
        gpu::atomic_add_u64(work.add(1), arcs_read);
    }
}

/// Lowers `vertex`'s distance to the least of its arcs' heads' distances
/// plus their weights; returns the arcs read.
///
/// # Safety
/// `rows` has an entry for `vertex` and the next; its arcs' heads index
/// `distances`, none of them written during the call.
#[inline(always)]
unsafe fn pull<T: Team>(
    rows_and_arcs: (*const u32, *const u32),
    distances: *mut u32,
    vertex: u32,
) -> u64 {
    // SAFETY: the heads index `distances` (the contract).
    unsafe {
        let (least, arcs_read) = least_along(
            rows_and_arcs,
            vertex,
            || load::<T>(distances.add(vertex as usize)),
            |head| load::<T>(distances.add(head as usize)),
        );
        store::<T>(distances.add(vertex as usize), least);
        arcs_read
    }
}

/// The least of `own()` (read once the row is known) and, over
/// `vertex`'s arcs, `label(head)` plus the arc's weight, and the arcs
/// read: [`PULL_BATCH`] arcs' loads in flight, then
/// their labels. `hierarchy_trees` pulls along the same rows for a batch
/// of sources, each label a column.
///
/// # Safety
/// `rows` has an entry for `vertex` and the next, `arcs` two words for
/// each of its arcs; `label` may be called with each head.
#[inline(always)]
// Indexed loops over a constant range unroll and keep the arrays in registers.
#[allow(clippy::needless_range_loop)]
pub(crate) unsafe fn least_along(
    (rows, arcs): (*const u32, *const u32),
    vertex: u32,
    own: impl FnOnce() -> u32,
    label: impl Fn(u32) -> u32,
) -> (u32, u64) {
    // SAFETY: the arcs `first..end` of `vertex` (the contract).
    unsafe {
        let (mut arc, end) = (
            gpu::load_read_only(rows.add(vertex as usize)),
            gpu::load_read_only(rows.add(vertex as usize + 1)),
        );
        let arcs_read = (end - arc) as u64;
        let mut least = own();
        while arc < end {
            let count = ((end - arc) as usize).min(PULL_BATCH);
            let mut heads = [0u32; PULL_BATCH];
            let mut weights = [0u32; PULL_BATCH];
            for k in 0..PULL_BATCH {
                if k < count {
                    let pair = arcs.add(2 * (arc as usize + k));
                    heads[k] = gpu::load_read_only(pair);
                    weights[k] = gpu::load_read_only(pair.add(1));
                }
            }
            for k in 0..PULL_BATCH {
                if k < count {
                    least = least.min(label(heads[k]).saturating_add(weights[k]));
                }
            }
            arc += count as u32;
        }
        (least, arcs_read)
    }
}

/// [`pull`] by a whole warp: lane `l` takes the arcs `l`, `l + 32`, …, the
/// warp's least distance goes to `vertex`; returns the arcs this lane read,
/// so that the lanes' counts add up to the vertex's arcs.
///
/// # Safety
/// As [`pull`]; every lane of the warp calls it with the same `vertex`.
#[inline(always)]
unsafe fn pull_by_warp<T: Team>(
    (rows, arcs): (*const u32, *const u32),
    distances: *mut u32,
    vertex: u32,
) -> u64 {
    let lane = gpu::lane_index();
    // SAFETY: the arcs of `vertex`, heads in bounds (the contract); only
    // lane 0 writes `vertex`'s distance, which no other thread reads in
    // this level.
    unsafe {
        let (first, end) = (
            gpu::load_read_only(rows.add(vertex as usize)),
            gpu::load_read_only(rows.add(vertex as usize + 1)),
        );
        let mut least = UNREACHED;
        let mut arc = first + lane;
        while arc < end {
            let pair = arcs.add(2 * arc as usize);
            let head = gpu::load_read_only(pair);
            let weight = gpu::load_read_only(pair.add(1));
            least = least.min(load::<T>(distances.add(head as usize)).saturating_add(weight));
            arc += WARP_SIZE;
        }
        let least = gpu::warp_min(least);
        if lane == 0 {
            let own = distances.add(vertex as usize);
            store::<T>(own, load::<T>(own).min(least));
        }
        (end - first).saturating_sub(lane).div_ceil(WARP_SIZE) as u64
    }
}

/// The team calls `body(i)` for each `i` of `range`, its thread `t` of
/// `T` for `range.start + t`, `range.start + t + T`, ….
#[inline(always)]
fn for_each_strided<T: Team>(team: T, range: core::ops::Range<u32>, mut body: impl FnMut(usize)) {
    let mut index = range.start + team.rank();
    while index < range.end {
        body(index as usize);
        index += team.size();
    }
}
