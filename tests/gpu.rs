//! Every GPU variant against the CPU reference: the same distance on every
//! vertex, for every test graph and several sources, plus Graph500 validation.
//! Without a GPU each test prints `skip: no CUDA device` (and fails instead
//! when `BFS_REQUIRE_GPU` is set, as the bundle's runner does).

use bfs::gpu::{KERNELS_PTX, Search, Variant};
use bfs::validate::{same_levels, validate};
use bfs::{Error, abi, cpu};
use bfs_tests::{gpu, sources, test_graphs};

#[test]
fn every_kernel_name_has_an_entry_in_the_ptx() {
    for name in abi::KERNEL_NAMES {
        assert!(
            KERNELS_PTX.contains(&format!(".entry {name}(")),
            "no .entry {name} in the PTX"
        );
    }
}

#[test]
fn every_variant_gives_the_cpu_distances_on_every_test_graph() {
    let Some(gpu) = gpu("every_variant_gives_the_cpu_distances_on_every_test_graph") else {
        return;
    };
    for (name, graph) in test_graphs() {
        let references: Vec<_> = sources(&graph)
            .into_iter()
            .map(|source| cpu::bfs(&graph, source))
            .collect();
        for &variant in Variant::ALL {
            let mut search = Search::new(&gpu, &graph, variant).unwrap();
            for reference in &references {
                let run = search.run(reference.source).unwrap();
                let context = format!("{variant} on {name} from {}", reference.source);
                same_levels(&run.result, reference)
                    .unwrap_or_else(|error| panic!("{context}: {error}"));
                validate(&graph, &run.result).unwrap_or_else(|error| panic!("{context}: {error}"));
            }
        }
    }
}

#[test]
fn repeated_searches_reuse_buffers_and_agree() {
    let Some(gpu) = gpu("repeated_searches_reuse_buffers_and_agree") else {
        return;
    };
    let graph = bfs_tests::generated("grid:100x100:0.1", 21);
    for &variant in Variant::ALL {
        let mut search = Search::new(&gpu, &graph, variant).unwrap();
        let first = search.run(5).unwrap().result;
        let _other = search.run(9000).unwrap();
        assert_eq!(
            search.run(5).unwrap().result.levels,
            first.levels,
            "{variant}"
        );
    }
}

#[test]
fn a_source_outside_the_graph_is_an_error() {
    let Some(gpu) = gpu("a_source_outside_the_graph_is_an_error") else {
        return;
    };
    let graph = bfs_tests::generated("path:10", 1);
    for &variant in Variant::ALL {
        let mut search = Search::new(&gpu, &graph, variant).unwrap();
        let error = search
            .run(10)
            .err()
            .expect("source 10 of 10 vertices accepted");
        assert!(
            matches!(
                error,
                Error::SourceOutOfRange {
                    vertex: 10,
                    vertex_count: 10
                }
            ),
            "{error}"
        );
    }
}
