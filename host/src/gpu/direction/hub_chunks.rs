//! A top-down level whose hubs' lists (a warp's edges or more) are cut
//! into chunks, a block each (`kernels/src/direction/hub_chunks.rs`): the
//! host side that `direction-optimizing` and each GPU of the search over several ([`crate::multi`]) share. The
//! frontier queue is split into its hubs' chunks and its other vertices;
//! the host reads the two counts, then launches the gather
//! (`direction_optimizing_top_down`) over the other vertices and
//! `hub_chunks_expand` over the chunks, both appending to one next queue.
//! A frontier that the host knows has fewer edges than a chunk goes to the
//! gather whole, without the split and its round trip: one or two of its
//! blocks take all of it. The chunk list has room for the chunks of every
//! vertex the frontier may hold, counted once at set-up.

use bfs_kernels::abi::frontier::FrontierLevel;
use bfs_kernels::abi::{BLOCK_SIZE, EdgeOffset, direction_optimizing, hub_chunks};
use cust::memory::{AsyncCopyDestination, DeviceBuffer, DevicePointer, LockedBuffer};
use rayon::prelude::*;
use std::ops::Range;

use crate::error::CudaContext;
use crate::gpu::{Entry, Gpu, address, blocks_for};
use crate::{Csr, Result};

/// What one top-down level reads and writes: the level block (the
/// graph's rows, every vertex's, though a GPU of several holds only its
/// own vertices' edges; the frontier queue, the next one and its size; the
/// labels), and the next frontier's edges (gapbs's `scout_count`).
pub struct TopDownLevel {
    /// The level.
    pub level: FrontierLevel,
    /// The next frontier's edges, one `u64` the kernels add to.
    pub next_frontier_edges: DevicePointer<u64>,
    /// The frontier's edges (on every GPU, of several), where the host
    /// knows them: after a top-down level, not after a bottom-up one.
    pub frontier_edges: Option<u64>,
}

/// The three kernels, the light queue, the chunk list and the two counts.
pub struct ChunkedTopDown<'g> {
    split: Entry<'g, hub_chunks::Split>,
    top_down: Entry<'g, (FrontierLevel, *mut u64)>,
    expand: Entry<'g, (FrontierLevel, *mut u64)>,
    light_queue: DeviceBuffer<u32>,
    chunks: DeviceBuffer<u32>,
    /// The light queue's size and the chunks' count.
    sizes: DeviceBuffer<u32>,
    sizes_on_host: LockedBuffer<u32>,
}

impl<'g> ChunkedTopDown<'g> {
    /// Device bytes for frontiers of `graph` whose vertices lie in
    /// `vertices` (a GPU of several: the vertices it owns).
    pub fn workspace_bytes(graph: &Csr, vertices: Range<u32>) -> u64 {
        4 * (vertices.len() as u64).max(1) + 2 * 4 * chunk_capacity(graph, vertices) + 4 * 2
    }

    /// Loads the kernels and allocates the buffers for frontiers of
    /// `graph` whose vertices lie in `vertices`.
    pub fn new(gpu: &'g Gpu, graph: &Csr, vertices: Range<u32>) -> Result<Self> {
        let most_vertices = vertices.len() as u64;
        let chunk_capacity = chunk_capacity(graph, vertices);
        let allocation = || "allocating the hub chunks' buffers".to_string();
        let zeroed = |count: u64| DeviceBuffer::<u32>::zeroed(count.max(1) as usize);
        Ok(ChunkedTopDown {
            split: gpu.entry(hub_chunks::SPLIT)?,
            top_down: gpu.entry(direction_optimizing::TOP_DOWN)?,
            expand: gpu.entry(hub_chunks::EXPAND)?,
            light_queue: zeroed(most_vertices).context(allocation)?,
            chunks: zeroed(2 * chunk_capacity).context(allocation)?,
            sizes: zeroed(2).context(allocation)?,
            sizes_on_host: LockedBuffer::new(&0, 2).context(allocation)?,
        })
    }

    /// Queues `level` on `gpu`'s stream: the split, then (after the host
    /// has read its counts) the gather over the light vertices and the
    /// chunks' expansion; or the gather alone where the frontier has fewer
    /// edges than a chunk. The next queue's size and edges are the kernels'
    /// to add to: the caller clears and reads them.
    ///
    /// # Safety
    /// `top_down` meets `direction_optimizing_top_down`'s contract and
    /// `hub_chunks_expand`'s (the queue holds `frontier_size` vertices
    /// `< n`, the rows `n + 1` entries, the next queue room for every
    /// vertex, the labels `n` entries); its frontier has at most the
    /// vertices and edges this was allocated for.
    pub unsafe fn run(&mut self, gpu: &Gpu, top_down: &TopDownLevel) -> Result<()> {
        let level = top_down.level;
        if level.frontier_size == 0 {
            return Ok(());
        }
        let stream = gpu.stream();
        let context = || format!("running top-down level {}", level.level);
        let next_frontier_edges = top_down.next_frontier_edges.as_mut_ptr();
        // The gather and the chunks' expansion take the same parameters,
        // the light queue or the chunk list for the frontier.
        let expand = |kernel: &Entry<'_, (FrontierLevel, *mut u64)>,
                      (frontier, frontier_size): (DevicePointer<u32>, u32),
                      shape: (u32, u32, u32)| {
            let level = FrontierLevel {
                frontier: frontier.as_ptr(),
                frontier_size,
                ..level
            };
            // SAFETY: the frontier holds `frontier_size` light vertices or
            // chunk pairs (the split's counts, or the whole frontier, which
            // has no hub); the rest is the caller's contract.
            unsafe { kernel.launch(stream, shape, (level, next_frontier_edges)) }.context(context)
        };
        let gather_shape = |light_size| {
            (
                blocks_for(light_size, BLOCK_SIZE),
                BLOCK_SIZE,
                direction_optimizing::TOP_DOWN_SHARED_BYTES,
            )
        };
        let frontier = DevicePointer::from_raw(level.frontier as u64);
        if top_down
            .frontier_edges
            .is_some_and(|edges| edges < hub_chunks::CHUNK_EDGES as u64)
        {
            let whole = (frontier, level.frontier_size);
            return expand(&self.top_down, whole, gather_shape(level.frontier_size));
        }
        // SAFETY: the queue holds `frontier_size` vertices with rows
        // from vertex 0 (the caller's contract).
        unsafe {
            self.split(
                gpu,
                (frontier, level.frontier_size),
                DevicePointer::from_raw(level.row_offsets as u64),
                (0, EdgeOffset::MAX),
            )
        }?;
        stream.synchronize().context(context)?;
        let [light, chunks] = self.split_queues();
        if light.1 > 0 {
            expand(&self.top_down, light, gather_shape(light.1))?;
        }
        if chunks.1 > 0 {
            let shape = (
                chunks.1,
                hub_chunks::CHUNK_EDGES,
                hub_chunks::EXPAND_SHARED_BYTES,
            );
            expand(&self.expand, chunks, shape)?;
        }
        Ok(())
    }

    /// Queues the split of `frontier` (a queue and its size, vertices of
    /// `vertices`) into the light queue and the chunk list, which
    /// [`split_queues`](Self::split_queues) gives with their sizes once the
    /// stream has passed it; `row_offsets` holds the rows from
    /// `first_vertex`'s on. Vertices of `delegated_degree` edges or more go
    /// to neither (`EdgeOffset::MAX`: none is left out).
    ///
    /// # Safety
    /// The queue holds that many vertices, each `first_vertex` or more
    /// and with a row in `row_offsets`, of the vertices this was allocated for.
    pub unsafe fn split(
        &mut self,
        gpu: &Gpu,
        (frontier, frontier_size): (DevicePointer<u32>, u32),
        row_offsets: DevicePointer<EdgeOffset>,
        (first_vertex, delegated_degree): (u32, EdgeOffset),
    ) -> Result<()> {
        let stream = gpu.stream();
        let context = || "splitting a frontier's hubs into chunks".to_string();
        let sizes = address(&self.sizes);
        let split = &self.split;
        // SAFETY: the light queue has room for the frontier's vertices and
        // `chunks` for their chunks (the allocation's bounds):
        // `hub_chunks_split`'s contract. The page-locked counts are read
        // after the stream has passed the copy.
        unsafe {
            self.sizes.set_zero_async(stream).context(context)?;
            split
                .launch(
                    stream,
                    (blocks_for(frontier_size, BLOCK_SIZE), BLOCK_SIZE, 0),
                    (
                        frontier.as_ptr(),
                        frontier_size,
                        row_offsets.as_ptr(),
                        first_vertex,
                        delegated_degree,
                        address(&self.light_queue),
                        sizes,
                        address(&self.chunks),
                        sizes.wrapping_add(1),
                    ),
                )
                .context(context)?;
            self.sizes
                .async_copy_to(&mut self.sizes_on_host, stream)
                .context(context)
        }
    }

    /// The light queue and the chunk list, each with its size, as the last
    /// split left them, once the stream has passed it.
    pub fn split_queues(&self) -> [(DevicePointer<u32>, u32); 2] {
        [
            (self.light_queue.as_device_ptr(), self.sizes_on_host[0]),
            (self.chunks.as_device_ptr(), self.sizes_on_host[1]),
        ]
    }
}

/// The chunks of every hub in `vertices` together: the most a frontier
/// of them can hold, each vertex at most once.
fn chunk_capacity(graph: &Csr, vertices: Range<u32>) -> u64 {
    let chunks = vertices
        .into_par_iter()
        .map(|vertex| {
            hub_chunks::list_chunks(graph.degree(vertex), hub_chunks::CHUNKED_LIST_EDGES) as u64
        })
        .sum::<u64>();
    chunks.max(1)
}
