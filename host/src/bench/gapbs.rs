//! The GAP benchmark suite's BFS (Beamer, Asanović and Patterson, *The GAP
//! Benchmark Suite*, 2015: `gapbs`, OpenMP) as a peer of the CPU engine:
//! run as its own process on the same graph, from the same sources, with
//! the same thread counts, so that the two are compared in one run.
//!
//! The graph goes to gapbs through a Matrix Market file and gapbs's own
//! `converter` (to its serialized `.sg`, which loads fast); each source is
//! one `bfs -f G.sg -r SOURCE -n 2` with `OMP_NUM_THREADS` set, of which the
//! second trial is kept: its first warms up as the engine's untimed first
//! search does. Matrix Market ids are 1-based and gapbs's 0-based, so a
//! source means the same vertex to both.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::{Csr, Error, Result, graph};

/// gapbs built in a folder (`make bfs converter`), with a graph converted
/// for it.
pub struct Gapbs {
    folder: PathBuf,
    scratch: PathBuf,
    serialized: PathBuf,
}

impl Gapbs {
    /// Converts `graph` for the gapbs build in `folder`, in a scratch
    /// folder removed when the peer is dropped.
    pub fn convert(folder: &Path, graph: &Csr) -> Result<Gapbs> {
        for program in ["bfs", "converter"] {
            let program = folder.join(program);
            if !program.is_file() {
                return Err(Error::Peer {
                    program,
                    message: "not found (build gapbs there with `make bfs converter`)".into(),
                });
            }
        }
        let scratch = std::env::temp_dir().join(format!("bfs-gapbs-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).map_err(|error| Error::Io {
            path: scratch.clone(),
            error,
        })?;
        let peer = Gapbs {
            folder: folder.to_path_buf(),
            serialized: scratch.join("graph.sg"),
            scratch,
        };
        let matrix_market = peer.scratch.join("graph.mtx");
        graph::save(graph, &matrix_market)?;
        let mut converter = Command::new(peer.folder.join("converter"));
        if graph.is_symmetric() {
            // An undirected graph, as gapbs keeps one: no separate in-edges.
            converter.arg("-s");
        }
        converter
            .arg("-f")
            .arg(&matrix_market)
            .arg("-b")
            .arg(&peer.serialized);
        run(&mut converter)?;
        std::fs::remove_file(&matrix_market).map_err(|error| Error::Io {
            path: matrix_market,
            error,
        })?;
        Ok(peer)
    }

    /// gapbs's time for one search from `source` on `threads` threads.
    pub fn search_time(&self, source: u32, threads: usize) -> Result<Duration> {
        let mut bfs = Command::new(self.folder.join("bfs"));
        bfs.env("OMP_NUM_THREADS", threads.to_string())
            .arg("-f")
            .arg(&self.serialized)
            .args(["-r", &source.to_string(), "-n", "2"]);
        let output = run(&mut bfs)?;
        let trials: Vec<f64> = output
            .lines()
            .filter_map(|line| line.strip_prefix("Trial Time:"))
            .filter_map(|seconds| seconds.trim().parse().ok())
            .collect();
        match trials[..] {
            [_, timed] => Ok(Duration::from_secs_f64(timed)),
            _ => Err(Error::Peer {
                program: self.folder.join("bfs"),
                message: format!("printed {} trial times, not 2", trials.len()),
            }),
        }
    }

    /// gapbs's times of `trials` searches in one process on `threads`
    /// threads (`-n`), each from a source of its own random choice and
    /// each checked by gapbs's verifier (`-v`, not timed): the times, and
    /// how many searches passed.
    pub fn trials(&self, threads: usize, trials: usize) -> Result<(Vec<Duration>, usize)> {
        let mut bfs = Command::new(self.folder.join("bfs"));
        bfs.env("OMP_NUM_THREADS", threads.to_string())
            .arg("-f")
            .arg(&self.serialized)
            .args(["-n", &trials.to_string(), "-v"]);
        let output = run(&mut bfs)?;
        let times: Vec<Duration> = output
            .lines()
            .filter_map(|line| line.strip_prefix("Trial Time:"))
            .filter_map(|seconds| seconds.trim().parse().ok())
            .map(Duration::from_secs_f64)
            .collect();
        let passed = output
            .lines()
            .filter_map(|line| line.strip_prefix("Verification:"))
            .filter(|verdict| verdict.trim() == "PASS")
            .count();
        match times.len() == trials {
            true => Ok((times, passed)),
            false => Err(Error::Peer {
                program: self.folder.join("bfs"),
                message: format!("printed {} trial times, not {trials}", times.len()),
            }),
        }
    }
}

impl Drop for Gapbs {
    fn drop(&mut self) {
        // Scratch files only: nothing to report if they are already gone.
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

/// Runs a peer's program (or `bfs prepare`); its standard output, or its
/// failure as an error.
pub(crate) fn run(command: &mut Command) -> Result<String> {
    let program = PathBuf::from(command.get_program());
    let output = command.output().map_err(|error| Error::Peer {
        program: program.clone(),
        message: error.to_string(),
    })?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr
            .lines()
            .chain(stdout.lines())
            .last()
            .unwrap_or_default();
        return Err(Error::Peer {
            program,
            message: format!("failed ({}): {last}", output.status),
        });
    }
    Ok(stdout)
}
