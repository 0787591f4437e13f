//! The Python tests: `tests/python` (the `bfs_gpu` package and its
//! networkx backend against networkx and scipy, and `bfs centrality` and
//! `bfs --sources` against networkx), then networkx's own test modules
//! (`tests/python/networkx-modules.txt`) with every call they make
//! dispatched to the backend. The package's wheel (the debug build) is
//! installed into `target/python-packages`, which the tests find first
//! on their path; the Python is `$BFS_PYTHON`, else a virtual environment
//! of the tests' own under `target/python`, made with pytest, networkx,
//! numpy, scipy and networkit (the family benchmark's peer, whose script
//! a test runs on small graphs) on first need. Where Python, pytest or networkx is
//! still missing the tests skip with a visible line, except where the
//! environment variable `CI` is set: there they fail.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};

use crate::wheel::{self, Profile};
use crate::{Workspace, setup, succeed};

/// The variable that names the Python to run the tests with (`python3`
/// where unset).
const PYTHON_VARIABLE: &str = "BFS_PYTHON";

/// networkx's test modules run with the backend, one a line.
const NETWORKX_MODULES: &str = include_str!("../../tests/python/networkx-modules.txt");

/// Tests passed, failed and skipped.
#[derive(Clone, Copy, Default)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, other: Counts) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
    }
}

/// What the Python tests import beside the package, installed into the
/// tests' own environment.
const TEST_PACKAGES: [&str; 5] = ["pytest", "networkx", "numpy", "scipy", "networkit"];

/// The Python the tests run with: `$BFS_PYTHON` where set, else the
/// tests' own virtual environment under `target/python` (made, and given
/// [`TEST_PACKAGES`], on first need), else `python3` where Python cannot
/// make one.
pub fn python(workspace: &Workspace) -> PathBuf {
    if let Some(python) = std::env::var_os(PYTHON_VARIABLE) {
        return python.into();
    }
    match environment(workspace) {
        Ok(python) => python,
        Err(error) => {
            eprintln!("note: no virtual environment for the Python tests ({error:#}); python3");
            "python3".into()
        }
    }
}

/// The tests' virtual environment's Python, made with pip and
/// [`TEST_PACKAGES`] where it is missing or lacks one.
fn environment(workspace: &Workspace) -> Result<PathBuf> {
    let folder = workspace.target().join("python");
    let python = folder.join("bin").join("python3");
    if !python.exists() {
        eprintln!(
            "making the Python tests' environment in {}",
            folder.display()
        );
        succeed(
            Command::new("python3").args(["-m", "venv"]).arg(&folder),
            &format!("python3 -m venv {} failed", folder.display()),
        )?;
    }
    if !imports(&python, &TEST_PACKAGES.join(", ")) {
        eprintln!(
            "installing {} for the Python tests",
            TEST_PACKAGES.join(", ")
        );
        succeed(
            Command::new(&python)
                .args(["-m", "pip", "install", "--quiet"])
                .args(TEST_PACKAGES),
            &format!("pip could not install {}", TEST_PACKAGES.join(", ")),
        )?;
    }
    Ok(python)
}

/// Whether `python` imports every one of `modules`.
fn imports(python: &Path, modules: &str) -> bool {
    Command::new(python)
        .args(["-c", &format!("import {modules}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// A skip (a failure where `CI` is set) for what is missing.
fn missing(what: &str) -> Counts {
    let line = format!(
        "{what} is missing: tests/python (python3 -m pip install pytest networkx numpy scipy)"
    );
    if std::env::var_os("CI").is_some() {
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
}

/// Builds the package's wheel and installs it, with nothing else, into
/// `target/python-packages` for `python`; returns that folder.
pub fn install_package(
    workspace: &Workspace,
    environment: &setup::Environment,
    python: &Path,
    profile: Profile,
) -> Result<PathBuf> {
    let wheel = wheel::build(workspace, environment, profile)?;
    let packages = workspace.target().join("python-packages");
    if packages.exists() {
        std::fs::remove_dir_all(&packages)?;
    }
    succeed(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-index",
                "--no-deps",
                "--target",
            ])
            .arg(&packages)
            .arg(&wheel)
            .env("PIP_ROOT_USER_ACTION", "ignore"),
        &format!("pip could not install {}", wheel.display()),
    )?;
    Ok(packages)
}

/// `PYTHONPATH` with `packages` first.
pub fn python_path(packages: &Path) -> std::ffi::OsString {
    let mut paths = vec![packages.to_path_buf()];
    if let Some(existing) = std::env::var_os("PYTHONPATH") {
        paths.extend(std::env::split_paths(&existing));
    }
    std::env::join_paths(paths).expect("paths without separators")
}

/// Runs `tests/python`, then networkx's modules with the backend, passing
/// their output through; returns their counts.
pub fn run(workspace: &Workspace, environment: &setup::Environment) -> Result<Counts> {
    let python = python(workspace);
    if !imports(&python, "pytest") {
        return Ok(missing(&format!("{} with pytest", python.display())));
    }
    let packages = match install_package(workspace, environment, &python, Profile::Debug) {
        Ok(packages) => packages,
        Err(error) => {
            eprintln!("error: the bfs_gpu wheel: {error:#}");
            return Ok(Counts {
                failed: 1,
                ..Counts::default()
            });
        }
    };
    let mut command = pytest(&python, &packages);
    command
        .args(["-rs", "tests/python"])
        .current_dir(workspace.root())
        .env("BFS_BINARY", workspace.target().join("debug").join("bfs"));
    environment.apply(&mut command);
    let mut counts = counted(&mut command)?;
    counts += networkx_tests(workspace, &python, &packages)?;
    Ok(counts)
}

/// networkx's own test modules with every call dispatched to `bfs_gpu`
/// (networkx running what the backend declines), from a folder of no
/// project, so that networkx's own `conftest.py` sets the backend up. The
/// backend notes each decline in `target/networkx-declines.tsv`; a run
/// that noted none never reached it, and fails.
pub fn networkx_tests(workspace: &Workspace, python: &Path, packages: &Path) -> Result<Counts> {
    if !imports(python, "networkx, scipy") {
        return Ok(missing(&format!(
            "{} with networkx and scipy",
            python.display()
        )));
    }
    let declines = workspace.target().join("networkx-declines.tsv");
    let _ = std::fs::remove_file(&declines);
    let mut command = pytest(python, packages);
    command
        .arg("--pyargs")
        .args(
            NETWORKX_MODULES
                .lines()
                .filter(|line| !line.trim().is_empty()),
        )
        .current_dir(workspace.target())
        .env("NETWORKX_TEST_BACKEND", "bfs_gpu")
        .env("NETWORKX_FALLBACK_TO_NX", "1")
        .env("BFS_GPU_DECLINES", &declines);
    println!("networkx's tests with the bfs_gpu backend:");
    let mut counts = counted(&mut command)?;
    match std::fs::read_to_string(&declines) {
        Ok(text) if !text.is_empty() => {
            let tests: std::collections::BTreeSet<&str> = text
                .lines()
                .filter_map(|line| line.split('\t').next())
                .collect();
            println!(
                "networkx's tests: the backend left {} tests' calls to networkx (weighted, or \
                 a callback); each with its reason in {}",
                tests.len(),
                declines.display()
            );
        }
        _ => {
            eprintln!(
                "error: networkx's tests never asked the bfs_gpu backend (no {}): \
                 the backend was not installed where they ran",
                declines.display()
            );
            counts.failed += 1;
        }
    }
    Ok(counts)
}

/// `python -m pytest -q` with `packages` first on the path.
fn pytest(python: &Path, packages: &Path) -> Command {
    let mut command = Command::new(python);
    command
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .env("PYTHONPATH", python_path(packages))
        .stdout(Stdio::piped());
    command
}

/// Runs pytest, passing its output through; returns its counts.
fn counted(command: &mut Command) -> Result<Counts> {
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

/// `cargo xtask bench --from-python|--family [ARGS]`: the benchmark
/// `python/benches/<script>` (`from_python.py`, `family.py`) with the
/// release wheel and the release `bfs`, writing its section of
/// `BENCHMARKS.md` ("From Python", "The BFS family"; their numbers need a
/// GPU; without one they run on the CPU, which checks the command).
pub fn bench(
    workspace: &Workspace,
    environment: &setup::Environment,
    script: &str,
    arguments: &[String],
) -> Result<Command> {
    let python = python(workspace);
    let packages = install_package(workspace, environment, &python, Profile::Release)?;
    workspace.release_bfs(environment)?;
    let mut command = Command::new(&python);
    command
        .arg(workspace.root().join("python/benches").join(script))
        .arg("--bfs")
        .arg(workspace.target().join("release").join("bfs"))
        .arg("--markdown")
        .arg(workspace.root().join("BENCHMARKS.md"))
        .args(arguments)
        .env("PYTHONPATH", python_path(&packages))
        .current_dir(std::env::current_dir()?);
    environment.apply(&mut command);
    Ok(command)
}
