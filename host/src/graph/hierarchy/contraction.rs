//! Contracting a hierarchy's vertices round by round: each round an
//! independent set of the vertices that need the fewest shortcuts, their
//! witness searches in parallel (see the hierarchy's summary, `super`).

use rayon::prelude::*;

use super::MOST_NEIGHBOURS_CONTRACTED;
use super::remaining::{Remaining, join};
use super::witness::{
    Contraction, NOT_IN_ROUND, PRIORITY_WITNESS_ARCS, WITNESS_ARCS, WitnessSearch, scrambled,
};

/// Contracts `remaining`'s vertices round by round into `contracted`,
/// while the arcs stay within `arc_budget`; returns the shortcuts added.
/// What stays in `remaining` is the core.
pub(super) fn contract(
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
