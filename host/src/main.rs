//! `bfs`: breadth-first search on a graph file or a generated graph, on the
//! GPU when there is one. Errors print one line and exit non-zero.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bfs::gpu::{Gpu, Search, Variant};
use bfs::graph::GraphSource;
use bfs::graph::generate::DEFAULT_GRAPH;
use bfs::{Bfs, Csr, Error, cpu, output, validate};
use clap::{Parser, ValueEnum};

/// Breadth-first search on an NVIDIA GPU, with kernels written in Rust.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
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
