//! One GPU's search: `auto`'s plan or the variant asked for, the
//! preparation it needs (loaded from the graph's file or built), the graph
//! and buffers on the device, and its searches.

use std::time::Instant;

use bfs::gpu::{Gpu, Partitioned, Search, Strategy, Variant, Workload};
use bfs::graph::prepared::{Preparation, PreparationKind, Preparations};
use bfs::many::Limits;
use bfs::many::gpu::GpuBatches;
use bfs::phases::{Phase, Phases};
use bfs::{Bfs, Csr, Error};

use super::engine::{Engine, Outcome, within};
use crate::SearchArgs;

/// One GPU, with the variant or strategy the plan took.
pub(super) struct OneGpu<'g> {
    gpu: &'g Gpu,
    variant: Variant,
    search: Search<'g>,
    /// The device, the strategy and why, in words.
    plan: String,
}

/// What a GPU search's plan needs to know of the run.
pub(super) struct SearchContext<'r> {
    /// The graph's name, for notes.
    pub(super) graph_name: String,
    /// The preparations the graph's file holds.
    pub(super) prepared: &'r Preparations,
    /// How many searches the run makes, which decides what pays to build.
    pub(super) searches: usize,
}

/// The GPU search the options ask for: `auto`'s plan for this run (or the
/// variant asked for), its preparation loaded from the graph's file or
/// built, and the graph and buffers on the device.
pub(super) fn planned<'g>(
    gpu: &'g Gpu,
    graph: &'g Csr,
    arguments: &SearchArgs,
    context: &SearchContext<'_>,
    phases: &mut Phases,
) -> anyhow::Result<OneGpu<'g>> {
    let variant = arguments.variant;
    if let Some(size) = arguments.partition_size {
        phases.end(Phase::Plan);
        let search = Search::with(gpu, graph, Variant::Partitioned, |gpu, graph| {
            Ok(Box::new(Partitioned::with_partition_size(
                gpu, graph, size,
            )?))
        })?;
        phases.end(Phase::Upload);
        return Ok(OneGpu {
            gpu,
            variant,
            search,
            plan: format!("variant partitioned (asked for), partitions of {size} vertices"),
        });
    }
    let plan_auto = |prepared: &Preparations| {
        let workload = Workload {
            searches: context.searches,
            prepared,
        };
        let plan = bfs::gpu::plan(graph, gpu.cooperative_launch(), workload);
        let line = format!("auto took {}: {}", plan.strategy.name(), plan.reason);
        (Some(plan.strategy), line)
    };
    let (mut strategy, mut plan) = match variant {
        Variant::Auto => plan_auto(context.prepared),
        variant => (None, format!("variant {variant} (asked for)")),
    };
    phases.end(Phase::Plan);
    let needs = |strategy: Option<Strategy>| match variant {
        Variant::Auto => strategy.and_then(Strategy::needs),
        Variant::HierarchySweep => Some(PreparationKind::Hierarchy),
        Variant::GhostZones => Some(PreparationKind::GhostZones),
        _ => None,
    };
    let mut preparation = None;
    if let Some(kind) = needs(strategy) {
        match load_prepared(gpu, graph, kind, context.prepared) {
            Loaded::Usable(prepared, how) => {
                preparation = Some(*prepared);
                plan = format!("{plan}; {how}");
            }
            loaded => {
                // `auto` counted on the file's preparation: plan again without it.
                if variant == Variant::Auto && context.prepared.has(kind) {
                    (strategy, plan) = plan_auto(&Preparations::none());
                }
                let rebuilt = needs(strategy);
                if let Loaded::Unusable(why) = loaded {
                    let next = match rebuilt {
                        Some(_) => "building it anew",
                        None => "searching without it",
                    };
                    eprintln!(
                        "note: {}'s prepared {} is unusable ({why}); {next}",
                        context.graph_name,
                        kind.name()
                    );
                }
                if let Some(kind) = rebuilt {
                    let started = Instant::now();
                    match bfs::gpu::build_preparation(
                        graph,
                        kind,
                        bfs::gpu::ghost_zone_capacity(gpu),
                    ) {
                        Ok(built) => {
                            preparation = Some(built);
                            let seconds = started.elapsed().as_secs_f64();
                            plan = format!("{plan}; its {} built in {seconds:.3} s", kind.name());
                        }
                        // Zones that do not fit (hubs' one-hop zones, or past
                        // 2^32 entries): `auto` goes level by level instead.
                        Err(Error::Unsupported(why)) if variant == Variant::Auto => {
                            strategy = Some(Strategy::ManyLevelsPerLaunch);
                            let instead = Strategy::ManyLevelsPerLaunch.name();
                            plan = format!("{plan}; but {why}, so {instead}");
                        }
                        Err(error) => return Err(error.into()),
                    }
                }
            }
        }
    }
    phases.end(Phase::Preparation);
    let search = Search::prepared(gpu, graph, variant, strategy, preparation)?;
    phases.end(Phase::Upload);
    Ok(OneGpu {
        gpu,
        variant,
        search,
        plan,
    })
}

impl Engine for OneGpu<'_> {
    fn for_each(
        &mut self,
        _graph: &Csr,
        sources: &[u32],
        depth_limit: Option<u32>,
        on_outcome: &mut dyn FnMut(Outcome) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        for &source in sources {
            let run = self.search.run(source)?;
            let outcome = Outcome {
                result: run.result,
                elapsed: run.elapsed,
                steps: run.steps,
                work: run.work,
                download: run.download,
            };
            on_outcome(within(outcome, depth_limit))?;
        }
        Ok(())
    }

    /// The seeds are one source of the GPU's batch engine, which finds
    /// distances; the parents are taken from them.
    fn search_seeds(
        &mut self,
        graph: &Csr,
        seeds: &[u32],
        depth_limit: Option<u32>,
    ) -> anyhow::Result<Outcome> {
        let started = Instant::now();
        let mut engine = GpuBatches::new(self.gpu, graph, 1)?;
        let row = engine.search_from_seeds(seeds, Limits { depth_limit })?;
        let levels = row
            .iter()
            .map(|&level| u32::try_from(level).unwrap_or(bfs::UNREACHED))
            .collect();
        let result = Bfs::from_levels(graph, seeds, levels);
        Ok(Outcome::timed(result, started.elapsed()))
    }

    fn plan_line(&self, _graph: &Csr) -> String {
        format!(
            "{} ({}); {}",
            self.gpu.name(),
            self.gpu.kernel_code(),
            self.plan
        )
    }

    fn device(&self) -> String {
        self.gpu.name().into()
    }

    fn variant(&self) -> Option<Variant> {
        Some(self.variant)
    }

    fn device_bytes(&self) -> Option<u64> {
        Some(self.search.device_bytes())
    }
}

/// What the graph's file held of a preparation.
enum Loaded {
    /// A usable one, and how long loading it took, in words.
    Usable(Box<Preparation>, String),
    /// One that cannot be trusted, and why.
    Unusable(String),
    /// None.
    Absent,
}

/// `kind`'s preparation for `graph` from its file's sections (`prepared`),
/// checked: zones must also fit `gpu`'s blocks.
fn load_prepared(gpu: &Gpu, graph: &Csr, kind: PreparationKind, prepared: &Preparations) -> Loaded {
    let started = Instant::now();
    let capacity = bfs::gpu::ghost_zone_capacity(gpu);
    match prepared.load(kind, graph.vertex_count()) {
        Some(Ok(Preparation::GhostZones(zones))) if zones.most_zone_vertices > capacity => {
            Loaded::Unusable(format!(
                "its zones hold up to {} vertices, more than this GPU's blocks hold ({capacity})",
                zones.most_zone_vertices
            ))
        }
        Some(Ok(preparation)) => {
            let seconds = started.elapsed().as_secs_f64();
            let how = format!("its {} loaded from the file in {seconds:.3} s", kind.name());
            Loaded::Usable(Box::new(preparation), how)
        }
        Some(Err(why)) => Loaded::Unusable(why),
        None => match prepared.problem() {
            // The file's sections end in something unreadable.
            Some(problem) => Loaded::Unusable(problem.to_string()),
            None => Loaded::Absent,
        },
    }
}
