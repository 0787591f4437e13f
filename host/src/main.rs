//! `bfs`: breadth-first search on a graph file or a generated graph, on the
//! GPU when there is one. Errors print one line and exit non-zero.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bfs::gpu::{Gpu, Search, Step, Variant};
use bfs::graph::GraphSource;
use bfs::graph::generate::DEFAULT_GRAPH;
use bfs::report::{self, Report};
use bfs::{Bfs, Csr, Error, bench, cpu, output, validate};
use clap::{Args, Parser, Subcommand, ValueEnum};

/// Breadth-first search on an NVIDIA GPU, with kernels written in Rust.
#[derive(Parser)]
#[command(version, about, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Graph: a Matrix Market file, or gen:SPEC (grid:WxH[:MISSING],
    /// kron:SCALE[:EDGE_FACTOR], uniform:N:M, path:N, star:N).
    #[arg(long, default_value_t = format!("gen:{DEFAULT_GRAPH}"))]
    graph: String,
    /// Seed for generated graphs.
    #[arg(long, default_value_t = bfs::graph::generate::DEFAULT_SEED)]
    seed: u64,
    /// Source vertex (0-based CSR row).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    source: i64,
    /// Where to run: the GPU if there is one (auto), the GPU or fail, or the CPU.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    device: DeviceChoice,
    /// GPU variant (see --list-variants).
    #[arg(long, default_value = "two-kernel")]
    variant: Variant,
    /// Write each vertex's distance, one per line in vertex order, -1 for unreachable.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Check the result against the CPU reference and the Graph500 rules.
    #[arg(long)]
    verify: bool,
    /// Print frontier size, edges examined and time per level.
    #[arg(long)]
    trace: bool,
    /// Write the run (graph, device, variant, source, levels, reached, times, trace) as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Load the kernels from this PTX file instead of the embedded ones.
    #[arg(long)]
    ptx: Option<PathBuf>,
    /// Print the GPU variants, one a line, and exit.
    #[arg(long)]
    list_variants: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Time every variant over many sources per graph (each result checked
    /// against the CPU) and write a Markdown table.
    Bench(BenchArgs),
}

#[derive(Args)]
struct BenchArgs {
    /// Graphs to add to the defaults (a 2048×2048 road-like grid, Kronecker scale 20).
    #[arg(long = "graph")]
    graphs: Vec<String>,
    /// Variants to time (default: all).
    #[arg(long = "variant")]
    variants: Vec<Variant>,
    /// Random sources with at least one edge, per graph.
    #[arg(long, default_value_t = 16)]
    sources: usize,
    /// Seed for generated graphs and for picking sources.
    #[arg(long, default_value_t = bfs::graph::generate::DEFAULT_SEED)]
    seed: u64,
    /// Also time `hierarchical` with these w-queue counts (comma-separated).
    #[arg(long, value_delimiter = ',')]
    sub_queues: Vec<u32>,
    /// Also time `block-queue` with plain loads instead of the read-only cache.
    #[arg(long)]
    plain_loads: bool,
    /// Write the table here (atomically) as well as to standard output.
    #[arg(long)]
    markdown: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DeviceChoice {
    Auto,
    Gpu,
    Cpu,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => error.exit(),
        Err(error) => {
            let message = error.to_string();
            let first_line = message
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ");
            eprintln!("error: {first_line} (see --help)");
            return ExitCode::from(2);
        }
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<()> {
    if let Some(Command::Bench(arguments)) = &cli.command {
        return run_bench(arguments);
    }
    if cli.list_variants {
        for variant in Variant::ALL {
            println!("{:<14} {}", variant.name(), variant.description());
        }
        return Ok(());
    }
    let mut graph_source = GraphSource::parse(&cli.graph)?;
    if let GraphSource::Generated(spec) = &mut graph_source {
        spec.seed = cli.seed;
    }
    let load_started = Instant::now();
    let graph = graph_source.load()?;
    let load_time = load_started.elapsed();
    let source = u32::try_from(cli.source)
        .ok()
        .filter(|&source| source < graph.vertex_count())
        .ok_or(Error::SourceOutOfRange {
            vertex: cli.source,
            vertex_count: graph.vertex_count(),
        })?;

    let outcome = match cli.device {
        DeviceChoice::Cpu => on_cpu(&graph, source),
        DeviceChoice::Gpu => on_gpu(&open_gpu(cli)?, &graph, source, cli.variant)?,
        DeviceChoice::Auto => match open_gpu(cli) {
            Ok(gpu) => on_gpu(&gpu, &graph, source, cli.variant)?,
            Err(Error::NoDevice(reason)) => {
                eprintln!("note: no CUDA device ({reason}); running the CPU reference BFS instead");
                on_cpu(&graph, source)
            }
            Err(error) => return Err(error.into()),
        },
    };
    let result = &outcome.result;
    let seconds = outcome.elapsed.as_secs_f64();
    let edges_traversed = result.edges_traversed(&graph);
    let mut report = Report {
        graph: graph_source.name(),
        vertices: graph.vertex_count(),
        edges: graph.edge_count(),
        device: outcome.device,
        variant: outcome.variant.map(|variant| variant.name().to_string()),
        source,
        levels: result.level_count(),
        reached: result.reached(),
        edges_traversed,
        load_seconds: load_time.as_secs_f64(),
        bfs_milliseconds: seconds * 1e3,
        gteps: edges_traversed as f64 / seconds / 1e9,
        device_bytes: outcome.device_bytes,
        verified: None,
        trace: report::trace(&graph, result, &outcome.steps),
    };
    print_summary(&report);
    if cli.trace {
        print_trace(&report);
    }

    if cli.verify {
        let reference = cpu::bfs(&graph, source);
        validate::same_levels(result, &reference)?;
        validate::validate(&graph, result)?;
        report.verified = Some(true);
        println!("verify:    pass (distances equal the CPU reference; Graph500 rules hold)");
    }
    if let Some(path) = &cli.output {
        output::write_per_vertex(path, &result.levels)
            .with_context(|| "writing --output".to_string())?;
    }
    if let Some(path) = &cli.json {
        let json = serde_json::to_string_pretty(&report)? + "\n";
        output::write_text(path, &json).with_context(|| "writing --json".to_string())?;
    }
    Ok(())
}

/// The GPU, with the kernels of `--ptx` where given.
fn open_gpu(cli: &Cli) -> bfs::Result<Gpu> {
    match &cli.ptx {
        None => Gpu::open(),
        Some(path) => {
            let ptx = std::fs::read_to_string(path).map_err(|error| Error::Io {
                path: path.clone(),
                error,
            })?;
            Gpu::with_ptx(&ptx)
        }
    }
}

/// A search's result and how it ran.
struct Outcome {
    device: String,
    variant: Option<Variant>,
    device_bytes: Option<u64>,
    result: Bfs,
    elapsed: Duration,
    steps: Vec<Step>,
}

fn on_cpu(graph: &Csr, source: u32) -> Outcome {
    let started = Instant::now();
    let result = cpu::bfs(graph, source);
    Outcome {
        device: "CPU (reference BFS, one thread)".into(),
        variant: None,
        device_bytes: None,
        elapsed: started.elapsed(),
        result,
        steps: Vec::new(),
    }
}

fn on_gpu(gpu: &Gpu, graph: &Csr, source: u32, variant: Variant) -> anyhow::Result<Outcome> {
    let mut search = Search::new(gpu, graph, variant)?;
    let run = search.run(source)?;
    if run.result.levels.len() != graph.vertex_count() as usize {
        bail!(
            "variant {variant} returned {} levels for {} vertices",
            run.result.levels.len(),
            graph.vertex_count()
        );
    }
    Ok(Outcome {
        device: gpu.name().to_string(),
        variant: Some(variant),
        device_bytes: Some(search.device_bytes()),
        result: run.result,
        elapsed: run.elapsed,
        steps: run.steps,
    })
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
    println!(
        "GTEPS:     {:.4} ({} edges traversed: out-degrees of reached vertices)",
        report.gteps, report.edges_traversed
    );
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
        println!(
            "{:>7} {:>12} {:>14} {:>10}  {step}",
            level.level, level.frontier, level.edges, time
        );
    }
}

fn run_bench(arguments: &BenchArgs) -> anyhow::Result<()> {
    let gpu = Gpu::open()?;
    let plan = bench::Plan {
        variants: if arguments.variants.is_empty() {
            Variant::ALL.to_vec()
        } else {
            arguments.variants.clone()
        },
        sources: arguments.sources,
        seed: arguments.seed,
        sub_queue_counts: arguments.sub_queues.clone(),
        plain_loads: arguments.plain_loads,
    };
    let names = bench::DEFAULT_GRAPHS
        .iter()
        .map(|name| name.to_string())
        .chain(arguments.graphs.iter().cloned());
    let mut graphs = Vec::new();
    for name in names {
        let mut source = GraphSource::parse(&name)?;
        if let GraphSource::Generated(spec) = &mut source {
            spec.seed = arguments.seed;
        }
        let display = match &source {
            GraphSource::File(path) => path
                .file_name()
                .map_or(name.clone(), |file| file.to_string_lossy().into()),
            GraphSource::Generated(_) => name.clone(),
        };
        eprintln!("bench: loading {display}");
        graphs.push((display, source.load()?));
    }
    let mut rows = Vec::new();
    let mut summaries = Vec::new();
    for (name, graph) in &graphs {
        rows.extend(bench::graph(&gpu, name, graph, &plan)?);
        let first = bfs::graph::generate::sources_with_edges(graph, 1, plan.seed);
        summaries.push((
            name.clone(),
            graph,
            cpu::bfs(graph, first.first().copied().unwrap_or(0)),
        ));
    }
    let command: Vec<String> = std::env::args().collect();
    let table = bench::markdown(gpu.name(), &command.join(" "), &summaries, &rows);
    print!("{table}");
    if let Some(path) = &arguments.markdown {
        output::write_text(path, &table).with_context(|| "writing --markdown".to_string())?;
    }
    Ok(())
}
