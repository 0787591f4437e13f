//! Helpers shared by the integration tests: the GPU (or a visible skip),
//! seeded test graphs and the sources to search them from.

use std::io::Write;

use bfs::Csr;
use bfs::gpu::Gpu;
use bfs::graph::generate::Spec;

/// Set (by the bundle's `run-tests.sh`) where a missing GPU must fail the tests.
pub const REQUIRE_GPU: &str = "BFS_REQUIRE_GPU";

/// The GPU, or `None` after printing `skip: no CUDA device` where there is
/// none. Panics instead when [`REQUIRE_GPU`] is set, so a GPU run can never
/// pass by skipping.
pub fn gpu(test: &str) -> Option<Gpu> {
    match Gpu::open() {
        Ok(gpu) => Some(gpu),
        Err(bfs::Error::NoDevice(reason)) if std::env::var_os(REQUIRE_GPU).is_none() => {
            skip(test, &format!("no CUDA device ({reason})"));
            None
        }
        Err(error) => panic!("{test}: the GPU is required but cannot be used: {error}"),
    }
}

/// Prints `skip: WHY: TEST` where the harness does not capture it (it
/// captures `eprintln!`, not direct writes), so a skip is always seen.
pub fn skip(test: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "skip: {why}: {test}");
}

/// A generated graph by its `gen:` specification, with a seed.
pub fn generated(spec: &str, seed: u64) -> Csr {
    let mut spec: Spec = spec
        .parse()
        .unwrap_or_else(|error| panic!("{spec}: {error}"));
    spec.seed = seed;
    spec.generate()
        .unwrap_or_else(|error| panic!("{spec}: {error}"))
}

/// The GPU test graphs: road-like grids, uniform random, star, path and
/// R-MAT of several sizes, plus shapes that break careless kernels (one
/// vertex, no edges, many components, a directed graph).
pub fn test_graphs() -> Vec<(String, Csr)> {
    let mut graphs: Vec<(String, Csr)> = [
        ("grid:64x64:0.1", 1),
        ("grid:300x200:0.05", 2),
        ("grid:50x50:0.45", 3),
        ("uniform:5000:20000", 4),
        ("uniform:20000:30000", 5),
        ("star:3000", 6),
        ("path:2000", 7),
        ("kron:12:16", 8),
        ("kron:15:8", 9),
        ("path:1", 10),
        ("uniform:1000:0", 11),
    ]
    .into_iter()
    .map(|(spec, seed)| (format!("gen:{spec} seed {seed}"), generated(spec, seed)))
    .collect();
    graphs.push(("directed random".into(), directed_random(4000, 16000, 12)));
    graphs
}

/// A directed graph with `edges` random arcs (a tiny linear congruential
/// stream, so the test needs no generator support for directed graphs).
pub fn directed_random(vertices: u32, edges: u32, seed: u64) -> Csr {
    let mut state = seed;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % vertices as u64) as u32
    };
    let arcs: Vec<(u32, u32)> = (0..edges).map(|_| (next(), next())).collect();
    Csr::from_edges(vertices, &arcs, false).expect("small graph")
}

/// Sources to search from: the first, middle and last vertex, the vertex of
/// highest degree, and an isolated one if the graph has one.
pub fn sources(graph: &Csr) -> Vec<u32> {
    let n = graph.vertex_count();
    let hub = (0..n)
        .max_by_key(|&vertex| graph.degree(vertex))
        .unwrap_or(0);
    let isolated = (0..n).find(|&vertex| graph.degree(vertex) == 0);
    let mut sources = vec![0, n / 2, n - 1, hub];
    sources.extend(isolated);
    sources.sort_unstable();
    sources.dedup();
    sources
}

/// The `bfs` binary: `$BFS_BINARY`, else next to the test executable's
/// folder (`target/<profile>/bfs` for `target/<profile>/deps/<test>`, and
/// `bundle/bfs` for `bundle/tests/<test>`). `cargo xtask test` builds it first.
pub fn bfs_binary() -> std::path::PathBuf {
    if let Some(path) = std::env::var_os("BFS_BINARY") {
        return path.into();
    }
    let executable = std::env::current_exe().expect("the test executable's path");
    let binary = executable
        .parent()
        .and_then(std::path::Path::parent)
        .expect("a folder above the test")
        .join("bfs");
    assert!(
        binary.exists(),
        "{} is missing: build it (cargo build --bin bfs; cargo xtask test does)",
        binary.display()
    );
    binary
}

/// The `bfs` binary as a command that inherits none of the variables that
/// place a rank of a search over processes (a launcher's, `BFS_RANK` and
/// the like) from the tests' environment.
pub fn unplaced_bfs() -> std::process::Command {
    let mut command = std::process::Command::new(bfs_binary());
    let launchers = bfs::multi::launcher::Launcher::ALL
        .iter()
        .flat_map(|launcher| launcher.variables());
    let options = [
        "BFS_RANK",
        "BFS_RANKS",
        "BFS_NCCL_ID_FILE",
        "BFS_MASTER_ADDR",
        "BFS_MASTER_PORT",
    ];
    for name in launchers.flatten().chain(options) {
        command.env_remove(name);
    }
    command
}

/// What a run of the `bfs` binary printed, and how it ended.
pub struct Cli {
    /// Exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs the `bfs` binary with `arguments`.
pub fn run_bfs(arguments: &[&str]) -> Cli {
    unplaced_bfs()
        .args(arguments)
        .output()
        .expect("running bfs")
        .into()
}

impl From<std::process::Output> for Cli {
    fn from(output: std::process::Output) -> Cli {
        Cli {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into(),
            stderr: String::from_utf8_lossy(&output.stderr).into(),
        }
    }
}

impl Cli {
    /// Asserts a failure with exit code 1 or 2 and one `error: …` line
    /// containing `expected`, and no panic; returns the line.
    pub fn assert_one_line_error(&self, expected: &str) -> String {
        let lines: Vec<&str> = self
            .stderr
            .lines()
            .filter(|line| !line.starts_with("note:"))
            .collect();
        assert!(
            matches!(self.code, Some(1 | 2)),
            "exit {:?}, stderr: {}",
            self.code,
            self.stderr
        );
        assert_eq!(lines.len(), 1, "not one line: {}", self.stderr);
        assert!(lines[0].starts_with("error: "), "{}", lines[0]);
        assert!(
            lines[0].contains(expected),
            "'{}' lacks '{expected}'",
            lines[0]
        );
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        lines[0].to_string()
    }
}

/// A fresh temporary folder for `test`.
pub fn temporary_folder(test: &str) -> std::path::PathBuf {
    let folder = std::env::temp_dir().join(format!("bfs-tests-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a temporary folder");
    folder
}

/// A small undirected graph of every shape a chain contraction meets: a
/// ring with no junction (0–4), a chain from a junction back to itself
/// (5–7–8–9–5), a long chain between junctions (5–6–10–11–12), parallel
/// chains and an edge between the same two junctions (12–14–13, 12–15–16–13,
/// 12–13), a dead end (13–20), an isolated vertex (17) and a lone edge (18–19).
pub fn chains_and_rings() -> Csr {
    let edges = [
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 4),
        (4, 0),
        (5, 6),
        (6, 10),
        (10, 11),
        (5, 7),
        (7, 8),
        (8, 9),
        (9, 5),
        (11, 12),
        (12, 14),
        (14, 13),
        (12, 15),
        (15, 16),
        (16, 13),
        (12, 13),
        (13, 20),
        (18, 19),
    ];
    Csr::from_edges(21, &edges, true).expect("small graph")
}

/// The CPU's versions of what the contraction variants compute, for tests
/// that check contractions and hierarchies without a GPU.
pub mod sweeps {
    use bfs::UNREACHED as U;
    use bfs::graph::chains::{ChainContraction, Place, WeightedRows};
    use bfs::graph::hierarchy::ContractionHierarchy;

    /// A kept vertex (its index) and its distance from the source.
    pub type Seed = (u32, u32);
    /// A chain and a position along it.
    pub type OnChain = (u32, u32);

    /// The seeds of a search from `source` over `contraction`'s kept vertices
    /// (kept index, distance), and the source's chain and position if it lies in one.
    pub fn seeds(contraction: &ChainContraction, source: u32) -> (Vec<Seed>, Option<OnChain>) {
        match contraction.place(source) {
            Place::Kept(kept) => (vec![(kept, 0)], None),
            Place::InChain { chain, position } => {
                let ends = contraction.chain(chain);
                (
                    vec![
                        (ends.first_end, position),
                        (ends.second_end, ends.length - position),
                    ],
                    Some((chain, position)),
                )
            }
        }
    }

    /// Every vertex's distance from the kept vertices' `labels`: a chain's
    /// vertices from its ends (and along the source's own chain).
    pub fn expand_chains(
        contraction: &ChainContraction,
        labels: &[u32],
        source_chain: Option<OnChain>,
    ) -> Vec<u32> {
        (0..contraction.places.len() as u32 / 2)
            .map(|vertex| match contraction.place(vertex) {
                Place::Kept(kept) => labels[kept as usize],
                Place::InChain { chain, position } => {
                    let ends = contraction.chain(chain);
                    let along = match source_chain {
                        Some((on, at)) if on == chain => position.abs_diff(at),
                        _ => U,
                    };
                    labels[ends.first_end as usize]
                        .saturating_add(position)
                        .min(
                            labels[ends.second_end as usize].saturating_add(ends.length - position),
                        )
                        .min(along)
                }
            })
            .collect()
    }

    /// Distances from `source` as the `hierarchy-sweep` variant computes them,
    /// here on the CPU: the upward sweep level by level, Bellman–Ford rounds
    /// over the core, the downward sweep, then each chain's vertices.
    pub fn hierarchy_levels(hierarchy: &ContractionHierarchy, source: u32) -> Vec<u32> {
        let contraction = &hierarchy.chains;
        let mut labels = vec![U; contraction.kept_count() as usize];
        let (seeds, source_chain) = seeds(contraction, source);
        for (kept, distance) in seeds {
            labels[kept as usize] = labels[kept as usize].min(distance);
        }
        let level = |level: usize| hierarchy.level_starts[level]..hierarchy.level_starts[level + 1];
        let core_level = hierarchy.level_count() as usize - 1;
        let pull = |labels: &mut [u32], rows: &WeightedRows, vertex: u32| {
            for (head, weight) in rows.of(vertex) {
                labels[vertex as usize] =
                    labels[vertex as usize].min(labels[head as usize].saturating_add(weight));
            }
        };
        for up in 1..=core_level {
            for vertex in level(up) {
                pull(&mut labels, &hierarchy.lower, vertex);
            }
        }
        let mut lowered = true;
        while lowered {
            lowered = false;
            for vertex in hierarchy.core() {
                for (head, weight) in hierarchy.higher.of(vertex) {
                    let through = labels[vertex as usize].saturating_add(weight);
                    if through < labels[head as usize] {
                        labels[head as usize] = through;
                        lowered = true;
                    }
                }
            }
        }
        for down in (0..core_level).rev() {
            for vertex in level(down) {
                pull(&mut labels, &hierarchy.higher, vertex);
            }
        }
        expand_chains(contraction, &labels, source_chain)
    }
}
