//! `bfs bench --roads`: road networks at their size, and the strategies
//! made for them side by side.
//!
//! Each graph is written as `.bcsr` and prepared by `bfs prepare` in its
//! own process, timed as a user waits for it once. `hierarchy-sweep` then
//! searches with the contraction hierarchy that file holds, beside
//! `ghost-zones`, `persistent`, the CPU engine, gapbs (`--gapbs`) and
//! scipy (`--python`) from the same sources (see [`super::graph`]). The
//! hierarchy's shape (levels, core) and each sweep's barriers and arcs
//! read show what limits it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::{Row, gapbs, io_error, timing_cells};
use bfs::gpu::Work;
use bfs::graph::prepared::{Preparation, PreparationKind};
use bfs::graph::{self, Reader};
use bfs::{Csr, Error, Result};

/// The heading of `BENCHMARKS.md`'s section.
pub const SECTION: &str = "## Road networks";

/// Bytes a hierarchy arc takes on the device: its head and its weight.
const ARC_BYTES: f64 = 8.0;

/// What the benchmark runs besides the searches.
pub struct Setup {
    /// The `bfs` executable whose `prepare` is timed (this one).
    pub bfs: PathBuf,
    /// A Python with scipy, if scipy is to be timed.
    pub python: Option<PathBuf>,
    /// scipy stops taking sources once its searches took this long.
    pub peer_limit: Duration,
    /// Where the graphs' files are written (removed after).
    pub scratch: PathBuf,
}

/// A road network as `bfs prepare` left it.
pub struct Prepared {
    /// The graph's name.
    pub name: String,
    /// Vertices.
    pub vertices: u32,
    /// CSR entries.
    pub csr_entries: u64,
    /// Vertices the chain contraction keeps (junctions, dead ends).
    pub kept: u32,
    /// The hierarchy's levels, the core counted as one.
    pub levels: u32,
    /// The core's vertices.
    pub core: u32,
    /// Shortcuts the contraction added.
    pub shortcuts: u32,
    /// `bfs prepare`'s whole process, from the `.bcsr` to the prepared one.
    pub prepare_seconds: f64,
    /// The prepared file's bytes.
    pub file_bytes: u64,
}

impl Prepared {
    /// Bytes of the graph's CSR on the device: 64-bit row offsets and
    /// 32-bit column indices.
    pub fn csr_bytes(&self) -> u64 {
        Csr::bytes_of(self.vertices, self.csr_entries)
    }
}

/// Writes `graph` as `.bcsr`, times `bfs prepare` on it, and loads the
/// hierarchy the prepared file holds.
pub fn prepare(setup: &Setup, name: &str, graph: &Csr) -> Result<(Prepared, Preparation)> {
    std::fs::create_dir_all(&setup.scratch).map_err(io_error(&setup.scratch))?;
    let plain = setup.scratch.join("road.bcsr");
    let prepared = setup.scratch.join("road.prepared.bcsr");
    graph::save(graph, &plain)?;
    let started = Instant::now();
    gapbs::run(
        Command::new(&setup.bfs)
            .arg("prepare")
            .arg(&plain)
            .arg(&prepared),
    )?;
    let prepare_seconds = started.elapsed().as_secs_f64();
    let file_bytes = std::fs::metadata(&prepared)
        .map_err(io_error(&prepared))?
        .len();
    let (_, preparations) = graph::load_prepared(&prepared, Reader::Fast)?;
    let hierarchy = match preparations.load(PreparationKind::Hierarchy, graph.vertex_count()) {
        Some(Ok(Preparation::Hierarchy(hierarchy))) => hierarchy,
        Some(Err(why)) => return Err(Error::Invalid(format!("{name}'s hierarchy: {why}"))),
        _ => {
            return Err(Error::Invalid(format!(
                "`bfs prepare` stored no contraction hierarchy for {name} (not road-like?)"
            )));
        }
    };
    for file in [&plain, &prepared] {
        std::fs::remove_file(file).map_err(io_error(file))?;
    }
    let described = Prepared {
        name: name.into(),
        vertices: graph.vertex_count(),
        csr_entries: graph.edge_count(),
        kept: hierarchy.chains.kept_count(),
        levels: hierarchy.level_count(),
        core: hierarchy.core().len() as u32,
        shortcuts: hierarchy.shortcuts,
        prepare_seconds,
        file_bytes,
    };
    Ok((described, Preparation::Hierarchy(hierarchy)))
}

/// The start of a script that times scipy: the graph's CSR as scipy
/// keeps it (float64 values, int32 indices), from the files
/// [`ScipyCsr::write`] wrote (`argv[1]` the vertices, `argv[2]` and
/// `argv[3]` the files), so that scipy's calls convert nothing.
const SCIPY_CSR: &str = r#"import sys, time
import numpy as np, scipy.sparse as sparse, scipy.sparse.csgraph as csgraph
vertices = int(sys.argv[1])
offsets = np.fromfile(sys.argv[2], dtype='<u8').astype(np.int32)
heads = np.fromfile(sys.argv[3], dtype='<u4').astype(np.int32)
matrix = sparse.csr_matrix((np.ones(len(heads)), heads, offsets), shape=(vertices, vertices))
"#;

/// scipy's `breadth_first_order` from each source, timed around the call
/// alone. A symmetric CSR holds both directions of every edge, so the
/// search is asked for as directed, sparing scipy the symmetrisation an
/// undirected one makes.
const SCIPY: &str = r#"limit = float(sys.argv[5])
spent = 0.0
for source in sys.argv[4].split(','):
    started = time.perf_counter()
    csgraph.breadth_first_order(matrix, int(source), directed=True, return_predecessors=True)
    took = time.perf_counter() - started
    print(took, flush=True)
    spent += took
    if spent > limit:
        break
"#;

/// A graph's CSR in files for [`SCIPY_CSR`], removed when dropped.
pub(crate) struct ScipyCsr {
    /// The row offsets, little-endian `u64`.
    pub(crate) offsets: PathBuf,
    /// The column indices, little-endian `u32`.
    pub(crate) heads: PathBuf,
}

impl ScipyCsr {
    /// Writes `graph`'s CSR into `folder`, or says why scipy cannot take it.
    pub(crate) fn write(graph: &Csr, folder: &Path) -> Result<ScipyCsr> {
        if graph.edge_count() >= i32::MAX as u64 {
            return Err(Error::Unsupported(
                "scipy's int32 indices hold fewer CSR entries".into(),
            ));
        }
        let files = ScipyCsr {
            offsets: folder.join("offsets.u64"),
            heads: folder.join("heads.u32"),
        };
        let (offsets, heads) = (graph.row_offsets(), graph.column_indices());
        std::fs::write(&files.offsets, bytemuck::cast_slice(offsets))
            .map_err(io_error(&files.offsets))?;
        std::fs::write(&files.heads, bytemuck::cast_slice(heads))
            .map_err(io_error(&files.heads))?;
        Ok(files)
    }

    /// `python` running `script` after [`SCIPY_CSR`] on these files of a
    /// graph of `vertices` vertices, `sources` its `argv[4]`; the caller
    /// adds the script's further arguments.
    pub(crate) fn command(
        &self,
        python: &Path,
        script: &str,
        vertices: u32,
        sources: &[u32],
    ) -> Command {
        let sources: Vec<String> = sources.iter().map(u32::to_string).collect();
        let mut command = Command::new(python);
        command
            .args(["-c", &format!("{SCIPY_CSR}{script}")])
            .arg(vertices.to_string())
            .arg(&self.offsets)
            .arg(&self.heads)
            .arg(sources.join(","));
        command
    }
}

impl Drop for ScipyCsr {
    fn drop(&mut self) {
        // Scratch files only: nothing to report if they are already gone.
        let _ = std::fs::remove_file(&self.offsets);
        let _ = std::fs::remove_file(&self.heads);
    }
}

/// scipy's row: its times from the first of `sources` on (as many as
/// [`Setup::peer_limit`] allows), with the reference's edges and levels
/// (`reference` is the CPU reference's row over the same sources).
pub fn scipy_row(
    setup: &Setup,
    python: &Path,
    graph: &Csr,
    sources: &[u32],
    reference: &Row,
) -> Result<Row> {
    let files = ScipyCsr::write(graph, &setup.scratch)?;
    let output = gapbs::run(
        files
            .command(python, SCIPY, graph.vertex_count(), sources)
            .arg(setup.peer_limit.as_secs_f64().to_string()),
    );
    drop(files);
    let times: Vec<Duration> = output?
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .map(Duration::from_secs_f64)
        .collect();
    let searches = times.len();
    Ok(Row {
        graph: reference.graph.clone(),
        variant: "scipy (one thread)".into(),
        times,
        edges: reference.edges[..searches].to_vec(),
        input_edges: reference
            .input_edges
            .iter()
            .take(searches)
            .copied()
            .collect(),
        levels: reference.levels[..searches].to_vec(),
        work: Vec::new(),
        device_bytes: None,
    })
}

/// The section: the graphs and their hierarchies, then every search.
pub fn markdown(device: &str, command: &str, graphs: &[Prepared], rows: &[Row]) -> String {
    let mut text = format!("{SECTION}\n\n");
    let _ = writeln!(
        text,
        "Written by `cargo xtask bench --roads` (`bundle/bench.sh -- --roads`): road networks from \
         `gen:road` (junctions on a lattice, streets as chains of shape points) and any given. \
         `bfs prepare` is one whole process from the graph's `.bcsr` to the prepared file, on every \
         core; `hierarchy-sweep` searches with the hierarchy that file holds (what `auto` runs on it). \
         Times as in the main table, from the same sources for every row, each GPU and CPU-engine result \
         checked against the CPU reference; gapbs as in the CPU section; scipy is \
         `csgraph.breadth_first_order` with predecessors, timed around the call in one process, for as \
         many sources as fit its time limit. Barriers: `hierarchy-sweep`'s grid-wide (or one block's) \
         barriers, one a level in each sweep and one a core round; arcs read: hierarchy arcs a search \
         reads, and arc GB/s their bytes (8 an arc) over the median time. × CSR: device memory over the \
         CSR's (8-byte row offsets, 4-byte column indices). ÷ sweep: the row's median over \
         `hierarchy-sweep`'s.\n"
    );
    let _ = writeln!(text, "Device: **{device}**. Command: `{command}`\n");
    let _ = writeln!(
        text,
        "| graph | vertices | CSR entries | kept (junctions) | hierarchy levels | core | shortcuts | \
         `bfs prepare` s | prepared .bcsr MB |"
    );
    let _ = writeln!(
        text,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for graph in graphs {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} | {} | {:.2} | {:.1} |",
            graph.name,
            graph.vertices,
            graph.csr_entries,
            graph.kept,
            graph.levels,
            graph.core,
            graph.shortcuts,
            graph.prepare_seconds,
            graph.file_bytes as f64 / 1e6,
        );
    }
    let _ = writeln!(
        text,
        "\n| graph | search | sources | min ms | 1st quartile | median ms | 3rd quartile | max ms | \
         GTEPS (harmonic mean) | ÷ sweep | barriers | µs per barrier | arcs read | arc GB/s | device MB | × CSR |"
    );
    let _ = writeln!(
        text,
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for row in rows {
        let median_ms = row.statistics().median_ms;
        let sweep = rows
            .iter()
            .find(|other| other.graph == row.graph && other.variant == "hierarchy-sweep")
            .map_or("-".into(), |sweep| {
                format!("{:.1}", median_ms / sweep.statistics().median_ms)
            });
        let (barriers, per_barrier, arcs, bandwidth) = match row.variant.as_str() {
            "hierarchy-sweep" if !row.work.is_empty() => {
                let mean = |figure: fn(&Work) -> f64| {
                    row.work.iter().map(figure).sum::<f64>() / row.work.len() as f64
                };
                let barriers = mean(|work| work.barriers as f64);
                let arcs = mean(|work| work.edges_examined as f64);
                (
                    format!("{barriers:.0}"),
                    format!("{:.2}", median_ms * 1e3 / barriers.max(1.0)),
                    format!("{arcs:.0}"),
                    format!("{:.0}", arcs * ARC_BYTES / (median_ms * 1e6)),
                )
            }
            _ => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        let csr_bytes = graphs
            .iter()
            .find(|graph| graph.name == row.graph)
            .map(Prepared::csr_bytes);
        let (device, ratio) = match (row.device_bytes, csr_bytes) {
            (Some(bytes), Some(csr)) => (
                format!("{:.1}", bytes as f64 / 1e6),
                format!("{:.2}", bytes as f64 / csr as f64),
            ),
            _ => ("-".into(), "-".into()),
        };
        let _ = writeln!(
            text,
            "{} {sweep} | {barriers} | {per_barrier} | {arcs} | {bandwidth} | {device} | {ratio} |",
            timing_cells(row)
        );
    }
    text
}
