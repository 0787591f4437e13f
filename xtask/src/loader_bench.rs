//! `cargo xtask bench --loader FILE...`: the fast Matrix Market reader
//! against `nalgebra-sparse`'s, on the same files, each load in its own
//! process (`bfs --load-only`, which reports its peak memory). The table
//! replaces the `## Loader` section of `BENCHMARKS.md`, a file wholly
//! generated section by section, up to the next section.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::Workspace;
use crate::setup::Environment;
use bfs_sections as sections;

/// Loads timed with the fast reader (the median is reported); the reference is slow, once.
const FAST_RUNS: usize = 3;
const SECTION: &str = "## Loader";

/// One `bfs --load-only` run.
struct Load {
    seconds: f64,
    megabytes_per_second: f64,
    peak_megabytes: f64,
}

/// Benchmarks the readers on `files` and records the table.
pub fn run(workspace: &Workspace, environment: &Environment, files: &[String]) -> Result<()> {
    if files.is_empty() {
        bail!("usage: cargo xtask bench --loader FILE.mtx...");
    }
    workspace.release_bfs(environment)?;
    let mut table = format!(
        "{SECTION}\n\nCommand: `cargo xtask bench --loader {}` ({} cores). Each load is its own process; \
         the fast reader's time is the median of {FAST_RUNS} runs. Peak memory is resident memory, the \
         memory-mapped file included, and the binned entries (8 bytes per directed edge) until the CSR \
         is built.\n\n\
         | file | MB | reader | seconds | MB/s | peak MB | speed-up |\n| --- | ---: | --- | ---: | ---: | ---: | ---: |\n",
        files.join(" "),
        std::thread::available_parallelism().map_or(1, |cores| cores.get())
    );
    for file in files {
        let megabytes = std::fs::metadata(file)
            .with_context(|| format!("reading {file}"))?
            .len() as f64
            / 1e6;
        let mut fast: Vec<Load> = (0..FAST_RUNS)
            .map(|_| load(workspace, environment, file, "fast"))
            .collect::<Result<_>>()?;
        fast.sort_by(|left, right| left.seconds.total_cmp(&right.seconds));
        let fast = &fast[FAST_RUNS / 2];
        let reference = load(workspace, environment, file, "reference")?;
        let name = Path::new(file)
            .file_name()
            .map_or(file.clone(), |name| name.to_string_lossy().into());
        for (reader, run, speedup) in [
            ("fast", fast, reference.seconds / fast.seconds),
            ("nalgebra-sparse", &reference, 1.0),
        ] {
            table += &format!(
                "| {name} | {megabytes:.1} | {reader} | {:.3} | {:.1} | {:.1} | {speedup:.1}× |\n",
                run.seconds, run.megabytes_per_second, run.peak_megabytes
            );
        }
    }
    print!("{table}");
    let path = workspace.root().join("BENCHMARKS.md");
    let existing = std::fs::read_to_string(&path).unwrap_or_default();
    // Written beside it, then renamed over it: a run cut short leaves
    // BENCHMARKS.md whole.
    let partial = path.with_extension("md.partial");
    std::fs::write(
        &partial,
        sections::replace_section(&existing, SECTION, &table),
    )
    .with_context(|| format!("writing {}", partial.display()))?;
    std::fs::rename(&partial, &path).with_context(|| format!("replacing {}", path.display()))?;
    Ok(())
}

fn load(
    workspace: &Workspace,
    environment: &Environment,
    file: &str,
    reader: &str,
) -> Result<Load> {
    let mut command = workspace.release_bfs(environment)?;
    command.args(["--graph", file, "--load-only", "--reader", reader]);
    let output = command.output().context("running bfs --load-only")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "bfs --load-only --reader {reader} {file} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let number_before = |text: &str, unit: &str| -> Option<f64> {
        let end = text.find(unit)?;
        text[..end]
            .trim_end()
            .rsplit([' ', ','])
            .next()?
            .parse()
            .ok()
    };
    let graph = stdout
        .lines()
        .find(|line| line.starts_with("graph:"))
        .context("no graph line")?;
    let memory = stdout
        .lines()
        .find(|line| line.starts_with("memory:"))
        .context("no memory line")?;
    Ok(Load {
        seconds: number_before(graph, " s,").context("no load time")?,
        megabytes_per_second: number_before(graph, " MB/s").context("no load rate")?,
        peak_megabytes: number_before(memory, " MB resident").context("no peak memory")?,
    })
}
