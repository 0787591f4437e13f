//! `bfs` without a subcommand: load a graph, search it from one source or
//! many, and report, check and write what was found. [`run`] names the
//! steps in order; each step's file below `search/` says what it does. The
//! run's steps are timed as [`Phases`], from the process's start.

mod cpu_engines;
mod engine;
mod finish;
mod load;
mod many_searches;
mod multi_gpu;
mod one_gpu;
mod one_search;
mod searcher;
mod sources;

use std::time::{Duration, SystemTime};

use anyhow::{Context, bail};
use bfs::gpu::{Gpu, Variant};
use bfs::graph::GraphSource;
use bfs::phases::{Phase, Phases};
use bfs::{Csr, output};

use self::engine::Engine;
use self::load::LoadedGraph;
use self::sources::Searches;
use crate::SearchArgs;
use crate::device::{self, DeviceOpening};

/// Runs the searches the options ask for, in a process that started at
/// `started`.
pub fn run(arguments: &SearchArgs, started: SystemTime) -> anyhow::Result<()> {
    if arguments.list_variants {
        list_variants();
        return Ok(());
    }
    check_options(arguments)?;
    arguments.graph.check_outputs(&[
        ("--output", &arguments.output),
        ("--parents", &arguments.parents),
        ("--plot", &arguments.plot),
        ("--json", &arguments.json),
    ])?;
    let depth_limit = arguments.depth_limit;
    device::start_threads(arguments.threads)?;
    let mut phases = Phases::since_process_start();
    let ranks = multi_gpu::ranks(arguments, started)?;
    // The device opens while the graph loads: neither needs the other.
    let opening = (!arguments.load_only && ranks.is_none())
        .then(|| DeviceOpening::start(arguments.device, arguments.ptx.clone()))
        .flatten();
    let loaded = load::load_graph(arguments, &mut phases)?;
    if arguments.load_only {
        load::print_load(&loaded.source, &loaded.graph, loaded.load_time);
        return Ok(());
    }
    let searches = sources::searches(arguments, &loaded.graph)?;
    check_matrix(arguments, &searches, &loaded.graph)?;
    let (gpu, no_gpu) = device::finish(opening, arguments.device)?;
    phases.end(Phase::GpuWait);
    let mut searcher = searcher::choose(
        arguments,
        &loaded,
        gpu.as_ref(),
        no_gpu,
        ranks,
        &searches,
        &mut phases,
    )?;
    if searcher.is_helping_rank() {
        let sources = &searches.sources;
        return multi_gpu::help_rank_zero(searcher.as_mut(), &loaded.graph, sources, depth_limit);
    }
    let report = search_and_report(
        arguments,
        &loaded,
        gpu.as_ref(),
        searcher.as_mut(),
        (&searches, depth_limit),
        &mut phases,
    )?;
    phases.end(Phase::Output);
    drop(searcher);
    drop(gpu);
    phases.end(Phase::Teardown);
    finish::finish(arguments, report, &phases)?;
    // The process ends next, and gives the graph's memory back at once;
    // freeing it piece by piece first would be time after the report.
    std::mem::forget(loaded);
    Ok(())
}

/// Refuses options that go together only with others.
fn check_options(arguments: &SearchArgs) -> anyhow::Result<()> {
    if arguments.partition_size.is_some() && arguments.variant != Variant::Partitioned {
        bail!("--partition-size goes with --variant partitioned");
    }
    Ok(())
}

/// With `--sources`, `--output` writes the sources × vertices matrix of
/// distances as `.npy`: checks the name, and the matrix's size against host
/// memory and the disk, before any search.
fn check_matrix(arguments: &SearchArgs, searches: &Searches, graph: &Csr) -> anyhow::Result<()> {
    let (Some(path), Some(_)) = (&arguments.output, &arguments.sources) else {
        return Ok(());
    };
    if !output::npy::is_npy(path) {
        bail!("--output with --sources writes a sources × vertices matrix: name a .npy file");
    }
    let shape = [searches.sources.len(), graph.vertex_count() as usize];
    let bytes = 4 * shape[0] as u64 * shape[1] as u64;
    bfs::graph::check_host_memory(bytes, "the distance matrix of --output")
        .map_err(bfs::Error::OutputTooLarge)?;
    output::check_room(path, output::npy::file_bytes::<i32>(&shape)).context("--output")?;
    Ok(())
}

/// Prints the plan, runs the searches and reports them: one search, or
/// `--sources`' many. Returns the JSON report's text where `--json` asks
/// for it, made now but written once the phases after it have ended.
fn search_and_report(
    arguments: &SearchArgs,
    loaded: &LoadedGraph,
    gpu: Option<&Gpu>,
    searcher: &mut dyn Engine,
    (searches, depth_limit): (&Searches, Option<u32>),
    phases: &mut Phases,
) -> anyhow::Result<Option<String>> {
    println!("plan:      {}", searcher.plan_line(&loaded.graph));
    let run = Run {
        arguments,
        graph_source: &loaded.source,
        graph: &loaded.graph,
        load_time: loaded.load_time,
        kernel_code: gpu.map(|gpu| gpu.kernel_code().to_string()),
        startup: gpu.map(Gpu::startup),
        depth_limit,
    };
    let report = match arguments.sources {
        Some(_) => many_searches::many_searches(&run, searcher, &searches.sources, phases)?,
        None => one_search::one_search(&run, searcher, searches, phases)?,
    };
    Ok(match arguments.json {
        Some(_) => Some(serde_json::to_string_pretty(&report)?),
        None => None,
    })
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
    /// `--depth-limit`.
    depth_limit: Option<u32>,
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
