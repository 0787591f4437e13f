//! The labels of a search over several GPUs, gathered into rank 0's host
//! memory a slice of each rank at a time: no GPU holds every vertex's.

use std::ops::Range;

use cust::memory::{CopyDestination, DeviceSlice};

use super::{GATHER_WORDS, Rank};
use crate::error::CudaContext;
use crate::gpu::filled_on_every_core;
use crate::multi::Transfer;
use crate::{Bfs, Result, UNREACHED};

impl Rank<'_> {
    /// Rank 0 gathers every rank's labels into host memory: its own
    /// directly, the others' through its staging buffer, a slice at a
    /// time, each rank sending its slices in turn.
    pub(super) fn gather(&mut self, source: u32) -> Result<Option<Bfs>> {
        let stream = self.gpu.stream();
        let rank = self.rank();
        let n = self.vertex_count as usize;
        let mut result = (rank == 0).then(|| Bfs {
            source,
            levels: filled_on_every_core(n, UNREACHED),
            parents: Some(filled_on_every_core(n, UNREACHED)),
        });
        self.communicator.wait(stream)?;
        if let Some(result) = &mut result {
            let at = self.owned.start as usize..self.owned.end as usize;
            copy_into(&self.levels, &mut result.levels[at.clone()])?;
            copy_into(
                &self.parents,
                &mut result.parents.as_mut().expect("kept")[at],
            )?;
        }
        let slice = gather_words(&self.ranges) as usize;
        for sender in 1..self.ranges.len() {
            let range = self.ranges[sender].clone();
            for first in (range.start..range.end).step_by(slice) {
                let count = slice.min((range.end - first) as usize);
                let local = (first - range.start) as usize;
                let labels = [&self.levels, &self.parents];
                let (sends, receives): (Vec<Transfer>, Vec<Transfer>) = match &self.staging {
                    Some(staging) if rank == 0 => (
                        Vec::new(),
                        (0..2)
                            .map(|k| Transfer {
                                peer: sender as u32,
                                // SAFETY: the staging buffer holds two slices.
                                words: unsafe { staging.as_device_ptr().add(k * slice) },
                                count,
                            })
                            .collect(),
                    ),
                    _ if rank as usize == sender => (
                        labels
                            .iter()
                            .map(|labels| Transfer {
                                peer: 0,
                                // SAFETY: the slice lies within the owned labels.
                                words: unsafe { labels.as_device_ptr().add(local) },
                                count,
                            })
                            .collect(),
                        Vec::new(),
                    ),
                    _ => (Vec::new(), Vec::new()),
                };
                self.communicator.exchange(&sends, &receives, stream)?;
                self.communicator.wait(stream)?;
                if let (Some(result), Some(staging)) = (&mut result, &self.staging) {
                    let at = first as usize..first as usize + count;
                    copy_into(&staging.index(..count), &mut result.levels[at.clone()])?;
                    copy_into(
                        &staging.index(slice..slice + count),
                        &mut result.parents.as_mut().expect("kept")[at],
                    )?;
                }
            }
        }
        Ok(result)
    }
}

/// The most label words of one rank that rank 0 takes at a time.
pub(super) fn gather_words(ranges: &[Range<u32>]) -> u64 {
    let largest = ranges.iter().map(|range| range.len()).max().unwrap_or(0);
    largest.clamp(1, GATHER_WORDS) as u64
}

/// Copies device words into `host` (as many as it holds).
fn copy_into(device: &DeviceSlice<u32>, host: &mut [u32]) -> Result<()> {
    if host.is_empty() {
        return Ok(());
    }
    device
        .index(..host.len())
        .copy_to(host)
        .context(|| "gathering the labels".into())
}
