//! Where a run's searches go (one GPU, several through NCCL, the parallel
//! CPU engine, its bit-parallel batches or the single-thread reference),
//! and searching there from each source in turn, within a depth limit, or
//! from several seeds at once.

use std::time::{Duration, Instant};

use anyhow::bail;
use bfs::gpu::{Gpu, Search, Step, Variant, Work};
use bfs::many::gpu::GpuBatches;
use bfs::many::{self, CpuMethod, Limits, ManySources};
use bfs::multi::Ranks;
use bfs::phases::Phases;
use bfs::{Bfs, Csr, cpu};

use super::load::LoadedGraph;
use super::multi_gpu;
use super::plan::{self, SearchContext};
use super::sources::Searches;
use crate::batch_engine::{BatchOptions, Method, Prepared, batch_engine};
use crate::{DeviceChoice, SearchArgs};

/// Where the searches run.
pub(super) enum Searcher<'g> {
    /// The parallel CPU engine.
    Cpu {
        engine: cpu::ParallelBfs,
        /// Why the CPU: no GPU, or the options.
        why: String,
        /// Whether `--threads` set its threads (else the graph's size did).
        threads_asked: bool,
    },
    /// Batches of many sources, for `--sources`: the GPU's, or the CPU's
    /// bit-parallel ones.
    Batches {
        engine: Box<dyn ManySources + 'g>,
        /// Why this engine: the graph, no GPU, or the options.
        why: String,
    },
    /// The single-thread reference.
    CpuReference,
    /// One GPU, with the variant or strategy the plan took.
    Gpu {
        gpu: &'g Gpu,
        variant: Variant,
        search: Search<'g>,
        /// The device, the strategy and why, in words.
        plan: String,
    },
    /// Several GPUs through NCCL; the ranks stay joined from one source
    /// to the next.
    MultiGpu {
        ranks: Ranks,
        join_timeout: Duration,
        /// The GPUs, once a search has named them.
        device: String,
    },
}

/// One search's result and how it ran.
pub(super) struct Outcome {
    pub(super) result: Bfs,
    /// The search's time, as the device or the CPU engine timed it.
    pub(super) elapsed: Duration,
    /// Its steps (launches, exchanges), for `--trace`.
    pub(super) steps: Vec<Step>,
    /// What the GPU did for it, where the variant counts that.
    pub(super) work: Option<Work>,
    /// Host time to copy its result back, after the device finished.
    pub(super) download: Duration,
}

/// The searcher for this run: over GPUs where `ranks` asks, on `gpu` where
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
) -> anyhow::Result<Searcher<'g>> {
    let graph = &loaded.graph;
    Ok(match (gpu, ranks) {
        (_, Some(ranks)) => Searcher::MultiGpu {
            ranks,
            join_timeout: Duration::from_secs_f64(arguments.join_timeout.max(0.0)),
            device: String::new(),
        },
        (Some(gpu), None) => {
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
            plan::gpu_searcher(gpu, graph, arguments, &context, phases)?
        }
        (None, None) if arguments.device == DeviceChoice::CpuReference => Searcher::CpuReference,
        (None, None) if arguments.sources.is_some() && !arguments.one_by_one => {
            let (method, reason) = many::cpu_method(graph);
            let options = BatchOptions {
                device: DeviceChoice::Cpu,
                threads: arguments.threads,
                width: Some(64 * rows_words(graph, searches.sources.len())),
                method: match method {
                    CpuMethod::BitParallel => Method::BitParallel,
                    CpuMethod::SourceParallel => Method::SourceParallel,
                    CpuMethod::Chains => Method::Chains,
                },
            };
            let name = loaded.source.name();
            let prepared = Prepared {
                name: &name,
                sections: &loaded.prepared,
            };
            let (engine, _) = batch_engine(
                options,
                (graph, &prepared),
                (None, None),
                searches.sources.len(),
                phases,
            )?;
            let why = no_gpu.unwrap_or_else(|| "--device cpu".into());
            Searcher::Batches {
                engine,
                why: format!("{why}; {reason}"),
            }
        }
        (None, None) => {
            let threads = arguments
                .threads
                .map_or_else(|| cpu::threads_for(graph), |threads| threads as usize);
            let engine = cpu::ParallelBfs::new(threads)?;
            // The one-time pass that decides whether bottom-up levels are
            // possible belongs to loading, not to the first search.
            graph.is_symmetric();
            Searcher::Cpu {
                engine,
                why: no_gpu.unwrap_or_else(|| "--device cpu".into()),
                threads_asked: arguments.threads.is_some(),
            }
        }
    })
}

/// Words a vertex for batches of `sources` sources whose distance rows
/// (`64 × words × n` `i32`s) fit in host memory: fewer where they would not.
fn rows_words(graph: &Csr, sources: usize) -> usize {
    let mut words = many::words_for(sources);
    let row_bytes = 4 * 64 * graph.vertex_count() as u64;
    while words > 1 && bfs::graph::check_host_memory(row_bytes * words as u64, "rows").is_err() {
        words /= 2;
    }
    words
}

impl Searcher<'_> {
    /// Searches from each of `sources` in turn, within `depth_limit`,
    /// handing each outcome to `on_outcome` as it comes, so that a large
    /// graph's many searches hold one result in memory at a time (a
    /// batch's, in batches: each source gets an even share of its time).
    pub(super) fn for_each(
        &mut self,
        graph: &Csr,
        sources: &[u32],
        depth_limit: Option<u32>,
        on_outcome: &mut dyn FnMut(Outcome) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let limit_depth = |mut outcome: Outcome| {
            if let Some(limit) = depth_limit {
                outcome.result.limit_depth(limit);
            }
            outcome
        };
        match self {
            Searcher::MultiGpu {
                ranks,
                join_timeout,
                device,
            } => {
                return multi_gpu::search(
                    graph,
                    ranks,
                    sources,
                    *join_timeout,
                    device,
                    &mut |outcome| on_outcome(limit_depth(outcome)),
                );
            }
            Searcher::Batches { engine, .. } => {
                return batches(engine.as_mut(), graph, sources, depth_limit, on_outcome);
            }
            _ => {}
        }
        for &source in sources {
            let outcome = match self {
                Searcher::Gpu { search, .. } => {
                    let run = search.run(source)?;
                    limit_depth(Outcome {
                        result: run.result,
                        elapsed: run.elapsed,
                        steps: run.steps,
                        work: run.work,
                        download: run.download,
                    })
                }
                _ => self.search_seeds(graph, &[source], depth_limit)?,
            };
            on_outcome(outcome)?;
        }
        Ok(())
    }

    /// One search from every one of `seeds` at once, within `depth_limit`,
    /// on the CPU engines. A GPU's search from several seeds plugs in here.
    pub(super) fn search_seeds(
        &mut self,
        graph: &Csr,
        seeds: &[u32],
        depth_limit: Option<u32>,
    ) -> anyhow::Result<Outcome> {
        let started = Instant::now();
        let result = match self {
            Searcher::Cpu { engine, .. } => engine.search_within(graph, seeds, depth_limit),
            Searcher::CpuReference => cpu::bfs_within(graph, seeds, depth_limit),
            // The seeds are one source of the GPU's batch engine, which
            // finds distances; the parents are taken from them.
            Searcher::Gpu { gpu, .. } => {
                let mut engine = GpuBatches::new(gpu, graph, 1)?;
                let row = engine.search_from_seeds(seeds, Limits { depth_limit })?;
                let levels = row
                    .iter()
                    .map(|&level| u32::try_from(level).unwrap_or(bfs::UNREACHED))
                    .collect();
                Bfs::from_levels(graph, seeds, levels)
            }
            _ => bail!(
                "--seeds searches on one GPU or the CPU engines; \
                 the search over several GPUs takes one source"
            ),
        };
        Ok(Outcome {
            result,
            elapsed: started.elapsed(),
            steps: Vec::new(),
            work: None,
            download: Duration::ZERO,
        })
    }

    /// The device, the strategy and why, in one line.
    pub(super) fn plan_line(&self, graph: &Csr) -> String {
        match self {
            Searcher::Cpu {
                engine,
                why,
                threads_asked,
            } => {
                let threads = match threads_asked {
                    true => "asked for".to_string(),
                    false => format!("for {} CSR entries", graph.edge_count()),
                };
                format!(
                    "CPU, direction-optimizing engine on {} threads ({threads}): {why}",
                    engine.threads()
                )
            }
            Searcher::Batches { engine, why } => format!("{}: {why}", engine.describe()),
            Searcher::CpuReference => {
                "CPU, the single-thread reference (--device cpu-reference)".into()
            }
            Searcher::Gpu { gpu, plan, .. } => {
                format!("{} ({}); {plan}", gpu.name(), gpu.kernel_code())
            }
            Searcher::MultiGpu { ranks, .. } => multi_gpu::plan_line(ranks),
        }
    }

    /// The device in words, for the report.
    pub(super) fn device(&self) -> String {
        match self {
            Searcher::Cpu { engine, .. } => format!(
                "CPU (direction-optimizing BFS, {} threads)",
                engine.threads()
            ),
            Searcher::Batches { engine, .. } => engine.describe(),
            Searcher::CpuReference => "CPU (reference BFS, one thread)".into(),
            Searcher::Gpu { gpu, .. } => gpu.name().into(),
            Searcher::MultiGpu { device, .. } => device.clone(),
        }
    }

    /// The GPU variant that searches, where one GPU does.
    pub(super) fn variant(&self) -> Option<Variant> {
        match self {
            Searcher::Cpu { .. }
            | Searcher::Batches { .. }
            | Searcher::CpuReference
            | Searcher::MultiGpu { .. } => None,
            Searcher::Gpu { variant, .. } => Some(*variant),
        }
    }

    /// The device memory the search holds, where one GPU searches.
    pub(super) fn device_bytes(&self) -> Option<u64> {
        match self {
            Searcher::Cpu { .. }
            | Searcher::Batches { .. }
            | Searcher::CpuReference
            | Searcher::MultiGpu { .. } => None,
            Searcher::Gpu { search, .. } => Some(search.device_bytes()),
        }
    }
}

/// Searches from `sources` in the engine's batches, each source's
/// distances an outcome of their own (no parents; the batch's time shared
/// evenly among its sources).
fn batches(
    engine: &mut dyn ManySources,
    graph: &Csr,
    sources: &[u32],
    depth_limit: Option<u32>,
    on_outcome: &mut dyn FnMut(Outcome) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let vertex_count = graph.vertex_count();
    let limits = Limits { depth_limit };
    let most_rows = 64 * rows_words(graph, sources.len());
    let sizes = (vertex_count, most_rows);
    many::with_distances(engine, sizes, sources, limits, &mut |batch| {
        let share = batch.elapsed / batch.sources.len() as u32;
        let rows = batch.rows.chunks(vertex_count as usize);
        for (&source, row) in batch.sources.iter().zip(rows) {
            let levels = row
                .iter()
                .map(|&level| u32::try_from(level).unwrap_or(bfs::UNREACHED))
                .collect();
            on_outcome(Outcome {
                result: Bfs {
                    source,
                    levels,
                    parents: None,
                },
                elapsed: share,
                steps: Vec::new(),
                work: None,
                download: Duration::ZERO,
            })?;
        }
        Ok(())
    })
}
