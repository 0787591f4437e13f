//! The graph a contraction hierarchy has still to contract: each vertex's
//! neighbours and the least weight of an arc to each, which the
//! contraction's rounds shrink and the witness searches walk.

use crate::graph::chains::ChainContraction;

/// The graph still uncontracted: each vertex's neighbours and the least
/// weight of an arc to each.
pub(super) struct Remaining {
    pub(super) neighbours: Vec<Vec<(u32, u32)>>,
}

impl Remaining {
    /// The contracted graph's arcs, parallel ones merged, loops dropped.
    pub(super) fn of(chains: &ChainContraction) -> Remaining {
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

    pub(super) fn arc_count(&self) -> u64 {
        self.neighbours.iter().map(|row| row.len() as u64).sum()
    }
}

/// Adds the arc to `head` of `weight` to `row`, or lowers the one there;
/// whether it added one.
pub(super) fn join(row: &mut Vec<(u32, u32)>, head: u32, weight: u32) -> bool {
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
