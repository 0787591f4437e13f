//! `bfs gen`, `bfs convert` and `bfs prepare`: graphs to files, in Matrix
//! Market or the binary CSR cache (chosen by the output's extension,
//! `.bcsr`), the cache with what `auto` builds before it searches.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::bail;
use bfs::Csr;
use bfs::gpu::{Gpu, Workload};
use bfs::graph::generate::{DEFAULT_SEED, Spec};
use bfs::graph::matrix_market::EntryOrder;
use bfs::graph::prepared::{Preparation, PreparationKind};
use bfs::graph::{self, GraphSource, Reader, binary};
use clap::{Args, ValueEnum};

use crate::ReaderChoice;

/// The options of `bfs gen`.
#[derive(Args)]
pub struct GenArgs {
    /// What to generate: grid:WxH[:MISSING], kron:SCALE[:EDGE_FACTOR] (rmat),
    /// dkron:SCALE[:EDGE_FACTOR] (directed), uniform:N:M, road:JUNCTIONS[:ONEWAY[:SHAPE]], path:N, star:N, hub:LEAVES:EXTRA,
    /// stars:HUBS:LEAVES (a `gen:` prefix is accepted).
    spec: String,
    /// The file to write: .bcsr for the binary cache, else Matrix Market.
    output: PathBuf,
    /// Seed of the generator (and of a shuffled order).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Order of a Matrix Market file's entries.
    #[arg(long, value_enum, default_value_t = Order::RowMajor)]
    order: Order,
}

/// The entry orders of `--order`: real files come in each.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Order {
    RowMajor,
    ColumnMajor,
    /// A pseudo-random permutation, from `--seed`.
    Shuffled,
}

/// The options of `bfs convert`.
#[derive(Args)]
pub struct ConvertArgs {
    /// The graph file to read (any format `--graph` takes).
    input: PathBuf,
    /// The file to write: .bcsr for the binary cache, else Matrix Market.
    output: PathBuf,
    /// Matrix Market reader for the input.
    #[arg(long, value_enum, default_value_t = ReaderChoice::Fast)]
    reader: ReaderChoice,
    /// Order of a Matrix Market file's entries.
    #[arg(long, value_enum, default_value_t = Order::RowMajor)]
    order: Order,
    /// Seed of a shuffled order.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Also store what `auto` builds before searching the graph, as
    /// `bfs prepare` does (the output must be .bcsr).
    #[arg(long)]
    prepare: bool,
}

/// The options of `bfs prepare`.
#[derive(Args)]
pub struct PrepareArgs {
    /// The graph to read: a file in any format `--graph` takes, or gen:SPEC.
    input: String,
    /// The binary CSR file to write, with the preparations after the graph.
    output: PathBuf,
    /// What to prepare: what `auto` would build for many searches of this
    /// graph (default), or these (`hierarchy`, `ghost-zones`).
    #[arg(long = "kind", value_enum, value_delimiter = ',')]
    kinds: Vec<KindChoice>,
    /// Matrix Market reader for the input.
    #[arg(long, value_enum, default_value_t = ReaderChoice::Fast)]
    reader: ReaderChoice,
}

/// The preparations `--kind` names.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindChoice {
    /// `hierarchy-sweep`'s contraction hierarchy.
    Hierarchy,
    /// `ghost-zones`'s zones, sized to this machine's GPU (else to a block
    /// of 227 KB of shared memory; a GPU whose blocks hold less builds them
    /// anew).
    GhostZones,
}

impl From<KindChoice> for PreparationKind {
    fn from(choice: KindChoice) -> Self {
        match choice {
            KindChoice::Hierarchy => PreparationKind::Hierarchy,
            KindChoice::GhostZones => PreparationKind::GhostZones,
        }
    }
}

/// Generates a graph and writes it.
pub fn generate(arguments: &GenArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut spec: Spec = arguments
        .spec
        .strip_prefix("gen:")
        .unwrap_or(&arguments.spec)
        .parse()?;
    spec.seed = arguments.seed;
    let graph = spec.generate()?;
    save(
        &graph,
        &arguments.output,
        entry_order(arguments.order, arguments.seed),
        started,
    )
}

/// Reads a graph file and writes it in another format.
pub fn convert(arguments: &ConvertArgs) -> anyhow::Result<()> {
    if arguments.prepare {
        return prepare(&PrepareArgs {
            input: arguments.input.display().to_string(),
            output: arguments.output.clone(),
            kinds: Vec::new(),
            reader: arguments.reader,
        });
    }
    let started = Instant::now();
    let graph = graph::load_with(&arguments.input, Reader::from(arguments.reader))?;
    save(
        &graph,
        &arguments.output,
        entry_order(arguments.order, arguments.seed),
        started,
    )
}

/// Reads a graph file and writes it as a binary CSR file with the
/// preparations asked for (by default what `auto` builds for many searches).
pub fn prepare(arguments: &PrepareArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    if arguments
        .output
        .extension()
        .is_none_or(|extension| extension != "bcsr")
    {
        bail!("a prepared graph is a binary CSR file: the output must end in .bcsr");
    }
    let graph = GraphSource::parse(&arguments.input)?.load_with(Reader::from(arguments.reader))?;
    let loaded = started.elapsed().as_secs_f64();
    let gpu = Gpu::open().ok();
    let kinds: Vec<PreparationKind> = match arguments.kinds.is_empty() {
        false => arguments.kinds.iter().map(|&kind| kind.into()).collect(),
        true => {
            let cooperative = gpu.as_ref().is_none_or(Gpu::cooperative_launch);
            let plan = bfs::gpu::plan(&graph, cooperative, Workload::many());
            let needs = plan.strategy.needs();
            if needs.is_none() {
                println!(
                    "nothing to prepare: auto takes {} for this graph ({})",
                    plan.strategy.name(),
                    plan.reason
                );
            }
            needs.into_iter().collect()
        }
    };
    let capacity = match &gpu {
        Some(gpu) => bfs::gpu::ghost_zone_capacity(gpu),
        None => bfs::gpu::roads::ghost_zones::capacity(
            bfs::gpu::roads::ghost_zones::SHARED_BYTES_WITHOUT_GPU,
        ),
    };
    let mut preparations = Vec::new();
    for kind in kinds {
        let building = Instant::now();
        let preparation = bfs::gpu::build_preparation(&graph, kind, capacity)?;
        println!(
            "prepared:  {} in {:.3} s",
            kind.name(),
            building.elapsed().as_secs_f64()
        );
        preparations.push(preparation);
    }
    write_prepared(&graph, &preparations, &arguments.output)?;
    println!(
        "wrote {}: {} vertices, {} edges (directed CSR entries), {} preparation{}, in {:.3} s \
         (loading {loaded:.3} s)",
        arguments.output.display(),
        graph.vertex_count(),
        graph.edge_count(),
        preparations.len(),
        if preparations.len() == 1 { "" } else { "s" },
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Writes `graph` and `preparations` to the binary CSR file `path`.
fn write_prepared(graph: &Csr, preparations: &[Preparation], path: &Path) -> bfs::Result<()> {
    bfs::output::write_with(path, |mut writer| {
        binary::write_prepared(graph, preparations, &mut writer)
    })
}

/// The Matrix Market entry order `--order` names (`seed` shuffles).
fn entry_order(order: Order, seed: u64) -> EntryOrder {
    match order {
        Order::RowMajor => EntryOrder::RowMajor,
        Order::ColumnMajor => EntryOrder::ColumnMajor,
        Order::Shuffled => EntryOrder::Shuffled(seed),
    }
}

/// Writes `graph` to `path` in `order`, and prints what was written and
/// the time since `started`.
fn save(graph: &Csr, path: &Path, order: EntryOrder, started: Instant) -> anyhow::Result<()> {
    if order != EntryOrder::RowMajor
        && path
            .extension()
            .is_some_and(|extension| extension == "bcsr")
    {
        bail!("--order is for Matrix Market files; a .bcsr file is always in CSR order");
    }
    graph::save_ordered(graph, path, order)?;
    println!(
        "wrote {}: {} vertices, {} edges (directed CSR entries), in {:.3} s",
        path.display(),
        graph.vertex_count(),
        graph.edge_count(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
