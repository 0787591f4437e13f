//! Connected components (`bfs::components`): the CPU's union–find and
//! Tarjan's search against components found apart (a search from each
//! vertex: weak ones over the arcs both ways, strong ones as the vertices
//! that reach each other), and the GPU's against the CPU's, label for
//! label, on the test graphs (undirected, directed, several components,
//! isolated vertices, a directed Kronecker graph, one-way road networks,
//! long directed paths that outlast the signature sweeps). Without a GPU
//! the GPU tests print `skip: no CUDA device` (and fail instead when
//! `BFS_REQUIRE_GPU` is set).

use bfs::Csr;
use bfs::components::{Components, GpuComponents, MOST_SWEEPS, strong_on_cpu, weak_on_cpu};
use bfs_tests::{directed_random, generated, gpu, test_graphs};

/// Every vertex each vertex reaches, by a search from it.
fn reached_from(graph: &Csr, source: u32) -> Vec<bool> {
    let mut reached = vec![false; graph.vertex_count() as usize];
    reached[source as usize] = true;
    let mut stack = vec![source];
    while let Some(vertex) = stack.pop() {
        for &head in graph.neighbours(vertex) {
            if !reached[head as usize] {
                reached[head as usize] = true;
                stack.push(head);
            }
        }
    }
    reached
}

/// Labels by the least vertex of each group of vertices that reach each
/// other both ways in `graph` (weak components: in its arcs made
/// symmetric).
fn mutual_reach_labels(graph: &Csr) -> Vec<u32> {
    let n = graph.vertex_count();
    let reach: Vec<Vec<bool>> = (0..n).map(|v| reached_from(graph, v)).collect();
    (0..n as usize)
        .map(|v| {
            (0..n as usize)
                .find(|&u| reach[u][v] && reach[v][u])
                .expect("a vertex reaches itself") as u32
        })
        .collect()
}

fn symmetric(graph: &Csr) -> Csr {
    let mut edges = Vec::new();
    for tail in 0..graph.vertex_count() {
        for &head in graph.neighbours(tail) {
            edges.push((tail, head));
        }
    }
    Csr::from_edges(graph.vertex_count(), &edges, true).expect("small")
}

fn small_graphs() -> Vec<(String, Csr)> {
    let mut graphs: Vec<(String, Csr)> = [
        ("grid:9x8:0.4", 1),
        ("uniform:80:50", 2),
        ("kron:7:4", 3),
        ("dkron:7:3", 4),
        ("road:30:0.5", 5),
        ("path:1", 6),
    ]
    .into_iter()
    .map(|(spec, seed)| (format!("gen:{spec}"), generated(spec, seed)))
    .collect();
    graphs.push(("directed random".into(), directed_random(90, 120, 7)));
    graphs
}

#[test]
fn the_cpu_finds_the_components_found_apart() {
    for (name, graph) in small_graphs() {
        assert_eq!(
            strong_on_cpu(&graph).labels,
            mutual_reach_labels(&graph),
            "{name}: strong"
        );
        assert_eq!(
            weak_on_cpu(&graph).labels,
            mutual_reach_labels(&symmetric(&graph)),
            "{name}: weak"
        );
    }
}

#[test]
fn a_summary_counts_and_finds_the_largest() {
    let found = Components {
        labels: vec![0, 0, 2, 0, 2, 5],
    };
    let summary = found.summary();
    assert_eq!(summary.count, 3);
    assert_eq!(summary.largest, (3, 0));
}

/// Graphs for the GPU: the test graphs, the small ones, and larger
/// directed ones.
fn gpu_graphs() -> Vec<(String, Csr)> {
    let mut graphs = test_graphs();
    graphs.extend(small_graphs());
    for (spec, seed) in [
        ("dkron:16:8", 11),
        ("road:20000:0.3", 12),
        ("uniform:100000:60000", 13),
    ] {
        graphs.push((format!("gen:{spec}"), generated(spec, seed)));
    }
    graphs
}

#[test]
fn the_gpu_labels_as_the_cpu_does() {
    let Some(device) = gpu("the_gpu_labels_as_the_cpu_does") else {
        return;
    };
    for (name, graph) in gpu_graphs() {
        let mut engine = GpuComponents::new(&device, &graph).unwrap();
        let weak = engine.weak().unwrap();
        assert_eq!(weak.components, weak_on_cpu(&graph), "{name}: weak");
        let strong = engine.strong().unwrap();
        assert_eq!(strong.components, strong_on_cpu(&graph), "{name}: strong");
        assert!(strong.note.is_none(), "{name}: {:?}", strong.note);
        // Again on the same engine: nothing is left from the last run.
        assert_eq!(
            engine.weak().unwrap().components,
            weak.components,
            "{name}: again"
        );
    }
}

#[test]
fn sweeps_past_the_limit_hand_the_graph_to_the_cpu() {
    let Some(device) = gpu("sweeps_past_the_limit_hand_the_graph_to_the_cpu") else {
        return;
    };
    // A directed path against its ids' order, and a cycle closing a long
    // one: the largest id's signature moves an arc a sweep at most.
    let n = 16 * MOST_SWEEPS;
    let against: Vec<(u32, u32)> = (1..n).map(|v| (v, v - 1)).collect();
    let mut cycle: Vec<(u32, u32)> = (1..n).map(|v| (v - 1, v)).collect();
    cycle.push((n - 1, 0));
    for (name, arcs) in [
        ("a path against its order", against),
        ("a long cycle", cycle),
    ] {
        let graph = Csr::from_edges(n, &arcs, false).unwrap();
        let mut engine = GpuComponents::new(&device, &graph).unwrap();
        let strong = engine.strong().unwrap();
        assert_eq!(strong.components, strong_on_cpu(&graph), "{name}");
        assert!(
            strong.note.is_some(),
            "{name}: the CPU took over, and says so"
        );
    }
}
