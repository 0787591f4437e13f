//! The commands `bench --end-to-end` times for one graph: `bfs` from each
//! of the graph's files, warm and cold, for one search and for 64, and
//! the peers (gapbs, scipy) on the same files from the same source.

use std::path::Path;
use std::process::Command;

use super::{Files, MANY_SEARCHES, Run, Setup};
use bfs::graph::generate::sources_with_edges;
use bfs::{Csr, Error, Result};

/// The commands of one graph.
pub(super) fn runs(setup: &Setup, graph: &Csr, files: &Files, source: u32) -> Result<Vec<Run>> {
    let mut runs = Vec::new();
    let json = |label: &str| files.stem.with_extension(format!("{label}.json"));
    // One search writes its JSON report, for its phases; many searches
    // do not: the report's per-level traces of every search would be time
    // a user who does not ask for them never waits for.
    let bfs = |label: &str, input: &Path, searches: usize, extra: &[&str]| {
        let mut command = Command::new(&setup.bfs);
        command.arg("--graph").arg(input).args(extra);
        match searches {
            1 => command
                .args(["--source", &source.to_string(), "--json"])
                .arg(json(label)),
            count => command.args(["--sources", &count.to_string()]),
        };
        command
    };
    let ours = |program: &str,
                input: &'static str,
                searches: usize,
                jit_cache: &'static str,
                command: Command,
                label: &str| Run {
        program: program.into(),
        input,
        searches,
        jit_cache,
        command,
        peer: false,
        slow_once: false,
        json: (searches == 1).then(|| json(label)),
    };
    let many = MANY_SEARCHES;
    runs.push(ours(
        "bfs",
        ".mtx",
        1,
        "warm",
        bfs("text", &files.text, 1, &[]),
        "text",
    ));
    runs.push(ours(
        "bfs",
        ".bcsr",
        1,
        "warm",
        bfs("binary", &files.binary, 1, &[]),
        "binary",
    ));
    let mut cold = bfs("cold", &files.binary, 1, &[]);
    cold.env("CUDA_CACHE_DISABLE", "1");
    runs.push(ours("bfs", ".bcsr", 1, "cold", cold, "cold"));
    let ptx = files.ptx.display().to_string();
    let mut jit = bfs("ptx", &files.binary, 1, &["--ptx", &ptx]);
    jit.env("CUDA_CACHE_DISABLE", "1");
    runs.push(ours(
        "bfs --ptx (the PTX fallback)",
        ".bcsr",
        1,
        "cold",
        jit,
        "ptx",
    ));
    let prepared = bfs("prepared", &files.prepared, 1, &[]);
    runs.push(ours(
        "bfs",
        "prepared .bcsr",
        1,
        "warm",
        prepared,
        "prepared",
    ));
    // The prepared file cold too: the one-search run whose start-up a
    // user who prepares once and searches often pays on every start.
    let mut prepared_cold = bfs("prepared-cold", &files.prepared, 1, &[]);
    prepared_cold.env("CUDA_CACHE_DISABLE", "1");
    runs.push(ours(
        "bfs",
        "prepared .bcsr",
        1,
        "cold",
        prepared_cold,
        "prepared-cold",
    ));
    let cpu = bfs("cpu", &files.binary, 1, &["--device", "cpu"]);
    runs.push(ours("bfs --device cpu", ".bcsr", 1, "-", cpu, "cpu"));
    let many_binary = bfs("many", &files.binary, many, &[]);
    runs.push(ours("bfs", ".bcsr", many, "warm", many_binary, "many"));
    let many_prepared = bfs("many-prepared", &files.prepared, many, &[]);
    runs.push(ours(
        "bfs",
        "prepared .bcsr",
        many,
        "warm",
        many_prepared,
        "many-prepared",
    ));
    let peers = graph.edge_count() <= setup.peer_most_edges;
    if let Some(folder) = setup.gapbs.as_ref().filter(|_| peers) {
        runs.extend(gapbs_runs(folder, graph, files, source)?);
    }
    if let Some(python) = setup.python.as_ref().filter(|_| peers) {
        let sources = sources_with_edges(graph, many, setup.seed);
        let directed = if graph.is_symmetric() {
            "undirected"
        } else {
            "directed"
        };
        for (searches, list) in [(1, vec![source]), (many, sources)] {
            let list: Vec<String> = list.iter().map(u32::to_string).collect();
            let mut command = Command::new(python);
            command
                .args(["-c", SCIPY])
                .arg(&files.text)
                .arg(list.join(","))
                .arg(directed);
            runs.push(Run::peer("scipy (one thread)", ".mtx", searches, command));
        }
    }
    Ok(runs)
}

/// scipy's whole process: read the Matrix Market file, then a
/// breadth-first order with predecessors from each source.
const SCIPY: &str = r#"import sys
import scipy.io, scipy.sparse.csgraph as csgraph
matrix = scipy.io.mmread(sys.argv[1]).tocsr()
for source in sys.argv[2].split(','):
    csgraph.breadth_first_order(matrix, int(source), directed=sys.argv[3] == 'directed', return_predecessors=True)
"#;

/// gapbs's commands: from the text file and from its own serialized
/// graph (converted first, untimed), one search from `source` and 64 from
/// its own random sources.
fn gapbs_runs(folder: &Path, graph: &Csr, files: &Files, source: u32) -> Result<Vec<Run>> {
    let serialized = files.stem.with_extension("sg");
    let symmetric = graph.is_symmetric();
    let mut converter = Command::new(folder.join("converter"));
    if symmetric {
        converter.arg("-s");
    }
    converter
        .arg("-f")
        .arg(&files.text)
        .arg("-b")
        .arg(&serialized);
    let output = converter.output().map_err(|error| Error::Peer {
        program: folder.join("converter"),
        message: error.to_string(),
    })?;
    if !output.status.success() {
        return Err(Error::Peer {
            program: folder.join("converter"),
            message: format!("failed ({})", output.status),
        });
    }
    let threads = bfs::cpu::hardware_threads();
    let program = format!("gapbs ({threads} threads)");
    let bfs = |input: &Path, searches: usize| {
        let mut command = Command::new(folder.join("bfs"));
        command.arg("-f").arg(input);
        if symmetric
            && input
                .extension()
                .is_some_and(|extension| extension == "mtx")
        {
            command.arg("-s");
        }
        match searches {
            1 => command.args(["-r", &source.to_string(), "-n", "1"]),
            count => command.args(["-n", &count.to_string()]),
        };
        command
    };
    let run = |input, searches, command| Run::peer(&program, input, searches, command);
    Ok(vec![
        run(".mtx", 1, bfs(&files.text, 1)),
        run(".sg", 1, bfs(&serialized, 1)),
        run(".sg", MANY_SEARCHES, bfs(&serialized, MANY_SEARCHES)),
    ])
}
