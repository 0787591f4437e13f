//! `bfs-bench` (`bfs bench` runs it): every variant over many sources of
//! the default graphs and
//! the given ones, as the Markdown table `cargo xtask bench` keeps in
//! `BENCHMARKS.md`; with `--device cpu`, the CPU engine beside gapbs, as
//! that file's CPU section; with `--gpus`, the search over several GPUs
//! beside one, as its scaling section; with `--end-to-end`, whole
//! processes; with `--roads`, road networks prepared and searched; with
//! `--many`, many sources at once beside one at a time (`many.rs`).

mod many;

use std::path::{Path, PathBuf};
use std::time::Instant;

use std::process::ExitCode;

use anyhow::Context;
use bfs::gpu::{Gpu, GpuCount, Variant};
use bfs::graph::GraphSource;
use bfs::{cpu, output};
use bfs_bench as bench;
use bfs_bench::sections::{self, FURTHER_SECTIONS};
use bfs_bench::{end_to_end, roads, scaling};
use clap::{Parser, ValueEnum};

/// The options of `bfs bench` (this program's).
#[derive(Parser)]
#[command(
    name = "bfs bench",
    bin_name = "bfs bench",
    about = "Time every variant over many sources per graph \
    (each result checked against the CPU) and write a Markdown table"
)]
pub struct BenchArgs {
    /// Graphs to add to the defaults (road-like grids of 2048² and 4096², Kronecker scales 20 and 22, uniform 4.2M/67M).
    #[arg(long = "graph")]
    pub graphs: Vec<String>,
    /// Only the graphs given, not the defaults (to split a long benchmark).
    #[arg(long)]
    pub no_default_graphs: bool,
    /// Variants to time, comma-separated or repeated (default: all).
    #[arg(long = "variant", value_delimiter = ',')]
    pub variants: Vec<Variant>,
    /// Random sources with at least one edge, per graph (default 16; with
    /// --many, 1024).
    #[arg(long)]
    pub sources: Option<usize>,
    /// Seed for generated graphs and for picking sources.
    #[arg(long, default_value_t = bfs::graph::generate::DEFAULT_SEED)]
    pub seed: u64,
    /// Also time `hierarchical-queue` with these w-queue counts (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub sub_queues: Vec<u32>,
    /// Also time `block-queue` with plain loads instead of the read-only cache.
    #[arg(long)]
    pub plain_loads: bool,
    /// Write the table here (atomically) as well as to standard output.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// What to time: the GPU variants (with the CPU rows), or the CPU alone
    /// (no GPU needed; written as the file's CPU section).
    #[arg(long, value_enum, default_value_t = BenchDevice::Gpu)]
    pub device: BenchDevice,
    /// Thread counts of the CPU engine's rows, comma-separated (default: every core).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Vec<u32>,
    /// gapbs's build folder (`make bfs converter` there): its BFS is timed
    /// beside the CPU engine, on the same graphs, sources and thread counts.
    #[arg(long)]
    pub gapbs: Option<PathBuf>,
    /// GPU counts (comma-separated, `all` for every GPU): time `auto` on one
    /// GPU and the search over each count through NCCL, on the graphs given
    /// (default gen:kron:26), built one at a time; written as the file's
    /// scaling section.
    #[arg(long, value_delimiter = ',', value_parser = GpuCount::parse)]
    pub gpus: Vec<GpuCount>,
    /// Keep the rows of `--gpus` in this file (JSON) and show those of
    /// earlier runs beside this run's: a graph measured again replaces
    /// its rows.
    #[arg(long, requires = "gpus")]
    pub rows: Option<PathBuf>,
    /// Time whole processes (what a user waits for): `bfs` for one search
    /// and for 64, from each graph's text file, `.bcsr` and prepared
    /// `.bcsr`, beside `cuda-floor`, gapbs (`--gapbs`) and scipy
    /// (`--python`) on the same files; written as the file's end-to-end
    /// section (graphs given with --graph, else gen:road:300000 and the 2048² grid).
    #[arg(long)]
    pub end_to_end: bool,
    /// Road networks of 0.1M to 24M vertices (graphs given with --graph
    /// as well): `bfs prepare` timed, then `hierarchy-sweep` with the
    /// prepared hierarchy beside `ghost-zones`, `persistent`, the CPU
    /// engine, gapbs (`--gapbs`) and scipy (`--python`); written as the
    /// file's road section.
    #[arg(long)]
    pub roads: bool,
    /// A Python with scipy, to time scipy beside `bfs` (with --end-to-end
    /// or --roads).
    #[arg(long)]
    pub python: Option<PathBuf>,
    /// Timed runs of each command (with --end-to-end).
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Seconds past which a peer's command is timed once (with
    /// --end-to-end), or scipy takes no more sources (with --roads).
    #[arg(long, default_value_t = 20.0)]
    pub peer_limit: f64,
    /// Time the peers only on graphs of at most this many CSR entries
    /// (with --end-to-end).
    #[arg(long, default_value_t = u64::MAX)]
    pub peer_most_edges: u64,
    /// An earlier build's `bfs` (with its `bfs-bench` beside it), timed
    /// in the same run: with --end-to-end, every `bfs` command again with
    /// it; with --many, its own `bench --many` on the same graphs, whose
    /// search times stand beside this build's.
    #[arg(long)]
    pub before: Option<PathBuf>,
    /// Many sources (graphs given with --graph, then Kronecker 20 and
    /// gen:road:360000): the GPU's batches of --sources sources beside
    /// `auto` one source at a time, exact closeness from every vertex, the
    /// CPU engine, gapbs (`--gapbs`), scipy and networkx (`--python`), in
    /// one process; written as the file's many-sources section.
    #[arg(long, conflicts_with_all = ["gpus", "end_to_end", "roads"])]
    pub many: bool,
    /// Seconds of search past which a row of --many stops taking sources
    /// and is scaled (its closeness row: six times this).
    #[arg(long, default_value_t = 5.0)]
    pub row_seconds: f64,
}

/// Sources a graph gets where --sources does not say.
const DEFAULT_SOURCES: usize = 16;

/// Where `bfs bench` times searches.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchDevice {
    Gpu,
    Cpu,
}

/// The graph `bench --gpus` times when none is given: Kronecker 26, a
/// graph of Graph500's smallest official class on one GPU.
const SCALING_DEFAULT_GRAPH: &str = "gen:kron:26";

/// Runs the benchmark and exits as `bfs` does: an error in one line.
fn main() -> ExitCode {
    let arguments = match BenchArgs::try_parse() {
        Ok(arguments) => arguments,
        Err(error) if !error.use_stderr() => error.exit(),
        Err(error) => {
            let message = error.to_string();
            let first_line = message.lines().next().unwrap_or_default();
            eprintln!("{first_line} (see bfs bench --help)");
            return ExitCode::from(2);
        }
    };
    match run(&arguments) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// This process's command line as a section records it: `bfs bench` and
/// the options, whether it ran as `bfs bench` or as `bfs-bench`.
fn recorded_command() -> String {
    let options = std::env::args().skip(1);
    bench::command::recorded(
        ["bfs".to_string(), "bench".to_string()]
            .into_iter()
            .chain(options),
    )
}

/// The `bfs` program beside this one, whose whole runs `--end-to-end` and
/// `--roads` time.
fn bfs_binary() -> anyhow::Result<PathBuf> {
    let this = std::env::current_exe().context("finding this executable")?;
    Ok(this.with_file_name("bfs"))
}

/// Runs the benchmark.
fn run(arguments: &BenchArgs) -> anyhow::Result<()> {
    if !arguments.gpus.is_empty() {
        return run_scaling(arguments);
    }
    if arguments.end_to_end {
        return run_end_to_end(arguments);
    }
    if arguments.roads {
        return run_roads(arguments);
    }
    if arguments.many {
        return many::run(arguments);
    }
    let gpu = match arguments.device {
        BenchDevice::Gpu => Some(Gpu::open()?),
        BenchDevice::Cpu => None,
    };
    let plan = bench::Plan {
        variants: if arguments.variants.is_empty() {
            Variant::ALL.to_vec()
        } else {
            arguments.variants.clone()
        },
        sources: arguments.sources.unwrap_or(DEFAULT_SOURCES),
        seed: arguments.seed,
        sub_queue_counts: arguments.sub_queues.clone(),
        plain_loads: arguments.plain_loads,
        threads: if arguments.threads.is_empty() {
            vec![cpu::hardware_threads()]
        } else {
            arguments
                .threads
                .iter()
                .map(|&threads| threads as usize)
                .collect()
        },
        gapbs: arguments.gapbs.clone(),
    };
    let defaults = if arguments.no_default_graphs {
        &[][..]
    } else {
        bench::DEFAULT_GRAPHS
    };
    let names = defaults
        .iter()
        .map(|name| name.to_string())
        .chain(arguments.graphs.iter().cloned());
    let graphs = names
        .map(|name| load(&name, arguments.seed))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut rows = Vec::new();
    let mut summaries = Vec::new();
    for (name, graph) in &graphs {
        rows.extend(bench::graph(gpu.as_ref(), name, graph, &plan, Vec::new())?);
        let first = bfs::graph::generate::sources_with_edges(graph, 1, plan.seed);
        summaries.push((
            name.clone(),
            graph,
            cpu::bfs(graph, first.first().copied().unwrap_or(0)),
        ));
    }
    let command = recorded_command();
    let Some(gpu) = gpu else {
        let section = bench::cpu_markdown(&bench::cpu_name(), &command, &summaries, &rows);
        print!("{section}");
        if let Some(path) = &arguments.markdown {
            write_section(path, bench::CPU_SECTION, &section)?;
        }
        return Ok(());
    };
    let table = bench::markdown(gpu.name(), &command, &summaries, &rows);
    print!("{table}");
    if let Some(path) = &arguments.markdown {
        // Keep the other modes' sections, each written by its own run.
        let further = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| {
                text.find(FURTHER_SECTIONS)
                    .map(|start| text[start + 1..].to_string())
            })
            .unwrap_or_default();
        let text = if further.is_empty() {
            table
        } else {
            format!("{table}\n{further}")
        };
        output::write_text(path, &text).context("writing --markdown")?;
    }
    Ok(())
}

/// Loads or builds the graph `name` (generated ones with `seed`); returns
/// the name to show (a file's without its folder) and the graph.
fn load(name: &str, seed: u64) -> anyhow::Result<(String, bfs::Csr)> {
    let (display, source) = parse(name, seed)?;
    eprintln!("bench: loading {display}");
    Ok((display, source.load()?))
}

/// The graph `name` names (generated ones with `seed`), and the name to
/// show: a file's without its folder.
fn parse(name: &str, seed: u64) -> anyhow::Result<(String, GraphSource)> {
    let source = GraphSource::parse(name)?.with_seed(seed);
    let display = match &source {
        GraphSource::File(path) => path
            .file_name()
            .map_or(name.to_string(), |file| file.to_string_lossy().into()),
        GraphSource::Generated(_) => name.to_string(),
    };
    Ok((display, source))
}

/// `bench --gpus`: each graph built, timed on one GPU and over the GPU
/// counts, and dropped before the next; the section is written after each
/// row, so a run cut short keeps what it measured.
fn run_scaling(arguments: &BenchArgs) -> anyhow::Result<()> {
    let devices = Gpu::device_count()?;
    let mut gpu_counts = Vec::new();
    for count in &arguments.gpus {
        let count = count.resolve()?;
        if count > devices {
            anyhow::bail!("--gpus {count}: this host has {devices} GPUs");
        }
        gpu_counts.push(count);
    }
    let device = format!("{devices} × {}", Gpu::open()?.name());
    let command = recorded_command();
    let names = match arguments.graphs.is_empty() {
        true => vec![SCALING_DEFAULT_GRAPH.to_string()],
        false => arguments.graphs.clone(),
    };
    let mut measured = match &arguments.rows {
        Some(path) => scaling::Measured::read(path)?,
        None => scaling::Measured::default(),
    };
    measured.begin(device, command);
    for name in &names {
        let started = Instant::now();
        let (name, graph) = load(name, arguments.seed)?;
        measured.add_graph(scaling::Built {
            name: name.clone(),
            vertices: graph.vertex_count(),
            csr_entries: graph.edge_count(),
            input_edges: graph.input_edge_count(),
            seconds: started.elapsed().as_secs_f64(),
        });
        scaling::graph(
            &name,
            &graph,
            &gpu_counts,
            arguments.sources.unwrap_or(DEFAULT_SOURCES),
            arguments.seed,
            &mut |row| {
                measured.rows.push(row);
                if let Some(path) = &arguments.rows {
                    measured.write(path)?;
                }
                if let Some(path) = &arguments.markdown {
                    write_section(path, scaling::SECTION, &measured.markdown())?;
                }
                Ok(())
            },
        )?;
    }
    print!("{}", measured.markdown());
    Ok(())
}

/// The graphs `bench --end-to-end` times when none is given: a road
/// network of 3.3 million vertices and the 2048² grid.
const END_TO_END_DEFAULT_GRAPHS: [&str; 2] = ["gen:road:300000", "gen:grid:2048x2048:0.05"];

/// `bench --end-to-end`: whole processes, graph by graph; the section is
/// written after each command, so a run cut short keeps what it measured.
fn run_end_to_end(arguments: &BenchArgs) -> anyhow::Result<()> {
    let bfs = bfs_binary()?;
    let setup = end_to_end::Setup {
        floor: bfs.with_file_name("cuda-floor"),
        bfs,
        gapbs: arguments.gapbs.clone(),
        python: arguments.python.clone(),
        repeats: arguments.repeats.max(1),
        peer_limit: std::time::Duration::from_secs_f64(arguments.peer_limit.max(0.0)),
        peer_most_edges: arguments.peer_most_edges,
        scratch: std::env::temp_dir().join(format!("bfs-end-to-end-{}", std::process::id())),
        seed: arguments.seed,
        before: arguments.before.clone(),
    };
    // Without a GPU the rows are the CPU's (bfs falls back), the floor absent.
    let device = Gpu::open().map_or("no GPU".into(), |gpu| gpu.name().to_string());
    let command = recorded_command();
    let names: Vec<String> = match arguments.graphs.is_empty() {
        true => END_TO_END_DEFAULT_GRAPHS.map(String::from).to_vec(),
        false => arguments.graphs.clone(),
    };
    let floor = end_to_end::floor(&setup).ok();
    let (mut graphs, mut rows) = (Vec::<end_to_end::Described>::new(), Vec::new());
    let outcome = (|| -> anyhow::Result<()> {
        for name in &names {
            let (display, source) = parse(name, arguments.seed)?;
            end_to_end::graph(&setup, &display, &source, &mut |described, timed| {
                if !graphs.iter().any(|graph| graph.name == described.name) {
                    graphs.push(described.clone());
                }
                rows.push(timed);
                if let Some(path) = &arguments.markdown {
                    let section =
                        end_to_end::markdown(&device, &command, floor.as_ref(), &graphs, &rows);
                    write_section(path, end_to_end::SECTION, &section)?;
                }
                Ok(())
            })?;
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&setup.scratch);
    outcome?;
    print!(
        "{}",
        end_to_end::markdown(&device, &command, floor.as_ref(), &graphs, &rows)
    );
    Ok(())
}

/// The road networks `bench --roads` generates: about 0.1M, 1M, 4M and
/// 24M vertices.
const ROADS_DEFAULT_GRAPHS: [&str; 4] = [
    "gen:road:9000",
    "gen:road:90000",
    "gen:road:360000",
    "gen:road:2200000",
];

/// The searches `bench --roads` times beside the CPU's.
const ROADS_VARIANTS: [Variant; 3] = [
    Variant::HierarchySweep,
    Variant::GhostZones,
    Variant::Persistent,
];

/// `bench --roads`: each graph built, prepared, timed and dropped before
/// the next; the section is written after each graph, so a run cut short
/// keeps what it measured.
fn run_roads(arguments: &BenchArgs) -> anyhow::Result<()> {
    // Without a GPU the rows are the CPU's and the peers'.
    let gpu = Gpu::open().ok();
    let device = gpu.as_ref().map_or("no GPU", |gpu| gpu.name()).to_string();
    let setup = roads::Setup {
        bfs: bfs_binary()?,
        python: arguments.python.clone(),
        peer_limit: std::time::Duration::from_secs_f64(arguments.peer_limit.max(0.0)),
        scratch: std::env::temp_dir().join(format!("bfs-roads-{}", std::process::id())),
    };
    let plan = bench::Plan {
        variants: ROADS_VARIANTS.to_vec(),
        sources: arguments.sources.unwrap_or(DEFAULT_SOURCES),
        seed: arguments.seed,
        sub_queue_counts: Vec::new(),
        plain_loads: false,
        threads: vec![cpu::hardware_threads()],
        gapbs: arguments.gapbs.clone(),
    };
    let command = recorded_command();
    let defaults = match arguments.no_default_graphs {
        true => &[][..],
        false => &ROADS_DEFAULT_GRAPHS[..],
    };
    let names =
        (arguments.graphs.iter().cloned()).chain(defaults.iter().map(|name| name.to_string()));
    let (mut graphs, mut rows) = (Vec::new(), Vec::new());
    let outcome = (|| -> anyhow::Result<()> {
        for name in names {
            let (name, graph) = load(&name, arguments.seed)?;
            let (prepared, hierarchy) = roads::prepare(&setup, &name, &graph)?;
            graphs.push(prepared);
            let searched = bench::graph(gpu.as_ref(), &name, &graph, &plan, vec![hierarchy])?;
            let scipy = setup.python.as_ref().map(|python| {
                let sources =
                    bfs::graph::generate::sources_with_edges(&graph, plan.sources, plan.seed);
                roads::scipy_row(&setup, python, &graph, &sources, &searched[0])
            });
            rows.extend(searched);
            match scipy {
                Some(Ok(row)) => rows.push(row),
                Some(Err(error)) => eprintln!("bench: {name}: scipy left out: {error}"),
                None => {}
            }
            if let Some(path) = &arguments.markdown {
                let section = roads::markdown(&device, &command, &graphs, &rows);
                write_section(path, roads::SECTION, &section)?;
            }
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&setup.scratch);
    outcome?;
    print!("{}", roads::markdown(&device, &command, &graphs, &rows));
    Ok(())
}

/// Replaces the section under `heading` in the Markdown file at `path`
/// with `section`, or appends it ([`sections::replace_section`]).
fn write_section(path: &Path, heading: &str, section: &str) -> bfs::Result<()> {
    let existing = std::fs::read_to_string(path).unwrap_or_default();
    output::write_text(
        path,
        &sections::replace_section(&existing, heading, section),
    )
}
