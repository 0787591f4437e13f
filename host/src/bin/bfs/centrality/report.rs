//! What `bfs centrality` prints (the top ten, the radius and diameter, the
//! histogram's shape, a summary) and writes (`--output`: text or `.npy`).

use std::borrow::Cow;
use std::fmt::Display;
use std::path::Path;

use anyhow::Context;
use bfs::Csr;
use bfs::many::Reduced;
use bfs::many::centrality::{self, Sources};
use bfs::output::{self, npy};
use bfs::phases::{Phase, Phases};

use super::Measure;

/// Vertices the run prints the values of.
const TOP: usize = 10;

/// A finished run, to report.
pub(super) struct Run<'a> {
    pub(super) measure: Measure,
    pub(super) graph: &'a Csr,
    pub(super) sources: &'a Sources,
    pub(super) reduced: &'a Reduced,
    pub(super) depth_limit: Option<u32>,
    pub(super) seed: u64,
    pub(super) output: Option<&'a Path>,
}

/// The most bytes `--output` at `path` takes for `measure` on a graph of
/// `vertex_count` vertices (a histogram has at most one line a vertex).
pub(super) fn output_bytes(measure: Measure, path: &Path, vertex_count: u32) -> u64 {
    let shape = [vertex_count as usize];
    match (npy::is_npy(path), measure) {
        (true, Measure::Eccentricity) => npy::file_bytes::<i32>(&shape),
        (true, Measure::Histogram) => npy::file_bytes::<u64>(&shape),
        (true, _) => npy::file_bytes::<f64>(&shape),
        // The longest shortest text of an `f64`, a `u32`, a pair.
        (false, Measure::Eccentricity) => 11 * vertex_count as u64,
        (false, Measure::Histogram) => 32 * vertex_count as u64,
        (false, _) => 25 * vertex_count as u64,
    }
}

/// Prints and writes what `run` computed, ending the phases of its
/// values (reduce) and of their output (output).
pub(super) fn report(run: &Run<'_>, phases: &mut Phases) -> anyhow::Result<()> {
    let (reduced, sources) = (run.reduced, run.sources);
    let searched = match sources {
        Sources::All(list) => format!("every vertex ({})", list.len()),
        Sources::Sample(list) => format!(
            "a sample of {} vertices (seed {}): estimates",
            list.len(),
            run.seed
        ),
    };
    println!("sources:   {searched}, in {} batches", reduced.batches);
    if let Some(limit) = run.depth_limit {
        println!("limit:     distances past {limit} count as unreachable");
    }
    // Kept over the sources, or each vertex's own (undirected, all of them).
    let totals = || match &reduced.totals {
        Some(totals) => Cow::Borrowed(totals),
        None => Cow::Owned(centrality::own_totals(reduced, sources.list())),
    };
    match run.measure {
        Measure::Closeness => {
            let values = centrality::closeness(&totals(), sources);
            phases.end(Phase::Reduce);
            print_top(
                "closeness (Wasserman–Faust; distances to each vertex)",
                &values,
            );
            write_values(run.output, &values)?;
        }
        Measure::Harmonic => {
            let values = centrality::harmonic(&totals(), sources);
            phases.end(Phase::Reduce);
            print_top("harmonic centrality (distances to each vertex)", &values);
            write_values(run.output, &values)?;
        }
        Measure::Eccentricity => {
            let found = centrality::eccentricities(run.graph, reduced, sources, run.depth_limit);
            phases.end(Phase::Reduce);
            print_eccentricities(&found);
            let values: Vec<i32> = found.values.iter().map(|&value| value as i32).collect();
            write_values(run.output, &values)?;
        }
        Measure::Histogram => {
            print_histogram(reduced, run.graph.vertex_count());
            write_histogram(run.output, &reduced.histogram)?;
        }
        Measure::Betweenness | Measure::EdgeBetweenness => {
            unreachable!("betweenness reports in centrality::betweenness")
        }
    }
    phases.end(Phase::Output);
    Ok(())
}

/// The ten vertices of greatest value, with `title`.
pub(super) fn print_top<T: PartialOrd + Copy + Display>(title: &str, values: &[T]) {
    println!("top ten:   {title}");
    println!("{:>12}  value", "vertex");
    for (vertex, value) in centrality::top(values, TOP) {
        println!("{vertex:>12}  {value}");
    }
}

/// The radius, the diameter and its pair, whether the graph is connected,
/// and the ten most eccentric vertices.
fn print_eccentricities(found: &centrality::Eccentricities) {
    let (radius, center) = found.radius;
    let (diameter, from, to) = found.diameter;
    let (at_most, at_least) = match found.exact {
        true => ("", ""),
        false => ("at most ", "at least "),
    };
    println!("radius:    {at_most}{radius} (vertex {center})");
    println!("diameter:  {at_least}{diameter} (from vertex {from} to vertex {to})");
    if !found.connected {
        println!(
            "connected: no: a vertex's eccentricity is its greatest distance to a vertex it \
             reaches, and the radius and diameter are over those (networkx's are infinite)"
        );
    }
    let title = match found.exact {
        true => "eccentricity (greatest distance from each vertex)",
        false => "eccentricity, lower bounds (greatest distance from a sampled source)",
    };
    print_top(title, &found.values);
}

/// The histogram's pairs, its range and mean, and its ten fullest distances.
fn print_histogram(reduced: &Reduced, vertex_count: u32) {
    let histogram = &reduced.histogram;
    let pairs: u64 = histogram.iter().sum();
    let possible = reduced.eccentricities.len() as u64 * vertex_count as u64;
    println!(
        "pairs:     {pairs} ordered (source, vertex) pairs reached, the sources themselves at \
         distance 0; {} unreached",
        possible - pairs
    );
    let apart: u64 = histogram.iter().skip(1).sum();
    let summed: u64 = (1u64..)
        .zip(histogram.iter().skip(1))
        .map(|(d, &c)| d * c)
        .sum();
    if apart > 0 {
        println!(
            "distances: 1 to {}, mean {:.4} over the pairs apart",
            histogram.len() - 1,
            summed as f64 / apart as f64
        );
    }
    println!("fullest:   distance  pairs");
    for (distance, pairs) in centrality::top(&histogram[1.min(histogram.len())..], TOP) {
        println!("{:>19}  {pairs}", distance + 1);
    }
}

/// `--output`, where given: `values` as `.npy` where the extension says
/// so, else the text that `lines` writes.
pub(super) fn write_output<T: npy::Element>(
    path: Option<&Path>,
    values: &[T],
    lines: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    let Some(path) = path else {
        return Ok(());
    };
    let written = match npy::is_npy(path) {
        true => npy::write(path, &[values.len()], values),
        false => output::write_with(path, lines),
    };
    written.context("writing --output")
}

/// `--output`: one value a line in vertex order, or `.npy`.
pub(super) fn write_values<T: npy::Element + Display>(
    path: Option<&Path>,
    values: &[T],
) -> anyhow::Result<()> {
    write_output(path, values, |writer| {
        for value in values {
            writeln!(writer, "{value}")?;
        }
        Ok(())
    })
}

/// `--output` for the histogram: `distance count` lines, or `.npy` counts
/// by distance.
fn write_histogram(path: Option<&Path>, histogram: &[u64]) -> anyhow::Result<()> {
    write_output(path, histogram, |writer| {
        for (distance, count) in histogram.iter().enumerate() {
            writeln!(writer, "{distance} {count}")?;
        }
        Ok(())
    })
}
