//! The commands `bench --end-to-end` times for one graph: `bfs` from each
//! of the graph's files, warm and cold, for one search and for 64, and
//! the peers (gapbs, scipy) on the same files from the same source.

use std::path::Path;
use std::process::Command;

use super::{EVERY_VERTEX, Files, MANY_SEARCHES, Run, Setup};
use bfs::graph::generate::sources_with_edges;
use bfs::{Csr, Result};

/// The commands of one graph.
pub(super) fn runs(setup: &Setup, graph: &Csr, files: &Files, source: u32) -> Result<Vec<Run>> {
    let mut runs = Vec::new();
    let json = |label: &str| files.stem.with_extension(format!("{label}.json"));
    // This build's, then the earlier one's (`--before`), under its name.
    let builds: Vec<(&Path, &str, &str)> = std::iter::once((setup.bfs.as_path(), "", ""))
        .chain((setup.before.as_deref()).map(|before| (before, " (before)", "-before")))
        .collect();
    let ptx = files.ptx.display().to_string();
    for &(binary, named, suffix) in &builds {
        // One search writes its JSON report, for its phases; many
        // searches do not: the report's per-level traces of every search
        // would be time a user who does not ask for them never waits for.
        // The closeness command writes its own, with its phases.
        let mut push = |program: &str,
                        (input, path): (&'static str, &Path),
                        searches: usize,
                        jit_cache: &'static str,
                        extra: &[&str],
                        label: &str| {
            let label = format!("{label}{suffix}");
            let mut command = Command::new(binary);
            let reported = searches == 1 || searches == EVERY_VERTEX;
            match searches {
                EVERY_VERTEX => command.args(["centrality", "--measure", "closeness"]),
                _ => &mut command,
            };
            command.arg("--graph").arg(path).args(extra);
            match searches {
                1 => command.args(["--source", &source.to_string()]),
                EVERY_VERTEX => command.args([
                    "--output",
                    &json(&label).with_extension("npy").display().to_string(),
                ]),
                count => command.args(["--sources", &count.to_string()]),
            };
            if reported {
                command.arg("--json").arg(json(&label));
            }
            if jit_cache == "cold" {
                command.env("CUDA_CACHE_DISABLE", "1");
            }
            runs.push(Run {
                json: reported.then(|| json(&label)),
                ..Run::new(
                    &format!("{program}{named}"),
                    input,
                    searches,
                    jit_cache,
                    command,
                )
            });
        };
        let (text, binary_file, prepared) = (
            (".mtx", files.text.as_path()),
            (".bcsr", files.binary.as_path()),
            ("prepared .bcsr", files.prepared.as_path()),
        );
        push("bfs", text, 1, "warm", &[], "text");
        push("bfs", binary_file, 1, "warm", &[], "binary");
        push("bfs", binary_file, 1, "cold", &[], "cold");
        push(
            "bfs --ptx (the PTX fallback)",
            binary_file,
            1,
            "cold",
            &["--ptx", &ptx],
            "ptx",
        );
        push("bfs", prepared, 1, "warm", &[], "prepared");
        // The prepared file cold too: the one-search run whose start-up a
        // user who prepares once and searches often pays on every start.
        push("bfs", prepared, 1, "cold", &[], "prepared-cold");
        push(
            "bfs --device cpu",
            binary_file,
            1,
            "-",
            &["--device", "cpu"],
            "cpu",
        );
        push("bfs", binary_file, MANY_SEARCHES, "warm", &[], "many");
        push("bfs", prepared, MANY_SEARCHES, "warm", &[], "many-prepared");
        push(
            "bfs centrality",
            text,
            EVERY_VERTEX,
            "warm",
            &[],
            "closeness-text",
        );
        push(
            "bfs centrality",
            prepared,
            EVERY_VERTEX,
            "warm",
            &[],
            "closeness-prepared",
        );
    }
    let many = MANY_SEARCHES;
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
    crate::gapbs::run(&mut converter)?;
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
