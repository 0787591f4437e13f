//! What a batch keeps on the GPU beside its counts: per-vertex totals,
//! held on the device from batch to batch and added into the caller's at
//! the end (a download a run, not a batch), or each source's row of
//! distances, downloaded with its batch.

use bfs_kernels::abi::many_sources::Kept;
use cust::memory::{CopyDestination, DeviceBuffer};

use super::{GpuBatches, clear};
use crate::Result;
use crate::error::CudaContext;
use crate::gpu::Gpu;
use crate::many::{Keep, VertexTotals};

/// Per-vertex totals on the device, which the kernels add each batch's
/// into: zero from their allocation, and again once added into the
/// caller's.
pub(in crate::many) struct DeviceTotals {
    reached_by: DeviceBuffer<u32>,
    distance_sums: DeviceBuffer<u64>,
    reciprocal_sums: DeviceBuffer<f64>,
    farthest: DeviceBuffer<u32>,
}

/// A [`Kept`] that keeps nothing: every pointer null.
pub(in crate::many) fn nothing_kept() -> Kept {
    Kept {
        reached_by: std::ptr::null_mut(),
        distance_sums: std::ptr::null_mut(),
        reciprocal_sums: std::ptr::null_mut(),
        farthest: std::ptr::null_mut(),
        distances: std::ptr::null_mut(),
    }
}

impl DeviceTotals {
    /// Zero totals for `vertex_count` vertices.
    pub(in crate::many) fn new(vertex_count: usize) -> Result<DeviceTotals> {
        let allocation = || "allocating the per-vertex totals".to_string();
        let n = vertex_count.max(1);
        Ok(DeviceTotals {
            reached_by: DeviceBuffer::zeroed(n).context(allocation)?,
            distance_sums: DeviceBuffer::zeroed(n).context(allocation)?,
            reciprocal_sums: DeviceBuffer::zeroed(n).context(allocation)?,
            farthest: DeviceBuffer::zeroed(n).context(allocation)?,
        })
    }

    /// Points `kept`'s totals at these.
    pub(in crate::many) fn point(&mut self, kept: &mut Kept) {
        kept.reached_by = self.reached_by.as_device_ptr().as_raw() as *mut u32;
        kept.distance_sums = self.distance_sums.as_device_ptr().as_raw() as *mut u64;
        kept.reciprocal_sums = self.reciprocal_sums.as_device_ptr().as_raw() as *mut f64;
        kept.farthest = self.farthest.as_device_ptr().as_raw() as *mut u32;
    }

    /// Adds these into `totals`, and clears them on `gpu`'s stream.
    pub(in crate::many) fn add_into(&mut self, gpu: &Gpu, totals: &mut VertexTotals) -> Result<()> {
        let n = totals.reached_by.len();
        let context = || "reading the batches' totals".to_string();
        let mut held = VertexTotals::new(n as u32);
        if n > 0 {
            self.reached_by
                .copy_to(&mut held.reached_by[..])
                .context(context)?;
            self.distance_sums
                .copy_to(&mut held.distance_sums[..])
                .context(context)?;
            self.reciprocal_sums
                .copy_to(&mut held.reciprocal_sums[..])
                .context(context)?;
            self.farthest
                .copy_to(&mut held.farthest[..])
                .context(context)?;
        }
        totals.add(&held);
        clear(gpu, &mut self.reached_by, "the totals")?;
        clear(gpu, &mut self.distance_sums, "the totals")?;
        clear(gpu, &mut self.reciprocal_sums, "the totals")?;
        clear(gpu, &mut self.farthest, "the totals")
    }
}

impl GpuBatches<'_> {
    /// The kept totals' and distances' pointers for `keep`: the totals
    /// held from batch to batch, the distances' rows cleared for a batch
    /// of `count` sources.
    pub(super) fn kept_for(&mut self, keep: &Keep<'_>, count: usize) -> Result<Kept> {
        let n = self.graph.vertex_count() as usize;
        let allocation = || "allocating a batch's kept results".to_string();
        let mut kept = nothing_kept();
        match keep {
            Keep::Counts => {}
            Keep::Totals(_) => {
                if self.totals.is_none() {
                    self.totals = Some(DeviceTotals::new(n)?);
                }
                let totals = self.totals.as_mut().expect("allocated above");
                totals.point(&mut kept);
            }
            Keep::Distances(_) => {
                let length = (count * n).max(1);
                if self
                    .distances
                    .as_ref()
                    .is_none_or(|buffer| buffer.len() < length)
                {
                    self.distances = None;
                    self.distances = Some(DeviceBuffer::zeroed(length).context(allocation)?);
                }
                let distances = self.distances.as_mut().expect("allocated above");
                // SAFETY: a memset of every word to -1 (all bits set), on
                // the stream before the kernels that write distances.
                unsafe {
                    cust::sys::cuMemsetD32Async(
                        distances.as_device_ptr().as_raw(),
                        u32::MAX,
                        length,
                        self.gpu.stream().as_inner(),
                    )
                };
                kept.distances = distances.as_device_ptr().as_raw() as *mut i32;
            }
        }
        Ok(kept)
    }

    /// Copies the distances' rows the batch kept into `keep`.
    pub(super) fn keep_results(&mut self, keep: &mut Keep<'_>, count: usize) -> Result<()> {
        let n = self.graph.vertex_count();
        let context = || "reading a batch's results".to_string();
        match keep {
            Keep::Counts => {}
            // Held on the device until `add_held_totals`.
            Keep::Totals(_) => {}
            Keep::Distances(rows) => {
                let device = self.distances.as_ref().expect("allocated by kept_for");
                if !rows.is_empty() {
                    (self.gpu.staging())
                        .copy_into(self.gpu.stream(), &device.index(..count * n as usize), rows)
                        .context(context)?;
                }
            }
        }
        Ok(())
    }

    /// Adds the totals held on the device into `totals`, and clears them.
    pub(super) fn add_totals(&mut self, totals: &mut VertexTotals) -> Result<()> {
        match self.totals.as_mut() {
            Some(device) => device.add_into(self.gpu, totals),
            None => Ok(()),
        }
    }
}
