//! `bfs components`: each vertex's weakly or strongly connected component
//! (`bfs::components`), on the GPU where there is one, else on the CPU.
//! Prints the count and the largest, and writes each vertex's label (its
//! component's least vertex) where `--output` asks.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use bfs::components::{self, Components, GpuComponents, Kind};
use bfs::output::{self, npy};
use clap::Args;

use crate::device::{self, DeviceOpening};
use crate::{DeviceChoice, GraphArgs};

/// The options of `bfs components`.
#[derive(Args)]
pub struct ComponentsArgs {
    #[command(flatten)]
    graph: GraphArgs,
    /// Strongly connected components (each vertex reaches every other);
    /// without it, weakly connected ones (connected, on an undirected
    /// graph).
    #[arg(long)]
    strong: bool,
    /// Write each vertex's label, its component's least vertex, a line
    /// each in vertex order; `.npy` (int32) by the extension.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Where to run: the GPU if there is one, else the CPU (auto); the
    /// GPU or fail; the CPU.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    device: DeviceChoice,
}

/// `bfs components`.
pub fn run(arguments: &ComponentsArgs) -> anyhow::Result<()> {
    arguments
        .graph
        .check_outputs(&[("--output", &arguments.output)])?;
    let graph_source = arguments.graph.source()?;
    let opening = DeviceOpening::start(arguments.device, None);
    let started = Instant::now();
    let graph = graph_source.load_with(arguments.graph.reader.into())?;
    println!(
        "graph:     {}: {} vertices, {} edges (directed CSR entries), loaded in {:.3} s",
        graph_source.name(),
        graph.vertex_count(),
        graph.edge_count(),
        started.elapsed().as_secs_f64()
    );
    let n = graph.vertex_count() as u64;
    if let Some(path) = &arguments.output {
        let bytes = match npy::is_npy(path) {
            true => npy::file_bytes::<i32>(&[n as usize]),
            false => 11 * n,
        };
        output::check_room(path, bytes).context("--output")?;
    }
    let mut kind = match arguments.strong {
        true => Kind::Strong,
        false => Kind::Weak,
    };
    if kind == Kind::Strong && graph.is_symmetric() {
        println!(
            "note:      the graph is undirected, so its strongly connected components are its \
             connected ones"
        );
        kind = Kind::Weak;
    }
    let (gpu, no_gpu) = device::finish(opening, arguments.device)?;
    let (found, device) = match &gpu {
        Some(gpu) => {
            let mut engine = GpuComponents::new(gpu, &graph)?;
            let found = match kind {
                Kind::Weak => engine.weak()?,
                Kind::Strong => engine.strong()?,
            };
            if let Some(note) = &found.note {
                println!("note:      {note}");
            }
            let device = format!(
                "{} (--device {})",
                gpu.name(),
                crate::spelled(arguments.device)
            );
            (found.components, (device, found.elapsed))
        }
        None => {
            let started = Instant::now();
            let found = match kind {
                Kind::Weak => components::weak_on_cpu(&graph),
                Kind::Strong => components::strong_on_cpu(&graph),
            };
            let why =
                no_gpu.unwrap_or_else(|| format!("--device {}", crate::spelled(arguments.device)));
            (found, (format!("CPU ({why})"), started.elapsed()))
        }
    };
    let (device, elapsed) = device;
    println!("device:    {device}");
    write_labels(arguments.output.as_ref(), &found)?;
    let summary = found.summary();
    let (largest, label) = summary.largest;
    println!(
        "components: {} {}, the largest {largest} vertices (label {label}); search {:.6} s",
        summary.count,
        kind.name(),
        elapsed.as_secs_f64()
    );
    Ok(())
}

/// `--output`: a label a line in vertex order, or `.npy` (int32).
fn write_labels(path: Option<&PathBuf>, found: &Components) -> anyhow::Result<()> {
    let Some(path) = path else {
        return Ok(());
    };
    if npy::is_npy(path) {
        let labels: Vec<i32> = found.labels.iter().map(|&label| label as i32).collect();
        return npy::write(path, &[labels.len()], &labels).context("writing --output");
    }
    output::write_per_vertex(path, &found.labels).context("writing --output")
}
