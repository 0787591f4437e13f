//! `bfs bench --many`: each graph loaded once and the GPU opened once,
//! every row of `bfs_bench::many` measured in this process, the section
//! written after each row (so a run cut short keeps what it measured), and
//! a compact table printed at the end.

use std::time::Duration;

use anyhow::{Context, bail};
use bfs::cpu;
use bfs::gpu::Gpu;
use bfs_bench::many::{self, Measured};

use super::{BenchArgs, BenchDevice, load, write_section};

/// The rows of an earlier build's `bench --many` (`before`, a `bfs`)
/// with this run's options, run first, as its section gives them.
fn before_rows(before: &std::path::Path, scratch: &std::path::Path) -> anyhow::Result<String> {
    std::fs::create_dir_all(scratch).context("making the scratch folder")?;
    let section = scratch.join("before.md");
    let mut options: Vec<String> = Vec::new();
    let mut given = std::env::args().skip(1);
    while let Some(option) = given.next() {
        match option.as_str() {
            "bench" if options.is_empty() => {}
            "--before" | "--markdown" => {
                given.next();
            }
            _ if option.starts_with("--before=") || option.starts_with("--markdown=") => {}
            _ => options.push(option),
        }
    }
    eprintln!(
        "bench: many: the earlier build's rows first ({})",
        before.display()
    );
    let status = std::process::Command::new(before)
        .arg("bench")
        .args(&options)
        .arg("--markdown")
        .arg(&section)
        .stdout(std::process::Stdio::null())
        .status()
        .with_context(|| format!("running {}", before.display()))?;
    let text = std::fs::read_to_string(&section).unwrap_or_default();
    if text.is_empty() {
        bail!("{} bench --many wrote no rows ({status})", before.display());
    }
    Ok(text)
}

/// Runs `bench --many`.
pub fn run(arguments: &BenchArgs) -> anyhow::Result<()> {
    let (gpu, no_gpu) = match arguments.device {
        BenchDevice::Cpu => (None, "--device cpu".to_string()),
        BenchDevice::Gpu => match Gpu::open() {
            Ok(gpu) => (Some(gpu), String::new()),
            Err(error) => {
                eprintln!("bench: many: the GPU's rows are skipped: {error}");
                (None, error.to_string())
            }
        },
    };
    let device = gpu
        .as_ref()
        .map_or(format!("no GPU ({no_gpu})"), |gpu| gpu.name().to_string());
    let gpu = gpu.as_ref().ok_or(no_gpu.as_str());
    let threads = match arguments.threads[..] {
        [] => cpu::hardware_threads(),
        [threads] => threads as usize,
        _ => bail!("--many takes one --threads count"),
    };
    let row_seconds = arguments.row_seconds;
    if !(row_seconds > 0.0 && row_seconds.is_finite()) {
        bail!("--row-seconds takes a positive number of seconds, not {row_seconds}");
    }
    let setup = many::Setup {
        sources: arguments.sources.unwrap_or(many::DEFAULT_SOURCES),
        seed: arguments.seed,
        threads,
        gapbs: arguments.gapbs.clone(),
        python: arguments.python.clone(),
        row_budget: Duration::from_secs_f64(row_seconds),
        scratch: std::env::temp_dir().join(format!("bfs-many-{}", std::process::id())),
    };
    if setup.sources == 0 {
        bail!("--sources takes a number of sources, 1 or more");
    }
    let command = super::recorded_command();
    let mut measured = Measured::new(device, command, threads, row_seconds);
    if let Some(before) = &arguments.before {
        measured.before = Some(before_rows(before, &setup.scratch)?);
    }
    let defaults = match arguments.no_default_graphs {
        true => &[][..],
        false => &many::DEFAULT_GRAPHS[..],
    };
    let names =
        (arguments.graphs.iter().cloned()).chain(defaults.iter().map(|name| name.to_string()));
    let mut write = |measured: &Measured| -> bfs::Result<()> {
        match &arguments.markdown {
            Some(path) => write_section(path, many::SECTION, &measured.markdown()),
            None => Ok(()),
        }
    };
    let outcome = (|| -> anyhow::Result<()> {
        for name in names {
            let (name, graph) = load(&name, arguments.seed)?;
            many::graph(&setup, gpu, &name, &graph, &mut measured, &mut write)?;
        }
        many::networkx(&setup, gpu, &mut measured)?;
        write(&measured).context("writing --markdown")?;
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&setup.scratch);
    outcome?;
    print!("{}", measured.summary());
    match measured.failures() {
        0 => Ok(()),
        failures => bail!("{failures} rows failed their check or their run (see the table)"),
    }
}
