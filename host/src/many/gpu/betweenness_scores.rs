//! The betweenness scores both GPU engines add into on the device, from
//! search to search ([`Scores`]), and read back once, at the end of a run.

use bfs_kernels::abi::betweenness::Scores;
use cust::memory::DeviceBuffer;

use super::clear;
use crate::error::CudaContext;
use crate::gpu::{Gpu, address, copy_to_host};
use crate::many::betweenness::{Dependencies, Wanted};
use crate::{Csr, Result};

/// A score a vertex and a score an arc, each only where wanted (an
/// unwanted one is a single placeholder value, never written).
pub(super) struct ScoreSums {
    wanted: Wanted,
    vertices: DeviceBuffer<f64>,
    arcs: DeviceBuffer<f64>,
    vertex_count: usize,
    arc_count: usize,
}

impl ScoreSums {
    /// Device bytes of the sums `wanted` asks for over `graph`.
    pub(super) fn bytes(graph: &Csr, wanted: Wanted) -> u64 {
        let (n, m) = (graph.vertex_count() as u64, graph.edge_count());
        8 * (n * u64::from(wanted.vertices) + m * u64::from(wanted.arcs))
    }

    /// Zero sums for `graph`.
    pub(super) fn new(graph: &Csr, wanted: Wanted) -> Result<ScoreSums> {
        let (vertex_count, arc_count) =
            (graph.vertex_count() as usize, graph.edge_count() as usize);
        let zeroed = |wanted: bool, count: usize| {
            DeviceBuffer::<f64>::zeroed(if wanted { count.max(1) } else { 1 })
                .context(|| "allocating the betweenness scores".into())
        };
        Ok(ScoreSums {
            wanted,
            vertices: zeroed(wanted.vertices, vertex_count)?,
            arcs: zeroed(wanted.arcs, arc_count)?,
            vertex_count,
            arc_count,
        })
    }

    /// The parameter block a kernel adds into: the vertices' sums only
    /// where that kernel adds them (`vertices`), the arcs' where wanted.
    pub(super) fn block(&self, vertices: bool) -> Scores {
        let pointer = |wanted: bool, buffer: &DeviceBuffer<f64>| match wanted {
            true => address(buffer),
            false => std::ptr::null_mut(),
        };
        Scores {
            vertices: pointer(vertices && self.wanted.vertices, &self.vertices),
            edges: pointer(self.wanted.arcs, &self.arcs),
            endpoint: f64::from(u8::from(self.wanted.endpoints)),
        }
    }

    /// The vertices' sums, for a kernel that writes them whole.
    pub(super) fn vertices(&self) -> *mut f64 {
        address(&self.vertices)
    }

    /// The sums, read back once the stream is done with them, and the
    /// device's cleared for the next run.
    pub(super) fn take(&mut self, gpu: &Gpu) -> Result<Dependencies> {
        let read = |wanted: bool, buffer: &DeviceBuffer<f64>, count: usize| -> Result<_> {
            Ok(match (wanted, count) {
                (false, _) => None,
                (true, 0) => Some(Vec::new()),
                (true, _) => Some(
                    copy_to_host(gpu, &buffer.index(..count))
                        .context(|| "reading the betweenness scores".into())?,
                ),
            })
        };
        let dependencies = Dependencies {
            vertices: read(self.wanted.vertices, &self.vertices, self.vertex_count)?,
            arcs: read(self.wanted.arcs, &self.arcs, self.arc_count)?,
        };
        clear(gpu, &mut self.vertices, "the scores")?;
        clear(gpu, &mut self.arcs, "the scores")?;
        Ok(dependencies)
    }
}
