//! `bfs centrality`: closeness, harmonic centrality, eccentricity or the
//! distance histogram, from every vertex or a sample, by searches of many
//! sources at once (`bfs::many`); or betweenness, of vertices or edges
//! (`betweenness`). Prints the top ten and a summary, and writes one value
//! per vertex (or the histogram, or an edge's) where `--output` asks.

mod betweenness;
mod report;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use bfs::gpu::GpuCount;
use bfs::graph::generate::sample_vertices;
use bfs::many::centrality::Sources;
use bfs::many::{self, GpuMethod, Limits, ManySources};
use clap::{Args, ValueEnum};

use bfs::phases::{Phase, Phases};

use crate::batch_engine::{BatchOptions, Method, Prepared, batch_engine};
use crate::device::{self, DeviceOpening};
use crate::{DeviceChoice, GraphArgs};

/// The options of `bfs centrality`.
#[derive(Args)]
pub struct CentralityArgs {
    /// What to compute: closeness (Wasserman–Faust), harmonic centrality,
    /// eccentricity (with the radius and the diameter), the histogram of
    /// distances over ordered pairs, or betweenness of vertices or of
    /// edges (Brandes; networkx's values).
    #[arg(long, value_enum)]
    measure: Measure,
    #[command(flatten)]
    graph: GraphArgs,
    /// `all` (exact), or N: an estimate from N vertices sampled uniformly.
    #[arg(long, default_value = "all")]
    sources: String,
    /// Write one value per vertex, a line each in vertex order (the
    /// histogram: `distance count` lines; edge betweenness: `u v value`
    /// lines, an undirected edge once, `u < v`); `.npy` by the extension
    /// (edge betweenness: a value an arc, in CSR order).
    #[arg(long)]
    output: Option<PathBuf>,
    /// Betweenness: count each path's ends too (networkx's `endpoints`).
    #[arg(long)]
    endpoints: bool,
    /// Betweenness: sums over pairs, an undirected graph's counted once,
    /// not divided by the pairs (networkx's `normalized=False`).
    #[arg(long)]
    raw: bool,
    /// Where to search: the GPU if there is one, else the CPU (auto); the
    /// GPU or fail; the CPU's bit-parallel batches; the CPU reference, one
    /// source at a time.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    device: DeviceChoice,
    /// Threads for the CPU engine and for loading (default: by the graph).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    threads: Option<u32>,
    /// Distances past D count as unreachable (cuGraph's depth_limit).
    #[arg(long, allow_negative_numbers = true, value_name = "D", value_parser = crate::parse_depth_limit)]
    depth_limit: Option<u32>,
    /// Sources a batch takes: a multiple of 64 from 64 to 2,048 (default:
    /// by the number of sources and, for betweenness on a GPU, by its free
    /// memory; betweenness takes 64 times a power of two).
    #[arg(long, value_parser = parse_width)]
    batch_width: Option<usize>,
    /// How the sources are searched: by the graph (auto), bit-parallel
    /// batches (GPU or CPU), a contraction hierarchy's trees (GPU), a
    /// source a thread or over the contracted chains (CPU), or one source
    /// at a time on every core (CPU).
    #[arg(long, value_enum, default_value_t = Method::Auto)]
    method: Method,
    /// Share the batches among this many GPUs of this host (each holds the
    /// whole graph), or `all`.
    #[arg(long, value_parser = GpuCount::parse)]
    gpus: Option<GpuCount>,
    /// Write the run as JSON: the measure, the sources, the search's time,
    /// and where the whole command's time went (`phases`).
    #[arg(long)]
    json: Option<PathBuf>,
}

/// `--measure`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Measure {
    Closeness,
    Harmonic,
    Eccentricity,
    Histogram,
    Betweenness,
    EdgeBetweenness,
}

impl Measure {
    /// Whether it is betweenness, of vertices or of edges.
    fn is_betweenness(self) -> bool {
        matches!(self, Measure::Betweenness | Measure::EdgeBetweenness)
    }
}

/// Parses `--batch-width`: 64 to [`many::MOST_WORDS`] × 64, by 64.
fn parse_width(text: &str) -> Result<usize, String> {
    let most = 64 * many::MOST_WORDS;
    match text.parse::<usize>() {
        Ok(width) if width % 64 == 0 && (64..=most).contains(&width) => Ok(width),
        _ => Err(format!(
            "'{text}' is not a multiple of 64 from 64 to {most}"
        )),
    }
}

/// What searches a run's sources.
enum Runner<'g> {
    /// One engine, and why it runs where it does.
    One(Box<dyn ManySources + 'g>, String),
    /// GPUs `0..N` of this host sharing the batches, by a GPU method.
    Shared(u32, GpuMethod),
}

/// `bfs centrality`.
pub fn run(arguments: &CentralityArgs) -> anyhow::Result<()> {
    let mut phases = Phases::since_process_start();
    arguments
        .graph
        .check_outputs(&[("--output", &arguments.output), ("--json", &arguments.json)])?;
    let depth_limit = arguments.depth_limit;
    device::start_threads(arguments.threads)?;
    let graph_source = arguments.graph.source()?;
    // The device opens while the graph loads: neither needs the other.
    let opening = match arguments.gpus {
        Some(_) => None,
        None => DeviceOpening::start(arguments.device, None),
    };
    let load_started = Instant::now();
    let (graph, sections) = graph_source.load_prepared(arguments.graph.reader.into())?;
    let load_seconds = load_started.elapsed().as_secs_f64();
    phases.end(Phase::Load);
    let name = graph_source.name();
    println!(
        "graph:     {name}: {} vertices, {} edges (directed CSR entries), loaded in {load_seconds:.3} s",
        graph.vertex_count(),
        graph.edge_count(),
    );
    let prepared = Prepared {
        name: &name,
        sections: &sections,
    };
    let vertex_count = graph.vertex_count();
    let sample = match arguments.sources.as_str() {
        "all" => None,
        count => Some(
            count
                .parse::<usize>()
                .ok()
                .filter(|&count| count > 0)
                .with_context(|| {
                    format!("--sources takes `all` or a number of sources, not '{count}'")
                })?,
        ),
    };
    if let Some(count) = sample
        && count > vertex_count as usize
    {
        bail!("--sources {count}: more sources than the graph's {vertex_count} vertices");
    }
    let measure = arguments.measure;
    if measure.is_betweenness() {
        return run_betweenness(arguments, (&graph, sample, depth_limit), opening, phases);
    }
    if arguments.endpoints || arguments.raw {
        bail!("--endpoints and --raw are options of --measure betweenness");
    }
    if measure == Measure::Eccentricity && sample.is_some() && !graph.is_symmetric() {
        bail!(
            "eccentricity from a sample needs an undirected graph: on a directed one the \
             sample's searches give distances to a vertex, not from it (use --sources all)"
        );
    }
    if let Some(path) = &arguments.output {
        bfs::output::check_room(path, report::output_bytes(measure, path, vertex_count))
            .context("--output")?;
    }
    let options = BatchOptions {
        device: arguments.device,
        threads: arguments.threads,
        width: arguments.batch_width,
        most_words: None,
        method: arguments.method,
    };
    let count = sample.unwrap_or(vertex_count as usize);
    let gpus = match arguments.gpus {
        Some(gpus)
            if arguments.device != DeviceChoice::Cpu
                && arguments.device != DeviceChoice::CpuReference =>
        {
            Some(gpus.resolve()?)
        }
        Some(_) => bail!(
            "--gpus shares the batches among GPUs; --device {} searches on the CPU",
            crate::spelled(arguments.device)
        ),
        None => None,
    };
    let (gpu, no_gpu) = device::finish(opening, arguments.device)?;
    phases.end(Phase::GpuWait);
    // One engine, or GPUs sharing the batches by `auto`'s method.
    let mut runner = match gpus {
        Some(gpus) => Runner::Shared(gpus, many::gpu_method(&graph, count).0),
        None => {
            let (engine, why) = batch_engine(
                options,
                (&graph, &prepared),
                (gpu.as_ref(), no_gpu),
                count,
                &mut phases,
            )?;
            Runner::One(engine, why)
        }
    };
    let width = match &runner {
        Runner::One(engine, _) => engine.batch_width(),
        Runner::Shared(gpus, method) => many::gpus::batch_width(*method, count, *gpus),
    };
    let sources = match sample {
        None => Sources::All(many::all_sources(&graph, width)),
        Some(count) => Sources::Sample(sample_vertices(&graph, count, arguments.graph.seed)),
    };
    phases.end(Phase::Order);
    // From every vertex of an undirected graph, each vertex's own search
    // has its totals; otherwise they are summed over the sources.
    let totals = match measure {
        Measure::Histogram | Measure::Betweenness | Measure::EdgeBetweenness => false,
        Measure::Eccentricity => !sources.is_all(),
        Measure::Closeness | Measure::Harmonic => !sources.is_all() || !graph.is_symmetric(),
    };
    if totals {
        let bytes = 24 * vertex_count as u64;
        bfs::graph::check_host_memory(bytes, "the per-vertex totals")
            .map_err(bfs::Error::OutputTooLarge)?;
    }
    let limits = Limits { depth_limit };
    let (reduced, device) = match &mut runner {
        Runner::One(engine, why) => {
            let reduced = many::run(
                engine.as_mut(),
                vertex_count,
                sources.list(),
                limits,
                totals,
            )?;
            (reduced, format!("{} ({why})", engine.describe()))
        }
        &mut Runner::Shared(gpus, method) => {
            let hierarchy = match method {
                GpuMethod::HierarchyTrees => prepared.hierarchy(&graph),
                GpuMethod::BitParallel => None,
            };
            let from_file = match hierarchy {
                Some(_) => "; its hierarchy from the prepared file",
                None => "",
            };
            let reduced = many::gpus::run_on_gpus(
                &graph,
                gpus,
                sources.list(),
                (limits, totals),
                (method, hierarchy),
            )?;
            let device = format!(
                "{gpus} GPUs sharing the batches, {width} sources a batch (--gpus{from_file})"
            );
            (reduced, device)
        }
    };
    phases.end(Phase::Search);
    println!("device:    {device}");
    let run = report::Run {
        measure,
        graph: &graph,
        sources: &sources,
        reduced: &reduced,
        depth_limit,
        seed: arguments.graph.seed,
        output: arguments.output.as_deref(),
    };
    report::report(&run, &mut phases)?;
    drop(runner);
    drop(gpu);
    let searches = reduced.eccentricities.len();
    let summary = Summary {
        measure: crate::spelled(measure),
        sources: searches,
        batches: reduced.batches,
        search_seconds: reduced.elapsed.as_secs_f64(),
    };
    finish(arguments, &summary, phases)
}

/// What a run's last lines and `--json` say of its searches.
#[derive(serde::Serialize)]
pub(crate) struct Summary {
    pub(crate) measure: String,
    pub(crate) sources: usize,
    pub(crate) batches: usize,
    pub(crate) search_seconds: f64,
}

/// Ends a run once its device is released: the `phases:` line, the
/// summary's, and `--json`.
fn finish(arguments: &CentralityArgs, summary: &Summary, mut phases: Phases) -> anyhow::Result<()> {
    phases.end(Phase::Teardown);
    let times = phases.times();
    println!("phases:    {}", bfs::phases::one_line(&times));
    let seconds = summary.search_seconds;
    println!(
        "{}: {} sources in {} batches, search {seconds:.6} s ({:.4} ms a source)",
        summary.measure,
        summary.sources,
        summary.batches,
        seconds * 1e3 / summary.sources.max(1) as f64
    );
    if let Some(path) = &arguments.json {
        let json = serde_json::json!({
            "graph": arguments.graph.graph,
            "measure": summary.measure,
            "sources": summary.sources,
            "batches": summary.batches,
            "search_seconds": seconds,
            "wall_seconds": phases.wall().as_secs_f64(),
            "phases": times,
        });
        bfs::output::write_text(path, &format!("{json:#}\n")).context("writing --json")?;
    }
    Ok(())
}

/// `--measure betweenness|edge-betweenness`, after the checks only it
/// needs, with the device `opening` and the run's `phases` so far.
fn run_betweenness(
    arguments: &CentralityArgs,
    (graph, sample, depth_limit): (&bfs::Csr, Option<usize>, Option<u32>),
    opening: Option<DeviceOpening>,
    mut phases: Phases,
) -> anyhow::Result<()> {
    if depth_limit.is_some() {
        bail!(
            "--depth-limit: betweenness counts whole shortest paths, which a depth limit \
             would cut; leave it out"
        );
    }
    if arguments.method != Method::Auto {
        bail!("--method picks how distances are searched; betweenness has one method a device");
    }
    let edges = arguments.measure == Measure::EdgeBetweenness;
    if edges && arguments.endpoints {
        bail!("--endpoints: edge betweenness always counts each path's ends (as networkx's)");
    }
    if arguments.device == DeviceChoice::CpuReference {
        bail!(
            "--device cpu-reference: betweenness runs on the GPU or on every core (--device cpu)"
        );
    }
    if let Some(width) = arguments.batch_width
        && !(width / 32).is_power_of_two()
    {
        bail!("--batch-width {width}: a betweenness batch takes 64 times a power of two sources");
    }
    let gpus = match arguments.gpus {
        Some(_) if arguments.device == DeviceChoice::Cpu => {
            bail!("--gpus shares the batches among GPUs; --device cpu searches on the CPU")
        }
        Some(gpus) => Some(gpus.resolve()?),
        None => None,
    };
    let asked = betweenness::Asked {
        edges,
        endpoints: arguments.endpoints,
        normalized: !arguments.raw,
        // networkx takes a sample of every vertex as every vertex.
        sample: sample.filter(|&count| count < graph.vertex_count() as usize),
        seed: arguments.graph.seed,
        device: arguments.device,
        width: arguments.batch_width,
        gpus,
        output: arguments.output.as_deref(),
    };
    if let Some(path) = &arguments.output {
        bfs::output::check_room(path, betweenness::output_bytes(&asked, path, graph))
            .context("--output")?;
    }
    let (gpu, no_gpu) = device::finish(opening, arguments.device)?;
    phases.end(Phase::GpuWait);
    let summary = betweenness::run(&asked, graph, (gpu.as_ref(), no_gpu), &mut phases)?;
    drop(gpu);
    finish(arguments, &summary, phases)
}
