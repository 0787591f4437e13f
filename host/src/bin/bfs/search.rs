//! `bfs` without a subcommand: load a graph, search it from one source or
//! many, and report, check and write what was found. The run's steps are
//! timed as [`Phases`], from the process's start.

use std::path::Path;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail};
use bfs::gpu::{
    Gpu, Partitioned, Search, Step, Strategy, Variant, Work, Workload, exchange_time,
    median_exchange_per_level,
};
use bfs::graph::GraphSource;
use bfs::graph::generate::sources_with_edges;
use bfs::graph::prepared::{Preparation, PreparationKind, Preparations};
use bfs::multi::Ranks;
use bfs::multi::direction_optimizing::RankMemory;
use bfs::phases::{Phase, PhaseTime, Phases};
use bfs::report::{self, Report, Statistics};
use bfs::validate::Verifier;
use bfs::{Bfs, Csr, Error, UNREACHED, cpu, output, plot};
use serde::Serialize;

use crate::{DeviceChoice, SearchArgs};

/// Graph500's number of search keys, for `--sources random`.
const GRAPH500_SOURCES: usize = 64;

/// Runs the searches the options ask for, in a process that started at
/// `started`.
pub fn run(arguments: &SearchArgs, started: SystemTime) -> anyhow::Result<()> {
    if arguments.list_variants {
        list_variants();
        return Ok(());
    }
    if arguments.partition_size.is_some() && arguments.variant != Variant::Partitioned {
        bail!("--partition-size goes with --variant partitioned");
    }
    if let Some(threads) = arguments.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads as usize)
            .build_global()
            .context("starting the loader's threads")?;
    }
    let mut phases = Phases::since_process_start();
    let ranks = multi_gpu_ranks(arguments, started)?;
    // The device opens while the graph loads: neither needs the other.
    let opening = (!arguments.load_only && ranks.is_none())
        .then(|| DeviceOpening::start(arguments))
        .flatten();
    let mut graph_source = GraphSource::parse(&arguments.graph)?;
    if let GraphSource::Generated(spec) = &mut graph_source {
        spec.seed = arguments.seed;
    }
    let load_started = Instant::now();
    let (graph, prepared) = graph_source.load_prepared(arguments.reader.into())?;
    let load_time = load_started.elapsed();
    phases.end(Phase::Load);
    if arguments.load_only {
        print_load(&graph_source, &graph, load_time);
        return Ok(());
    }
    let sources = match &arguments.sources {
        Some(spec) => many_sources(spec, &graph, arguments.seed)?,
        None => vec![vertex(arguments.source, &graph)?],
    };
    let target = arguments
        .target
        .map(|target| vertex(target, &graph))
        .transpose()?;
    let wants_parents = arguments.parents.is_some() || target.is_some();
    let (gpu, no_gpu) = match opening {
        Some(opening) => opening.finish(arguments.device)?,
        None => (None, None),
    };
    phases.end(Phase::GpuWait);

    let mut searcher = match (&gpu, ranks) {
        (_, Some(ranks)) => Searcher::MultiGpu {
            ranks,
            join_timeout: Duration::from_secs_f64(arguments.join_timeout.max(0.0)),
            device: String::new(),
        },
        (Some(gpu), None) => {
            if wants_parents && !arguments.variant.records_parents() {
                bail!(
                    "variant {} records no parents; --parents and --target need another",
                    arguments.variant
                );
            }
            let context = SearchContext {
                graph_name: graph_source.name(),
                prepared: &prepared,
                searches: sources.len(),
            };
            gpu_searcher(gpu, &graph, arguments, &context, &mut phases)?
        }
        (None, None) if arguments.device == DeviceChoice::CpuReference => Searcher::CpuReference,
        (None, None) => {
            let threads = arguments
                .threads
                .map_or_else(|| cpu::threads_for(&graph), |threads| threads as usize);
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
    };

    if let Searcher::MultiGpu {
        ranks: Ranks::Process { rank: 1.., .. },
        ..
    } = searcher
    {
        searcher.for_each(&graph, &sources, &mut |_| Ok(()))?;
        println!("rank done: {} searches", sources.len());
        return Ok(());
    }
    println!("plan:      {}", searcher.plan_line(&graph));
    let run = Run {
        arguments,
        graph_source: &graph_source,
        graph: &graph,
        load_time,
        kernel_code: gpu.as_ref().map(|gpu| gpu.kernel_code().to_string()),
        startup: gpu.as_ref().map(Gpu::startup),
    };
    let report = match arguments.sources {
        Some(_) => many_searches(&run, &mut searcher, &sources, &mut phases)?,
        None => one_search(&run, &mut searcher, sources[0], target, &mut phases)?,
    };
    // The report's text, but for the phases that end after it.
    let report = match arguments.json {
        Some(_) => Some(serde_json::to_string_pretty(&report)?),
        None => None,
    };
    phases.end(Phase::Output);
    drop(searcher);
    drop(gpu);
    phases.end(Phase::Teardown);
    finish(arguments, report, &phases)?;
    // The process ends next, and gives the graph's memory back at once;
    // freeing it piece by piece first would be time after the report.
    std::mem::forget((graph, prepared));
    Ok(())
}

/// Ends a run once its device is released: `--trace`'s phases, and the
/// JSON report (written during the output phase) with them as its last
/// fields.
fn finish(arguments: &SearchArgs, report: Option<String>, phases: &Phases) -> anyhow::Result<()> {
    let (times, wall_seconds) = (phases.times(), phases.wall().as_secs_f64());
    if arguments.trace {
        print_phases(&times, wall_seconds);
    }
    if let (Some(path), Some(report)) = (&arguments.json, report) {
        let body = report
            .strip_suffix('}')
            .context("a JSON report is an object")?
            .trim_end();
        let phases = serde_json::to_string(&times)?;
        let json =
            format!("{body},\n  \"wall_seconds\": {wall_seconds},\n  \"phases\": {phases}\n}}\n");
        output::write_text(path, &json).context("writing --json")?;
    }
    Ok(())
}

/// What every report of a run needs.
struct Run<'r> {
    arguments: &'r SearchArgs,
    graph_source: &'r GraphSource,
    graph: &'r Csr,
    load_time: Duration,
    /// What the kernels were loaded from, where a GPU runs.
    kernel_code: Option<String>,
    /// How long opening the GPU took.
    startup: Option<bfs::gpu::Startup>,
}

/// One search, its summary and its files; returns its JSON report (the
/// phases to come).
fn one_search(
    run: &Run<'_>,
    searcher: &mut Searcher<'_>,
    source: u32,
    target: Option<u32>,
    phases: &mut Phases,
) -> anyhow::Result<serde_json::Value> {
    let (arguments, graph) = (run.arguments, run.graph);
    let mut only = None;
    searcher.for_each(graph, &[source], &mut |outcome| {
        only = Some(outcome);
        Ok(())
    })?;
    let outcome = only.context("the search gave no result")?;
    phases.end(Phase::Search);
    phases.move_time(Phase::Search, Phase::Download, outcome.download);
    let result = &outcome.result;
    let mut report = Report::new(
        run.graph_source.name(),
        graph,
        searcher.device(),
        searcher.variant(),
        result,
        run.load_time,
        outcome.elapsed,
        searcher.device_bytes(),
        &outcome.steps,
    )
    .with_work(outcome.work);
    report.plan = Some(searcher.plan_line(graph));
    if arguments.verify {
        Verifier::default().check(graph, result)?;
        report.verified = Some(true);
        phases.end(Phase::Verify);
    }
    print_summary(&report);
    if arguments.verify {
        println!("verify:    pass (distances equal the CPU reference; Graph500 rules hold)");
    }
    if arguments.trace {
        print_trace(&report);
    }
    if let Some(target) = target {
        print_path(result, target);
    }
    if let Some(path) = &arguments.output {
        output::write_per_vertex(path, &result.levels).context("writing --output")?;
    }
    if let Some(path) = &arguments.parents {
        let parents = result
            .parents
            .as_ref()
            .context("this search recorded no parents")?;
        output::write_per_vertex(path, parents).context("writing --parents")?;
    }
    if let Some(path) = &arguments.plot {
        plot::frontier_sizes(&report, path).context("writing --plot")?;
    }
    report.kernel_code.clone_from(&run.kernel_code);
    report.startup = run.startup;
    Ok(match arguments.json {
        Some(_) => serde_json::to_value(&report)?,
        None => serde_json::Value::Null,
    })
}

/// `--list-variants`: each variant and its description, one a line.
fn list_variants() {
    let width = Variant::ALL
        .iter()
        .map(|variant| variant.name().len())
        .max()
        .unwrap_or(0);
    for variant in Variant::ALL {
        println!("{:<width$} {}", variant.name(), variant.description());
    }
}

/// The device being opened on its own thread while the graph loads.
struct DeviceOpening {
    thread: Option<JoinHandle<bfs::Result<Gpu>>>,
}

/// A run that ends early (a bad source, say) waits for the device it was
/// opening, so that the process never exits while a thread is inside the
/// driver's initialisation.
impl Drop for DeviceOpening {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl DeviceOpening {
    /// Starts opening the device, unless the options ask for the CPU.
    fn start(arguments: &SearchArgs) -> Option<DeviceOpening> {
        if matches!(
            arguments.device,
            DeviceChoice::Cpu | DeviceChoice::CpuReference
        ) {
            return None;
        }
        let ptx = arguments.ptx.clone();
        let thread = std::thread::spawn(move || open_gpu(ptx.as_deref()));
        Some(DeviceOpening {
            thread: Some(thread),
        })
    }

    /// The opened device, made current on this thread; or, where `device`
    /// is `auto` and there is none, `None` and why (after a note).
    fn finish(mut self, device: DeviceChoice) -> anyhow::Result<(Option<Gpu>, Option<String>)> {
        let opened = self
            .thread
            .take()
            .context("the GPU's opening was joined already")?
            .join()
            .map_err(|_| anyhow::anyhow!("the thread opening the GPU panicked"))?;
        match opened {
            Ok(gpu) => {
                gpu.make_current()?;
                Ok((Some(gpu), None))
            }
            Err(Error::NoDevice(reason)) if device == DeviceChoice::Auto => {
                eprintln!("note: no CUDA device ({reason}); running on the CPU instead");
                Ok((None, Some(format!("no CUDA device ({reason})"))))
            }
            Err(error) => Err(error.into()),
        }
    }
}

/// What a GPU search's plan needs to know of the run.
struct SearchContext<'r> {
    graph_name: String,
    prepared: &'r Preparations,
    searches: usize,
}

/// The GPU search the options ask for: `auto`'s plan for this run (or the
/// variant asked for), its preparation loaded from the graph's file or
/// built, and the graph and buffers on the device.
fn gpu_searcher<'g>(
    gpu: &'g Gpu,
    graph: &'g Csr,
    arguments: &SearchArgs,
    context: &SearchContext<'_>,
    phases: &mut Phases,
) -> anyhow::Result<Searcher<'g>> {
    let variant = arguments.variant;
    if let Some(size) = arguments.partition_size {
        phases.end(Phase::Plan);
        let search = Search::with(gpu, graph, Variant::Partitioned, |gpu, graph| {
            Ok(Box::new(Partitioned::with_partition_size(
                gpu, graph, size,
            )?))
        })?;
        phases.end(Phase::Upload);
        return Ok(Searcher::Gpu {
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
    Ok(Searcher::Gpu {
        gpu,
        variant,
        search,
        plan,
    })
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

/// A vertex id given on the command line, checked against the graph.
fn vertex(id: i64, graph: &Csr) -> bfs::Result<u32> {
    u32::try_from(id)
        .ok()
        .filter(|&vertex| vertex < graph.vertex_count())
        .ok_or(Error::SourceOutOfRange {
            vertex: id,
            vertex_count: graph.vertex_count(),
        })
}

/// `--sources`: `N` random sources with an edge, `random` (64), or a list.
fn many_sources(spec: &str, graph: &Csr, seed: u64) -> anyhow::Result<Vec<u32>> {
    let sources = if spec == "random" {
        sources_with_edges(graph, GRAPH500_SOURCES, seed)
    } else if spec.contains(',') {
        spec.split(',')
            .map(|id| {
                let id: i64 = id
                    .trim()
                    .parse()
                    .with_context(|| format!("bad source '{id}' in --sources"))?;
                Ok(vertex(id, graph)?)
            })
            .collect::<anyhow::Result<_>>()?
    } else {
        let count: usize = spec
            .parse()
            .with_context(|| format!("--sources takes N, random or a list, not '{spec}'"))?;
        sources_with_edges(graph, count, seed)
    };
    if sources.is_empty() {
        bail!("--sources {spec}: the graph has no vertex with an edge to start from");
    }
    Ok(sources)
}

/// Opens the GPU with the embedded kernels, or those of the PTX file `ptx`.
fn open_gpu(ptx: Option<&Path>) -> bfs::Result<Gpu> {
    match ptx {
        None => Gpu::open(),
        Some(path) => {
            let ptx = std::fs::read_to_string(path).map_err(|error| Error::Io {
                path: path.to_path_buf(),
                error,
            })?;
            Gpu::with_ptx(&ptx)
        }
    }
}

/// The ranks of a multi-GPU search the options ask for, if any.
fn multi_gpu_ranks(arguments: &SearchArgs, started: SystemTime) -> anyhow::Result<Option<Ranks>> {
    Ok(match (arguments.gpus, arguments.rank, arguments.ranks) {
        (Some(count), ..) => Some(Ranks::Threads(count.resolve()?)),
        (None, Some(rank), Some(ranks)) => Some(Ranks::Process {
            rank,
            ranks,
            id_file: arguments.nccl_id_file.clone(),
            started,
        }),
        _ => None,
    })
}

/// Where the searches run.
enum Searcher<'g> {
    /// The parallel CPU engine.
    Cpu {
        engine: cpu::ParallelBfs,
        /// Why the CPU: no GPU, or the options.
        why: String,
        /// Whether `--threads` set its threads (else the graph's size did).
        threads_asked: bool,
    },
    /// The single-thread reference.
    CpuReference,
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
struct Outcome {
    result: Bfs,
    elapsed: Duration,
    steps: Vec<Step>,
    work: Option<Work>,
    /// Host time to copy its result back, after the device finished.
    download: Duration,
}

impl Searcher<'_> {
    /// Searches from each of `sources` in turn, handing each outcome to
    /// `on_outcome` as it comes (one result in memory at a time: a
    /// Kronecker 28 search's levels and parents take 2 GB).
    fn for_each(
        &mut self,
        graph: &Csr,
        sources: &[u32],
        on_outcome: &mut dyn FnMut(Outcome) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        if let Searcher::MultiGpu {
            ranks,
            join_timeout,
            device,
        } = self
        {
            let mut failure = None;
            let searched = bfs::multi::search(graph, ranks, sources, *join_timeout, &mut |run| {
                let most = |part: fn(&RankMemory) -> u64| {
                    run.memory.iter().map(part).max().unwrap_or(0) as f64 / 1e9
                };
                *device = format!(
                    "{}; device memory of the fullest GPU: {:.2} GB allocated by the search, {:.2} GB in use",
                    run.device,
                    most(|memory| memory.allocated),
                    most(|memory| memory.in_use)
                );
                on_outcome(Outcome {
                    result: run.result,
                    elapsed: run.elapsed,
                    steps: run.steps,
                    work: None,
                    download: Duration::ZERO,
                })
                .map_err(|error| {
                    let message = format!("{error:#}");
                    failure = Some(error);
                    Error::MultiGpu(message)
                })
            });
            return match (failure, searched) {
                (Some(error), _) => Err(error),
                (None, searched) => Ok(searched?),
            };
        }
        for &source in sources {
            let outcome = match self {
                Searcher::Gpu { search, .. } => {
                    let run = search.run(source)?;
                    Outcome {
                        result: run.result,
                        elapsed: run.elapsed,
                        steps: run.steps,
                        work: run.work,
                        download: run.download,
                    }
                }
                _ => {
                    let started = Instant::now();
                    let result = match self {
                        Searcher::Cpu { engine, .. } => engine.search(graph, source),
                        _ => cpu::bfs(graph, source),
                    };
                    Outcome {
                        result,
                        elapsed: started.elapsed(),
                        steps: Vec::new(),
                        work: None,
                        download: Duration::ZERO,
                    }
                }
            };
            on_outcome(outcome)?;
        }
        Ok(())
    }

    /// The device, the strategy and why, in one line.
    fn plan_line(&self, graph: &Csr) -> String {
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
            Searcher::CpuReference => {
                "CPU, the single-thread reference (--device cpu-reference)".into()
            }
            Searcher::Gpu { gpu, plan, .. } => {
                format!("{} ({}); {plan}", gpu.name(), gpu.kernel_code())
            }
            Searcher::MultiGpu { ranks, .. } => match ranks {
                Ranks::Threads(1) => {
                    "the search over GPUs, on one GPU through NCCL (--gpus)".into()
                }
                Ranks::Threads(count) => {
                    format!("the search over {count} GPUs of this host through NCCL (--gpus)")
                }
                Ranks::Process { rank, ranks, .. } => format!(
                    "the search over {ranks} processes through NCCL, one GPU each; this is rank {rank}"
                ),
                Ranks::SharedGpu(count) => format!("the search over {count} ranks sharing GPU 0"),
            },
        }
    }

    fn device(&self) -> String {
        match self {
            Searcher::Cpu { engine, .. } => format!(
                "CPU (direction-optimizing BFS, {} threads)",
                engine.threads()
            ),
            Searcher::CpuReference => "CPU (reference BFS, one thread)".into(),
            Searcher::Gpu { gpu, .. } => gpu.name().into(),
            Searcher::MultiGpu { device, .. } => device.clone(),
        }
    }

    fn variant(&self) -> Option<Variant> {
        match self {
            Searcher::Cpu { .. } | Searcher::CpuReference | Searcher::MultiGpu { .. } => None,
            Searcher::Gpu { variant, .. } => Some(*variant),
        }
    }

    fn device_bytes(&self) -> Option<u64> {
        match self {
            Searcher::Cpu { .. } | Searcher::CpuReference | Searcher::MultiGpu { .. } => None,
            Searcher::Gpu { search, .. } => Some(search.device_bytes()),
        }
    }
}

/// Many searches on one graph: Graph500's statistics.
/// Returns the JSON report (the phases to come).
fn many_searches(
    run: &Run<'_>,
    searcher: &mut Searcher<'_>,
    sources: &[u32],
    phases: &mut Phases,
) -> anyhow::Result<serde_json::Value> {
    let (arguments, graph_source, graph) = (run.arguments, run.graph_source, run.graph);
    #[derive(Serialize)]
    struct Searched {
        source: u32,
        levels: u32,
        reached: usize,
        edges_traversed: u64,
        input_edges_traversed: Option<u64>,
        bfs_milliseconds: f64,
        /// Over GPUs: the time of the search's exchanges.
        exchange_milliseconds: Option<f64>,
        /// Each level, as `--trace` prints it (written with `--json` only).
        trace: Vec<report::LevelTrace>,
    }
    #[derive(Serialize)]
    struct ManyReport {
        graph: String,
        vertices: u32,
        edges: u64,
        device: String,
        variant: Option<String>,
        device_bytes: Option<u64>,
        verified: Option<bool>,
        statistics: Statistics,
        plan: String,
        kernel_code: Option<String>,
        startup: Option<bfs::gpu::Startup>,
        searches: Vec<Searched>,
    }
    let (mut times, mut edges, mut searches) = (Vec::new(), Vec::new(), Vec::new());
    let (mut input_edges, mut searches_steps) = (Vec::new(), Vec::new());
    let mut verifier = Verifier::default();
    // Time the searches' callback spends on other phases' work.
    let (mut downloading, mut verifying, mut reporting) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    searcher.for_each(graph, sources, &mut |outcome| {
        let source = outcome.result.source;
        downloading += outcome.download;
        let started = Instant::now();
        if arguments.verify {
            verifier
                .check(graph, &outcome.result)
                .with_context(|| format!("source {source}"))?;
        }
        let verified = Instant::now();
        verifying += verified - started;
        let traversed = outcome.result.edges_traversed(graph);
        let input_traversed = outcome.result.input_edges_traversed(graph);
        let exchange = exchange_time(&outcome.steps);
        searches.push(Searched {
            source,
            levels: outcome.result.level_count(),
            reached: outcome.result.reached(),
            edges_traversed: traversed,
            input_edges_traversed: input_traversed,
            bfs_milliseconds: outcome.elapsed.as_secs_f64() * 1e3,
            exchange_milliseconds: exchange.map(|exchange| exchange.as_secs_f64() * 1e3),
            trace: match arguments.json {
                Some(_) => report::trace(graph, &outcome.result, &outcome.steps),
                None => Vec::new(),
            },
        });
        times.push(outcome.elapsed);
        searches_steps.push(outcome.steps);
        edges.push(traversed);
        input_edges.extend(input_traversed);
        reporting += verified.elapsed();
        Ok(())
    })?;
    phases.end(Phase::Search);
    phases.move_time(Phase::Search, Phase::Download, downloading);
    if arguments.verify {
        phases.move_time(Phase::Search, Phase::Verify, verifying);
    }
    phases.move_time(Phase::Search, Phase::Output, reporting);
    let input_edges = (input_edges.len() == times.len()).then_some(&input_edges[..]);
    let statistics = Statistics::of(&times, &edges, input_edges);
    let variant = searcher.variant();
    println!(
        "device:    {}{}",
        searcher.device(),
        variant
            .map(|variant| format!(" (GPU, variant {variant})"))
            .unwrap_or_default()
    );
    println!(
        "graph:     {}: {} vertices, {} edges (directed CSR entries)",
        graph_source.name(),
        graph.vertex_count(),
        graph.edge_count()
    );
    let reuse = if variant.is_some() {
        " (device buffers allocated once, reused)"
    } else {
        ""
    };
    println!("searches:  {}{reuse}", statistics.searches);
    println!(
        "time ms:   min {:.3}, first quartile {:.3}, median {:.3}, third quartile {:.3}, max {:.3}",
        statistics.min_ms,
        statistics.first_quartile_ms,
        statistics.median_ms,
        statistics.third_quartile_ms,
        statistics.max_ms
    );
    println!(
        "GTEPS:     {:.4} (harmonic mean; edges: out-degrees of reached vertices)",
        statistics.harmonic_mean_gteps
    );
    if let Some(gteps) = statistics.graph500_harmonic_mean_gteps {
        println!(
            "Graph500:  {gteps:.4} GTEPS (harmonic mean; edges: input edge tuples in the component)"
        );
    }
    if let Some(median) = median_exchange_per_level(searches_steps.iter().map(Vec::as_slice)) {
        println!(
            "exchange:  {:.1} µs a level (the median over searches of the collectives' time over the levels)",
            median.as_secs_f64() * 1e6
        );
    }
    if arguments.verify {
        println!("verify:    pass for every source");
    }
    if arguments.json.is_none() {
        return Ok(serde_json::Value::Null);
    }
    let report = ManyReport {
        graph: graph_source.name(),
        vertices: graph.vertex_count(),
        edges: graph.edge_count(),
        device: searcher.device(),
        variant: variant.map(|variant| variant.name().to_string()),
        device_bytes: searcher.device_bytes(),
        verified: arguments.verify.then_some(true),
        statistics,
        plan: searcher.plan_line(graph),
        kernel_code: run.kernel_code.clone(),
        startup: run.startup,
        searches,
    };
    Ok(serde_json::to_value(&report)?)
}

/// `--trace`'s table of the run's phases.
fn print_phases(phases: &[PhaseTime], wall_seconds: f64) {
    println!("{:>14} {:>10}", "phase", "ms");
    for time in phases {
        println!("{:>14} {:>10.2}", time.phase.name(), time.seconds * 1e3);
    }
    println!("{:>14} {:>10.2}", "wall", wall_seconds * 1e3);
}

fn print_load(graph_source: &GraphSource, graph: &Csr, load_time: Duration) {
    let seconds = load_time.as_secs_f64();
    let rate = match graph_source {
        GraphSource::File(path) => std::fs::metadata(path)
            .map(|metadata| format!(", {:.1} MB/s", metadata.len() as f64 / 1e6 / seconds))
            .unwrap_or_default(),
        GraphSource::Generated(_) => String::new(),
    };
    println!(
        "graph:     {}: {} vertices, {} edges (directed CSR entries), loaded in {seconds:.3} s{rate}",
        graph_source.name(),
        graph.vertex_count(),
        graph.edge_count()
    );
    let csr_bytes = 4 * (graph.vertex_count() as u64 + 1) + 4 * graph.edge_count();
    match peak_memory_bytes() {
        Some(peak) => println!(
            "memory:    peak {:.1} MB resident (mapped file included), CSR {:.1} MB",
            peak as f64 / 1e6,
            csr_bytes as f64 / 1e6
        ),
        None => println!("memory:    CSR {:.1} MB", csr_bytes as f64 / 1e6),
    }
}

/// This process's peak resident memory (Linux's `VmHWM`), where the system tells.
fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kilobytes * 1024)
}

fn print_summary(report: &Report) {
    match (&report.variant, report.device_bytes) {
        (Some(variant), Some(bytes)) => {
            println!(
                "device:    {} (GPU, variant {variant}, {bytes} bytes of device memory)",
                report.device
            )
        }
        _ => println!("device:    {}", report.device),
    }
    println!(
        "graph:     {}: {} vertices, {} edges (directed CSR entries), loaded in {:.3} s",
        report.graph, report.vertices, report.edges, report.load_seconds
    );
    println!("source:    {}", report.source);
    println!("levels:    {}", report.levels);
    println!(
        "reached:   {} of {} vertices",
        report.reached, report.vertices
    );
    println!("bfs time:  {:.3} ms", report.bfs_milliseconds);
    if let (Some(work), Some(overhead)) = (report.work, report.work_overhead) {
        let partitions = if work.partition_searches > 0 {
            format!(
                "{} partition searches of {} levels in all; ",
                work.partition_searches, work.levels_searched
            )
        } else {
            String::new()
        };
        println!(
            "work:      {} barriers for {} levels; {partitions}\
             {overhead:.3}× the edges of a level-synchronous search",
            work.barriers, report.levels
        );
    }
    println!(
        "GTEPS:     {:.4} ({} edges traversed: out-degrees of reached vertices)",
        report.gteps, report.edges_traversed
    );
    if let (Some(gteps), Some(edges)) = (report.graph500_gteps, report.input_edges_traversed) {
        println!("Graph500:  {gteps:.4} GTEPS ({edges} input edge tuples in the component)");
    }
}

fn print_trace(report: &Report) {
    println!(
        "{:>7} {:>12} {:>14} {:>10}  step",
        "level", "frontier", "edges", "ms"
    );
    for level in &report.trace {
        let time = level
            .milliseconds
            .map_or("-".into(), |milliseconds| format!("{milliseconds:.4}"));
        let step = match (level.step_levels, level.on_cpu) {
            (Some(levels), Some(on_cpu)) => {
                format!(
                    "{} {levels} level{}",
                    if on_cpu { "CPU" } else { "GPU" },
                    if levels == 1 { "" } else { "s" }
                )
            }
            _ => String::new(),
        };
        let direction = level
            .direction
            .map_or(String::new(), |direction| format!(", {direction}"));
        let exchange = match (level.exchange_milliseconds, level.exchange_megabytes) {
            (Some(milliseconds), Some(megabytes)) => {
                format!(", exchange {milliseconds:.4} ms, {megabytes:.3} MB a GPU")
            }
            _ => String::new(),
        };
        println!(
            "{:>7} {:>12} {:>14} {:>10}  {step}{direction}{exchange}",
            level.level, level.frontier, level.edges, time
        );
    }
}

/// `--target`: the tree path from the source, by walking parents back.
fn print_path(result: &Bfs, target: u32) {
    let Some(parents) = &result.parents else {
        return;
    };
    if result.levels[target as usize] == UNREACHED {
        println!(
            "path:      vertex {target} is not reachable from {}",
            result.source
        );
        return;
    }
    let mut path = vec![target];
    while let Some(&last) = path.last()
        && last != result.source
    {
        path.push(parents[last as usize]);
    }
    path.reverse();
    let hops: Vec<String> = path.iter().map(u32::to_string).collect();
    println!(
        "path:      {} ({} edges)",
        hops.join(" -> "),
        path.len() - 1
    );
}
