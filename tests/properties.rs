//! Property tests: random graphs of random shapes and sizes (empty, one
//! vertex, disconnected, hubs, long paths, grids, directed). The CPU
//! reference must pass the Graph500 validator on each, and every GPU variant
//! must give its distances exactly (without a GPU, that half is skipped
//! with a visible line).

use bfs::gpu::Search;
use bfs::validate::{same_levels, validate};
use bfs::{Csr, Error, cpu};
use bfs_tests::gpu;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// A graph and how it was made, for failure messages.
#[derive(Clone, Debug)]
struct Shape {
    name: String,
    vertex_count: u32,
    edges: Vec<(u32, u32)>,
    symmetric: bool,
}

impl Shape {
    fn graph(&self) -> Csr {
        Csr::from_edges(self.vertex_count, &self.edges, self.symmetric).unwrap()
    }
}

fn random_edges(
    max_vertices: u32,
    max_edges: usize,
    symmetric: bool,
) -> impl Strategy<Value = Shape> {
    (1..=max_vertices).prop_flat_map(move |n| {
        proptest::collection::vec((0..n, 0..n), 0..=max_edges).prop_map(move |edges| Shape {
            name: format!(
                "random {} n={n}",
                if symmetric { "undirected" } else { "directed" }
            ),
            vertex_count: n,
            edges,
            symmetric,
        })
    })
}

fn shapes() -> impl Strategy<Value = Shape> {
    let fixed = |name: &str, vertex_count: u32, edges: Vec<(u32, u32)>| Shape {
        name: name.into(),
        vertex_count,
        edges,
        symmetric: true,
    };
    prop_oneof![
        Just(fixed("empty", 0, vec![])),
        Just(fixed("one vertex", 1, vec![])),
        random_edges(300, 1200, true),
        random_edges(300, 1200, false),
        random_edges(5000, 6000, true),
        (2..6000u32).prop_map(move |n| fixed(
            &format!("star n={n}"),
            n,
            (1..n).map(|leaf| (0, leaf)).collect()
        )),
        (2..9000u32).prop_map(move |n| fixed(
            &format!("path n={n}"),
            n,
            (1..n).map(|v| (v - 1, v)).collect()
        )),
        (
            1..60u32,
            1..60u32,
            proptest::collection::vec(any::<bool>(), 7200)
        )
            .prop_map(|(width, height, keep)| {
                let mut edges = Vec::new();
                for y in 0..height {
                    for x in 0..width {
                        let vertex = y * width + x;
                        if x + 1 < width && keep[2 * vertex as usize] {
                            edges.push((vertex, vertex + 1));
                        }
                        if y + 1 < height && keep[2 * vertex as usize + 1] {
                            edges.push((vertex, vertex + width));
                        }
                    }
                }
                Shape {
                    name: format!("grid {width}x{height}"),
                    vertex_count: width * height,
                    edges,
                    symmetric: true,
                }
            }),
        (2..200u32, 1..20u32).prop_map(|(size, copies)| {
            let edges = (0..copies)
                .flat_map(|copy| (1..size).map(move |v| (copy * size + v - 1, copy * size + v)));
            Shape {
                name: format!("{copies} paths of {size}"),
                vertex_count: size * copies + 7,
                edges: edges.collect(),
                symmetric: true,
            }
        }),
    ]
}

#[test]
fn every_variant_equals_the_cpu_on_random_graphs() {
    let gpu = gpu("every_variant_equals_the_cpu_on_random_graphs (GPU half)");
    let mut runner = TestRunner::new(Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&shapes(), |shape| {
            let graph = shape.graph();
            let n = graph.vertex_count();
            let sources: Vec<u32> = if n == 0 {
                vec![]
            } else {
                vec![0, n / 3, n - 1]
            };
            let references: Vec<_> = sources
                .iter()
                .map(|&source| cpu::bfs(&graph, source))
                .collect();
            for reference in &references {
                prop_assert!(
                    validate(&graph, reference).is_ok(),
                    "CPU on {}: {:?}",
                    shape.name,
                    validate(&graph, reference)
                );
            }
            let Some(gpu) = &gpu else { return Ok(()) };
            for variant in gpu.variants() {
                let mut search = Search::new(gpu, &graph, variant)
                    .map_err(|error| TestCaseError::fail(error.to_string()))?;
                for reference in &references {
                    let run = search
                        .run(reference.source)
                        .map_err(|error| TestCaseError::fail(error.to_string()))?;
                    let context = format!("{variant} on {} from {}", shape.name, reference.source);
                    prop_assert!(
                        same_levels(&run.result, reference).is_ok(),
                        "{context}: {:?}",
                        same_levels(&run.result, reference)
                    );
                    prop_assert!(
                        validate(&graph, &run.result).is_ok(),
                        "{context}: {:?}",
                        validate(&graph, &run.result)
                    );
                }
                let outside = search.run(n).err();
                prop_assert!(
                    matches!(outside, Some(Error::SourceOutOfRange { .. })),
                    "{variant}: source {n} of {n}"
                );
            }
            Ok(())
        })
        .unwrap();
}
