//! `bfs centrality --measure betweenness|edge-betweenness`: Brandes's
//! betweenness from every vertex or a sample (`bfs::many::betweenness`),
//! on the GPU's batches where there is a GPU (shared among `--gpus`),
//! else on every core; networkx's values (`normalized`, `endpoints`).
//! Prints the top ten and a summary, and writes a value a vertex, or an
//! edge's `u v value` lines (its `.npy`: a value an arc, in CSR order).

use std::path::Path;

use bfs::Csr;
use bfs::many::betweenness::{self, Betweenness, CpuBetweenness, Scale, Wanted};
use bfs::output::npy;
use bfs::phases::{Phase, Phases};

use super::Summary;
use super::report::{print_top, write_output, write_values};
use crate::DeviceChoice;

/// What `bfs centrality` asks of a betweenness run.
pub(super) struct Asked<'a> {
    /// Edge betweenness, not the vertices'.
    pub(super) edges: bool,
    /// networkx's `endpoints`.
    pub(super) endpoints: bool,
    /// networkx's `normalized` (not `--raw`).
    pub(super) normalized: bool,
    /// The sources, and whether they are a sample.
    pub(super) sample: Option<usize>,
    pub(super) seed: u64,
    pub(super) device: DeviceChoice,
    /// `--batch-width`, a GPU batch's sources where given.
    pub(super) width: Option<usize>,
    pub(super) gpus: Option<u32>,
    pub(super) output: Option<&'a Path>,
}

/// The most bytes `--output` at `path` takes for `graph`.
pub(super) fn output_bytes(asked: &Asked<'_>, path: &Path, graph: &Csr) -> u64 {
    let (n, m) = (graph.vertex_count() as usize, graph.edge_count() as usize);
    match (npy::is_npy(path), asked.edges) {
        (true, false) => npy::file_bytes::<f64>(&[n]),
        (true, true) => npy::file_bytes::<f64>(&[m]),
        // The longest shortest text of an `f64`, of two ids and an `f64`.
        (false, false) => 25 * n as u64,
        (false, true) => 47 * m as u64,
    }
}

/// Runs the measure on `graph` (on `gpu` where one is open, else on the
/// CPU, `no_gpu` saying why where `--device` did not ask for it), reports
/// it, and ends the run's phases up to its output.
pub(super) fn run(
    asked: &Asked<'_>,
    graph: &Csr,
    (gpu, no_gpu): (Option<&bfs::gpu::Gpu>, Option<String>),
    phases: &mut Phases,
) -> anyhow::Result<Summary> {
    let n = graph.vertex_count();
    let wanted = Wanted {
        vertices: !asked.edges,
        arcs: asked.edges,
        endpoints: asked.endpoints,
    };
    let count = asked.sample.unwrap_or(n as usize);
    let mut engine: Option<Box<dyn Betweenness + '_>> = None;
    let (width, device) = match (gpu, asked.gpus) {
        // Each GPU sizes its own batches; the sources' patches are the
        // widest batch's, whose parts are compact too.
        (_, Some(gpus)) => (
            bfs::abi::betweenness::MOST_WIDTH as usize,
            format!("{gpus} GPUs sharing the batches (--gpus)"),
        ),
        (Some(gpu), None) => {
            let width = asked.width.map(|width| width as u32);
            let found = betweenness::gpu_engine(gpu, graph, count, wanted, width)?;
            let device = format!(
                "{} (--device {})",
                found.describe(),
                crate::spelled(asked.device)
            );
            let width = found.batch_width();
            engine = Some(found);
            (width, device)
        }
        (None, None) => {
            let found = CpuBetweenness::new(graph, wanted);
            let why =
                no_gpu.unwrap_or_else(|| format!("--device {}", crate::spelled(asked.device)));
            let device = format!("{} ({why})", found.describe());
            let width = found.batch_width();
            engine = Some(Box::new(found));
            (width, device)
        }
    };
    phases.end(Phase::Upload);
    let sources = match asked.sample {
        Some(count) => bfs::graph::generate::sample_vertices(graph, count, asked.seed),
        None => bfs::many::all_sources(graph, width),
    };
    phases.end(Phase::Order);
    let run = match (&mut engine, asked.gpus) {
        (Some(engine), _) => betweenness::run(engine.as_mut(), &sources)?,
        (None, Some(gpus)) => betweenness::run_on_gpus(graph, gpus, &sources, wanted)?,
        (None, None) => unreachable!("an engine or GPUs sharing the batches"),
    };
    drop(engine);
    phases.end(Phase::Search);
    println!("device:    {device}");
    let searched = match asked.sample {
        None => format!("every vertex ({n})"),
        Some(count) => format!(
            "a sample of {count} vertices (seed {}): estimates",
            asked.seed
        ),
    };
    println!("sources:   {searched}, in {} batches", run.batches);
    let scale = Scale {
        normalized: asked.normalized,
        directed: !graph.is_symmetric(),
        sampled: asked.sample.map(|_| &sources[..]),
    };
    let form = match asked.normalized {
        true => "normalized",
        false => "raw",
    };
    if asked.edges {
        let arcs = run.dependencies.arcs.as_deref().unwrap_or_default();
        let mut values = betweenness::edge_values(graph, arcs);
        betweenness::rescale_edges(&mut values, n, scale);
        phases.end(Phase::Reduce);
        print_top_edges(graph, &values, form);
        write_edges(asked.output, graph, &values)?;
    } else {
        let mut values = run.dependencies.vertices.unwrap_or_default();
        betweenness::rescale_vertices(&mut values, n, scale, asked.endpoints);
        phases.end(Phase::Reduce);
        let endpoints = match asked.endpoints {
            true => ", endpoints counted",
            false => "",
        };
        print_top(&format!("betweenness ({form}{endpoints})"), &values);
        write_values(asked.output, &values)?;
    }
    phases.end(Phase::Output);
    Ok(Summary {
        measure: match asked.edges {
            true => "edge betweenness".into(),
            false => "betweenness".into(),
        },
        sources: sources.len(),
        batches: run.batches,
        search_seconds: run.elapsed.as_secs_f64(),
    })
}

/// The ten edges of greatest value (each undirected edge once, from its
/// smaller end).
fn print_top_edges(graph: &Csr, values: &[f64], form: &str) {
    let tails = arc_tails(graph);
    let symmetric = graph.is_symmetric();
    let columns = graph.column_indices();
    let kept: Vec<f64> = (0..values.len())
        .map(|arc| match !symmetric || tails[arc] < columns[arc] {
            true => values[arc],
            false => f64::NEG_INFINITY,
        })
        .collect();
    println!("top ten:   edge betweenness ({form})");
    println!("{:>12}  {:>12}  value", "tail", "head");
    for (arc, value) in bfs::many::centrality::top(&kept, 10) {
        if value > f64::NEG_INFINITY {
            let arc = arc as usize;
            println!("{:>12}  {:>12}  {value}", tails[arc], columns[arc]);
        }
    }
}

/// Each arc's tail, in CSR order.
fn arc_tails(graph: &Csr) -> Vec<u32> {
    (0..graph.vertex_count())
        .flat_map(|vertex| std::iter::repeat_n(vertex, graph.degree(vertex) as usize))
        .collect()
}

/// `--output` of edge betweenness: `u v value` lines, an undirected
/// graph's edges once (`u < v`), or `.npy` of a value an arc in CSR order.
fn write_edges(path: Option<&Path>, graph: &Csr, values: &[f64]) -> anyhow::Result<()> {
    let symmetric = graph.is_symmetric();
    write_output(path, values, |writer| {
        let mut arc = 0;
        for tail in 0..graph.vertex_count() {
            for &head in graph.neighbours(tail) {
                if !symmetric || tail < head {
                    writeln!(writer, "{tail} {head} {}", values[arc])?;
                }
                arc += 1;
            }
        }
        Ok(())
    })
}
