//! `cargo xtask …`: every build chore of the workspace, as one binary.
//!
//! - `run [ARGS]`: runs `bfs` (release) with ARGS, forwarding its exit code.
//! - `test [ARGS]`: checks the PTX, then runs the whole test suite (and,
//!   without ARGS, the Python tests against networkx, `tests/python`).
//! - `ptx`: builds the kernels, checks them with `ptxas`, prints the PTX paths last.
//! - `lint`: `cargo fmt --check` over the workspace and the fuzz targets,
//!   `cargo clippy -D warnings` over the workspace and the kernels for the
//!   GPU, both modules (the lints of `[workspace.lints]`: an `unsafe` block without a
//!   `// SAFETY:` line, an undocumented public item of the host library),
//!   and `cargo doc` with every warning (a broken link) an error.
//! - `bench [--graph PATH]...`: times every variant on the default generated
//!   graphs and the given files, writing `BENCHMARKS.md` (needs a GPU).
//! - `bench --loader FILE...`: the fast Matrix Market reader against
//!   `nalgebra-sparse`'s, into `BENCHMARKS.md`'s loader section.
//! - `bench --many [--graph PATH]... [--gapbs DIR] [--python PYTHON]`:
//!   many sources at once beside one at a time, closeness from every
//!   vertex, the CPU engine, gapbs, scipy and networkx, into
//!   `BENCHMARKS.md`'s many-sources section (1,024 sources unless
//!   `--sources` says otherwise).
//! - `sanitize [VARIANT]...`: compute-sanitizer's memcheck, racecheck,
//!   synccheck and initcheck over every variant (needs a GPU and CUDA's tools).
//! - `fuzz [SECONDS]`: every `cargo fuzz` target of the graph readers
//!   (`host/fuzz/`) for SECONDS each (default 60); installs cargo-fuzz if needed.
//! - `wheel`: the Python package `bfs-gpu` as one abi3 wheel, in
//!   `target/wheels/` (maturin, fetched on first use).
//! - `bench --from-python [--graph PATH]...`: the "From Python" section of
//!   `BENCHMARKS.md` (`python/benches/from_python.py`, the release wheel).
//! - `bench --family [--graph PATH]... [--gapbs DIR]`: its "The BFS family"
//!   section (`python/benches/family.py`): betweenness and components
//!   beside networkit, networkx and gapbs.
//! - `bundle`: a folder with `bfs`, the test executables, the wheel and
//!   scripts to run them on a GPU machine that has no Rust.
//!
//! Each first makes sure of what a fresh machine lacks: the link library
//! `cust` asks for (an empty one: the binaries load the driver at run time)
//! and `ptxas` (from PyPI's `nvidia-cuda-nvcc-cu12`); and, for the wheel,
//! `maturin` (from PyPI). See [`setup`].

mod bundle;
mod loader_bench;
mod ptx;
mod python;
mod setup;
mod wheel;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use anyhow::{Context, Result, bail};

/// What `cargo xtask help` prints: every task, as the header above
/// tells them.
const USAGE: &str = "\
usage: cargo xtask TASK [ARGS]
  run [BFS ARGS]             runs bfs (release) with the arguments
  test [CARGO TEST ARGS]     checks the PTX, then runs every test
  ptx                        builds and checks the kernels' PTX, prints its paths
  lint                       rustfmt, clippy and rustdoc, every warning an error
  bench [--graph PATH]...    times every variant into BENCHMARKS.md (needs a GPU)
  bench --many [--graph PATH]... [--gapbs DIR] [--python PYTHON]
                             many sources at once beside one at a time, into its section
  bench --loader FILE...     the Matrix Market reader against nalgebra-sparse's
  bench --family [--graph PATH]... [--gapbs DIR]
                             betweenness and components beside their peers, into its section
  bench --from-python [--graph PATH]...
                             the Python package beside bfs, into its section
  wheel                      the Python package's wheel, in target/wheels/
  sanitize [VARIANT]...      compute-sanitizer over the variants (needs a GPU)
  fuzz [SECONDS]             each fuzz target of the graph readers (default 60 s)
  bundle                     a folder to run the tests on a GPU machine without Rust
";

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    match run(&arguments) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(arguments: &[String]) -> Result<ExitCode> {
    let (task, rest) = arguments
        .split_first()
        .map_or(("help", &[][..]), |(task, rest)| (task.as_str(), rest));
    let workspace = Workspace::locate()?;
    match task {
        "run" => {
            let environment = setup::prepare(&workspace)?;
            let mut command = workspace.release_bfs(&environment)?;
            // Paths on the command line are the caller's: run where cargo was run.
            command.args(rest).current_dir(std::env::current_dir()?);
            exit_code_of(&mut command)
        }
        "test" => {
            let environment = setup::prepare(&workspace)?;
            ptx::build_and_check(&workspace, &environment)?;
            // The CLI tests run these binaries.
            workspace.build_binaries(&environment, &[])?;
            let mut command = workspace.cargo(&environment);
            command.args(["test", "--workspace"]).args(rest);
            let mut counts = run_tests(&mut command)?;
            // The Python tests run with the whole suite, not with a filter.
            if rest.is_empty() {
                counts += python::run(&workspace, &environment)?;
            }
            println!(
                "tests: {} passed, {} failed, {} skipped",
                counts.passed, counts.failed, counts.skipped
            );
            Ok(match counts.failed {
                0 => ExitCode::SUCCESS,
                _ => ExitCode::FAILURE,
            })
        }
        "ptx" => {
            let environment = setup::prepare(&workspace)?;
            for ptx in ptx::build_and_check(&workspace, &environment)? {
                println!("{}", ptx.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        "lint" => {
            let environment = setup::prepare(&workspace)?;
            workspace.cargo_ok(&environment, &["fmt", "--all", "--check"])?;
            // The fuzz targets are a workspace of their own, which `--all`
            // does not reach.
            let fuzz_manifest = workspace.root.join("host/fuzz/Cargo.toml");
            workspace.cargo_ok(
                &environment,
                &[
                    "fmt",
                    "--check",
                    "--manifest-path",
                    &fuzz_manifest.display().to_string(),
                ],
            )?;
            workspace.cargo_ok(
                &environment,
                &[
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ],
            )?;
            // The kernels for the GPU, both modules: every kernel, and
            // the sm_90 one's (`--cfg bfs_sm90`), each in a folder of its
            // own so that neither invalidates the other.
            for (folder, flags) in [
                ("kernels-clippy", "[]"),
                ("kernels-clippy-sm90", "[\"--cfg\", \"bfs_sm90\"]"),
            ] {
                workspace.cargo_ok(
                    &environment,
                    &[
                        "clippy",
                        "--package",
                        "bfs-kernels",
                        "--target",
                        "nvptx64-nvidia-cuda",
                        "-Zbuild-std=core",
                        "--target-dir",
                        &workspace.target().join(folder).display().to_string(),
                        "--config",
                        &format!("build.rustflags={flags}"),
                        "--",
                        "-D",
                        "warnings",
                    ],
                )?;
            }
            workspace.cargo_ok(
                &environment,
                &[
                    "doc",
                    "--workspace",
                    "--no-deps",
                    "--quiet",
                    "--config",
                    "build.rustdocflags=[\"-D\", \"warnings\"]",
                ],
            )?;
            Ok(ExitCode::SUCCESS)
        }
        "wheel" => {
            let environment = setup::prepare(&workspace)?;
            let wheel = wheel::build(&workspace, &environment, wheel::Profile::Release)?;
            println!("{}", wheel.display());
            Ok(ExitCode::SUCCESS)
        }
        "bench"
            if rest
                .first()
                .is_some_and(|flag| flag == "--from-python" || flag == "--family") =>
        {
            let environment = setup::prepare(&workspace)?;
            let script = match rest[0].as_str() {
                "--family" => "family.py",
                _ => "from_python.py",
            };
            exit_code_of(&mut python::bench(
                &workspace,
                &environment,
                script,
                &rest[1..],
            )?)
        }
        "bench" if rest.first().is_some_and(|flag| flag == "--loader") => {
            let environment = setup::prepare(&workspace)?;
            loader_bench::run(&workspace, &environment, &rest[1..])?;
            Ok(ExitCode::SUCCESS)
        }
        "bench" => {
            let environment = setup::prepare(&workspace)?;
            let markdown = workspace.root().join("BENCHMARKS.md");
            let mut command = workspace.release_bfs(&environment)?;
            command.arg("bench");
            // `--many` takes its own number of sources: a batch's.
            if !rest.iter().any(|argument| argument == "--many") {
                command.args(["--sources", "64"]);
            }
            command.arg("--markdown").arg(markdown).args(rest);
            exit_code_of(&mut command)
        }
        "sanitize" => {
            let environment = setup::prepare(&workspace)?;
            let folder = bundle::write(&workspace, &environment)?;
            exit_code_of(Command::new(folder.join("sanitize.sh")).args(rest))
        }
        "fuzz" => {
            let environment = setup::prepare(&workspace)?;
            fuzz(&workspace, &environment, rest)?;
            Ok(ExitCode::SUCCESS)
        }
        "bundle" => {
            let environment = setup::prepare(&workspace)?;
            let folder = bundle::write(&workspace, &environment)?;
            println!("{}", folder.display());
            Ok(ExitCode::SUCCESS)
        }
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => {
            bail!(
                "unknown task '{other}' (run, test, ptx, lint, wheel, bench, sanitize, fuzz, bundle)"
            )
        }
    }
}

/// Runs each fuzz target of `host/fuzz` for the given seconds.
fn fuzz(
    workspace: &Workspace,
    environment: &setup::Environment,
    arguments: &[String],
) -> Result<()> {
    let seconds: u64 = arguments
        .first()
        .map_or(Ok(60), |seconds| seconds.parse())
        .context("fuzz takes SECONDS")?;
    let installed = Command::new(&workspace.cargo)
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !installed {
        workspace.cargo_ok(environment, &["install", "cargo-fuzz", "--locked"])?;
    }
    let fuzz_dir = workspace.root().join("host").join("fuzz");
    let mut targets: Vec<String> = std::fs::read_dir(fuzz_dir.join("fuzz_targets"))?
        .filter_map(|entry| {
            entry
                .ok()?
                .path()
                .file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
        })
        .collect();
    targets.sort();
    for target in targets {
        eprintln!("xtask: fuzzing {target} for {seconds} s");
        workspace.cargo_ok(
            environment,
            &[
                "fuzz",
                "run",
                "--fuzz-dir",
                &fuzz_dir.display().to_string(),
                &target,
                "--",
                &format!("-max_total_time={seconds}"),
                "-max_len=2048",
            ],
        )?;
    }
    Ok(())
}

/// Runs `cargo test`, passing its output through, and sums up every test
/// binary, where a skipped test is a GPU test that printed `skip:` (no
/// CUDA device), counted apart from the passes cargo reports for it. A
/// cargo that fails with no test failed (a build error) counts one failure.
fn run_tests(command: &mut Command) -> Result<python::Counts> {
    use std::io::{BufRead, BufReader};

    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("running cargo test")?;
    let stderr = child.stderr.take().context("cargo test's stderr")?;
    let skips = std::thread::spawn(move || {
        let mut skipped = 0u64;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            eprintln!("{line}");
            skipped += u64::from(line.starts_with("skip: "));
        }
        skipped
    });
    let (mut passed, mut failed) = (0u64, 0u64);
    for line in BufReader::new(child.stdout.take().context("cargo test's stdout")?)
        .lines()
        .map_while(Result::ok)
    {
        println!("{line}");
        if let Some(counts) = line.strip_prefix("test result: ") {
            let count = |word: &str| {
                counts.split(';').find_map(|part| {
                    part.trim()
                        .strip_suffix(word)?
                        .split_whitespace()
                        .last()?
                        .parse::<u64>()
                        .ok()
                })
            };
            passed += count(" passed").unwrap_or(0);
            failed += count(" failed").unwrap_or(0);
        }
    }
    let status = child.wait()?;
    let skipped = skips.join().unwrap_or(0);
    Ok(python::Counts {
        passed: passed.saturating_sub(skipped),
        failed: failed.max(u64::from(!status.success())),
        skipped,
    })
}

/// Runs `command`, returning its exit code as ours.
fn exit_code_of(command: &mut Command) -> Result<ExitCode> {
    let status = command
        .status()
        .with_context(|| format!("running {command:?}"))?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    })
}

/// The workspace root and how to call cargo in it.
struct Workspace {
    root: PathBuf,
    cargo: PathBuf,
}

impl Workspace {
    fn locate() -> Result<Workspace> {
        let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let root = manifest_dir
            .parent()
            .context("xtask/ has no parent")?
            .to_path_buf();
        let cargo = std::env::var_os("CARGO").map_or_else(|| "cargo".into(), PathBuf::from);
        Ok(Workspace { root, cargo })
    }

    fn root(&self) -> &Path {
        &self.root
    }

    /// The target directory (`CARGO_TARGET_DIR` or `target/`).
    fn target(&self) -> PathBuf {
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| self.root.join("target"), PathBuf::from)
    }

    /// A `cargo` command in the workspace root with the set-up environment.
    fn cargo(&self, environment: &setup::Environment) -> Command {
        let mut command = Command::new(&self.cargo);
        command.current_dir(&self.root);
        environment.apply(&mut command);
        command
    }

    /// Builds the release `bfs` (and `bfs-bench`, which `bfs bench` runs)
    /// and returns a command that runs `bfs`, with the set-up environment.
    fn release_bfs(&self, environment: &setup::Environment) -> Result<Command> {
        self.build_binaries(environment, &["--release"])?;
        let mut command = Command::new(self.target().join("release").join("bfs"));
        environment.apply(&mut command);
        Ok(command)
    }

    /// Builds `bfs` and `bfs-bench` (which `bfs bench` runs) with the
    /// further cargo `options`.
    fn build_binaries(&self, environment: &setup::Environment, options: &[&str]) -> Result<()> {
        let build = [
            "build",
            "--quiet",
            "--package",
            "bfs",
            "--package",
            "bfs-bench",
        ];
        self.cargo_ok(environment, &[&build[..], &["--bins"], options].concat())
    }

    /// Runs cargo with `arguments`, failing unless it succeeds.
    fn cargo_ok(&self, environment: &setup::Environment, arguments: &[&str]) -> Result<()> {
        let failure = format!("cargo {} failed", arguments.join(" "));
        succeed(self.cargo(environment).args(arguments), &failure)
    }
}

/// Runs `command`, failing with `failure` and its exit status unless it
/// succeeds.
fn succeed(command: &mut Command, failure: &str) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("running {command:?}"))?;
    if !status.success() {
        bail!("{failure} ({status})");
    }
    Ok(())
}
