//! Many sources at once: every source of every batch of the bit-parallel
//! CPU engine against its own search by the CPU reference, on graphs of
//! every awkward shape, and the measures computed from the batches
//! against a direct computation from those searches.

use bfs::many::centrality;
use bfs::many::{
    self, BatchCounts, ChainSources, CpuBatches, Keep, Limits, ManySources, OneByOne,
    SourceParallel, VertexTotals,
};
use bfs::{Csr, UNREACHED, cpu, validate};

/// Small graphs of every shape a batch meets: directed, several
/// components, isolated vertices, self loops and duplicates (dropped by
/// the CSR), a source with no edges, long paths, hubs.
fn small_graphs() -> Vec<(String, Csr)> {
    let mut graphs = vec![
        (
            "self loops, duplicates, an isolated vertex, two components".into(),
            Csr::from_edges(
                9,
                &[
                    (0, 0),
                    (0, 1),
                    (1, 0),
                    (1, 2),
                    (2, 2),
                    (2, 3),
                    (5, 6),
                    (6, 7),
                    (7, 5),
                ],
                true,
            )
            .expect("small graph"),
        ),
        (
            "directed, with a sink and an unreachable vertex".into(),
            Csr::from_edges(
                7,
                &[(0, 1), (1, 2), (2, 0), (2, 3), (4, 3), (3, 5), (5, 5)],
                false,
            )
            .expect("small graph"),
        ),
        (
            "one vertex".into(),
            Csr::from_edges(1, &[], true).expect("small graph"),
        ),
        (
            "no edges".into(),
            Csr::from_edges(70, &[], true).expect("small graph"),
        ),
        ("chains and rings".into(), bfs_tests::chains_and_rings()),
        (
            "directed random".into(),
            bfs_tests::directed_random(300, 900, 3),
        ),
        (
            "directed sparse".into(),
            bfs_tests::directed_random(400, 300, 4),
        ),
    ];
    for (spec, seed) in [
        ("path:130", 1),
        ("star:200", 2),
        ("grid:17x13:0.2", 3),
        ("uniform:600:500", 4),
        ("uniform:500:3000", 5),
        ("kron:9:8", 6),
    ] {
        graphs.push((format!("gen:{spec}"), bfs_tests::generated(spec, seed)));
    }
    graphs
}

/// The CPU reference's distances from `source`, past `limits` unreached.
fn reference(graph: &Csr, source: u32, limits: Limits) -> Vec<u32> {
    let mut levels = cpu::bfs(graph, source).levels;
    for level in &mut levels {
        if *level != UNREACHED && !limits.allows(*level) {
            *level = UNREACHED;
        }
    }
    levels
}

/// The vertices at each distance in `levels`, the last count non-zero.
fn counts_of(levels: &[u32]) -> Vec<u64> {
    let depth = levels.iter().filter(|&&level| level != UNREACHED).max();
    let mut counts = vec![0; depth.map_or(0, |&depth| depth as usize + 1)];
    for &level in levels.iter().filter(|&&level| level != UNREACHED) {
        counts[level as usize] += 1;
    }
    counts
}

/// Searches `sources` in batches of the engine's width with each kind of
/// keeping, and checks every source's distances and counts against the
/// reference and the totals against the references' sums.
fn check_batches(
    name: &str,
    graph: &Csr,
    engine: &mut dyn ManySources,
    sources: &[u32],
    limits: Limits,
) {
    let n = graph.vertex_count() as usize;
    let mut totals = VertexTotals::new(graph.vertex_count());
    let mut expected = VertexTotals::new(graph.vertex_count());
    for batch in sources.chunks(engine.batch_width()) {
        let mut rows = vec![7; batch.len() * n];
        let counts = engine
            .search_batch(batch, limits, Keep::Distances(&mut rows))
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        let counted = engine
            .search_batch(batch, limits, Keep::Counts)
            .expect("counts");
        let summed = engine
            .search_batch(batch, limits, Keep::Totals(&mut totals))
            .expect("totals");
        assert_eq!(counts, counted, "{name}: counts differ by what is kept");
        assert_eq!(counts, summed, "{name}: counts differ by what is kept");
        for (index, &source) in batch.iter().enumerate() {
            let want = reference(graph, source, limits);
            let row = &rows[index * n..][..n];
            for (vertex, (&got, &want)) in row.iter().zip(&want).enumerate() {
                let want = if want == UNREACHED { -1 } else { want as i32 };
                assert_eq!(
                    got, want,
                    "{name}: source {source} (#{index}), vertex {vertex}, {limits:?}"
                );
            }
            assert_eq!(
                counts[index],
                counts_of(&want),
                "{name}: source {source}'s counts"
            );
            for (vertex, &level) in want.iter().enumerate() {
                if level != UNREACHED {
                    expected.add_distance(vertex, level);
                }
            }
        }
    }
    assert_eq!(totals.reached_by, expected.reached_by, "{name}");
    assert_eq!(totals.distance_sums, expected.distance_sums, "{name}");
    assert_eq!(totals.farthest, expected.farthest, "{name}");
    for (vertex, (got, want)) in totals
        .reciprocal_sums
        .iter()
        .zip(&expected.reciprocal_sums)
        .enumerate()
    {
        assert!(
            (got - want).abs() <= 1e-12 * want.abs(),
            "{name}: vertex {vertex}: {got} vs {want}"
        );
    }
}

#[test]
fn every_source_of_every_batch_has_its_own_searchs_distances() {
    for (name, graph) in small_graphs() {
        let n = graph.vertex_count();
        let all: Vec<u32> = (0..n).collect();
        // Repeats, and an order that mixes far vertices into one batch.
        let mixed: Vec<u32> = (0..n).rev().chain((0..n).step_by(3)).collect();
        for (threads, words) in [(1, 1), (3, 1), (2, 2), (3, 3)] {
            let mut engine = CpuBatches::new(&graph, threads, words).expect("engine");
            for sources in [&all[..], &mixed[..]] {
                check_batches(&name, &graph, &mut engine, sources, Limits::default());
            }
        }
        let mut engine = SourceParallel::new(&graph);
        for sources in [&all[..], &mixed[..]] {
            check_batches(&name, &graph, &mut engine, sources, Limits::default());
        }
        let mut engine = ChainSources::new(&graph);
        for sources in [&all[..], &mixed[..]] {
            check_batches(&name, &graph, &mut engine, sources, Limits::default());
        }
    }
}

#[test]
fn batches_of_every_size_and_depth_limits_match_the_reference() {
    let graph = bfs_tests::generated("grid:40x30:0.1", 11);
    let mut engine = CpuBatches::new(&graph, 3, 2).expect("engine");
    // 1, 31, 33, 63, 65, 100 and 128 sources: none a multiple of 32 but the last.
    for size in [1, 31, 33, 63, 65, 100, 128] {
        let sources: Vec<u32> = (0..size)
            .map(|index| index * 7 % graph.vertex_count())
            .collect();
        check_batches("grid", &graph, &mut engine, &sources, Limits::default());
    }
    let mut whole = SourceParallel::new(&graph);
    let mut chains = ChainSources::new(&graph);
    for depth_limit in [0, 1, 5, 30] {
        let limits = Limits {
            depth_limit: Some(depth_limit),
        };
        let sources = [0, 5, 700, 1199, 5];
        check_batches("grid, limited", &graph, &mut engine, &sources, limits);
        check_batches("grid, limited", &graph, &mut whole, &sources, limits);
        check_batches("grid, limited", &graph, &mut chains, &sources, limits);
    }
}

#[test]
fn wide_batches_go_bottom_up_and_still_match_the_reference() {
    let graph = bfs_tests::generated("kron:12:16", 8);
    let mut engine = CpuBatches::new(&graph, 3, 4).expect("engine");
    let sources: Vec<u32> = (0..graph.vertex_count()).step_by(7).take(300).collect();
    check_batches("kron", &graph, &mut engine, &sources, Limits::default());
    let steps = engine.steps();
    assert!(steps.contains(&cpu::Step::BottomUp), "{steps:?}");
    assert!(
        steps.iter().any(|&step| step != cpu::Step::BottomUp),
        "{steps:?}"
    );
}

#[test]
fn a_batch_refuses_too_many_sources_a_vertex_out_of_range_and_wrong_buffers() {
    let graph = bfs_tests::generated("path:10", 1);
    let mut engine = CpuBatches::new(&graph, 1, 1).expect("engine");
    let too_many = vec![0; 65];
    assert!(
        engine
            .search_batch(&too_many, Limits::default(), Keep::Counts)
            .is_err()
    );
    assert!(
        engine
            .search_batch(&[3, 10], Limits::default(), Keep::Counts)
            .is_err()
    );
    let mut rows = vec![0; 10];
    assert!(
        engine
            .search_batch(&[1, 2], Limits::default(), Keep::Distances(&mut rows))
            .is_err()
    );
    let counts: BatchCounts = engine
        .search_batch(&[9], Limits::default(), Keep::Counts)
        .expect("a good batch after bad ones");
    assert_eq!(counts, [vec![1; 10]]);
}

/// The measures from a run of `engine` over `sources`, exact or sampled.
fn measures(
    graph: &Csr,
    engine: &mut dyn ManySources,
    sources: &centrality::Sources,
) -> (Vec<f64>, Vec<f64>, centrality::Eccentricities, Vec<u64>) {
    let reduced = many::run(
        engine,
        graph.vertex_count(),
        sources.list(),
        Limits::default(),
        true,
    )
    .expect("a run");
    let totals = reduced.totals.as_ref().expect("totals");
    (
        centrality::closeness(totals, sources),
        centrality::harmonic(totals, sources),
        centrality::eccentricities(graph, &reduced, sources, None),
        reduced.histogram.clone(),
    )
}

/// Whether `got` is `want` to 1e-12 relative.
fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-12 * want.abs()
}

#[test]
fn the_measures_from_batches_equal_those_from_single_searches() {
    for (name, graph) in small_graphs() {
        let every = centrality::Sources::All(many::all_sources(&graph, 64));
        let sample: Vec<u32> = (0..graph.vertex_count()).step_by(3).collect();
        let sample = centrality::Sources::Sample(sample);
        for sources in [every, sample] {
            let mut batches = CpuBatches::new(&graph, 2, 1).expect("engine");
            let mut whole = SourceParallel::new(&graph);
            let mut single = OneByOne::new(&graph, None).expect("engine");
            let want = measures(&graph, &mut single, &sources);
            for engine in [&mut batches as &mut dyn ManySources, &mut whole] {
                let (closeness, harmonic, eccentricities, histogram) =
                    measures(&graph, engine, &sources);
                for (vertex, (&got, &want)) in closeness.iter().zip(&want.0).enumerate() {
                    assert!(
                        close(got, want),
                        "{name}: closeness of {vertex}: {got} vs {want}"
                    );
                }
                for (vertex, (&got, &want)) in harmonic.iter().zip(&want.1).enumerate() {
                    assert!(
                        close(got, want),
                        "{name}: harmonic of {vertex}: {got} vs {want}"
                    );
                }
                assert_eq!(eccentricities, want.2, "{name}");
                assert_eq!(histogram, want.3, "{name}");
            }
        }
    }
}

#[test]
fn closeness_harmonic_and_eccentricity_of_a_path_are_known_by_hand() {
    // A path of 5 and an isolated vertex: from vertex 0 the others lie at
    // 1..4 (sum 10); vertex 5 reaches none.
    let graph = Csr::from_edges(6, &[(0, 1), (1, 2), (2, 3), (3, 4)], true).expect("graph");
    let sources = centrality::Sources::All((0..6).collect());
    let mut engine = CpuBatches::new(&graph, 1, 1).expect("engine");
    let (closeness, harmonic, eccentricities, histogram) = measures(&graph, &mut engine, &sources);
    // Wasserman–Faust: (4 / 10) · (4 / 5).
    assert!(close(closeness[0], 0.4 * 0.8), "{}", closeness[0]);
    assert_eq!(closeness[5], 0.0);
    assert!(close(harmonic[2], 1.0 + 1.0 + 0.5 + 0.5));
    assert_eq!(eccentricities.values, [4, 3, 2, 3, 4, 0]);
    assert_eq!(eccentricities.radius, (0, 5));
    assert_eq!(eccentricities.diameter, (4, 0, 4));
    assert!(!eccentricities.connected);
    // Ordered pairs: 6 at 0, 8 at 1, 6 at 2, 4 at 3, 2 at 4.
    assert_eq!(histogram, [6, 8, 6, 4, 2]);
}

#[test]
fn seeds_and_depth_limits_give_the_reference_on_the_parallel_engine_and_pass_the_rules() {
    for (name, graph) in small_graphs() {
        let n = graph.vertex_count();
        let mut engine = cpu::ParallelBfs::new(3).expect("engine");
        let seed_sets = [vec![0], vec![n - 1, 0, n / 2], vec![n / 3, n / 3]];
        for seeds in &seed_sets {
            for depth_limit in [None, Some(0), Some(1), Some(3)] {
                let want = cpu::bfs_within(&graph, seeds, depth_limit);
                let got = engine.search_within(&graph, seeds, depth_limit);
                assert_eq!(got.levels, want.levels, "{name}: {seeds:?} {depth_limit:?}");
                validate::validate_within(&graph, &got, seeds, depth_limit)
                    .unwrap_or_else(|error| panic!("{name}: {seeds:?} {depth_limit:?}: {error}"));
                let mut verifier = validate::Verifier::with_depth_limit(depth_limit);
                verifier.check_seeds(&graph, &got, seeds).expect("verified");
                // A full search cut to the limit is the limited search.
                let mut cut = cpu::bfs_within(&graph, seeds, None);
                if let Some(limit) = depth_limit {
                    cut.limit_depth(limit);
                }
                assert_eq!(cut.levels, want.levels, "{name}");
                validate::validate_within(&graph, &cut, seeds, depth_limit).expect("cut");
            }
        }
    }
}

#[test]
fn the_rules_for_seeds_and_limits_reject_what_breaks_them() {
    let graph = bfs_tests::generated("path:6", 1);
    let good = cpu::bfs_within(&graph, &[0, 5], Some(1));
    assert_eq!(good.levels, [0, 1, UNREACHED, UNREACHED, 1, 0]);
    validate::validate_within(&graph, &good, &[0, 5], Some(1)).expect("valid");
    // Without the limit, the unreached middle breaks the edge rule.
    assert!(validate::validate_within(&graph, &good, &[0, 5], None).is_err());
    // A seed not at level 0, and a level-0 vertex that is no seed.
    assert!(validate::validate_within(&graph, &good, &[0, 4], Some(1)).is_err());
    assert!(validate::validate_within(&graph, &good, &[0], Some(1)).is_err());
}

#[test]
fn bad_input_gets_one_error_line() {
    let folder = bfs_tests::temporary_folder("many-errors");
    let matrix = folder.join("matrix.npy");
    let matrix = matrix.to_str().unwrap();
    let centrality = |extra: &[&str]| {
        let mut arguments = vec!["centrality", "--graph", "gen:path:10", "--device", "cpu"];
        arguments.extend(extra);
        bfs_tests::run_bfs(&arguments)
    };
    centrality(&["--measure", "closeness", "--sources", "11"])
        .assert_one_line_error("more sources than the graph's 10 vertices");
    centrality(&["--measure", "harmonic", "--depth-limit", "-1"])
        .assert_one_line_error("--depth-limit is a distance, 0 or more, not -1");
    centrality(&["--measure", "histogram", "--batch-width", "100"]).assert_one_line_error("64");
    let search = |extra: &[&str]| {
        let mut arguments = vec!["--graph", "gen:path:10", "--device", "cpu"];
        arguments.extend(extra);
        bfs_tests::run_bfs(&arguments)
    };
    search(&["--sources", "11"]).assert_one_line_error("more sources than the graph's 10");
    search(&["--depth-limit", "-2"]).assert_one_line_error("--depth-limit is a distance");
    search(&["--seeds", "3,10"]).assert_one_line_error("--seeds: source 10 is out of range");
    search(&["--sources", "3", "--output", "distances.txt"]).assert_one_line_error(".npy");
    let big = std::process::Command::new(bfs_tests::bfs_binary())
        .args([
            "--graph",
            "gen:path:1000",
            "--device",
            "cpu",
            "--sources",
            "500",
        ])
        .args(["--output", matrix])
        .env("BFS_HOST_MEMORY", "200K")
        .output()
        .expect("running bfs");
    bfs_tests::Cli::from(big).assert_one_line_error("output too large: the distance matrix");
    assert!(!std::path::Path::new(matrix).exists());
    let error = bfs::output::check_room(&folder.join("huge.npy"), u64::MAX / 2)
        .expect_err("no disk holds 9 EB");
    assert!(
        error.to_string().starts_with("output too large: "),
        "{error}"
    );
}

#[test]
fn sources_in_batches_are_verified_written_as_a_matrix_and_traced() {
    let folder = bfs_tests::temporary_folder("many-sources");
    let matrix = folder.join("distances.npy");
    let json = folder.join("searches.json");
    let run = bfs_tests::run_bfs(&[
        "--graph",
        "gen:grid:20x20:0.2",
        "--device",
        "cpu",
        "--sources",
        "0,5,399,5,77",
        "--depth-limit",
        "12",
        "--verify",
        "--output",
        matrix.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("bit-parallel MS-BFS"), "{}", run.stdout);
    assert!(
        run.stdout.contains("verify:    pass for every source"),
        "{}",
        run.stdout
    );
    let graph = bfs_tests::generated("grid:20x20:0.2", bfs::graph::generate::DEFAULT_SEED);
    let bytes = std::fs::read(&matrix).expect("the matrix");
    let header = bfs::output::npy::header::<i32>(&[5, 400]);
    assert_eq!(&bytes[..header.len()], &header[..]);
    let values: Vec<i32> = bytes[header.len()..]
        .chunks(4)
        .map(|chunk| i32::from_le_bytes(chunk.try_into().unwrap()))
        .collect();
    for (row, source) in values.chunks(400).zip([0, 5, 399, 5, 77]) {
        let want = reference(
            &graph,
            source,
            Limits {
                depth_limit: Some(12),
            },
        );
        let want: Vec<i32> = want
            .iter()
            .map(|&level| i32::try_from(level).unwrap_or(-1))
            .collect();
        assert_eq!(row, want, "source {source}");
    }
    assert!(
        std::fs::read_to_string(&json)
            .unwrap()
            .contains("\"frontier\"")
    );
}

#[test]
fn auto_takes_batches_for_few_levels_and_a_source_a_thread_for_many() {
    let (method, why) = many::cpu_method(&bfs_tests::generated("kron:10:8", 1));
    assert_eq!(method, many::CpuMethod::BitParallel, "{why}");
    // Deep, and nearly every vertex kept: whole searches.
    let (method, why) = many::cpu_method(&bfs_tests::generated("grid:80x80:0.05", 1));
    assert_eq!(method, many::CpuMethod::SourceParallel, "{why}");
    assert!(why.contains("levels, more than"), "{why}");
    // Deep, and mostly chains: over the chains contracted.
    for spec in ["path:500", "road:2000"] {
        let (method, why) = many::cpu_method(&bfs_tests::generated(spec, 1));
        assert_eq!(method, many::CpuMethod::Chains, "{spec}: {why}");
        assert!(why.contains("outside degree-2 chains"), "{spec}: {why}");
    }
}

/// Parents taken from distances alone (`Bfs::from_levels`, what a GPU
/// search from several seeds returns) form a valid BFS forest: on an
/// undirected and a directed graph, from one seed and from several,
/// within a depth limit too.
#[test]
fn parents_taken_from_levels_form_a_valid_forest() {
    let directed = bfs_tests::directed_random(500, 1500, 8);
    for graph in [bfs_tests::generated("grid:30x30:0.1", 4), directed] {
        let n = graph.vertex_count();
        for seeds in [vec![0], vec![1, n / 3, n - 2]] {
            for depth_limit in [None, Some(3)] {
                let want = cpu::bfs_within(&graph, &seeds, depth_limit);
                let result = bfs::Bfs::from_levels(&graph, &seeds, want.levels.clone());
                validate::validate_within(&graph, &result, &seeds, depth_limit)
                    .unwrap_or_else(|error| panic!("{seeds:?} {depth_limit:?}: {error}"));
            }
        }
    }
}
