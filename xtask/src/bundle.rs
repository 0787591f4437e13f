//! `cargo xtask bundle`: everything needed to run the suite on a GPU machine
//! that has no Rust (a login node builds, a compute node runs).
//!
//! `bundle/` holds the release `bfs`, `bfs-bench` and `cuda-floor` (the end-to-end
//! benchmark's floor), the test executables under `tests/`,
//! the PTX, `run-tests.sh` (every test with the GPU required),
//! `sanitize.sh` (compute-sanitizer over every variant) and `bench.sh`
//! (`cargo xtask bench`'s table); and for Python, the `bfs-gpu` wheel under
//! `wheels/`, the Python tests and the "From Python" and "The BFS family"
//! benchmarks under `python/`, and `run-python-tests.sh` (they, and networkx's own tests
//! with the backend, with the GPU required). `bundle.tar.gz` beside it is
//! the same folder in one archive, which is what travels: every test
//! executable links the library and its kernels, so the folder outgrows
//! what the device tool carries where the archive does not.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, Result, bail};

use crate::setup::Environment;
use crate::{Workspace, succeed};

/// The device tool carries at most 64 MiB.
const SIZE_LIMIT: u64 = 64 << 20;

/// The bundle in one archive, beside the folder.
pub const ARCHIVE: &str = "bundle.tar.gz";

const RUN_TESTS: &str = include_str!("../scripts/run-tests.sh");
const SANITIZE: &str = include_str!("../scripts/sanitize.sh");
const BENCH: &str = include_str!("../scripts/bench.sh");

/// The release programs the bundle holds: `bfs`, `bfs-bench` (which
/// `bfs bench` runs) and `cuda-floor`.
const BINARIES: [&str; 3] = ["bfs", "bfs-bench", "cuda-floor"];
const RUN_PYTHON_TESTS: &str = include_str!("../scripts/run-python-tests.sh");

/// Writes the bundle and returns its folder.
pub fn write(workspace: &Workspace, environment: &Environment) -> Result<PathBuf> {
    let modules = crate::ptx::build_and_check(workspace, environment)?;
    workspace.release_bfs(environment)?;
    let tests = test_executables(workspace, environment)?;
    let wheel = crate::wheel::build(workspace, environment, crate::wheel::Profile::Release)?;

    let folder = workspace.root().join("bundle");
    if folder.exists() {
        std::fs::remove_dir_all(&folder)?;
    }
    std::fs::create_dir_all(folder.join("tests"))?;
    for binary in BINARIES {
        std::fs::copy(
            workspace.target().join("release").join(binary),
            folder.join(binary),
        )?;
    }
    for ptx in &modules {
        let name = ptx.file_name().expect("a PTX file has a name");
        std::fs::copy(ptx, folder.join(name))?;
    }
    for (name, executable) in &tests {
        std::fs::copy(executable, folder.join("tests").join(name))?;
    }
    strip_debug_info(&folder)?;
    copy_python(workspace, &folder, &wheel)?;
    for (name, text) in [
        ("run-tests.sh", RUN_TESTS),
        ("sanitize.sh", SANITIZE),
        ("bench.sh", BENCH),
        ("run-python-tests.sh", RUN_PYTHON_TESTS),
    ] {
        let path = folder.join(name);
        std::fs::write(&path, text)?;
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    }
    let archive = workspace.root().join(ARCHIVE);
    succeed(
        std::process::Command::new("tar")
            .arg("czf")
            .arg(&archive)
            .arg("-C")
            .arg(workspace.root())
            .arg("bundle"),
        &format!("tar czf {ARCHIVE} failed"),
    )?;
    let size = std::fs::metadata(&archive)?.len();
    eprintln!(
        "bundle: {} test executables, {:.1} MiB as {ARCHIVE} (the folder {:.1} MiB)",
        tests.len(),
        size as f64 / (1 << 20) as f64,
        folder_size(&folder)? as f64 / (1 << 20) as f64
    );
    if size > SIZE_LIMIT {
        bail!("{ARCHIVE} is {size} bytes, over the {SIZE_LIMIT}-byte limit of the device tool");
    }
    Ok(folder)
}

/// Copies the wheel into `wheels/`, and the Python tests and benchmark
/// into `python/`.
fn copy_python(workspace: &Workspace, folder: &Path, wheel: &Path) -> Result<()> {
    let wheels = folder.join("wheels");
    std::fs::create_dir_all(&wheels)?;
    let name = wheel.file_name().context("a wheel has a name")?;
    std::fs::copy(wheel, wheels.join(name))?;
    let tests = folder.join("python").join("tests");
    std::fs::create_dir_all(&tests)?;
    for entry in std::fs::read_dir(workspace.root().join("tests/python"))? {
        let path = entry?.path();
        if path.is_file()
            && let Some(name) = path.file_name()
        {
            std::fs::copy(&path, tests.join(name))
                .with_context(|| format!("copying {}", path.display()))?;
        }
    }
    for script in ["from_python.py", "family.py", "sections.py"] {
        std::fs::copy(
            workspace.root().join("python/benches").join(script),
            folder.join("python").join(script),
        )?;
    }
    Ok(())
}

/// Strips the executables' debug info (the release profile keeps line
/// tables for local profiling; symbols stay, so backtraces keep their names),
/// which halves the bundle.
fn strip_debug_info(folder: &Path) -> Result<()> {
    let mut executables: Vec<PathBuf> = BINARIES.iter().map(|binary| folder.join(binary)).collect();
    for entry in std::fs::read_dir(folder.join("tests"))? {
        executables.push(entry?.path());
    }
    let status = std::process::Command::new("strip")
        .arg("--strip-debug")
        .args(&executables)
        .status()
        .context("running strip (binutils)")?;
    if !status.success() {
        bail!("strip --strip-debug failed ({status})");
    }
    Ok(())
}

/// Builds the release test executables and returns (name, path) for each
/// integration test (the `tests` package; the other crates hold none).
fn test_executables(
    workspace: &Workspace,
    environment: &Environment,
) -> Result<Vec<(String, PathBuf)>> {
    let output = workspace
        .cargo(environment)
        .args([
            "test",
            "--release",
            "--workspace",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ])
        .stderr(Stdio::inherit())
        .output()?;
    if !output.status.success() {
        bail!("building the test executables failed");
    }
    let mut executables = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Some(executable) = json_string(line, "\"executable\":\"") else {
            continue;
        };
        if json_string(line, "\"target\":{\"kind\":[\"") != Some("test") {
            continue;
        }
        let name = json_string(line, "\"name\":\"").context("artifact without a name")?;
        executables.push((name.to_string(), PathBuf::from(executable)));
    }
    Ok(executables)
}

/// The JSON string value right after `key` on `line` (cargo escapes no
/// characters in the paths and names read here).
fn json_string<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(key)? + key.len();
    let length = line[start..].find('"')?;
    Some(&line[start..start + length])
}

fn folder_size(folder: &Path) -> Result<u64> {
    let mut size = 0;
    for entry in
        std::fs::read_dir(folder).with_context(|| format!("reading {}", folder.display()))?
    {
        let entry = entry?;
        let metadata = entry.metadata()?;
        size += if metadata.is_dir() {
            folder_size(&entry.path())?
        } else {
            metadata.len()
        };
    }
    Ok(size)
}
