//! Validation of a BFS result, after the Graph500 specification's rules.
//!
//! Without a reference: the source has level 0 (and is its own parent);
//! every edge `(u, v)` leaving a reached `u` reaches `v`, with
//! `level[v] <= level[u] + 1`; every reached vertex but the source has a
//! parent one level up joined to it by an edge. Those rules force every
//! level to be the exact BFS distance: a vertex labelled too high would break
//! the edge rule, one labelled too low would lack a parent. With parents
//! given, they are checked to form that tree; without them, a neighbour one
//! level up must exist (an in-neighbour: the check walks edges forward).
//!
//! A search from several seeds has each at level 0, its own parent; one
//! stopped at a depth limit has no edge rule from the vertices at the limit.
//!
//! The rules are checked on every core: one pass over the edges of the
//! reached vertices and one over the vertices, so that even the largest
//! graphs' searches can be checked.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::{Bfs, Csr, Error, Result, UNREACHED, cpu};

/// Graphs of more CSR entries than this are checked against the parallel
/// CPU search, not the single-thread reference, which would take minutes
/// a source there.
pub const REFERENCE_MOST_EDGES: u64 = 1 << 30;

/// Checks searches of one graph: their distances against a CPU search's,
/// and the Graph500 rules; where a depth limit stopped the searches, up to it.
#[derive(Default)]
pub struct Verifier {
    /// The parallel CPU search, for graphs past [`REFERENCE_MOST_EDGES`].
    parallel: Option<cpu::ParallelBfs>,
    /// Each source whose search passed, with its distances' fingerprint.
    passed: HashMap<u32, u64>,
    /// The searches' depth limit, if any.
    depth_limit: Option<u32>,
}

impl Verifier {
    /// A verifier of searches that leave the vertices past `depth_limit`
    /// unreached.
    pub fn with_depth_limit(depth_limit: Option<u32>) -> Verifier {
        Verifier {
            depth_limit,
            ..Verifier::default()
        }
    }

    /// Checks `result` on `graph`. Up to [`REFERENCE_MOST_EDGES`]: the
    /// distances against the single-thread reference, and every rule
    /// ([`validate`]). Past it: the distances against the parallel CPU
    /// search (every core), and the parents by the tree rules; the edge
    /// rule, a pass over every edge that costs more than the search, holds
    /// of any exact distances.
    ///
    /// A source checked before (a benchmark searches each source on
    /// every path) is not searched again on the CPU: its distances must
    /// have the fingerprint of those that passed, and its parents pass the
    /// tree rules.
    pub fn check(&mut self, graph: &Csr, result: &Bfs) -> Result<()> {
        let fingerprint = fingerprint(&result.levels);
        if let Some(&passed) = self.passed.get(&result.source) {
            if fingerprint != passed {
                return Err(Error::Invalid(format!(
                    "the distances differ from those of an earlier search from {} that passed",
                    result.source
                )));
            }
            return tree_rules(graph, result, &[result.source]);
        }
        self.check_seeds(graph, result, &[result.source])?;
        self.passed.insert(result.source, fingerprint);
        Ok(())
    }

    /// Checks `result`, a search from every one of `seeds` at once, as
    /// [`check`](Self::check) checks a search from one source.
    pub fn check_seeds(&mut self, graph: &Csr, result: &Bfs, seeds: &[u32]) -> Result<()> {
        let limit = self.depth_limit;
        if graph.edge_count() <= REFERENCE_MOST_EDGES {
            same_levels(result, &cpu::bfs_within(graph, seeds, limit))?;
            return validate_within(graph, result, seeds, limit);
        }
        let engine = match &mut self.parallel {
            Some(engine) => engine,
            None => self
                .parallel
                .insert(cpu::ParallelBfs::new(cpu::hardware_threads())?),
        };
        same_levels(result, &engine.search_within(graph, seeds, limit))?;
        tree_rules(graph, result, seeds)
    }
}

/// The tree rules on `result`'s parents, where it has them.
fn tree_rules(graph: &Csr, result: &Bfs, seeds: &[u32]) -> Result<()> {
    match &result.parents {
        Some(parents) => validate_parents(graph, result, parents, &Seeds::of(seeds)),
        None => Ok(()),
    }
}

/// Checks `result` on `graph`; the error names the violation of lowest
/// vertex id.
pub fn validate(graph: &Csr, result: &Bfs) -> Result<()> {
    validate_within(graph, result, &[result.source], None)
}

/// Checks `result`, a search from every one of `seeds` at once that left
/// the vertices past `depth_limit` unreached: the rules of [`validate`],
/// with every seed at level 0 (its own parent) and no edge rule from the
/// vertices at the limit.
pub fn validate_within(
    graph: &Csr,
    result: &Bfs,
    seeds: &[u32],
    depth_limit: Option<u32>,
) -> Result<()> {
    let levels = &result.levels;
    let seeds = Seeds::of(seeds);
    let fail = |message: String| Err(Error::Invalid(message));
    if levels.len() != graph.vertex_count() as usize {
        return fail(format!(
            "{} levels for {} vertices",
            levels.len(),
            graph.vertex_count()
        ));
    }
    if let Some(&seed) = seeds.0.iter().find(|&&seed| levels[seed as usize] != 0) {
        return fail(format!(
            "source {seed} has level {}, not 0",
            describe(levels[seed as usize])
        ));
    }
    // Without parents, each reached vertex's edge from one level up is
    // marked as the edges go by; with them, the parents are that edge.
    let has_parent_edge: Vec<AtomicBool> = match result.parents {
        Some(_) => Vec::new(),
        None => (0..levels.len())
            .into_par_iter()
            .map(|vertex| AtomicBool::new(seeds.has(vertex as u32)))
            .collect(),
    };
    let broken_edge = (0..graph.vertex_count())
        .into_par_iter()
        .filter(|&tail| levels[tail as usize] != UNREACHED)
        .find_map_first(|tail| {
            let tail_level = levels[tail as usize];
            let at_limit = depth_limit == Some(tail_level);
            for &head in graph.neighbours(tail) {
                let head_level = levels[head as usize];
                if (head_level == UNREACHED && !at_limit)
                    || (head_level != UNREACHED && head_level > tail_level + 1)
                {
                    return Some(format!(
                        "edge {tail} -> {head} leaves level {tail_level} but reaches {}",
                        describe(head_level)
                    ));
                }
                if head_level == tail_level + 1 && !has_parent_edge.is_empty() {
                    has_parent_edge[head as usize].store(true, Ordering::Relaxed);
                }
            }
            None
        });
    if let Some(message) = broken_edge {
        return fail(message);
    }
    match &result.parents {
        Some(parents) => validate_parents(graph, result, parents, &seeds),
        None => match (0..levels.len()).into_par_iter().find_first(|&vertex| {
            levels[vertex] != UNREACHED && !has_parent_edge[vertex].load(Ordering::Relaxed)
        }) {
            Some(vertex) => fail(format!(
                "vertex {vertex} has level {} but no neighbour at level {}",
                levels[vertex],
                levels[vertex].wrapping_sub(1)
            )),
            None => Ok(()),
        },
    }
}

/// A search's seeds, sorted, to look up.
struct Seeds(Vec<u32>);

impl Seeds {
    fn of(seeds: &[u32]) -> Seeds {
        let mut sorted = seeds.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        Seeds(sorted)
    }

    fn has(&self, vertex: u32) -> bool {
        self.0.binary_search(&vertex).is_ok()
    }
}

/// The tree rules: each reached vertex but a seed has a parent one
/// level up joined to it by an edge (searched in the vertex's own row
/// where the graph is known to be symmetric, read in order, else in the
/// parent's), each seed is its own parent, unreached vertices have none.
fn validate_parents(graph: &Csr, result: &Bfs, parents: &[u32], seeds: &Seeds) -> Result<()> {
    let levels = &result.levels;
    let symmetric = graph.known_symmetric() == Some(true);
    let fail = |message: String| Err(Error::Invalid(message));
    if parents.len() != levels.len() {
        return fail(format!(
            "{} parents for {} vertices",
            parents.len(),
            levels.len()
        ));
    }
    let violation =
        parents
            .par_iter()
            .zip(levels)
            .enumerate()
            .find_map_first(|(vertex, (&parent, &level))| {
                let vertex = vertex as u32;
                if level == UNREACHED {
                    (parent != UNREACHED)
                        .then(|| format!("unreached vertex {vertex} has parent {parent}"))
                } else if seeds.has(vertex) {
                    (parent != vertex)
                        .then(|| format!("source {vertex} has parent {parent}, not itself"))
                } else if level == 0 {
                    Some(format!("vertex {vertex} has level 0 but is not the source"))
                } else if parent >= graph.vertex_count() || levels[parent as usize] != level - 1 {
                    Some(format!(
                        "vertex {vertex} at level {level} has parent {parent} not at level {}",
                        level - 1
                    ))
                } else {
                    let joined = match symmetric {
                        true => graph.neighbours(vertex).binary_search(&parent),
                        false => graph.neighbours(parent).binary_search(&vertex),
                    };
                    joined.is_err().then(|| {
                        format!("tree edge {parent} -> {vertex} is not an edge of the graph")
                    })
                }
            });
    violation.map_or(Ok(()), fail)
}

/// A 64-bit fingerprint of `levels` (SipHash over blocks, hashed on
/// every core, then over the blocks' hashes): two searches' distances
/// differ yet match by chance with odds of 2^-64.
fn fingerprint(levels: &[u32]) -> u64 {
    let blocks: Vec<u64> = levels
        .par_chunks(1 << 16)
        .map(|block| {
            let mut hasher = DefaultHasher::new();
            block.hash(&mut hasher);
            hasher.finish()
        })
        .collect();
    let mut hasher = DefaultHasher::new();
    blocks.hash(&mut hasher);
    hasher.finish()
}

/// Checks that `result` has exactly the distances of `reference`.
pub fn same_levels(result: &Bfs, reference: &Bfs) -> Result<()> {
    if result.levels.len() != reference.levels.len() {
        return Err(Error::Invalid(format!(
            "{} levels, the reference has {}",
            result.levels.len(),
            reference.levels.len()
        )));
    }
    match result
        .levels
        .par_iter()
        .zip(&reference.levels)
        .position_first(|(got, want)| got != want)
    {
        None => Ok(()),
        Some(vertex) => Err(Error::Invalid(format!(
            "vertex {vertex} has level {}, the CPU reference says {}",
            describe(result.levels[vertex]),
            describe(reference.levels[vertex])
        ))),
    }
}

fn describe(level: u32) -> String {
    if level == UNREACHED {
        "unreached".into()
    } else {
        level.to_string()
    }
}
