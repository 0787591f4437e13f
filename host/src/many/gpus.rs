//! Several GPUs share a run's batches: each holds the whole graph and its
//! own batch engine (by the method given: a contraction hierarchy's trees,
//! the hierarchy built once for all, or [`GpuBatches`]), and takes the
//! next batch whenever it finishes one, so a faster GPU takes more.
//! Nothing passes between them while they search; each batch's counts are
//! reduced as they come, put back in the batches' order, and the GPUs'
//! per-vertex totals added at the end.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bfs_kernels::abi::many_sources::words_for;

use super::gpu::{GpuBatches, HierarchyTrees, MOST_WIDTH};
use super::{GpuMethod, Keep, Limits, ManySources, Reduced, VertexTotals};
use crate::gpu::{Gpu, HierarchySweep};
use crate::graph::hierarchy::ContractionHierarchy;
use crate::{Csr, Error, Result};

/// What one GPU searched: its batches reduced, by batch index (each
/// batch's counts reduced as it comes, so that a run holds no more than a
/// batch's), its totals, and its search time.
type Share = (Vec<(usize, Reduced)>, Option<VertexTotals>, Duration);

/// The sources a GPU's batches take by `method` when `sources` are
/// shared by `gpus`: a batch's most (1,024 bit-parallel, [`MOST_WIDTH`]
/// for the trees), or fewer, so that every GPU has batches.
pub fn batch_width(method: GpuMethod, sources: usize, gpus: u32) -> usize {
    let each = sources.div_ceil(gpus.max(1) as usize);
    match method {
        GpuMethod::BitParallel => 32 * words_for(u32::try_from(each).unwrap_or(u32::MAX)) as usize,
        GpuMethod::HierarchyTrees => each.clamp(1, MOST_WIDTH as usize).next_multiple_of(32),
    }
}

/// Searches from every one of `sources` over GPUs `0..gpus` by `method`
/// (the caller's choice, [`gpu_method`](super::gpu_method)'s for `auto`), as
/// [`run`](super::run) does on one engine: batches of [`batch_width`]
/// sources, dealt out as the GPUs finish them; the trees over `hierarchy`
/// where given (else one built here, once). The time reduced is the
/// longest of the GPUs' search times. The first GPU's error, if any,
/// stops the others after their batch.
pub fn run_on_gpus(
    graph: &Csr,
    gpus: u32,
    sources: &[u32],
    (limits, totals): (Limits, bool),
    (method, hierarchy): (GpuMethod, Option<ContractionHierarchy>),
) -> Result<Reduced> {
    let vertex_count = graph.vertex_count();
    let width = batch_width(method, sources.len(), gpus);
    let batches: Vec<&[u32]> = sources.chunks(width).collect();
    let next_batch = AtomicUsize::new(0);
    let hierarchy = match (method, hierarchy) {
        (GpuMethod::HierarchyTrees, Some(hierarchy)) => Some(hierarchy),
        (GpuMethod::HierarchyTrees, None) => Some(HierarchySweep::build(graph)?),
        (GpuMethod::BitParallel, _) => None,
    };
    let shares = on_each_gpu(gpus, |ordinal, failed| -> Result<Share> {
        let gpu = Gpu::open_device(ordinal)?;
        let mut engine: Box<dyn ManySources> = match &hierarchy {
            Some(hierarchy) => Box::new(HierarchyTrees::from_hierarchy(
                &gpu,
                graph,
                hierarchy.clone(),
                width as u32,
            )?),
            None => Box::new(GpuBatches::new(&gpu, graph, (width / 32) as u32)?),
        };
        let mut held = totals.then(|| VertexTotals::new(vertex_count));
        let (mut searched, mut elapsed) = (Vec::new(), Duration::ZERO);
        while !failed.load(Ordering::Relaxed) {
            let index = next_batch.fetch_add(1, Ordering::Relaxed);
            let Some(batch) = batches.get(index) else {
                break;
            };
            let keep = match &mut held {
                Some(totals) => Keep::Totals(totals),
                None => Keep::Counts,
            };
            let started = Instant::now();
            let counts = engine.search_batch(batch, limits, keep)?;
            elapsed += started.elapsed();
            let mut reduced = Reduced::new(vertex_count, batch.len(), false);
            reduced.add_batch(&counts);
            reduced.batches = 1;
            searched.push((index, reduced));
        }
        if let Some(totals) = &mut held {
            let started = Instant::now();
            engine.add_held_totals(totals)?;
            elapsed += started.elapsed();
        }
        Ok((searched, held, elapsed))
    })?;
    let mut reduced = Reduced::new(vertex_count, sources.len(), totals);
    let mut searched = Vec::with_capacity(batches.len());
    for (batches, held, elapsed) in shares {
        searched.extend(batches);
        if let (Some(total), Some(held)) = (&mut reduced.totals, &held) {
            total.add(held);
        }
        reduced.elapsed = reduced.elapsed.max(elapsed);
    }
    searched.sort_unstable_by_key(|&(index, _)| index);
    // A batch's own reduction holds no time: the GPUs' times are above.
    for (_, batch) in searched {
        reduced.append(batch);
    }
    Ok(reduced)
}

/// Runs `work` on a thread of its own for each of GPUs `0..gpus`, with a
/// flag that the first error sets, so that the others can stop after their
/// batch; returns each GPU's result in order, or the first GPU's error.
pub(crate) fn on_each_gpu<T: Send>(
    gpus: u32,
    work: impl Fn(u32, &AtomicBool) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let failed = AtomicBool::new(false);
    let results: Vec<Result<T>> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..gpus)
            .map(|ordinal| {
                let (work, failed) = (&work, &failed);
                scope.spawn(move || {
                    work(ordinal, failed).inspect_err(|_| failed.store(true, Ordering::Relaxed))
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|_| Err(Error::MultiGpu("a GPU's thread panicked".into())))
            })
            .collect()
    });
    results.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gpu_gets_batches_and_a_batch_holds_at_most_its_methods_most() {
        let bits = GpuMethod::BitParallel;
        assert_eq!(batch_width(bits, 100_000, 1), 1024);
        assert_eq!(batch_width(bits, 100_000, 2), 1024);
        assert_eq!(batch_width(bits, 1000, 2), 512);
        assert_eq!(batch_width(bits, 64, 2), 32);
        assert_eq!(batch_width(bits, 1, 4), 32);
        let trees = GpuMethod::HierarchyTrees;
        assert_eq!(batch_width(trees, 114_599, 2), MOST_WIDTH as usize);
        assert_eq!(batch_width(trees, 1000, 2), 512);
        assert_eq!(batch_width(trees, 100, 2), 64);
        assert_eq!(batch_width(trees, 1, 4), 32);
    }
}
