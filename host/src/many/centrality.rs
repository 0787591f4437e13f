//! What is computed from the searches of many sources: closeness
//! (Wasserman & Faust's form for graphs of several components), harmonic
//! centrality (Marchiori & Latora 2000; Boldi & Vigna 2014), eccentricity
//! with the radius and the diameter, and the distance histogram; exactly
//! from every vertex, or estimated from a uniform sample of sources
//! (Eppstein & Wang, "Fast Approximation of Centrality", SODA 2001).
//!
//! The conventions are networkx's: closeness and harmonic centrality of
//! `v` sum the distances *to* `v` (on a directed graph, the searches'
//! totals at `v`), closeness is `(r / S) · (r / (n − 1))` for the `r`
//! other vertices that reach `v` at `S` summed distances (0 where none
//! does), harmonic centrality is `Σ 1/d` over them, and the eccentricity of
//! `v` is its greatest distance *from* `v`. Where a graph is not
//! (strongly) connected, networkx refuses eccentricity; here it is the
//! greatest distance to a vertex `v` reaches, and the radius and diameter
//! are the least and greatest of those, said so in the report. A depth
//! limit makes distances past it count as unreachable.
//!
//! From a sample of `N` sources, `r` and `S` (or `Σ 1/d`) are scaled by
//! `(n − 1) / N'`, `N'` the sampled sources other than `v`: closeness is
//! estimated as `(r / S) · (r / N')` and harmonic centrality as
//! `Σ 1/d · (n − 1) / N'`. Eccentricity from a sample is a lower bound on
//! an undirected graph: a sampled source's own, and for any vertex the
//! greatest distance from a sampled source; the diameter found is a lower
//! bound and the radius an upper one.

use super::{Reduced, VertexTotals};
use crate::{Csr, UNREACHED, cpu};

/// The sources a run searched from: every vertex, or a sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sources {
    /// Every vertex, in the order given.
    All(Vec<u32>),
    /// A sample of distinct vertices, in the order given.
    Sample(Vec<u32>),
}

impl Sources {
    /// The sources, in the order searched.
    pub fn list(&self) -> &[u32] {
        match self {
            Sources::All(sources) | Sources::Sample(sources) => sources,
        }
    }

    /// For each vertex, the sampled sources other than itself (`N'`), and
    /// whether it is one.
    fn others(&self, vertex_count: u32) -> impl Fn(usize) -> (f64, bool) {
        let list = self.list();
        let mut sampled = vec![false; vertex_count as usize];
        for &source in list {
            sampled[source as usize] = true;
        }
        let count = list.len() as f64;
        move |vertex| {
            let own = sampled[vertex];
            (count - f64::from(u8::from(own)), own)
        }
    }

    /// Whether every vertex is a source.
    pub fn is_all(&self) -> bool {
        matches!(self, Sources::All(_))
    }
}

/// The per-vertex totals of a search from every vertex of an undirected
/// graph, from each source's own sums (`reduced`): distances to a vertex
/// are its distances from it there, so no totals need be kept.
pub fn own_totals(reduced: &Reduced, sources: &[u32]) -> VertexTotals {
    let mut totals = VertexTotals::new(sources.len() as u32);
    for (index, &source) in sources.iter().enumerate() {
        let vertex = source as usize;
        totals.reached_by[vertex] = reduced.reached[index];
        totals.distance_sums[vertex] = reduced.distance_sums[index];
        totals.reciprocal_sums[vertex] = reduced.reciprocal_sums[index];
        totals.farthest[vertex] = reduced.eccentricities[index];
    }
    totals
}

/// Closeness of each vertex (see the module's header): exact from every
/// vertex, estimated from a sample.
pub fn closeness(totals: &VertexTotals, sources: &Sources) -> Vec<f64> {
    let vertex_count = totals.reached_by.len() as u32;
    let others = sources.others(vertex_count);
    (0..vertex_count as usize)
        .map(|vertex| {
            let (others, own) = others(vertex);
            let reached = (totals.reached_by[vertex] - u32::from(own)) as f64;
            let distances = totals.distance_sums[vertex] as f64;
            if distances == 0.0 || others == 0.0 {
                0.0
            } else {
                (reached / distances) * (reached / others)
            }
        })
        .collect()
}

/// Harmonic centrality of each vertex (see the module's header): exact
/// from every vertex, estimated from a sample.
pub fn harmonic(totals: &VertexTotals, sources: &Sources) -> Vec<f64> {
    let vertex_count = totals.reached_by.len() as u32;
    let others = sources.others(vertex_count);
    let scale = vertex_count.saturating_sub(1) as f64;
    (0..vertex_count as usize)
        .map(|vertex| match others(vertex).0 {
            0.0 => 0.0,
            // (n − 1) / N' is 1 exactly from every vertex.
            others => totals.reciprocal_sums[vertex] * (scale / others),
        })
        .collect()
}

/// Eccentricities and what follows from them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eccentricities {
    /// Each vertex's eccentricity (from a sample, a lower bound).
    pub values: Vec<u32>,
    /// The least eccentricity (from a sample, the least of the sampled
    /// sources': an upper bound) and a vertex that has it.
    pub radius: (u32, u32),
    /// The greatest (from a sample, a lower bound), and a pair of vertices
    /// that far apart: the first's search reaches the second last.
    pub diameter: (u32, u32, u32),
    /// Whether every source reached every vertex.
    pub connected: bool,
    /// Whether from every vertex, not a sample.
    pub exact: bool,
}

/// Eccentricities from `reduced`, the searches from `sources` (with
/// per-vertex totals where `sources` is a sample), and the diameter's far
/// end by one more search of `graph` within `depth_limit`.
pub fn eccentricities(
    graph: &Csr,
    reduced: &Reduced,
    sources: &Sources,
    depth_limit: Option<u32>,
) -> Eccentricities {
    let vertex_count = graph.vertex_count();
    let list = sources.list();
    let mut values = match (&reduced.totals, sources) {
        (Some(totals), Sources::Sample(_)) => totals.farthest.clone(),
        _ => vec![0; vertex_count as usize],
    };
    for (&source, &eccentricity) in list.iter().zip(&reduced.eccentricities) {
        let value = &mut values[source as usize];
        *value = (*value).max(eccentricity);
    }
    let by_source = || {
        list.iter()
            .copied()
            .zip(reduced.eccentricities.iter().copied())
    };
    // The least eccentricity, and the greatest, each at its lowest vertex.
    let radius = by_source()
        .map(|(vertex, value)| (value, vertex))
        .min()
        .unwrap_or((0, 0));
    let (diameter, from) = by_source()
        .map(|(vertex, value)| (value, u32::MAX - vertex))
        .max()
        .map_or((0, 0), |(value, vertex)| (value, u32::MAX - vertex));
    let to = match vertex_count {
        0 => 0,
        _ => far_end(graph, from, diameter, depth_limit),
    };
    Eccentricities {
        values,
        radius,
        diameter: (diameter, from, to),
        connected: reduced
            .reached
            .iter()
            .all(|&reached| reached == vertex_count),
        exact: sources.is_all(),
    }
}

/// The lowest vertex at `distance` from `from` (`from` itself at 0).
fn far_end(graph: &Csr, from: u32, distance: u32, depth_limit: Option<u32>) -> u32 {
    let levels = cpu::bfs(graph, from).levels;
    let within = |level: u32| level != UNREACHED && depth_limit.is_none_or(|limit| level <= limit);
    levels
        .iter()
        .position(|&level| within(level) && level == distance)
        .map_or(from, |vertex| vertex as u32)
}

/// The `count` vertices of greatest value, ties to the lower vertex, with
/// their values.
pub fn top<T: PartialOrd + Copy>(values: &[T], count: usize) -> Vec<(u32, T)> {
    let mut order: Vec<u32> = (0..values.len() as u32).collect();
    let before = |a: &u32, b: &u32| {
        let (x, y) = (values[*a as usize], values[*b as usize]);
        y.partial_cmp(&x)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(b))
    };
    if order.len() > count {
        order.select_nth_unstable_by(count, before);
        order.truncate(count);
    }
    order.sort_unstable_by(before);
    order
        .into_iter()
        .map(|vertex| (vertex, values[vertex as usize]))
        .collect()
}
