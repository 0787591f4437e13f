//! One search (no `--sources`): its summary, `--trace`'s levels,
//! `--target`'s path, and the files `--output`, `--parents` and `--plot`
//! ask for.

use anyhow::Context;
use bfs::phases::{Phase, Phases};
use bfs::report::Report;
use bfs::validate::Verifier;
use bfs::{Bfs, UNREACHED, output, plot};

use super::Run;
use super::engine::Engine;
use super::sources::Searches;

/// One search, its summary and its files; returns its JSON report (the
/// phases to come).
pub(super) fn one_search(
    run: &Run<'_>,
    searcher: &mut dyn Engine,
    searches: &Searches,
    phases: &mut Phases,
) -> anyhow::Result<serde_json::Value> {
    let (arguments, graph) = (run.arguments, run.graph);
    let seeds = searches.seeds.as_deref().unwrap_or(&searches.sources[..1]);
    let outcome = match searches.seeds {
        Some(_) => searcher.search_seeds(graph, seeds, run.depth_limit)?,
        None => {
            let mut only = None;
            searcher.for_each(graph, seeds, run.depth_limit, &mut |outcome| {
                only = Some(outcome);
                Ok(())
            })?;
            only.context("the search gave no result")?
        }
    };
    phases.end(Phase::Search);
    phases.move_time(Phase::Search, Phase::Download, outcome.download);
    let result = &outcome.result;
    let mut report = Report::new(
        run.graph_source.name(),
        graph,
        searcher.device(),
        searcher.variant(),
        result,
        run.load_time,
        outcome.elapsed,
        searcher.device_bytes(),
        &outcome.steps,
    )
    .with_work(outcome.work);
    report.plan = Some(searcher.plan_line(graph));
    if arguments.verify {
        Verifier::with_depth_limit(run.depth_limit).check_seeds(graph, result, seeds)?;
        report.verified = Some(true);
        phases.end(Phase::Verify);
    }
    print_summary(&report);
    if let Some(seeds) = &searches.seeds {
        let seeds: Vec<String> = seeds.iter().map(u32::to_string).collect();
        println!(
            "seeds:     {} (distances to the nearest; parents a forest)",
            seeds.join(", ")
        );
    }
    if let Some(limit) = run.depth_limit {
        println!("limit:     levels past {limit} unreached");
    }
    if arguments.verify {
        println!("verify:    pass (distances equal the CPU reference; Graph500 rules hold)");
    }
    if arguments.trace {
        print_trace(&report);
    }
    if let Some(target) = searches.target {
        print_path(result, target);
    }
    if let Some(path) = &arguments.output {
        output::write_per_vertex(path, &result.levels).context("writing --output")?;
    }
    if let Some(path) = &arguments.parents {
        let parents = result
            .parents
            .as_ref()
            .context("this search recorded no parents")?;
        output::write_per_vertex(path, parents).context("writing --parents")?;
    }
    if let Some(path) = &arguments.plot {
        plot::frontier_sizes(&report, path).context("writing --plot")?;
    }
    report.kernel_code.clone_from(&run.kernel_code);
    report.startup = run.startup;
    Ok(match arguments.json {
        Some(_) => serde_json::to_value(&report)?,
        None => serde_json::Value::Null,
    })
}

/// The search's summary: device, graph, source, levels, time and rate.
fn print_summary(report: &Report) {
    match (&report.variant, report.device_bytes) {
        (Some(variant), Some(bytes)) => {
            println!(
                "device:    {} (GPU, variant {variant}, {bytes} bytes of device memory)",
                report.device
            )
        }
        _ => println!("device:    {}", report.device),
    }
    println!(
        "graph:     {}: {} vertices, {} edges (directed CSR entries), loaded in {:.3} s",
        report.graph, report.vertices, report.edges, report.load_seconds
    );
    println!("source:    {}", report.source);
    println!("levels:    {}", report.levels);
    println!(
        "reached:   {} of {} vertices",
        report.reached, report.vertices
    );
    println!("bfs time:  {:.3} ms", report.bfs_milliseconds);
    if let (Some(work), Some(overhead)) = (report.work, report.work_overhead) {
        let partitions = if work.partition_searches > 0 {
            format!(
                "{} partition searches of {} levels in all; ",
                work.partition_searches, work.levels_searched
            )
        } else {
            String::new()
        };
        println!(
            "work:      {} barriers for {} levels; {partitions}\
             {overhead:.3}× the edges of a level-synchronous search",
            work.barriers, report.levels
        );
    }
    println!(
        "GTEPS:     {:.4} ({} edges traversed: out-degrees of reached vertices)",
        report.gteps, report.edges_traversed
    );
    if let (Some(gteps), Some(edges)) = (report.graph500_gteps, report.input_edges_traversed) {
        println!("Graph500:  {gteps:.4} GTEPS ({edges} input edge tuples in the component)");
    }
}

/// `--trace`'s table: each level's frontier, edges, time and step.
fn print_trace(report: &Report) {
    println!(
        "{:>7} {:>12} {:>14} {:>10}  step",
        "level", "frontier", "edges", "ms"
    );
    for level in &report.trace {
        let time = level
            .milliseconds
            .map_or("-".into(), |milliseconds| format!("{milliseconds:.4}"));
        let step = match (level.step_levels, level.on_cpu) {
            (Some(levels), Some(on_cpu)) => {
                format!(
                    "{} {levels} level{}",
                    if on_cpu { "CPU" } else { "GPU" },
                    if levels == 1 { "" } else { "s" }
                )
            }
            _ => String::new(),
        };
        let direction = level
            .direction
            .map_or(String::new(), |direction| format!(", {direction}"));
        let exchange = match (level.exchange_milliseconds, level.exchange_megabytes) {
            (Some(milliseconds), Some(megabytes)) => {
                let rounds = match level.exchange_rounds {
                    Some(rounds) if rounds > 1 => format!(", {rounds} rounds"),
                    _ => String::new(),
                };
                format!(", exchange {milliseconds:.4} ms, {megabytes:.3} MB a GPU{rounds}")
            }
            _ => String::new(),
        };
        println!(
            "{:>7} {:>12} {:>14} {:>10}  {step}{direction}{exchange}",
            level.level, level.frontier, level.edges, time
        );
    }
}

/// `--target`: the tree path from the source (the nearest seed), by
/// walking parents back to a vertex that is its own.
fn print_path(result: &Bfs, target: u32) {
    let Some(parents) = &result.parents else {
        return;
    };
    if result.levels[target as usize] == UNREACHED {
        println!(
            "path:      vertex {target} is not reachable from {}",
            result.source
        );
        return;
    }
    let mut path = vec![target];
    while let Some(&last) = path.last()
        && parents[last as usize] != last
    {
        path.push(parents[last as usize]);
    }
    path.reverse();
    let hops: Vec<String> = path.iter().map(u32::to_string).collect();
    println!(
        "path:      {} ({} edges)",
        hops.join(" -> "),
        path.len() - 1
    );
}
