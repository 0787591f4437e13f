//! # Direction-optimizing BFS: top-down from a queue, bottom-up over bitmaps
//!
//! Beamer, Asanović & Patterson, "Direction-Optimizing Breadth-First
//! Search" (SC 2012), as in the GAP benchmark suite's `bfs.cc`. On
//! low-diameter graphs a few middle levels hold most vertices; expanding
//! them top-down examines nearly every edge, while checking bottom-up —
//! every unvisited vertex scans its neighbours for one in the frontier and
//! stops at the first — examines few. The host switches by gapbs's rule:
//! to bottom-up when the frontier's edges (`scout_count`) exceed the
//! unexplored edges over α, back when the frontier shrinks below `n / β`.
//!
//! Kernels: [`direction_optimizing_top_down`] (a queue step that also sums
//! the new frontier's degrees, gapbs's `scout_count`, through
//! [`expand_top_down`], which [`crate::device_loop::persistent_direction_optimizing`]
//! shares),
//! [`direction_optimizing_bottom_up`] (gapbs's `BUStep`, counting
//! `awake_count`), and the conversions [`direction_optimizing_queue_to_bitmap`]
//! and [`direction_optimizing_bitmap_to_queue`].
//!
//! Encodings as in [`crate::textbook::global_queue`]; a bitmap holds bit `v % 32` of
//! word `v / 32` for vertex `v`. Bottom-up needs each vertex's in-neighbours,
//! which are its neighbours only in a symmetric graph: the host runs
//! directed graphs top-down only.

use crate::abi::EdgeOffset;
use crate::abi::direction_optimizing;
use crate::abi::frontier::FrontierLevel;
use crate::gpu::{self, FULL_WARP};
use crate::visit::{RowOffset, claim, entry_points_by_row_offset, row, row_neighbours};

/// One top-down level, adding the degrees of the vertices it discovers to
/// `*next_frontier_edges`. Load-balanced as Merrill, Garland & Grimshaw
/// ("Scalable GPU Graph Traversal", PPoPP 2012) gather
/// ([`gather_neighbour_lists`]): each thread takes one frontier vertex, and
/// its block, its warp or itself walks the list, by its length, so a hub
/// never serializes a thread, nor a warp ([`claim_and_append`] claims).
///
/// # Safety
/// As [`global_queue_expand`](crate::textbook::global_queue::global_queue_expand);
/// `next_frontier_edges` points to one `u64`.
///
/// # Launch
/// Grid `ceil(frontier_size / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE)
/// (a multiple of 32: every warp is whole), shared memory
/// [`direction_optimizing::TOP_DOWN_SHARED_BYTES`](crate::abi::direction_optimizing::TOP_DOWN_SHARED_BYTES).
///
/// # Thread mapping
/// Thread `i` owns `frontier[i]`; its block walks the longest lists of its
/// threads together, its warp the long ones, itself the short one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn direction_optimizing_top_down(
    level: FrontierLevel,
    next_frontier_edges: *mut u64,
) {
    let level = level.in_global();
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    // After the edge count: the elected owner and its list.
    let owner_slot = block_edges
        .wrapping_add(1)
        .cast::<direction_optimizing::ListOwner>();
    // SAFETY: the launch provides direction_optimizing::TOP_DOWN_SHARED_BYTES of shared
    // memory (a `u64` and a `direction_optimizing::ListOwner`), and every thread of whole warps runs
    // the gathering, as it requires; global accesses follow
    // `global_queue_expand`'s contract.
    unsafe {
        clear_block_sum(block_edges);
        let index = gpu::global_thread_index();
        let entry = if index < level.frontier_size {
            let vertex = gpu::load_read_only(level.frontier.add(index as usize));
            (vertex, row(level.row_offsets, vertex))
        } else {
            (0, (0, 0))
        };
        let labels = (level.visited, level.levels, level.parents);
        let append = append_to_queue(level.next_frontier, level.next_frontier_size);
        let graph = (level.row_offsets, level.column_indices);
        let edges = expand_top_down(graph, owner_slot, labels, entry, level.level + 1, append);
        add_block_sum(block_edges, edges, next_frontier_edges);
    }
}

/// Appends what a thread claims to `next_frontier`: the lanes that claim
/// together take their slots with one atomic on `*next_frontier_size`, as
/// a level can claim millions of vertices.
///
/// # Safety
/// `next_frontier` has room for every vertex, and each vertex is appended
/// once (claimed once); `next_frontier_size` is one `u32`.
#[inline(always)]
pub unsafe fn append_to_queue(
    next_frontier: *mut u32,
    next_frontier_size: *mut u32,
) -> impl Fn(u32, (EdgeOffset, EdgeOffset)) + Copy {
    move |neighbour, _| {
        // SAFETY: each slot is handed out once, within the queue (the contract).
        unsafe {
            let slot =
                gpu::coalesced_reserve_one(|total| gpu::atomic_add(next_frontier_size, total));
            *next_frontier.add(slot as usize) = neighbour;
        }
    }
}

/// Expands this thread's frontier entry, `(vertex, row)` (an empty row for
/// a thread without one), top-down for `next_level`:
/// [`gather_neighbour_lists`] shares out the block's lists,
/// [`claim_and_append`] visits each edge, `append` queues what this thread
/// claims. Returns the degrees of the vertices it claimed.
///
/// # Safety
/// As [`gather_neighbour_lists`] and [`claim_and_append`].
#[inline(always)]
pub unsafe fn expand_top_down<O: RowOffset>(
    (row_offsets, column_indices): (*const O, *const u32),
    owner_slot: *mut direction_optimizing::ListOwner,
    labels: (*mut u32, *mut u32, *mut u32),
    entry: (u32, (EdgeOffset, EdgeOffset)),
    next_level: u32,
    append: impl Fn(u32, (EdgeOffset, EdgeOffset)) + Copy,
) -> u64 {
    let mut edges = 0;
    // SAFETY: forwarded from the caller.
    unsafe {
        gather_neighbour_lists(column_indices, owner_slot, entry, |neighbour, parent| {
            claim_and_append(
                row_offsets,
                labels,
                (neighbour, parent),
                next_level,
                append,
                &mut edges,
            );
        });
    }
    edges
}

/// Walks the neighbour lists of a block's threads, Merrill, Garland &
/// Grimshaw's way: a list of at least a block's size of neighbours by the
/// whole block (the owner elected in shared memory, its row broadcast
/// there), then a list of [`WARP_SIZE`](crate::gpu::WARP_SIZE) or more by
/// the whole warp (owner found by `ballot`, row broadcast by `shuffle`),
/// the rest by their own thread. This thread's list is `vertex`'s edges
/// `first_edge..end_edge` (empty for a thread with no vertex); `visit` is
/// called with each edge's `(neighbour, vertex)`, by whichever lane walks
/// it.
///
/// # Safety
/// Every thread of the block calls it, in whole warps (it has block
/// barriers and warp votes); `owner_slot` is in shared memory, and
/// nothing else uses it meanwhile; the edges are within
/// `column_indices`, which nothing writes during the launch.
#[inline(always)]
pub unsafe fn gather_neighbour_lists(
    column_indices: *const u32,
    owner_slot: *mut direction_optimizing::ListOwner,
    (vertex, (mut first_edge, end_edge)): (u32, (EdgeOffset, EdgeOffset)),
    mut visit: impl FnMut(u32, u32),
) {
    let lane = gpu::lane_index();
    let thread_in_block = gpu::thread_index();
    let threads_in_block = gpu::block_size();
    // Every `step`-th edge of a list from its `offset`-th, counted in 32
    // bits from the list's start (a degree is below `n`).
    let mut walk =
        |(owner_vertex, (first, end)): (u32, (EdgeOffset, EdgeOffset)), offset: u32, step: u32| {
            let row = column_indices.wrapping_add(first as usize);
            let degree = (end - first) as u32;
            let mut index = offset;
            while index < degree {
                // SAFETY: `index` is within the row (the contract).
                let neighbour = unsafe { gpu::load_read_only(row.add(index as usize)) };
                visit(neighbour, owner_vertex);
                index += step;
            }
        };
    // SAFETY: `owner_slot` is the caller's shared `direction_optimizing::ListOwner`. Every thread
    // reaches every barrier (loop exits depend only on shared values read
    // after a barrier), and every lane every vote and shuffle.
    unsafe {
        // Longest lists: the whole block on one list at a time.
        loop {
            let owner = &raw mut (*owner_slot).thread;
            if thread_in_block == 0 {
                *owner = NO_OWNER;
            }
            gpu::sync_threads();
            if end_edge - first_edge >= threads_in_block as EdgeOffset {
                gpu::atomic_compare_exchange(owner, NO_OWNER, thread_in_block);
            }
            gpu::sync_threads();
            if *owner == NO_OWNER {
                break;
            }
            if thread_in_block == *owner {
                (*owner_slot).vertex = vertex;
                (*owner_slot).edges = (first_edge, end_edge);
                first_edge = end_edge;
            }
            gpu::sync_threads();
            let owner_list = ((*owner_slot).vertex, (*owner_slot).edges);
            walk(owner_list, thread_in_block, threads_in_block);
            // Everyone has read the owner's row before the next election.
            gpu::sync_threads();
        }
    }
    // Long lists: the whole warp on one list at a time.
    loop {
        let long = gpu::ballot(
            FULL_WARP,
            end_edge - first_edge >= gpu::WARP_SIZE as EdgeOffset,
        );
        if long == 0 {
            break;
        }
        let owner = long.trailing_zeros();
        let owner_list = (
            gpu::shuffle(FULL_WARP, vertex, owner),
            (
                gpu::shuffle_u64(FULL_WARP, first_edge, owner),
                gpu::shuffle_u64(FULL_WARP, end_edge, owner),
            ),
        );
        if lane == owner {
            first_edge = end_edge;
        }
        walk(owner_list, lane, gpu::WARP_SIZE);
    }
    // Short lists: each thread its own.
    // SAFETY: the row is within `column_indices` (the contract).
    for neighbour in unsafe { row_neighbours::<true>(column_indices, (first_edge, end_edge)) } {
        visit(neighbour, vertex);
    }
}

/// Sets the block's `*block_sum` to 0 before any thread adds to it with
/// [`add_block_sum`] (the block barrier orders the two).
///
/// # Safety
/// Every thread of the block calls it; `block_sum` is in shared memory.
#[inline(always)]
pub unsafe fn clear_block_sum(block_sum: *mut u64) {
    // SAFETY: the contract.
    unsafe {
        if gpu::thread_index() == 0 {
            *block_sum = 0;
        }
        gpu::sync_threads();
    }
}

/// Adds the threads' `value`s of a block to `*total` with one global
/// atomic: each warp sums its values with shuffles, its first lane adds
/// the warp's sum to `*block_sum` in shared memory (one shared atomic a
/// warp, not one a thread, which on a level where most threads have a
/// value would serialize on that one address), then thread 0 adds the
/// block's sum and sets `*block_sum` back to 0.
///
/// # Safety
/// Every thread of the block calls it; `*block_sum` is 0 before (as
/// [`clear_block_sum`] leaves it), and nothing else uses it until the next
/// block barrier; `total` is valid.
#[inline(always)]
pub unsafe fn add_block_sum(block_sum: *mut u64, value: u64, total: *mut u64) {
    // SAFETY: the contract; the barrier orders every shared addition
    // before thread 0 reads the sum.
    unsafe {
        let warp_sum = gpu::warp_sum_u64(value);
        if gpu::lane_index() == 0 && warp_sum > 0 {
            gpu::atomic_add_u64(block_sum, warp_sum);
        }
        gpu::sync_threads();
        if gpu::thread_index() == 0 && *block_sum > 0 {
            gpu::atomic_add_u64(total, *block_sum);
            *block_sum = 0;
        }
    }
}

/// A top-down visit of one edge: claims `neighbour`, found from `parent`,
/// for `next_level` and, if this thread won it, calls `append(neighbour,
/// row)` to queue it (with its row, `(first_edge, end_edge)`) and adds its
/// degree to `edges`: the next frontier's edges (gapbs's `scout_count`).
///
/// # Safety
/// The graph as in `global_queue_expand`, `labels` (visited, levels,
/// parents) as for [`claim`].
#[inline(always)]
pub unsafe fn claim_and_append<O: RowOffset>(
    row_offsets: *const O,
    (visited, levels, parents): (*mut u32, *mut u32, *mut u32),
    (neighbour, parent): (u32, u32),
    next_level: u32,
    append: impl FnOnce(u32, (EdgeOffset, EdgeOffset)),
    edges: &mut u64,
) {
    // SAFETY: `neighbour < n` and the labels as the contract says.
    unsafe {
        if claim(visited, levels, parents, neighbour, parent, next_level) {
            let (first_edge, end_edge) = row(row_offsets, neighbour);
            append(neighbour, (first_edge, end_edge));
            *edges += end_edge - first_edge;
        }
    }
}

/// No thread has claimed the block's attention.
const NO_OWNER: u32 = u32::MAX;

entry_points_by_row_offset!(
    /// One bottom-up level: every unvisited vertex looks for a parent in
    /// `frontier_bitmap`, stopping at the first; found ones go into
    /// `next_bitmap` and are counted in `*awake_count`.
    ///
    /// # Safety
    /// `row_offsets`/`column_indices` as in `global_queue_expand` for a
    /// symmetric graph; `frontier_bitmap` and `next_bitmap` have
    /// `ceil(vertex_count / 32)` words, `next_bitmap` cleared, and so has the
    /// `visited` bitmap; `levels`, `parents` have `vertex_count` entries; `awake_count` points to one `u32`.
    ///
    /// # Launch
    /// Grid `ceil(vertex_count / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE),
    /// shared memory 4 bytes.
    ///
    /// # Thread mapping
    /// Thread `v` owns vertex `v`: it alone writes `v`'s entries. A warp's 32
    /// vertices are one word of each bitmap (blocks are whole warps), so the
    /// warp owns that word: it reads its `visited` word once, and its first
    /// lane writes the bits of the vertices the warp found with one plain
    /// store a bitmap, where an `atomicOr` a vertex queued up to 32 atomics on
    /// one word (docs/decisions.md, "Direction-optimizing").
    direction_optimizing_bottom_up,
    direction_optimizing_bottom_up_narrow,
    |row_offsets,
     column_indices: *const u32,
     frontier_bitmap: *const u32,
     next_bitmap: *mut u32,
     visited: *mut u32,
     levels: *mut u32,
     parents: *mut u32,
     level: u32,
     vertex_count: u32,
     awake_count: *mut u32| bottom_up_level(
        (row_offsets, column_indices),
        (frontier_bitmap, next_bitmap, visited),
        (levels, parents, level),
        vertex_count,
        (awake_count, None),
    )
);

/// One bottom-up level, as [`direction_optimizing_bottom_up`] describes;
/// with `found_edges`, also adds the found vertices' degrees there (a GPU
/// of several, for the next direction: each vertex's row is at hand as it
/// finds its parent).
///
/// # Safety
/// As [`direction_optimizing_bottom_up`]; `found_edges` is one `u64`, and
/// with it the launch gives 16 bytes of shared memory.
#[inline(always)]
pub unsafe fn bottom_up_level<O: RowOffset>(
    (row_offsets, column_indices): (*const O, *const u32),
    (frontier_bitmap, next_bitmap, visited): (*const u32, *mut u32, *mut u32),
    (levels, parents, level): (*mut u32, *mut u32, u32),
    vertex_count: u32,
    (awake_count, found_edges): (*mut u32, Option<*mut u64>),
) {
    // The edge sum first, 8-byte aligned, then the awake count.
    let block_edges = gpu::dynamic_shared_memory::<u64>();
    let block_awake = match found_edges {
        Some(_) => block_edges.wrapping_add(1).cast::<u32>(),
        None => gpu::dynamic_shared_memory::<u32>(),
    };
    // SAFETY: the launch provides one `u32` of shared memory; `vertex <
    // vertex_count` before any access to its entries, neighbours are `< n`,
    // bitmap words are `< ceil(n / 32)`. The frontier bitmap is not written
    // during this launch (read-only loads are valid); no other warp reads
    // or writes this warp's bitmap words. Every thread reaches the ballot
    // and both barriers.
    unsafe {
        if gpu::thread_index() == 0 {
            *block_awake = 0;
            if found_edges.is_some() {
                *block_edges = 0;
            }
        }
        gpu::sync_threads();
        let vertex = gpu::global_thread_index();
        let word = (vertex / 32) as usize;
        // The warp's word of `visited`, read once: its first lane writes it back.
        let visited_word = if vertex < vertex_count {
            *visited.add(word)
        } else {
            u32::MAX
        };
        let mut found = false;
        let mut degree = 0;
        if visited_word & (1 << (vertex % 32)) == 0 {
            let (first_edge, end_edge) = row(row_offsets, vertex);
            degree = end_edge - first_edge;
            for neighbour in row_neighbours::<true>(column_indices, (first_edge, end_edge)) {
                let frontier_word =
                    gpu::load_read_only(frontier_bitmap.add((neighbour / 32) as usize));
                if frontier_word & (1 << (neighbour % 32)) != 0 {
                    *levels.add(vertex as usize) = level + 1;
                    *parents.add(vertex as usize) = neighbour;
                    found = true;
                    break;
                }
            }
        }
        let warp_found = gpu::ballot(FULL_WARP, found);
        if gpu::lane_index() == 0 && warp_found != 0 {
            *visited.add(word) = visited_word | warp_found;
            *next_bitmap.add(word) = warp_found;
            gpu::atomic_add(block_awake, warp_found.count_ones());
        }
        if let Some(found_edges) = found_edges {
            add_block_sum(block_edges, if found { degree } else { 0 }, found_edges);
        } else {
            gpu::sync_threads();
        }
        if gpu::thread_index() == 0 && *block_awake > 0 {
            gpu::atomic_add(awake_count, *block_awake);
        }
    }
}

/// Sets the bit of every queued vertex in `bitmap` (cleared beforehand).
///
/// # Safety
/// `queue` holds `queue_size` vertex ids `< n`; `bitmap` has `ceil(n / 32)` words.
///
/// # Launch
/// Grid `ceil(queue_size / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE), no shared memory.
///
/// # Thread mapping
/// Thread `i` sets `queue[i]`'s bit.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn direction_optimizing_queue_to_bitmap(
    queue: *const u32,
    queue_size: u32,
    bitmap: *mut u32,
) {
    let index = gpu::global_thread_index();
    if index >= queue_size {
        return;
    }
    // SAFETY: `index < queue_size` and queued ids are `< n` (the contract).
    unsafe {
        let vertex = gpu::load_read_only(queue.add(index as usize));
        gpu::atomic_or(bitmap.add((vertex / 32) as usize), 1 << (vertex % 32));
    }
}

/// Appends every vertex whose bit is set in words `first_word ..
/// first_word + word_count` of `bitmap` to `queue` (a multi-GPU rank
/// converts the words of the vertices it owns; one GPU all of them); a
/// warp reserves its words' slots with one `atomicAdd`
/// ([`gpu::warp_reserve`]). One a word was two million atomics on one
/// address for a Kronecker 26 frontier.
///
/// # Safety
/// `bitmap` has `first_word + word_count` words; `queue` has room for
/// every set bit; `queue_size` points to one `u32` (0 at launch).
///
/// # Launch
/// Grid `ceil(word_count / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE), no shared memory.
///
/// # Thread mapping
/// Thread `w` owns bitmap word `first_word + w` (its 32 vertices).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn direction_optimizing_bitmap_to_queue(
    bitmap: *const u32,
    first_word: u32,
    word_count: u32,
    queue: *mut u32,
    queue_size: *mut u32,
) {
    let word_index = first_word + gpu::global_thread_index();
    // SAFETY: a word is read for `word_index < first_word + word_count`
    // only; the reserved slots are this thread's alone and within the
    // queue (the contract); every lane reaches the warp's reservation.
    unsafe {
        let mut word = 0;
        if gpu::global_thread_index() < word_count {
            word = gpu::load_read_only(bitmap.add(word_index as usize));
        }
        let mut slot = gpu::warp_reserve(word.count_ones(), |total| {
            gpu::atomic_add(queue_size, total)
        }) as usize;
        while word != 0 {
            let bit = word.trailing_zeros();
            *queue.add(slot) = word_index * 32 + bit;
            slot += 1;
            word &= word - 1;
        }
    }
}
