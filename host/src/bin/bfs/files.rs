//! `bfs gen` and `bfs convert`: graphs to files, in Matrix Market or the
//! binary CSR cache (chosen by the output's extension, `.bcsr`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::bail;
use bfs::Csr;
use bfs::graph::generate::{DEFAULT_SEED, Spec};
use bfs::graph::matrix_market::EntryOrder;
use bfs::graph::{self, Reader};
use clap::{Args, ValueEnum};

use crate::ReaderChoice;

/// The options of `bfs gen`.
#[derive(Args)]
pub struct GenArgs {
    /// What to generate: grid:WxH[:MISSING], kron:SCALE[:EDGE_FACTOR] (rmat),
    /// uniform:N:M, path:N, star:N (a `gen:` prefix is accepted).
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
    let started = Instant::now();
    let graph = graph::load_with(&arguments.input, Reader::from(arguments.reader))?;
    save(
        &graph,
        &arguments.output,
        entry_order(arguments.order, arguments.seed),
        started,
    )
}

fn entry_order(order: Order, seed: u64) -> EntryOrder {
    match order {
        Order::RowMajor => EntryOrder::RowMajor,
        Order::ColumnMajor => EntryOrder::ColumnMajor,
        Order::Shuffled => EntryOrder::Shuffled(seed),
    }
}

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
