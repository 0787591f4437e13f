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
//! the two sweeps. A directed graph is all core. What contracting costs
//! is known before it starts ([`contraction_work`]): `hierarchy-sweep`
//! refuses a graph past its budget (hubs) rather than contract it. Vertices are renumbered
//! level by level, ascending, so each level is a range of indices, whose
//! wide vertices (many lower arcs) come first.
//!
//! `contraction.rs` contracts the vertices round by round; `witness.rs`
//! searches for the witnesses that spare a contraction its shortcuts;
//! this file lays the result out for the sweeps.

mod contraction;
mod remaining;
mod witness;

use rayon::prelude::*;

use crate::graph::Csr;
use crate::graph::chains::{ChainContraction, WeightedRows};

use contraction::contract;
use remaining::Remaining;

/// Most neighbours a vertex may have and be contracted: contracting it
/// examines every pair of them.
pub const MOST_NEIGHBOURS_CONTRACTED: usize = 16;

/// Lower arcs beyond which a vertex is *wide*: the upward sweep gives it a
/// warp, a lane an arc, rather than a thread. The highest levels hold few
/// vertices with many lower arcs, whose thread would read them in turn
/// while the block waits at the barrier.
pub const WIDE_ROW_ARCS: usize = 8;

/// Arcs a hierarchy may have per CSR entry of its graph (or per arc of
/// its chain contraction, if more). Networks whose junctions lie in long
/// chains contract whole within their own entries; those of few chains
/// (junctions of degree 3 and more, grids) need more than twice theirs in
/// shortcuts before their last rounds, and stopped short of them keep a
/// core of half their junctions, which the sweeps search in slow rounds
/// (docs/decisions.md, "Road networks of few chains").
pub const ARCS_PER_ENTRY: u64 = 3;

/// Contraction work a hierarchy's build may take per CSR entry of its
/// graph ([`contraction_work`]). This many times the entries is the most
/// a graph whose degrees are at most this can take, as every graph that
/// `auto` calls road-like; a hub of millions of neighbours would take
/// hours (docs/decisions.md, "Preparation budgets").
pub const CONTRACTION_WORK_PER_ENTRY: u64 = 64;

/// Contraction work any graph may take, however few its entries: the
/// hubs of small graphs (a star of thousands of leaves) cost a fraction
/// of a second.
pub const LEAST_CONTRACTION_WORK: u64 = 1 << 28;

/// What building `graph`'s hierarchy costs, found before it starts: the
/// sum of its vertices' squared degrees. A vertex's row is merged when
/// the contraction starts, rewritten each time one of its neighbours is
/// contracted and searched each time a shortcut joins it, each in time of
/// its length; the witness searches besides are bounded by their arcs.
pub fn contraction_work(graph: &Csr) -> u64 {
    (0..graph.vertex_count())
        .into_par_iter()
        .map(|vertex| (graph.degree(vertex) as u64).pow(2))
        .sum()
}

/// The most [`contraction_work`] a hierarchy of `graph` may take:
/// [`CONTRACTION_WORK_PER_ENTRY`] a CSR entry, at least
/// [`LEAST_CONTRACTION_WORK`].
pub fn contraction_budget(graph: &Csr) -> u64 {
    (CONTRACTION_WORK_PER_ENTRY * graph.edge_count()).max(LEAST_CONTRACTION_WORK)
}

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
    /// hierarchy's arcs stay within [`ARCS_PER_ENTRY`] times the graph's
    /// CSR entries (or the contracted graph's arcs, if more).
    pub fn of(graph: &Csr) -> ContractionHierarchy {
        Self::over(graph, ChainContraction::of(graph))
    }

    /// The most arcs [`of`](Self::of) gives `graph`'s hierarchy, both
    /// directions counted, from the contraction alone.
    pub fn most_arcs(graph: &Csr, chains: &ChainContraction) -> u64 {
        ARCS_PER_ENTRY * (graph.column_indices().len() as u64).max(chains.arc_count())
    }

    /// [`of`](Self::of), from `graph`'s chain contraction.
    pub fn over(graph: &Csr, chains: ChainContraction) -> ContractionHierarchy {
        let kept_count = chains.kept_count();
        let mut remaining = Remaining::of(&chains);
        // Each contracted vertex's neighbours when it was contracted, in
        // contraction order.
        let mut contracted: Vec<(u32, Vec<(u32, u32)>)> = Vec::new();
        let mut shortcuts = 0;
        if graph.is_symmetric() {
            let arc_budget = Self::most_arcs(graph, &chains);
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

        // Each vertex's row of `rows`, in sweep order, its heads renumbered.
        let in_sweep_order = |rows: &[Vec<(u32, u32)>]| {
            let renumbered: Vec<Vec<(u32, u32)>> = (order.par_iter())
                .map(|&vertex| {
                    let mut row: Vec<_> = (rows[vertex as usize].iter())
                        .map(|&(head, weight)| (index_of[head as usize], weight))
                        .collect();
                    row.sort_unstable();
                    row
                })
                .collect();
            WeightedRows::from_rows(renumbered.into_iter())
        };
        ContractionHierarchy {
            chains: chains.renumbered(&index_of),
            level_starts,
            wide_ends,
            lower: in_sweep_order(&lower_of),
            higher: in_sweep_order(&higher_of),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::generate::Spec;

    fn generated(spec: &str) -> Csr {
        spec.parse::<Spec>().unwrap().generate().unwrap()
    }

    #[test]
    fn contraction_work_is_the_squared_degrees_summed() {
        // A hub of 1000 leaves, and leaves of one neighbour each.
        assert_eq!(
            contraction_work(&generated("star:1001")),
            1000 * 1000 + 1000
        );
        // Two ends of one neighbour, eight inner vertices of two.
        assert_eq!(contraction_work(&generated("path:10")), 2 + 8 * 4);
    }

    #[test]
    fn graphs_of_few_neighbours_are_within_the_budget_and_hubs_past_it() {
        let within = |spec: &str| {
            let graph = generated(spec);
            contraction_work(&graph) <= contraction_budget(&graph)
        };
        for spec in [
            "grid:200x200",
            "road:3000",
            "path:100000",
            "uniform:20000:30000",
            "star:3000",
            "kron:12:16",
        ] {
            assert!(within(spec), "{spec} refused");
        }
        for spec in ["hub:100000:50000", "stars:300:999"] {
            assert!(!within(spec), "{spec} accepted");
        }
    }

    #[test]
    fn the_budget_grows_with_the_entries_from_its_floor() {
        let small = generated("path:1000");
        assert_eq!(contraction_budget(&small), LEAST_CONTRACTION_WORK);
        let large = generated("grid:1500x1500:0");
        assert_eq!(
            contraction_budget(&large),
            CONTRACTION_WORK_PER_ENTRY * large.edge_count()
        );
    }
}
