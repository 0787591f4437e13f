//! Seeded graph generators, so every run and test can have data without files.
//!
//! Specifications (`--graph gen:SPEC`):
//! - `grid:WxH[:MISSING]`: a road-like grid, each street (edge to the right
//!   or below) missing with probability MISSING (default 0.05). Diameter
//!   about W + H: the high-diameter shape of road networks.
//! - `kron:SCALE[:EDGE_FACTOR]` (alias `rmat`): Graph500's Kronecker/R-MAT
//!   graph, 2^SCALE vertices, EDGE_FACTOR · 2^SCALE edges (default 16),
//!   quadrant probabilities A = 0.57, B = C = 0.19, vertex ids permuted.
//!   Scale-free: a few hubs, low diameter.
//! - `dkron:SCALE[:EDGE_FACTOR]`: the same draws as arcs, tail to head, not
//!   mirrored: a directed scale-free graph (for strong components).
//! - `uniform:N:M`: N vertices and M uniformly random edges.
//! - `road:JUNCTIONS[:ONEWAY[:SHAPE]]`: a road network: junctions joined by
//!   streets of up to SHAPE degree-2 shape points (default 11; 0 for a
//!   network of few chains), dead ends, and with ONEWAY above 0 (a
//!   directed graph) that share of streets one-way (`graph::generate::road`).
//! - `path:N`, `star:N`: a path 0–1–…–(N-1), and vertex 0 joined to all others.
//! - `hub:LEAVES:EXTRA`: a star whose hub, vertex 0, has LEAVES leaves
//!   (1 to LEAVES), plus EXTRA uniformly random edges among all its
//!   vertices: one vertex of degree about LEAVES, the rest of a few.
//! - `stars:HUBS:LEAVES`: a clique of stars: HUBS hubs joined to each
//!   other, each the centre of a star of LEAVES leaves; hub `h` is vertex
//!   `h · (LEAVES + 1)`, its leaves the ids after it (`stars:1000:999` has
//!   a million vertices).
//!
//! All graphs but one-way road networks and `dkron` are undirected; M and EDGE_FACTOR
//! count generated edges before mirroring, self loops and duplicates are
//! dropped. The random streams they draw from are in `generate/random.rs`.

use std::fmt;
use std::str::FromStr;

use rayon::prelude::*;

use super::build::build_fits;
use super::{Progress, Visitor};
use crate::{Csr, Error, Result};

mod random;
pub mod road;

use random::Relabelling;
pub(super) use random::SplitMix64;

/// A generator and its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// Road-like grid.
    Grid {
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
        /// Probability that a street is missing.
        missing: f64,
    },
    /// Graph500 Kronecker / R-MAT.
    Kronecker {
        /// log2 of the vertex count.
        scale: u32,
        /// Edges per vertex.
        edge_factor: u32,
    },
    /// Graph500 Kronecker / R-MAT draws as arcs: directed.
    DirectedKronecker {
        /// log2 of the vertex count.
        scale: u32,
        /// Arcs per vertex.
        edge_factor: u32,
    },
    /// Uniformly random edges.
    Uniform {
        /// Vertices.
        vertices: u32,
        /// Edges.
        edges: u64,
    },
    /// A road network (`graph::generate::road`).
    Road {
        /// Junctions.
        junctions: u32,
        /// Share of one-way streets; above 0, the graph is directed.
        one_way: f64,
        /// The most shape points a street holds.
        most_shape_points: u32,
    },
    /// A simple path.
    Path {
        /// Vertices.
        vertices: u32,
    },
    /// One hub joined to every other vertex.
    Star {
        /// Vertices.
        vertices: u32,
    },
    /// A star with uniformly random edges added.
    Hub {
        /// The hub's leaves (the graph has one vertex more).
        leaves: u32,
        /// Random edges among all the vertices.
        extra: u64,
    },
    /// Hubs forming a clique, each the centre of a star.
    CliqueOfStars {
        /// Hubs.
        hubs: u32,
        /// Leaves of each hub.
        leaves: u32,
    },
}

/// A generator specification with its random seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spec {
    /// What to generate.
    pub shape: Shape,
    /// Seed of the pseudo-random stream; the same seed gives the same graph.
    pub seed: u64,
}

impl Eq for Spec {}

/// Seed used when none is given.
pub const DEFAULT_SEED: u64 = 1;

/// The default graph of `bfs` with no `--graph`: a 1000×1000 road-like grid.
pub const DEFAULT_GRAPH: &str = "grid:1000x1000:0.05";

impl Spec {
    /// Generates the graph, in parallel chunks, each with its own stream
    /// derived from the seed (the same graph on any number of threads).
    /// The generators are deterministic, so they run twice and no edge
    /// list is held: once to count each vertex's degree, once to scatter
    /// the edges into the CSR ([`Csr::from_edge_passes`]). A progress bar
    /// appears on a terminal when that takes more than a second.
    pub fn generate(&self) -> Result<Csr> {
        match self.shape {
            Shape::Grid {
                width,
                height,
                missing,
            } => {
                let vertex_count = checked_vertex_count(width as u64 * height as u64)?;
                let rows_per_chunk = (CHUNK_EDGES / (2 * width as u64).max(1)).max(1) as u32;
                let chunks = height.div_ceil(rows_per_chunk) as u64;
                self.build(
                    vertex_count,
                    chunks,
                    2 * width as u64 * height as u64,
                    true,
                    |chunk, visit| {
                        let mut random = self.stream(chunk);
                        let first_row = chunk as u32 * rows_per_chunk;
                        for y in first_row..(first_row + rows_per_chunk).min(height) {
                            for x in 0..width {
                                let vertex = y * width + x;
                                if x + 1 < width && random.unit() >= missing {
                                    visit(vertex, vertex + 1);
                                }
                                if y + 1 < height && random.unit() >= missing {
                                    visit(vertex, vertex + width);
                                }
                            }
                        }
                    },
                )
            }
            Shape::Kronecker { scale, edge_factor } => self.kronecker(scale, edge_factor, true),
            Shape::DirectedKronecker { scale, edge_factor } => {
                self.kronecker(scale, edge_factor, false)
            }
            Shape::Uniform { vertices, edges } => {
                checked_vertex_count(vertices as u64)?;
                self.draws(vertices, (edges, true), |random| {
                    (random.below(vertices), random.below(vertices))
                })
            }
            Shape::Road {
                junctions,
                one_way,
                most_shape_points,
            } => {
                checked_vertex_count(junctions as u64)?;
                // The junctions alone, refused before their streets are
                // counted where they would not fit.
                build_fits(junctions, 0, one_way == 0.0).map_err(Error::GraphTooLarge)?;
                road::generate(
                    (junctions, one_way, most_shape_points),
                    self.seed,
                    |vertex_count, chunks, most_edges, chunk| {
                        self.build(vertex_count, chunks, most_edges, one_way == 0.0, chunk)
                    },
                )
            }
            Shape::Path { vertices } => {
                let vertex_count = checked_vertex_count(vertices as u64)?;
                let edges = vertex_count as u64 - 1;
                self.build(
                    vertex_count,
                    edges.div_ceil(CHUNK_EDGES),
                    edges,
                    true,
                    |chunk, visit| {
                        for vertex in chunk_vertices(chunk, vertex_count) {
                            visit(vertex - 1, vertex);
                        }
                    },
                )
            }
            Shape::Star { vertices } => {
                let vertex_count = checked_vertex_count(vertices as u64)?;
                self.hub(vertex_count - 1, 0)
            }
            Shape::Hub { leaves, extra } => self.hub(leaves, extra),
            Shape::CliqueOfStars { hubs, leaves } => {
                let star = leaves as u64 + 1;
                let vertex_count = checked_vertex_count(hubs as u64 * star)?;
                let clique_edges = hubs as u64 * (hubs as u64).saturating_sub(1) / 2;
                // A chunk a hub: its leaves, and its clique edges to the
                // hubs after it.
                self.build(
                    vertex_count,
                    hubs as u64,
                    hubs as u64 * leaves as u64 + clique_edges,
                    true,
                    |hub, visit| {
                        let centre = (hub * star) as u32;
                        for leaf in 1..star as u32 {
                            visit(centre, centre + leaf);
                        }
                        for other in hub + 1..hubs as u64 {
                            visit(centre, (other * star) as u32);
                        }
                    },
                )
            }
        }
    }

    /// Vertex 0 joined to `leaves` leaves (1 to `leaves`), with `extra`
    /// uniformly random edges among all the vertices.
    fn hub(&self, leaves: u32, extra: u64) -> Result<Csr> {
        let vertex_count = checked_vertex_count(leaves as u64 + 1)?;
        let star_chunks = (leaves as u64).div_ceil(CHUNK_EDGES);
        let chunks = star_chunks + extra.div_ceil(CHUNK_EDGES);
        let edges = (leaves as u64).saturating_add(extra);
        self.build(vertex_count, chunks, edges, true, |chunk, visit| {
            if chunk < star_chunks {
                for leaf in chunk_vertices(chunk, vertex_count) {
                    visit(0, leaf);
                }
                return;
            }
            let chunk = chunk - star_chunks;
            let mut random = self.stream(chunk);
            for _ in 0..CHUNK_EDGES.min(extra - chunk * CHUNK_EDGES) {
                visit(random.below(vertex_count), random.below(vertex_count));
            }
        })
    }

    /// Graph500's Kronecker graph of 2^`scale` vertices and `edge_factor`
    /// draws a vertex, its edges mirrored where `symmetric`.
    fn kronecker(&self, scale: u32, edge_factor: u32, symmetric: bool) -> Result<Csr> {
        if scale >= 32 {
            return Err(Error::GraphTooLarge(format!(
                "Kronecker scale {scale}: at most 31"
            )));
        }
        let vertex_count = 1u32 << scale;
        let relabel = Relabelling::new(&mut SplitMix64(self.seed), scale);
        self.draws(
            vertex_count,
            (edge_factor as u64 * vertex_count as u64, symmetric),
            |random| {
                let (tail, head) = random.kronecker_edge(scale);
                (relabel.of(tail), relabel.of(head))
            },
        )
    }

    /// The random stream of chunk `chunk`.
    fn stream(&self, chunk: u64) -> SplitMix64 {
        SplitMix64(self.seed ^ (chunk + 1).wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    /// The graph of `count` edges drawn by `edge`, in chunks of
    /// [`CHUNK_EDGES`], each from its own stream, mirrored where
    /// `symmetric`.
    fn draws(
        &self,
        vertex_count: u32,
        (count, symmetric): (u64, bool),
        edge: impl Fn(&mut SplitMix64) -> (u32, u32) + Sync,
    ) -> Result<Csr> {
        let chunks = count.div_ceil(CHUNK_EDGES);
        self.build(vertex_count, chunks, count, symmetric, |chunk, visit| {
            let mut random = self.stream(chunk);
            for _ in 0..CHUNK_EDGES.min(count - chunk * CHUNK_EDGES) {
                let (tail, head) = edge(&mut random);
                visit(tail, head);
            }
        })
    }

    /// The graph whose edges `chunk(c, visit)` visits, for the `chunks`
    /// chunks `c`, in parallel and twice (count, then scatter): undirected
    /// (each edge mirrored) where `symmetric`, else directed as the chunks
    /// visit its arcs. `most_edges` bounds their number, for the memory
    /// check and the progress bar.
    fn build(
        &self,
        vertex_count: u32,
        chunks: u64,
        most_edges: u64,
        symmetric: bool,
        chunk: impl Fn(u64, &mut dyn FnMut(u32, u32)) + Sync,
    ) -> Result<Csr> {
        let progress = Progress::edges(
            &format!("generating gen:{self}"),
            most_edges.saturating_mul(2),
        );
        let pass = |visit: Visitor<'_>| {
            (0..chunks)
                .into_par_iter()
                .for_each_init(Vec::new, |batch, index| {
                    batch.clear();
                    chunk(index, &mut |tail, head| batch.push((tail, head)));
                    visit(batch);
                    progress.advance(batch.len() as u64);
                })
        };
        let graph = Csr::from_edge_passes((vertex_count, most_edges), symmetric, pass);
        progress.finish();
        graph
    }
}

/// Edges per generated chunk: fixed, so a seed gives one graph whatever
/// the number of threads.
pub const CHUNK_EDGES: u64 = 1 << 16;

/// The vertices 1 to `vertex_count` - 1 of chunk `chunk`, [`CHUNK_EDGES`]
/// a chunk: the heads of a path's or a star's edges.
fn chunk_vertices(chunk: u64, vertex_count: u32) -> std::ops::Range<u32> {
    let first = chunk * CHUNK_EDGES + 1;
    first as u32..(first + CHUNK_EDGES).min(vertex_count as u64) as u32
}

fn checked_vertex_count(count: u64) -> Result<u32> {
    u32::try_from(count)
        .ok()
        .filter(|&count| count != u32::MAX && count != 0)
        .ok_or_else(|| Error::GraphTooLarge(format!("{count} vertices: need 1 to 2^32 - 1")))
}

impl FromStr for Spec {
    type Err = Error;

    fn from_str(text: &str) -> Result<Spec> {
        let error = |message: &str| Error::Generator {
            spec: text.into(),
            message: message.into(),
        };
        let fields: Vec<&str> = text.split(':').collect();
        let number = |index: usize, what: &str| -> Result<u64> {
            fields
                .get(index)
                .ok_or_else(|| error(&format!("missing {what}")))?
                .parse()
                .map_err(|_| error(&format!("{what} '{}' is not a number", fields[index])))
        };
        let optional = |index: usize, what: &str, default: u64| match fields.get(index) {
            Some(_) => number(index, what),
            None => Ok(default),
        };
        let small = |value: u64, what: &str| {
            u32::try_from(value).map_err(|_| error(&format!("{what} too large")))
        };
        // A count of vertices in field `index`: 1 or more.
        let count = |index: usize, what: &str| match small(number(index, what)?, what)? {
            0 => Err(error(&format!("{what} must be at least 1"))),
            count => Ok(count),
        };
        // A share from 0 to 1 in field `index`, `default` where absent.
        let share = |index: usize, what: &str, default: f64| {
            let value = match fields.get(index) {
                Some(value) => value
                    .parse::<f64>()
                    .map_err(|_| error(&format!("{what} is not a number")))?,
                None => default,
            };
            match (0.0..=1.0).contains(&value) {
                true => Ok(value),
                false => Err(error(&format!("{what} must be between 0 and 1"))),
            }
        };
        let shape = match fields[0] {
            "grid" => {
                let size = fields.get(1).ok_or_else(|| error("missing WxH"))?;
                let (width, height) = size
                    .split_once('x')
                    .ok_or_else(|| error("size must be WxH"))?;
                let width: u32 = width.parse().map_err(|_| error("width is not a number"))?;
                let height: u32 = height
                    .parse()
                    .map_err(|_| error("height is not a number"))?;
                if width == 0 || height == 0 {
                    return Err(error("width and height must be at least 1"));
                }
                Shape::Grid {
                    width,
                    height,
                    missing: share(2, "missing fraction", 0.05)?,
                }
            }
            "kron" | "rmat" => Shape::Kronecker {
                scale: small(number(1, "scale")?, "scale")?,
                edge_factor: small(optional(2, "edge factor", 16)?, "edge factor")?,
            },
            "dkron" => Shape::DirectedKronecker {
                scale: small(number(1, "scale")?, "scale")?,
                edge_factor: small(optional(2, "edge factor", 16)?, "edge factor")?,
            },
            "uniform" => Shape::Uniform {
                vertices: count(1, "N")?,
                edges: number(2, "M")?,
            },
            "road" => {
                let one_way = share(2, "one-way share", 0.0)?;
                let most_shape_points = match fields.get(3) {
                    Some(value) => value
                        .parse::<u32>()
                        .ok()
                        .filter(|&points| points <= road::MOST_SHAPE_POINTS_ASKED)
                        .ok_or_else(|| {
                            error(&format!(
                                "SHAPE is the most shape points a street holds, 0 to {}",
                                road::MOST_SHAPE_POINTS_ASKED
                            ))
                        })?,
                    None => road::MOST_SHAPE_POINTS,
                };
                Shape::Road {
                    junctions: count(1, "JUNCTIONS")?,
                    one_way,
                    most_shape_points,
                }
            }
            "path" => Shape::Path {
                vertices: count(1, "N")?,
            },
            "star" => Shape::Star {
                vertices: count(1, "N")?,
            },
            "hub" => Shape::Hub {
                leaves: small(number(1, "LEAVES")?, "LEAVES")?,
                extra: number(2, "EXTRA")?,
            },
            "stars" => Shape::CliqueOfStars {
                hubs: count(1, "HUBS")?,
                leaves: small(number(2, "LEAVES")?, "LEAVES")?,
            },
            _ => {
                return Err(error(
                    "expected grid:WxH[:MISSING], kron:SCALE[:EDGE_FACTOR], dkron:SCALE[:EDGE_FACTOR], \
                     uniform:N:M, \
                     road:JUNCTIONS[:ONEWAY[:SHAPE]], path:N, star:N, hub:LEAVES:EXTRA or stars:HUBS:LEAVES",
                ));
            }
        };
        let expected_fields = match shape {
            Shape::Road { .. } => 4,
            Shape::Grid { .. } | Shape::Kronecker { .. } => 3,
            Shape::DirectedKronecker { .. } => 3,
            Shape::Uniform { .. } | Shape::Hub { .. } | Shape::CliqueOfStars { .. } => 3,
            Shape::Path { .. } | Shape::Star { .. } => 2,
        };
        if fields.len() > expected_fields {
            return Err(error("too many fields"));
        }
        Ok(Spec {
            shape,
            seed: DEFAULT_SEED,
        })
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.shape {
            Shape::Grid {
                width,
                height,
                missing,
            } => write!(formatter, "grid:{width}x{height}:{missing}"),
            Shape::Kronecker { scale, edge_factor } => {
                write!(formatter, "kron:{scale}:{edge_factor}")
            }
            Shape::DirectedKronecker { scale, edge_factor } => {
                write!(formatter, "dkron:{scale}:{edge_factor}")
            }
            Shape::Uniform { vertices, edges } => write!(formatter, "uniform:{vertices}:{edges}"),
            Shape::Road {
                junctions,
                one_way,
                most_shape_points,
            } => {
                write!(formatter, "road:{junctions}:{one_way}")?;
                // The default stays unwritten, so names from before stay.
                match most_shape_points {
                    road::MOST_SHAPE_POINTS => Ok(()),
                    points => write!(formatter, ":{points}"),
                }
            }
            Shape::Path { vertices } => write!(formatter, "path:{vertices}"),
            Shape::Star { vertices } => write!(formatter, "star:{vertices}"),
            Shape::Hub { leaves, extra } => write!(formatter, "hub:{leaves}:{extra}"),
            Shape::CliqueOfStars { hubs, leaves } => write!(formatter, "stars:{hubs}:{leaves}"),
        }
    }
}

/// `count` distinct random vertices with at least one edge (fewer if the
/// graph has fewer), as Graph500 picks its search keys.
pub fn sources_with_edges(graph: &Csr, count: usize, seed: u64) -> Vec<u32> {
    let candidates: Vec<u32> = (0..graph.vertex_count())
        .filter(|&vertex| graph.degree(vertex) > 0)
        .collect();
    SplitMix64(seed)
        .permutation(candidates.len() as u32)
        .iter()
        .take(count)
        .map(|&index| candidates[index as usize])
        .collect()
}

/// `count` vertices of `graph` drawn uniformly without replacement (all of
/// them where `count` is more), by `seed`, in increasing order: a sample
/// for estimates over every vertex, isolated ones included.
pub fn sample_vertices(graph: &Csr, count: usize, seed: u64) -> Vec<u32> {
    let mut sample: Vec<u32> = SplitMix64(seed)
        .permutation(graph.vertex_count())
        .into_iter()
        .take(count)
        .collect();
    sample.sort_unstable();
    sample
}
