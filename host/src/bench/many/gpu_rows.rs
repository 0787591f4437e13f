//! The GPU's rows of `bench --many`: its batches (counts only, every
//! distance kept, and a batch of 64), `auto` one source at a time as
//! `bfs --sources` runs today, and exact closeness from every vertex.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::{
    CHECKED, Kind, Reference, Row, SMALL_BATCH, Setup, Validation, error_validation, time_batches,
    validation,
};
use crate::abi::many_sources::words_for;
use crate::gpu::{Gpu, Search, Variant, Workload};
use crate::graph::generate::sample_vertices;
use crate::graph::prepared::Preparations;
use crate::many::centrality::{self, Sources};
use crate::many::gpu::GpuBatches;
use crate::many::{self, Limits, ManySources, Reduced};
use crate::{Csr, Result, UNREACHED, cpu};

/// Relative difference within which closeness equals the reference's.
const RELATIVE: f64 = 1e-12;

/// The GPU's rows, each handed to `emit`; returns the batch's counts of
/// every source (for the CPU rows to be checked against), where it ran.
pub(super) fn rows(
    setup: &Setup,
    gpu: &Gpu,
    reference: &Reference<'_>,
    emit: &mut dyn FnMut(Row) -> Result<()>,
) -> Result<Option<many::BatchCounts>> {
    let (name, sources) = (&reference.name, &reference.sources);
    let words = words_for(u32::try_from(sources.len()).unwrap_or(u32::MAX));
    let method = format!("GPU, batches of {} sources (MS-BFS)", 32 * words);
    eprintln!("bench: many: {name}: {method}");
    let mut counts = None;
    match GpuBatches::new(gpu, reference.graph, words) {
        Ok(mut engine) => {
            let batched = time_batches(&mut engine, sources, sources.len(), Duration::MAX);
            emit(match batched {
                Ok(timed) => {
                    let row = Row {
                        validated: validation(reference.check_counts(&timed.counts).map(
                            |checked| {
                                format!("{checked} sources' vertices by distance = the reference's")
                            },
                        )),
                        ..counted_row(name, Kind::Batched, &method, sources.len(), timed.seconds)
                    };
                    counts = Some(timed.counts);
                    row
                }
                Err(error) => Row::not_run(
                    name,
                    Kind::Batched,
                    &method,
                    sources.len(),
                    error_validation(&error),
                ),
            })?;
            emit(distances_row(gpu, &mut engine, reference, &method))?;
        }
        Err(error) => {
            let why = error_validation(&error);
            emit(Row::not_run(
                name,
                Kind::Batched,
                &method,
                sources.len(),
                why,
            ))?;
        }
    }
    if sources.len() > SMALL_BATCH {
        emit(small_batch_row(gpu, reference))?;
    }
    emit(one_by_one_row(setup, gpu, reference))?;
    emit(closeness_row(setup, gpu, reference))?;
    Ok(counts)
}

/// A row that timed `sources` sources in `seconds`, not yet checked.
fn counted_row(name: &str, kind: Kind, method: &str, sources: usize, seconds: f64) -> Row {
    Row {
        timed: sources,
        seconds,
        ..Row::not_run(
            name,
            kind,
            method,
            sources,
            Validation::Skipped(String::new()),
        )
    }
}

/// The batches with every source's distances copied to the host (what
/// `bfs --sources --output FILE.npy` keeps), where host and device hold
/// them; every vertex's distance from the checked sources compared.
fn distances_row(
    gpu: &Gpu,
    engine: &mut GpuBatches<'_>,
    reference: &Reference<'_>,
    method: &str,
) -> Row {
    let (name, sources) = (&reference.name, &reference.sources);
    let method = format!("{method}, every distance to the host");
    let n = reference.graph.vertex_count() as usize;
    let bytes = 4 * (sources.len() * n) as u64;
    let fits = crate::graph::check_host_memory(bytes, "the distances").and_then(|()| {
        match gpu.free_memory() {
            Ok(free) if free > bytes => Ok(()),
            Ok(free) => Err(format!(
                "the distances need {} MB of device memory, {} MB are free",
                bytes / 1_000_000,
                free / 1_000_000
            )),
            Err(error) => Err(error.to_string()),
        }
    });
    if let Err(why) = fits {
        return Row::not_run(
            name,
            Kind::Distances,
            &method,
            sources.len(),
            Validation::Skipped(why),
        );
    }
    let (mut seconds, mut first, mut wrong) = (0.0, 0, None);
    let vertex_count = reference.graph.vertex_count();
    let searched = many::with_distances(
        engine,
        (vertex_count, sources.len()),
        sources,
        Limits::default(),
        &mut |batch| -> Result<()> {
            seconds += batch.elapsed.as_secs_f64();
            for (index, row) in batch.rows.chunks(n.max(1)).enumerate() {
                if wrong.is_none() {
                    wrong = reference.check_row(first + index, row).err();
                }
            }
            first += batch.sources.len();
            Ok(())
        },
    );
    match searched {
        Ok(()) => Row {
            validated: validation(match wrong {
                None => Ok(format!(
                    "every vertex's distance from {} sources = the reference's",
                    CHECKED.min(sources.len())
                )),
                Some(why) => Err(why),
            }),
            ..counted_row(name, Kind::Distances, &method, sources.len(), seconds)
        },
        Err(error) => Row::not_run(
            name,
            Kind::Distances,
            &method,
            sources.len(),
            error_validation(&error),
        ),
    }
}

/// A batch of the first [`SMALL_BATCH`] sources, on an engine of their width.
fn small_batch_row(gpu: &Gpu, reference: &Reference<'_>) -> Row {
    let name = &reference.name;
    let method = format!("GPU, one batch of {SMALL_BATCH} sources");
    let sources = &reference.sources[..SMALL_BATCH];
    let timed = GpuBatches::new(gpu, reference.graph, words_for(SMALL_BATCH as u32))
        .and_then(|mut engine| time_batches(&mut engine, sources, SMALL_BATCH, Duration::MAX));
    match timed {
        Ok(timed) => Row {
            validated: validation(reference.check_counts(&timed.counts).map(|checked| {
                format!("{checked} sources' vertices by distance = the reference's")
            })),
            ..counted_row(name, Kind::SmallBatch, &method, SMALL_BATCH, timed.seconds)
        },
        Err(error) => Row::not_run(
            name,
            Kind::SmallBatch,
            &method,
            SMALL_BATCH,
            error_validation(&error),
        ),
    }
}

/// `auto` one source at a time, planned for the run's searches as `bfs
/// --sources` plans it (its preparation built first, not timed); each
/// search's device time, as `bfs --sources` reports it.
fn one_by_one_row(setup: &Setup, gpu: &Gpu, reference: &Reference<'_>) -> Row {
    let (name, sources) = (&reference.name, &reference.sources);
    let graph = reference.graph;
    let prepared = Preparations::none();
    let workload = Workload {
        searches: sources.len(),
        prepared: &prepared,
    };
    let plan = crate::gpu::plan(graph, gpu.cooperative_launch(), workload);
    let mut method = format!(
        "GPU, one source at a time: auto took {}",
        plan.strategy.name()
    );
    eprintln!("bench: many: {name}: {method}");
    let started = Instant::now();
    let mut search = match Search::prepared(gpu, graph, Variant::Auto, Some(plan.strategy), None) {
        Ok(search) => search,
        Err(error) => {
            return Row::not_run(
                name,
                Kind::OneByOneAuto,
                &method,
                sources.len(),
                error_validation(&error),
            );
        }
    };
    if plan.strategy.needs().is_some() {
        let seconds = started.elapsed().as_secs_f64();
        method = format!("{method} (built in {seconds:.2} s, not counted)");
    }
    let outcome = (|| -> Result<(f64, Option<f64>, usize, Option<String>)> {
        search.run(sources[0])?;
        let wall = Instant::now();
        let (mut seconds, mut first_small_batch, mut wrong) = (0.0, None, None);
        let mut timed = 0;
        for (index, &source) in sources.iter().enumerate() {
            let run = search.run(source)?;
            seconds += run.elapsed.as_secs_f64();
            timed += 1;
            if timed == SMALL_BATCH {
                first_small_batch = Some(seconds);
            }
            if let Some(checked) = reference.checked.get(index)
                && wrong.is_none()
            {
                wrong = crate::validate::same_levels(&run.result, checked)
                    .err()
                    .map(|error| format!("source {source}: {error}"));
            }
            if wall.elapsed() > setup.row_budget && timed >= CHECKED {
                break;
            }
        }
        Ok((seconds, first_small_batch, timed, wrong))
    })();
    match outcome {
        Ok((seconds, first_small_batch, timed, wrong)) => Row {
            timed,
            first_small_batch,
            validated: validation(match wrong {
                None => Ok(format!(
                    "every vertex's distance from {} sources = the reference's",
                    CHECKED.min(timed)
                )),
                Some(why) => Err(why),
            }),
            ..counted_row(name, Kind::OneByOneAuto, &method, sources.len(), seconds)
        },
        Err(error) => Row::not_run(
            name,
            Kind::OneByOneAuto,
            &method,
            sources.len(),
            error_validation(&error),
        ),
    }
}

/// Closeness from every vertex (the batches of `bfs centrality --measure
/// closeness --sources all`), its search time; where the first batch
/// says every batch would take longer than four row budgets, as many
/// batches as fit in them, scaled. Checked: every vertex's closeness
/// against the reference's searches from a sample of vertices (to
/// [`RELATIVE`]); a partial run, each sampled source's reach and sum of
/// distances.
fn closeness_row(setup: &Setup, gpu: &Gpu, reference: &Reference<'_>) -> Row {
    let (name, graph) = (&reference.name, reference.graph);
    let n = graph.vertex_count();
    let method = "GPU, exact closeness from every vertex (bfs centrality)";
    eprintln!("bench: many: {name}: {method}");
    let outcome = (|| -> Result<(Reduced, Vec<u32>)> {
        let mut engine = GpuBatches::new(gpu, graph, words_for(n))?;
        let width = engine.batch_width();
        let all = many::all_sources(graph, width);
        let totals = !graph.is_symmetric();
        let first = many::run(
            &mut engine,
            n,
            &all[..width.min(all.len())],
            Limits::default(),
            totals,
        )?;
        let budget = 4.0 * setup.row_budget.as_secs_f64();
        let batches = all.len().div_ceil(width);
        let fitting = (budget / first.elapsed.as_secs_f64().max(1e-9)) as usize;
        let take = (fitting.clamp(1, batches) * width).min(all.len());
        let reduced = many::run(&mut engine, n, &all[..take], Limits::default(), totals)?;
        Ok((reduced, all[..take].to_vec()))
    })();
    let (reduced, searched) = match outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            return Row::not_run(
                name,
                Kind::Closeness,
                method,
                n as usize,
                error_validation(&error),
            );
        }
    };
    let checked = match searched.len() == n as usize {
        true => check_closeness(graph, &reduced, &searched, setup.seed),
        false => check_sums(graph, &reduced, &searched),
    };
    Row {
        timed: searched.len(),
        validated: validation(checked),
        ..counted_row(
            name,
            Kind::Closeness,
            method,
            n as usize,
            reduced.elapsed.as_secs_f64(),
        )
    }
}

/// Every vertex's closeness from a run over all of them, as `bfs
/// centrality` computes it, against the reference's searches from
/// [`CHECKED`] sampled vertices (on a directed graph, over its reverse:
/// closeness counts the distances to a vertex).
fn check_closeness(
    graph: &Csr,
    reduced: &Reduced,
    all: &[u32],
    seed: u64,
) -> Result<String, String> {
    let sources = Sources::All(all.to_vec());
    let closeness = match &reduced.totals {
        Some(totals) => centrality::closeness(totals, &sources),
        None => centrality::closeness(&centrality::own_totals(reduced, all), &sources),
    };
    let reversed = graph.reversed();
    let searched = reversed.as_ref().unwrap_or(graph);
    let others = graph.vertex_count().saturating_sub(1) as f64;
    let sample = sample_vertices(graph, CHECKED, seed);
    let expected: Vec<f64> = sample
        .par_iter()
        .map(|&vertex| {
            let levels = cpu::bfs(searched, vertex).levels;
            let (mut reached, mut sum) = (0u64, 0u64);
            for &level in levels
                .iter()
                .filter(|&&level| level != UNREACHED && level > 0)
            {
                reached += 1;
                sum += level as u64;
            }
            match sum {
                0 => 0.0,
                _ => (reached as f64 / sum as f64) * (reached as f64 / others),
            }
        })
        .collect();
    for (&vertex, &expected) in sample.iter().zip(&expected) {
        let got = closeness[vertex as usize];
        if (got - expected).abs() > RELATIVE * got.abs().max(expected.abs()) {
            return Err(format!(
                "vertex {vertex}'s closeness is {got}, the reference's {expected}"
            ));
        }
    }
    Ok(format!(
        "{} vertices' closeness = the reference's, to 1e-12",
        sample.len()
    ))
}

/// A partial run's sources, [`CHECKED`] of them spread over it: each
/// one's reach, sum of distances and eccentricity against the reference's.
fn check_sums(graph: &Csr, reduced: &Reduced, searched: &[u32]) -> Result<String, String> {
    let step = searched.len().div_ceil(CHECKED).max(1);
    let indices: Vec<usize> = (0..searched.len()).step_by(step).collect();
    let expected: Vec<(u32, u64, u32)> = indices
        .par_iter()
        .map(|&index| {
            let levels = cpu::bfs(graph, searched[index]).levels;
            let reached = levels.iter().filter(|&&level| level != UNREACHED);
            (
                reached.clone().count() as u32,
                reached.clone().map(|&level| level as u64).sum::<u64>(),
                reached.max().copied().unwrap_or(0),
            )
        })
        .collect();
    for (&index, &expected) in indices.iter().zip(&expected) {
        let got = (
            reduced.reached[index],
            reduced.distance_sums[index],
            reduced.eccentricities[index],
        );
        if got != expected {
            return Err(format!(
                "source {}: (reached, distance sum, eccentricity) {got:?}, the reference's {expected:?}",
                searched[index]
            ));
        }
    }
    let checked = indices.len();
    Ok(format!(
        "{checked} searched vertices' reach and distance sums = the reference's (a sample of the sources: closeness needs them all)"
    ))
}
