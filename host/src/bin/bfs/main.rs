//! `bfs`: breadth-first search on a graph file or a generated graph, on the
//! GPU when there is one; and the tools around it (`bench`, `gen`,
//! `convert`). Errors print one line and exit non-zero.

mod batch_engine;
mod bench;
mod centrality;
mod components;
mod device;
mod files;
mod search;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;
use bfs::gpu::{GpuCount, Variant};
use bfs::graph::GraphSource;
use bfs::graph::generate::{DEFAULT_GRAPH, DEFAULT_SEED};
use clap::{Args, Parser, Subcommand, ValueEnum};

/// Breadth-first search on an NVIDIA GPU, with kernels written in Rust.
#[derive(Parser)]
#[command(version, about, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    search: SearchArgs,
}

/// The subcommands, beside the search itself.
#[derive(Subcommand)]
enum Command {
    /// Time every variant over many sources per graph (each result checked
    /// against the CPU) and write a Markdown table: `bfs-bench`, beside
    /// this program, with the same options.
    Bench(bench::BenchArgs),
    /// Write a generated graph to a file (.mtx, or .bcsr for the binary cache).
    Gen(files::GenArgs),
    /// Convert a graph file to another format (.mtx, or .bcsr for the binary cache).
    Convert(files::ConvertArgs),
    /// Write a graph as .bcsr with what `auto` builds before searching it
    /// (a contraction hierarchy, ghost zones), so later runs load it.
    Prepare(files::PrepareArgs),
    /// Closeness, harmonic centrality, eccentricity or the distance
    /// histogram, from every vertex or a sample, by batches of sources
    /// searched at once.
    Centrality(centrality::CentralityArgs),
    /// Each vertex's weakly or strongly connected component, labelled by
    /// its least vertex: their count, the largest, and the labels.
    Components(components::ComponentsArgs),
}

/// The options of a search (`bfs` with no subcommand).
#[derive(Args)]
struct SearchArgs {
    #[command(flatten)]
    graph: GraphArgs,
    /// Load the graph, print its size and the load time, and exit.
    #[arg(long)]
    load_only: bool,
    /// Source vertex (0-based CSR row).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    source: i64,
    /// Many searches on the loaded graph, reusing device buffers: N random
    /// sources with an edge, `random` (64 of them, as Graph500), or a list
    /// `3,17,42`. Reports Graph500 statistics. On the CPU they run in
    /// batches, bit-parallel or a source a thread by the graph (see
    /// --one-by-one).
    #[arg(long, conflicts_with_all = ["parents", "target", "trace", "plot"])]
    sources: Option<String>,
    /// One search from several seeds at once, `3,17,42`: each vertex's
    /// distance to the nearest seed, its parents a forest (CPU engines).
    #[arg(long, conflicts_with_all = ["sources", "source"])]
    seeds: Option<String>,
    /// Levels past D stay unreached (cuGraph's depth_limit).
    #[arg(long, allow_negative_numbers = true, value_name = "D", value_parser = parse_depth_limit)]
    depth_limit: Option<u32>,
    /// With --sources on the CPU: one source at a time by the
    /// direction-optimizing engine (parents, each search's own time), not
    /// in bit-parallel batches.
    #[arg(long, requires = "sources")]
    one_by_one: bool,
    /// Where to run: the GPU if there is one, else the parallel CPU engine
    /// (auto); the GPU or fail; the parallel CPU engine; or the
    /// single-thread CPU reference.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    device: DeviceChoice,
    /// Threads for the CPU engine and for loading (default: every core).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    threads: Option<u32>,
    /// GPU variant (see --list-variants).
    #[arg(long, default_value = "auto")]
    variant: Variant,
    /// Vertices per partition for `--variant partitioned`, a multiple of 32
    /// (default: sized to the GPU); small ones make partitions staged anew
    /// at each search even on small graphs.
    #[arg(long)]
    partition_size: Option<u32>,
    /// Write each vertex's distance, one per line in vertex order, -1 for
    /// unreachable; with --sources, the sources × vertices matrix of
    /// distances to FILE.npy (int32, -1 for unreachable).
    #[arg(long)]
    output: Option<PathBuf>,
    /// Write each vertex's BFS-tree parent, one per line, -1 for unreachable.
    #[arg(long)]
    parents: Option<PathBuf>,
    /// Print a shortest path from the source to this vertex.
    #[arg(long)]
    target: Option<i64>,
    /// Check the result against the CPU reference and the Graph500 rules.
    #[arg(long)]
    verify: bool,
    /// Print frontier size, edges examined and time per level.
    #[arg(long)]
    trace: bool,
    /// Draw the frontier size per level as an SVG chart.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Write the run as JSON (graph, device, variant, source, levels, reached, times, trace).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Load the kernels from this PTX file instead of the embedded ones.
    #[arg(long)]
    ptx: Option<PathBuf>,
    /// Print the GPU variants, one a line, and exit.
    #[arg(long)]
    list_variants: bool,
    /// Search over N GPUs of this host (or `all`) through NCCL, each
    /// holding its part of the graph (one thread each).
    #[arg(long, value_parser = GpuCount::parse, conflicts_with_all = ["rank", "variant", "partition_size", "device"])]
    gpus: Option<GpuCount>,
    /// Run as this rank of a search over --ranks processes, one GPU each
    /// (rank modulo the host's GPUs); rank 0 prints the results. Without
    /// it, a launcher's variables place the process (Slurm's, Open MPI's,
    /// PMI's), and its local rank picks the GPU.
    #[arg(long, env = "BFS_RANK", requires = "ranks", conflicts_with_all = ["variant", "partition_size", "device"])]
    rank: Option<u32>,
    /// Processes in the search (with --rank).
    #[arg(long, env = "BFS_RANKS", requires = "rank", value_parser = clap::value_parser!(u32).range(1..))]
    ranks: Option<u32>,
    /// Where rank 0 writes the NCCL id for the other ranks, a file every
    /// rank sees (a search over processes, without --master-addr).
    #[arg(long, env = "BFS_NCCL_ID_FILE", default_value = "bfs-nccl-id")]
    nccl_id_file: PathBuf,
    /// Pass the NCCL id over TCP, not through a file: rank 0's host name
    /// or address, which the other ranks connect to (with --master-port).
    #[arg(long, env = "BFS_MASTER_ADDR")]
    master_addr: Option<String>,
    /// The port rank 0 listens at for the other ranks (with --master-addr).
    #[arg(long, env = "BFS_MASTER_PORT", value_parser = clap::value_parser!(u16).range(1..))]
    master_port: Option<u16>,
    /// Seconds a rank waits for the others to join before giving up.
    #[arg(long, default_value_t = 60.0)]
    join_timeout: f64,
}

/// The graph options of a search, which `bfs centrality` shares.
#[derive(Args)]
struct GraphArgs {
    /// Graph: a file (.mtx, .mtx.gz, SNAP .txt, DIMACS .gr, .bcsr), or gen:SPEC
    /// (grid:WxH[:MISSING], kron:SCALE[:EDGE_FACTOR], dkron:SCALE[:EDGE_FACTOR],
    /// uniform:N:M, road:JUNCTIONS[:ONEWAY[:SHAPE]], path:N, star:N, hub:LEAVES:EXTRA,
    /// stars:HUBS:LEAVES).
    #[arg(long, default_value_t = format!("gen:{DEFAULT_GRAPH}"))]
    graph: String,
    /// Seed for generated graphs (and for the draw of --sources N).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Matrix Market reader: the parallel one, or nalgebra-sparse's.
    #[arg(long, value_enum, default_value_t = ReaderChoice::Fast)]
    reader: ReaderChoice,
}

impl GraphArgs {
    /// The graph `--graph` names, generated with `--seed`.
    fn source(&self) -> bfs::Result<GraphSource> {
        Ok(GraphSource::parse(&self.graph)?.with_seed(self.seed))
    }

    /// Refuses, before anything is read, an output option (`(option,
    /// path)`, where given) that names the graph file being read, or the
    /// file of an output before it: the write would destroy the graph, or
    /// one output the other.
    fn check_outputs(&self, outputs: &[(&str, &Option<PathBuf>)]) -> anyhow::Result<()> {
        let given: Vec<(&str, &Path)> = outputs
            .iter()
            .filter_map(|&(option, path)| Some((option, path.as_deref()?)))
            .filter(|(_, path)| *path != Path::new(bfs::output::STANDARD_OUTPUT))
            .collect();
        for (index, &(option, path)) in given.iter().enumerate() {
            if same_file(path, Path::new(&self.graph)) {
                bail!(
                    "{option} {}: that is the graph file being read; name another file",
                    path.display()
                );
            }
            if let Some((earlier, _)) = given[..index]
                .iter()
                .find(|(_, other)| same_file(path, other))
            {
                bail!("{earlier} and {option} name one file, {}", path.display());
            }
        }
        Ok(())
    }
}

/// Whether `a` and `b` name one file: the same file where both exist (a
/// link and its target are one), else the same absolute path.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        (Err(_), Err(_)) => std::path::absolute(a).ok() == std::path::absolute(b).ok(),
        _ => false,
    }
}

/// Parses `--depth-limit`: a distance, 0 or more.
fn parse_depth_limit(text: &str) -> Result<u32, String> {
    text.parse()
        .map_err(|_| format!("--depth-limit is a distance, 0 or more, not {text}"))
}

/// `--device`: where the search runs.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DeviceChoice {
    Auto,
    Gpu,
    Cpu,
    CpuReference,
}

/// An option's value as the command line spells it (`cpu-reference`).
fn spelled(value: impl ValueEnum) -> String {
    let value = value.to_possible_value().expect("no value is skipped");
    value.get_name().to_string()
}

/// `--reader`: which Matrix Market reader loads the graph.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ReaderChoice {
    Fast,
    Reference,
}

impl From<ReaderChoice> for bfs::graph::Reader {
    fn from(choice: ReaderChoice) -> Self {
        match choice {
            ReaderChoice::Fast => bfs::graph::Reader::Fast,
            ReaderChoice::Reference => bfs::graph::Reader::Reference,
        }
    }
}

/// Parses the options, runs the search or the subcommand, and turns an
/// error into one line and an exit code.
fn main() -> ExitCode {
    // A rank takes only an NCCL id file written after it started.
    let started = std::time::SystemTime::now();
    // A closed standard output (`bfs --list-variants | head -1`) ends the
    // program quietly, as it ends other Unix tools, instead of an error on
    // every later print: Rust ignores SIGPIPE unless told otherwise.
    // SAFETY: sets a signal's disposition to the default, before any
    // thread starts; no handler runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
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
    let outcome = match &cli.command {
        // The benchmarks' program prints its own errors.
        Some(Command::Bench(arguments)) => {
            return bench::run(arguments).unwrap_or_else(|error| {
                eprintln!("error: {error:#}");
                ExitCode::FAILURE
            });
        }
        None => search::run(&cli.search, started),
        Some(Command::Gen(arguments)) => files::generate(arguments),
        Some(Command::Convert(arguments)) => files::convert(arguments),
        Some(Command::Prepare(arguments)) => files::prepare(arguments),
        Some(Command::Centrality(arguments)) => centrality::run(arguments),
        Some(Command::Components(arguments)) => components::run(arguments),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            leave_within(EXIT_GRACE);
            ExitCode::FAILURE
        }
    }
}

/// How long an error's exit may take once its line is printed.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Ends the process after `grace`, if it has not ended by then. Exiting runs
/// the CUDA driver's and NCCL's teardown, which can wait forever for a
/// kernel that waits for a rank that is gone; a rank that gave up on the
/// others has printed its line, and its exit must not hang.
fn leave_within(grace: std::time::Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(grace);
        // SAFETY: ends the process at once; the error's line was printed
        // (standard error is unbuffered) and nothing is left to write.
        unsafe { libc::_exit(1) };
    });
}
