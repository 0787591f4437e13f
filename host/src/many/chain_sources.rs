//! Many sources on a road network, a source a thread, over its chains
//! contracted: each source searches only the kept vertices' weighted graph
//! (`graph/chains.rs`), and every chain's inner vertices are counted in
//! closed form from the distances of its two ends.
//!
//! The vertex at position `j` of a chain of length `L` between ends `a`
//! and `b` lies at `min(d(a) + j, d(b) + L − j)` from a source outside the
//! chain, so the chain's inner distances are two runs of consecutive
//! values, `d(a) + 1 ..` and `d(b) + 1 ..`, which meet where the two
//! terms cross: a chain costs a source two ranges in a difference array,
//! whatever its length. Only the source's own chain, where `|i − j|` may be
//! shorter, is walked vertex by vertex. The search over the kept vertices
//! is Dial's bucket queue (Dial, "Algorithm 360: Shortest-path forest with
//! topological ordering", CACM 1969), the arcs' weights being the chains'
//! lengths. On a road network most vertices lie inside chains, so a
//! source's work shrinks with the kept share of the vertices
//! (docs/many-sources.md).

use super::source_parallel::{PerThread, SOURCES_PER_THREAD, ThreadState};
use super::{BatchCounts, Keep, Limits, ManySources, VertexTotals};
use crate::graph::chains::{ChainContraction, Place};
use crate::{Csr, Result, UNREACHED};

/// Searches over the contracted chains on every thread of rayon's pool.
pub struct ChainSources<'g> {
    contracted: Contracted<'g>,
    threads: PerThread<Own>,
}

/// The graph and its chains contracted, which every thread reads.
struct Contracted<'g> {
    graph: &'g Csr,
    contraction: ChainContraction,
}

/// What a thread keeps between its searches.
#[derive(Default)]
struct Own {
    /// Each kept vertex's distance in the current search, [`UNREACHED`]
    /// between searches.
    distances: Vec<u32>,
    /// The kept vertices the current search reached.
    reached: Vec<u32>,
    /// Dial's buckets: the kept vertices queued at each distance.
    buckets: Vec<Vec<u32>>,
    /// The vertices at each distance, as differences: entry `d` minus
    /// entry `d − 1`.
    differences: Vec<i64>,
    /// Totals over the thread's sources of this batch.
    totals: Option<VertexTotals>,
}

impl ThreadState for Own {
    fn totals(&mut self) -> &mut Option<VertexTotals> {
        &mut self.totals
    }
}

impl Own {
    /// Counts one more vertex at each distance of `low..=high`.
    fn count_run(&mut self, low: u32, high: u32) {
        if low > high {
            return;
        }
        if self.differences.len() < high as usize + 2 {
            self.differences.resize(high as usize + 2, 0);
        }
        self.differences[low as usize] += 1;
        self.differences[high as usize + 1] -= 1;
    }

    /// Queues kept vertex `kept` at `distance` where that is shorter.
    fn reach(&mut self, kept: u32, distance: u32) {
        let known = &mut self.distances[kept as usize];
        if distance >= *known {
            return;
        }
        if *known == UNREACHED {
            self.reached.push(kept);
        }
        *known = distance;
        if self.buckets.len() <= distance as usize {
            self.buckets.resize_with(distance as usize + 1, Vec::new);
        }
        self.buckets[distance as usize].push(kept);
    }
}

impl<'g> ChainSources<'g> {
    /// An engine for `graph` on rayon's threads, its chains contracted.
    pub fn new(graph: &'g Csr) -> ChainSources<'g> {
        ChainSources {
            contracted: Contracted {
                graph,
                contraction: ChainContraction::of(graph),
            },
            threads: PerThread::new(),
        }
    }

    /// The kept share of the vertices, what a source's search scales with.
    pub fn kept_share(&self) -> f64 {
        let Contracted { graph, contraction } = &self.contracted;
        contraction.kept_count() as f64 / graph.vertex_count().max(1) as f64
    }
}

impl Contracted<'_> {
    /// The distance from the source to the vertex at `position` of chain
    /// `chain`, given its ends' distances in `distances`, and, where the
    /// source lies in that chain, its own position.
    fn in_chain(&self, distances: &[u32], chain: u32, position: u32, own: Option<u32>) -> u32 {
        let chain = self.contraction.chain(chain);
        let (first, second) = (
            distances[chain.first_end as usize],
            distances[chain.second_end as usize],
        );
        let along = own.map_or(UNREACHED, |own| own.abs_diff(position));
        along
            .min(first.saturating_add(position))
            .min(second.saturating_add(chain.length - position))
    }

    /// Searches from `source` with `own`'s buffers within `limits`:
    /// returns its counts, with its distances in `row` (where given) and
    /// added into `own`'s totals (where kept).
    fn search(
        &self,
        own: &mut Own,
        source: u32,
        limits: Limits,
        row: Option<&mut [i32]>,
    ) -> Vec<u64> {
        let kept_count = self.contraction.kept_count() as usize;
        if own.distances.len() != kept_count {
            own.distances = vec![UNREACHED; kept_count];
        }
        let limit = limits.depth_limit.unwrap_or(UNREACHED - 1);
        // The source's own chain and its position there, if it lies in one.
        let own_chain = match self.contraction.place(source) {
            Place::Kept(kept) => {
                own.reach(kept, 0);
                None
            }
            Place::InChain { chain, position } => {
                let ends = self.contraction.chain(chain);
                own.reach(ends.first_end, position);
                own.reach(ends.second_end, ends.length - position);
                Some((chain, position))
            }
        };
        // Dial: the buckets in order of distance, a stale entry skipped.
        let mut distance = 0;
        while (distance as usize) < own.buckets.len() && distance <= limit {
            let bucket = std::mem::take(&mut own.buckets[distance as usize]);
            for &kept in &bucket {
                if own.distances[kept as usize] != distance {
                    continue;
                }
                for (head, weight) in self.contraction.graph.of(kept) {
                    own.reach(head, distance + weight);
                }
            }
            own.buckets[distance as usize] = bucket;
            own.buckets[distance as usize].clear();
            distance += 1;
        }
        own.buckets.iter_mut().for_each(Vec::clear);
        // Past the limit a kept vertex stays unreached.
        for index in 0..own.reached.len() {
            let kept = own.reached[index] as usize;
            if own.distances[kept] > limit {
                own.distances[kept] = UNREACHED;
            } else {
                let at = own.distances[kept];
                own.count_run(at, at);
            }
        }
        self.count_chains(own, own_chain, limit);
        let counts = take_counts(&mut own.differences);
        if row.is_some() || own.totals.is_some() {
            self.each_distance(own, own_chain, limit, row);
        }
        for &kept in &own.reached {
            own.distances[kept as usize] = UNREACHED;
        }
        own.reached.clear();
        counts
    }

    /// Counts every chain's inner vertices within `limit`: two runs each
    /// (see the module's header); the source's own chain vertex by vertex.
    fn count_chains(&self, own: &mut Own, own_chain: Option<(u32, u32)>, limit: u32) {
        for chain in 0..self.contraction.chain_count() {
            let ends = self.contraction.chain(chain);
            if let Some((mine, position)) = own_chain
                && mine == chain
            {
                for inner in 1..ends.length {
                    let at = self.in_chain(&own.distances, chain, inner, Some(position));
                    if at <= limit {
                        own.count_run(at, at);
                    }
                }
                continue;
            }
            let (first, second) = (
                own.distances[ends.first_end as usize],
                own.distances[ends.second_end as usize],
            );
            let inner = ends.length.saturating_sub(1);
            // Positions 1..=split are nearer the first end.
            let split = match (first, second) {
                (UNREACHED, UNREACHED) => continue,
                (_, UNREACHED) => inner,
                (UNREACHED, _) => 0,
                _ => ((i64::from(second) - i64::from(first) + i64::from(ends.length)) / 2)
                    .clamp(0, i64::from(inner)) as u32,
            };
            if split > 0 {
                own.count_run(first + 1, (first + split).min(limit));
            }
            if split < inner {
                own.count_run(second + 1, (second + inner - split).min(limit));
            }
        }
    }

    /// Writes every vertex's distance into `row` (where given) and adds it
    /// into the thread's totals (where kept).
    fn each_distance(
        &self,
        own: &mut Own,
        own_chain: Option<(u32, u32)>,
        limit: u32,
        mut row: Option<&mut [i32]>,
    ) {
        for vertex in 0..self.graph.vertex_count() {
            let distance = match self.contraction.place(vertex) {
                Place::Kept(kept) => own.distances[kept as usize],
                Place::InChain { chain, position } => {
                    let mine = own_chain
                        .filter(|&(mine, _)| mine == chain)
                        .map(|(_, at)| at);
                    self.in_chain(&own.distances, chain, position, mine)
                }
            };
            let distance = if distance > limit {
                UNREACHED
            } else {
                distance
            };
            if let Some(row) = row.as_deref_mut() {
                row[vertex as usize] = if distance == UNREACHED {
                    -1
                } else {
                    distance as i32
                };
            }
            if let Some(totals) = &mut own.totals
                && distance != UNREACHED
            {
                totals.add_distance(vertex as usize, distance);
            }
        }
    }
}

/// The counts at each distance from their differences, which it clears:
/// the last entry non-zero.
fn take_counts(differences: &mut [i64]) -> Vec<u64> {
    let mut counts = Vec::new();
    let mut running = 0;
    for difference in differences.iter_mut() {
        running += *difference;
        *difference = 0;
        counts.push(running as u64);
    }
    while counts.last() == Some(&0) {
        counts.pop();
    }
    counts
}

impl ManySources for ChainSources<'_> {
    fn batch_width(&self) -> usize {
        SOURCES_PER_THREAD * self.threads.count()
    }

    fn search_batch(
        &mut self,
        sources: &[u32],
        limits: Limits,
        keep: Keep<'_>,
    ) -> Result<BatchCounts> {
        let contracted = &self.contracted;
        let vertex_count = contracted.graph.vertex_count();
        self.threads
            .search_batch(vertex_count, sources, keep, |own, source, row| {
                contracted.search(own, source, limits, row)
            })
    }

    fn describe(&self) -> String {
        format!(
            "CPU, {} threads, a source a thread over the contracted chains ({:.0}% of the \
             vertices kept; {} a batch)",
            self.threads.count(),
            100.0 * self.kept_share(),
            self.batch_width()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::generate::Spec;
    use crate::many::SourceParallel;

    /// Every source's counts, distances and totals equal a plain search's.
    fn same_as_plain_searches(graph: &Csr, limits: Limits) {
        let n = graph.vertex_count();
        let sources: Vec<u32> = (0..n).step_by((n as usize / 97).max(1)).collect();
        let mut chains = ChainSources::new(graph);
        let mut plain = SourceParallel::new(graph);
        let expected = plain
            .search_batch(&sources, limits, Keep::Counts)
            .expect("plain counts");
        let got = chains
            .search_batch(&sources, limits, Keep::Counts)
            .expect("chain counts");
        assert_eq!(got, expected, "counts");
        let mut rows = vec![0; sources.len() * n as usize];
        let mut expected_rows = rows.clone();
        plain
            .search_batch(&sources, limits, Keep::Distances(&mut expected_rows))
            .expect("plain rows");
        chains
            .search_batch(&sources, limits, Keep::Distances(&mut rows))
            .expect("chain rows");
        assert_eq!(rows, expected_rows, "distances");
        let (mut totals, mut expected_totals) = (VertexTotals::new(n), VertexTotals::new(n));
        plain
            .search_batch(&sources, limits, Keep::Totals(&mut expected_totals))
            .expect("plain totals");
        chains
            .search_batch(&sources, limits, Keep::Totals(&mut totals))
            .expect("chain totals");
        assert_eq!(totals.reached_by, expected_totals.reached_by, "reached by");
        assert_eq!(totals.distance_sums, expected_totals.distance_sums, "sums");
        assert_eq!(totals.farthest, expected_totals.farthest, "farthest");
    }

    #[test]
    fn chains_give_every_source_the_plain_searches_counts_and_distances() {
        let ring = Csr::from_edges(
            7,
            &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 0)],
            true,
        )
        .expect("a ring");
        // Two junctions joined by three chains of different lengths, a
        // tail, a lone vertex and a separate ring.
        let mut edges = vec![
            (0, 2),
            (2, 3),
            (3, 1),
            (0, 4),
            (4, 1),
            (0, 5),
            (5, 6),
            (6, 7),
            (7, 8),
        ];
        edges.extend([(8, 1), (1, 9), (9, 10), (11, 12), (12, 13), (13, 11)]);
        let junctions = Csr::from_edges(15, &edges, true).expect("junctions");
        let mut graphs = vec![ring, junctions];
        for (spec, seed) in [
            ("road:2000", 3),
            ("grid:30x30:0.3", 4),
            ("path:300", 5),
            ("star:50", 6),
        ] {
            let mut spec: Spec = spec.parse().expect("a generator spec");
            spec.seed = seed;
            graphs.push(spec.generate().expect("a generated graph"));
        }
        for graph in &graphs {
            same_as_plain_searches(graph, Limits::default());
            for limit in [0, 1, 4, 25] {
                same_as_plain_searches(
                    graph,
                    Limits {
                        depth_limit: Some(limit),
                    },
                );
            }
        }
    }
}
