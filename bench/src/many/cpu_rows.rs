//! The CPU engine's rows of `bench --many`: its batches by the method it
//! takes for the graph (bit-parallel where a search has few levels, a
//! source a thread where it has many), and one source at a time, on
//! [`Setup::threads`] threads (run inside a rayon pool of that many).

use super::{Kind, Reference, Row, Setup, Timed, time_batches};
use bfs::Result;
use bfs::many::{self, BatchCounts, CpuMethod, OneByOne};

/// Sources a thread takes in each timed chunk of a source-a-thread run,
/// and in all in each chunk of a run one at a time: small enough that a
/// sampled row stops soon after its budget.
const CHUNK_PER_THREAD: usize = 2;

/// Sources of a chunk one at a time.
const ONE_BY_ONE_CHUNK: usize = 8;

/// The CPU rows, every source's counts checked against the GPU's
/// (`gpu_counts`) where it ran, and the seconds a source took one at a
/// time (for the peers' sample sizes).
pub(super) fn rows(
    setup: &Setup,
    reference: &Reference<'_>,
    gpu_counts: Option<&BatchCounts>,
) -> (Vec<Row>, Option<f64>) {
    let (name, sources, graph) = (&reference.name, &reference.sources, reference.graph);
    let threads = setup.threads;
    let (method, reason) = many::cpu_method(graph);
    let engine = method.engine(graph, many::words_for(sources.len()), Some(threads));
    let (label, chunk) = match method {
        CpuMethod::BitParallel => {
            let width = engine.as_ref().map_or(0, |engine| engine.batch_width());
            (format!("bit-parallel, {width} sources a batch"), width)
        }
        CpuMethod::SourceParallel => ("a source a thread".to_string(), CHUNK_PER_THREAD * threads),
        CpuMethod::Chains => (
            "a source a thread over the contracted chains".to_string(),
            CHUNK_PER_THREAD * threads,
        ),
    };
    let batched = format!("CPU engine, {threads} threads, {label} (auto: {reason})");
    eprintln!("bench: many: {name}: {batched}");
    let batched = timed_row(
        reference,
        Kind::CpuBatched,
        &batched,
        engine
            .and_then(|mut engine| time_batches(engine.as_mut(), sources, chunk, setup.row_budget)),
        gpu_counts,
    );
    let single = format!("CPU engine, {threads} threads, one source at a time");
    eprintln!("bench: many: {name}: {single}");
    let timed = OneByOne::new(graph, Some(threads)).and_then(|mut engine| {
        time_batches(&mut engine, sources, ONE_BY_ONE_CHUNK, setup.row_budget)
    });
    let single = timed_row(reference, Kind::CpuOneByOne, &single, timed, gpu_counts);
    let per_source = (single.timed > 0).then(|| single.per_source());
    (vec![batched, single], per_source)
}

/// A row of `timed`: its first sources' counts checked against the
/// reference's, and every timed source's against the GPU's batch.
fn timed_row(
    reference: &Reference<'_>,
    kind: Kind,
    method: &str,
    timed: Result<Timed>,
    gpu_counts: Option<&BatchCounts>,
) -> Row {
    let row = Row::new(&reference.name, kind, method, reference.sources.len());
    let timed = match timed {
        Ok(timed) => timed,
        Err(error) => return row.not_run(&error),
    };
    let checked = reference.check_counts(&timed.counts).and_then(|mut how| {
        if let Some(gpu) = gpu_counts {
            match timed
                .counts
                .iter()
                .zip(gpu)
                .position(|(cpu, gpu)| cpu != gpu)
            {
                Some(index) => {
                    return Err(format!(
                        "source {}'s vertices by distance differ from the GPU batch's",
                        reference.sources[index]
                    ));
                }
                None => how = format!("{how}; all {} = the GPU batch's", timed.counts.len()),
            }
        }
        Ok(how)
    });
    Row {
        timed: timed.counts.len(),
        first_small_batch: timed.first_small_batch,
        ..row.measured(timed.seconds, checked)
    }
}
