//! Which engine a run's searches go to: several GPUs where the options or
//! the launcher ask, one GPU where it opened, else the CPU: the
//! single-thread reference, the batches for `--sources`, or the parallel
//! engine.

use std::time::Duration;

use anyhow::bail;
use bfs::cpu;
use bfs::gpu::Gpu;
use bfs::multi::Ranks;
use bfs::phases::Phases;

use super::cpu_engines::{Batches, ParallelCpu, Reference, rows_words};
use super::engine::Engine;
use super::load::LoadedGraph;
use super::multi_gpu::MultiGpu;
use super::one_gpu::{self, SearchContext};
use super::sources::Searches;
use crate::batch_engine::{BatchOptions, Method, Prepared, batch_engine};
use crate::{DeviceChoice, SearchArgs};

/// The engine for this run: over GPUs where `ranks` asks, on `gpu` where
/// it opened, else on the CPU (where the options did not ask for the CPU,
/// `no_gpu` says why it runs there).
pub(super) fn choose<'g>(
    arguments: &SearchArgs,
    loaded: &'g LoadedGraph,
    gpu: Option<&'g Gpu>,
    no_gpu: Option<String>,
    ranks: Option<Ranks>,
    searches: &Searches,
    phases: &mut Phases,
) -> anyhow::Result<Box<dyn Engine + 'g>> {
    let graph = &loaded.graph;
    if let Some(ranks) = ranks {
        let join_timeout = Duration::from_secs_f64(arguments.join_timeout.max(0.0));
        return Ok(Box::new(MultiGpu::new(ranks, join_timeout)));
    }
    if let Some(gpu) = gpu {
        let wants_parents = arguments.parents.is_some() || searches.target.is_some();
        if wants_parents && !arguments.variant.records_parents() {
            bail!(
                "variant {} records no parents; --parents and --target need another",
                arguments.variant
            );
        }
        let context = SearchContext {
            graph_name: loaded.source.name(),
            prepared: &loaded.prepared,
            searches: searches.sources.len(),
        };
        return Ok(Box::new(one_gpu::planned(
            gpu, graph, arguments, &context, phases,
        )?));
    }
    if arguments.device == DeviceChoice::CpuReference {
        return Ok(Box::new(Reference));
    }
    let why = no_gpu.unwrap_or_else(|| "--device cpu".into());
    if arguments.sources.is_some() && !arguments.one_by_one {
        let options = BatchOptions {
            device: DeviceChoice::Cpu,
            threads: arguments.threads,
            width: None,
            most_words: Some(rows_words(graph, searches.sources.len())),
            method: Method::Auto,
        };
        let name = loaded.source.name();
        let prepared = Prepared {
            name: &name,
            sections: &loaded.prepared,
        };
        let (engine, why) = batch_engine(
            options,
            (graph, &prepared),
            (None, Some(why)),
            searches.sources.len(),
            phases,
        )?;
        return Ok(Box::new(Batches { engine, why }));
    }
    let threads = arguments
        .threads
        .map_or_else(|| cpu::threads_for(graph), |threads| threads as usize);
    let engine = cpu::ParallelBfs::new(threads)?;
    // The one-time pass that decides whether bottom-up levels are
    // possible belongs to loading, not to the first search.
    graph.is_symmetric();
    Ok(Box::new(ParallelCpu {
        engine,
        why,
        threads_asked: arguments.threads.is_some(),
    }))
}
