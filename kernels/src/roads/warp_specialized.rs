//! # Warp-specialised partitions: a searcher warp in shared memory, a messenger warp for the rest
//!
//! On a road network a level is a few vertices, so a level-synchronous
//! search pays its levels' latency, not their work: a barrier and a chain
//! of dependent memory accesses each. Here each block keeps one partition
//! of the graph (consecutive ids grown by BFS, `graph::reorder`) in shared
//! memory for the whole search and splits the work by latency:
//!
//! - the **searcher** warp searches its partition level after level,
//!   touching shared memory only. Its lanes take a level's queue 32 at a
//!   time and append to the next with a warp vote, not an atomic: the warp
//!   owns its queues, so a level costs a chain of shared accesses and no
//!   barrier but the warp's own;
//! - the **messenger** warp does everything that waits on global memory:
//!   it lowers the labels of neighbours outside the partition (and marks
//!   them dirty for their owners), takes the partition's own dirty bits
//!   and hands their labels to the searcher through the incoming ring. It
//!   also keeps the block's part of the termination count.
//!
//! The two warps talk through shared memory only: two rings (incoming
//! labels, the outbox), their counters, a "quiet" word and a "finished"
//! word, every access to them an atomic (so it is no data race, and
//! compute-sanitizer's racecheck agrees), each counter published after a
//! block-scope fence. This is warp specialisation (the producer and consumer warps of
//! Hopper's GEMM kernels; Bauer et al., "CudaDMA", SC 2011) applied to the
//! asynchronous, label-correcting partition search of `partitioned`
//! (Tian et al., VLDB 2013; Atos, Chen et al., PPoPP 2022): no grid
//! barrier, no level window, and the searcher never waits for L2.
//!
//! Only the searcher writes its partition's states and parents. A state
//! word is `level << 1 | queued`, lowered by a shared `atomicMin`; whoever
//! lowers a vertex whose `queued` bit was clear appends it to a queue, and
//! the searcher clears the bit when it expands the vertex, so no vertex is
//! in a queue twice and a queue of a partition's size never overflows. A
//! vertex is expanded at its current level whenever that drops:
//! label-correcting, exact at the end. Parents are written after the
//! lowering, once the warp's lanes have all lowered (a warp barrier), by
//! the lanes whose level stayed: so when two lanes lower one vertex to
//! different levels at once, the parent written is the lower level's.
//!
//! Global labels are `level << 32 | parent` with [`UNREACHED`](crate::abi::UNREACHED) in both
//! halves when unreached; a dirty bit per vertex says its label was lowered
//! from outside. `outstanding` counts the dirty bits set and not yet taken,
//! plus one for each block that is busy (its searcher has work or its
//! outbox is not yet sent): the search is over when it reads 0. A block
//! takes its token before it subtracts the bits it took, and gives it back
//! only when its searcher is quiet and its outbox sent, after the marks
//! those sends made are counted.

use crate::abi::EdgeOffset;
use crate::abi::warp_specialized;
use crate::gpu::{self, FULL_WARP};
use crate::roads::partitioned::mark_dirty;

/// Control word: incoming entries the messenger has delivered.
const DELIVERED: usize = 0;
/// Control word: incoming entries the searcher has taken.
const TAKEN: usize = 1;
/// Control word: outbox entries the searcher has pushed.
const PUSHED: usize = 2;
/// Control word: outbox entries the messenger has sent.
const SENT: usize = 3;
/// Control word: the deliveries the searcher had taken when it last ran
/// out of work (it is quiet while this equals [`DELIVERED`]).
const QUIET: usize = 4;
/// Control word: set by the messenger when the whole search is over.
const FINISHED: usize = 5;

/// How long an idle messenger pauses between looks at its outbox and dirty bits.
const MESSENGER_PAUSE_NS: u32 = 200;

/// The `queued` bit of a state word.
const QUEUED: u32 = 1;

/// The state of an unreached vertex: the highest level, not queued, so
/// any proposal is lower and finds `queued` clear.
const UNREACHED_STATE: u32 = !QUEUED;

/// Runs the whole search: block `b` owns partition `b`.
///
/// # Safety
/// `row_offsets` has `n + 1` entries and `column_indices` `row_offsets[n]`,
/// ids `< n`, renumbered so that vertices `p * partition_size ..` form
/// partition `p`, one per block; `partition_size` is a positive multiple of
/// 32 (a partition with more than `column_capacity` neighbours reads them
/// from global memory);
/// `labels` has `n` words, all [`UNREACHED`](crate::abi::UNREACHED) in both halves but the
/// source's (0); `dirty` is a bitmap of `n` bits, all clear but the
/// source's; `outstanding` is 1 (the source's bit); `counters` three `u64`
/// set to 0, which receive the dirty bits taken, the edges examined and
/// the searchers' levels, added up. `n < 2^31`.
///
/// # Launch
/// Cooperative (blocks wait for each other's messages), one block per
/// partition, block [`warp_specialized::BLOCK_SIZE`](crate::abi::warp_specialized::BLOCK_SIZE),
/// shared memory [`warp_specialized::WarpSpecializedLayout::new`]`(partition_size, column_capacity).bytes()`.
///
/// # Thread mapping
/// Warp 0 searches, warp 1 carries messages; both stage the partition and
/// write its labels back.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn warp_specialized_search(
    row_offsets: *const EdgeOffset,
    column_indices: *const u32,
    vertex_count: u32,
    partition_size: u32,
    column_capacity: u32,
    labels: *mut u64,
    dirty: *mut u32,
    outstanding: *mut u64,
    counters: *mut u64,
) {
    let layout = warp_specialized::WarpSpecializedLayout::new(partition_size, column_capacity);
    let first = gpu::block_index() * partition_size;
    if first >= vertex_count {
        return;
    }
    let size = partition_size.min(vertex_count - first);
    let shared = Shared::of(&layout);
    let (thread, threads) = (gpu::thread_index(), gpu::block_size());
    // SAFETY: rows `first ..= first + size` exist and their neighbours
    // after them (the contract); the partition's rows fit the layout, its
    // neighbours where they fit `column_capacity`; both warps reach both
    // block barriers (each role returns only when the search is finished).
    unsafe {
        let first_edge = gpu::load_read_only_u64(row_offsets.add(first as usize));
        // Within a partition, offsets fit 32 bits (the host checks).
        let edge_count =
            (gpu::load_read_only_u64(row_offsets.add((first + size) as usize)) - first_edge) as u32;
        let partition = Partition {
            first,
            size,
            neighbours: if edge_count <= column_capacity {
                shared.neighbours
            } else {
                column_indices.add(first_edge as usize)
            },
            shared,
        };
        partition.stage(
            row_offsets,
            column_indices,
            (first_edge, edge_count),
            (thread, threads),
        );
        gpu::sync_threads();
        if thread < gpu::WARP_SIZE {
            let (edges, levels) = partition.search();
            gpu::atomic_add_u64(counters.add(1), edges);
            if thread == 0 {
                gpu::atomic_add_u64(counters.add(2), levels);
            }
        } else {
            let taken = partition.carry_messages(labels, dirty, outstanding);
            if thread == gpu::WARP_SIZE {
                gpu::atomic_add_u64(counters, taken);
            }
        }
        gpu::sync_threads();
        partition.write_back(labels, thread, threads);
    }
}

/// The block's shared arrays, as [`warp_specialized::WarpSpecializedLayout`] places them.
#[derive(Clone, Copy)]
struct Shared {
    control: *mut u32,
    incoming: Ring,
    states: *mut u32,
    parents: *mut u32,
    rows: *mut u32,
    neighbours: *mut u32,
    queues: *mut u32,
    outbox: Ring,
    queue_capacity: u32,
}

/// A ring of entries of a few words, one array per word, that one warp
/// fills and the other drains; entries are numbered from 0 on, wrapping.
#[derive(Clone, Copy)]
struct Ring {
    words: *mut u32,
    capacity: u32,
}

impl Ring {
    /// Word `field` of entry `entry`.
    fn word(&self, entry: u32, field: u32) -> *mut u32 {
        self.words
            .wrapping_add((field * self.capacity + (entry & (self.capacity - 1))) as usize)
    }

    /// Writes word `field` of entry `entry`.
    ///
    /// # Safety
    /// `field` is one of the ring's; the entry's slot is free.
    #[inline(always)]
    unsafe fn put(&self, entry: u32, field: u32, value: u32) {
        // SAFETY: a word of the ring (the caller's `field`, a masked slot).
        unsafe { gpu::atomic_exchange(self.word(entry, field), value) };
    }

    /// Reads word `field` of entry `entry`.
    ///
    /// # Safety
    /// `field` is one of the ring's; the entry was published.
    #[inline(always)]
    unsafe fn get(&self, entry: u32, field: u32) -> u32 {
        // SAFETY: as for `put`.
        unsafe { gpu::atomic_read(self.word(entry, field)) }
    }
}

/// The fields of an incoming entry: the vertex, its label's level and parent.
const VERTEX: u32 = 0;
const LEVEL: u32 = 1;
const PARENT: u32 = 2;

impl Shared {
    fn of(layout: &warp_specialized::WarpSpecializedLayout) -> Shared {
        let words = gpu::dynamic_shared_memory::<u32>();
        // SAFETY: offsets within the block's dynamic shared memory, sized
        // by the launch to `layout.bytes()`.
        unsafe {
            Shared {
                control: words,
                incoming: Ring {
                    words: words.add(layout.incoming as usize),
                    capacity: layout.incoming_capacity,
                },
                states: words.add(layout.states as usize),
                parents: words.add(layout.parents as usize),
                rows: words.add(layout.rows as usize),
                neighbours: words.add(layout.neighbours as usize),
                queues: words.add(layout.queues as usize),
                outbox: Ring {
                    words: words.add(layout.outbox as usize),
                    capacity: layout.queue_capacity,
                },
                queue_capacity: layout.queue_capacity,
            }
        }
    }

    /// Reads control word `word` as lane 0 saw it, in every lane: a value
    /// the whole warp acts on alike.
    ///
    /// # Safety
    /// Every lane of the warp calls it.
    #[inline(always)]
    unsafe fn read(&self, word: usize) -> u32 {
        let value = if gpu::lane_index() == 0 {
            // SAFETY: a control word of this block's shared memory.
            unsafe { gpu::atomic_read(self.control.add(word)) }
        } else {
            0
        };
        gpu::shuffle(FULL_WARP, value, 0)
    }

    /// Publishes `value` in control word `word`, after this warp's earlier
    /// shared-memory accesses.
    ///
    /// # Safety
    /// Every lane of the warp calls it.
    #[inline(always)]
    unsafe fn publish(&self, word: usize, value: u32) {
        gpu::sync_warp();
        if gpu::lane_index() == 0 {
            gpu::fence_block();
            // SAFETY: a control word of this block's shared memory.
            unsafe { gpu::atomic_exchange(self.control.add(word), value) };
        }
    }
}

/// A partition (vertices `first .. first + size`) and where its block keeps it.
#[derive(Clone, Copy)]
struct Partition {
    first: u32,
    size: u32,
    /// Its neighbours: staged in shared memory, or in the graph's own array
    /// when more than the layout has room for.
    neighbours: *const u32,
    shared: Shared,
}

/// Lowers `vertex` to `level`: a shared `atomicMin` on its state word.
/// Returns whether the level dropped, and whether the vertex is to be
/// queued (it dropped, and was in no queue).
///
/// # Safety
/// `vertex` is below the partition's size.
#[inline(always)]
unsafe fn lower(states: *mut u32, vertex: u32, level: u32) -> (bool, bool) {
    // SAFETY: forwarded from the caller.
    let old = unsafe { gpu::atomic_min(states.add(vertex as usize), level << 1 | QUEUED) };
    let dropped = old >> 1 > level;
    (dropped, dropped && old & QUEUED == 0)
}

/// Whether this lane, which `dropped` `vertex` to `level` or not in the
/// warp's last round of lowerings (`dropping`: the lanes that lowered
/// something), is to write the vertex's parent: yes if it was the only lane
/// to lower anything; else, once every lane has lowered (a warp barrier),
/// if the level stayed. Two lanes that lowered one vertex to different
/// levels at once so leave the lower level's parent; lanes that lowered it
/// to the same level write parents equally good.
///
/// # Safety
/// `vertex` is below the partition's size where `dropped`; every lane of
/// the warp calls it, with `dropping` from one ballot of `dropped`.
#[inline(always)]
unsafe fn keeps_level(
    states: *mut u32,
    (dropping, dropped): (u32, bool),
    vertex: u32,
    level: u32,
) -> bool {
    if dropping & dropping.wrapping_sub(1) == 0 {
        return dropped;
    }
    gpu::sync_warp();
    // SAFETY: forwarded from the caller.
    dropped && unsafe { *states.add(vertex as usize) >> 1 == level }
}

impl Partition {
    /// Copies the partition's rows (rebased to its first edge, of its
    /// `edge_count` edges) and, where they are to be kept there, its
    /// neighbours into shared memory, every state unreached, the control
    /// words cleared.
    ///
    /// # Safety
    /// As the kernel's contract; every thread of the block calls it.
    unsafe fn stage(
        &self,
        row_offsets: *const EdgeOffset,
        column_indices: *const u32,
        (first_edge, edge_count): (EdgeOffset, u32),
        (thread, threads): (u32, u32),
    ) {
        let Shared {
            control,
            states,
            rows,
            neighbours,
            ..
        } = self.shared;
        // SAFETY: rows `first ..= first + size` exist, and their edges;
        // the neighbours are copied only into room for them.
        unsafe {
            let mut vertex = thread;
            while vertex <= self.size {
                *rows.add(vertex as usize) =
                    (gpu::load_read_only_u64(row_offsets.add((self.first + vertex) as usize))
                        - first_edge) as u32;
                if vertex < self.size {
                    *states.add(vertex as usize) = UNREACHED_STATE;
                }
                vertex += threads;
            }
            let mut edge = thread;
            while self.neighbours == neighbours.cast_const() && edge < edge_count {
                *neighbours.add(edge as usize) = gpu::load_read_only(
                    column_indices.add((first_edge + edge as EdgeOffset) as usize),
                );
                edge += threads;
            }
            if thread < warp_specialized::CONTROL_WORDS {
                *control.add(thread as usize) = 0;
            }
        }
    }

    /// The searcher: applies what the messenger delivered, expands a
    /// level's queue, publishes what it put in the outbox; when it has
    /// nothing to expand, says it is quiet and waits for a delivery or the
    /// end. Returns the edges it examined and the levels it expanded.
    ///
    /// # Safety
    /// Called by every lane of warp 0, once the partition is staged.
    unsafe fn search(&self) -> (u64, u64) {
        let Shared {
            incoming,
            states,
            parents,
            rows,
            queues,
            outbox,
            queue_capacity,
            ..
        } = self.shared;
        let neighbours = self.neighbours;
        let lane = gpu::lane_index();
        let lanes_below = (1u32 << lane) - 1;
        let (mut current, mut next) = (queues, queues.wrapping_add(queue_capacity as usize));
        let (mut length, mut taken, mut pushed, mut published) = (0u32, 0u32, 0u32, 0u32);
        let (mut edges_examined, mut levels) = (0u64, 0u64);
        // SAFETY: queue, ring and state indices stay below their capacities
        // (a vertex is queued at most once, so a queue holds at most a
        // partition; the outbox waits for room); rows and neighbours are
        // the staged partition's; only this warp writes states and parents.
        unsafe {
            loop {
                // 1. Apply the deliveries: each lowers its vertex to the
                // label's level, with the label's parent; the vertices
                // newly queued join this level's queue.
                let delivered = self.shared.read(DELIVERED);
                if delivered != taken {
                    gpu::fence_block();
                    while taken != delivered {
                        let entry = taken.wrapping_add(lane);
                        let live = entry.wrapping_sub(taken) < delivered.wrapping_sub(taken);
                        let (vertex, level) = if live {
                            (incoming.get(entry, VERTEX), incoming.get(entry, LEVEL))
                        } else {
                            (0, 0)
                        };
                        let (dropped, queue) = if live {
                            lower(states, vertex, level)
                        } else {
                            (false, false)
                        };
                        let queueing = gpu::ballot(FULL_WARP, queue);
                        if queue {
                            *current
                                .add((length + (queueing & lanes_below).count_ones()) as usize) =
                                vertex;
                        }
                        length += queueing.count_ones();
                        let dropping = gpu::ballot(FULL_WARP, dropped);
                        if keeps_level(states, (dropping, dropped), vertex, level) {
                            gpu::atomic_exchange(
                                parents.add(vertex as usize),
                                incoming.get(entry, PARENT),
                            );
                        }
                        taken =
                            taken.wrapping_add(delivered.wrapping_sub(taken).min(gpu::WARP_SIZE));
                    }
                    self.shared.publish(TAKEN, taken);
                }
                if length == 0 {
                    self.shared.publish(QUIET, taken);
                    loop {
                        if self.shared.read(FINISHED) != 0 {
                            return (edges_examined, levels);
                        }
                        if self.shared.read(DELIVERED) != taken {
                            break;
                        }
                    }
                    continue;
                }
                gpu::sync_warp();

                // 2. Expand the queue, 32 vertices at a time, each at its
                // current level; lanes go through their vertices' edges
                // together, appending the neighbours they queued.
                let mut next_length = 0u32;
                let mut base = 0;
                while base < length {
                    let live = base + lane < length;
                    let (vertex, level, mut edge, end) = if live {
                        let vertex = *current.add((base + lane) as usize);
                        let state = gpu::atomic_and(states.add(vertex as usize), !QUEUED);
                        (
                            vertex,
                            state >> 1,
                            *rows.add(vertex as usize),
                            *rows.add(vertex as usize + 1),
                        )
                    } else {
                        (0, 0, 0, 0)
                    };
                    edges_examined += (end - edge) as u64;
                    let mut crosses = false;
                    while gpu::ballot(FULL_WARP, edge < end) != 0 {
                        let (mut local, mut dropped, mut queue) = (0, false, false);
                        if edge < end {
                            local = (*neighbours.add(edge as usize)).wrapping_sub(self.first);
                            if local < self.size {
                                (dropped, queue) = lower(states, local, level + 1);
                            } else {
                                crosses = true;
                            }
                            edge += 1;
                        }
                        let dropping = gpu::ballot(FULL_WARP, dropped);
                        if dropping != 0 {
                            let queueing = gpu::ballot(FULL_WARP, queue);
                            if queue {
                                let slot = next_length + (queueing & lanes_below).count_ones();
                                *next.add(slot as usize) = local;
                            }
                            next_length += queueing.count_ones();
                            if keeps_level(states, (dropping, dropped), local, level + 1) {
                                gpu::atomic_exchange(
                                    parents.add(local as usize),
                                    self.first + vertex,
                                );
                            }
                        }
                    }
                    let crossing = gpu::ballot(FULL_WARP, crosses);
                    if crossing != 0 {
                        let count = crossing.count_ones();
                        while pushed.wrapping_sub(self.shared.read(SENT)) + count > queue_capacity {
                        }
                        if crosses {
                            let entry = pushed.wrapping_add((crossing & lanes_below).count_ones());
                            outbox.put(entry, VERTEX, vertex);
                            outbox.put(entry, LEVEL, level);
                        }
                        pushed = pushed.wrapping_add(count);
                    }
                    base += gpu::WARP_SIZE;
                }
                if pushed != published {
                    self.shared.publish(PUSHED, pushed);
                    published = pushed;
                }
                core::mem::swap(&mut current, &mut next);
                length = next_length;
                levels += 1;
            }
        }
    }

    /// The messenger: sends the outbox, takes the partition's dirty bits
    /// and delivers their labels, keeps the block's token in `outstanding`
    /// while the block is busy, and sets [`FINISHED`] when `outstanding`
    /// reads 0 with the block idle. Returns the dirty bits it took.
    ///
    /// # Safety
    /// As the kernel's contract; called by every lane of warp 1, once the
    /// partition is staged.
    unsafe fn carry_messages(
        &self,
        labels: *mut u64,
        dirty: *mut u32,
        outstanding: *mut u64,
    ) -> u64 {
        let Shared {
            control,
            incoming,
            rows,
            outbox,
            ..
        } = self.shared;
        let neighbours = self.neighbours;
        let lane = gpu::lane_index();
        let lanes_below = (1u32 << lane) - 1;
        let (first_word, words) = (self.first / 32, self.size.div_ceil(32));
        let (mut busy, mut sent, mut delivered, mut taken_in_all) = (false, 0u32, 0u32, 0u64);
        // SAFETY: outbox and ring indices are masked; vertices are the
        // partition's, neighbours `< n` (the contract); dirty words are the
        // partition's own.
        unsafe {
            loop {
                // 1. Send: each outbox vertex lowers its neighbours outside
                // to its current level + 1, marking dirty those it lowered.
                let pushed = self.shared.read(PUSHED);
                gpu::fence_block();
                let mut entry = lane;
                while entry < pushed.wrapping_sub(sent) {
                    let vertex = outbox.get(sent.wrapping_add(entry), VERTEX);
                    let level = outbox.get(sent.wrapping_add(entry), LEVEL);
                    let label = (level as u64 + 1) << 32 | (self.first + vertex) as u64;
                    let end = *rows.add(vertex as usize + 1);
                    let mut edge = *rows.add(vertex as usize);
                    while edge < end {
                        let neighbour = *neighbours.add(edge as usize);
                        if neighbour.wrapping_sub(self.first) >= self.size {
                            let old = gpu::atomic_min_u64(labels.add(neighbour as usize), label);
                            if old >> 32 > label >> 32 {
                                mark_dirty(dirty, outstanding, neighbour);
                            }
                        }
                        edge += 1;
                    }
                    entry += gpu::WARP_SIZE;
                }
                let sending = pushed != sent;
                if sending {
                    sent = pushed;
                    gpu::sync_warp();
                    if lane == 0 {
                        gpu::atomic_exchange(control.add(SENT), sent);
                    }
                }

                // 2. Receive: while the ring has room for a whole take,
                // take 32 dirty words, read the labels of their bits and
                // deliver them.
                let mut taken = 0u32;
                let mut base = 0;
                while base < words
                    && delivered.wrapping_sub(self.shared.read(TAKEN)) + warp_specialized::TAKE
                        <= incoming.capacity
                {
                    let word = base + lane;
                    let mut bits = 0;
                    if word < words {
                        let address = dirty.add((first_word + word) as usize);
                        if core::ptr::read_volatile(address) != 0 {
                            bits = gpu::exchange_acquire_gpu(address, 0);
                        }
                    }
                    taken += bits.count_ones();
                    while gpu::ballot(FULL_WARP, bits != 0) != 0 {
                        let delivering = gpu::ballot(FULL_WARP, bits != 0);
                        if bits != 0 {
                            let local = word * 32 + bits.trailing_zeros();
                            bits &= bits - 1;
                            let entry =
                                delivered.wrapping_add((delivering & lanes_below).count_ones());
                            let label =
                                core::ptr::read_volatile(labels.add((self.first + local) as usize));
                            incoming.put(entry, VERTEX, local);
                            incoming.put(entry, LEVEL, (label >> 32) as u32);
                            incoming.put(entry, PARENT, label as u32);
                        }
                        delivered = delivered.wrapping_add(delivering.count_ones());
                    }
                    base += gpu::WARP_SIZE;
                }
                let taken = gpu::warp_sum(taken);
                if taken > 0 {
                    taken_in_all += taken as u64;
                    self.shared.publish(DELIVERED, delivered);
                    if lane == 0 {
                        if !busy {
                            gpu::atomic_add_u64(outstanding, 1);
                        }
                        gpu::add_release_gpu(outstanding, (taken as u64).wrapping_neg());
                    }
                    busy = true;
                }

                // 3. Quiet: the searcher took every delivery and ran out of
                // work, and everything it pushed is sent: give the token back.
                if busy && self.shared.read(QUIET) == delivered {
                    gpu::fence_block();
                    if self.shared.read(PUSHED) == sent {
                        gpu::sync_warp();
                        if lane == 0 {
                            gpu::add_release_gpu(outstanding, u64::MAX);
                        }
                        busy = false;
                    }
                }

                // 4. The end: nobody busy and no dirty bit untaken.
                if !busy {
                    let finished = lane == 0 && gpu::load_acquire_gpu(outstanding) == 0;
                    if gpu::ballot(FULL_WARP, finished) != 0 {
                        if lane == 0 {
                            gpu::atomic_exchange(control.add(FINISHED), 1);
                        }
                        return taken_in_all;
                    }
                }
                // Nothing to carry: wait a little before looking again, so
                // the shared-memory atomics of this loop do not queue ahead
                // of the searcher's.
                if !sending && taken == 0 {
                    gpu::sleep(MESSENGER_PAUSE_NS);
                }
            }
        }
    }

    /// Writes the reached vertices' levels and parents back as global labels.
    ///
    /// # Safety
    /// After the search, by every thread of the block.
    unsafe fn write_back(&self, labels: *mut u64, thread: u32, threads: u32) {
        let mut vertex = thread;
        while vertex < self.size {
            // SAFETY: the partition's own states and labels; no other block
            // touches these labels once the search is finished.
            unsafe {
                let state = *self.shared.states.add(vertex as usize);
                if state != UNREACHED_STATE {
                    *labels.add((self.first + vertex) as usize) = ((state >> 1) as u64) << 32
                        | *self.shared.parents.add(vertex as usize) as u64;
                }
            }
            vertex += threads;
        }
    }
}
