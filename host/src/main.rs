//! `bfs`: breadth-first search on a graph file or a generated graph, on the
//! GPU when there is one. Errors print one line and exit non-zero.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bfs::gpu::{Gpu, Search, Variant};
use bfs::graph::GraphSource;
use bfs::graph::generate::DEFAULT_GRAPH;
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

    let (device, result, bfs_time) = match cli.device {
        DeviceChoice::Cpu => on_cpu(&graph, source),
        DeviceChoice::Gpu => on_gpu(&Gpu::open()?, &graph, source, cli.variant)?,
        DeviceChoice::Auto => match Gpu::open() {
            Ok(gpu) => on_gpu(&gpu, &graph, source, cli.variant)?,
            Err(Error::NoDevice(reason)) => {
                eprintln!("note: no CUDA device ({reason}); running the CPU reference BFS instead");
                on_cpu(&graph, source)
            }
            Err(error) => return Err(error.into()),
        },
    };

    println!("device:    {device}");
    println!(
        "graph:     {}: {} vertices, {} edges (directed CSR entries), loaded in {:.3} s",
        graph_source.name(),
        graph.vertex_count(),
        graph.edge_count(),
        load_time.as_secs_f64()
    );
    println!("source:    {source}");
    println!("levels:    {}", result.level_count());
    println!(
        "reached:   {} of {} vertices",
        result.reached(),
        graph.vertex_count()
    );
    let seconds = bfs_time.as_secs_f64();
    let edges = result.edges_traversed(&graph);
    println!("bfs time:  {:.3} ms", seconds * 1e3);
    println!(
        "GTEPS:     {:.4} ({edges} edges traversed: out-degrees of reached vertices)",
        edges as f64 / seconds / 1e9
    );

    if cli.verify {
        let reference = cpu::bfs(&graph, source);
        validate::same_levels(&result, &reference)?;
        validate::validate(&graph, &result)?;
        println!("verify:    pass (distances equal the CPU reference; Graph500 rules hold)");
    }
    if let Some(path) = &cli.output {
        output::write_per_vertex(path, &result.levels)
            .with_context(|| "writing --output".to_string())?;
    }
    Ok(())
}

fn on_cpu(graph: &Csr, source: u32) -> (String, Bfs, Duration) {
    let started = Instant::now();
    let result = cpu::bfs(graph, source);
    (
        "CPU (reference BFS, one thread)".into(),
        result,
        started.elapsed(),
    )
}

fn on_gpu(
    gpu: &Gpu,
    graph: &Csr,
    source: u32,
    variant: Variant,
) -> anyhow::Result<(String, Bfs, Duration)> {
    let mut search = Search::new(gpu, graph, variant)?;
    let run = search.run(source)?;
    if run.result.levels.len() != graph.vertex_count() as usize {
        bail!(
            "variant {variant} returned {} levels for {} vertices",
            run.result.levels.len(),
            graph.vertex_count()
        );
    }
    let device = format!(
        "{} (GPU, variant {variant}, {} device bytes)",
        gpu.name(),
        search.device_bytes()
    );
    Ok((device, run.result, run.elapsed))
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
