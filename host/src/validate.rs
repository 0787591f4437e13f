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

use crate::{Bfs, Csr, Error, Result, UNREACHED};

/// Checks `result` on `graph`; the error names the first violation.
pub fn validate(graph: &Csr, result: &Bfs) -> Result<()> {
    let levels = &result.levels;
    let source = result.source;
    let fail = |message: String| Err(Error::Invalid(message));
    if levels.len() != graph.vertex_count() as usize {
        return fail(format!(
            "{} levels for {} vertices",
            levels.len(),
            graph.vertex_count()
        ));
    }
    if levels[source as usize] != 0 {
        return fail(format!(
            "source {source} has level {}, not 0",
            levels[source as usize]
        ));
    }
    let mut has_parent_edge = vec![false; levels.len()];
    has_parent_edge[source as usize] = true;
    for tail in 0..graph.vertex_count() {
        let tail_level = levels[tail as usize];
        if tail_level == UNREACHED {
            continue;
        }
        for &head in graph.neighbours(tail) {
            let head_level = levels[head as usize];
            if head_level == UNREACHED || head_level > tail_level + 1 {
                return fail(format!(
                    "edge {tail} -> {head} leaves level {tail_level} but reaches {}",
                    describe(head_level)
                ));
            }
            if head_level == tail_level + 1 {
                has_parent_edge[head as usize] = true;
            }
        }
    }
    if let Some(vertex) =
        (0..levels.len()).find(|&vertex| levels[vertex] != UNREACHED && !has_parent_edge[vertex])
    {
        return fail(format!(
            "vertex {vertex} has level {} but no neighbour at level {}",
            levels[vertex],
            levels[vertex].wrapping_sub(1)
        ));
    }
    match &result.parents {
        Some(parents) => validate_parents(graph, result, parents),
        None => Ok(()),
    }
}

fn validate_parents(graph: &Csr, result: &Bfs, parents: &[u32]) -> Result<()> {
    let levels = &result.levels;
    let fail = |message: String| Err(Error::Invalid(message));
    if parents.len() != levels.len() {
        return fail(format!(
            "{} parents for {} vertices",
            parents.len(),
            levels.len()
        ));
    }
    for (vertex, (&parent, &level)) in parents.iter().zip(levels).enumerate() {
        let vertex = vertex as u32;
        if level == UNREACHED {
            if parent != UNREACHED {
                return fail(format!("unreached vertex {vertex} has parent {parent}"));
            }
        } else if vertex == result.source {
            if parent != vertex {
                return fail(format!("source {vertex} has parent {parent}, not itself"));
            }
        } else if parent >= graph.vertex_count() || levels[parent as usize] != level - 1 {
            return fail(format!(
                "vertex {vertex} at level {level} has parent {parent} not at level {}",
                level - 1
            ));
        } else if graph.neighbours(parent).binary_search(&vertex).is_err() {
            return fail(format!(
                "tree edge {parent} -> {vertex} is not an edge of the graph"
            ));
        }
    }
    Ok(())
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
        .iter()
        .zip(&reference.levels)
        .position(|(got, want)| got != want)
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
