//! [`Search`]: a graph uploaded once and one variant's buffers allocated
//! once, searched from any number of sources; the device memory checked
//! before anything is allocated.

use super::auto::{self, Strategy, strategy_on};
use super::memory::DeviceGraph;
use super::symmetry;
use super::{
    GhostZones, Gpu, GpuBfs, GpuRun, HierarchySweep, Labels, LockedDestination, Request, Variant,
};
use crate::graph::prepared::Preparation;
use crate::{Bfs, Csr, Error, Result};

/// A graph on the device with one variant ready to search it, any number of times.
pub struct Search<'g> {
    gpu: &'g Gpu,
    graph: DeviceGraph,
    bfs: Box<dyn GpuBfs + 'g>,
    variant: Variant,
    device_bytes: u64,
}

impl<'g> Search<'g> {
    /// Uploads `graph` and allocates `variant`'s buffers, after checking that
    /// both fit in the device's free memory.
    pub fn new(gpu: &'g Gpu, graph: &'g Csr, variant: Variant) -> Result<Search<'g>> {
        Self::with(gpu, graph, variant, |gpu, graph| variant.create(gpu, graph))
    }

    /// As [`new`](Self::new), for `auto`'s `strategy` where `variant` is
    /// `auto` (its choice for many searches where `None`), with the
    /// strategy's or the variant's `preparation` where it was built or
    /// loaded already (a variant that needs none ignores it).
    pub fn prepared(
        gpu: &'g Gpu,
        graph: &'g Csr,
        variant: Variant,
        strategy: Option<Strategy>,
        preparation: Option<Preparation>,
    ) -> Result<Search<'g>> {
        let strategy = match variant {
            Variant::Auto => Some(strategy.unwrap_or_else(|| strategy_on(gpu, graph))),
            Variant::HierarchySweep => Some(Strategy::HierarchySweep),
            Variant::GhostZones => Some(Strategy::GhostZones),
            _ => None,
        };
        let Some(strategy) = strategy else {
            return Self::new(gpu, graph, variant);
        };
        let workspace_bytes = auto::workspace_bytes(gpu, graph, strategy, preparation.as_ref());
        Self::with_workspace(gpu, graph, variant, workspace_bytes, |gpu, graph| {
            match (variant, preparation) {
                (Variant::HierarchySweep, Some(Preparation::Hierarchy(hierarchy))) => Ok(Box::new(
                    HierarchySweep::from_hierarchy(gpu, graph, hierarchy, None)?,
                )),
                (Variant::GhostZones, Some(Preparation::GhostZones(zones))) => {
                    Ok(Box::new(GhostZones::from_zones(gpu, zones)?))
                }
                (Variant::Auto, preparation) => auto::create(gpu, graph, strategy, preparation),
                _ => variant.create(gpu, graph),
            }
        })
    }

    /// As [`new`](Self::new), with a driver built by `create` (a variant with
    /// non-default parameters, such as [`HierarchicalQueue::with_sub_queues`](super::HierarchicalQueue::with_sub_queues)).
    pub fn with(
        gpu: &'g Gpu,
        graph: &'g Csr,
        variant: Variant,
        create: impl FnOnce(&'g Gpu, &'g Csr) -> Result<Box<dyn GpuBfs + 'g>>,
    ) -> Result<Search<'g>> {
        Self::with_workspace(
            gpu,
            graph,
            variant,
            variant.workspace_bytes(gpu, graph),
            create,
        )
    }

    /// [`with`](Self::with), `workspace_bytes` the variant's bytes besides
    /// the graph (a bound, where it can only be known once built).
    fn with_workspace(
        gpu: &'g Gpu,
        graph: &'g Csr,
        variant: Variant,
        workspace_bytes: u64,
        create: impl FnOnce(&'g Gpu, &'g Csr) -> Result<Box<dyn GpuBfs + 'g>>,
    ) -> Result<Search<'g>> {
        let needed = DeviceGraph::bytes(graph) + workspace_bytes;
        let free = gpu.free_memory()?;
        if needed > free {
            return Err(Error::DeviceMemory {
                variant: variant.name(),
                needed,
                free,
            });
        }
        let device_graph = DeviceGraph::upload(gpu, graph)?;
        // Before the driver asks, on the host, whether it may go bottom-up.
        symmetry::settle(gpu, graph, &device_graph)?;
        let graph_bytes = DeviceGraph::bytes(graph);
        let bfs = create(gpu, graph)?;
        let device_bytes = graph_bytes + bfs.device_bytes().unwrap_or(workspace_bytes);
        Ok(Search {
            gpu,
            graph: device_graph,
            bfs,
            variant,
            device_bytes,
        })
    }

    /// Device bytes this search allocated: the graph and the variant's buffers.
    pub fn device_bytes(&self) -> u64 {
        self.device_bytes
    }

    /// Runs one BFS from `source`; its result holds the parents where the
    /// variant records them, and its statistics.
    pub fn run(&mut self, source: u32) -> Result<GpuRun> {
        self.run_for(Request::everything(source))
    }

    /// Runs one BFS for `request`: its result holds the parents and the
    /// statistics only where asked, so that a search that wants the levels
    /// alone does not wait for them.
    pub fn run_for(&mut self, request: Request) -> Result<GpuRun> {
        let source = request.source;
        if source >= self.graph.vertex_count {
            return Err(Error::SourceOutOfRange {
                vertex: source.into(),
                vertex_count: self.graph.vertex_count,
            });
        }
        // A search's download is timed from its own timer's stop.
        *self
            .gpu
            .last_timer_stop
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        let mut run = self
            .bfs
            .run(&self.graph, request)
            .map_err(|error| match error {
                Error::Cuda { context, error } => Error::Cuda {
                    context: format!("variant {}, {context}", self.variant),
                    error,
                },
                other => other,
            })?;
        if let Some(stopped) = self.gpu.last_timer_stop() {
            run.download = stopped.elapsed();
        }
        Ok(run)
    }

    /// Runs one search for `request` whose labels come back straight into
    /// page-locked vectors (`locked.rs`), which go back to the device when
    /// dropped, where the variant's labels come back whole and the device
    /// has room for them; else into ordinary vectors, as
    /// [`run_for`](Self::run_for). The run's own result is left empty.
    pub fn run_locked(&mut self, request: Request) -> Result<(Bfs<Labels>, GpuRun)> {
        let destination = LockedDestination::default();
        let mut run = self.run_for(Request {
            locked: Some(&destination),
            ..request
        })?;
        let result = std::mem::take(&mut run.result);
        let labels = match destination.take() {
            Some(copy) => Bfs {
                source: result.source,
                levels: Labels::Locked(copy.levels),
                parents: copy.parents.map(Labels::Locked),
            },
            None => result.map(Labels::Vector),
        };
        Ok((labels, run))
    }
}
