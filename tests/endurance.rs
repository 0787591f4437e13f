//! Endurance and determinism: many searches on one loaded graph leak no
//! device memory and every result validates; distances never vary between
//! runs (parents may, and must validate).

use bfs::gpu::Search;
use bfs::graph::generate::sources_with_edges;
use bfs::validate::validate;
use bfs_tests::{generated, gpu};

#[test]
fn a_thousand_searches_leak_nothing_and_all_validate() {
    let Some(gpu) = gpu("a_thousand_searches_leak_nothing_and_all_validate") else {
        return;
    };
    let graph = generated("kron:13:16", 7);
    let sources = sources_with_edges(&graph, 1000, 7);
    assert_eq!(sources.len(), 1000);
    for variant in gpu.variants() {
        let mut search = Search::new(&gpu, &graph, variant).unwrap();
        search.run(sources[0]).unwrap();
        let free_before = gpu.free_memory().unwrap();
        for &source in &sources {
            let run = search.run(source).unwrap();
            validate(&graph, &run.result)
                .unwrap_or_else(|error| panic!("{variant} from {source}: {error}"));
        }
        let free_after = gpu.free_memory().unwrap();
        assert_eq!(
            free_after, free_before,
            "{variant}: device memory changed over 1,000 searches"
        );
    }
}

#[test]
fn distances_are_identical_across_a_hundred_runs() {
    let Some(gpu) = gpu("distances_are_identical_across_a_hundred_runs") else {
        return;
    };
    for spec in ["kron:12:16", "grid:80x80:0.1"] {
        let graph = generated(spec, 3);
        let source = sources_with_edges(&graph, 1, 3)[0];
        for variant in gpu.variants() {
            let mut search = Search::new(&gpu, &graph, variant).unwrap();
            let first = search.run(source).unwrap().result;
            for run in 1..100 {
                let result = search.run(source).unwrap().result;
                assert_eq!(
                    result.levels, first.levels,
                    "{variant} on {spec}: run {run} differs"
                );
                validate(&graph, &result)
                    .unwrap_or_else(|error| panic!("{variant} on {spec}, run {run}: {error}"));
            }
        }
    }
}
