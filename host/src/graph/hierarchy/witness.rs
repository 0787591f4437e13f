//! Witness searches: whether a path around a vertex is no longer than the
//! path through it, so that contracting it needs no shortcut between the
//! two neighbours (see the hierarchy's summary, `super`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::remaining::Remaining;

/// A vertex's place in a contraction round's order where it is outside
/// the round.
pub(super) const NOT_IN_ROUND: u32 = u32::MAX;

/// Arcs a witness search examines before it gives up, and the shortcut is
/// added (a needless shortcut costs an arc, never a wrong distance).
pub(super) const WITNESS_ARCS: usize = 1024;

/// Arcs a witness search examines when it only counts the shortcuts for a
/// priority: a count too high only puts a vertex off to a later round.
pub(super) const PRIORITY_WITNESS_ARCS: usize = 256;

/// A fixed scramble of `vertex`: its slot in a search's table, and the
/// tie-break between equal priorities, so that neighbours contracted in
/// one round are spread over the graph.
pub(super) fn scrambled(vertex: u32) -> u32 {
    vertex.wrapping_mul(0x9E37_79B9).rotate_left(16)
}

/// What contracting a vertex takes, found in the graph of its round.
pub(super) struct Contraction {
    /// `(u, w, weight)` for each pair of its neighbours without a witness.
    pub(super) shortcuts: Vec<(u32, u32, u32)>,
    /// The vertices of the round its witnesses pass through.
    pub(super) leans_on: Vec<u32>,
}

/// A bounded Dijkstra search for witnesses, its tables kept between
/// searches. It reaches at most [`WITNESS_ARCS`] vertices, so their
/// distances live in a small open-addressing table that stays in the
/// core's cache, not in an array over every vertex.
pub(super) struct WitnessSearch {
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
    pub(super) fn new(arc_limit: usize) -> WitnessSearch {
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
    /// the vertices contracted beside it are `Contractor::place`, which
    /// of them its witnesses pass through.
    pub(super) fn contraction(
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
