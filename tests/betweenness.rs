//! Betweenness centrality (`bfs::many::betweenness`): the CPU engine
//! against a definition computed apart (every pair's shortest paths
//! counted, `δ_st(v) = σ_sv σ_vt / σ_st`), and the GPU's batches against
//! the CPU engine, vertex and arc values to 1e-9 relative, on the test
//! graphs (directed, several components, isolated vertices, a long path,
//! hubs), from every vertex and from samples, in batches of every width,
//! with and without networkx's endpoints; networkx's rescaling by its
//! formulas. The block-a-source engine for deep graphs against the CPU
//! engine too, with few slots (each block searching many sources one
//! after another) and many. Without a GPU the GPU tests print `skip: no CUDA device`
//! (and fail instead when `BFS_REQUIRE_GPU` is set).

use bfs::Csr;
use bfs::gpu::Gpu;
use bfs::many::betweenness::{
    self, Betweenness, CpuBetweenness, Dependencies, Scale, Wanted, rescale_edges, rescale_vertices,
};
use bfs::many::gpu::{GpuBetweenness, GpuBlockBetweenness};
use bfs_tests::{directed_random, generated, gpu, test_graphs};

const EVERYTHING: Wanted = Wanted {
    vertices: true,
    arcs: true,
    endpoints: false,
};

/// Each source's distances and shortest-path counts, by plain searches.
fn paths_from(graph: &Csr, source: u32) -> (Vec<u32>, Vec<f64>) {
    let n = graph.vertex_count() as usize;
    let (mut levels, mut sigma) = (vec![u32::MAX; n], vec![0.0; n]);
    levels[source as usize] = 0;
    sigma[source as usize] = 1.0;
    let mut queue = std::collections::VecDeque::from([source]);
    while let Some(vertex) = queue.pop_front() {
        for &head in graph.neighbours(vertex) {
            if levels[head as usize] == u32::MAX {
                levels[head as usize] = levels[vertex as usize] + 1;
                queue.push_back(head);
            }
            if levels[head as usize] == levels[vertex as usize] + 1 {
                sigma[head as usize] += sigma[vertex as usize];
            }
        }
    }
    (levels, sigma)
}

/// Betweenness by its definition over the pairs of `sources` and every
/// target: vertex `v` gains `σ_sv σ_vt / σ_st` where it lies on a shortest
/// `s`–`t` path, and arc `v → w` gains `σ_sv σ_wt / σ_st` where it does;
/// with `endpoints`, `s` and `t` count too (a pair `s ≠ t` that is
/// connected adds 1 to each end).
fn by_definition(graph: &Csr, sources: &[u32], endpoints: bool) -> Dependencies {
    let n = graph.vertex_count() as usize;
    let all: Vec<(Vec<u32>, Vec<f64>)> = (0..n as u32).map(|v| paths_from(graph, v)).collect();
    let mut vertices = vec![0.0; n];
    let mut arcs = vec![0.0; graph.edge_count() as usize];
    for &s in sources {
        let (from_s, sigma_s) = &all[s as usize];
        for t in 0..n {
            if t == s as usize || from_s[t] == u32::MAX {
                continue;
            }
            let through = |v: usize| {
                let (from_v, sigma_v) = &all[v];
                (from_s[v] != u32::MAX
                    && from_v[t] != u32::MAX
                    && from_s[v] + from_v[t] == from_s[t])
                    .then(|| sigma_s[v] * sigma_v[t] / sigma_s[t])
            };
            for (v, value) in vertices.iter_mut().enumerate() {
                match through(v) {
                    Some(share) if v != s as usize && v != t => *value += share,
                    Some(_) if endpoints => *value += 1.0,
                    _ => {}
                }
            }
            let mut arc = 0;
            for v in 0..n as u32 {
                for &w in graph.neighbours(v) {
                    let (from_w, sigma_w) = &all[w as usize];
                    if from_s[v as usize] != u32::MAX
                        && from_w[t] != u32::MAX
                        && from_s[v as usize] + 1 + from_w[t] == from_s[t]
                    {
                        arcs[arc] += sigma_s[v as usize] * sigma_w[t] / sigma_s[t];
                    }
                    arc += 1;
                }
            }
        }
    }
    Dependencies {
        vertices: Some(vertices),
        arcs: Some(arcs),
    }
}

/// Whether `found` equals `expected` to 1e-9 relative (of the largest).
fn assert_close(name: &str, found: &[f64], expected: &[f64]) {
    assert_eq!(found.len(), expected.len(), "{name}: lengths");
    let scale = expected
        .iter()
        .fold(1.0f64, |most, value| most.max(value.abs()));
    for (index, (a, b)) in found.iter().zip(expected).enumerate() {
        assert!(
            (a - b).abs() <= 1e-9 * scale,
            "{name}: value {index} is {a}, expected {b}"
        );
    }
}

fn assert_same(name: &str, found: &Dependencies, expected: &Dependencies) {
    for (what, found, expected) in [
        ("vertices", &found.vertices, &expected.vertices),
        ("arcs", &found.arcs, &expected.arcs),
    ] {
        match (found, expected) {
            (Some(found), Some(expected)) => {
                assert_close(&format!("{name} {what}"), found, expected)
            }
            (None, None) => {}
            _ => panic!("{name}: {what} kept by one engine only"),
        }
    }
}

/// Small graphs of every shape: a grid, a path, a star, a cycle, random,
/// directed, with isolated vertices and several components.
fn small_graphs() -> Vec<(String, Csr)> {
    let mut graphs: Vec<(String, Csr)> = [
        ("grid:7x6:0.1", 1),
        ("path:40", 2),
        ("star:30", 3),
        ("uniform:60:90", 4),
        ("uniform:50:20", 5),
        ("kron:6:8", 6),
        ("road:20:0.3", 7),
    ]
    .into_iter()
    .map(|(spec, seed)| (format!("gen:{spec}"), generated(spec, seed)))
    .collect();
    graphs.push(("directed random".into(), directed_random(60, 180, 8)));
    let cycle: Vec<(u32, u32)> = (0..25).map(|v| (v, (v + 1) % 25)).collect();
    graphs.push((
        "directed cycle".into(),
        Csr::from_edges(25, &cycle, false).expect("small"),
    ));
    graphs
}

#[test]
fn the_cpu_engine_gives_the_definitions_sums() {
    for (name, graph) in small_graphs() {
        let n = graph.vertex_count();
        let every: Vec<u32> = (0..n).collect();
        let sample: Vec<u32> = (0..n).step_by(3).collect();
        for (sources, endpoints) in [(&every, false), (&every, true), (&sample, false)] {
            let wanted = Wanted {
                endpoints,
                ..EVERYTHING
            };
            let mut engine = CpuBetweenness::new(&graph, wanted);
            let found = betweenness::run(&mut engine, sources).unwrap();
            let expected = by_definition(&graph, sources, endpoints);
            let name = format!("{name}, {} sources, endpoints {endpoints}", sources.len());
            // The definition counts arcs without endpoints whatever they are.
            assert_close(
                &format!("{name} vertices"),
                found.dependencies.vertices.as_deref().unwrap(),
                expected.vertices.as_deref().unwrap(),
            );
            assert_close(
                &format!("{name} arcs"),
                found.dependencies.arcs.as_deref().unwrap(),
                expected.arcs.as_deref().unwrap(),
            );
        }
    }
}

#[test]
fn rescaling_is_networkx_s() {
    // networkx 3.6's `_rescale`, on a graph of n = 10 vertices.
    let n = 10;
    let scaled = |scale: Scale<'_>, endpoints: bool| {
        let mut values = vec![1.0; n as usize];
        rescale_vertices(&mut values, n, scale, endpoints);
        values
    };
    let exact = |normalized, directed| Scale {
        normalized,
        directed,
        sampled: None,
    };
    // N = n - 1 = 9 targets a source: 1 / (9 · 8).
    assert_eq!(scaled(exact(true, false), false)[0], 1.0 / 72.0);
    assert_eq!(scaled(exact(false, false), false)[0], 0.5);
    assert_eq!(scaled(exact(false, true), false)[0], 1.0);
    // Endpoints: N = n = 10: 1 / (10 · 9).
    assert_eq!(scaled(exact(true, true), true)[0], 1.0 / 90.0);
    // A sample of k = 4 without endpoints: a sampled source by the 3 others,
    // another vertex by all 4.
    let sampled = [1, 3, 5, 7];
    let sample = |normalized| Scale {
        normalized,
        directed: false,
        sampled: Some(&sampled),
    };
    let values = scaled(sample(true), false);
    assert_eq!(values[1], 1.0 / (3.0 * 8.0));
    assert_eq!(values[0], 1.0 / (4.0 * 8.0));
    let values = scaled(sample(false), false);
    assert_eq!(values[1], 9.0 / (3.0 * 2.0));
    assert_eq!(values[0], 9.0 / (4.0 * 2.0));
    // Edges count endpoints: N = n.
    let mut edges = vec![1.0; 3];
    rescale_edges(&mut edges, n, exact(true, false));
    assert_eq!(edges[0], 1.0 / 90.0);
    let mut edges = vec![1.0; 3];
    rescale_edges(&mut edges, n, sample(false));
    assert_eq!(edges[0], 10.0 / (4.0 * 2.0));
    // Too few vertices: no rescaling.
    let mut values = vec![2.0; 2];
    rescale_vertices(&mut values, 2, exact(true, false), false);
    assert_eq!(values, [2.0, 2.0]);
}

#[test]
fn an_undirected_edge_sums_its_two_arcs() {
    let graph = generated("grid:5x4:0", 1);
    let arcs: Vec<f64> = (0..graph.edge_count()).map(|arc| arc as f64).collect();
    let values = betweenness::edge_values(&graph, &arcs);
    let mut arc = 0;
    for tail in 0..graph.vertex_count() {
        for &head in graph.neighbours(tail) {
            let first = graph.row_offsets()[head as usize] as usize;
            let back = first + graph.neighbours(head).binary_search(&tail).unwrap();
            assert_eq!(values[arc], arc as f64 + back as f64);
            arc += 1;
        }
    }
    let pairs = betweenness::pair_values(&graph, &arcs, &[0, 0, 3], &[1, 0, 3]).unwrap();
    assert_eq!(pairs[0], values[0]);
    assert_eq!(pairs[1], 0.0, "a self loop has no arc");
    assert!(betweenness::pair_values(&graph, &arcs, &[0], &[99]).is_err());
}

/// The GPU's sums for `sources` at `width` against the CPU engine's.
fn check_gpu(device: &Gpu, name: &str, graph: &Csr, sources: &[u32], width: u32, wanted: Wanted) {
    let mut engine = GpuBetweenness::new(device, graph, width, wanted)
        .unwrap_or_else(|error| panic!("{name}: {error}"));
    let found = betweenness::run(&mut engine, sources).unwrap();
    let mut reference = CpuBetweenness::new(graph, wanted);
    let expected = betweenness::run(&mut reference, sources).unwrap();
    assert_same(
        &format!("{name}, {} sources, width {width}", sources.len()),
        &found.dependencies,
        &expected.dependencies,
    );
}

#[test]
fn gpu_batches_give_the_cpu_engines_sums() {
    let Some(device) = gpu("gpu_batches_give_the_cpu_engines_sums") else {
        return;
    };
    for (name, graph) in test_graphs().into_iter().chain(small_graphs()) {
        let n = graph.vertex_count();
        let spread: Vec<u32> = (0..n)
            .step_by((n as usize / 100).max(1))
            .take(100)
            .collect();
        check_gpu(&device, &name, &graph, &spread, 64, EVERYTHING);
        check_gpu(&device, &name, &graph, &spread, 32, EVERYTHING);
        let endpoints = Wanted {
            vertices: true,
            arcs: false,
            endpoints: true,
        };
        let few = &spread[..spread.len().min(33)];
        check_gpu(&device, &name, &graph, few, 128, endpoints);
    }
}

#[test]
fn gpu_batches_from_every_vertex() {
    let Some(device) = gpu("gpu_batches_from_every_vertex") else {
        return;
    };
    for (name, graph) in small_graphs() {
        let every: Vec<u32> = (0..graph.vertex_count()).collect();
        for width in [32, 256, 4096] {
            check_gpu(&device, &name, &graph, &every, width, EVERYTHING);
        }
    }
    let road = generated("road:300", 9);
    let every = bfs::many::all_sources(&road, 1024);
    let name = "gen:road:300 in grown patches";
    check_gpu(&device, name, &road, &every, 1024, EVERYTHING);
}

#[test]
fn a_batch_checks_its_sources_and_width() {
    let Some(device) = gpu("a_batch_checks_its_sources_and_width") else {
        return;
    };
    let graph = generated("path:10", 1);
    assert!(GpuBetweenness::new(&device, &graph, 48, EVERYTHING).is_err());
    assert!(GpuBetweenness::new(&device, &graph, 8192, EVERYTHING).is_err());
    let mut engine = GpuBetweenness::new(&device, &graph, 32, EVERYTHING).unwrap();
    assert!(matches!(
        engine.add_batch(&[3, 10]),
        Err(bfs::Error::SourceOutOfRange { vertex: 10, .. })
    ));
    let too_many: Vec<u32> = (0..33).map(|v| v % 10).collect();
    assert!(engine.add_batch(&too_many).is_err());
    // The engine still works after refusing.
    engine.add_batch(&[0, 9]).unwrap();
    let found = engine.take().unwrap();
    let mut reference = CpuBetweenness::new(&graph, EVERYTHING);
    reference.add_batch(&[0, 9]).unwrap();
    assert_same("path:10 after refusals", &found, &reference.take().unwrap());
}

/// The block-a-source engine's sums for `sources` with `slots` blocks
/// against the CPU engine's.
fn check_blocks(
    device: &Gpu,
    name: &str,
    graph: &Csr,
    sources: &[u32],
    slots: u32,
    wanted: Wanted,
) {
    let mut engine = GpuBlockBetweenness::new(device, graph, slots, wanted)
        .unwrap_or_else(|error| panic!("{name}: {error}"));
    let found = betweenness::run(&mut engine, sources).unwrap();
    let mut reference = CpuBetweenness::new(graph, wanted);
    let expected = betweenness::run(&mut reference, sources).unwrap();
    assert_same(
        &format!(
            "{name}, {} sources, {slots} slots, {wanted:?}",
            sources.len()
        ),
        &found.dependencies,
        &expected.dependencies,
    );
}

#[test]
fn a_block_a_source_gives_the_cpu_engines_sums() {
    let Some(device) = gpu("a_block_a_source_gives_the_cpu_engines_sums") else {
        return;
    };
    let endpoints = Wanted {
        vertices: true,
        arcs: false,
        endpoints: true,
    };
    for (name, graph) in small_graphs().into_iter().chain(test_graphs()) {
        let n = graph.vertex_count();
        let every: Vec<u32> = (0..n).step_by((n as usize / 150).max(1)).collect();
        check_blocks(&device, &name, &graph, &every, 1, EVERYTHING);
        check_blocks(&device, &name, &graph, &every, 7, EVERYTHING);
        check_blocks(&device, &name, &graph, &every, 256, endpoints);
    }
    // Deep graphs, where the engine is chosen: a road network and a long
    // path, from every vertex, the slots as the device keeps them.
    for (spec, seed) in [("road:3000:0.3", 21), ("path:2000", 22)] {
        let graph = generated(spec, seed);
        assert!(betweenness::is_deep(&graph), "{spec} counts as deep");
        let every: Vec<u32> = (0..graph.vertex_count()).collect();
        let slots =
            GpuBlockBetweenness::slots_for(&device, &graph, every.len(), EVERYTHING).unwrap();
        check_blocks(&device, spec, &graph, &every, slots, EVERYTHING);
        check_blocks(&device, spec, &graph, &every, slots, endpoints);
    }
}

#[test]
fn deep_graphs_are_told_from_shallow_ones() {
    assert!(betweenness::is_deep(&generated("road:20000:0.3", 1)));
    assert!(betweenness::is_deep(&generated("path:500", 1)));
    assert!(betweenness::is_deep(&generated("road:3000:0.3", 21)));
    assert!(betweenness::is_deep(&generated("road:400:0.3", 1)));
    assert!(!betweenness::is_deep(&generated("kron:12:8", 1)));
    assert!(!betweenness::is_deep(&generated("uniform:5000:20000", 1)));
    assert!(!betweenness::is_deep(&generated("path:40", 1)));
    assert!(!betweenness::is_deep(
        &Csr::from_edges(0, &[], true).expect("empty")
    ));
}
