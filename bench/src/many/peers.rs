//! The peers of `bench --many`: gapbs's BFS in one process, a trial a
//! source of its own choosing, each verified by gapbs; scipy's
//! `shortest_path(unweighted=True)` in one call for a sample of the
//! sources; and networkx's `closeness_centrality` on small real graphs
//! (those networkx ships) beside `bfs centrality`'s, value by value.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::{CHECKED, Kind, Measured, Reference, Row, Setup, Validation, distances_checked};
use crate::gapbs::{self, Gapbs};
use crate::io_error;
use crate::roads::ScipyCsr;
use bfs::graph::GraphSource;
use bfs::many::centrality::{self, Sources};
use bfs::many::gpu::GpuBatches;
use bfs::many::{self, CpuBatches, Limits, ManySources};
use bfs::{Error, Result};

/// Most searches of a peer's sample.
const MOST_PEER_SOURCES: usize = 64;

/// Fewest trials gapbs runs.
const LEAST_GAPBS_TRIALS: usize = 8;

/// Bytes scipy's matrix of distances (float64) may take.
const SCIPY_MOST_BYTES: f64 = 2e9;

/// Timed runs of each closeness on the small graphs; the best is kept.
const CLOSENESS_RUNS: usize = 5;

/// Relative difference within which two closeness values are equal.
const RELATIVE: f64 = 1e-12;

/// The peers' rows of one graph, each handed to `emit`. `one_by_one`: the
/// CPU engine's seconds a source one at a time, which with the
/// reference's sizes gapbs's sample.
pub(super) fn rows(
    setup: &Setup,
    reference: &Reference<'_>,
    one_by_one: Option<f64>,
    emit: &mut dyn FnMut(Row) -> Result<()>,
) -> Result<()> {
    let skipped = |kind, method, why: &str| {
        Row::new(&reference.name, kind, method, reference.sources.len())
            .not_run(Validation::Skipped(why.into()))
    };
    emit(match &setup.gapbs {
        Some(folder) => gapbs_row(setup, folder, reference, one_by_one),
        None => skipped(Kind::Gapbs, "gapbs", "no --gapbs"),
    })?;
    emit(match &setup.python {
        Some(python) => scipy_row(setup, python, reference),
        None => skipped(Kind::Scipy, "scipy", "no --python"),
    })
}

/// gapbs in one process: as many trials (one more, untimed, first) as
/// the row's budget allows by the reference's time (gapbs's verifier is a
/// search of the same kind) and the engine's.
fn gapbs_row(
    setup: &Setup,
    folder: &Path,
    reference: &Reference<'_>,
    one_by_one: Option<f64>,
) -> Row {
    let each = reference.seconds_each + one_by_one.unwrap_or(0.0);
    let trials = ((setup.row_budget.as_secs_f64() / each.max(1e-6)) as usize)
        .clamp(LEAST_GAPBS_TRIALS, MOST_PEER_SOURCES);
    let threads = setup.threads;
    let method = format!(
        "gapbs, {threads} threads, one process: `-n {}` trials from its own random sources, the first untimed",
        trials + 1
    );
    eprintln!("bench: many: {}: {method}", reference.name);
    let outcome =
        Gapbs::convert(folder, reference.graph).and_then(|peer| peer.trials(threads, trials + 1));
    let row = Row::new(
        &reference.name,
        Kind::Gapbs,
        &method,
        reference.sources.len(),
    );
    match outcome {
        Ok((times, passed)) => {
            let seconds = times[1..].iter().map(Duration::as_secs_f64).sum();
            let checked = match passed == trials + 1 {
                true => Ok(format!(
                    "gapbs's verifier (`-v`): {passed} of {passed} trials pass"
                )),
                false => Err(format!(
                    "gapbs's verifier: {passed} of {} trials pass",
                    trials + 1
                )),
            };
            Row {
                timed: trials,
                ..row.measured(seconds, checked)
            }
        }
        Err(error) => row.not_run(peer_error(error)),
    }
}

/// A peer's failure to run (a missing program or module) leaves its row
/// out; a wrong answer is a failure.
fn peer_error(error: Error) -> Validation {
    match error {
        Error::Peer { .. } | Error::Io { .. } => Validation::Skipped(error.to_string()),
        error => Validation::from(&error),
    }
}

/// scipy's `shortest_path` in one call from the first source, then from
/// twice as many while the calls fit the row's budget and
/// [`SCIPY_MOST_BYTES`], or over all pairs where every vertex fits them,
/// timed around each call; prints the sources of the last call, its
/// seconds and `all` or `sample`, and writes the checked sources'
/// distances (`argv[6]`) for the reference to check.
const SCIPY: &str = r#"budget, rows, most = float(sys.argv[5]), sys.argv[6], float(sys.argv[8])
sources = [int(source) for source in sys.argv[4].split(',')]
checked = sources[:int(sys.argv[7])]
spent, count = 0.0, 1
while True:
    started = time.perf_counter()
    distances = csgraph.shortest_path(matrix, directed=True, unweighted=True, indices=sources[:count])
    took = time.perf_counter() - started
    spent += took
    if 8.0 * vertices * vertices <= most and spent + took / count * vertices <= budget:
        started = time.perf_counter()
        distances = csgraph.shortest_path(matrix, directed=True, unweighted=True)[checked]
        count, took, searched = vertices, time.perf_counter() - started, 'all'
        break
    more = min(2 * count, len(sources))
    if more == count or spent + 2 * took > budget or 8.0 * vertices * more > most:
        searched = 'sample'
        break
    count = more
print(count, took, searched, flush=True)
distances = distances[:len(checked)]
np.where(np.isinf(distances), -1, distances).astype('<i4').tofile(rows)
"#;

/// scipy's row, each distance of the checked sources it searched
/// compared with the reference's.
fn scipy_row(setup: &Setup, python: &Path, reference: &Reference<'_>) -> Row {
    let (name, graph) = (&reference.name, reference.graph);
    let sources = &reference.sources[..reference.sources.len().min(MOST_PEER_SOURCES)];
    let n = graph.vertex_count() as usize;
    let pairs_bytes = 8.0 * n as f64 * n as f64;
    let method = |all_pairs: bool| match all_pairs {
        true => {
            "scipy `shortest_path(unweighted=True)`, one thread, all pairs in one call".to_string()
        }
        false => format!(
            "scipy `shortest_path(unweighted=True)`, one thread, one call from a sample (all pairs: {:.1} GB of float64{})",
            pairs_bytes / 1e9,
            if pairs_bytes > SCIPY_MOST_BYTES {
                ", more than it may take"
            } else {
                ", longer than the row's budget"
            }
        ),
    };
    eprintln!("bench: many: {name}: scipy");
    let outcome = (|| -> Result<(usize, f64, bool, Vec<i32>)> {
        std::fs::create_dir_all(&setup.scratch).map_err(io_error(&setup.scratch))?;
        let files = ScipyCsr::write(graph, &setup.scratch)?;
        let rows = setup.scratch.join("scipy-rows.i32");
        let output = gapbs::run(
            files
                .command(python, SCIPY, graph.vertex_count(), sources)
                .arg(setup.row_budget.as_secs_f64().to_string())
                .arg(&rows)
                .arg(CHECKED.to_string())
                .arg(SCIPY_MOST_BYTES.to_string()),
        )?;
        let words = std::fs::read(&rows).map_err(io_error(&rows))?;
        let _ = std::fs::remove_file(&rows);
        let printed: Vec<&str> = output.split_whitespace().collect();
        match printed[..] {
            [count, seconds, searched] => Ok((
                count.parse().unwrap_or(0),
                seconds.parse().unwrap_or(f64::NAN),
                searched == "all",
                bytemuck::pod_collect_to_vec(&words),
            )),
            _ => Err(Error::Peer {
                program: python.to_path_buf(),
                message: format!(
                    "printed '{}', not a count, seconds and a kind",
                    output.trim()
                ),
            }),
        }
    })();
    let (count, seconds, all_pairs, rows) = match outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            let row = Row::new(name, Kind::Scipy, &method(false), reference.sources.len());
            return row.not_run(peer_error(error));
        }
    };
    let wrong = rows
        .chunks(n.max(1))
        .enumerate()
        .try_for_each(|(index, row)| reference.check_row(index, row));
    let checked = distances_checked(rows.len() / n.max(1), wrong.err());
    let sources = if all_pairs {
        n
    } else {
        reference.sources.len()
    };
    Row {
        timed: count,
        ..Row::new(name, Kind::Scipy, &method(all_pairs), sources).measured(seconds, checked)
    }
}

/// networkx's closeness on the graphs it ships, each written as Matrix
/// Market for `bfs` to read, timed around the call (the best of
/// [`CLOSENESS_RUNS`]); prints `name vertices edges seconds` a graph and
/// writes its values, a line a vertex, beside its file.
const NETWORKX: &str = r#"import sys, time, pathlib
import networkx as nx
folder = pathlib.Path(sys.argv[1])
for name in ('karate_club_graph', 'les_miserables_graph', 'florentine_families_graph'):
    graph = nx.convert_node_labels_to_integers(getattr(nx, name)())
    n = graph.number_of_nodes()
    edges = [(max(u, v), min(u, v)) for u, v in graph.edges()]
    lines = ['%%MatrixMarket matrix coordinate pattern symmetric', f'{n} {n} {len(edges)}']
    lines += [f'{u + 1} {v + 1}' for u, v in edges]
    (folder / f'{name}.mtx').write_text('\n'.join(lines) + '\n')
    best = float('inf')
    for _ in range(int(sys.argv[2])):
        started = time.perf_counter()
        closeness = nx.closeness_centrality(graph)
        best = min(best, time.perf_counter() - started)
    (folder / f'{name}.txt').write_text('\n'.join(repr(closeness[v]) for v in range(n)) + '\n')
    print(name, n, len(edges), best, flush=True)
"#;

/// One small graph's closeness by networkx and by `bfs`.
#[derive(Clone, Debug)]
pub struct Compared {
    /// networkx's name for it.
    pub graph: String,
    /// Vertices.
    pub vertices: u32,
    /// Undirected edges.
    pub edges: u64,
    /// networkx's `closeness_centrality` call, the best of the runs.
    pub networkx_seconds: f64,
    /// `bfs`'s search and closeness, the best of the runs.
    pub ours_seconds: f64,
    /// Where `bfs` searched.
    pub engine: String,
    /// How the values compare.
    pub validated: Validation,
}

/// networkx's closeness on its small real graphs beside ours (on `gpu`
/// where there is one, else the CPU engine), into `measured`.
pub fn networkx(
    setup: &Setup,
    gpu: std::result::Result<&bfs::gpu::Gpu, &str>,
    measured: &mut Measured,
) -> Result<()> {
    let Some(python) = &setup.python else {
        measured.networkx_note = Some("not run: no --python".into());
        return Ok(());
    };
    eprintln!("bench: many: networkx's closeness on its small graphs");
    let folder = setup.scratch.join("networkx");
    std::fs::create_dir_all(&folder).map_err(io_error(&folder))?;
    let output = gapbs::run(
        Command::new(python)
            .args(["-c", NETWORKX])
            .arg(&folder)
            .arg(CLOSENESS_RUNS.to_string()),
    );
    let output = match output {
        Ok(output) => output,
        Err(error) => {
            measured.networkx_note = Some(format!("not run: {error}"));
            return Ok(());
        }
    };
    for line in output.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [name, vertices, edges, seconds] = fields[..] else {
            continue;
        };
        let parse = |field: &str| field.parse::<f64>().unwrap_or(f64::NAN);
        let compared = compare(&folder, name, gpu).unwrap_or_else(|error| {
            (
                f64::NAN,
                String::new(),
                Validation::Failed(error.to_string()),
            )
        });
        let (ours_seconds, engine, validated) = compared;
        measured.networkx.push(Compared {
            graph: name.into(),
            vertices: parse(vertices) as u32,
            edges: parse(edges) as u64,
            networkx_seconds: parse(seconds),
            ours_seconds,
            engine,
            validated,
        });
    }
    Ok(())
}

/// `bfs`'s closeness of the graph networkx wrote as `name.mtx` in
/// `folder`, against the values it wrote beside it: our best search
/// time, the engine, and how the values compare.
fn compare(
    folder: &Path,
    name: &str,
    gpu: std::result::Result<&bfs::gpu::Gpu, &str>,
) -> Result<(f64, String, Validation)> {
    let graph =
        GraphSource::parse(&folder.join(format!("{name}.mtx")).display().to_string())?.load()?;
    let values = folder.join(format!("{name}.txt"));
    let expected: Vec<f64> = std::fs::read_to_string(&values)
        .map_err(io_error(&values))?
        .lines()
        .map(|line| line.trim().parse().unwrap_or(f64::NAN))
        .collect();
    let n = graph.vertex_count();
    let mut engine: Box<dyn ManySources> = match gpu {
        Ok(gpu) => Box::new(GpuBatches::new(
            gpu,
            &graph,
            bfs::abi::many_sources::words_for(n),
        )?),
        Err(_) => Box::new(CpuBatches::new(&graph, 1, many::words_for(n as usize))?),
    };
    let all = many::all_sources(&graph, engine.batch_width());
    let (mut best, mut closeness) = (f64::INFINITY, Vec::new());
    for _ in 0..CLOSENESS_RUNS {
        let started = Instant::now();
        let reduced = many::run(
            engine.as_mut(),
            n,
            &all,
            Limits::default(),
            !graph.is_symmetric(),
        )?;
        let sources = Sources::All(all.clone());
        closeness = match &reduced.totals {
            Some(totals) => centrality::closeness(totals, &sources),
            None => centrality::closeness(&centrality::own_totals(&reduced, &all), &sources),
        };
        best = best.min(started.elapsed().as_secs_f64());
    }
    Ok((
        best,
        engine.describe(),
        same_values(&closeness, &expected).into(),
    ))
}

/// Whether `ours` equal `theirs`, each to [`RELATIVE`].
fn same_values(ours: &[f64], theirs: &[f64]) -> std::result::Result<String, String> {
    if ours.len() != theirs.len() {
        return Err(format!(
            "{} values, networkx has {}",
            ours.len(),
            theirs.len()
        ));
    }
    let mut largest: f64 = 0.0;
    for (vertex, (&ours, &theirs)) in ours.iter().zip(theirs).enumerate() {
        let difference =
            (ours - theirs).abs() / ours.abs().max(theirs.abs()).max(f64::MIN_POSITIVE);
        if difference.is_nan() || difference > RELATIVE {
            return Err(format!("vertex {vertex}: {ours}, networkx {theirs}"));
        }
        largest = largest.max(difference);
    }
    let largest = match largest {
        0.0 => "none differs".to_string(),
        largest => format!("largest relative difference {largest:.1e}"),
    };
    Ok(format!(
        "all {} values = networkx's to 1e-12 ({largest})",
        ours.len()
    ))
}
