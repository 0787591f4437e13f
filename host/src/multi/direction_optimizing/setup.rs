//! A rank set up: what its buffers take on its GPU, its part checked
//! against every rank's free memory, its rows uploaded and its buffers
//! allocated, and where the other ranks keep their frontiers.

use std::ops::Range;

use bfs_kernels::abi::distributed::STATS_WORDS;
use bfs_kernels::abi::{direction_optimizing, distributed};
use cust::memory::{DeviceBuffer, LockedBuffer};

use super::gather::gather_words;
use super::{Kernels, PeerFrontiers, Rank, RankMemory};
use crate::error::CudaContext;
use crate::gpu::hub_chunks::ChunkedTopDown;
use crate::gpu::{Gpu, RowOffsets, upload};
use crate::multi::claims::Claims;
use crate::multi::clock::ExchangeClock;
use crate::multi::delegates::{Choice, Delegates};
use crate::multi::injected_failure::InjectedFailure;
use crate::multi::{Collectives, Reach, all_gather_words, partition};
use crate::{Csr, Error, Result};

/// How a graph is cut over its ranks: each rank's vertices, and the
/// delegates (the same on every rank), worked out once for all the ranks
/// of a process.
pub struct Layout {
    /// Each rank's vertices, in rank order.
    pub ranges: Vec<Range<u32>>,
    /// The delegates, the same on every rank.
    pub delegates: Choice,
}

impl Layout {
    /// `graph` over `ranks` ranks of about equal edges.
    pub fn of(graph: &Csr, ranks: u32) -> Layout {
        let ranges = super::partition::edge_balanced(graph, ranks);
        let delegates = delegates_of(graph, &ranges);
        Layout { ranges, delegates }
    }

    /// Device bytes rank `rank` allocates for `graph`, with claim regions
    /// of `capacity` pairs.
    pub fn device_bytes(&self, graph: &Csr, rank: u32, capacity: u32) -> u64 {
        let (ranges, delegates) = (&self.ranges, &self.delegates);
        let owned = &ranges[rank as usize];
        let n = graph.vertex_count();
        let count = owned.len() as u64;
        let words = (n as u64).div_ceil(32).max(1);
        let staging = if rank == 0 {
            2 * 4 * gather_words(ranges)
        } else {
            0
        };
        8 * (count + 1)
            + bottom_up_rows(graph, owned).copy_bytes(count + 1)
            + 4 * owned_edges(graph, owned).max(1)
            + 3 * 4 * words
            + 4 * (2 + ranges.len() as u64) * padded_words(ranges) as u64
            + 4 * 4 * count.max(1)
            + ChunkedTopDown::workspace_bytes(graph, owned.clone())
            + Claims::device_bytes(capacity, ranges.len() as u32)
            + delegates.device_bytes(graph, owned)
            + 4 * (STATS_WORDS + delegates.words()) as u64 * (1 + ranges.len() as u64)
            + (4 * 8 + 2 * 4 + 4) * ranges.len() as u64
            + staging
    }
}

impl<'g> Rank<'g> {
    /// Device bytes rank `rank` of `ranges` allocates for `graph`, with
    /// claim regions of `capacity` pairs.
    pub fn device_bytes(graph: &Csr, ranges: &[Range<u32>], rank: u32, capacity: u32) -> u64 {
        let layout = Layout {
            ranges: ranges.to_vec(),
            delegates: delegates_of(graph, ranges),
        };
        layout.device_bytes(graph, rank, capacity)
    }

    /// Uploads this rank's rows of `graph` (owned: its range of `layout`) and
    /// allocates the search's buffers (claim regions of `capacity` pairs),
    /// once every rank knows every part fits; returns the rank and every
    /// rank's memory. Its levels bring it the other ranks' claims and
    /// frontier words as `reach` says (every rank is told alike).
    pub fn new(
        gpu: &'g Gpu,
        (communicator, reach): (Box<dyn Collectives>, Reach),
        graph: &Csr,
        layout: &Layout,
        capacity: u32,
    ) -> Result<(Rank<'g>, Vec<RankMemory>)> {
        let rank = communicator.rank();
        let injected_failure = InjectedFailure::for_rank(rank)?;
        let (ranges, delegates) = (layout.ranges.clone(), layout.delegates.clone());
        let owned = ranges[rank as usize].clone();
        let needed = layout.device_bytes(graph, rank, capacity);
        let free = gpu.free_memory()?;
        let parts = all_gather_words(&*communicator, gpu, [needed, free])?;
        parts_fit(rank, &owned, gpu, &parts)?;
        let (rows, columns) = partition::owned_rows(graph, &owned);
        let allocation = || format!("allocating rank {rank}'s buffers");
        let words = (graph.vertex_count() as usize).div_ceil(32).max(1);
        let zeroed = |count: usize| DeviceBuffer::<u32>::zeroed(count.max(1)).context(allocation);
        let count = owned.len();
        let rank_ends: Vec<u32> = ranges.iter().map(|range| range.end).collect();
        let figure_words = STATS_WORDS + delegates.words();
        let mut searcher = Rank {
            gpu,
            kernels: Kernels {
                top_down: gpu.entry(distributed::TOP_DOWN)?,
                expand_hub_chunks: gpu.entry(distributed::EXPAND_HUB_CHUNKS)?,
                bottom_up: bottom_up_rows(graph, &owned).entry(
                    gpu,
                    (distributed::BOTTOM_UP, distributed::BOTTOM_UP_NARROW),
                    &rows,
                    "the search over GPUs",
                )?,
                queue_to_bitmap: gpu.entry(direction_optimizing::QUEUE_TO_BITMAP)?,
                bitmap_to_queue: gpu.entry(direction_optimizing::BITMAP_TO_QUEUE)?,
                read_peer_frontiers: gpu.entry(distributed::READ_PEER_FRONTIERS)?,
                read_peer_queues: gpu.entry(distributed::READ_PEER_QUEUES)?,
            },
            rows: upload(&rows)?,
            columns: upload(columns)?,
            visited: zeroed(words)?,
            frontier: zeroed(words + padded_words(&ranges))?,
            next: zeroed(words + padded_words(&ranges))?,
            gathered_frontier: zeroed(ranges.len() * padded_words(&ranges))?,
            padded_words: padded_words(&ranges),
            peer_frontiers: None,
            levels: zeroed(count)?,
            parents: zeroed(count)?,
            queues: [zeroed(count)?, zeroed(count)?],
            frontier_in_queue: true,
            hubs: ChunkedTopDown::new(gpu, graph, owned.clone())?,
            delegates: Delegates::new(gpu, graph, delegates, &owned)?,
            claims: Claims::new(gpu, rank, capacity, &rank_ends)?,
            stats: zeroed(figure_words)?,
            gathered_stats: zeroed(figure_words * ranges.len())?,
            own_stats_on_host: LockedBuffer::new(&0, figure_words).context(allocation)?,
            stats_on_host: LockedBuffer::new(&0, figure_words * ranges.len())
                .context(allocation)?,
            figure_words,
            staging: match rank {
                0 => Some(zeroed(2 * gather_words(&ranges) as usize)?),
                _ => None,
            },
            exchange: ExchangeClock::default(),
            allocated: needed,
            owned,
            ranges,
            vertex_count: graph.vertex_count(),
            edge_count: graph.edge_count(),
            symmetric: graph.is_symmetric(),
            communicator,
            searches: 0,
            injected_failure,
        };
        if reach == Reach::PeerMemory && searcher.ranges.len() > 1 {
            searcher.find_peer_frontiers()?;
            searcher
                .claims
                .read_from_peers(&*searcher.communicator, gpu)?;
        }
        searcher
            .claims
            .meet(&*searcher.communicator, gpu.stream())?;
        let (free, total) =
            cust::memory::mem_get_info().context(|| "querying free device memory".into())?;
        let memory = all_gather_words(
            &*searcher.communicator,
            gpu,
            [searcher.allocated, (total - free) as u64],
        )?
        .into_iter()
        .map(|[allocated, in_use]| RankMemory { allocated, in_use })
        .collect();
        Ok((searcher, memory))
    }

    /// Learns where every rank keeps its two frontier bitmaps and its two
    /// queues, and each rank's words, for the bottom-up levels that read
    /// them there.
    fn find_peer_frontiers(&mut self) -> Result<()> {
        let context = || "placing the other ranks' frontier bitmaps".to_string();
        let own = [
            self.frontier.as_device_ptr(),
            self.next.as_device_ptr(),
            self.queues[0].as_device_ptr(),
            self.queues[1].as_device_ptr(),
        ]
        .map(|buffer| buffer.as_raw());
        let all = all_gather_words(&*self.communicator, self.gpu, own)?;
        let table = |which: usize| {
            let addresses: Vec<u64> = all.iter().map(|buffers| buffers[which]).collect();
            DeviceBuffer::from_slice(&addresses).context(context)
        };
        let bounds: Vec<Range<u32>> = self
            .ranges
            .iter()
            .map(|range| self.words_of(range))
            .collect();
        let rank_words: Vec<u32> = bounds
            .iter()
            .flat_map(|words| [words.start, words.end])
            .collect();
        let ranks = self.ranges.len();
        self.peer_frontiers = Some(PeerFrontiers {
            bitmaps: [table(0)?, table(1)?],
            queues: [table(2)?, table(3)?],
            first_frontier: own[0],
            first_queue: own[2],
            rank_words: DeviceBuffer::from_slice(&rank_words).context(context)?,
            most_quads: bounds
                .iter()
                .map(|words| words.end.div_ceil(4) - words.start / 4)
                .max()
                .unwrap_or(0),
            queue_sizes: DeviceBuffer::zeroed(ranks).context(context)?,
            queue_sizes_on_host: LockedBuffer::new(&0, ranks).context(context)?,
        });
        Ok(())
    }
}

/// Whether every rank's part fits its GPU, from each rank's bytes needed
/// and free (`parts`): rank `rank`'s own refusal with its bytes where its
/// part (`owned`, on `gpu`) does not fit, else a word that the others' do
/// not, where one does not.
pub fn parts_fit(rank: u32, owned: &Range<u32>, gpu: &Gpu, parts: &[[u64; 2]]) -> Result<()> {
    let [needed, free] = parts[rank as usize];
    if needed > free {
        return Err(Error::MultiGpu(format!(
            "rank {rank}'s part (vertices {}..{}) needs {needed} bytes of device memory on {}, {free} are free",
            owned.start,
            owned.end,
            gpu.name()
        )));
    }
    let too_large = parts.iter().filter(|[needed, free]| needed > free).count();
    if too_large > 0 {
        return Err(Error::OtherRank(format!(
            "rank {rank}: {too_large} other ranks' parts do not fit their GPUs"
        )));
    }
    Ok(())
}

/// The delegates of a search over `ranges`: none where one rank holds
/// every list.
fn delegates_of(graph: &Csr, ranges: &[Range<u32>]) -> Choice {
    if ranges.len() > 1 {
        Choice::of(graph)
    } else {
        Choice::none()
    }
}

/// The bitmap words every rank sends in a bottom-up level's all-gather:
/// as many as the largest rank owns (NCCL's all-gather takes one count
/// for every rank), at least one.
fn padded_words(ranges: &[Range<u32>]) -> usize {
    ranges
        .iter()
        .map(|range| range.len().div_ceil(32))
        .max()
        .unwrap_or(0)
        .max(1)
}

/// The width of the rows the bottom-up kernel reads on the rank owning
/// `owned`: narrow where its rows allow, wide (no copy) where they do not
/// or the search never goes bottom-up (a directed graph).
fn bottom_up_rows(graph: &Csr, owned: &Range<u32>) -> RowOffsets {
    if graph.is_symmetric() {
        RowOffsets::for_edges(owned_edges(graph, owned))
    } else {
        RowOffsets::Wide
    }
}

/// The CSR entries of `owned`'s rows.
fn owned_edges(graph: &Csr, owned: &Range<u32>) -> u64 {
    let offsets = graph.row_offsets();
    offsets[owned.end as usize] - offsets[owned.start as usize]
}
