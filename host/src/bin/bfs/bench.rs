//! `bfs bench`: the benchmarks that write `BENCHMARKS.md` live in their own
//! crate (`bench/`, which the library does not link), as the program
//! `bfs-bench` beside this one; `bfs bench OPTIONS` runs it with the same
//! options (`bfs bench --help` lists them).

use std::ffi::OsString;
use std::process::{Command, ExitCode};

use anyhow::Context;
use clap::Args;

/// The options of `bfs bench`: `bfs-bench`'s, passed on as they are.
#[derive(Args)]
#[command(disable_help_flag = true)]
pub struct BenchArgs {
    /// `bfs-bench`'s options.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    options: Vec<OsString>,
}

/// Runs `bfs-bench` from this program's folder with `arguments`' options,
/// and exits as it does.
pub fn run(arguments: &BenchArgs) -> anyhow::Result<ExitCode> {
    let this = std::env::current_exe().context("finding this executable")?;
    let bench = this.with_file_name("bfs-bench");
    let status = Command::new(&bench)
        .args(&arguments.options)
        .status()
        .with_context(|| {
            format!(
                "running {} (bfs bench runs the benchmarks' own program, built with \
                 `cargo build --release -p bfs-bench`)",
                bench.display()
            )
        })?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(code.clamp(1, 255) as u8),
        None => ExitCode::FAILURE,
    })
}
