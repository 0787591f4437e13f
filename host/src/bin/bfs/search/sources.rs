//! The vertices a run searches from: `--source`, `--seeds`, `--target`
//! and `--sources`, checked against the graph.

use anyhow::{Context, bail};
use bfs::graph::generate::sources_with_edges;
use bfs::{Csr, Error};

use crate::SearchArgs;

/// Graph500's number of search keys, for `--sources random`.
const GRAPH500_SOURCES: usize = 64;

/// What a run searches: from which sources, and to which vertex.
pub(super) struct Searches {
    /// `--sources`' vertices, or `--source` alone (`--seeds`' first).
    pub(super) sources: Vec<u32>,
    /// `--seeds`, one search from all of them.
    pub(super) seeds: Option<Vec<u32>>,
    /// `--target`, whose path from the source is printed.
    pub(super) target: Option<u32>,
}

/// The sources and the target the options ask for, checked against `graph`.
pub(super) fn searches(arguments: &SearchArgs, graph: &Csr) -> anyhow::Result<Searches> {
    let seeds = arguments
        .seeds
        .as_deref()
        .map(|list| vertex_list(list, graph).context("--seeds"))
        .transpose()?;
    let sources = match (&arguments.sources, &seeds) {
        (Some(spec), _) => many_sources(spec, graph, arguments.graph.seed)?,
        (None, Some(seeds)) => vec![seeds[0]],
        (None, None) => vec![vertex(arguments.source, graph)?],
    };
    let target = arguments
        .target
        .map(|target| vertex(target, graph).context("--target"))
        .transpose()?;
    Ok(Searches {
        sources,
        seeds,
        target,
    })
}

/// A vertex id given on the command line, checked against the graph.
fn vertex(id: i64, graph: &Csr) -> bfs::Result<u32> {
    u32::try_from(id)
        .ok()
        .filter(|&vertex| vertex < graph.vertex_count())
        .ok_or(Error::SourceOutOfRange {
            vertex: id,
            vertex_count: graph.vertex_count(),
        })
}

/// `--sources`: `N` random sources with an edge, `random` (64), or a list.
fn many_sources(spec: &str, graph: &Csr, seed: u64) -> anyhow::Result<Vec<u32>> {
    let sources = if spec == "random" {
        sources_with_edges(graph, GRAPH500_SOURCES, seed)
    } else if spec.contains(',') {
        vertex_list(spec, graph).context("--sources")?
    } else {
        let count: usize = spec
            .parse()
            .with_context(|| format!("--sources takes N, random or a list, not '{spec}'"))?;
        if count == 0 {
            bail!("--sources 0: no search to run; ask for 1 or more");
        }
        if count > graph.vertex_count() as usize {
            bail!(
                "--sources {count}: more sources than the graph's {} vertices",
                graph.vertex_count()
            );
        }
        sources_with_edges(graph, count, seed)
    };
    if sources.is_empty() {
        bail!("--sources {spec}: the graph has no vertex with an edge to start from");
    }
    Ok(sources)
}

/// A list of vertices, `3,17,42`, each checked against the graph.
fn vertex_list(list: &str, graph: &Csr) -> anyhow::Result<Vec<u32>> {
    list.split(',')
        .map(|id| {
            let id: i64 = id
                .trim()
                .parse()
                .with_context(|| format!("bad vertex '{id}'"))?;
            Ok(vertex(id, graph)?)
        })
        .collect()
}
