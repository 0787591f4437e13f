//! The rows `bench --gpus` keeps between runs (`--rows FILE`), and the
//! section of `BENCHMARKS.md` they make: the graphs, strong scaling and
//! weak scaling.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Built, SECTION, ScalingRow};
use crate::{Row, io_error, timing_cells};
use bfs::{Error, Result, output};

/// What `bench --gpus` measured: each run's device and command, the
/// graphs and their rows, kept between runs as JSON (`--rows FILE`). A
/// graph measured again replaces its earlier rows.
#[derive(Default, Serialize, Deserialize)]
pub struct Measured {
    /// Every run that measured a row kept here, oldest first.
    pub runs: Vec<Run>,
    /// The graphs of the rows, each once.
    pub graphs: Vec<Built>,
    /// The rows, by graph and number of GPUs.
    pub rows: Vec<ScalingRow>,
}

/// A `bench --gpus` command: where it ran and the graphs whose rows it
/// measured.
#[derive(Serialize, Deserialize)]
pub struct Run {
    /// The GPUs it ran on: their count and the driver's name for them.
    pub device: String,
    /// Its command line.
    pub command: String,
    /// The names of the graphs it measured.
    pub graphs: Vec<String>,
}

impl Measured {
    /// The rows kept at `path`; none where there is no file yet.
    pub fn read(path: &Path) -> Result<Measured> {
        let text = match std::fs::read_to_string(path) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Measured::default());
            }
            read => read.map_err(io_error(path))?,
        };
        serde_json::from_str(&text).map_err(|error| {
            Error::Invalid(format!(
                "{} does not hold `bench --gpus` rows: {error}",
                path.display()
            ))
        })
    }

    /// Writes the rows to `path` (atomically: a run cut short keeps the
    /// file whole).
    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string(self)
            .map_err(|error| Error::Invalid(format!("encoding the rows: {error}")))?;
        output::write_text(path, &text)
    }

    /// Starts a run on `device` by `command`.
    pub fn begin(&mut self, device: String, command: String) {
        self.runs.push(Run {
            device,
            command,
            graphs: Vec::new(),
        });
    }

    /// Adds a graph to the run begun last, dropping what an earlier run
    /// measured of a graph of its name.
    pub fn add_graph(&mut self, built: Built) {
        let name = built.name.clone();
        self.graphs.retain(|graph| graph.name != name);
        self.rows.retain(|scaling| scaling.row.graph != name);
        for run in &mut self.runs {
            run.graphs.retain(|graph| *graph != name);
        }
        if let Some(run) = self.runs.last_mut() {
            run.graphs.push(name);
        }
        self.runs.retain(|run| !run.graphs.is_empty());
        self.graphs.push(built);
    }

    /// The section: the graphs, the strong-scaling table (every row, with
    /// its speed-up over `auto` on one GPU, where that fits) and the
    /// weak-scaling one (rows of as many vertices per GPU, where more than
    /// one GPU count has them).
    pub fn markdown(&self) -> String {
        // Graphs by size, each graph's rows together, whatever run
        // measured them.
        let mut graphs: Vec<&Built> = self.graphs.iter().collect();
        graphs.sort_by_key(|built| built.vertices);
        let place = |graph: &str| graphs.iter().position(|built| built.name == graph);
        let mut rows: Vec<&ScalingRow> = self.rows.iter().collect();
        rows.sort_by_key(|scaling| place(&scaling.row.graph));
        let rows = &rows[..];
        let mut text = format!("{SECTION}\n\n");
        let _ = writeln!(
            text,
            "Written by `cargo xtask bench --gpus N,...` (`bundle/bench.sh GRAPH... -- --gpus N,...`). Per graph: \
         `auto` on one GPU (device time from initialisation to the last level, CUDA events), then the search over \
         N GPUs through NCCL (`bfs --gpus N`: host time from the first level's start to the last level's end, every \
         exchange included), each after a warm-up search, from the same random sources. Every search is validated: \
         distances equal to a CPU search's and the Graph500 rules (past 2^30 CSR entries: the parallel CPU search, \
         and the tree rules on the parents); a source's searches after its first must have the distances that \
         passed (a 64-bit fingerprint), and their parents the tree rules. GTEPS: harmonic mean over sources; \
         Graph500: input edge tuples within the component, duplicates and self loops included; CSR: CSR entries \
         examined (the other tables' count). \
         Speed-up: Graph500 GTEPS over `auto`'s on one GPU (none where the graph does not fit one GPU). Exchange: the time of a level's exchanges \
         (CUDA events around each collective, each meeting on the GPU and each kernel that reads the other GPUs' \
         frontier words or queues: the transfers and each GPU's wait for the slowest, not the host's copies of the counts; where the ranks are \
         threads that meet on the host to pass a level's figures, the host's clock from a GPU's end of the level \
         to the last GPU's), a search's over its levels, median over sources. GB a GPU: the device memory of the GPU that \
         used the most, what the search allocated and (in brackets) what the GPU had in use, its context's and \
         NCCL's included; CSR GB: the graph's rows (64-bit offsets, 32-bit columns), of which a GPU holds its \
         share. Rows of several commands are kept in a file (`--rows FILE`) and shown together.\n"
        );
        for run in &self.runs {
            let graphs = match self.runs.len() {
                1 => String::new(),
                _ => format!(" ({})", run.graphs.join(", ")),
            };
            let _ = writeln!(
                text,
                "Device: **{}**. Command: `{}`{graphs}\n",
                run.device, run.command
            );
        }
        let _ = writeln!(
            text,
            "| graph | vertices | CSR entries | CSR GB | input edges (Graph500) | built in s |"
        );
        let _ = writeln!(text, "| --- | ---: | ---: | ---: | ---: | ---: |");
        for built in &graphs {
            let _ = writeln!(
                text,
                "| {} | {} | {} | {:.1} | {} | {:.1} |",
                built.name,
                built.vertices,
                built.csr_entries,
                built.csr_bytes() as f64 / 1e9,
                built
                    .input_edges
                    .map_or("-".into(), |edges| edges.to_string()),
                built.seconds
            );
        }
        let graph500 = |row: &Row| row.statistics().graph500_harmonic_mean_gteps;
        let _ = writeln!(
            text,
            "\n### Strong scaling\n\n| graph | search | sources | min ms | 1st quartile | median ms | 3rd quartile | \
         max ms | GTEPS (CSR) | GPUs | GTEPS (Graph500) | speed-up | exchange µs per level | GB a GPU |"
        );
        let _ = writeln!(
            text,
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        );
        for scaling in rows {
            let one_gpu = rows
                .iter()
                .find(|other| other.row.graph == scaling.row.graph && other.row.variant == "auto");
            let speed_up = match (
                graph500(&scaling.row),
                one_gpu.and_then(|one| graph500(&one.row)),
            ) {
                (Some(this), Some(one)) => format!("{:.2}×", this / one),
                _ => "-".into(),
            };
            let memory = scaling.memory.map_or("-".into(), |memory| {
                format!(
                    "{:.1} ({:.1})",
                    memory.allocated as f64 / 1e9,
                    memory.in_use as f64 / 1e9
                )
            });
            let _ = writeln!(
                text,
                "{} {} | {} | {speed_up} | {} | {memory} |",
                timing_cells(&scaling.row),
                scaling.gpus,
                graph500(&scaling.row).map_or("-".into(), |gteps| format!("{gteps:.2}")),
                scaling
                    .exchange_per_level
                    .map_or("-".into(), |median| format!(
                        "{:.1}",
                        median.as_secs_f64() * 1e6
                    )),
            );
        }
        let vertices_of = |graph: &str| {
            graphs
                .iter()
                .find(|built| built.name == graph)
                .map_or(0, |built| built.vertices as u64)
        };
        let per_gpu = |scaling: &ScalingRow| vertices_of(&scaling.row.graph) / scaling.gpus as u64;
        // Rows compare only where one device ran them: the runs of a file
        // of rows may have had different machines.
        let device_of = |scaling: &ScalingRow| {
            self.runs
                .iter()
                .find(|run| run.graphs.contains(&scaling.row.graph))
                .map_or("", |run| run.device.as_str())
        };
        let group = |scaling: &ScalingRow| (per_gpu(scaling), device_of(scaling));
        let mut weak: Vec<&ScalingRow> = rows
            .iter()
            .copied()
            .filter(|scaling| {
                rows.iter()
                    .any(|other| other.gpus != scaling.gpus && group(other) == group(scaling))
            })
            .collect();
        weak.sort_by_key(|scaling| (group(scaling), scaling.gpus));
        if !weak.is_empty() {
            let _ = writeln!(
                text,
                "\n### Weak scaling\n\nRows of as many vertices per GPU, measured on one device.\n\n\
                 | vertices per GPU | device | graph | search | GPUs | median ms | GTEPS (Graph500) | \
                 GTEPS (Graph500) per GPU |"
            );
            let _ = writeln!(
                text,
                "| ---: | --- | --- | --- | ---: | ---: | ---: | ---: |"
            );
            for scaling in weak {
                let gteps = graph500(&scaling.row);
                let _ = writeln!(
                    text,
                    "| {} | {} | {} | {} | {} | {:.3} | {} | {} |",
                    per_gpu(scaling),
                    device_of(scaling),
                    scaling.row.graph,
                    scaling.row.variant,
                    scaling.gpus,
                    scaling.row.statistics().median_ms,
                    gteps.map_or("-".into(), |gteps| format!("{gteps:.2}")),
                    gteps.map_or("-".into(), |gteps| format!(
                        "{:.2}",
                        gteps / scaling.gpus as f64
                    )),
                );
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use bfs::multi::direction_optimizing::RankMemory;

    fn built(name: &str, vertices: u32) -> Built {
        Built {
            name: name.into(),
            vertices,
            csr_entries: 32 * vertices as u64,
            input_edges: Some(8 * vertices as u64),
            seconds: 1.0,
        }
    }

    /// A row of `gpus` GPUs (`auto` for none) on `graph`, whose every
    /// search took `milliseconds` over 1000 input edges.
    fn row(graph: &str, gpus: Option<u32>, milliseconds: u64) -> ScalingRow {
        let variant = if gpus.is_some() { "NCCL" } else { "auto" };
        let mut row = Row::new(graph, variant.into(), None);
        for _ in 0..4 {
            row.times.push(Duration::from_millis(milliseconds));
            row.edges.push(2000);
            row.input_edges.push(1000);
            row.levels.push(5);
        }
        ScalingRow {
            gpus: gpus.unwrap_or(1),
            row,
            exchange_per_level: gpus.map(|_| Duration::from_micros(100)),
            memory: Some(RankMemory {
                allocated: 2_000_000_000,
                in_use: 3_000_000_000,
            }),
        }
    }

    #[test]
    fn rows_kept_in_a_file_join_a_later_run_and_a_graph_measured_again_replaces_its_own() {
        let folder = std::env::temp_dir().join(format!("bfs-scaling-rows-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join("rows.json");
        let mut measured = Measured::read(&path).expect("no file yet: no rows");
        assert!(measured.rows.is_empty());
        measured.begin("4 × GPU".into(), "bench --gpus 2,4 --graph small".into());
        measured.add_graph(built("small", 1 << 20));
        measured.rows.push(row("small", None, 8));
        measured.rows.push(row("small", Some(4), 4));
        measured.add_graph(built("middle", 1 << 21));
        measured.rows.push(row("middle", Some(2), 9));
        measured.write(&path).unwrap();

        let mut later = Measured::read(&path).unwrap();
        later.begin(
            "4 × OTHER".into(),
            "bench --gpus 4 --graph large --graph middle".into(),
        );
        later.add_graph(built("large", 1 << 22));
        later.rows.push(row("large", Some(4), 16));
        later.add_graph(built("middle", 1 << 21));
        later.rows.push(row("middle", Some(4), 5));
        later.rows.push(row("middle", Some(2), 9));
        let text = later.markdown();
        assert!(
            text.contains("`bench --gpus 2,4 --graph small` (small)"),
            "{text}"
        );
        assert!(
            text.contains("`bench --gpus 4 --graph large --graph middle` (large, middle)"),
            "{text}"
        );
        let lines = |graph: &str| -> Vec<&str> {
            text.lines()
                .filter(|line| line.starts_with(&format!("| {graph} | ")))
                .collect()
        };
        // The graphs' table and one line a row; the middle graph's row of
        // the first run is gone.
        assert_eq!(lines("small").len(), 3, "{text}");
        assert_eq!(lines("middle").len(), 3, "{text}");
        assert!(lines("middle")[1].contains("| 4 |"), "{text}");
        // The speed-up over `auto` where one GPU's row exists, none where not.
        assert!(lines("small")[2].contains("| 2.00× |"), "{text}");
        assert!(lines("large")[1].contains("| - |"), "{text}");
        // The CSR's size: 8 bytes a row offset and 4 a column.
        assert!(lines("large")[0].contains("| 0.6 |"), "{text}");
        // Weak scaling: 2^20 vertices a GPU on one device (the middle graph
        // on 2, the large on 4), not the small graph's `auto`, which had as
        // many on another device.
        let weak: Vec<&str> = text
            .lines()
            .filter(|line| line.starts_with("| 1048576 | "))
            .collect();
        assert_eq!(weak.len(), 2, "{text}");
        assert!(
            weak[0].starts_with("| 1048576 | 4 × OTHER | middle | NCCL | 2 |"),
            "{text}"
        );
        assert!(
            weak[1].starts_with("| 1048576 | 4 × OTHER | large | NCCL | 4 |"),
            "{text}"
        );

        std::fs::write(&path, "{ not rows").unwrap();
        let refused = Measured::read(&path)
            .err()
            .expect("a damaged file is refused")
            .to_string();
        assert!(
            refused.contains("does not hold `bench --gpus` rows"),
            "{refused}"
        );
        std::fs::remove_dir_all(&folder).unwrap();
    }
}
