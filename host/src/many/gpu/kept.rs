//! What a batch keeps on the GPU beside its counts: per-vertex totals,
//! held on the device from batch to batch and added into the caller's at
//! the end (a download a run, not a batch), or each source's row of
//! distances, downloaded with its batch.

use bfs_kernels::abi::many_sources::Kept;
use cust::memory::{CopyDestination, DeviceBuffer};

use super::{GpuBatches, clear};
use crate::Result;
use crate::error::CudaContext;
use crate::many::{Keep, VertexTotals};

/// Per-vertex totals on the device.
pub(super) struct DeviceTotals {
    reached_by: DeviceBuffer<u32>,
    distance_sums: DeviceBuffer<u64>,
    reciprocal_sums: DeviceBuffer<f64>,
    farthest: DeviceBuffer<u32>,
}

impl GpuBatches<'_> {
    /// The kept totals' and distances' pointers for `keep`: the totals
    /// held from batch to batch, the distances' rows cleared for a batch
    /// of `count` sources.
    pub(super) fn kept_for(&mut self, keep: &Keep<'_>, count: usize) -> Result<Kept> {
        let n = self.graph.vertex_count() as usize;
        let allocation = || "allocating a batch's kept results".to_string();
        let mut kept = Kept {
            reached_by: std::ptr::null_mut(),
            distance_sums: std::ptr::null_mut(),
            reciprocal_sums: std::ptr::null_mut(),
            farthest: std::ptr::null_mut(),
            distances: std::ptr::null_mut(),
        };
        match keep {
            Keep::Counts => {}
            Keep::Totals(_) => {
                if self.totals.is_none() {
                    self.totals = Some(DeviceTotals {
                        reached_by: DeviceBuffer::zeroed(n.max(1)).context(allocation)?,
                        distance_sums: DeviceBuffer::zeroed(n.max(1)).context(allocation)?,
                        reciprocal_sums: DeviceBuffer::zeroed(n.max(1)).context(allocation)?,
                        farthest: DeviceBuffer::zeroed(n.max(1)).context(allocation)?,
                    });
                }
                // Zero from their allocation, and again once added into the
                // caller's: the kernels add each batch's into them.
                let totals = self.totals.as_mut().expect("allocated above");
                kept.reached_by = totals.reached_by.as_device_ptr().as_raw() as *mut u32;
                kept.distance_sums = totals.distance_sums.as_device_ptr().as_raw() as *mut u64;
                kept.reciprocal_sums = totals.reciprocal_sums.as_device_ptr().as_raw() as *mut f64;
                kept.farthest = totals.farthest.as_device_ptr().as_raw() as *mut u32;
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
                    device
                        .index(..count * n as usize)
                        .copy_to(&mut rows[..])
                        .context(context)?;
                }
            }
        }
        Ok(())
    }

    /// Adds the totals held on the device into `totals`, and clears them.
    pub(super) fn add_totals(&mut self, totals: &mut VertexTotals) -> Result<()> {
        let Some(device) = self.totals.as_mut() else {
            return Ok(());
        };
        let n = self.graph.vertex_count();
        let context = || "reading the batches' totals".to_string();
        let mut held = VertexTotals::new(n);
        if n > 0 {
            device
                .reached_by
                .copy_to(&mut held.reached_by[..])
                .context(context)?;
            device
                .distance_sums
                .copy_to(&mut held.distance_sums[..])
                .context(context)?;
            device
                .reciprocal_sums
                .copy_to(&mut held.reciprocal_sums[..])
                .context(context)?;
            device
                .farthest
                .copy_to(&mut held.farthest[..])
                .context(context)?;
        }
        totals.add(&held);
        let gpu = self.gpu;
        clear(gpu, &mut device.reached_by, "the totals")?;
        clear(gpu, &mut device.distance_sums, "the totals")?;
        clear(gpu, &mut device.reciprocal_sums, "the totals")?;
        clear(gpu, &mut device.farthest, "the totals")
    }
}
