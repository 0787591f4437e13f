//! `bfs bench --many`: many sources of one graph searched at once (MS-BFS
//! batches, [`bfs::many`]) beside the same sources one at a time, on the
//! GPU and the CPU, beside gapbs (one process, a BFS per trial), scipy's
//! `shortest_path(unweighted=True)` and networkx's closeness.
//!
//! Each graph is loaded once and the GPU opened once for every row, as in
//! [`super::roads`]. Every row is checked: against the CPU reference
//! ([`bfs::cpu::bfs`]) from the first [`CHECKED`] sources (each source's
//! vertices by distance, or every vertex's distance where a row keeps
//! them), and the engines' counts against each other for every source. A
//! row whose searches would take longer than [`Setup::row_budget`] times
//! the sources it reaches within it and is scaled to all of them, and says
//! so.

mod closeness;
mod cpu_rows;
mod gpu_rows;
mod peers;
mod section;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rayon::prelude::*;

pub use peers::networkx;
pub use section::Measured;

use bfs::graph::generate::sources_with_edges;
use bfs::many::{BatchCounts, Keep, Limits, ManySources};
use bfs::{Bfs, Csr, Error, UNREACHED, cpu};

/// The heading of `BENCHMARKS.md`'s section.
pub const SECTION: &str = "## Many sources";

/// The graphs `bench --many` times besides those given: Kronecker 20
/// (scale-free, few levels) and a road network of 4M vertices (thousands
/// of levels).
pub const DEFAULT_GRAPHS: [&str; 2] = ["gen:kron:20:16", "gen:road:360000"];

/// Sources of a run when none are asked for: one GPU batch's.
pub const DEFAULT_SOURCES: usize = 1024;

/// Sources whose searches are checked against the CPU reference.
pub const CHECKED: usize = 16;

/// Sources of the batch that `auto` one at a time must not beat.
pub const SMALL_BATCH: usize = 64;

/// Row budgets the closeness row may take: most of a run's time goes to
/// it, where it has to search from every vertex.
pub const CLOSENESS_BUDGETS: f64 = 6.0;

/// What the benchmark runs.
pub struct Setup {
    /// Random sources with an edge, Graph500's way (as `bfs --sources N`).
    pub sources: usize,
    /// Seed of the sources and of the vertices checked.
    pub seed: u64,
    /// Threads of the CPU engine's rows.
    pub threads: usize,
    /// gapbs's build folder (`make bfs converter`), if it is to be timed.
    pub gapbs: Option<PathBuf>,
    /// A Python with scipy and networkx, if they are to be timed.
    pub python: Option<PathBuf>,
    /// A row that samples stops taking sources once its searches took
    /// this long (the closeness row: [`CLOSENESS_BUDGETS`] times this).
    pub row_budget: Duration,
    /// Where the peers' files are written (removed after).
    pub scratch: PathBuf,
}

/// What a row measures, for the targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The GPU's batches, counts only.
    Batched,
    /// The GPU's batches with every distance copied to the host.
    Distances,
    /// The GPU's batch of the first [`SMALL_BATCH`] sources.
    SmallBatch,
    /// `auto` on the GPU, one source at a time (`bfs --sources --one-by-one`).
    OneByOneAuto,
    /// Exact closeness from every vertex on the GPU.
    Closeness,
    /// The same on two GPUs sharing the batches.
    TwoGpus,
    /// The CPU engine's batches, by its method for the graph.
    CpuBatched,
    /// The CPU engine one source at a time.
    CpuOneByOne,
    /// gapbs's BFS, a trial a source.
    Gapbs,
    /// scipy's `shortest_path`.
    Scipy,
}

/// How a row was checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Validation {
    /// Checked, and how.
    Yes(String),
    /// Not run, and why.
    Skipped(String),
    /// Ran and disagreed with the reference, or failed.
    Failed(String),
}

/// One row of a graph's table.
#[derive(Clone, Debug)]
pub struct Row {
    /// The graph's name.
    pub graph: String,
    /// What it measures.
    pub kind: Kind,
    /// The method in words.
    pub method: String,
    /// Sources the row stands for.
    pub sources: usize,
    /// Sources it timed (fewer where sampled and scaled; 0 where skipped).
    pub timed: usize,
    /// Seconds of search of the timed sources.
    pub seconds: f64,
    /// Seconds of the first [`SMALL_BATCH`] sources, for a row that timed
    /// each source.
    pub first_small_batch: Option<f64>,
    /// How it was checked.
    pub validated: Validation,
}

impl Row {
    /// The row of `method` over `sources` sources, before it runs.
    fn new(graph: &str, kind: Kind, method: &str, sources: usize) -> Row {
        Row {
            graph: graph.into(),
            kind,
            method: method.into(),
            sources,
            timed: 0,
            seconds: f64::NAN,
            first_small_batch: None,
            validated: Validation::Skipped(String::new()),
        }
    }

    /// The row having timed every source in `seconds`, checked as
    /// `checked` says.
    fn measured(self, seconds: f64, checked: Result<String, String>) -> Row {
        Row {
            timed: self.sources,
            seconds,
            validated: checked.into(),
            ..self
        }
    }

    /// The row not run, and why (`failed`: an error, not a choice).
    fn not_run(self, why: impl Into<Validation>) -> Row {
        Row {
            validated: why.into(),
            ..self
        }
    }

    /// Seconds a source, over the timed ones.
    pub fn per_source(&self) -> f64 {
        self.seconds / self.timed as f64
    }

    /// Seconds for every source the row stands for: measured, or scaled
    /// from the timed ones.
    pub fn total(&self) -> f64 {
        self.per_source() * self.sources as f64
    }

    /// Whether its time is scaled from a sample.
    pub fn scaled(&self) -> bool {
        self.timed > 0 && self.timed < self.sources
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
    pub csr_entries: u64,
    /// Levels of the search from the first source.
    pub levels: u32,
}

/// The sources of a graph's rows and the reference's searches from the
/// first of them.
struct Reference<'g> {
    name: String,
    graph: &'g Csr,
    sources: Vec<u32>,
    checked: Vec<Bfs>,
    /// Seconds a reference search took.
    seconds_each: f64,
}

impl Reference<'_> {
    /// Checks each source's vertices by distance (`counts`, from the
    /// first sources on) against the reference's: says how many were.
    fn check_counts(&self, counts: &BatchCounts) -> Result<String, String> {
        for (index, (found, reference)) in counts.iter().zip(&self.checked).enumerate() {
            let expected = by_distance(&reference.levels);
            if *found != expected {
                return Err(format!(
                    "source {} finds {found:?} vertices by distance, the reference {expected:?}",
                    self.sources[index]
                ));
            }
        }
        let checked = counts.len().min(self.checked.len());
        Ok(format!(
            "{checked} sources' vertices by distance = the reference's"
        ))
    }

    /// Checks every vertex's distance from source `index` (`row`, `-1`
    /// where unreached) against the reference's, where it has the source.
    fn check_row(&self, index: usize, row: &[i32]) -> Result<(), String> {
        let Some(reference) = self.checked.get(index) else {
            return Ok(());
        };
        let wrong = row.iter().zip(&reference.levels).position(|(&got, &want)| {
            let want = if want == UNREACHED { -1 } else { want as i64 };
            got as i64 != want
        });
        match wrong {
            None if row.len() == reference.levels.len() => Ok(()),
            None => Err(format!(
                "{} distances, not {}",
                row.len(),
                reference.levels.len()
            )),
            Some(vertex) => Err(format!(
                "vertex {vertex} from source {} is at {}, the reference says {}",
                reference.source, row[vertex], reference.levels[vertex] as i32
            )),
        }
    }
}

/// How many vertices lie at each distance in `levels`, as an engine
/// counts them.
fn by_distance(levels: &[u32]) -> Vec<u64> {
    let mut counts = Vec::new();
    for &level in levels.iter().filter(|&&level| level != UNREACHED) {
        if counts.len() <= level as usize {
            counts.resize(level as usize + 1, 0);
        }
        counts[level as usize] += 1;
    }
    counts
}

/// Every row of one graph, each added to `measured` and handed to
/// `on_row` as it is measured (to write the section so far).
pub fn graph(
    setup: &Setup,
    gpu: Result<&bfs::gpu::Gpu, &str>,
    name: &str,
    graph: &Csr,
    measured: &mut Measured,
    on_row: &mut dyn FnMut(&Measured) -> bfs::Result<()>,
) -> bfs::Result<()> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(setup.threads)
        .build()
        .map_err(|error| Error::Invalid(format!("starting {} threads: {error}", setup.threads)))?;
    let sources = sources_with_edges(graph, setup.sources, setup.seed);
    if sources.is_empty() {
        return Err(Error::Invalid(format!("{name} has no vertex with an edge")));
    }
    eprintln!("bench: many: {name}: the reference from {CHECKED} sources");
    let started = Instant::now();
    let checked = pool.install(|| {
        sources[..sources.len().min(CHECKED)]
            .par_iter()
            .map(|&source| cpu::bfs(graph, source))
            .collect::<Vec<_>>()
    });
    measured.graphs.push(Described {
        name: name.into(),
        vertices: graph.vertex_count(),
        csr_entries: graph.edge_count(),
        levels: checked[0].level_count(),
    });
    // The searches ran side by side, on as many threads as there were.
    let side_by_side = checked.len().min(setup.threads).max(1);
    let reference = Reference {
        name: name.into(),
        graph,
        sources,
        seconds_each: started.elapsed().as_secs_f64() * side_by_side as f64 / checked.len() as f64,
        checked,
    };
    let mut emit = |row: Row| -> bfs::Result<()> {
        eprintln!("bench: many: {}", section::progress_line(&row));
        measured.rows.push(row);
        on_row(measured)
    };
    let gpu_counts = match gpu {
        Ok(gpu) => gpu_rows::rows(setup, gpu, &reference, &mut emit)?,
        Err(why) => {
            let why = Validation::Skipped(format!("no GPU rows: {why}"));
            emit(Row::new(name, Kind::Batched, "GPU", reference.sources.len()).not_run(why))?;
            None
        }
    };
    // The CPU rows run on the pool's threads (a source a thread takes
    // rayon's), and are handed on once back.
    let (rows, one_by_one) =
        pool.install(|| cpu_rows::rows(setup, &reference, gpu_counts.as_ref()));
    for row in rows {
        emit(row)?;
    }
    peers::rows(setup, &reference, one_by_one, &mut emit)
}

/// What [`time_batches`] measured.
#[derive(Default)]
struct Timed {
    /// Each timed source's vertices by distance, in order.
    counts: BatchCounts,
    /// Seconds of the searches.
    seconds: f64,
    /// Seconds of the first [`SMALL_BATCH`] sources, where a chunk ended there.
    first_small_batch: Option<f64>,
}

/// Searches `sources` in chunks of `chunk` (after an untimed warm-up
/// search from the first), until all are searched or the searches took
/// `budget`.
fn time_batches(
    engine: &mut dyn ManySources,
    sources: &[u32],
    chunk: usize,
    budget: Duration,
) -> bfs::Result<Timed> {
    let limits = Limits::default();
    engine.search_batch(&sources[..1], limits, Keep::Counts)?;
    let mut timed = Timed::default();
    let mut spent = Duration::ZERO;
    for batch in sources.chunks(chunk.max(1)) {
        let started = Instant::now();
        let counts = engine.search_batch(batch, limits, Keep::Counts)?;
        spent += started.elapsed();
        timed.counts.extend(counts);
        if timed.counts.len() == SMALL_BATCH {
            timed.first_small_batch = Some(spent.as_secs_f64());
        }
        if spent > budget {
            break;
        }
    }
    timed.seconds = spent.as_secs_f64();
    Ok(timed)
}

/// A row's check from a result: its how, or what failed.
impl From<Result<String, String>> for Validation {
    fn from(checked: Result<String, String>) -> Validation {
        match checked {
            Ok(how) => Validation::Yes(how),
            Err(why) => Validation::Failed(why),
        }
    }
}

/// What an error leaves of a row: skipped where the graph or the output
/// does not fit, failed otherwise.
impl From<&Error> for Validation {
    fn from(error: &Error) -> Validation {
        match error {
            Error::DeviceMemory { .. }
            | Error::Unsupported(_)
            | Error::GraphTooLarge(_)
            | Error::OutputTooLarge(_) => Validation::Skipped(error.to_string()),
            _ => Validation::Failed(error.to_string()),
        }
    }
}

/// The check of every vertex's distance from `count` sources: passed
/// unless `wrong` says where one differs from the reference's.
fn distances_checked(count: usize, wrong: Option<String>) -> Result<String, String> {
    match wrong {
        None => Ok(format!(
            "every vertex's distance from {count} sources = the reference's"
        )),
        Some(why) => Err(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices_by_distance_leave_out_the_unreached() {
        assert_eq!(by_distance(&[1, 0, 1, UNREACHED, 2]), vec![1, 2, 1]);
        assert_eq!(by_distance(&[UNREACHED]), Vec::<u64>::new());
    }
}
