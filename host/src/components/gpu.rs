//! The GPU's components (`kernels/src/components.rs`): union–find in four
//! launches for weak ones; for strong ones, rounds of signature sweeps,
//! each round ended by a split, until every vertex is settled.
//!
//! A signature grows along at most one arc a sweep where the sweeps meet
//! a long directed path against its order, so a graph of many long
//! one-way paths could take as many sweeps as vertices: past
//! [`MOST_SWEEPS`] the engine hands the graph to Tarjan's search on the
//! CPU and says so.

use std::time::{Duration, Instant};

use bfs_kernels::abi::Rows;
use bfs_kernels::abi::components::{self, BLOCK_SIZE, Forest, Signatures};
use cust::memory::{CopyDestination, DeviceBuffer};

use super::{Components, strong_on_cpu};
use crate::error::CudaContext;
use crate::gpu::{Entry, Gpu, address, blocks_for, copy_to_host, upload};
use crate::{Csr, Error, Result};

/// Signature sweeps, over every round, before the CPU takes over.
pub const MOST_SWEEPS: u32 = 4096;

/// Sweeps queued between two looks at whether the last one grew a
/// signature, at most: each look is a round trip to the host.
const MOST_SWEEPS_A_LOOK: u32 = 64;

/// Blocks a multiprocessor of the warp-a-vertex launches.
const BLOCKS_A_MULTIPROCESSOR: u32 = 8;

/// The kernels.
struct Kernels<'g> {
    start: Entry<'g, (Forest,)>,
    hook: Entry<'g, (Rows, Forest)>,
    hook_heavy: Entry<'g, (Rows, Forest)>,
    flatten: Entry<'g, (Forest,)>,
    strong_start: Entry<'g, (Signatures,)>,
    propagate: Entry<'g, (Rows, Signatures, *mut u32)>,
    split: Entry<'g, (Rows, Signatures, *mut u32)>,
    least: Entry<'g, (Signatures,)>,
    label: Entry<'g, (Signatures,)>,
}

/// The engine: the graph on the device and its labels.
pub struct GpuComponents<'g> {
    gpu: &'g Gpu,
    graph: &'g Csr,
    kernels: Kernels<'g>,
    offsets: DeviceBuffer<u64>,
    columns: DeviceBuffer<u32>,
    labels: DeviceBuffer<u32>,
    /// Each sweep's flag, and the split's count.
    flags: DeviceBuffer<u32>,
    /// Strong components' signatures and dropped arcs, made on first need.
    signatures: Option<(DeviceBuffer<u32>, DeviceBuffer<u32>, DeviceBuffer<u8>)>,
}

/// What a run found, and how.
pub struct Found {
    /// The labels.
    pub components: Components,
    /// The engine's time, the labels read back included.
    pub elapsed: Duration,
    /// Where the strong components' sweeps passed [`MOST_SWEEPS`] and the
    /// CPU finished: why, in words.
    pub note: Option<String>,
}

impl<'g> GpuComponents<'g> {
    /// Device bytes of the engine over `graph`, strong components' included.
    pub fn device_bytes(graph: &Csr) -> u64 {
        let (n, m) = (graph.vertex_count() as u64, graph.edge_count());
        Csr::bytes_of(graph.vertex_count(), m) + 3 * 4 * n + m + 4 * MOST_SWEEPS_A_LOOK as u64
    }

    /// The engine over `graph`: its rows uploaded.
    pub fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        let needed = Self::device_bytes(graph);
        let free = gpu.free_memory()?;
        if needed > free {
            return Err(Error::DeviceMemory {
                variant: "components",
                needed,
                free,
            });
        }
        let allocation = || "allocating the components' labels".to_string();
        let engine = GpuComponents {
            gpu,
            graph,
            kernels: Kernels {
                start: gpu.entry(components::START)?,
                hook: gpu.entry(components::HOOK)?,
                hook_heavy: gpu.entry(components::HOOK_HEAVY)?,
                flatten: gpu.entry(components::FLATTEN)?,
                strong_start: gpu.entry(components::STRONG_START)?,
                propagate: gpu.entry(components::STRONG_PROPAGATE)?,
                split: gpu.entry(components::STRONG_SPLIT)?,
                least: gpu.entry(components::STRONG_LEAST)?,
                label: gpu.entry(components::STRONG_LABEL)?,
            },
            offsets: upload(graph.row_offsets())?,
            columns: upload(graph.column_indices())?,
            labels: DeviceBuffer::zeroed((graph.vertex_count() as usize).max(1))
                .context(allocation)?,
            flags: DeviceBuffer::zeroed(MOST_SWEEPS_A_LOOK as usize).context(allocation)?,
            signatures: None,
        };
        Ok(engine)
    }

    fn rows(&self) -> Rows {
        Rows {
            offsets: address(&self.offsets).cast_const(),
            columns: address(&self.columns).cast_const(),
        }
    }

    /// Blocks of a thread-a-vertex launch, and of a warp-a-vertex one.
    fn grids(&self) -> (u32, u32) {
        let most = self.gpu.multiprocessors() * BLOCKS_A_MULTIPROCESSOR;
        let n = self.graph.vertex_count();
        (
            blocks_for(n, BLOCK_SIZE).min(most),
            blocks_for(n.saturating_mul(32), BLOCK_SIZE).min(most),
        )
    }

    /// Weak components (connected ones, on an undirected graph).
    pub fn weak(&mut self) -> Result<Found> {
        let started = Instant::now();
        let forest = Forest {
            parents: address(&self.labels),
            vertex_count: self.graph.vertex_count(),
            symmetric: u32::from(self.graph.is_symmetric()),
        };
        let (vertex_grid, warp_grid) = self.grids();
        let stream = self.gpu.stream();
        let context = |name: &str| format!("launching {name}");
        // SAFETY: `forest` and the rows are the graph's, sized for it; the
        // hooks (light rows, then heavy ones) run after the start and the
        // flattening after the hooks, on one stream.
        unsafe {
            self.kernels
                .start
                .launch(stream, (vertex_grid, BLOCK_SIZE, 0), (forest,))
                .context(|| context("components_start"))?;
            self.kernels
                .hook
                .launch(stream, (vertex_grid, BLOCK_SIZE, 0), (self.rows(), forest))
                .context(|| context("components_hook"))?;
            self.kernels
                .hook_heavy
                .launch(stream, (warp_grid, BLOCK_SIZE, 0), (self.rows(), forest))
                .context(|| context("components_hook_heavy"))?;
            self.kernels
                .flatten
                .launch(stream, (vertex_grid, BLOCK_SIZE, 0), (forest,))
                .context(|| context("components_flatten"))?;
        }
        self.finished(started)
    }

    /// Strongly connected components.
    pub fn strong(&mut self) -> Result<Found> {
        let started = Instant::now();
        let signatures = self.signatures()?;
        let (vertex_grid, warp_grid) = self.grids();
        let stream = self.gpu.stream();
        let flags = address(&self.flags);
        let context = |name: &str| format!("launching {name}");
        let mut sweeps = 0;
        loop {
            // SAFETY: the signatures are sized for the graph; labels and
            // dropped arcs as the last split left them (all unsettled and
            // kept before the first).
            unsafe {
                self.kernels
                    .strong_start
                    .launch(stream, (vertex_grid, BLOCK_SIZE, 0), (signatures,))
                    .context(|| context("strong_start"))?;
            }
            let mut a_look = 1;
            loop {
                if sweeps >= MOST_SWEEPS {
                    return self.strong_on_cpu(started, sweeps);
                }
                self.clear_flags()?;
                for sweep in 0..a_look {
                    // SAFETY: as above; each sweep flags its own word.
                    unsafe {
                        self.kernels
                            .propagate
                            .launch(
                                stream,
                                (warp_grid, BLOCK_SIZE, 0),
                                (self.rows(), signatures, flags.wrapping_add(sweep as usize)),
                            )
                            .context(|| context("strong_propagate"))?;
                    }
                }
                sweeps += a_look;
                let grew = self.read_flags(a_look as usize)?;
                if grew.last() == Some(&0) {
                    break;
                }
                a_look = (2 * a_look).min(MOST_SWEEPS_A_LOOK);
            }
            self.clear_flags()?;
            // SAFETY: as above, the sweeps ended.
            unsafe {
                self.kernels
                    .split
                    .launch(
                        stream,
                        (warp_grid, BLOCK_SIZE, 0),
                        (self.rows(), signatures, flags),
                    )
                    .context(|| context("strong_split"))?;
            }
            if self.read_flags(1)?[0] == 0 {
                break;
            }
        }
        let (reached_by, _, _) = self.signatures.as_mut().expect("made above");
        // SAFETY: a memset and two launches ordered on the stream; every
        // vertex is settled.
        unsafe {
            reached_by
                .set_32_async(u32::MAX, stream)
                .context(|| "clearing the least vertices".into())?;
            self.kernels
                .least
                .launch(stream, (vertex_grid, BLOCK_SIZE, 0), (signatures,))
                .context(|| context("strong_least"))?;
            self.kernels
                .label
                .launch(stream, (vertex_grid, BLOCK_SIZE, 0), (signatures,))
                .context(|| context("strong_label"))?;
        }
        self.finished(started)
    }

    /// The strong components' buffers, made on first need, cleared for a
    /// run: every vertex unsettled, every arc kept.
    fn signatures(&mut self) -> Result<Signatures> {
        let allocation = || "allocating the signatures".to_string();
        let (n, m) = (
            (self.graph.vertex_count() as usize).max(1),
            (self.graph.edge_count() as usize).max(1),
        );
        if self.signatures.is_none() {
            self.signatures = Some((
                DeviceBuffer::zeroed(n).context(allocation)?,
                DeviceBuffer::zeroed(n).context(allocation)?,
                DeviceBuffer::zeroed(m).context(allocation)?,
            ));
        }
        let stream = self.gpu.stream();
        let (reached_by, reaches, dropped) = self.signatures.as_mut().expect("made above");
        // SAFETY: memsets ordered on the stream before the kernels.
        unsafe {
            self.labels
                .set_32_async(u32::MAX, stream)
                .context(allocation)?;
            dropped.set_zero_async(stream).context(allocation)?;
        }
        Ok(Signatures {
            reached_by: address(reached_by),
            reaches: address(reaches),
            labels: address(&self.labels),
            dropped: address(dropped),
            vertex_count: self.graph.vertex_count(),
            unused: 0,
        })
    }

    /// Waits for the stream's kernels, so that a failure is named here.
    fn synchronize(&self) -> Result<()> {
        self.gpu
            .stream()
            .synchronize()
            .context(|| "waiting for the components' kernels".into())
    }

    /// Tarjan's search on the CPU, where the sweeps ran too long.
    fn strong_on_cpu(&self, started: Instant, sweeps: u32) -> Result<Found> {
        self.synchronize()?;
        Ok(Found {
            components: strong_on_cpu(self.graph),
            elapsed: started.elapsed(),
            note: Some(format!(
                "the GPU's signature sweeps passed {sweeps} (long one-way paths): Tarjan's \
                 search on the CPU finished"
            )),
        })
    }

    fn clear_flags(&mut self) -> Result<()> {
        // SAFETY: a memset ordered on the stream before the kernels.
        unsafe { self.flags.set_zero_async(self.gpu.stream()) }
            .context(|| "clearing the sweeps' flags".into())
    }

    /// The first `count` flags, once the stream has passed them.
    fn read_flags(&self, count: usize) -> Result<Vec<u32>> {
        self.synchronize()?;
        let mut flags = vec![0; count];
        self.flags
            .index(..count)
            .copy_to(&mut flags[..])
            .context(|| "reading the sweeps' flags".into())?;
        Ok(flags)
    }

    /// The labels of a run that started at `started`, read back.
    fn finished(&self, started: Instant) -> Result<Found> {
        let labels = self.read_labels()?;
        Ok(Found {
            components: Components { labels },
            elapsed: started.elapsed(),
            note: None,
        })
    }

    fn read_labels(&self) -> Result<Vec<u32>> {
        self.synchronize()?;
        let n = self.graph.vertex_count() as usize;
        copy_to_host(self.gpu, &self.labels.index(..n))
            .context(|| "reading the components' labels".into())
    }
}
