//! # Chain-contracted BFS: a road network's chains as weighted edges
//!
//! Most vertices of a road network lie inside chains: shape points with
//! exactly two neighbours along a road (Luxembourg: 97,694 of 114,599
//! vertices). A level-synchronous search crosses a chain one level, one
//! barrier, per vertex. The host contracts every maximal chain into one
//! edge between its two ends, weighted by its length (`graph::chains`: the
//! elimination of degree-2 vertices that road-network route planners begin
//! with, the "lines" of Sanders & Schultes, "Highway Hierarchies Hasten
//! Exact Shortest Path Queries", ESA 2005), keeping only the junctions and
//! dead ends (Luxembourg: 16,905 vertices, 42,948 arcs). BFS distances are
//! then shortest paths over those weights, found by three kernels:
//!
//! 1. [`chain_contracted_search`]: one block runs label-correcting rounds
//!    over the kept vertices: a round relaxes (`atomicMin`) the arcs of the
//!    vertices whose label dropped in the round before, and the search ends
//!    when nothing is left to relax. A round ends at a block barrier; rounds
//!    follow the hops of the contracted graph's shortest paths, not the
//!    levels (Luxembourg: about 300 against 1,000 to 1,200). Plain
//!    Bellman–Ford relaxes each arc many times there (weights from 1 to
//!    hundreds), so the rounds keep Davidson et al.'s near–far piles
//!    ("Work-Efficient Parallel GPU Methods for Single-Source Shortest
//!    Paths", IPDPS 2014), a form of Meyer & Sanders' Δ-stepping: a vertex
//!    lowered below a threshold is queued for the next round (the near
//!    pile), one lowered beyond it waits in the far pile; when the near pile
//!    runs out, the threshold moves to the far pile's least label plus Δ
//!    and the far vertices below it are queued. Labels, rows, queues and
//!    bitmaps stay in shared memory when they fit (the arcs stay in global
//!    memory, read through the read-only cache); otherwise the same code
//!    runs on a global scratch region.
//! 2. [`chain_contracted_levels`]: a thread per vertex. A kept vertex takes
//!    its label; the vertex at position `j` of a chain of length `L` between
//!    ends `a` and `b` takes `min(d(a) + j, d(b) + L - j)`, and on the
//!    source's own chain (the source at position `i`) also `|i - j|`.
//! 3. [`chain_contracted_parents`]: a thread per reached vertex `u` lowers
//!    the parent of each neighbour one level further to `u` (`atomicMin`):
//!    every parent is one level up and joined by an edge (Graph500's rules),
//!    and the smallest such id wins, the same every run.
//!
//! Encodings: a label or level is a distance, [`UNREACHED`] where there is
//! none. A kept vertex lowered below the threshold is *queued*: its bit is
//! set in the next round's bitmap, and it is appended to the next round's
//! queue with the distance it was lowered to (once for each lowering: a
//! stale entry relaxes arcs that lower nothing, which is cheaper than a
//! returning atomic on every lowering); the two bitmaps and queues
//! alternate by round, and the round that takes a vertex clears its bit. A
//! queue that overflows its capacity still has every vertex in its bitmap,
//! and the next round scans the bitmap instead, reading the labels. The far
//! pile is a third bitmap. Places and chains as in [`abi`](crate::abi) ([`chain_contracted::IN_CHAIN`],
//! [`chain_contracted::CHAIN_WORDS`]).

use crate::abi::chain_contracted;
use crate::abi::{EdgeOffset, UNREACHED};
use crate::gpu::{self, FULL_WARP};
use crate::visit::neighbours;

/// Arcs a thread relaxes at once: their loads in flight together, then their atomics.
const RELAX_BATCH: usize = 4;

/// Runs the near–far rounds over the contracted graph from the seeds, with
/// piles `delta` wide, and writes each kept vertex's distance to `kept_levels`.
///
/// # Safety
/// `row_offsets` has `kept_count + 1` entries and `arcs` two words (head,
/// weight) per arc up to `row_offsets[kept_count]`, heads `< kept_count`,
/// weights at least 1, and no path's length reaches `u32::MAX`; the seeds
/// (the source, or its chain's two ends, with their distances from it) are
/// `< kept_count`, the second may be `chain_contracted::NO_ENTRY`; `queue_capacity >= 2`; `scratch` is null
/// (the region is in shared memory) or holds
/// `chain_contracted::ChainContractedLayout::new(kept_count, queue_capacity).words` words;
/// `kept_levels` has `kept_count` entries; `work` two.
///
/// # Launch
/// Grid 1, block [`chain_contracted::BLOCK_SIZE`](crate::abi::chain_contracted::BLOCK_SIZE)
/// (whole warps); shared memory the layout's bytes when `scratch` is null, else none.
///
/// # Thread mapping
/// Each round, thread `t` takes queue entries `t`, `t + blockDim`, … (or
/// bitmap words so, after an overflow) and relaxes their arcs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn chain_contracted_search(
    row_offsets: *const u32,
    arcs: *const u32,
    kept_count: u32,
    first_seed: u32,
    first_distance: u32,
    second_seed: u32,
    second_distance: u32,
    delta: u32,
    queue_capacity: u32,
    scratch: *mut u32,
    kept_levels: *mut u32,
    work: *mut u64,
) {
    let layout = chain_contracted::ChainContractedLayout::new(kept_count, queue_capacity);
    let graph = (row_offsets, arcs);
    let seeds = (
        [(first_seed, first_distance), (second_seed, second_distance)],
        delta,
    );
    // SAFETY: the region is the launch's shared memory of the layout's size,
    // or `scratch`, of the same size (the contract); a branch on a kernel
    // parameter, uniform over the block. Two calls so that each inlined
    // copy knows its region's state space.
    unsafe {
        if scratch.is_null() {
            let region = gpu::dynamic_shared_memory::<u32>();
            search(graph, layout, region, seeds, kept_levels, work);
        } else {
            search(graph, layout, scratch, seeds, kept_levels, work);
        }
    }
}

/// [`chain_contracted_search`] on `region`.
///
/// # Safety
/// As [`chain_contracted_search`], `region` its region.
#[inline(always)]
unsafe fn search(
    graph: (*const u32, *const u32),
    layout: chain_contracted::ChainContractedLayout,
    region: *mut u32,
    (seeds, delta): ([(u32, u32); 2], u32),
    kept_levels: *mut u32,
    work: *mut u64,
) {
    let thread = gpu::thread_index();
    let threads = gpu::block_size();
    let kept_count = layout.rows - layout.labels;
    let queue_capacity = (layout.bitmaps - layout.queues) / 4;
    // SAFETY: every index stays within its array of the layout (kept
    // indices `< kept_count`, queue slots `< queue_capacity`, bitmap words
    // `< bitmap_words`) or of the graph (the contract). Words that threads
    // share within a round (labels, bitmap words, queue sizes, the far
    // pile's minimum) are only accessed atomically; queue entries, rows,
    // the size a round reads and the minimum a refill reads are written
    // before the barrier that precedes their plain reads, and labels are
    // read plainly only between rounds. Loop exits depend on values read
    // after a barrier, or on warp-wide ballots, so every thread reaches
    // every barrier and every lane every vote.
    unsafe {
        let sizes = region;
        let far_minima = region.add(3);
        let labels = region.add(layout.labels as usize);
        let rows = region.add(layout.rows as usize);
        let queues = region.add(layout.queues as usize);
        let bitmaps = region.add(layout.bitmaps as usize);
        let far = region.add(layout.far as usize);
        // A queue: `queue_capacity` vertices, then their distances.
        let queue = |round: u32| queues.add(((round % 2) * 2 * queue_capacity) as usize);
        let append = |queue: *mut u32, slot: u32, vertex: u32, distance: u32| {
            if slot < queue_capacity {
                *queue.add(slot as usize) = vertex;
                *queue.add((queue_capacity + slot) as usize) = distance;
            }
        };
        let bitmap = |round: u32| bitmaps.add(((round % 2) * layout.bitmap_words) as usize);
        let size = |round: u32| sizes.add((round % 3) as usize);

        for_each_strided(kept_count, |kept| *labels.add(kept) = UNREACHED);
        for_each_strided(kept_count + 1, |kept| {
            *rows.add(kept) = gpu::load_read_only(graph.0.add(kept));
        });
        // The two round bitmaps and the far pile's, one after the other.
        for_each_strided(3 * layout.bitmap_words, |word| *bitmaps.add(word) = 0);
        if thread < 3 {
            *sizes.add(thread as usize) = 0;
        }
        if thread < 2 {
            *far_minima.add(thread as usize) = UNREACHED;
        }
        if thread == 0 {
            *work.add(1) = 0;
        }
        gpu::sync_threads();
        let nearest_seed = seeds[0].1.min(seeds[1].1);
        let mut threshold = nearest_seed.saturating_add(delta);
        if thread == 0 {
            for (seed, distance) in seeds {
                if seed != chain_contracted::NO_ENTRY
                    && lower(labels, (bitmap(0), far), seed, (distance, threshold))
                {
                    append(queue(0), gpu::atomic_add(size(0), 1), seed, distance);
                }
            }
        }
        gpu::sync_threads();

        // Round r takes the vertices round r - 1 queued (the seeds for r = 0)
        // from queue, bitmap and size r, and queues into those of r + 1.
        let (mut round, mut refills, mut barriers, mut arcs_relaxed) = (0, 0, 0, 0u64);
        loop {
            let taken = *size(round);
            if taken == 0 {
                // The near pile is empty: the far pile's vertices up to its
                // least label plus delta become this round's.
                let least = far_minima.add((refills % 2) as usize);
                if thread == 0 {
                    // Last read in the refill before, before its barrier.
                    *far_minima.add(((refills + 1) % 2) as usize) = UNREACHED;
                }
                let mut nearest = UNREACHED;
                for_each_in_bitmap(far, layout.bitmap_words, |vertex, _| {
                    nearest = nearest.min(*labels.add(vertex as usize));
                });
                let nearest = gpu::warp_min(nearest);
                if gpu::lane_index() == 0 && nearest != UNREACHED {
                    gpu::atomic_min(least, nearest);
                }
                gpu::sync_threads();
                let nearest = *least;
                if nearest == UNREACHED {
                    break;
                }
                threshold = nearest.saturating_add(delta);
                for_each_in_bitmap(far, layout.bitmap_words, |vertex, word| {
                    let distance = *labels.add(vertex as usize);
                    if distance < threshold {
                        gpu::atomic_and(word, !bit(vertex));
                        gpu::atomic_or(bitmap(round).add((vertex / 32) as usize), bit(vertex));
                        append(
                            queue(round),
                            gpu::atomic_add(size(round), 1),
                            vertex,
                            distance,
                        );
                    }
                });
                gpu::sync_threads();
                refills += 1;
                barriers += 2;
                continue;
            }
            if thread == 0 {
                // Last read at the start of round r - 1, before its barrier.
                *size(round + 2) = 0;
            }
            let mut frontier = Frontier {
                queue: queue(round),
                capacity: queue_capacity,
                labels,
                bitmap: bitmap(round),
                far,
                from_queue: taken <= queue_capacity,
                end: if taken <= queue_capacity {
                    taken
                } else {
                    layout.bitmap_words
                },
                next: thread,
                bits: 0,
                first_of_bits: 0,
            };
            let (next_queue, next_bitmap, next_size) =
                (queue(round + 1), bitmap(round + 1), size(round + 1));
            let (mut distance, mut edge, mut end) = (0, 0, 0);
            loop {
                while edge == end {
                    let Some((vertex, queued_at)) = frontier.take(threads) else {
                        break;
                    };
                    distance = queued_at;
                    (edge, end) = (*rows.add(vertex as usize), *rows.add(vertex as usize + 1));
                }
                if gpu::ballot(FULL_WARP, edge < end) == 0 {
                    break;
                }
                let batch = relax_batch(
                    graph.1,
                    (labels, (next_bitmap, far)),
                    (distance, threshold),
                    (edge, end),
                );
                let mut slot = gpu::warp_reserve(batch.queued.count_ones(), |total| {
                    gpu::atomic_add(next_size, total)
                });
                for k in 0..RELAX_BATCH {
                    if batch.queued & (1 << k) != 0 {
                        append(next_queue, slot, batch.heads[k], batch.distances[k]);
                        slot += 1;
                    }
                }
                let count = (end - edge).min(RELAX_BATCH as u32);
                arcs_relaxed += count as u64;
                edge += count;
            }
            gpu::sync_threads();
            round += 1;
            barriers += 1;
        }

        for_each_strided(kept_count, |kept| {
            *kept_levels.add(kept) = *labels.add(kept);
        });
        if thread == 0 {
            *work = barriers as u64;
        }
        gpu::atomic_add_u64(work.add(1), arcs_relaxed);
    }
}

/// Calls `body(vertex, word)` for each vertex whose bit is set in this
/// thread's words of `bitmap` (words `t`, `t + blockDim`, … of
/// `bitmap_words`), `word` the address of its word.
///
/// # Safety
/// `bitmap` has `bitmap_words` words; other threads change them only
/// atomically, and only in bits of their own words.
#[inline(always)]
unsafe fn for_each_in_bitmap(
    bitmap: *mut u32,
    bitmap_words: u32,
    mut body: impl FnMut(u32, *mut u32),
) {
    let mut word = gpu::thread_index();
    while word < bitmap_words {
        // SAFETY: `word < bitmap_words` (the contract).
        let address = unsafe { bitmap.add(word as usize) };
        // SAFETY: the word is within the bitmap, as above; other threads
        // change it only atomically (the contract).
        let mut bits = unsafe { gpu::atomic_read(address) };
        while bits != 0 {
            body(32 * word + bits.trailing_zeros(), address);
            bits &= bits - 1;
        }
        word += gpu::block_size();
    }
}

/// The vertices one round takes: from the queue, or, when the queue
/// overflowed, from the bitmap's set bits. Each thread takes every
/// `blockDim`-th entry or word, starting at its own index.
struct Frontier {
    /// The queue's vertices, then their distances, `capacity` each.
    queue: *const u32,
    capacity: u32,
    /// The labels, for the distances of vertices taken from the bitmap.
    labels: *mut u32,
    bitmap: *mut u32,
    /// The far pile's bitmap: a vertex taken leaves the far pile too.
    far: *mut u32,
    from_queue: bool,
    /// The queue's size, or the bitmap's words.
    end: u32,
    /// This thread's next queue slot or bitmap word.
    next: u32,
    /// The bits of its current word not yet taken ...
    bits: u32,
    /// ... and the vertex of that word's bit 0.
    first_of_bits: u32,
}

impl Frontier {
    /// This thread's next vertex and the distance to relax its arcs from,
    /// its queued and far bits cleared; `None` when it has none left. A
    /// queue entry carries the distance its vertex was lowered to; a later,
    /// lower one has an entry of its own, so a stale entry relaxes only
    /// arcs that lower nothing.
    ///
    /// # Safety
    /// The queue holds `end` entries (or the bitmap `end` words) that are
    /// kept indices, and this round's threads take them with the same stride.
    #[inline(always)]
    unsafe fn take(&mut self, stride: u32) -> Option<(u32, u32)> {
        // SAFETY: slots and words `< end` (the contract); bits are cleared
        // atomically, as other threads clear and read the words' other bits,
        // and labels read atomically, as other threads lower them.
        unsafe {
            let (vertex, distance) = if self.from_queue {
                if self.next >= self.end {
                    return None;
                }
                let slot = self.next as usize;
                self.next += stride;
                let vertex = *self.queue.add(slot);
                let distance = *self.queue.add(self.capacity as usize + slot);
                gpu::atomic_and(self.bitmap.add((vertex / 32) as usize), !bit(vertex));
                (vertex, distance)
            } else {
                while self.bits == 0 {
                    if self.next >= self.end {
                        return None;
                    }
                    self.bits = gpu::atomic_exchange(self.bitmap.add(self.next as usize), 0);
                    self.first_of_bits = 32 * self.next;
                    self.next += stride;
                }
                let vertex = self.first_of_bits + self.bits.trailing_zeros();
                self.bits &= self.bits - 1;
                (vertex, gpu::atomic_read(self.labels.add(vertex as usize)))
            };
            gpu::atomic_and(self.far.add((vertex / 32) as usize), !bit(vertex));
            Some((vertex, distance))
        }
    }
}

/// The outcome of [`relax_batch`].
struct Batch {
    /// The heads of the arcs relaxed (entries past the row's end are unused).
    heads: [u32; RELAX_BATCH],
    /// The distances they were lowered to.
    distances: [u32; RELAX_BATCH],
    /// Bit `k` is set when `heads[k]`'s label dropped below the threshold:
    /// this thread queues it.
    queued: u32,
}

/// Relaxes the arcs `edge..end.min(edge + RELAX_BATCH)` out of a vertex at
/// `distance` ([`lower`] of each head to `distance + weight`, with
/// `threshold`). An empty row (`edge == end`) relaxes nothing.
///
/// # Safety
/// The arcs `edge..end` exist, their heads index `labels` and both bitmaps.
#[inline(always)]
// Indexed loops over a constant range unroll and keep the arrays in registers.
#[allow(clippy::needless_range_loop)]
unsafe fn relax_batch(
    arcs: *const u32,
    (labels, bitmaps): (*mut u32, (*mut u32, *mut u32)),
    (distance, threshold): (u32, u32),
    (edge, end): (u32, u32),
) -> Batch {
    let mut batch = Batch {
        heads: [0; RELAX_BATCH],
        distances: [0; RELAX_BATCH],
        queued: 0,
    };
    let count = (end - edge) as usize;
    // SAFETY: only the arcs `edge..end` are loaded (the contract).
    unsafe {
        for k in 0..RELAX_BATCH {
            if k < count {
                let arc = arcs.add(2 * (edge as usize + k));
                batch.heads[k] = gpu::load_read_only(arc);
                batch.distances[k] = distance + gpu::load_read_only(arc.add(1));
            }
        }
        for k in 0..RELAX_BATCH {
            if k < count
                && lower(
                    labels,
                    bitmaps,
                    batch.heads[k],
                    (batch.distances[k], threshold),
                )
            {
                batch.queued |= 1 << k;
            }
        }
    }
    batch
}

/// Lowers `vertex`'s label to `distance`. If it dropped: below `threshold`
/// the vertex joins the near pile (its bit in `near`, the next round's
/// bitmap) and the caller is to queue it (`true`), even when another thread
/// queued it already this round (its entry carries a higher distance);
/// else it joins the far pile.
///
/// # Safety
/// `vertex` indexes `labels` and both bitmaps.
#[inline(always)]
unsafe fn lower(
    labels: *mut u32,
    (near, far): (*mut u32, *mut u32),
    vertex: u32,
    (distance, threshold): (u32, u32),
) -> bool {
    let word = (vertex / 32) as usize;
    // SAFETY: forwarded from the caller; these words are shared with the
    // round's other threads and so only accessed atomically.
    unsafe {
        if distance >= gpu::atomic_min(labels.add(vertex as usize), distance) {
            return false;
        }
        let pile = if distance < threshold { near } else { far };
        gpu::atomic_or(pile.add(word), bit(vertex));
    }
    distance < threshold
}

/// `vertex`'s bit within its bitmap word.
#[inline(always)]
fn bit(vertex: u32) -> u32 {
    1 << (vertex % 32)
}

/// The block calls `body(i)` for each `i < count`, thread `t` for `t`,
/// `t + blockDim`, ….
#[inline(always)]
fn for_each_strided(count: u32, mut body: impl FnMut(usize)) {
    let mut index = gpu::thread_index();
    while index < count {
        body(index as usize);
        index += gpu::block_size();
    }
}

/// Gives every vertex its level: a kept vertex its label from
/// `kept_levels`, a chain's vertex the nearer of its chain's two ends plus
/// the edges to it (or its distance to the source along the chain, on the
/// source's chain); and sets every parent to `UNREACHED`, the source's to itself.
///
/// # Safety
/// `places` has two words per vertex, `chains` [`chain_contracted::CHAIN_WORDS`] per chain
/// named there, `kept_levels` an entry per kept vertex (not written during
/// the launch); `levels` and `parents` have `vertex_count` entries;
/// `source < vertex_count`; `source_chain` is `chain_contracted::NO_ENTRY` or the source's chain.
///
/// # Launch
/// Grid `ceil(n / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE).
///
/// # Thread mapping
/// Thread `i` of the grid takes vertex `i`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn chain_contracted_levels(
    places: *const u32,
    chains: *const u32,
    kept_levels: *const u32,
    vertex_count: u32,
    source: u32,
    source_chain: u32,
    source_position: u32,
    levels: *mut u32,
    parents: *mut u32,
) {
    let vertex = gpu::global_thread_index();
    if vertex >= vertex_count {
        return;
    }
    // SAFETY: `vertex < n`, and places name kept vertices and chains that
    // exist (the contract); this thread alone writes `vertex`'s entries.
    unsafe {
        let place = gpu::load_read_only(places.add(2 * vertex as usize));
        let position = gpu::load_read_only(places.add(2 * vertex as usize + 1));
        let level = if place & chain_contracted::IN_CHAIN == 0 {
            gpu::load_read_only(kept_levels.add(place as usize))
        } else {
            let chain = place & !chain_contracted::IN_CHAIN;
            let entry = chains.add((chain_contracted::CHAIN_WORDS * chain) as usize);
            let (end_a, end_b, length) = (
                gpu::load_read_only(entry),
                gpu::load_read_only(entry.add(1)),
                gpu::load_read_only(entry.add(2)),
            );
            let from_a =
                gpu::load_read_only(kept_levels.add(end_a as usize)).saturating_add(position);
            let from_b = gpu::load_read_only(kept_levels.add(end_b as usize))
                .saturating_add(length - position);
            let along = if chain == source_chain {
                position.abs_diff(source_position)
            } else {
                UNREACHED
            };
            from_a.min(from_b).min(along)
        };
        *levels.add(vertex as usize) = level;
        *parents.add(vertex as usize) = if vertex == source { source } else { UNREACHED };
    }
}

/// Each reached vertex `u` lowers to `u` the parent of every neighbour one
/// level further (`atomicMin`), so each reached vertex but the source ends
/// with the smallest of its neighbours one level up.
///
/// # Safety
/// The graph's CSR for `vertex_count` vertices; `levels` (not written
/// during the launch) and `parents` have `vertex_count` entries, `parents`
/// set by [`chain_contracted_levels`].
///
/// # Launch
/// Grid `ceil(n / BLOCK_SIZE)`, block [`BLOCK_SIZE`](crate::abi::BLOCK_SIZE).
///
/// # Thread mapping
/// Thread `i` of the grid takes vertex `i` and its neighbours.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn chain_contracted_parents(
    row_offsets: *const EdgeOffset,
    column_indices: *const u32,
    levels: *const u32,
    vertex_count: u32,
    parents: *mut u32,
) {
    let vertex = gpu::global_thread_index();
    if vertex >= vertex_count {
        return;
    }
    // SAFETY: `vertex < n` and its neighbours are vertices (the contract);
    // parents are shared between threads and lowered atomically.
    unsafe {
        let level = gpu::load_read_only(levels.add(vertex as usize));
        if level == UNREACHED {
            return;
        }
        for neighbour in neighbours(row_offsets, column_indices, vertex) {
            if gpu::load_read_only(levels.add(neighbour as usize)) == level + 1 {
                gpu::atomic_min(parents.add(neighbour as usize), vertex);
            }
        }
    }
}
