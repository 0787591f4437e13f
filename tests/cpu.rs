//! The CPU reference BFS and the validator on small hand-checked graphs.

use bfs::graph::chains::{ChainContraction, Place};
use bfs::graph::hierarchy::{ContractionHierarchy, WIDE_ROW_ARCS};
use bfs::validate::{Verifier, same_levels, validate};
use bfs::{Bfs, Csr, UNREACHED, cpu};
use bfs_tests::generated;
use bfs_tests::sweeps::{expand_chains, hierarchy_levels, seeds};

const U: u32 = UNREACHED;

fn undirected(vertex_count: u32, edges: &[(u32, u32)]) -> Csr {
    Csr::from_edges(vertex_count, edges, true).unwrap()
}

fn levels(graph: &Csr, source: u32) -> Vec<u32> {
    let result = cpu::bfs(graph, source);
    validate(graph, &result).expect("the reference validates");
    result.levels
}

#[test]
fn path_levels_count_up_from_the_source() {
    let path = undirected(5, &[(0, 1), (1, 2), (2, 3), (3, 4)]);
    assert_eq!(levels(&path, 0), [0, 1, 2, 3, 4]);
    assert_eq!(levels(&path, 2), [2, 1, 0, 1, 2]);
}

#[test]
fn star_is_one_level_from_the_hub_and_two_between_leaves() {
    let star = undirected(5, &[(0, 1), (0, 2), (0, 3), (0, 4)]);
    assert_eq!(levels(&star, 0), [0, 1, 1, 1, 1]);
    assert_eq!(levels(&star, 3), [1, 2, 2, 0, 2]);
}

#[test]
fn grid_levels_are_manhattan_distances() {
    // 3×3 grid, vertex = 3·y + x.
    let grid = undirected(
        9,
        &[
            (0, 1),
            (1, 2),
            (3, 4),
            (4, 5),
            (6, 7),
            (7, 8),
            (0, 3),
            (3, 6),
            (1, 4),
            (4, 7),
            (2, 5),
            (5, 8),
        ],
    );
    assert_eq!(levels(&grid, 0), [0, 1, 2, 1, 2, 3, 2, 3, 4]);
    assert_eq!(levels(&grid, 4), [2, 1, 2, 1, 0, 1, 2, 1, 2]);
}

#[test]
fn other_components_stay_unreached() {
    let two_parts = undirected(6, &[(0, 1), (1, 2), (3, 4)]);
    assert_eq!(levels(&two_parts, 1), [1, 0, 1, U, U, U]);
    assert_eq!(levels(&two_parts, 4), [U, U, U, 1, 0, U]);
}

#[test]
fn an_isolated_source_reaches_only_itself() {
    let graph = undirected(4, &[(0, 1), (1, 2)]);
    let result = cpu::bfs(&graph, 3);
    assert_eq!(result.levels, [U, U, U, 0]);
    assert_eq!(result.reached(), 1);
    assert_eq!(result.level_count(), 1);
}

#[test]
fn self_loops_and_duplicate_edges_are_dropped() {
    let graph = undirected(3, &[(0, 0), (0, 1), (1, 0), (0, 1), (1, 2), (2, 2)]);
    assert_eq!(graph.edge_count(), 4);
    assert_eq!(graph.neighbours(0), [1]);
    assert_eq!(graph.neighbours(1), [0, 2]);
    assert_eq!(levels(&graph, 0), [0, 1, 2]);
}

#[test]
fn directed_edges_are_followed_one_way() {
    let graph = Csr::from_edges(4, &[(0, 1), (1, 2), (3, 2)], false).unwrap();
    assert!(!graph.is_symmetric());
    assert_eq!(levels(&graph, 0), [0, 1, 2, U]);
    assert_eq!(levels(&graph, 2), [U, U, 0, U]);
    assert_eq!(levels(&graph, 3), [U, U, 1, 0]);
}

#[test]
fn parents_form_a_bfs_tree() {
    let grid = generated("grid:40x40:0.2", 3);
    let result = cpu::bfs(&grid, 17);
    let parents = result.parents.as_ref().unwrap();
    assert_eq!(parents[17], 17);
    for (vertex, (&parent, &level)) in parents.iter().zip(&result.levels).enumerate() {
        if level != U && vertex != 17 {
            assert_eq!(result.levels[parent as usize] + 1, level);
            assert!(grid.neighbours(parent).contains(&(vertex as u32)));
        }
    }
}

#[test]
fn validator_rejects_wrong_levels_and_parents() {
    let path = undirected(4, &[(0, 1), (1, 2), (2, 3)]);
    let good = cpu::bfs(&path, 0);
    let with_levels = |levels: Vec<u32>| Bfs {
        source: 0,
        levels,
        parents: None,
    };
    for wrong in [
        vec![0, 1, 2, 4],
        vec![0, 1, 1, 2],
        vec![0, 1, 2, U],
        vec![1, 1, 2, 3],
        vec![0, 1, 0, 1],
    ] {
        assert!(
            validate(&path, &with_levels(wrong.clone())).is_err(),
            "{wrong:?} passed"
        );
        assert!(same_levels(&with_levels(wrong), &good).is_err());
    }
    let mut bad_parent = good.clone();
    bad_parent.parents.as_mut().unwrap()[3] = 1;
    assert!(validate(&path, &bad_parent).is_err());
    let mut source_parent = good.clone();
    source_parent.parents.as_mut().unwrap()[0] = 1;
    assert!(validate(&path, &source_parent).is_err());
    // A second vertex at level 0, its parent the one next to it.
    let second_root = Bfs {
        source: 0,
        levels: vec![0, 1, 0, 1],
        parents: Some(vec![0, 0, 1, 2]),
    };
    assert!(validate(&path, &second_root).is_err());
}

#[test]
fn a_verifier_holds_a_source_seen_again_to_the_distances_that_passed() {
    let grid = generated("grid:30x30:0.2", 5);
    let good = cpu::bfs(&grid, 7);
    let mut verifier = Verifier::default();
    verifier.check(&grid, &good).expect("the reference passes");
    verifier.check(&grid, &good).expect("and passes again");
    let far = (0..grid.vertex_count() as usize)
        .max_by_key(|&vertex| good.levels[vertex].wrapping_add(1))
        .unwrap();
    let mut one_level_off = good.clone();
    one_level_off.levels[far] += 1;
    let error = verifier.check(&grid, &one_level_off).unwrap_err();
    assert!(error.to_string().contains("earlier search"), "{error}");
    let mut wrong_parent = good.clone();
    wrong_parent.parents.as_mut().unwrap()[far] = far as u32;
    assert!(verifier.check(&grid, &wrong_parent).is_err());
    let mut fresh = Verifier::default();
    assert!(fresh.check(&grid, &one_level_off).is_err());
    fresh
        .check(&grid, &cpu::bfs(&grid, 8))
        .expect("another source passes");
}

#[test]
fn generators_are_deterministic_and_shaped_as_specified() {
    assert_eq!(generated("kron:10:16", 5), generated("kron:10:16", 5));
    assert_ne!(generated("kron:10:16", 5), generated("kron:10:16", 6));
    let grid = generated("grid:30x20:0", 1);
    assert_eq!(
        (grid.vertex_count(), grid.edge_count()),
        (600, 2 * (29 * 20 + 30 * 19))
    );
    assert_eq!(levels(&grid, 0)[599], 29 + 19);
    let star = generated("star:10", 1);
    assert_eq!(star.degree(0), 9);
    let kron = generated("kron:12:16", 1);
    assert_eq!(kron.vertex_count(), 4096);
    assert!(kron.is_symmetric());
    let max_degree = (0..4096).map(|vertex| kron.degree(vertex)).max().unwrap();
    assert!(
        max_degree > 200,
        "R-MAT should have hubs, max degree {max_degree}"
    );
    for bad in [
        "grid:10",
        "grid:axb",
        "kron",
        "uniform:5",
        "cube:3",
        "path:x",
        "grid:3x3:2",
        "road:100:0:x",
        "road:100:0:1001",
        "road:100:0:3:1",
    ] {
        assert!(
            bad.parse::<bfs::graph::generate::Spec>().is_err(),
            "{bad} parsed"
        );
    }
}

#[test]
fn a_road_network_of_few_shape_points_keeps_the_same_streets() {
    // The streets are drawn whatever SHAPE is: with none, each street is
    // one edge between its junctions, and only dead-end lanes are chains.
    let (default, none) = (generated("road:2000", 4), generated("road:2000:0:0", 4));
    let junctions = 2000u32;
    assert!(none.vertex_count() < default.vertex_count());
    let degree_two = |graph: &Csr| {
        (0..graph.vertex_count())
            .filter(|&vertex| graph.degree(vertex) == 2)
            .count() as f64
            / graph.vertex_count() as f64
    };
    assert!(
        degree_two(&none) < degree_two(&default) / 2.0,
        "few chains: {} against {}",
        degree_two(&none),
        degree_two(&default)
    );
    // The same streets: every junction joined directly to another in the
    // default (a street of no shape points) is joined to it in `none`, and
    // `none` joins each junction to more of them (every street is direct).
    let junction_neighbours = |graph: &Csr, junction: u32| -> Vec<u32> {
        let mut found: Vec<u32> = graph
            .neighbours(junction)
            .iter()
            .copied()
            .filter(|&other| other < junctions)
            .collect();
        found.sort_unstable();
        found
    };
    let (mut direct_default, mut direct_none) = (0, 0);
    for junction in 0..junctions {
        let (ours, theirs) = (
            junction_neighbours(&default, junction),
            junction_neighbours(&none, junction),
        );
        assert!(
            ours.iter().all(|other| theirs.binary_search(other).is_ok()),
            "junction {junction}: {ours:?} not within {theirs:?}"
        );
        (direct_default, direct_none) = (direct_default + ours.len(), direct_none + theirs.len());
    }
    assert!(
        direct_none > 5 * direct_default,
        "{direct_none} against {direct_default}"
    );
    // The default's name is unchanged; another SHAPE is named.
    let name = |text: &str| {
        text.parse::<bfs::graph::generate::Spec>()
            .unwrap()
            .to_string()
    };
    assert_eq!(name("road:300"), "road:300:0");
    assert_eq!(name("road:300:0:0"), "road:300:0:0");
    assert_eq!(name("road:300:0.5:11"), "road:300:0.5");
}

#[test]
fn generated_graphs_know_graph500s_input_edges() {
    // Every tuple drawn counts, duplicates and self loops included.
    let kron = generated("kron:12:16", 3);
    assert_eq!(kron.input_edge_count(), Some(16 * 4096));
    assert!(kron.edge_count() < 2 * 16 * 4096, "duplicates were merged");
    let uniform = generated("uniform:1000:7000", 3);
    assert_eq!(uniform.input_edge_count(), Some(7000));
    // A connected grid: the search from any vertex reaches every tuple.
    let grid = generated("grid:30x20:0", 1);
    let tuples = 29 * 20 + 30 * 19;
    assert_eq!(grid.input_edge_count(), Some(tuples));
    assert_eq!(
        cpu::bfs(&grid, 77).input_edges_traversed(&grid),
        Some(tuples)
    );
    // Two stars of 5 and 3 vertices: each search counts its own component.
    let two_stars = Csr::from_edges(8, &[(0, 1), (0, 2), (0, 3), (0, 4), (5, 6), (5, 7)], true)
        .expect("a graph");
    assert_eq!(
        cpu::bfs(&two_stars, 6).input_edges_traversed(&two_stars),
        Some(2)
    );
    assert_eq!(
        cpu::bfs(&two_stars, 0).input_edges_traversed(&two_stars),
        Some(4)
    );
    // On a Kronecker graph, about half the CSR entries examined.
    let result = cpu::bfs(&kron, 0);
    let input = result.input_edges_traversed(&kron).expect("known");
    assert!(input * 2 >= result.edges_traversed(&kron), "{input}");
    // A graph read from rows (a `.bcsr` file) knows only its rows.
    let rows = Csr::from_parts(vec![0, 1, 2], vec![1, 0]).expect("a graph");
    assert_eq!(rows.input_edge_count(), None);
    assert_eq!(cpu::bfs(&rows, 0).input_edges_traversed(&rows), None);
    // Generated graphs are symmetric by construction, known without a pass.
    assert_eq!(kron.known_symmetric(), Some(true));
    assert_eq!(rows.known_symmetric(), None);
}

#[test]
fn the_trace_accounts_for_every_reached_vertex_and_edge() {
    // A grid's levels are counted on every core, a long path's (more
    // levels than that allows) on one.
    for spec in ["grid:30x30:0.1", "path:70000"] {
        let graph = generated(spec, 4);
        let result = cpu::bfs(&graph, 0);
        let trace = bfs::report::trace(&graph, &result, &[]);
        assert_eq!(trace.len() as u32, result.level_count(), "{spec}");
        assert_eq!(trace[0].frontier, 1, "{spec}");
        assert_eq!(
            trace.iter().map(|level| level.frontier).sum::<u64>(),
            result.reached() as u64,
            "{spec}"
        );
        assert_eq!(
            trace.iter().map(|level| level.edges).sum::<u64>(),
            result.edges_traversed(&graph),
            "{spec}"
        );
    }
}

#[test]
fn the_parallel_cpu_engine_gives_the_reference_distances_and_a_valid_tree() {
    // One engine per team size, reused across graphs of every size, as the
    // CLI reuses it across sources; 5 threads oversubscribe a small machine.
    for threads in [1, 2, 5] {
        let mut engine = cpu::ParallelBfs::new(threads).expect("threads start");
        for (name, graph) in bfs_tests::test_graphs() {
            for source in bfs_tests::sources(&graph) {
                let result = engine.search(&graph, source);
                let context = format!("{name} from {source}, {threads} threads");
                same_levels(&result, &cpu::bfs(&graph, source))
                    .unwrap_or_else(|error| panic!("{context}: {error}"));
                validate(&graph, &result).unwrap_or_else(|error| panic!("{context}: {error}"));
            }
        }
    }
}

#[test]
fn the_parallel_cpu_engine_runs_wide_levels_on_its_team_and_bottom_up() {
    // Wide enough that top-down levels exceed the sequential threshold and
    // the α/β rule turns bottom-up, so both parallel steps and both
    // conversions between queue and bitmap run.
    let graph = generated("kron:16:16", 13);
    let hub = (0..graph.vertex_count())
        .max_by_key(|&vertex| graph.degree(vertex))
        .expect("vertices");
    assert!(graph.degree(hub) as u64 > cpu::SEQUENTIAL_LEVEL_EDGES);
    let mut engine = cpu::ParallelBfs::new(3).expect("threads start");
    for source in [hub, 0, graph.vertex_count() / 2] {
        let result = engine.search(&graph, source);
        same_levels(&result, &cpu::bfs(&graph, source)).expect("reference distances");
        validate(&graph, &result).expect("Graph500 rules");
    }
    engine.search(&graph, hub);
    let steps = engine.steps();
    for step in [cpu::Step::TopDown, cpu::Step::BottomUp] {
        assert!(steps.contains(&step), "no {step:?} level in {steps:?}");
    }
    // A path's levels are one vertex each: top-down on one thread (only its
    // last few, with almost nothing left unexplored, go bottom-up).
    let path = generated("path:3000", 14);
    let result = engine.search(&path, 0);
    assert_eq!(result.level_count(), 3000);
    let steps = engine.steps();
    assert!(!steps.contains(&cpu::Step::TopDown), "{steps:?}");
    assert!(
        steps[..2900]
            .iter()
            .all(|&step| step == cpu::Step::Sequential)
    );
}

#[test]
fn many_searches_write_each_ones_levels_in_the_json() {
    let folder = bfs_tests::temporary_folder("sources-json");
    let json = folder.join("searches.json");
    let run = bfs_tests::run_bfs(&[
        "--graph",
        "gen:path:5",
        "--device",
        "cpu",
        "--sources",
        "0,2",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let written = std::fs::read_to_string(&json).unwrap();
    let frontiers: Vec<&str> = written
        .lines()
        .filter_map(|line| line.trim().strip_prefix("\"frontier\": "))
        .collect();
    // From 0, five levels of one vertex; from 2, the source, then two and two.
    assert_eq!(frontiers, ["1,", "1,", "1,", "1,", "1,", "1,", "2,", "2,"]);
}

#[test]
fn device_cpu_runs_the_engine_with_its_threads_and_matches_the_reference() {
    let folder = bfs_tests::temporary_folder("device-cpu");
    let outputs = [("cpu", "3"), ("cpu-reference", "1")].map(|(device, threads)| {
        let path = folder.join(format!("{device}.txt"));
        let run = bfs_tests::run_bfs(&[
            "--graph",
            "gen:kron:12:16",
            "--source",
            "5",
            "--device",
            device,
            "--threads",
            threads,
            "--verify",
            "--output",
            path.to_str().unwrap(),
        ]);
        assert_eq!(run.code, Some(0), "{device}: {}", run.stderr);
        (run.stdout, std::fs::read_to_string(&path).unwrap())
    });
    let [(engine, engine_levels), (reference, reference_levels)] = outputs;
    assert!(
        engine.contains("CPU (direction-optimizing BFS, 3 threads)"),
        "{engine}"
    );
    assert!(
        reference.contains("CPU (reference BFS, one thread)"),
        "{reference}"
    );
    assert!(engine.contains("verify:    pass"), "{engine}");
    assert_eq!(engine_levels, reference_levels);
    bfs_tests::run_bfs(&["--graph", "gen:path:5", "--device", "cpu", "--threads", "0"])
        .assert_one_line_error("--threads");
}

#[test]
fn an_edge_beyond_the_vertex_count_is_an_error_not_a_panic() {
    assert!(Csr::from_edges(3, &[(0, 1), (2, 3)], true).is_err());
}

#[test]
fn grown_partitions_renumber_every_vertex_once_and_keep_the_graph() {
    use bfs::graph::reorder::Renumbering;
    for (spec, seed, partition_size) in [
        ("grid:60x50:0.1", 1, 64),
        ("path:1000", 2, 32),
        ("uniform:3000:2000", 3, 96),
        ("kron:10:8", 4, 128),
        ("path:1", 5, 32),
    ] {
        let graph = generated(spec, seed);
        let renumbering = Renumbering::grown_partitions(&graph, partition_size);
        let Renumbering { old_ids, new_ids } = &renumbering;
        assert_eq!(old_ids.len(), graph.vertex_count() as usize, "{spec}");
        for (new, &old) in old_ids.iter().enumerate() {
            assert_eq!(
                new_ids[old as usize] as usize, new,
                "{spec}: not a bijection"
            );
        }
        let renumbered = renumbering.apply(&graph);
        assert_eq!(renumbered.edge_count(), graph.edge_count(), "{spec}");
        for old in 0..graph.vertex_count() {
            let mut mapped: Vec<u32> = graph
                .neighbours(old)
                .iter()
                .map(|&neighbour| new_ids[neighbour as usize])
                .collect();
            mapped.sort_unstable();
            assert_eq!(
                renumbered.neighbours(new_ids[old as usize]),
                mapped,
                "{spec}"
            );
        }
        let source = old_ids[0];
        let original = cpu::bfs(&graph, source);
        let moved = cpu::bfs(&renumbered, 0);
        for old in 0..graph.vertex_count() {
            assert_eq!(
                original.levels[old as usize], moved.levels[new_ids[old as usize] as usize],
                "{spec}: vertex {old}"
            );
        }
    }
}

#[test]
fn grown_partitions_of_a_grid_are_compact_patches() {
    use bfs::graph::reorder::Renumbering;
    // A 64×64 grid in partitions of 256: a square patch has a boundary of
    // about 64 vertices; bands of the row order would have 2·64 = 128.
    // Grown patches keep the edges that cross partitions near the former.
    let graph = generated("grid:64x64:0", 1);
    let renumbering = Renumbering::grown_partitions(&graph, 256);
    let renumbered = renumbering.apply(&graph);
    let crossing = (0..renumbered.vertex_count())
        .flat_map(|vertex| {
            renumbered
                .neighbours(vertex)
                .iter()
                .map(move |&neighbour| (vertex / 256, neighbour / 256))
        })
        .filter(|(from, to)| from != to)
        .count();
    let row_bands = 2 * 64 * (64 * 64 / 256 - 1);
    assert!(
        crossing < row_bands,
        "{crossing} CSR entries cross partitions; row-order bands have {row_bands}"
    );
}

/// Distances from `source` as the `chain-contracted` variant computes them,
/// here on the CPU: shortest paths over the contracted graph's weighted arcs
/// from the source's seeds (Dijkstra), then each chain's vertices from its ends.
fn contracted_levels(contraction: &ChainContraction, source: u32) -> Vec<u32> {
    let mut labels = vec![U; contraction.kept_count() as usize];
    let mut heap = std::collections::BinaryHeap::new();
    let (seeds, source_chain) = seeds(contraction, source);
    for (kept, distance) in seeds {
        if distance < labels[kept as usize] {
            labels[kept as usize] = distance;
            heap.push(std::cmp::Reverse((distance, kept)));
        }
    }
    while let Some(std::cmp::Reverse((distance, kept))) = heap.pop() {
        if distance > labels[kept as usize] {
            continue;
        }
        for (head, weight) in contraction.graph.of(kept) {
            if distance + weight < labels[head as usize] {
                labels[head as usize] = distance + weight;
                heap.push(std::cmp::Reverse((distance + weight, head)));
            }
        }
    }
    expand_chains(contraction, &labels, source_chain)
}

/// Graphs with chains, rings, hubs (a core) and directed arcs (all core).
fn contraction_test_graphs() -> Vec<(String, Csr)> {
    let mut graphs = vec![
        (
            "chains and rings".to_string(),
            bfs_tests::chains_and_rings(),
        ),
        (
            "directed".to_string(),
            bfs_tests::directed_random(300, 900, 5),
        ),
    ];
    for (spec, seed) in [
        ("path:300", 1),
        ("grid:30x30:0.3", 2),
        ("uniform:2000:2000", 3),
        ("kron:9:4", 4),
        ("star:50", 5),
        ("grid:64x64:0.45", 1),
        // Unit squares: witnesses tie, and pass through vertices that leave
        // in the same round.
        ("grid:24x24", 6),
        ("road:300", 7),
        ("road:300:0:0", 8),
    ] {
        graphs.push((spec.to_string(), generated(spec, seed)));
    }
    graphs
}

#[test]
fn contracted_chains_give_the_bfs_distances_from_every_source() {
    let graphs = contraction_test_graphs();
    for (name, graph) in &graphs {
        let contraction = ChainContraction::of(graph);
        for source in 0..graph.vertex_count() {
            assert_eq!(
                contracted_levels(&contraction, source),
                cpu::bfs(graph, source).levels,
                "{name} from {source}"
            );
        }
    }
}

#[test]
fn contraction_keeps_junctions_and_one_vertex_a_ring() {
    let graph = bfs_tests::chains_and_rings();
    let contraction = ChainContraction::of(&graph);
    let kept: Vec<u32> = (0..graph.vertex_count())
        .filter(|&vertex| matches!(contraction.place(vertex), Place::Kept(_)))
        .collect();
    // The ring keeps its lowest id; 5, 12, 13 are junctions; the rest have
    // one neighbour or none.
    assert_eq!(kept, [0, 5, 12, 13, 17, 18, 19, 20]);
    assert_eq!(
        ChainContraction::kept_at_least(&graph),
        7,
        "every vertex but the ring's without two neighbours"
    );
    // Chains: the ring, the loop at 5, 5 to 12, and the two from 12 to 13.
    assert_eq!(contraction.chain_count(), 5);
    let directed = bfs_tests::directed_random(50, 200, 1);
    let uncontracted = ChainContraction::of(&directed);
    assert_eq!(uncontracted.kept_count(), 50);
    assert_eq!(uncontracted.chain_count(), 0);
}

#[test]
fn hierarchy_sweeps_give_the_bfs_distances_from_every_source() {
    for (name, graph) in &contraction_test_graphs() {
        let hierarchy = ContractionHierarchy::of(graph);
        for source in 0..graph.vertex_count() {
            assert_eq!(
                hierarchy_levels(&hierarchy, source),
                cpu::bfs(graph, source).levels,
                "{name} from {source}"
            );
        }
    }
}

#[test]
fn hierarchy_arcs_join_levels_in_order() {
    for (name, graph) in &contraction_test_graphs() {
        let hierarchy = ContractionHierarchy::of(graph);
        let kept_count = hierarchy.chains.kept_count();
        let core = hierarchy.core();
        let level_of = |vertex: u32| {
            hierarchy
                .level_starts
                .partition_point(|&start| start <= vertex)
                - 1
        };
        for vertex in 0..kept_count {
            for (head, _) in hierarchy.lower.of(vertex) {
                assert!(
                    level_of(head) < level_of(vertex),
                    "{name}: lower arc {vertex} → {head}"
                );
            }
            for (head, _) in hierarchy.higher.of(vertex) {
                let peers = core.contains(&vertex) && core.contains(&head);
                assert!(
                    peers || level_of(head) > level_of(vertex),
                    "{name}: higher arc {vertex} → {head}"
                );
            }
        }
        for level in 0..hierarchy.level_count() as usize {
            let (first, end) = (
                hierarchy.level_starts[level],
                hierarchy.level_starts[level + 1],
            );
            let wide_end = hierarchy.wide_ends[level];
            assert!((first..=end).contains(&wide_end), "{name}: level {level}");
            for vertex in first..end {
                let wide = hierarchy.lower.of(vertex).count() > WIDE_ROW_ARCS;
                assert_eq!(
                    wide,
                    vertex < wide_end,
                    "{name}: vertex {vertex} of level {level}"
                );
            }
        }
        if graph.is_symmetric() {
            assert_eq!(
                hierarchy.lower.arc_count()
                    + core
                        .clone()
                        .map(|v| hierarchy.higher.of(v).count() as u64)
                        .sum::<u64>(),
                hierarchy.higher.arc_count(),
                "{name}: every lower arc has its higher one"
            );
        } else {
            assert_eq!(core, 0..kept_count, "{name}: a directed graph is all core");
        }
    }
    let hubs = generated("kron:9:8", 4);
    assert!(
        !ContractionHierarchy::of(&hubs).core().is_empty(),
        "hubs stay in the core"
    );
    let path = ContractionHierarchy::of(&generated("path:300", 1));
    assert!(path.core().is_empty(), "a path contracts completely");
    // The GPU tests' road-like grid has wide vertices below its core.
    let roads = ContractionHierarchy::of(&generated("grid:64x64:0.45", 1));
    let core_level = roads.level_count() as usize - 1;
    assert!(
        (0..core_level).any(|level| roads.wide_ends[level] > roads.level_starts[level]),
        "no wide vertex below the core"
    );
}

#[test]
fn multi_gpu_partitions_cover_the_graph_in_aligned_edge_balanced_ranges() {
    use bfs::multi::partition::{edge_balanced, owned_rows};
    for (spec, parts) in [
        ("kron:14:16", 2),
        ("kron:14:16", 3),
        ("grid:100x70:0.1", 4),
        ("path:40", 3),
        ("path:1", 2),
    ] {
        let graph = bfs_tests::generated(spec, 1);
        let ranges = edge_balanced(&graph, parts);
        assert_eq!(ranges.len(), parts as usize, "{spec}");
        assert_eq!(ranges[0].start, 0, "{spec}");
        assert_eq!(ranges.last().unwrap().end, graph.vertex_count(), "{spec}");
        for pair in ranges.windows(2) {
            assert_eq!(pair[0].end, pair[1].start, "{spec}: consecutive");
            assert!(pair[0].end % 32 == 0, "{spec}: {pair:?} not word-aligned");
        }
        let most_degree = (0..graph.vertex_count())
            .map(|vertex| graph.degree(vertex) as u64)
            .max()
            .unwrap_or(0);
        let share = graph.edge_count() / parts as u64;
        for range in &ranges {
            let (rows, columns) = owned_rows(&graph, range);
            assert_eq!(rows.len(), range.len() + 1);
            let edges = columns.len() as u64;
            // Within a share of the edges, give or take a word's rows.
            assert!(
                edges <= share + 32 * most_degree + 1,
                "{spec}: {range:?} holds {edges} of {} edges",
                graph.edge_count()
            );
            for vertex in range.clone() {
                let local = (vertex - range.start) as usize;
                let row = &columns[rows[local] as usize..rows[local + 1] as usize];
                let expected: &[u32] = graph.neighbours(vertex);
                assert_eq!(row, expected, "{spec}: vertex {vertex} in {range:?}");
            }
        }
    }
}
