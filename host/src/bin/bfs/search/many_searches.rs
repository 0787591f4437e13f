//! Many searches of one graph (`--sources`): Graph500's statistics over
//! them, printed and, with `--json`, each search's figures.

use std::time::{Duration, Instant};

use anyhow::Context;
use bfs::gpu::{exchange_time, median_exchange_per_level};
use bfs::output;
use bfs::phases::{Phase, Phases};
use bfs::report::{self, Statistics};
use bfs::validate::Verifier;
use serde::Serialize;

use super::Run;
use super::engine::Engine;

/// Many searches on one graph: Graph500's statistics.
/// Returns the JSON report (the phases to come).
pub(super) fn many_searches(
    run: &Run<'_>,
    searcher: &mut dyn Engine,
    sources: &[u32],
    phases: &mut Phases,
) -> anyhow::Result<serde_json::Value> {
    let (arguments, graph_source, graph) = (run.arguments, run.graph_source, run.graph);
    /// One search's figures, in the JSON report.
    #[derive(Serialize)]
    struct Searched {
        source: u32,
        levels: u32,
        reached: usize,
        edges_traversed: u64,
        input_edges_traversed: Option<u64>,
        bfs_milliseconds: f64,
        /// Over GPUs: the time of the search's exchanges.
        exchange_milliseconds: Option<f64>,
        /// Each level, as `--trace` prints it (written with `--json` only).
        trace: Vec<report::LevelTrace>,
    }
    /// The JSON report of the searches.
    #[derive(Serialize)]
    struct ManyReport {
        graph: String,
        vertices: u32,
        edges: u64,
        device: String,
        variant: Option<String>,
        device_bytes: Option<u64>,
        verified: Option<bool>,
        statistics: Statistics,
        plan: String,
        kernel_code: Option<String>,
        startup: Option<bfs::gpu::Startup>,
        searches: Vec<Searched>,
    }
    let (mut times, mut edges, mut searches) = (Vec::new(), Vec::new(), Vec::new());
    let (mut input_edges, mut searches_steps) = (Vec::new(), Vec::new());
    let mut verifier = Verifier::with_depth_limit(run.depth_limit);
    let vertex_count = graph.vertex_count() as usize;
    // `--output`'s matrix, a source's row after another's (sizes checked).
    let mut matrix = match arguments.output {
        Some(_) => vec![-1i32; sources.len() * vertex_count],
        None => Vec::new(),
    };
    let mut rows = matrix.chunks_mut(vertex_count.max(1));
    // Time the searches' callback spends on other phases' work.
    let (mut downloading, mut verifying, mut reporting) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    searcher.for_each(graph, sources, run.depth_limit, &mut |outcome| {
        let source = outcome.result.source;
        if let Some(row) = rows.next() {
            for (distance, &level) in row.iter_mut().zip(&outcome.result.levels) {
                *distance = i32::try_from(level).unwrap_or(-1);
            }
        }
        downloading += outcome.download;
        let started = Instant::now();
        if arguments.verify {
            verifier
                .check(graph, &outcome.result)
                .with_context(|| format!("source {source}"))?;
        }
        let verified = Instant::now();
        verifying += verified - started;
        let traversed = outcome.result.edges_traversed(graph);
        let input_traversed = outcome.result.input_edges_traversed(graph);
        let exchange = exchange_time(&outcome.steps);
        searches.push(Searched {
            source,
            levels: outcome.result.level_count(),
            reached: outcome.result.reached(),
            edges_traversed: traversed,
            input_edges_traversed: input_traversed,
            bfs_milliseconds: outcome.elapsed.as_secs_f64() * 1e3,
            exchange_milliseconds: exchange.map(|exchange| exchange.as_secs_f64() * 1e3),
            trace: match arguments.json {
                Some(_) => report::trace(graph, &outcome.result, &outcome.steps),
                None => Vec::new(),
            },
        });
        times.push(outcome.elapsed);
        searches_steps.push(outcome.steps);
        edges.push(traversed);
        input_edges.extend(input_traversed);
        reporting += verified.elapsed();
        Ok(())
    })?;
    phases.end(Phase::Search);
    if let Some(path) = &arguments.output {
        output::npy::write(path, &[sources.len(), vertex_count], &matrix)
            .context("writing --output")?;
        phases.end(Phase::Output);
    }
    phases.move_time(Phase::Search, Phase::Download, downloading);
    if arguments.verify {
        phases.move_time(Phase::Search, Phase::Verify, verifying);
    }
    phases.move_time(Phase::Search, Phase::Output, reporting);
    let input_edges = (input_edges.len() == times.len()).then_some(&input_edges[..]);
    let statistics = Statistics::of(&times, &edges, input_edges);
    let variant = searcher.variant();
    println!(
        "device:    {}{}",
        searcher.device(),
        variant
            .map(|variant| format!(" (GPU, variant {variant})"))
            .unwrap_or_default()
    );
    println!(
        "graph:     {}: {} vertices, {} edges (directed CSR entries)",
        graph_source.name(),
        graph.vertex_count(),
        graph.edge_count()
    );
    let reuse = if variant.is_some() {
        " (device buffers allocated once, reused)"
    } else {
        ""
    };
    println!("searches:  {}{reuse}", statistics.searches);
    if let Some(width) = searcher.batch_width() {
        println!(
            "batches:   up to {width} sources searched at once; each source's time is an even share of its batch's"
        );
    }
    println!(
        "time ms:   min {:.3}, first quartile {:.3}, median {:.3}, third quartile {:.3}, max {:.3}",
        statistics.min_ms,
        statistics.first_quartile_ms,
        statistics.median_ms,
        statistics.third_quartile_ms,
        statistics.max_ms
    );
    println!(
        "GTEPS:     {:.4} (harmonic mean; edges: out-degrees of reached vertices)",
        statistics.harmonic_mean_gteps
    );
    if let Some(gteps) = statistics.graph500_harmonic_mean_gteps {
        println!(
            "Graph500:  {gteps:.4} GTEPS (harmonic mean; edges: input edge tuples in the component)"
        );
    }
    if let Some(median) = median_exchange_per_level(searches_steps.iter().map(Vec::as_slice)) {
        println!(
            "exchange:  {:.1} µs a level (the median over searches of the collectives' time over the levels)",
            median.as_secs_f64() * 1e6
        );
    }
    if arguments.verify {
        println!("verify:    pass for every source");
    }
    if arguments.json.is_none() {
        return Ok(serde_json::Value::Null);
    }
    let report = ManyReport {
        graph: graph_source.name(),
        vertices: graph.vertex_count(),
        edges: graph.edge_count(),
        device: searcher.device(),
        variant: variant.map(|variant| variant.name().to_string()),
        device_bytes: searcher.device_bytes(),
        verified: arguments.verify.then_some(true),
        statistics,
        plan: searcher.plan_line(graph),
        kernel_code: run.kernel_code.clone(),
        startup: run.startup,
        searches,
    };
    Ok(serde_json::to_value(&report)?)
}
