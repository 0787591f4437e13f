//! `bfs gen` and `bfs convert`: graphs to files, in Matrix Market or the
//! binary CSR cache (chosen by the output's extension, `.bcsr`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use bfs::Csr;
use bfs::graph::generate::{DEFAULT_SEED, Spec};
use bfs::graph::{self, Reader};
use clap::Args;

use crate::ReaderChoice;

/// The options of `bfs gen`.
#[derive(Args)]
pub struct GenArgs {
    /// What to generate: grid:WxH[:MISSING], kron:SCALE[:EDGE_FACTOR] (rmat),
    /// uniform:N:M, path:N, star:N (a `gen:` prefix is accepted).
    spec: String,
    /// The file to write: .bcsr for the binary cache, else Matrix Market.
    output: PathBuf,
    /// Seed of the generator.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
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
    save(&graph, &arguments.output, started)
}

/// Reads a graph file and writes it in another format.
pub fn convert(arguments: &ConvertArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let graph = graph::load_with(&arguments.input, Reader::from(arguments.reader))?;
    save(&graph, &arguments.output, started)
}

fn save(graph: &Csr, path: &Path, started: Instant) -> anyhow::Result<()> {
    graph::save(graph, path)?;
    println!(
        "wrote {}: {} vertices, {} edges (directed CSR entries), in {:.3} s",
        path.display(),
        graph.vertex_count(),
        graph.edge_count(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
