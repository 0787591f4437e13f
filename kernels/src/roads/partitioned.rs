//! # Partition-local search: many BFS levels per grid-wide exchange
//!
//! A level-synchronous search pays one grid-wide barrier per level, and a
//! road network has thousands of levels of a few hundred vertices. Here the
//! vertices are numbered so that each partition of `partition_size`
//! consecutive ids is a compact piece of the graph (the host grows them by
//! BFS, `graph::reorder`), and a block searches a partition in shared
//! memory, level after level with only block barriers. Edges that leave
//! the partition carry their discoveries to the owner block through global
//! memory, and there is no grid barrier at all: each block searches its
//! partitions whenever they have news, on its own, until nothing is
//! outstanding anywhere. This is the partition-centric ("think like a
//! graph") scheme of Tian et al., VLDB 2013, run asynchronously and
//! label-correcting as in Atos (Chen et al., PPoPP 2022) and Davidson et
//! al.'s work-efficient GPU shortest paths (IPDPS 2014): a vertex may first
//! get a level too high, from the side the wave reached first, and is
//! searched from again when a lower one arrives.
//!
//! Labels, in global memory, are one 64-bit word per vertex: the level in
//! the high half, the parent in the low half, [`UNREACHED`](crate::abi::UNREACHED)
//! in both when unreached. `atomicMin` on the word lowers both together, so
//! a parent always belongs to the level beside it. A `dirty` bit per vertex
//! says its label was lowered from outside its partition (or that it waits
//! past the last search's window), and `outstanding` counts the dirty bits
//! set and not yet fully handled: the search is over when it reads 0.
//!
//! A search of one partition, by its block, when any of its dirty bits is set:
//! 1. stage the partition's rows and neighbours in shared memory (once,
//!    when every partition has its own block; each time, when there are
//!    more partitions than blocks), and its levels;
//! 2. take the dirty bits (an acquire exchange, pairing with the release
//!    that set them), and make each vertex whose level dropped a *seed*;
//! 3. search, level by level from the lowest seed's, at most
//!    `level_window` levels: each vertex in the queue of level `c` lowers
//!    its neighbours inside the partition to `c + 1` with a shared
//!    `atomicMin` on their state words, and the winner queues each for
//!    `c + 1`; a vertex with neighbours outside goes to the outbox; seeds
//!    join the queue of their own level. One block barrier a level;
//! 4. write back the labels the search lowered, and mark dirty the vertices
//!    still pending past the window;
//! 5. send the outbox: each vertex lowers its outside neighbours' global
//!    labels with `atomicMin`, marking each it lowered dirty. Sent at the
//!    end, all at once, these cost one round trip to L2, not one in every
//!    level that touches the boundary; the levels sent are final for this
//!    search, which went in level order;
//! 6. count the dirty bits it took as handled, now that every mark they led
//!    to is counted (so `outstanding` never reads 0 while work remains).
//!
//! Nothing in a level touches global memory: a block barrier waits for the
//! global accesses issued before it, so one label written to L2 in a level
//! would cost the level a round trip.
//!
//! The window bounds wasted work: a partition reached early, from the
//! wrong side, would otherwise search all of its levels (a hundred or more
//! on a road network) with levels a later search corrects (unbounded,
//! Luxembourg's search examined 6.6 times the edges of a level-synchronous
//! one; with a window of 16, 1.2 times). Between windows the block takes in
//! what its neighbours sent meanwhile.
//!
//! Shared state word per vertex: `level << 2 | lowered << 1 | pending`:
//! `pending` until the vertex is expanded at that level, `lowered` when the
//! search lowered it (its label is to be written back); unreached is the
//! highest level with neither. A shared `atomicMin` that lowers the level
//! sets both flags with it, and one that would only reach the same level
//! changes nothing. The kernel counts the partition searches, the edges it
//! examined (each expansion's out-degree) and the levels searched, so the
//! work beyond a level-synchronous search's can be measured.

use crate::abi::partitioned;
use crate::abi::{EdgeOffset, UNREACHED};
use crate::gpu;

/// The `pending` bit of a shared state word: expand at its level.
const PENDING: u32 = 1;

/// The `lowered` bit of a shared state word: write its label back.
const LOWERED: u32 = 2;

/// The shared state word of an unreached vertex.
const UNREACHED_STATE: u32 = !(PENDING | LOWERED);

/// Runs the whole search: each block searches its partitions whenever
/// they have dirty bits, until no dirty bit is outstanding anywhere.
///
/// # Safety
/// `row_offsets` has `n + 1` entries and `column_indices` `row_offsets[n]`,
/// ids `< n`, renumbered so that vertices `p * partition_size ..` form
/// partition `p`; `partition_size` is a positive multiple of 32 and below
/// 2^27; `labels` has `n` words, all [`UNREACHED`](crate::abi::UNREACHED)
/// in both halves but the source's (0); `dirty` is a bitmap of `n` bits,
/// all clear but the source's; `outstanding` is 1 (the source's bit);
/// `counters` three `u64` set to 0, which receive the partition searches,
/// the edges examined and the levels searched, added up. Every level is
/// below 2^30 - 1 (`n < 2^30`).
///
/// # Launch
/// Cooperative, at most the occupancy's blocks (the host uses one per
/// multiprocessor: blocks wait for each other's work), block
/// [`partitioned::BLOCK_SIZE`](crate::abi::partitioned::BLOCK_SIZE) (whole
/// warps), shared memory
/// [`partitioned::shared_bytes`](crate::abi::partitioned::shared_bytes)`(partition_size,
/// column_capacity)`.
///
/// # Thread mapping
/// Block `b` owns partitions `b`, `b + B`, … (`B` blocks); within a
/// partition, thread `t` handles vertices and queue entries `t`,
/// `t + blockDim`, ….
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn partitioned_search(
    row_offsets: *const EdgeOffset,
    column_indices: *const u32,
    vertex_count: u32,
    partition_size: u32,
    column_capacity: u32,
    level_window: u32,
    labels: *mut u64,
    dirty: *mut u32,
    outstanding: *mut u64,
    counters: *mut u64,
) {
    // (`max(1)`: the contract rules 0 out; this tells the compiler, so
    // the division has no panic path.)
    let partitions = vertex_count.div_ceil(partition_size.max(1));
    // Each block keeps one partition in shared memory for the whole search.
    let resident = partitions <= gpu::grid_size();
    let mut staged = false;
    let (mut searches, mut edges_examined, mut levels_searched) = (0u64, 0u64, 0u64);
    // SAFETY: `search_partition`'s contract is this kernel's, for a
    // partition below `partitions`. The loop exits on a block-wide vote,
    // so all threads of a block reach every block barrier.
    unsafe {
        loop {
            let mut searched_any = false;
            let mut partition = gpu::block_index();
            while partition < partitions {
                let first = partition * partition_size;
                let searched = search_partition(
                    (row_offsets, column_indices),
                    Partition {
                        first,
                        size: partition_size.min(vertex_count - first),
                    },
                    (partition_size, column_capacity, level_window),
                    (labels, dirty, outstanding),
                    match (resident, staged) {
                        (false, _) => Staging::EachSearch,
                        (true, false) => Staging::FirstSearch,
                        (true, true) => Staging::Kept,
                    },
                );
                if let Some((edges, levels)) = searched {
                    searches += 1;
                    edges_examined += edges;
                    levels_searched += levels as u64;
                    searched_any = true;
                    staged = resident;
                }
                partition += gpu::grid_size();
            }
            // Nothing here to search: done once nothing is outstanding.
            let finished = !searched_any
                && gpu::thread_index() == 0
                && gpu::load_acquire_gpu(outstanding) == 0;
            if gpu::sync_threads_or(finished) {
                break;
            }
        }
        if edges_examined > 0 {
            gpu::atomic_add_u64(counters.add(1), edges_examined);
        }
        if gpu::thread_index() == 0 {
            gpu::atomic_add_u64(counters, searches);
            gpu::atomic_add_u64(counters.add(2), levels_searched);
        }
    }
}

/// Where a search finds its partition's rows, neighbours and levels.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Staging {
    /// Staged from global memory at every search (more partitions than
    /// blocks), levels too: each vertex counts as expanded at its label's
    /// level, but for the dirty ones, which are all searched from.
    EachSearch,
    /// Staged for the block's first search, to be kept: every vertex starts
    /// unreached, and all its labels come in through dirty bits. (Staged as
    /// expanded, a vertex whose label a neighbour lowered just before its
    /// dirty bit was set would count as expanded at that level when the bit
    /// came, and never be.)
    FirstSearch,
    /// Kept in shared memory since the block's earlier searches.
    Kept,
}

/// A partition: vertices `first .. first + size`.
#[derive(Clone, Copy)]
struct Partition {
    first: u32,
    size: u32,
}

/// One search inside `partition`, by the whole block: stage it (as
/// `staging` says), take its dirty bits, search from the lowest seed's
/// level until nothing in it is pending up to `level_window` levels
/// further (`bound`), write back the labels it lowered, keep the vertices
/// still pending dirty, send what crossed its boundary, and only then
/// count the dirty bits it took as done. Returns the edges this thread examined and the levels
/// searched, or `None`, past one block barrier, when no dirty bit is set
/// and so nothing was done.
///
/// # Safety
/// As [`partitioned_search`], with `partition` one of its partitions;
/// `staging` [`Staging::Kept`] only when the block's earlier searches were
/// of this partition alone; every thread of the block calls it.
#[inline(always)]
unsafe fn search_partition(
    (row_offsets, column_indices): (*const EdgeOffset, *const u32),
    partition: Partition,
    (partition_size, column_capacity, level_window): (u32, u32, u32),
    (labels, dirty, outstanding): (*mut u64, *mut u32, *mut u64),
    staging: Staging,
) -> Option<(u64, u32)> {
    let kept = staging == Staging::Kept;
    let shared = gpu::dynamic_shared_memory::<u32>();
    let (thread, threads) = (gpu::thread_index(), gpu::block_size());
    // SAFETY: the header's words, then the per-vertex arrays, as
    // `partitioned::shared_bytes` lays them out.
    let (queue_tails, seed_levels, taken_bits, first_edge_word, outbox_tail, seed_counts) = unsafe {
        (
            shared,
            shared.add(3),
            shared.add(6),
            shared.add(10).cast::<EdgeOffset>(),
            shared.add(7),
            shared.add(8),
        )
    };
    // SAFETY: as above.
    let (state, parents, queues, outbox, offsets, shared_columns) = unsafe {
        let state = shared.add(partitioned::HEADER_WORDS as usize);
        let parents = state.add(partition_size as usize);
        let queues = parents.add(partition_size as usize);
        let outbox = queues.add(2 * partition_size as usize);
        let offsets = outbox.add(partition_size as usize);
        let shared_columns = offsets.add(partition_size as usize + 1);
        (state, parents, queues, outbox, offsets, shared_columns)
    };
    let first_dirty_word = partition.first / 32;
    let dirty_words = partition.size.div_ceil(32);
    let mut edges_examined = 0u64;
    // SAFETY: every index below is within the partition's vertices, rows,
    // dirty words or the shared arrays sized for them (the contract);
    // barriers are reached by every thread, loop bounds being the same for
    // the block (read from shared memory after a barrier).
    unsafe {
        let mut any_dirty = false;
        let mut word = thread;
        while word < dirty_words {
            any_dirty |=
                core::ptr::read_volatile(dirty.add((first_dirty_word + word) as usize)) != 0;
            word += threads;
        }
        if !gpu::sync_threads_or(any_dirty) {
            return None;
        }
        // 1. Stage rows, neighbours and levels, or find them still there.
        if !kept {
            let first_edge = gpu::load_read_only_u64(row_offsets.add(partition.first as usize));
            let mut vertex = thread;
            while vertex <= partition.size {
                let offset =
                    gpu::load_read_only_u64(row_offsets.add((partition.first + vertex) as usize));
                // Within a partition, offsets fit 32 bits (the host checks).
                *offsets.add(vertex as usize) = (offset - first_edge) as u32;
                if vertex < partition.size {
                    *state.add(vertex as usize) = if staging == Staging::EachSearch {
                        let label = labels.add((partition.first + vertex) as usize);
                        expanded_at(level_of(core::ptr::read_volatile(label)))
                    } else {
                        UNREACHED_STATE
                    };
                }
                vertex += threads;
            }
            let edge_count = (gpu::load_read_only_u64(
                row_offsets.add((partition.first + partition.size) as usize),
            ) - first_edge) as u32;
            if edge_count <= column_capacity {
                let mut edge = thread;
                while edge < edge_count {
                    *shared_columns.add(edge as usize) = gpu::load_read_only(
                        column_indices.add((first_edge + edge as EdgeOffset) as usize),
                    );
                    edge += threads;
                }
            }
            if thread == 0 {
                *first_edge_word = first_edge;
            }
        }
        if thread == 0 {
            *seed_levels = UNREACHED;
            *seed_levels.add(1) = UNREACHED;
            *queue_tails = 0;
            *queue_tails.add(1) = 0;
            *outbox_tail = 0;
            *taken_bits = 0;
            *seed_counts = 0;
        }
        gpu::sync_threads();
        let edge_count = *offsets.add(partition.size as usize);
        let columns: *const u32 = if edge_count <= column_capacity {
            shared_columns
        } else {
            column_indices.add(*first_edge_word as usize)
        };

        // 2. Dirty vertices whose level dropped become pending seeds, with
        // the parent their label brings; `seed_levels[0]` gets the lowest
        // (kept pending seeds count too).
        let mut word = thread;
        while word < dirty_words {
            let address = dirty.add((first_dirty_word + word) as usize);
            let mut bits = if core::ptr::read_volatile(address) != 0 {
                gpu::exchange_acquire_gpu(address, 0)
            } else {
                0
            };
            if bits != 0 {
                gpu::atomic_add(taken_bits, bits.count_ones());
            }
            while bits != 0 {
                let vertex = word * 32 + bits.trailing_zeros();
                bits &= bits - 1;
                let label =
                    core::ptr::read_volatile(labels.add((partition.first + vertex) as usize));
                let known = *state.add(vertex as usize);
                if !kept || level_of(label) < known >> 2 {
                    *state.add(vertex as usize) = level_of(label) << 2 | PENDING;
                    *parents.add(vertex as usize) = label as u32;
                    gpu::atomic_min(seed_levels, level_of(label));
                } else if known & PENDING != 0 {
                    gpu::atomic_min(seed_levels, known >> 2);
                }
            }
            word += threads;
        }

        // 3. Search level by level up to `bound`. The queue of `level`
        // holds the vertices the previous level lowered to it, and the
        // seeds at `level`, which a scan adds when `level` reaches the
        // lowest seed level (a few times a search, not every level). Seeds
        // are counted apart: every thread reads the queue's tail after the
        // previous level's barrier to choose this level, and one that
        // reads it late must find what the others found.
        gpu::sync_threads();
        let mut level = *seed_levels;
        let bound = level.saturating_add(level_window);
        let (mut step, mut seed_scans) = (0u32, 0u32);
        // (No seed, when no dirty bit lowered a level: `level` is UNREACHED.)
        while level != UNREACHED && level <= bound {
            let queue = queues.add(((step % 2) * partition_size) as usize);
            let next_queue = queues.add((((step + 1) % 2) * partition_size) as usize);
            let tail = queue_tails.add((step % 3) as usize);
            let next_tail = queue_tails.add(((step + 1) % 3) as usize);
            let mut listed = *tail;
            if *seed_levels.add((seed_scans % 3) as usize) == level {
                let later_seeds = seed_levels.add(((seed_scans + 1) % 3) as usize);
                let seeds = seed_counts.add((seed_scans % 2) as usize);
                if thread == 0 {
                    *seed_levels.add(((seed_scans + 2) % 3) as usize) = UNREACHED;
                    *seed_counts.add(((seed_scans + 1) % 2) as usize) = 0;
                }
                let mut later = UNREACHED;
                let mut vertex = thread;
                while vertex < partition.size {
                    let word = *state.add(vertex as usize);
                    if word & (PENDING | LOWERED) == PENDING && word >> 2 >= level {
                        if word >> 2 == level {
                            let slot = listed + gpu::atomic_add(seeds, 1);
                            *queue.add(slot as usize) = vertex;
                        } else {
                            later = later.min(word >> 2);
                        }
                    }
                    vertex += threads;
                }
                let later = gpu::warp_min(later);
                if gpu::lane_index() == 0 && later != UNREACHED {
                    gpu::atomic_min(later_seeds, later);
                }
                seed_scans += 1;
                gpu::sync_threads();
                listed += *seeds;
            }
            if thread == 0 {
                *queue_tails.add(((step + 2) % 3) as usize) = 0;
            }
            // Each queued vertex lowers its neighbours inside to
            // `level + 1`; the winner of each records itself as parent and
            // queues it. One with neighbours outside goes to the outbox.
            let lowered = (level + 1) << 2 | LOWERED | PENDING;
            let mut entry = thread;
            while entry < listed {
                let vertex = *queue.add(entry as usize);
                let (first, end) = (
                    *offsets.add(vertex as usize),
                    *offsets.add(vertex as usize + 1),
                );
                edges_examined += (end - first) as u64;
                let mut crosses = false;
                let mut edge = first;
                while edge < end {
                    let local = (*columns.add(edge as usize)).wrapping_sub(partition.first);
                    if local < partition.size {
                        let old = gpu::atomic_min(state.add(local as usize), lowered);
                        if old >> 2 > level + 1 {
                            *parents.add(local as usize) = partition.first + vertex;
                            *next_queue.add(gpu::atomic_add(next_tail, 1) as usize) = local;
                        }
                    } else {
                        crosses = true;
                    }
                    edge += 1;
                }
                if crosses {
                    *outbox.add(gpu::atomic_add(outbox_tail, 1) as usize) = vertex;
                }
                entry += threads;
            }
            gpu::sync_threads();
            step += 1;
            level = if *next_tail > 0 {
                level + 1
            } else {
                *seed_levels.add((seed_scans % 3) as usize)
            };
        }

        // 4. Write back the lowered labels. Pending vertices above the
        // bound (queued for `bound + 1`, or seeds beyond it) stay pending
        // and dirty for the next search; the rest were expanded.
        let mut vertex = thread;
        while vertex < partition.size {
            let word = *state.add(vertex as usize);
            let id = partition.first + vertex;
            if word & LOWERED != 0 {
                let label = ((word >> 2) as u64) << 32 | *parents.add(vertex as usize) as u64;
                gpu::atomic_min_u64(labels.add(id as usize), label);
            }
            let still_pending = word & PENDING != 0 && word >> 2 > bound;
            if still_pending {
                mark_dirty(dirty, outstanding, id);
            }
            let settled = if still_pending {
                word & !LOWERED
            } else {
                word & !(LOWERED | PENDING)
            };
            if settled != word {
                *state.add(vertex as usize) = settled;
            }
            vertex += threads;
        }

        // 5. Send the outbox: each vertex's level is final for this search.
        // (The barrier orders the write-back's state updates before the
        // reads below.)
        gpu::sync_threads();
        let sending = *outbox_tail;
        let mut entry = thread;
        while entry < sending {
            let vertex = *outbox.add(entry as usize);
            let label = (((*state.add(vertex as usize) >> 2) as u64 + 1) << 32)
                | (partition.first + vertex) as u64;
            let (first, end) = (
                *offsets.add(vertex as usize),
                *offsets.add(vertex as usize + 1),
            );
            let mut edge = first;
            while edge < end {
                let neighbour = *columns.add(edge as usize);
                if neighbour.wrapping_sub(partition.first) >= partition.size {
                    let old = gpu::atomic_min_u64(labels.add(neighbour as usize), label);
                    if level_of(old) > level_of(label) {
                        mark_dirty(dirty, outstanding, neighbour);
                    }
                }
                edge += 1;
            }
            entry += threads;
        }
        // 6. The bits taken are handled once every mark they led to is counted.
        gpu::sync_threads();
        if thread == 0 {
            gpu::add_release_gpu(outstanding, (*taken_bits as u64).wrapping_neg());
        }
        Some((edges_examined, step))
    }
}

/// Sets `vertex`'s dirty bit, counting it as outstanding: counted first
/// and set with release, so whoever takes the bit (with acquire) sees the
/// count and the label written before it, and cannot count it done before
/// it was counted; a bit already set is not counted twice.
///
/// # Safety
/// `vertex`'s bit is in `dirty`; `outstanding` is the search's count.
#[inline(always)]
pub(crate) unsafe fn mark_dirty(dirty: *mut u32, outstanding: *mut u64, vertex: u32) {
    let bit = 1 << (vertex % 32);
    // SAFETY: forwarded from the caller.
    unsafe {
        gpu::atomic_add_u64(outstanding, 1);
        if gpu::fetch_or_release_gpu(dirty.add((vertex / 32) as usize), bit) & bit != 0 {
            gpu::atomic_add_u64(outstanding, u64::MAX);
        }
    }
}

/// The level in a global label's high half.
#[inline(always)]
fn level_of(label: u64) -> u32 {
    (label >> 32) as u32
}

/// The shared state word of a vertex already expanded at `level`.
#[inline(always)]
fn expanded_at(level: u32) -> u32 {
    if level == UNREACHED {
        UNREACHED_STATE
    } else {
        level << 2
    }
}
