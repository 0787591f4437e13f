//! Contracting a graph's degree-2 chains into weighted edges.
//!
//! In an undirected graph, a vertex with exactly two neighbours lies inside
//! a *chain*: a path whose inner vertices all have two neighbours, between
//! two *kept* vertices (any other degree). Road networks are mostly chains:
//! the shape points along a road. Replacing each maximal chain by one edge
//! between its ends, weighted by its length in edges, leaves a much smaller
//! graph whose weighted distances are the BFS distances of its vertices;
//! the vertex at position `j` of a chain of length `L` between ends `a` and
//! `b` is then at `min(d(a) + j, d(b) + L - j)` (plus `|i - j|` when the
//! source itself is at position `i` of that chain). This is the first step
//! of road-network route planners' contraction, which removes such "lines"
//! before anything else (Sanders & Schultes, "Highway Hierarchies Hasten
//! Exact Shortest Path Queries", ESA 2005).
//!
//! A cycle of degree-2 vertices alone (a component that is a ring) has no
//! kept vertex; its lowest id is kept, and the ring becomes one chain from
//! it back to itself. A directed graph is not contracted: every vertex is
//! kept and every arc has weight 1. The encodings are `bfs_kernels::abi`'s,
//! which the `chain-contracted` variant's kernels read.

use bfs_kernels::abi::chain_contracted;
use rayon::prelude::*;

use crate::graph::{Csr, EdgeOffset};

/// A graph's chains contracted: the kept vertices' weighted graph, where
/// each vertex lies, and each chain's ends and length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainContraction {
    /// The contracted graph over kept indices, each arc's weight the edges
    /// of the graph it stands for.
    pub graph: WeightedRows,
    /// Each vertex's place, two words: its kept index and 0, or
    /// `chain_contracted::IN_CHAIN | chain` and its position along the chain.
    pub places: Vec<u32>,
    /// Each chain, `chain_contracted::CHAIN_WORDS` words: its ends (kept indices, at positions
    /// 0 and the length), its length, and a padding word.
    pub chains: Vec<u32>,
}

/// Arcs with weights, in rows: `row_offsets` over the vertices, each arc two
/// words (its head, its weight).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WeightedRows {
    /// `vertex_count + 1` offsets into the arcs.
    pub row_offsets: Vec<EdgeOffset>,
    /// Head and weight of each arc.
    pub arcs: Vec<u32>,
}

impl WeightedRows {
    /// The rows given, each a list of (head, weight) arcs.
    pub fn from_rows(rows: impl Iterator<Item = Vec<(u32, u32)>>) -> WeightedRows {
        let mut weighted = WeightedRows {
            row_offsets: vec![0],
            arcs: Vec::new(),
        };
        for row in rows {
            weighted
                .arcs
                .extend(row.into_iter().flat_map(|(head, weight)| [head, weight]));
            weighted
                .row_offsets
                .push((weighted.arcs.len() / 2) as EdgeOffset);
        }
        weighted
    }

    /// The arcs of `vertex`: (head, weight) pairs.
    pub fn of(&self, vertex: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let (first, end) = (
            self.row_offsets[vertex as usize] as usize,
            self.row_offsets[vertex as usize + 1] as usize,
        );
        self.arcs[2 * first..2 * end]
            .chunks_exact(2)
            .map(|arc| (arc[0], arc[1]))
    }

    /// Arcs in all.
    pub fn arc_count(&self) -> u64 {
        (self.arcs.len() / 2) as u64
    }

    /// Its row offsets narrowed to the 32 bits the kernels of contracted
    /// graphs take, or `None` beyond `u32::MAX` arcs.
    pub fn narrow_row_offsets(&self) -> Option<Vec<u32>> {
        if self.arc_count() > u32::MAX as u64 {
            return None;
        }
        Some(
            self.row_offsets
                .iter()
                .map(|&offset| offset as u32)
                .collect(),
        )
    }

    /// Bytes of its two arrays on the device (offsets narrowed to 32 bits).
    pub fn bytes(&self) -> u64 {
        4 * (self.row_offsets.len() + self.arcs.len()) as u64
    }
}

/// Where a vertex lies after contraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A kept vertex, by its index among them.
    Kept(u32),
    /// A vertex inside a chain, at `position` edges from its first end.
    InChain {
        /// The chain's index.
        chain: u32,
        /// Edges from the chain's first end, 1 to its length − 1.
        position: u32,
    },
}

/// A chain: its two ends (kept indices) and its length in edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chain {
    /// The end at position 0.
    pub first_end: u32,
    /// The end at position `length`.
    pub second_end: u32,
    /// Edges from one end to the other.
    pub length: u32,
}

impl ChainContraction {
    /// Contracts every chain of `graph` (none when it is directed).
    pub fn of(graph: &Csr) -> ChainContraction {
        if !graph.is_symmetric() {
            return Self::uncontracted(graph);
        }
        let vertex_count = graph.vertex_count() as usize;
        let inside = |vertex: u32| graph.degree(vertex) == 2;
        let mut kept: Vec<bool> = (0..graph.vertex_count()).map(|v| !inside(v)).collect();
        let mut places = vec![chain_contracted::NO_ENTRY; 2 * vertex_count];
        // Each chain's ends as vertex ids, and its length.
        let mut chain_ends: Vec<(u32, u32, u32)> = Vec::new();
        let mut walk_from = |start: u32, places: &mut [u32], kept: &[bool]| {
            for &first in graph.neighbours(start) {
                if kept[first as usize] || places[2 * first as usize] != chain_contracted::NO_ENTRY
                {
                    continue;
                }
                let chain = chain_ends.len() as u32;
                let (mut previous, mut vertex, mut position) = (start, first, 1);
                while !kept[vertex as usize] {
                    places[2 * vertex as usize] = chain_contracted::IN_CHAIN | chain;
                    places[2 * vertex as usize + 1] = position;
                    let &[one, other] = graph.neighbours(vertex) else {
                        unreachable!("a vertex inside a chain has two neighbours");
                    };
                    let next = if one == previous { other } else { one };
                    (previous, vertex, position) = (vertex, next, position + 1);
                }
                chain_ends.push((start, vertex, position));
            }
        };
        for vertex in 0..graph.vertex_count() {
            if kept[vertex as usize] {
                walk_from(vertex, &mut places, &kept);
            }
        }
        // What is left inside no chain lies on rings: keep one vertex of each.
        for vertex in 0..graph.vertex_count() {
            if !kept[vertex as usize] && places[2 * vertex as usize] == chain_contracted::NO_ENTRY {
                kept[vertex as usize] = true;
                walk_from(vertex, &mut places, &kept);
            }
        }

        let mut kept_count = 0;
        for vertex in 0..vertex_count {
            if kept[vertex] {
                places[2 * vertex] = kept_count;
                places[2 * vertex + 1] = 0;
                kept_count += 1;
            }
        }
        let index = |vertex: u32| places[2 * vertex as usize];
        let mut chains =
            Vec::with_capacity(chain_contracted::CHAIN_WORDS as usize * chain_ends.len());
        for &(first_end, second_end, length) in &chain_ends {
            chains.extend([index(first_end), index(second_end), length, 0]);
        }
        let mut row_offsets = Vec::with_capacity(kept_count as usize + 1);
        let mut arcs = Vec::new();
        row_offsets.push(0);
        for tail in (0..graph.vertex_count()).filter(|&vertex| kept[vertex as usize]) {
            for &neighbour in graph.neighbours(tail) {
                let (head, weight) = if kept[neighbour as usize] {
                    (neighbour, 1)
                } else {
                    let chain = index(neighbour) & !chain_contracted::IN_CHAIN;
                    let (first_end, second_end, length) = chain_ends[chain as usize];
                    let position = places[2 * neighbour as usize + 1];
                    if position == 1 && first_end == tail {
                        (second_end, length)
                    } else {
                        (first_end, length)
                    }
                };
                if head != tail {
                    arcs.extend([index(head), weight]);
                }
            }
            row_offsets.push((arcs.len() / 2) as EdgeOffset);
        }
        ChainContraction {
            graph: WeightedRows { row_offsets, arcs },
            places,
            chains,
        }
    }

    /// `graph` as it is: every vertex kept, every arc of weight 1.
    fn uncontracted(graph: &Csr) -> ChainContraction {
        ChainContraction {
            graph: WeightedRows {
                row_offsets: graph.row_offsets().to_vec(),
                arcs: graph
                    .column_indices()
                    .iter()
                    .flat_map(|&head| [head, 1])
                    .collect(),
            },
            places: (0..graph.vertex_count())
                .flat_map(|vertex| [vertex, 0])
                .collect(),
            chains: Vec::new(),
        }
    }

    /// The same contraction with kept vertex `k` renumbered `index_of[k]`
    /// (a permutation of the kept indices).
    pub fn renumbered(&self, index_of: &[u32]) -> ChainContraction {
        let mut order = vec![0u32; index_of.len()];
        for (kept, &index) in index_of.iter().enumerate() {
            order[index as usize] = kept as u32;
        }
        let graph = WeightedRows::from_rows(order.iter().map(|&kept| {
            self.graph
                .of(kept)
                .map(|(head, weight)| (index_of[head as usize], weight))
                .collect()
        }));
        let places = self
            .places
            .chunks_exact(2)
            .flat_map(|place| match place[0] & chain_contracted::IN_CHAIN {
                0 => [index_of[place[0] as usize], place[1]],
                _ => [place[0], place[1]],
            })
            .collect();
        let chains = self
            .chains
            .chunks_exact(chain_contracted::CHAIN_WORDS as usize)
            .flat_map(|chain| {
                [
                    index_of[chain[0] as usize],
                    index_of[chain[1] as usize],
                    chain[2],
                    chain[3],
                ]
            })
            .collect();
        ChainContraction {
            graph,
            places,
            chains,
        }
    }

    /// The vertices a symmetric graph keeps at the least (those without
    /// exactly two neighbours; rings add one each); all of a directed
    /// graph's. One pass over the rows, for deciding before contracting.
    pub fn kept_at_least(graph: &Csr) -> u32 {
        if !graph.is_symmetric() {
            return graph.vertex_count();
        }
        (0..graph.vertex_count())
            .into_par_iter()
            .filter(|&vertex| graph.degree(vertex) != 2)
            .count() as u32
    }

    /// Kept vertices: the contracted graph's.
    pub fn kept_count(&self) -> u32 {
        (self.graph.row_offsets.len() - 1) as u32
    }

    /// Arcs of the contracted graph.
    pub fn arc_count(&self) -> u64 {
        self.graph.arc_count()
    }

    /// Chains contracted.
    pub fn chain_count(&self) -> u32 {
        self.chains.len() as u32 / chain_contracted::CHAIN_WORDS
    }

    /// Bytes of its four arrays.
    pub fn bytes(&self) -> u64 {
        self.graph.bytes() + 4 * (self.places.len() + self.chains.len()) as u64
    }

    /// Where `vertex` lies.
    pub fn place(&self, vertex: u32) -> Place {
        let (place, position) = (
            self.places[2 * vertex as usize],
            self.places[2 * vertex as usize + 1],
        );
        if place & chain_contracted::IN_CHAIN == 0 {
            Place::Kept(place)
        } else {
            Place::InChain {
                chain: place & !chain_contracted::IN_CHAIN,
                position,
            }
        }
    }

    /// Chain `chain`'s ends and length.
    pub fn chain(&self, chain: u32) -> Chain {
        let entry = &self.chains[(chain_contracted::CHAIN_WORDS * chain) as usize..][..3];
        Chain {
            first_end: entry[0],
            second_end: entry[1],
            length: entry[2],
        }
    }
}
