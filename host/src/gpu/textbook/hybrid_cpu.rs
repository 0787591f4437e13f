//! Host driver of the `hybrid-cpu` variant: levels whose frontier is below
//! [`CPU_FRONTIER_THRESHOLD`] run on the CPU, the others on the GPU with
//! `block_queue_expand`. Only frontiers cross the bus: each GPU level's new
//! frontier comes back (its size is needed anyway); the CPU's discoveries go
//! to the device in one batch before the next GPU level, marked there by
//! `hybrid_cpu_mark`, and the frontier goes with them.

use bfs_kernels::abi::frontier::FrontierLevel;
use bfs_kernels::abi::{BLOCK_SIZE, UNREACHED, block_queue, hybrid_cpu};
use cust::memory::{CopyDestination, DeviceBuffer};

use crate::error::CudaContext;
use crate::gpu::queue::{FrontierQueues, at_level};
use crate::gpu::{DeviceGraph, Driver, Entry, Gpu, GpuBfs, GpuRun, Request, Step, blocks_for};
use crate::{Csr, Result};

/// Frontiers smaller than this run on the CPU: a level of a few hundred
/// vertices takes the CPU a few microseconds, less than a launch and a
/// round trip to the GPU.
pub const CPU_FRONTIER_THRESHOLD: u32 = 1024;

/// Both kernels, the device queues, and the host's view of the search.
pub struct HybridCpu<'g> {
    gpu: &'g Gpu,
    graph: &'g Csr,
    expand: Entry<'g, (FrontierLevel,)>,
    mark: Entry<'g, (*const u32, u32, *mut u32, *mut u32, *mut u32)>,
    queues: FrontierQueues,
    /// Levels as the host knows them: complete for every level so far.
    levels: Vec<u32>,
    /// `(vertex, parent, level)` triples the CPU found, not yet on the device.
    discoveries: Vec<u32>,
    /// Device staging for `discoveries`, grown as needed.
    discoveries_on_device: Option<DeviceBuffer<u32>>,
    /// The host's frontier and the next one, reused level after level.
    frontiers: (Vec<u32>, Vec<u32>),
}

impl<'g> HybridCpu<'g> {
    /// One level on the CPU: the textbook loop over the host's frontier.
    fn cpu_level(&mut self, frontier: &[u32], level: u32, next_frontier: &mut Vec<u32>) {
        next_frontier.clear();
        for &vertex in frontier {
            for &neighbour in self.graph.neighbours(vertex) {
                if self.levels[neighbour as usize] == UNREACHED {
                    self.levels[neighbour as usize] = level + 1;
                    self.discoveries.extend([neighbour, vertex, level + 1]);
                    next_frontier.push(neighbour);
                }
            }
        }
    }

    /// Sends the CPU's discoveries to the device and marks them there.
    fn flush_discoveries(&mut self) -> Result<()> {
        if self.discoveries.is_empty() {
            return Ok(());
        }
        let context = || "sending the CPU's discoveries".to_string();
        let needed = self.discoveries.len();
        if self
            .discoveries_on_device
            .as_ref()
            .is_none_or(|buffer| buffer.len() < needed)
        {
            self.discoveries_on_device =
                Some(DeviceBuffer::zeroed(needed.next_power_of_two()).context(context)?);
        }
        let staging = self
            .discoveries_on_device
            .as_mut()
            .expect("allocated above");
        // The stream is idle here (every level ends synchronized), so this
        // synchronous copy cannot overtake queued work.
        staging
            .index(0..needed)
            .copy_from(&self.discoveries[..])
            .context(context)?;
        let (mark, stream, count) = (&self.mark, self.gpu.stream(), (needed / 3) as u32);
        let parameters = (
            staging.as_device_ptr().as_ptr(),
            count,
            self.queues.visited.as_device_ptr().as_mut_ptr(),
            self.queues.levels.as_device_ptr().as_mut_ptr(),
            self.queues.parents.as_device_ptr().as_mut_ptr(),
        );
        let shape = (blocks_for(count, BLOCK_SIZE), BLOCK_SIZE, 0);
        // SAFETY: `staging` holds `count` triples of distinct vertices `< n`
        // with parents `< n`, and the queues are sized for `n`:
        // `hybrid_cpu_mark`'s contract.
        unsafe { mark.launch(stream, shape, parameters) }.context(context)?;
        self.discoveries.clear();
        Ok(())
    }

    /// One level on the GPU; copies the new frontier back into `next_frontier`.
    fn gpu_level(
        &mut self,
        graph: &DeviceGraph,
        (frontier, frontier_on_device): (&[u32], bool),
        level: u32,
        next_frontier: &mut Vec<u32>,
    ) -> Result<()> {
        self.flush_discoveries()?;
        let size = frontier.len() as u32;
        if !frontier_on_device {
            self.queues.upload_frontier(frontier)?;
        }
        self.queues.clear_next_size(self.gpu)?;
        self.queues.launch_expand(
            self.gpu,
            graph,
            (&self.expand, block_queue::shared_bytes()),
            size,
            level,
        )?;
        self.queues.advance(self.gpu)?;
        self.queues.download_frontier(next_frontier)?;
        for &vertex in next_frontier.iter() {
            self.levels[vertex as usize] = level + 1;
        }
        Ok(())
    }
}

impl<'g> Driver<'g> for HybridCpu<'g> {
    /// The frontier queues, and the CPU's discoveries staged for the
    /// device: at most 3 words a vertex.
    fn workspace_bytes(_gpu: &Gpu, graph: &Csr) -> u64 {
        FrontierQueues::workspace_bytes(graph.vertex_count()) + 12 * graph.vertex_count() as u64
    }

    /// Loads the kernels and allocates the queues for `graph`.
    fn new(gpu: &'g Gpu, graph: &'g Csr) -> Result<Self> {
        Ok(HybridCpu {
            gpu,
            graph,
            expand: gpu.entry(block_queue::EXPAND)?,
            mark: gpu.entry(hybrid_cpu::MARK)?,
            queues: FrontierQueues::new(graph.vertex_count())?,
            levels: vec![UNREACHED; graph.vertex_count() as usize],
            discoveries: Vec::new(),
            discoveries_on_device: None,
            frontiers: (Vec::new(), Vec::new()),
        })
    }
}

impl GpuBfs for HybridCpu<'_> {
    fn run(&mut self, graph: &DeviceGraph, request: Request) -> Result<GpuRun> {
        let source = request.source;
        self.queues.start(self.gpu, source)?;
        self.levels.fill(UNREACHED);
        self.levels[source as usize] = 0;
        self.discoveries.clear();
        let (mut frontier, mut next_frontier) = std::mem::take(&mut self.frontiers);
        frontier.clear();
        frontier.push(source);
        let mut frontier_on_device = true;
        let mut level = 0;
        while !frontier.is_empty() {
            let started = std::time::Instant::now();
            let on_cpu = (frontier.len() as u32) < CPU_FRONTIER_THRESHOLD;
            if on_cpu {
                self.cpu_level(&frontier, level, &mut next_frontier);
                frontier_on_device = false;
            } else {
                self.gpu_level(
                    graph,
                    (&frontier, frontier_on_device),
                    level,
                    &mut next_frontier,
                )
                .map_err(|error| at_level(error, level))?;
                frontier_on_device = true;
            }
            std::mem::swap(&mut frontier, &mut next_frontier);
            let step = Step::gpu_level(level, started);
            self.queues.steps.push(Step { on_cpu, ..step });
            level += 1;
        }
        self.frontiers = (frontier, next_frontier);
        self.flush_discoveries()?;
        self.queues.finish(self.gpu, request)
    }
}
