//! The GAP benchmark suite's BFS (Beamer, Asanović and Patterson, *The GAP
//! Benchmark Suite*, 2015: `gapbs`, OpenMP) as a peer of the CPU engine:
//! run as its own process on the same graph, from the same sources, with
//! the same thread counts, so that the two are compared in one run.
//!
//! The graph goes to gapbs as its serialized `.sg` file, written here in
//! the layout gapbs's `converter` writes (which loads fast, and spares
//! reading a text file); each source is one `bfs -f G.sg -r SOURCE -n 2`
//! with `OMP_NUM_THREADS` set, of which the second trial is kept: its first
//! warms up as the engine's untimed first search does. Vertex ids are
//! 0-based on both sides, so a source means the same vertex to both.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::io_error;
use bfs::{Csr, Error, Result};

/// gapbs built in a folder (`make bfs converter`), with a graph converted
/// for it.
pub struct Gapbs {
    folder: PathBuf,
    scratch: PathBuf,
    serialized: PathBuf,
}

impl Gapbs {
    /// Writes `graph` for the gapbs build in `folder`, in a scratch
    /// folder removed when the peer is dropped.
    pub fn convert(folder: &Path, graph: &Csr) -> Result<Gapbs> {
        let program = folder.join("bfs");
        if !program.is_file() {
            return Err(Error::Peer {
                program,
                message: "not found (build gapbs there with `make bfs converter`)".into(),
            });
        }
        let scratch = std::env::temp_dir().join(format!("bfs-gapbs-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).map_err(io_error(&scratch))?;
        let peer = Gapbs {
            folder: folder.to_path_buf(),
            serialized: scratch.join("graph.sg"),
            scratch,
        };
        write_serialized(graph, &peer.serialized)?;
        Ok(peer)
    }

    /// gapbs's time for one search from `source` on `threads` threads.
    pub fn search_time(&self, source: u32, threads: usize) -> Result<Duration> {
        let (_, times) = self.bfs(threads, &["-r", &source.to_string(), "-n", "2"], 2)?;
        Ok(times[1])
    }

    /// gapbs's times of `trials` searches in one process on `threads`
    /// threads (`-n`), each from a source of its own random choice and
    /// each checked by gapbs's verifier (`-v`, not timed): the times, and
    /// how many searches passed.
    pub fn trials(&self, threads: usize, trials: usize) -> Result<(Vec<Duration>, usize)> {
        let (output, times) = self.bfs(threads, &["-n", &trials.to_string(), "-v"], trials)?;
        let passed = output
            .lines()
            .filter_map(|line| line.strip_prefix("Verification:"))
            .filter(|verdict| verdict.trim() == "PASS")
            .count();
        Ok((times, passed))
    }

    /// gapbs's `bfs` on the graph on `threads` threads with `options`:
    /// its output, and the `trials` trial times it must print.
    fn bfs(
        &self,
        threads: usize,
        options: &[&str],
        trials: usize,
    ) -> Result<(String, Vec<Duration>)> {
        let program = self.folder.join("bfs");
        let output = run(Command::new(&program)
            .env("OMP_NUM_THREADS", threads.to_string())
            .arg("-f")
            .arg(&self.serialized)
            .args(options))?;
        let times: Vec<Duration> = output
            .lines()
            .filter_map(|line| line.strip_prefix("Trial Time:"))
            .filter_map(|seconds| seconds.trim().parse().ok())
            .map(Duration::from_secs_f64)
            .collect();
        match times.len() == trials {
            true => Ok((output, times)),
            false => Err(Error::Peer {
                program,
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

/// Writes `graph` as gapbs's serialized graph (`.sg`, the layout of its
/// `WriteSerializedGraph`): whether it is directed (a byte), its CSR
/// entries and its vertices (`i64` each), the row offsets (`i64`) and the
/// column indices (`i32`), and for a directed graph the same of its
/// reverse (the in-edges gapbs's bottom-up steps read); little-endian, as
/// gapbs reads it on the machines it runs on.
fn write_serialized(graph: &Csr, path: &Path) -> Result<()> {
    if graph.vertex_count() > i32::MAX as u32 {
        return Err(Error::Unsupported(
            "gapbs's serialized graphs hold 32-bit signed vertex ids".into(),
        ));
    }
    let file = std::fs::File::create(path).map_err(io_error(path))?;
    let mut out = std::io::BufWriter::new(file);
    let reversed = graph.reversed();
    let header = [
        &[u8::from(reversed.is_some())][..],
        &graph.edge_count().to_le_bytes(),
        &u64::from(graph.vertex_count()).to_le_bytes(),
    ]
    .concat();
    (|| {
        out.write_all(&header)?;
        for rows in std::iter::once(graph).chain(&reversed) {
            out.write_all(bytemuck::cast_slice(rows.row_offsets()))?;
            out.write_all(bytemuck::cast_slice(rows.column_indices()))?;
        }
        out.flush()
    })()
    .map_err(io_error(path))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The file holds the header, then the rows and their reverse, as
    /// gapbs's `converter` writes them (byte for byte on Kronecker, road,
    /// grid, uniform and directed graphs, when this was written).
    #[test]
    fn a_directed_graph_is_serialized_with_its_in_edges() {
        let graph = Csr::from_edges(3, &[(0, 1), (0, 2), (2, 1)], false).expect("a graph");
        let path = std::env::temp_dir().join(format!("bfs-gapbs-sg-{}.sg", std::process::id()));
        write_serialized(&graph, &path).expect("written");
        let bytes = std::fs::read(&path).expect("read back");
        let _ = std::fs::remove_file(&path);
        let mut expected = vec![1u8];
        expected.extend(3u64.to_le_bytes());
        expected.extend(3u64.to_le_bytes());
        for offset in [0u64, 2, 2, 3] {
            expected.extend(offset.to_le_bytes());
        }
        for head in [1u32, 2, 1] {
            expected.extend(head.to_le_bytes());
        }
        for offset in [0u64, 0, 2, 3] {
            expected.extend(offset.to_le_bytes());
        }
        for tail in [0u32, 2, 0] {
            expected.extend(tail.to_le_bytes());
        }
        assert_eq!(bytes, expected);
    }
}
