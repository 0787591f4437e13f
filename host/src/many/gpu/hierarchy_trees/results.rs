//! What a batch of [`HierarchyTrees`] gives back: each source's
//! vertices at each distance, and what `Keep` asks for beyond them.

use bfs_kernels::abi::hierarchy_trees::{
    BLOCK_SIZE, COUNT_BLOCK_SIZE, MOST_COUNTED_SOURCES, Tally, count_shared_bytes,
    difference_stride,
};
use cust::memory::{AsyncCopyDestination, DeviceBuffer, LockedBuffer};

use super::super::kept::{DeviceTotals, nothing_kept};
use super::HierarchyTrees;
use crate::Result;
use crate::error::CudaContext;
use crate::many::{Keep, Limits};

impl HierarchyTrees<'_> {
    /// Counts each source's vertices at each distance below `bins`;
    /// returns the counts, `count * bins` of them.
    pub(super) fn count(&mut self, count: u32, limits: Limits, bins: u32) -> Result<&[u32]> {
        let allocation = || "allocating a batch's counts".to_string();
        let total = count as usize * bins as usize;
        if self.counts.len() < total {
            self.counts = DeviceBuffer::zeroed(total).context(allocation)?;
        }
        // As many sources a block as fit its shared memory, and few enough
        // that every multiprocessor has a block.
        let room = self.gpu.shared_memory_per_block() as u64;
        let each = count / self.gpu.multiprocessors();
        let mut group = MOST_COUNTED_SOURCES.min(each.max(1).next_power_of_two());
        while group > 1 && (count_shared_bytes(group, bins) > room || group > each.max(1)) {
            group /= 2;
        }
        let in_shared = count_shared_bytes(group, bins) <= room;
        let blocks = count.div_ceil(group);
        let scratch = if in_shared {
            let bytes = count_shared_bytes(group, bins) as u32;
            if bytes > self.count_shared_allowed {
                self.kernels.count.allow_shared_memory(bytes)?;
                self.count_shared_allowed = bytes;
            }
            std::ptr::null_mut()
        } else {
            let words = blocks as usize * group as usize * difference_stride(bins) as usize;
            if self.scratch.len() < words {
                self.scratch = DeviceBuffer::zeroed(words).context(allocation)?;
            }
            self.scratch.as_device_ptr().as_raw() as *mut u32
        };
        let tally = Tally {
            counts: self.counts.as_device_ptr().as_raw() as *mut u32,
            scratch,
            bins,
            group,
        };
        let shared = if in_shared {
            count_shared_bytes(group, bins) as u32
        } else {
            0
        };
        // SAFETY: the sweeps are done; every distance within the limit is
        // below `bins` (the caller's); `counts` holds `count * bins` words,
        // the scratch (where used) `blocks * group * stride`; the shared
        // memory is the size allowed above.
        unsafe {
            self.kernels.count.launch(
                self.gpu.stream(),
                (blocks, COUNT_BLOCK_SIZE, shared),
                (self.labels(count), self.chains(limits), tally),
            )
        }
        .context(|| "launching hierarchy_trees_count".into())?;
        if self.counts_on_host.len() < total {
            self.counts_on_host = LockedBuffer::new(&0, total).context(allocation)?;
        }
        let context = || "reading a batch's counts".to_string();
        if total > 0 {
            // SAFETY: a copy on the stream after the count kernel; the
            // page-locked words are read after the stream is synchronized.
            unsafe {
                self.counts
                    .index(..total)
                    .async_copy_to(&mut self.counts_on_host[..total], self.gpu.stream())
                    .context(context)?;
            }
            self.gpu.stream().synchronize().context(context)?;
        }
        Ok(&self.counts_on_host[..total])
    }

    /// Launches what `keep` asks for beyond the counts: the totals added
    /// into the device's, or every source's row of distances.
    pub(super) fn keep(&mut self, keep: &mut Keep<'_>, count: u32, limits: Limits) -> Result<()> {
        let n = self.graph.vertex_count() as usize;
        let mut kept = nothing_kept();
        let (kernel, per_warp, name) = match keep {
            Keep::Counts => return Ok(()),
            Keep::Totals(_) => {
                if self.totals.is_none() {
                    self.totals = Some(DeviceTotals::new(n)?);
                }
                self.totals
                    .as_mut()
                    .expect("allocated above")
                    .point(&mut kept);
                (&self.kernels.totals, true, "hierarchy_trees_totals")
            }
            Keep::Distances(_) => {
                let length = (count as usize * n).max(1);
                if self
                    .distances
                    .as_ref()
                    .is_none_or(|buffer| buffer.len() < length)
                {
                    self.distances = None;
                    self.distances = Some(
                        DeviceBuffer::zeroed(length)
                            .context(|| "allocating a batch's distances".into())?,
                    );
                }
                let distances = self.distances.as_ref().expect("allocated above");
                kept.distances = distances.as_device_ptr().as_raw() as *mut i32;
                (&self.kernels.distances, false, "hierarchy_trees_distances")
            }
        };
        let shape = (self.blocks_for(n as u64, per_warp), BLOCK_SIZE, 0);
        // SAFETY: the sweeps are done; the totals hold `n` entries each,
        // written by this stream alone, or the distances `count * n`.
        unsafe {
            kernel.launch(
                self.gpu.stream(),
                shape,
                (self.labels(count), self.chains(limits), kept),
            )
        }
        .context(|| format!("launching {name}"))?;
        if let Keep::Distances(rows) = keep
            && !rows.is_empty()
        {
            let device = self.distances.as_ref().expect("allocated above");
            (self.gpu.staging())
                .copy_into(self.gpu.stream(), &device.index(..count as usize * n), rows)
                .context(|| "reading a batch's distances".into())?;
        }
        Ok(())
    }
}
