//! `gen:road:JUNCTIONS[:ONEWAY[:SHAPE]]`: a seeded road network of any
//! size, for the benchmarks and tests of the strategies meant for road
//! networks.
//!
//! Real road networks (OpenStreetMap's, the DIMACS challenge's) are planar
//! graphs of junctions joined by streets, each street drawn as a chain of
//! shape points of degree 2, with dead ends and some one-way streets. This
//! generator builds that shape: the junctions on a lattice of `⌈√J⌉`
//! columns, each joined to the next one along its row and along its column
//! with probability [`STREET_KEPT`], and across one diagonal of its cell
//! with probability [`DIAGONAL`] (one diagonal at most, so the network
//! stays planar); each street holds up to `SHAPE` shape points (by default
//! [`MOST_SHAPE_POINTS`]; 0 makes a network whose junctions mostly have
//! three streets or more, as the DIMACS and Li et al. road networks do,
//! with few chains to contract); a junction sprouts a dead-end lane of up to [`MOST_LANE_POINTS`]
//! points with probability [`DEAD_END`]. With `ONEWAY` above 0 the graph is
//! directed, that share of streets one-way (dead-end lanes never are).
//!
//! Every street draws from its own stream, keyed by its junction and its
//! slot, so the graph is the same on any number of threads. Junctions take
//! the first ids; a street's shape points follow, consecutive along it.

use rayon::prelude::*;

use super::random::SplitMix64;
use crate::{Csr, Error, Result};

/// Probability that a street joins two neighbouring junctions of the lattice.
pub const STREET_KEPT: f64 = 0.8;
/// Probability that a cell has a diagonal street.
pub const DIAGONAL: f64 = 0.15;
/// Probability that a junction has a dead-end lane.
pub const DEAD_END: f64 = 0.15;
/// Shape points a street holds by default: 0 to this many.
pub const MOST_SHAPE_POINTS: u32 = 11;
/// The most shape points a specification may ask a street to hold.
pub const MOST_SHAPE_POINTS_ASKED: u32 = 1_000;
/// Points of a dead-end lane: 1 to this many.
pub const MOST_LANE_POINTS: u32 = 6;

/// Junction rows a generator chunk takes.
const ROWS_PER_CHUNK: u32 = 64;

/// A street of junction `junction`'s slot: the junction it leads to (or
/// none, for a dead-end lane), its shape points, and which way a one-way
/// street runs.
struct Street {
    to: Option<u32>,
    points: u32,
    one_way: Option<bool>,
}

/// The network's lattice and parameters.
struct Network {
    junctions: u32,
    width: u32,
    one_way: f64,
    most_shape_points: u32,
    seed: u64,
}

impl Network {
    /// The street of `junction`'s `slot` (0: along the row, 1: along the
    /// column, 2: the diagonal, 3: the dead-end lane), if it has one.
    fn street(&self, junction: u32, slot: u32) -> Option<Street> {
        let key = (junction as u64) << 2 | slot as u64;
        let mut random = SplitMix64(self.seed ^ key.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let (x, width) = (junction % self.width, self.width);
        let inside = |other: u64| other < self.junctions as u64;
        let next_row = junction as u64 + width as u64;
        let to = match slot {
            0 if x + 1 < width && inside(junction as u64 + 1) => {
                (random.unit() < STREET_KEPT).then_some(junction + 1)
            }
            1 if inside(next_row) => (random.unit() < STREET_KEPT).then_some(next_row as u32),
            2 if x + 1 < width && inside(next_row + 1) => {
                // One of the cell's two diagonals, never both.
                (random.unit() < DIAGONAL).then(|| match random.next() & 1 {
                    0 => next_row as u32 + 1,
                    _ => next_row as u32,
                })
            }
            3 => {
                return (random.unit() < DEAD_END).then(|| Street {
                    to: None,
                    points: 1 + random.below(MOST_LANE_POINTS),
                    one_way: None,
                });
            }
            _ => None,
        }?;
        // One draw whatever the bound: the streets and their one-way
        // draws are the same for every `SHAPE`.
        let points = random.below(self.most_shape_points + 1);
        let one_way = (random.unit() < self.one_way).then(|| random.next() & 1 == 0);
        Some(Street {
            to: Some(to),
            points,
            one_way,
        })
    }

    /// The diagonal starts at the junction's right neighbour where the
    /// street leads back to the junction's column.
    fn from(&self, junction: u32, slot: u32, to: u32) -> u32 {
        match slot {
            2 if to == junction + self.width => junction + 1,
            _ => junction,
        }
    }

    /// Shape points of the streets of junctions `rows` rows.
    fn points_in(&self, rows: std::ops::Range<u32>) -> u64 {
        self.junctions_in(rows)
            .flat_map(|junction| (0..4).filter_map(move |slot| self.street(junction, slot)))
            .map(|street| street.points as u64)
            .sum()
    }

    fn junctions_in(&self, rows: std::ops::Range<u32>) -> std::ops::Range<u32> {
        let first = (rows.start as u64 * self.width as u64).min(self.junctions as u64) as u32;
        let end = (rows.end as u64 * self.width as u64).min(self.junctions as u64) as u32;
        first..end
    }
}

/// The road network of `junctions` junctions, `one_way` of its streets
/// one-way (a directed graph where above 0), each street of up to
/// `most_shape_points` shape points, from `seed`; `build` makes the graph
/// from its vertex count, its chunks and each chunk's edges.
pub(super) fn generate(
    (junctions, one_way, most_shape_points): (u32, f64, u32),
    seed: u64,
    build: impl FnOnce(u32, u64, u64, &(dyn Fn(u64, &mut dyn FnMut(u32, u32)) + Sync)) -> Result<Csr>,
) -> Result<Csr> {
    let width = (junctions as f64).sqrt().ceil().max(1.0) as u32;
    let network = Network {
        junctions,
        width,
        one_way,
        most_shape_points,
        seed,
    };
    let rows = junctions.div_ceil(width);
    let chunks = rows.div_ceil(ROWS_PER_CHUNK);
    let chunk_rows = |chunk: u32| chunk * ROWS_PER_CHUNK..((chunk + 1) * ROWS_PER_CHUNK).min(rows);
    // Each chunk's first shape point: the junctions, then the points of
    // the chunks before it.
    let points: Vec<u64> = (0..chunks)
        .into_par_iter()
        .map(|chunk| network.points_in(chunk_rows(chunk)))
        .collect();
    let mut first_points = Vec::with_capacity(points.len());
    let mut next = junctions as u64;
    for count in &points {
        first_points.push(next);
        next += count;
    }
    let vertex_count = u32::try_from(next)
        .ok()
        .filter(|&count| count != u32::MAX)
        .ok_or_else(|| Error::GraphTooLarge(format!("{next} vertices: need at most 2^32 - 2")))?;
    // A street's path has an edge more than its points (a lane's, as many),
    // and a junction at most four streets; a directed network visits a
    // two-way street's edges both ways.
    let most_edges = (next + 3 * junctions as u64) * if one_way > 0.0 { 2 } else { 1 };
    let chunk = |chunk: u64, visit: &mut dyn FnMut(u32, u32)| {
        let mut point = first_points[chunk as usize] as u32;
        for junction in network.junctions_in(chunk_rows(chunk as u32)) {
            for slot in 0..4 {
                let Some(street) = network.street(junction, slot) else {
                    continue;
                };
                // The street as a path: its start, its points, its end.
                let start = match street.to {
                    Some(to) => network.from(junction, slot, to),
                    None => junction,
                };
                let mut path = Vec::with_capacity(street.points as usize + 2);
                path.push(start);
                path.extend(point..point + street.points);
                path.extend(street.to);
                point += street.points;
                for pair in path.windows(2) {
                    match street.one_way {
                        None if one_way > 0.0 => {
                            visit(pair[0], pair[1]);
                            visit(pair[1], pair[0]);
                        }
                        None => visit(pair[0], pair[1]),
                        Some(true) => visit(pair[0], pair[1]),
                        Some(false) => visit(pair[1], pair[0]),
                    }
                }
            }
        }
    };
    build(vertex_count, chunks as u64, most_edges, &chunk)
}
