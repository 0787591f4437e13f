//! The GPU's rows of `bench --many`: its batches (counts only, every
//! distance kept, and a batch of 64), `auto` one source at a time as
//! `bfs --sources --one-by-one` runs it, and exact closeness from every
//! vertex on one GPU and on two.

use std::time::{Duration, Instant};

use super::{
    CHECKED, Kind, Reference, Row, SMALL_BATCH, Setup, Validation, closeness, distances_checked,
    time_batches,
};
use bfs::Result;
use bfs::gpu::{Gpu, STAGING_HALF_BYTES, Search, Variant, Workload};
use bfs::graph::prepared::Preparations;
use bfs::many::{self, GpuMethod, Keep, Limits, ManySources};

/// The GPU's rows, each handed to `emit`; returns the batch's counts of
/// every source (for the CPU rows to be checked against), where it ran.
pub(super) fn rows(
    setup: &Setup,
    gpu: &Gpu,
    reference: &Reference<'_>,
    emit: &mut dyn FnMut(Row) -> Result<()>,
) -> Result<Option<many::BatchCounts>> {
    let (chosen, _) = many::gpu_method(reference.graph, setup.sources);
    // `auto`'s method first, then bit-parallel batches beside it.
    let mut counts = batched_rows(gpu, reference, chosen, emit)?;
    if chosen != GpuMethod::BitParallel {
        let beside = batched_rows(gpu, reference, GpuMethod::BitParallel, emit)?;
        counts = counts.or(beside);
    }
    if reference.sources.len() > SMALL_BATCH {
        emit(small_batch_row(gpu, reference, chosen))?;
    }
    emit(one_by_one_row(setup, gpu, reference))?;
    let (row, searched) = closeness::one_gpu(setup, gpu, reference);
    emit(row)?;
    emit(closeness::two_gpus(
        reference,
        searched.as_ref(),
        setup.seed,
    ))?;
    Ok(counts)
}

/// What a GPU method's rows call it, for batches of `width` sources.
fn method_name(method: GpuMethod, width: usize) -> String {
    match method {
        GpuMethod::BitParallel => format!("GPU, batches of {width} sources (MS-BFS)"),
        GpuMethod::HierarchyTrees => format!(
            "GPU, batches of {width} sources, a tree each in a contraction hierarchy's sweeps \
             (PHAST)"
        ),
    }
}

/// `method`'s batches, counts only and then with every distance; returns
/// the counts of every source, where they ran.
fn batched_rows(
    gpu: &Gpu,
    reference: &Reference<'_>,
    method: GpuMethod,
    emit: &mut dyn FnMut(Row) -> Result<()>,
) -> Result<Option<many::BatchCounts>> {
    let (name, sources) = (&reference.name, &reference.sources);
    let built = Instant::now();
    let engine = method.engine(gpu, reference.graph, sources.len());
    let built = built.elapsed().as_secs_f64();
    let width = engine
        .as_ref()
        .map_or(sources.len(), |engine| engine.batch_width());
    let mut label = method_name(method, width);
    if method == GpuMethod::HierarchyTrees {
        label = format!("{label} (built in {built:.2} s, not counted)");
    }
    eprintln!("bench: many: {name}: {label}");
    let row = Row::new(name, Kind::Batched, &label, sources.len());
    let mut engine = match engine {
        Ok(engine) => engine,
        Err(error) => {
            emit(row.not_run(&error))?;
            return Ok(None);
        }
    };
    let mut counts = None;
    let batched = time_batches(engine.as_mut(), sources, width, Duration::MAX);
    emit(match batched {
        Ok(timed) => {
            let checked = reference.check_counts(&timed.counts);
            counts = Some(timed.counts);
            row.measured(timed.seconds, checked)
        }
        Err(error) => row.not_run(&error),
    })?;
    emit(distances_row(gpu, engine.as_mut(), reference, &label))?;
    Ok(counts)
}

/// The batches with every source's distances copied to the host (what
/// `bfs --sources --output FILE.npy` keeps), where host and device hold
/// them; every vertex's distance from the checked sources compared.
fn distances_row(
    gpu: &Gpu,
    engine: &mut dyn ManySources,
    reference: &Reference<'_>,
    method: &str,
) -> Row {
    let (name, sources) = (&reference.name, &reference.sources);
    let method = format!("{method}, every distance to the host");
    let row = Row::new(name, Kind::Distances, &method, sources.len());
    let n = reference.graph.vertex_count() as usize;
    let bytes = 4 * (sources.len() * n) as u64;
    let fits = bfs::graph::check_host_memory(bytes, "the distances").and_then(|()| {
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
        return row.not_run(Validation::Skipped(why));
    }
    // The device's staging grows to its full size on the first copy that
    // fills it, once in a process, as the GPU's start-up is: an untimed
    // batch of that many rows makes it.
    let warm_up = sources.len().min(STAGING_HALF_BYTES.div_ceil(4 * n.max(1)));
    let mut rows = vec![0; warm_up * n];
    if let Err(error) = engine.search_batch(
        &sources[..warm_up],
        Limits::default(),
        Keep::Distances(&mut rows),
    ) {
        return row.not_run(&error);
    }
    drop(rows);
    let (mut seconds, mut first, mut wrong) = (0.0, 0, None);
    let searched = many::with_distances(
        engine,
        (reference.graph.vertex_count(), sources.len()),
        sources,
        Limits::default(),
        &mut |batch| -> Result<()> {
            seconds += batch.elapsed.as_secs_f64();
            for (index, distances) in batch.rows.chunks(n.max(1)).enumerate() {
                if wrong.is_none() {
                    wrong = reference.check_row(first + index, distances).err();
                }
            }
            first += batch.sources.len();
            Ok(())
        },
    );
    match searched {
        Ok(()) => row.measured(
            seconds,
            distances_checked(CHECKED.min(sources.len()), wrong),
        ),
        Err(error) => row.not_run(&error),
    }
}

/// A batch of the first [`SMALL_BATCH`] sources, on an engine of their width.
fn small_batch_row(gpu: &Gpu, reference: &Reference<'_>, chosen: GpuMethod) -> Row {
    let method = match chosen {
        GpuMethod::BitParallel => format!("GPU, one batch of {SMALL_BATCH} sources"),
        GpuMethod::HierarchyTrees => {
            format!("GPU, one batch of {SMALL_BATCH} sources, a contraction hierarchy's trees")
        }
    };
    let sources = &reference.sources[..SMALL_BATCH];
    let row = Row::new(&reference.name, Kind::SmallBatch, &method, SMALL_BATCH);
    let timed = chosen
        .engine(gpu, reference.graph, SMALL_BATCH)
        .and_then(|mut engine| time_batches(engine.as_mut(), sources, SMALL_BATCH, Duration::MAX));
    match timed {
        Ok(timed) => row.measured(timed.seconds, reference.check_counts(&timed.counts)),
        Err(error) => row.not_run(&error),
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
    let plan = bfs::gpu::plan(graph, gpu.cooperative_launch(), workload);
    let mut method = format!(
        "GPU, one source at a time: auto took {}",
        plan.strategy.name()
    );
    eprintln!("bench: many: {name}: {method}");
    let started = Instant::now();
    let mut search = match Search::prepared(gpu, graph, Variant::Auto, Some(plan.strategy), None) {
        Ok(search) => search,
        Err(error) => {
            return Row::new(name, Kind::OneByOneAuto, &method, sources.len()).not_run(&error);
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
                wrong = bfs::validate::same_levels(&run.result, checked)
                    .err()
                    .map(|error| format!("source {source}: {error}"));
            }
            // At least a small batch's worth, for the target that compares them.
            if wall.elapsed() > setup.row_budget && timed >= SMALL_BATCH.max(CHECKED) {
                break;
            }
        }
        Ok((seconds, first_small_batch, timed, wrong))
    })();
    let row = Row::new(name, Kind::OneByOneAuto, &method, sources.len());
    match outcome {
        Ok((seconds, first_small_batch, timed, wrong)) => Row {
            timed,
            first_small_batch,
            ..row.measured(seconds, distances_checked(CHECKED.min(timed), wrong))
        },
        Err(error) => row.not_run(&error),
    }
}
