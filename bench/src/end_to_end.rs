//! `bfs bench --end-to-end`: the time a user waits for. Every figure is a
//! whole process, timed from its start to its exit by this one: `bfs` for
//! one search and for 64, from a graph's text file, its `.bcsr` and its
//! prepared `.bcsr` (`bfs prepare`), with the driver's JIT cache warm and
//! cold; beside it `cuda-floor` (what any CUDA program pays before its
//! first kernel: the process, `cuInit`, the context), gapbs and scipy on
//! the same files from the same source, so that they are compared in one
//! run. Each command runs once to warm the page cache (and the JIT cache,
//! where it is on), then [`Setup::repeats`] times; a peer whose first run
//! takes longer than [`Setup::peer_limit`] is timed by that run alone.

mod commands;
mod section;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::io_error;
use bfs::graph::generate::sources_with_edges;
use bfs::graph::{self, GraphSource};
use bfs::{Error, Result};

pub use section::markdown;

/// The heading of `BENCHMARKS.md`'s section.
pub const SECTION: &str = "## End to end";

/// Searches of the many-search rows, as Graph500 makes.
pub const MANY_SEARCHES: usize = 64;

/// The closeness command's searches in a row: every vertex's, told
/// apart from the one- and many-search rows.
pub const EVERY_VERTEX: usize = usize::MAX;

/// What the whole closeness command from a prepared file may take past
/// the floor (issue 67's target, on an H200).
pub const CLOSENESS_PREPARED_OVER_FLOOR: f64 = 0.25;

/// The same from the Matrix Market file.
pub const CLOSENESS_TEXT_OVER_FLOOR: f64 = 0.4;

/// How near the closeness command's phases must add up to its whole time.
pub const PHASES_WITHIN: f64 = 0.05;

/// What the benchmark runs.
pub struct Setup {
    /// The `bfs` executable timed (this one).
    pub bfs: PathBuf,
    /// `cuda-floor`, beside it.
    pub floor: PathBuf,
    /// gapbs's build folder (`make bfs converter`), if it is to be timed.
    pub gapbs: Option<PathBuf>,
    /// A Python with scipy, if scipy is to be timed.
    pub python: Option<PathBuf>,
    /// Timed runs of each command after its warm-up.
    pub repeats: usize,
    /// A peer's command (or `bfs prepare`) slower than this on its
    /// warm-up is not repeated.
    pub peer_limit: Duration,
    /// Peers run only on graphs of at most this many CSR entries.
    pub peer_most_edges: u64,
    /// Where the graphs' files are written (removed after).
    pub scratch: PathBuf,
    /// Seed of the sources.
    pub seed: u64,
    /// An earlier build's `bfs`, whose commands are timed beside this
    /// one's, as `PROGRAM (before)`.
    pub before: Option<PathBuf>,
}

/// One command's times.
#[derive(Clone, Debug)]
pub struct Timed {
    /// The graph's name.
    pub graph: String,
    /// Who ran: `bfs`, `bfs --device cpu`, `gapbs (16 threads)`, `scipy`, …
    pub program: String,
    /// Which file it read.
    pub input: &'static str,
    /// Searches it made.
    pub searches: usize,
    /// The driver's JIT cache: `warm`, `cold`, or `-` for CPU programs.
    pub jit_cache: &'static str,
    /// Wall seconds of each timed run.
    pub seconds: Vec<f64>,
    /// `bfs`'s phases in its median run (name, seconds), where it wrote them.
    pub phases: Vec<(String, f64)>,
    /// `bfs`'s plan line in its median run.
    pub plan: Option<String>,
}

impl Timed {
    /// The median of the runs.
    pub fn median(&self) -> f64 {
        let mut sorted = self.seconds.clone();
        sorted.sort_by(f64::total_cmp);
        sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN)
    }

    fn extreme(&self, pick: fn(f64, f64) -> f64) -> f64 {
        self.seconds
            .iter()
            .copied()
            .reduce(pick)
            .unwrap_or(f64::NAN)
    }
}

/// A graph as the benchmark saw it.
#[derive(Clone, Debug)]
pub struct Described {
    /// Its name.
    pub name: String,
    /// Vertices.
    pub vertices: u32,
    /// CSR entries.
    pub edges: u64,
    /// Bytes of its text, `.bcsr` and prepared `.bcsr` files.
    pub file_bytes: [u64; 3],
}

/// What a `bfs --json` report says of its run: its phases (name,
/// seconds) and its plan line.
type Reported = (Vec<(String, f64)>, Option<String>);

/// A command to time: its program, arguments and environment.
struct Run {
    program: String,
    input: &'static str,
    searches: usize,
    jit_cache: &'static str,
    command: Command,
    /// A peer's: its failure leaves its row out.
    peer: bool,
    /// Timed by its warm-up alone when that is slower than the limit.
    slow_once: bool,
    /// Where `bfs` writes its JSON report (the phases).
    json: Option<PathBuf>,
}

impl Run {
    /// A command of ours, repeated however long it takes, with no report.
    fn new(
        program: &str,
        input: &'static str,
        searches: usize,
        jit_cache: &'static str,
        command: Command,
    ) -> Run {
        Run {
            program: program.into(),
            input,
            searches,
            jit_cache,
            command,
            peer: false,
            slow_once: false,
            json: None,
        }
    }

    /// A peer's command: a failure leaves its row out, a slow one runs once.
    fn peer(program: &str, input: &'static str, searches: usize, command: Command) -> Run {
        Run {
            peer: true,
            slow_once: true,
            ..Run::new(program, input, searches, "-", command)
        }
    }
}

/// `cuda-floor` timed, under the graph name `-`.
pub fn floor(setup: &Setup) -> Result<Timed> {
    let run = Run::new("cuda-floor", "-", 0, "-", Command::new(&setup.floor));
    time(setup, run, "-")
}

/// Every command of one graph, each handed to `on_timed` as it is timed.
pub fn graph(
    setup: &Setup,
    name: &str,
    source: &GraphSource,
    on_timed: &mut dyn FnMut(&Described, Timed) -> Result<()>,
) -> Result<()> {
    std::fs::create_dir_all(&setup.scratch).map_err(io_error(&setup.scratch))?;
    let graph = source.load()?;
    let stem = setup.scratch.join(sanitized(name));
    let text = match source {
        GraphSource::File(path) if path.extension().is_some_and(|extension| extension == "mtx") => {
            path.clone()
        }
        _ => {
            let path = stem.with_extension("mtx");
            graph::save(&graph, &path)?;
            path
        }
    };
    let binary = stem.with_extension("bcsr");
    graph::save(&graph, &binary)?;
    let prepared = setup
        .scratch
        .join(format!("{}-prepared.bcsr", sanitized(name)));
    let mut prepare = Command::new(&setup.bfs);
    prepare.arg("prepare").arg(&binary).arg(&prepared);
    let run = Run {
        slow_once: true,
        ..Run::new("bfs prepare", ".bcsr", 0, "-", prepare)
    };
    let preparing = time(setup, run, name)?;
    let size = |path: &Path| std::fs::metadata(path).map_or(0, |metadata| metadata.len());
    let described = Described {
        name: name.to_string(),
        vertices: graph.vertex_count(),
        edges: graph.edge_count(),
        file_bytes: [size(&text), size(&binary), size(&prepared)],
    };
    on_timed(&described, preparing)?;
    let ptx = setup.scratch.join("kernels.ptx");
    std::fs::write(&ptx, bfs::gpu::KERNELS_PTX).map_err(io_error(&ptx))?;
    let source_vertex = sources_with_edges(&graph, 1, setup.seed)
        .first()
        .copied()
        .unwrap_or(0);
    let files = Files {
        text,
        binary,
        prepared,
        ptx,
        stem,
    };
    for run in commands::runs(setup, &graph, &files, source_vertex)? {
        let (peer, program) = (run.peer, run.program.clone());
        match time(setup, run, name) {
            Ok(timed) => on_timed(&described, timed)?,
            // A peer that fails (scipy missing, say) leaves its rows out.
            Err(error) if peer => eprintln!("bench: {name}: {program} left out: {error}"),
            Err(error) => return Err(error),
        }
    }
    for path in [&files.binary, &files.prepared] {
        let _ = std::fs::remove_file(path);
    }
    if files.text.starts_with(&setup.scratch) {
        let _ = std::fs::remove_file(&files.text);
    }
    Ok(())
}

/// A graph's files.
struct Files {
    text: PathBuf,
    binary: PathBuf,
    prepared: PathBuf,
    ptx: PathBuf,
    stem: PathBuf,
}

/// Times `run`: a warm-up, then the repeats (a slow peer: the warm-up only).
fn time(setup: &Setup, mut run: Run, graph_name: &str) -> Result<Timed> {
    let once = |command: &mut Command| -> Result<(f64, Option<Reported>)> {
        let started = Instant::now();
        let output = command.output().map_err(|error| Error::Peer {
            program: PathBuf::from(command.get_program()),
            message: error.to_string(),
        })?;
        let seconds = started.elapsed().as_secs_f64();
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(Error::Peer {
                program: PathBuf::from(command.get_program()),
                message: format!(
                    "failed ({}): {}",
                    output.status,
                    stderr.lines().last().unwrap_or_default()
                ),
            });
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let printed_plan = stdout
            .lines()
            .find_map(|line| line.strip_prefix("plan:"))
            .map(|plan| plan.trim().to_string());
        let report = match run.json.as_ref().and_then(|path| phases_of(path)) {
            Some(report) => Some(report),
            None => printed_plan.map(|plan| (Vec::new(), Some(plan))),
        };
        Ok((seconds, report))
    };
    eprintln!(
        "bench: {graph_name}: {} from {} ({} searches)",
        run.program, run.input, run.searches
    );
    let (warm_up, _) = once(&mut run.command)?;
    let repeats = match run.slow_once && warm_up > setup.peer_limit.as_secs_f64() {
        true => 0,
        false => setup.repeats,
    };
    let mut samples = Vec::new();
    for _ in 0..repeats {
        samples.push(once(&mut run.command)?);
    }
    if samples.is_empty() {
        samples.push((warm_up, None));
    }
    let mut order: Vec<usize> = (0..samples.len()).collect();
    order.sort_by(|&a, &b| samples[a].0.total_cmp(&samples[b].0));
    let (phases, plan) = samples[order[order.len() / 2]]
        .1
        .clone()
        .unwrap_or_default();
    Ok(Timed {
        graph: graph_name.to_string(),
        program: run.program,
        input: run.input,
        searches: run.searches,
        jit_cache: run.jit_cache,
        seconds: samples.iter().map(|(seconds, _)| *seconds).collect(),
        phases,
        plan,
    })
}

/// The phases and plan of a `bfs --json` report.
fn phases_of(path: &Path) -> Option<Reported> {
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let phases = report["phases"]
        .as_array()?
        .iter()
        .filter_map(|phase| {
            Some((
                phase["phase"].as_str()?.to_string(),
                phase["seconds"].as_f64()?,
            ))
        })
        .collect();
    Some((phases, report["plan"].as_str().map(str::to_string)))
}

/// `name` as a file name.
fn sanitized(name: &str) -> String {
    name.chars()
        .map(|character| match character {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '.' => character,
            _ => '_',
        })
        .collect()
}
