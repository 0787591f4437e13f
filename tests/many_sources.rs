//! Batches of many sources on the GPU (MS-BFS, `host/src/many/gpu.rs`;
//! a contraction hierarchy's trees, `host/src/many/gpu/hierarchy_trees.rs`)
//! against the CPU reference: for every source of every batch, the
//! vertices at each distance, the distances themselves, and the
//! per-vertex totals, on the test graphs (directed, several components,
//! isolated vertices, self loops, a source with no edges), in batches of
//! 1 to 1,024 sources, not multiples of 32, with repeats; and a depth
//! limit. Without a GPU each test prints `skip: no CUDA device` (and fails
//! instead when `BFS_REQUIRE_GPU` is set).

use bfs::many::gpu::{GpuBatches, HierarchyTrees};
use bfs::many::{Keep, Limits, ManySources, VertexTotals};
use bfs::{Csr, UNREACHED, cpu};
use bfs_tests::{generated, gpu, test_graphs};

/// Each source's vertices by distance, from the CPU reference.
fn reference_counts(levels: &[u32], limit: Option<u32>) -> Vec<u64> {
    let mut counts = Vec::new();
    for &level in levels
        .iter()
        .filter(|&&level| level != UNREACHED && limit.is_none_or(|limit| level <= limit))
    {
        if counts.len() <= level as usize {
            counts.resize(level as usize + 1, 0);
        }
        counts[level as usize] += 1;
    }
    counts
}

/// Sources for a batch of `count`: spread over the graph, with a repeat
/// and, where there is one, a vertex without edges.
fn batch_sources(graph: &Csr, count: usize, seed: u64) -> Vec<u32> {
    let n = graph.vertex_count() as u64;
    let mut state = seed;
    let mut sources: Vec<u32> = (0..count)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % n) as u32
        })
        .collect();
    if count > 2 {
        sources[1] = sources[0];
    }
    if let Some(isolated) = (0..graph.vertex_count()).find(|&v| graph.degree(v) == 0)
        && count > 3
    {
        sources[2] = isolated;
    }
    sources
}

/// Checks one batch of `sources` on `engine` against the reference, with
/// `limit`: counts, distance rows and totals.
fn check_batch(
    name: &str,
    graph: &Csr,
    engine: &mut dyn ManySources,
    sources: &[u32],
    limit: Option<u32>,
) {
    let n = graph.vertex_count() as usize;
    let limits = Limits { depth_limit: limit };
    let references: Vec<Vec<u32>> = sources
        .iter()
        .map(|&source| {
            let mut levels = cpu::bfs(graph, source).levels;
            if let Some(limit) = limit {
                for level in &mut levels {
                    if *level != UNREACHED && *level > limit {
                        *level = UNREACHED;
                    }
                }
            }
            levels
        })
        .collect();
    let mut rows = vec![0i32; sources.len() * n];
    let counts = engine
        .search_batch(sources, limits, Keep::Distances(&mut rows))
        .unwrap_or_else(|error| panic!("{name}: {error}"));
    for (index, (&source, levels)) in sources.iter().zip(&references).enumerate() {
        assert_eq!(
            counts[index],
            reference_counts(levels, limit),
            "{name}: counts of source {source} (slot {index} of {})",
            sources.len()
        );
        let row = &rows[index * n..(index + 1) * n];
        for (vertex, (&got, &expected)) in row.iter().zip(levels).enumerate() {
            let expected = if expected == UNREACHED {
                -1
            } else {
                expected as i32
            };
            assert_eq!(
                got, expected,
                "{name}: source {source} (slot {index}), vertex {vertex}"
            );
        }
    }
    let mut totals = VertexTotals::new(graph.vertex_count());
    let again = engine
        .search_batch(sources, limits, Keep::Totals(&mut totals))
        .unwrap_or_else(|error| panic!("{name}: {error}"));
    engine
        .add_held_totals(&mut totals)
        .unwrap_or_else(|error| panic!("{name}: {error}"));
    assert_eq!(again, counts, "{name}: counts with totals kept");
    let mut expected = VertexTotals::new(graph.vertex_count());
    for levels in &references {
        for (vertex, &level) in levels.iter().enumerate() {
            if level == UNREACHED {
                continue;
            }
            expected.reached_by[vertex] += 1;
            expected.distance_sums[vertex] += level as u64;
            if level > 0 {
                expected.reciprocal_sums[vertex] += 1.0 / level as f64;
            }
            expected.farthest[vertex] = expected.farthest[vertex].max(level);
        }
    }
    assert_eq!(totals.reached_by, expected.reached_by, "{name}: reached_by");
    assert_eq!(
        totals.distance_sums, expected.distance_sums,
        "{name}: distance sums"
    );
    assert_eq!(totals.farthest, expected.farthest, "{name}: farthest");
    for (vertex, (&got, &want)) in totals
        .reciprocal_sums
        .iter()
        .zip(&expected.reciprocal_sums)
        .enumerate()
    {
        assert!(
            (got - want).abs() <= 1e-12 * want.abs().max(1.0),
            "{name}: reciprocal sum of vertex {vertex}: {got} against {want}"
        );
    }
}

#[test]
fn every_source_of_every_batch_gets_the_reference_distances() {
    let test = "every_source_of_every_batch_gets_the_reference_distances";
    let Some(gpu) = gpu(test) else {
        return;
    };
    let mut graphs = test_graphs();
    // Self loops and duplicates: the generator drops them, so add some.
    let looped = Csr::from_edges(6, &[(0, 0), (0, 1), (1, 1), (1, 2), (3, 4), (4, 4)], true)
        .expect("a small graph");
    graphs.push(("self loops".into(), looped));
    // A hub whose in-list is cut into chunks (heavy at every batch width),
    // leaves chained in pairs, and a small component apart, whose sources
    // end early while the hub's other sources go on.
    let hub_edges: Vec<(u32, u32)> = (1..3000)
        .map(|leaf| (0, leaf))
        .chain((1..2999).step_by(2).map(|leaf| (leaf, leaf + 1)))
        .chain([(3000, 3001), (3001, 3002)])
        .collect();
    let hub = Csr::from_edges(3003, &hub_edges, true).expect("a hub graph");
    graphs.push(("hub and a small component".into(), hub));
    // Directed: every leaf points at the hub, the hub at every third leaf,
    // so the hub's in-list (the reverse graph's row) is the heavy one.
    let arcs: Vec<(u32, u32)> = (1..3000)
        .map(|leaf| (leaf, 0))
        .chain((1..3000).step_by(3).map(|leaf| (0, leaf)))
        .collect();
    let directed_hub = Csr::from_edges(3000, &arcs, false).expect("a directed hub");
    graphs.push(("directed hub".into(), directed_hub));
    for (name, graph) in &graphs {
        for (words, counts) in [
            (1, &[1usize, 5, 32][..]),
            (4, &[33, 100, 128]),
            (32, &[1000]),
        ] {
            let mut engine = GpuBatches::new(&gpu, graph, words)
                .unwrap_or_else(|error| panic!("{name}: {error}"));
            for (seed, &count) in counts.iter().enumerate() {
                let sources = batch_sources(graph, count, seed as u64 + 7);
                check_batch(
                    &format!("{name}, {count} sources"),
                    graph,
                    &mut engine,
                    &sources,
                    None,
                );
            }
        }
    }
}

#[test]
fn a_depth_limit_leaves_the_further_vertices_unreached() {
    let test = "a_depth_limit_leaves_the_further_vertices_unreached";
    let Some(gpu) = gpu(test) else {
        return;
    };
    for spec in ["grid:100x100:0.1", "kron:14:8"] {
        let graph = generated(spec, 3);
        let mut engine = GpuBatches::new(&gpu, &graph, 2).expect("an engine");
        let sources = batch_sources(&graph, 50, 1);
        for limit in [0, 1, 3, 10] {
            check_batch(
                &format!("{spec}, depth {limit}"),
                &graph,
                &mut engine,
                &sources,
                Some(limit),
            );
        }
    }
}

#[test]
fn a_large_batch_matches_on_a_graph_of_many_levels() {
    let test = "a_large_batch_matches_on_a_graph_of_many_levels";
    let Some(gpu) = gpu(test) else {
        return;
    };
    for spec in ["road:20000", "kron:16:16"] {
        let graph = generated(spec, 5);
        let mut engine = GpuBatches::new(&gpu, &graph, 32).expect("an engine");
        let sources = batch_sources(&graph, 1024, 9);
        check_batch(spec, &graph, &mut engine, &sources, None);
    }
}

/// Undirected graphs for the hierarchy's trees: mostly chains (road
/// networks), a core left uncontracted (a grid, a star's hub), two
/// junctions joined by chains of several lengths with a tail, a lone
/// vertex and a separate ring, a ring alone, self loops.
fn hierarchy_graphs() -> Vec<(String, Csr)> {
    let mut graphs: Vec<(String, Csr)> = test_graphs()
        .into_iter()
        .filter(|(_, graph)| graph.is_symmetric())
        .collect();
    for (spec, seed) in [("road:3000", 3), ("road:20000", 4), ("grid:30x30:0.3", 5)] {
        graphs.push((format!("gen:{spec} seed {seed}"), generated(spec, seed)));
    }
    let mut edges = vec![(0, 2), (2, 3), (3, 1), (0, 4), (4, 1), (0, 5), (5, 6)];
    edges.extend([
        (6, 7),
        (7, 8),
        (8, 1),
        (1, 9),
        (9, 10),
        (11, 12),
        (12, 13),
        (13, 11),
    ]);
    let junctions = Csr::from_edges(15, &edges, true).expect("junctions");
    graphs.push(("junctions, chains, a ring".into(), junctions));
    let ring: Vec<(u32, u32)> = (0..7).map(|vertex| (vertex, (vertex + 1) % 7)).collect();
    graphs.push((
        "a ring".into(),
        Csr::from_edges(7, &ring, true).expect("a ring"),
    ));
    let looped = Csr::from_edges(6, &[(0, 0), (0, 1), (1, 1), (1, 2), (3, 4), (4, 4)], true)
        .expect("a small graph");
    graphs.push(("self loops".into(), looped));
    graphs
}

#[test]
fn hierarchy_trees_give_every_source_the_reference_distances() {
    let test = "hierarchy_trees_give_every_source_the_reference_distances";
    let Some(gpu) = gpu(test) else {
        return;
    };
    for (name, graph) in &hierarchy_graphs() {
        for (width, counts) in [
            (32, &[1usize, 5, 32][..]),
            (128, &[33, 100]),
            (1024, &[1000]),
        ] {
            let mut engine = HierarchyTrees::new(&gpu, graph, width)
                .unwrap_or_else(|error| panic!("{name}: {error}"));
            for (seed, &count) in counts.iter().enumerate() {
                let sources = batch_sources(graph, count, seed as u64 + 11);
                check_batch(
                    &format!("{name}, {count} sources (hierarchy)"),
                    graph,
                    &mut engine,
                    &sources,
                    None,
                );
            }
        }
        let mut engine = HierarchyTrees::new(&gpu, graph, 64).expect("an engine");
        let sources = batch_sources(graph, 50, 2);
        for limit in [0, 1, 4, 25] {
            check_batch(
                &format!("{name}, depth {limit} (hierarchy)"),
                graph,
                &mut engine,
                &sources,
                Some(limit),
            );
        }
    }
    // Distances past what one block's shared memory counts: the
    // differences go to global memory.
    let long = generated("path:100000", 1);
    let mut engine = HierarchyTrees::new(&gpu, &long, 32).expect("an engine");
    check_batch(
        "a long path",
        &long,
        &mut engine,
        &[0, 50_000, 99_999, 7],
        None,
    );
    let directed = bfs_tests::directed_random(300, 900, 5);
    let refused = HierarchyTrees::new(&gpu, &directed, 32)
        .err()
        .map(|error| error.to_string());
    assert!(
        refused
            .as_deref()
            .is_some_and(|why| why.contains("directed")),
        "a directed graph: {refused:?}"
    );
}

/// The GPUs of the host sharing a run's batches (`bfs centrality --gpus`):
/// every source's counts and every vertex's totals equal one engine's, by
/// each GPU method, on as many GPUs as there are (up to two).
#[test]
fn gpus_sharing_the_batches_give_one_engines_results() {
    let test = "gpus_sharing_the_batches_give_one_engines_results";
    let Some(gpu) = gpu(test) else {
        return;
    };
    let gpus = bfs::gpu::Gpu::device_count()
        .expect("a device count")
        .min(2);
    for spec in ["road:3000", "kron:12:8"] {
        let graph = generated(spec, 6);
        let n = graph.vertex_count();
        let (method, _) = bfs::many::gpu_method(&graph, n as usize / 3);
        let width = bfs::many::gpus::batch_width(method, n as usize / 3, gpus);
        let sources = bfs::many::all_sources(&graph, width);
        let sources = &sources[..n as usize / 3];
        let limits = Limits::default();
        let shared =
            bfs::many::gpus::run_on_gpus(&graph, gpus, sources, (limits, true), (method, None))
                .unwrap_or_else(|error| panic!("{spec}: {error}"));
        let mut engine = method
            .engine(&gpu, &graph, width)
            .unwrap_or_else(|error| panic!("{spec}: {error}"));
        let alone = bfs::many::run(engine.as_mut(), n, sources, limits, true)
            .unwrap_or_else(|error| panic!("{spec}: {error}"));
        assert_eq!(shared.eccentricities, alone.eccentricities, "{spec}");
        assert_eq!(shared.reached, alone.reached, "{spec}");
        assert_eq!(shared.distance_sums, alone.distance_sums, "{spec}");
        assert_eq!(shared.histogram, alone.histogram, "{spec}");
        assert_eq!(shared.batches, alone.batches, "{spec}");
        let (shared, alone) = (
            shared.totals.expect("totals"),
            alone.totals.expect("totals"),
        );
        assert_eq!(shared.reached_by, alone.reached_by, "{spec}");
        assert_eq!(shared.distance_sums, alone.distance_sums, "{spec}");
        assert_eq!(shared.farthest, alone.farthest, "{spec}");
    }
}

/// A few small batches, every kernel and every kept result: sized for
/// compute-sanitizer's tools, which run the kernels hundreds of times
/// slower.
#[test]
fn small_batches_for_the_sanitizers() {
    let test = "small_batches_for_the_sanitizers";
    let Some(gpu) = gpu(test) else {
        return;
    };
    for (spec, words, count) in [
        ("grid:20x20:0.1", 2, 40),
        ("kron:9:8", 1, 20),
        ("kron:10:8", 32, 1000),
    ] {
        let graph = generated(spec, 2);
        let mut engine = GpuBatches::new(&gpu, &graph, words).expect("an engine");
        let sources = batch_sources(&graph, count, 4);
        check_batch(spec, &graph, &mut engine, &sources, None);
    }
    let directed = bfs_tests::directed_random(300, 900, 5);
    let mut engine = GpuBatches::new(&gpu, &directed, 4).expect("an engine");
    check_batch(
        "directed",
        &directed,
        &mut engine,
        &batch_sources(&directed, 100, 6),
        Some(4),
    );
    // The hierarchy's trees: chains, a core (the grid's), a depth limit.
    for (spec, count, limit) in [("road:400", 40, None), ("grid:12x12:0.1", 33, Some(5))] {
        let graph = generated(spec, 2);
        let mut engine = HierarchyTrees::new(&gpu, &graph, count).expect("an engine");
        let sources = batch_sources(&graph, count as usize, 4);
        check_batch(spec, &graph, &mut engine, &sources, limit);
    }
}

/// One search from several seeds on the GPU (`--seeds`): each vertex's
/// distance to its nearest seed equals the CPU reference's, within a
/// depth limit too, and the parents taken from the distances form a valid
/// forest (the Graph500 rules, a tree a seed).
#[test]
fn seeds_give_the_reference_distances_and_a_valid_forest() {
    let test = "seeds_give_the_reference_distances_and_a_valid_forest";
    let Some(gpu) = gpu(test) else {
        return;
    };
    let directed = bfs_tests::directed_random(2000, 6000, 3);
    for (name, graph) in [
        ("grid", generated("grid:60x60:0.1", 1)),
        ("kron", generated("kron:12:8", 2)),
        ("directed", directed),
    ] {
        let mut engine = GpuBatches::new(&gpu, &graph, 1).expect("an engine");
        let n = graph.vertex_count();
        for seeds in [vec![0], vec![3, n / 2, n - 1], vec![5, 5, 7]] {
            for depth_limit in [None, Some(2)] {
                let row = engine
                    .search_from_seeds(&seeds, Limits { depth_limit })
                    .unwrap_or_else(|error| panic!("{name}: {error}"));
                let levels: Vec<u32> = row
                    .iter()
                    .map(|&level| u32::try_from(level).unwrap_or(UNREACHED))
                    .collect();
                let want = cpu::bfs_within(&graph, &seeds, depth_limit);
                assert_eq!(levels, want.levels, "{name}: {seeds:?} {depth_limit:?}");
                let result = bfs::Bfs::from_levels(&graph, &seeds, levels);
                bfs::validate::validate_within(&graph, &result, &seeds, depth_limit)
                    .unwrap_or_else(|error| panic!("{name}: {seeds:?}: {error}"));
            }
        }
    }
}
