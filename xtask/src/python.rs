//! The Python tests (`tests/python`): `bfs centrality` and `bfs --sources`
//! against networkx, run by pytest with the `bfs` the suite built. Where
//! Python, pytest or networkx is missing they skip with a visible line,
//! except where the environment variable `CI` is set: there they fail.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use crate::{Workspace, setup};

/// The variable that names the Python to run the tests with (`python3`
/// where unset).
const PYTHON_VARIABLE: &str = "BFS_PYTHON";

/// Tests passed, failed and skipped.
#[derive(Clone, Copy, Default)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
}

/// Runs `tests/python` with pytest against `bfs` (the debug build), passing
/// its output through; returns its counts.
pub fn run(workspace: &Workspace, environment: &setup::Environment) -> Result<Counts> {
    let python = std::env::var_os(PYTHON_VARIABLE).map_or_else(|| "python3".into(), PathBuf::from);
    let required = std::env::var_os("CI").is_some();
    let missing = |what: &str| {
        let line = format!(
            "{what} is missing: tests/python (python3 -m pip install pytest networkx numpy)"
        );
        if required {
            eprintln!("error: {line}, and CI requires it");
            Counts {
                failed: 1,
                ..Counts::default()
            }
        } else {
            eprintln!("skip: {line}");
            Counts {
                skipped: 1,
                ..Counts::default()
            }
        }
    };
    let has_pytest = Command::new(&python)
        .args(["-c", "import pytest"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !has_pytest {
        return Ok(missing(&format!("{} with pytest", python.display())));
    }
    let mut command = Command::new(&python);
    command
        .args([
            "-m",
            "pytest",
            "-q",
            "-rs",
            "-p",
            "no:cacheprovider",
            "tests/python",
        ])
        .current_dir(workspace.root())
        .env("BFS_BINARY", workspace.target().join("debug").join("bfs"))
        .stdout(Stdio::piped());
    environment.apply(&mut command);
    let mut child = command.spawn().context("running pytest")?;
    let mut counts = Counts::default();
    let stdout = child.stdout.take().context("pytest's stdout")?;
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        println!("{line}");
        // The summary: "3 passed, 1 skipped in 2.50s", perhaps "1 failed".
        for part in line.split(", ") {
            let mut words = part.trim_matches('=').split_whitespace();
            if let (Some(count), Some(what)) = (words.next(), words.next()) {
                match (count.parse::<u64>(), what) {
                    (Ok(count), "passed") => counts.passed = count,
                    (Ok(count), "failed" | "error" | "errors") => counts.failed += count,
                    (Ok(count), "skipped") => counts.skipped = count,
                    _ => {}
                }
            }
        }
    }
    let status = child.wait()?;
    if !status.success() && counts.failed == 0 {
        counts.failed = 1;
    }
    Ok(counts)
}
