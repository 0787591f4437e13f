//! A contraction hierarchy over a chain contraction's kept vertices, laid
//! out for a level-by-level sweep.
//!
//! Contracting a vertex removes it from the graph and joins each pair of
//! its neighbours by a *shortcut* as long as their path through it, unless
//! a *witness*, a path around it no longer than that, exists already.
//! Contracting every vertex in turn and keeping, for each, its arcs to the
//! neighbours it still had (the *higher* ones, contracted later) gives a
//! contraction hierarchy (Geisberger, Sanders, Schultes & Delling,
//! "Contraction Hierarchies: Faster and Simpler Hierarchical Routing in
//! Road Networks", WEA 2008): between any two vertices some shortest path
//! climbs to higher and higher vertices, then descends. So the distances
//! from a source are found by two sweeps (PHAST: Delling, Goldberg,
//! Nowatzyk & Werneck, "PHAST: Hardware-Accelerated Shortest Path Trees",
//! IPDPS 2011): upward, in contraction order, each vertex takes the least
//! over its lower neighbours' distances plus the arcs' weights; downward,
//! in reverse, the least over its higher neighbours'.
//!
//! The sweeps run in parallel by *levels*: a vertex's level is one above
//! its highest lower neighbour's, so no arc joins two vertices of a level,
//! and a level's vertices take their distances at once. Vertices are
//! contracted in rounds, each an independent set of vertices that need
//! fewer shortcuts than their neighbours (edge difference, plus half the
//! contracted neighbours, which spreads the rounds), so levels stay few.
//!
//! Vertices too expensive to contract (more than
//! [`MOST_NEIGHBOURS_CONTRACTED`] neighbours, or shortcuts past the
//! budget) stay uncontracted: they form the *core*, the highest level,
//! whose distances are found by Bellman–Ford rounds over its arcs between
//! the two sweeps. A directed graph is all core. Vertices are renumbered
//! level by level, ascending, so each level is a range of indices, whose
//! wide vertices (many lower arcs) come first.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use crate::graph::Csr;
use crate::graph::chains::{ChainContraction, WeightedRows};

/// Most neighbours a vertex may have and be contracted: contracting it
/// examines every pair of them.
pub const MOST_NEIGHBOURS_CONTRACTED: usize = 16;

/// Lower arcs beyond which a vertex is *wide*: the upward sweep gives it a
/// warp, a lane an arc, rather than a thread. The highest levels hold few
/// vertices with many lower arcs, whose thread would read them in turn
/// while the block waits at the barrier.
pub const WIDE_ROW_ARCS: usize = 8;

/// Arcs a witness search examines before it gives up, and the shortcut is
/// added (a needless shortcut costs an arc, never a wrong distance).
const WITNESS_ARCS: usize = 1024;

/// The hierarchy over a chain contraction whose kept vertices are
/// renumbered in sweep order (level by level).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractionHierarchy {
    /// The graph's chains, kept indices in sweep order.
    pub chains: ChainContraction,
    /// The first vertex of each level, ascending, the core last (it may be
    /// empty), then the kept vertex count.
    pub level_starts: Vec<u32>,
    /// Where each level's wide vertices (more than [`WIDE_ROW_ARCS`] lower
    /// arcs), which come first in it, end.
    pub wide_ends: Vec<u32>,
    /// Each vertex's arcs to its lower neighbours (none for the lowest level).
    pub lower: WeightedRows,
    /// Each contracted vertex's arcs to its higher neighbours; each core
    /// vertex's arcs to the other core vertices.
    pub higher: WeightedRows,
    /// Shortcuts added.
    pub shortcuts: u32,
}

impl ContractionHierarchy {
    /// Contracts `graph`'s chains, then its kept vertices, while the
    /// hierarchy's arcs stay within the graph's CSR entries (or the
    /// contracted graph's arcs, if more).
    pub fn of(graph: &Csr) -> ContractionHierarchy {
        Self::over(graph, ChainContraction::of(graph))
    }

    /// [`of`](Self::of), from `graph`'s chain contraction.
    pub fn over(graph: &Csr, chains: ChainContraction) -> ContractionHierarchy {
        let arc_budget = Self::most_arcs(graph, &chains);
        Self::build(chains, arc_budget, graph.is_symmetric())
    }

    /// The most arcs [`of`](Self::of) gives `graph`'s hierarchy, both
    /// directions counted, from the contraction alone.
    pub fn most_arcs(graph: &Csr, chains: &ChainContraction) -> u64 {
        (graph.column_indices().len() as u64).max(chains.arc_count())
    }

    fn build(chains: ChainContraction, arc_budget: u64, symmetric: bool) -> ContractionHierarchy {
        let kept_count = chains.kept_count();
        let mut remaining = Remaining::of(&chains);
        // Each contracted vertex's neighbours when it was contracted, in
        // contraction order.
        let mut contracted: Vec<(u32, Vec<(u32, u32)>)> = Vec::new();
        let mut shortcuts = 0;
        if symmetric {
            shortcuts = contract(&mut remaining, &mut contracted, arc_budget);
        }

        // Levels: one above the highest lower neighbour; the core above all.
        let mut level = vec![0u32; kept_count as usize];
        let mut is_contracted = vec![false; kept_count as usize];
        for (vertex, neighbours) in &contracted {
            is_contracted[*vertex as usize] = true;
            for &(neighbour, _) in neighbours {
                level[neighbour as usize] =
                    level[neighbour as usize].max(level[*vertex as usize] + 1);
            }
        }
        let core_level = contracted
            .iter()
            .map(|&(vertex, _)| level[vertex as usize] + 1)
            .max()
            .unwrap_or(0);
        for vertex in 0..kept_count as usize {
            if !is_contracted[vertex] {
                level[vertex] = core_level;
            }
        }

        // A core vertex's higher arcs are its arcs left in the core; a
        // contracted vertex's (none left there) its arcs when contracted.
        let mut higher_of = remaining.neighbours;
        let mut lower_of: Vec<Vec<(u32, u32)>> = vec![Vec::new(); kept_count as usize];
        for (vertex, neighbours) in contracted {
            for &(neighbour, weight) in &neighbours {
                lower_of[neighbour as usize].push((vertex, weight));
            }
            higher_of[vertex as usize] = neighbours;
        }

        // Sweep order: by level; within a level, the wide vertices first,
        // then by index.
        let is_wide = |vertex: u32| lower_of[vertex as usize].len() > WIDE_ROW_ARCS;
        let mut order: Vec<u32> = (0..kept_count).collect();
        order.sort_by_key(|&vertex| (level[vertex as usize], !is_wide(vertex), vertex));
        let mut index_of = vec![0u32; kept_count as usize];
        for (index, &vertex) in order.iter().enumerate() {
            index_of[vertex as usize] = index as u32;
        }
        let mut level_starts = vec![0u32; core_level as usize + 2];
        let mut wide_ends = vec![0u32; core_level as usize + 1];
        for &vertex in &order {
            let level = level[vertex as usize] as usize;
            level_starts[level + 1] += 1;
            if is_wide(vertex) {
                wide_ends[level] += 1;
            }
        }
        for level in 1..level_starts.len() {
            level_starts[level] += level_starts[level - 1];
        }
        for (level, wide_end) in wide_ends.iter_mut().enumerate() {
            *wide_end += level_starts[level];
        }

        let renumber = |row: &[(u32, u32)]| -> Vec<(u32, u32)> {
            let mut row: Vec<_> = row
                .iter()
                .map(|&(head, weight)| (index_of[head as usize], weight))
                .collect();
            row.sort_unstable();
            row
        };
        ContractionHierarchy {
            chains: chains.renumbered(&index_of),
            level_starts,
            wide_ends,
            lower: WeightedRows::from_rows(
                order
                    .iter()
                    .map(|&vertex| renumber(&lower_of[vertex as usize])),
            ),
            higher: WeightedRows::from_rows(
                order
                    .iter()
                    .map(|&vertex| renumber(&higher_of[vertex as usize])),
            ),
            shortcuts,
        }
    }

    /// Levels, the core counted as one (and counted when it is empty).
    pub fn level_count(&self) -> u32 {
        (self.level_starts.len() - 1) as u32
    }

    /// The core's vertices: the last level's range.
    pub fn core(&self) -> std::ops::Range<u32> {
        let last = self.level_starts.len() - 2;
        self.level_starts[last]..self.level_starts[last + 1]
    }

    /// Bytes of its arrays, the chain contraction's included.
    pub fn bytes(&self) -> u64 {
        self.chains.bytes()
            + 4 * (self.level_starts.len() + self.wide_ends.len()) as u64
            + self.lower.bytes()
            + self.higher.bytes()
    }
}

/// The graph still uncontracted: each vertex's neighbours and the least
/// weight of an arc to each.
struct Remaining {
    neighbours: Vec<Vec<(u32, u32)>>,
}

impl Remaining {
    /// The contracted graph's arcs, parallel ones merged, loops dropped.
    fn of(chains: &ChainContraction) -> Remaining {
        let mut remaining = Remaining {
            neighbours: vec![Vec::new(); chains.kept_count() as usize],
        };
        for tail in 0..chains.kept_count() {
            for (head, weight) in chains.graph.of(tail) {
                if head != tail {
                    remaining.join(tail, head, weight);
                }
            }
        }
        remaining
    }

    /// Adds the arc `tail → head` of `weight`, or lowers the one there.
    fn join(&mut self, tail: u32, head: u32, weight: u32) {
        let row = &mut self.neighbours[tail as usize];
        match row.iter_mut().find(|(neighbour, _)| *neighbour == head) {
            Some(arc) => arc.1 = arc.1.min(weight),
            None => row.push((head, weight)),
        }
    }

    fn arc_count(&self) -> u64 {
        self.neighbours.iter().map(|row| row.len() as u64).sum()
    }
}

/// Contracts `remaining`'s vertices round by round into `contracted`,
/// while the arcs stay within `arc_budget`; returns the shortcuts added.
/// What stays in `remaining` is the core.
fn contract(
    remaining: &mut Remaining,
    contracted: &mut Vec<(u32, Vec<(u32, u32)>)>,
    arc_budget: u64,
) -> u32 {
    let vertex_count = remaining.neighbours.len();
    let mut witness = WitnessSearch::new(vertex_count);
    let mut candidates: Vec<u32> = (0..vertex_count as u32).collect();
    let mut contracted_neighbours = vec![0i64; vertex_count];
    let mut priority = vec![None; vertex_count];
    let mut done = vec![false; vertex_count];
    // Each contracted edge becomes a lower and a higher arc, each remaining
    // edge two core arcs, so the hierarchy's arcs are the remaining graph's
    // plus the contracted vertices' (lower and higher) arcs.
    let mut arcs = remaining.arc_count();
    let mut shortcuts = 0;
    loop {
        // Each candidate's priority, in parallel: a witness search per thread.
        let priorities: Vec<Option<(i64, u32)>> = candidates
            .par_iter()
            .map_init(
                || WitnessSearch::new(vertex_count),
                |witness, &vertex| {
                    let degree = remaining.neighbours[vertex as usize].len();
                    (degree <= MOST_NEIGHBOURS_CONTRACTED).then(|| {
                        let needed = witness.shortcuts(remaining, vertex).len() as i64;
                        (
                            2 * (needed - degree as i64) + contracted_neighbours[vertex as usize],
                            scrambled(vertex),
                        )
                    })
                },
            )
            .collect();
        for (&vertex, vertex_priority) in candidates.iter().zip(priorities) {
            priority[vertex as usize] = vertex_priority;
        }
        let selected: Vec<u32> = candidates
            .iter()
            .copied()
            .filter(|&vertex| {
                priority[vertex as usize].is_some_and(|own| {
                    remaining.neighbours[vertex as usize]
                        .iter()
                        .all(|&(neighbour, _)| {
                            priority[neighbour as usize].is_none_or(|other| own < other)
                        })
                })
            })
            .collect();
        let mut any = false;
        for vertex in selected {
            let new = witness.shortcuts(remaining, vertex);
            if arcs + 2 * new.len() as u64 > arc_budget {
                continue;
            }
            for &(one, other, weight) in &new {
                let before = remaining.neighbours[one as usize].len();
                remaining.join(one, other, weight);
                remaining.join(other, one, weight);
                if remaining.neighbours[one as usize].len() > before {
                    arcs += 2;
                    shortcuts += 1;
                }
            }
            let neighbours = std::mem::take(&mut remaining.neighbours[vertex as usize]);
            for &(neighbour, _) in &neighbours {
                remaining.neighbours[neighbour as usize].retain(|&(head, _)| head != vertex);
                contracted_neighbours[neighbour as usize] += 1;
            }
            contracted.push((vertex, neighbours));
            done[vertex as usize] = true;
            any = true;
        }
        if !any {
            return shortcuts;
        }
        candidates.retain(|&vertex| !done[vertex as usize]);
    }
}

/// A fixed scramble of `vertex`, breaking ties between equal priorities
/// so that neighbours contracted in one round are spread over the graph.
fn scrambled(vertex: u32) -> u32 {
    vertex.wrapping_mul(0x9E37_79B9).rotate_left(16)
}

/// A bounded Dijkstra search for witnesses, its arrays kept between searches.
struct WitnessSearch {
    distances: Vec<u32>,
    reached: Vec<u32>,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
}

impl WitnessSearch {
    fn new(vertex_count: usize) -> WitnessSearch {
        WitnessSearch {
            distances: vec![u32::MAX; vertex_count],
            reached: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// The shortcuts contracting `vertex` needs: for each pair of its
    /// neighbours `(u, w)` without a witness, `(u, w, weight)`.
    fn shortcuts(&mut self, remaining: &Remaining, vertex: u32) -> Vec<(u32, u32, u32)> {
        let neighbours = &remaining.neighbours[vertex as usize];
        let mut needed = Vec::new();
        for (first, &(one, to_one)) in neighbours.iter().enumerate() {
            let later = &neighbours[first + 1..];
            let Some(farthest) = later.iter().map(|&(_, to_other)| to_other).max() else {
                continue;
            };
            self.search(remaining, (one, later), vertex, to_one + farthest);
            for &(other, to_other) in later {
                if self.distances[other as usize] > to_one + to_other {
                    needed.push((one, other, to_one + to_other));
                }
            }
            for &reached in &self.reached {
                self.distances[reached as usize] = u32::MAX;
            }
            self.reached.clear();
        }
        needed
    }

    /// Distances from `from` in `remaining` without `avoiding`, up to
    /// `limit`, until every target is settled or [`WITNESS_ARCS`] arcs
    /// were examined.
    fn search(
        &mut self,
        remaining: &Remaining,
        (from, targets): (u32, &[(u32, u32)]),
        avoiding: u32,
        limit: u32,
    ) {
        self.heap.clear();
        self.distances[from as usize] = 0;
        self.reached.push(from);
        self.heap.push(Reverse((0, from)));
        let (mut examined, mut unsettled) = (0, targets.len());
        while let Some(Reverse((distance, vertex))) = self.heap.pop() {
            if distance > self.distances[vertex as usize] {
                continue;
            }
            if targets.iter().any(|&(target, _)| target == vertex) {
                unsettled -= 1;
                if unsettled == 0 {
                    break;
                }
            }
            let arcs = &remaining.neighbours[vertex as usize];
            examined += arcs.len();
            if examined > WITNESS_ARCS {
                break;
            }
            for &(neighbour, weight) in arcs {
                let through = distance + weight;
                if neighbour != avoiding
                    && through <= limit
                    && through < self.distances[neighbour as usize]
                {
                    if self.distances[neighbour as usize] == u32::MAX {
                        self.reached.push(neighbour);
                    }
                    self.distances[neighbour as usize] = through;
                    self.heap.push(Reverse((through, neighbour)));
                }
            }
        }
    }
}
