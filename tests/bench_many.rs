//! `bfs bench --many` end to end on small graphs: every row it runs is
//! checked (the run fails on a row that disagrees with the reference), the
//! section it writes has a table per graph and its targets, and without a
//! GPU its GPU rows are skipped with the reason, not failed.

use bfs_tests::{gpu, run_bfs, temporary_folder};

/// Small graphs of both kinds the benchmark meets: few levels (Kronecker)
/// and many (a road network), one of them directed (one-way streets).
const GRAPHS: [&str; 3] = ["gen:kron:8", "gen:road:400", "gen:road:400:0.3"];

/// Runs `bench --many` on [`GRAPHS`] with `device`; returns the section
/// it wrote and what it printed, after checking that it ended well.
fn bench_many(test: &str, device: &str) -> (String, String) {
    let folder = temporary_folder(test);
    let markdown = folder.join("BENCHMARKS.md");
    let mut arguments = vec![
        "bench",
        "--many",
        "--no-default-graphs",
        "--device",
        device,
        "--sources",
        "100",
        "--threads",
        "2",
        "--row-seconds",
        "0.2",
    ];
    for graph in GRAPHS {
        arguments.extend(["--graph", graph]);
    }
    let markdown_argument = markdown.display().to_string();
    arguments.extend(["--markdown", &markdown_argument]);
    let run = run_bfs(&arguments);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let section = std::fs::read_to_string(&markdown).expect("the section written");
    let _ = std::fs::remove_dir_all(&folder);
    assert!(!section.contains("FAILED"), "{section}");
    assert!(section.starts_with("## Many sources"), "{section}");
    for graph in GRAPHS {
        assert!(section.contains(&format!("### {graph}\n")), "{section}");
    }
    assert!(section.contains("### Targets"), "{section}");
    assert!(run.stdout.contains("target: "), "{}", run.stdout);
    (section, run.stdout)
}

/// The rows of `section` whose method starts with `method`.
fn rows<'s>(section: &'s str, method: &str) -> Vec<&'s str> {
    section
        .lines()
        .filter(|line| line.starts_with(&format!("| {method}")))
        .collect()
}

#[test]
fn on_the_cpu_every_cpu_row_is_checked_and_the_gpu_rows_say_why_not() {
    let (section, stdout) = bench_many("bench-many-cpu", "cpu");
    for method in [
        "CPU engine, 2 threads, bit-parallel",
        "CPU engine, 2 threads, one source",
    ] {
        let found = rows(&section, method);
        assert!(!found.is_empty(), "no '{method}' row: {section}");
        for row in found {
            assert!(row.contains("| yes: "), "{row}");
        }
    }
    // The road networks' searches have many levels: a source a thread.
    assert_eq!(
        rows(&section, "CPU engine, 2 threads, a source a thread").len(),
        2
    );
    let skipped = rows(&section, "GPU |");
    assert_eq!(skipped.len(), GRAPHS.len(), "{section}");
    for row in skipped {
        assert!(row.contains("skipped: no GPU rows: --device cpu"), "{row}");
    }
    assert!(stdout.contains("CPU one at a time"), "{stdout}");
}

#[test]
fn on_the_gpu_every_gpu_row_is_checked() {
    let test = "bench_many_on_the_gpu";
    // The benchmark opens the GPU itself: this one only says whether there is one.
    if gpu(test).is_none() {
        return;
    }
    let (section, _) = bench_many("bench-many-gpu", "gpu");
    for method in [
        "GPU, batches of 128 sources (MS-BFS) |",
        "GPU, batches of 128 sources (MS-BFS), every distance",
        "GPU, one batch of 64 sources",
        "GPU, one source at a time",
        "GPU, exact closeness from every vertex",
    ] {
        let found = rows(&section, method);
        assert_eq!(found.len(), GRAPHS.len(), "'{method}': {section}");
        for row in found {
            assert!(row.contains("| yes: "), "{row}");
        }
    }
    for row in rows(&section, "2 GPUs sharing") {
        assert!(
            row.contains("| yes: ") || row.contains("skipped: this host has 1 GPU"),
            "{row}"
        );
    }
}
