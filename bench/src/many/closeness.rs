//! The closeness rows of `bench --many`: exact closeness from every
//! vertex on one GPU (the batches of `bfs centrality --measure closeness
//! --sources all`), and the same sources shared by two GPUs (`bfs
//! centrality --gpus 2`, [`bfs::many::gpus`]), each checked against the
//! CPU reference's searches.

use rayon::prelude::*;

use super::{CHECKED, CLOSENESS_BUDGETS, Kind, Reference, Row, Setup, Validation};
use bfs::gpu::Gpu;
use bfs::graph::generate::sample_vertices;
use bfs::many::centrality::{self, Sources};
use bfs::many::{self, Limits, Reduced, VertexTotals};
use bfs::{Csr, Result, UNREACHED, cpu};

/// Relative difference within which closeness equals the reference's.
const RELATIVE: f64 = 1e-12;

/// GPUs that share the batches in the second row.
const SHARING_GPUS: u32 = 2;

/// What a closeness run searched: its reductions and its sources.
pub(super) type Searched = (Reduced, Vec<u32>);

/// Closeness from every vertex on one GPU, its search time; where the
/// first batch says every batch would take longer than
/// [`CLOSENESS_BUDGETS`] row budgets, as many batches as fit in them,
/// scaled. Checked: every vertex's closeness against the reference's
/// searches from a sample of vertices (to [`RELATIVE`]); a partial run,
/// each sampled source's reach and sum of distances. Returns the row, and
/// what it searched for the next row to repeat.
pub(super) fn one_gpu(
    setup: &Setup,
    gpu: &Gpu,
    reference: &Reference<'_>,
) -> (Row, Option<Searched>) {
    let (name, graph) = (&reference.name, reference.graph);
    let n = graph.vertex_count();
    let method = "GPU, exact closeness from every vertex (bfs centrality)";
    eprintln!("bench: many: {name}: {method}");
    let row = Row::new(name, Kind::Closeness, method, n as usize);
    let outcome = (|| -> Result<Searched> {
        let (method, _) = many::gpu_method(graph, n as usize);
        let mut engine = method.engine(gpu, graph, n as usize)?;
        let engine = engine.as_mut();
        let width = engine.batch_width();
        let all = many::all_sources(graph, width);
        let totals = !graph.is_symmetric();
        let first = many::run(
            engine,
            n,
            &all[..width.min(all.len())],
            Limits::default(),
            totals,
        )?;
        let budget = CLOSENESS_BUDGETS * setup.row_budget.as_secs_f64();
        let batches = all.len().div_ceil(width);
        let fitting = (budget / first.elapsed.as_secs_f64().max(1e-9)) as usize;
        let take = (fitting.clamp(1, batches) * width).min(all.len());
        let reduced = many::run(engine, n, &all[..take], Limits::default(), totals)?;
        Ok((reduced, all[..take].to_vec()))
    })();
    let (reduced, searched) = match outcome {
        Ok(outcome) => outcome,
        Err(error) => return (row.not_run(&error), None),
    };
    let checked = check(graph, &reduced, &searched, setup.seed);
    let row = Row {
        timed: searched.len(),
        ..row.measured(reduced.elapsed.as_secs_f64(), checked)
    };
    (row, Some((reduced, searched)))
}

/// The one-GPU row's sources shared by [`SHARING_GPUS`] GPUs, where the
/// host has them: each source's reach, distance sum and eccentricity
/// equal to the one GPU's, and the closeness checked as there.
pub(super) fn two_gpus(reference: &Reference<'_>, one_gpu: Option<&Searched>, seed: u64) -> Row {
    let (name, graph) = (&reference.name, reference.graph);
    let n = graph.vertex_count() as usize;
    let method = format!(
        "{SHARING_GPUS} GPUs sharing the closeness batches (bfs centrality --gpus {SHARING_GPUS})"
    );
    let row = Row::new(name, Kind::TwoGpus, &method, n);
    let skipped = |why: String| row.clone().not_run(Validation::Skipped(why));
    let Some((one, searched)) = one_gpu else {
        return skipped("the one-GPU row did not run".into());
    };
    match Gpu::device_count() {
        Ok(count) if count >= SHARING_GPUS => {}
        Ok(count) => {
            return skipped(format!(
                "this host has {count} GPU{}",
                if count == 1 { "" } else { "s" }
            ));
        }
        Err(error) => return skipped(error.to_string()),
    }
    eprintln!("bench: many: {name}: {method}");
    let totals = !graph.is_symmetric();
    let reduced = match many::gpus::run_on_gpus(
        graph,
        SHARING_GPUS,
        searched,
        (Limits::default(), totals),
        (many::gpu_method(graph, n).0, None),
    ) {
        Ok(reduced) => reduced,
        Err(error) => return row.not_run(&error),
    };
    let same = reduced.reached == one.reached
        && reduced.distance_sums == one.distance_sums
        && reduced.eccentricities == one.eccentricities
        && same_totals(reduced.totals.as_ref(), one.totals.as_ref());
    let checked = match same {
        true => check(graph, &reduced, searched, seed)
            .map(|how| format!("every source's sums = one GPU's; {how}")),
        false => Err("the sources' sums differ from one GPU's".into()),
    };
    Row {
        timed: searched.len(),
        ..row.measured(reduced.elapsed.as_secs_f64(), checked)
    }
}

/// Whether two runs' per-vertex totals agree: the counts, sums and
/// greatest distances exactly, the sums of reciprocals (added in another
/// order over GPUs) to [`RELATIVE`].
fn same_totals(ours: Option<&VertexTotals>, theirs: Option<&VertexTotals>) -> bool {
    match (ours, theirs) {
        (None, None) => true,
        (Some(ours), Some(theirs)) => {
            ours.reached_by == theirs.reached_by
                && ours.distance_sums == theirs.distance_sums
                && ours.farthest == theirs.farthest
                && ours.reciprocal_sums.len() == theirs.reciprocal_sums.len()
                && (ours.reciprocal_sums.iter().zip(&theirs.reciprocal_sums))
                    .all(|(a, b)| (a - b).abs() <= RELATIVE * a.abs().max(b.abs()))
        }
        _ => false,
    }
}

/// A run's check: every vertex's closeness where it searched from all
/// of them, else each sampled source's sums.
fn check(graph: &Csr, reduced: &Reduced, searched: &[u32], seed: u64) -> Result<String, String> {
    match searched.len() == graph.vertex_count() as usize {
        true => check_closeness(graph, reduced, searched, seed),
        false => check_sums(graph, reduced, searched),
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
