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

/// Arcs a witness search examines when it only counts the shortcuts for a
/// priority: a count too high only puts a vertex off to a later round.
const PRIORITY_WITNESS_ARCS: usize = 256;

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
        order
            .par_sort_unstable_by_key(|&vertex| (level[vertex as usize], !is_wide(vertex), vertex));
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
                    .par_iter()
                    .map(|&vertex| renumber(&lower_of[vertex as usize]))
                    .collect::<Vec<_>>()
                    .into_iter(),
            ),
            higher: WeightedRows::from_rows(
                order
                    .par_iter()
                    .map(|&vertex| renumber(&higher_of[vertex as usize]))
                    .collect::<Vec<_>>()
                    .into_iter(),
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
                    join(&mut remaining.neighbours[tail as usize], head, weight);
                }
            }
        }
        remaining
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
    let mut contraction = Contractor::new(remaining, contracted, arc_budget);
    let arcs_before = contraction.arcs;
    while contraction.round() {}
    // A shortcut is two arcs, one in each of its ends' rows.
    ((contraction.arcs - arcs_before) / 2) as u32
}

/// The contraction's state between rounds.
///
/// A round contracts an independent set at once (Vetter, "Parallel
/// Time-Dependent Contraction Hierarchies", 2009): its vertices' witness
/// searches run in parallel in the round's graph. A witness that passes
/// through another vertex of the round holds only while that vertex is
/// still there, so the round is ordered as if its vertices left one at a
/// time, those whose witnesses pass through others first. Every vertex
/// whose witnesses pass only through vertices later in that order leaves
/// at once, its shortcuts added in parallel; each of the others then
/// searches again, alone, in the graph left, and leaves.
struct Contractor<'r> {
    remaining: &'r mut Remaining,
    contracted: &'r mut Vec<(u32, Vec<(u32, u32)>)>,
    arc_budget: u64,
    /// The remaining graph's arcs plus the contracted vertices' (lower and
    /// higher): each contracted edge becomes a lower and a higher arc, each
    /// remaining edge two core arcs.
    arcs: u64,
    /// Vertices not yet contracted.
    candidates: Vec<u32>,
    /// Each vertex's priority (lower goes first), `None` where it has too
    /// many neighbours to be contracted.
    priority: Vec<Option<(i64, u32)>>,
    /// Whether a vertex's neighbourhood changed since its priority was found.
    stale: Vec<bool>,
    contracted_neighbours: Vec<i64>,
    /// Each vertex's place in the round's order, [`NOT_IN_ROUND`] outside it.
    place: Vec<u32>,
    /// Vertices contracted.
    done: Vec<bool>,
    /// A witness search for the vertices that search again, alone.
    alone: WitnessSearch,
}

/// [`Contractor::place`] of a vertex outside the round.
const NOT_IN_ROUND: u32 = u32::MAX;

/// Row updates of contracting vertices at once: `(row, head, weight)`,
/// [`REMOVED`] as the weight where the arc to `head` goes.
type RowUpdate = (u32, u32, u32);

/// [`RowUpdate`]'s weight that removes the arc.
const REMOVED: u32 = u32::MAX;

impl<'r> Contractor<'r> {
    fn new(
        remaining: &'r mut Remaining,
        contracted: &'r mut Vec<(u32, Vec<(u32, u32)>)>,
        arc_budget: u64,
    ) -> Contractor<'r> {
        let vertex_count = remaining.neighbours.len();
        Contractor {
            arcs: remaining.arc_count(),
            remaining,
            contracted,
            arc_budget,
            candidates: (0..vertex_count as u32).collect(),
            priority: vec![None; vertex_count],
            stale: vec![true; vertex_count],
            contracted_neighbours: vec![0; vertex_count],
            place: vec![NOT_IN_ROUND; vertex_count],
            done: vec![false; vertex_count],
            alone: WitnessSearch::new(WITNESS_ARCS),
        }
    }

    /// Contracts one independent set; whether any vertex left.
    fn round(&mut self) -> bool {
        self.update_priorities();
        let selected = self.independent_set();
        for &vertex in &selected {
            self.place[vertex as usize] = 0;
        }
        let (remaining, place) = (&*self.remaining, &self.place);
        let mut round: Vec<(u32, Contraction)> = selected
            .par_iter()
            .map_init(
                || WitnessSearch::new(WITNESS_ARCS),
                |witness, &vertex| {
                    let found = witness.contraction(remaining, vertex, Some(place));
                    (vertex, found)
                },
            )
            .collect();
        round.sort_by_key(|(_, contraction)| contraction.leans_on.is_empty());
        for (at, (vertex, _)) in round.iter().enumerate() {
            self.place[*vertex as usize] = at as u32;
        }
        let place = &self.place;
        let (apart, again): (Vec<_>, Vec<_>) = round.into_iter().partition(|(vertex, found)| {
            (found.leans_on.iter()).all(|&other| place[other as usize] > place[*vertex as usize])
        });
        for &vertex in &selected {
            self.place[vertex as usize] = NOT_IN_ROUND;
        }
        let added: u64 = apart
            .iter()
            .map(|(_, found)| 2 * found.shortcuts.len() as u64)
            .sum();
        let mut left = false;
        if self.arcs + added <= self.arc_budget {
            left |= !apart.is_empty();
            self.contract_at_once(apart);
        } else {
            for (vertex, found) in apart {
                left |= self.contract_alone(vertex, found.shortcuts);
            }
        }
        for (vertex, _) in again {
            let shortcuts = (self.alone)
                .contraction(self.remaining, vertex, None)
                .shortcuts;
            left |= self.contract_alone(vertex, shortcuts);
        }
        let done = &self.done;
        self.candidates.retain(|&vertex| !done[vertex as usize]);
        left
    }

    /// Finds again, in parallel, the priorities of the candidates whose
    /// neighbourhood changed: twice the shortcuts contracting one adds
    /// less the arcs it removes, plus its contracted neighbours (which
    /// spreads the rounds over the graph), ties broken by a scramble.
    fn update_priorities(&mut self) {
        let stale = &self.stale;
        let changed: Vec<u32> = (self.candidates.par_iter().copied())
            .filter(|&vertex| stale[vertex as usize])
            .collect();
        let (remaining, contracted_neighbours) = (&*self.remaining, &self.contracted_neighbours);
        let priorities: Vec<Option<(i64, u32)>> = changed
            .par_iter()
            .map_init(
                || WitnessSearch::new(PRIORITY_WITNESS_ARCS),
                |witness, &vertex| {
                    let degree = remaining.neighbours[vertex as usize].len();
                    (degree <= MOST_NEIGHBOURS_CONTRACTED).then(|| {
                        let needed = witness.contraction(remaining, vertex, None).shortcuts;
                        (
                            2 * (needed.len() as i64 - degree as i64)
                                + contracted_neighbours[vertex as usize],
                            scrambled(vertex),
                        )
                    })
                },
            )
            .collect();
        for (&vertex, priority) in changed.iter().zip(priorities) {
            self.priority[vertex as usize] = priority;
            self.stale[vertex as usize] = false;
        }
    }

    /// The candidates whose priority is below every neighbour's.
    fn independent_set(&self) -> Vec<u32> {
        let (remaining, priority) = (&*self.remaining, &self.priority);
        (self.candidates.par_iter().copied())
            .filter(|&vertex| {
                priority[vertex as usize].is_some_and(|own| {
                    remaining.neighbours[vertex as usize]
                        .iter()
                        .all(|&(neighbour, _)| {
                            priority[neighbour as usize].is_none_or(|other| own < other)
                        })
                })
            })
            .collect()
    }

    /// Contracts `vertex`, adding `shortcuts`, unless they would take the
    /// arcs past the budget; whether it did.
    fn contract_alone(&mut self, vertex: u32, shortcuts: Vec<(u32, u32, u32)>) -> bool {
        if self.arcs + 2 * shortcuts.len() as u64 > self.arc_budget {
            return false;
        }
        let updates = Self::updates(
            vertex,
            &self.remaining.neighbours[vertex as usize],
            &shortcuts,
        );
        let neighbours = std::mem::take(&mut self.remaining.neighbours[vertex as usize]);
        for (row, head, weight) in updates {
            let grew = Self::update(&mut self.remaining.neighbours[row as usize], head, weight);
            self.count(row, weight, grew);
        }
        self.leave(vertex, neighbours);
        true
    }

    /// Contracts the `apart` vertices at once: their rows' updates grouped
    /// by row, each row updated by one thread.
    fn contract_at_once(&mut self, apart: Vec<(u32, Contraction)>) {
        let neighbours = &self.remaining.neighbours;
        let mut updates: Vec<RowUpdate> = apart
            .par_iter()
            .flat_map_iter(|(vertex, found)| {
                Self::updates(*vertex, &neighbours[*vertex as usize], &found.shortcuts)
            })
            .collect();
        updates.par_sort_unstable();
        // Each updated row, taken out of the graph with its updates, so
        // that the threads own the rows they update.
        let rows: Vec<_> = updates
            .chunk_by(|one, other| one.0 == other.0)
            .map(|group| {
                (
                    std::mem::take(&mut self.remaining.neighbours[group[0].0 as usize]),
                    group,
                )
            })
            .collect();
        let updated: Vec<(_, Vec<bool>)> = rows
            .into_par_iter()
            .map(|(mut row, group)| {
                let grew = (group.iter())
                    .map(|&(_, head, weight)| Self::update(&mut row, head, weight))
                    .collect();
                (row, grew)
            })
            .collect();
        let groups = updates.chunk_by(|one, other| one.0 == other.0);
        for ((row, grew), group) in updated.into_iter().zip(groups) {
            let at = group[0].0;
            self.remaining.neighbours[at as usize] = row;
            for (&(_, _, weight), grew) in group.iter().zip(grew) {
                self.count(at, weight, grew);
            }
        }
        for (vertex, _) in apart {
            let neighbours = std::mem::take(&mut self.remaining.neighbours[vertex as usize]);
            self.leave(vertex, neighbours);
        }
    }

    /// The row updates contracting `vertex` makes: its arc removed from
    /// each neighbour's row, each shortcut added in both directions.
    fn updates(
        vertex: u32,
        neighbours: &[(u32, u32)],
        shortcuts: &[(u32, u32, u32)],
    ) -> Vec<RowUpdate> {
        let removals = neighbours
            .iter()
            .map(|&(neighbour, _)| (neighbour, vertex, REMOVED));
        let joins = shortcuts
            .iter()
            .flat_map(|&(one, other, weight)| [(one, other, weight), (other, one, weight)]);
        removals.chain(joins).collect()
    }

    /// Applies one update to `row`; whether it added an arc.
    fn update(row: &mut Vec<(u32, u32)>, head: u32, weight: u32) -> bool {
        if weight == REMOVED {
            row.retain(|&(other, _)| other != head);
            return false;
        }
        join(row, head, weight)
    }

    /// Counts an update of `row`: an arc added, or a neighbour contracted.
    fn count(&mut self, row: u32, weight: u32, grew: bool) {
        if weight == REMOVED {
            self.contracted_neighbours[row as usize] += 1;
            self.stale[row as usize] = true;
        } else if grew {
            self.arcs += 1;
        }
    }

    /// Records `vertex` as contracted, with its neighbours then.
    fn leave(&mut self, vertex: u32, neighbours: Vec<(u32, u32)>) {
        self.contracted.push((vertex, neighbours));
        self.done[vertex as usize] = true;
    }
}

/// Adds the arc to `head` of `weight` to `row`, or lowers the one there;
/// whether it added one.
fn join(row: &mut Vec<(u32, u32)>, head: u32, weight: u32) -> bool {
    match row.iter_mut().find(|(neighbour, _)| *neighbour == head) {
        Some(arc) => {
            arc.1 = arc.1.min(weight);
            false
        }
        None => {
            row.push((head, weight));
            true
        }
    }
}

/// A fixed scramble of `vertex`, breaking ties between equal priorities
/// so that neighbours contracted in one round are spread over the graph.
fn scrambled(vertex: u32) -> u32 {
    vertex.wrapping_mul(0x9E37_79B9).rotate_left(16)
}

/// What contracting a vertex takes, found in the graph of its round.
struct Contraction {
    /// `(u, w, weight)` for each pair of its neighbours without a witness.
    shortcuts: Vec<(u32, u32, u32)>,
    /// The vertices of the round its witnesses pass through.
    leans_on: Vec<u32>,
}

/// A bounded Dijkstra search for witnesses, its tables kept between
/// searches. It reaches at most [`WITNESS_ARCS`] vertices, so their
/// distances live in a small open-addressing table that stays in the
/// core's cache, not in an array over every vertex.
struct WitnessSearch {
    /// Arcs a search examines before it gives up.
    arc_limit: usize,
    /// `(vertex, distance, parent)` slots, [`UNREACHED`] where free.
    reached: Vec<Reached>,
    /// The slots in use, to free them after a search.
    used: Vec<u32>,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
}

/// A vertex a witness search reached: its distance, and the vertex before
/// it on its path.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Reached {
    vertex: u32,
    distance: u32,
    parent: u32,
}

/// A free slot of [`WitnessSearch::reached`].
const UNREACHED: Reached = Reached {
    vertex: u32::MAX,
    distance: u32::MAX,
    parent: u32::MAX,
};

/// Slots of [`WitnessSearch::reached`]: two per vertex a search may reach.
const WITNESS_SLOTS: usize = 2 * (WITNESS_ARCS + 1).next_power_of_two();

impl WitnessSearch {
    fn new(arc_limit: usize) -> WitnessSearch {
        WitnessSearch {
            arc_limit,
            reached: vec![UNREACHED; WITNESS_SLOTS],
            used: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// `vertex`'s slot: its own, or the free one where it would go.
    fn slot(&self, vertex: u32) -> usize {
        let mut slot = scrambled(vertex) as usize % WITNESS_SLOTS;
        while self.reached[slot].vertex != vertex && self.reached[slot].vertex != UNREACHED.vertex {
            slot = (slot + 1) % WITNESS_SLOTS;
        }
        slot
    }

    fn reached(&self, vertex: u32) -> Reached {
        self.reached[self.slot(vertex)]
    }

    /// What contracting `vertex` takes in `remaining`; with `place`, where
    /// the vertices contracted beside it are [`Contractor::place`], which
    /// of them its witnesses pass through.
    fn contraction(
        &mut self,
        remaining: &Remaining,
        vertex: u32,
        place: Option<&[u32]>,
    ) -> Contraction {
        let neighbours = &remaining.neighbours[vertex as usize];
        let mut contraction = Contraction {
            shortcuts: Vec::new(),
            leans_on: Vec::new(),
        };
        for (first, &(one, to_one)) in neighbours.iter().enumerate() {
            let later = &neighbours[first + 1..];
            let Some(farthest) = later.iter().map(|&(_, to_other)| to_other).max() else {
                continue;
            };
            self.search(remaining, (one, later), vertex, to_one + farthest);
            for &(other, to_other) in later {
                let mut on_path = self.reached(other);
                if on_path.distance > to_one + to_other {
                    contraction.shortcuts.push((one, other, to_one + to_other));
                } else if let Some(place) = place {
                    while on_path.parent != one {
                        if place[on_path.parent as usize] != NOT_IN_ROUND {
                            contraction.leans_on.push(on_path.parent);
                        }
                        on_path = self.reached(on_path.parent);
                    }
                }
            }
            for &slot in &self.used {
                self.reached[slot as usize] = UNREACHED;
            }
            self.used.clear();
        }
        contraction
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
        self.lower(from, 0, from);
        let (mut examined, mut unsettled) = (0, targets.len());
        while let Some(Reverse((distance, vertex))) = self.heap.pop() {
            if distance > self.reached(vertex).distance {
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
            if examined > self.arc_limit {
                break;
            }
            for &(neighbour, weight) in arcs {
                let through = distance + weight;
                if through <= limit && neighbour != avoiding {
                    self.lower(neighbour, through, vertex);
                }
            }
        }
    }

    /// Lowers `vertex`'s distance to `distance`, reached from `parent`, if
    /// that is shorter, and queues it.
    fn lower(&mut self, vertex: u32, distance: u32, parent: u32) {
        let slot = self.slot(vertex);
        if self.reached[slot].vertex == UNREACHED.vertex {
            self.used.push(slot as u32);
        } else if self.reached[slot].distance <= distance {
            return;
        }
        self.reached[slot] = Reached {
            vertex,
            distance,
            parent,
        };
        self.heap.push(Reverse((distance, vertex)));
    }
}
