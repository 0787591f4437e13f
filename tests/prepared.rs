//! Prepared graphs (`bfs prepare`) and the time to answer: a `.bcsr` with
//! what `auto` builds before it searches gives the same distances as
//! building it anew, on every test graph and variant; a truncated or
//! tampered section is detected, reported and built anew, never trusted; a
//! `.bcsr` without sections still loads; `auto` plans for the run's
//! searches; a run's phases add up to its wall time; the main job says in
//! one line where it ran and why. GPU tests print `skip:` without a GPU.

use std::path::{Path, PathBuf};
use std::time::Instant;

use bfs::gpu::roads::ghost_zones;
use bfs::gpu::{Gpu, HierarchySweep, Search, Strategy, Variant, Workload, plan};
use bfs::graph::prepared::{Preparation, PreparationKind, Preparations};
use bfs::graph::{GraphSource, Reader, binary};
use bfs::validate::{same_levels, validate};
use bfs::{Csr, cpu};
use bfs_tests::{generated, gpu, run_bfs, skip, sources, temporary_folder, test_graphs};

/// Shared memory for zones built without a GPU to ask.
const SHARED_BYTES: u32 = 227 * 1024;

/// Every preparation `graph` allows: its hierarchy (unless it keeps too
/// many vertices) and its zones (unless a hub's zone passes `capacity`).
fn preparations(graph: &Csr, capacity: u32) -> Vec<Preparation> {
    PreparationKind::ALL
        .into_iter()
        .filter_map(|kind| bfs::gpu::build_preparation(graph, kind, capacity).ok())
        .collect()
}

/// `graph` with `preparations` written to `name` in a fresh folder of `test`'s.
fn write_prepared(test: &str, name: &str, graph: &Csr, preparations: &[Preparation]) -> PathBuf {
    let path = temporary_folder(test).join(name);
    let mut file = std::fs::File::create(&path).unwrap();
    binary::write_prepared(graph, preparations, &mut file).unwrap();
    path
}

fn read(path: &Path) -> (Csr, Preparations) {
    binary::read_prepared(path)
        .unwrap_or_else(|(_, message)| panic!("{}: {message}", path.display()))
}

/// Road networks of several sizes, one directed.
fn road_networks() -> Vec<(String, Csr)> {
    [("road:300", 1), ("road:5000", 2), ("road:3000:0.15", 3)]
        .into_iter()
        .map(|(spec, seed)| (format!("gen:{spec} seed {seed}"), generated(spec, seed)))
        .collect()
}

#[test]
fn preparations_round_trip_through_a_binary_cache() {
    let mut graphs = test_graphs();
    graphs.extend(road_networks());
    for (index, (name, graph)) in graphs.iter().enumerate() {
        let built = preparations(graph, ghost_zones::capacity(SHARED_BYTES));
        let path = write_prepared(
            "preparations_round_trip_through_a_binary_cache",
            &format!("{index}.bcsr"),
            graph,
            &built,
        );
        let (loaded, prepared) = read(&path);
        assert_eq!(&loaded, graph, "{name}");
        assert_eq!(prepared.problem(), None, "{name}");
        let kinds: Vec<PreparationKind> = built.iter().map(Preparation::kind).collect();
        assert_eq!(prepared.kinds(), kinds, "{name}");
        for preparation in &built {
            let kind = preparation.kind();
            let read_back = prepared.load(kind, graph.vertex_count()).unwrap();
            assert_eq!(
                read_back.as_ref(),
                Ok(preparation),
                "{name}: {}",
                kind.name()
            );
        }
    }
}

#[test]
fn a_binary_cache_without_sections_lists_none() {
    let graph = generated("grid:40x40:0.1", 4);
    let path = temporary_folder("a_binary_cache_without_sections_lists_none").join("plain.bcsr");
    bfs::graph::save(&graph, &path).unwrap();
    let (loaded, prepared) = read(&path);
    assert_eq!(loaded, graph);
    assert!(prepared.kinds().is_empty());
    assert_eq!(prepared.problem(), None);
    assert!(
        prepared
            .load(PreparationKind::Hierarchy, graph.vertex_count())
            .is_none()
    );
    assert_eq!(
        u32::from_le_bytes(std::fs::read(&path).unwrap()[8..12].try_into().unwrap()),
        binary::VERSION
    );
}

/// The byte offset where `graph`'s CSR ends in its `.bcsr` file.
fn csr_bytes(graph: &Csr) -> usize {
    let mut plain = Vec::new();
    binary::write(graph, &mut plain).unwrap();
    plain.len()
}

#[test]
fn a_truncated_or_tampered_section_is_unusable_and_the_graph_still_loads() {
    let test = "a_truncated_or_tampered_section_is_unusable_and_the_graph_still_loads";
    let graph = generated("road:400", 5);
    let built = preparations(&graph, ghost_zones::capacity(SHARED_BYTES));
    assert_eq!(built.len(), 2, "a small road network has both preparations");
    let good = std::fs::read(write_prepared(test, "good.bcsr", &graph, &built)).unwrap();
    let section = csr_bytes(&graph);
    let payload = section + bfs::graph::prepared::HEADER_BYTES;
    let flipped = |at: usize| {
        let mut bytes = good.clone();
        bytes[at] ^= 0x40;
        bytes
    };
    let header_word = |at: usize, value: u32| {
        let mut bytes = good.clone();
        bytes[section + at..section + at + 4].copy_from_slice(&value.to_le_bytes());
        bytes
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "payload byte flipped",
            flipped(payload + 100),
            "checksum mismatch",
        ),
        (
            "last byte flipped",
            flipped(payload + 1000),
            "checksum mismatch",
        ),
        (
            "graph checksum changed",
            header_word(16, 12345),
            "another graph",
        ),
        ("version changed", header_word(12, 99), "version"),
        (
            "cut in its payload",
            good[..payload + 64].to_vec(),
            "truncated",
        ),
        (
            "cut in its header",
            good[..section + 20].to_vec(),
            "truncated",
        ),
    ];
    for (what, bytes, expected) in cases {
        let path = temporary_folder(test).join("tampered.bcsr");
        std::fs::write(&path, &bytes).unwrap();
        let (loaded, prepared) = read(&path);
        assert_eq!(loaded, graph, "{what}: the graph itself is intact");
        let why = match prepared.load(PreparationKind::Hierarchy, graph.vertex_count()) {
            Some(Ok(_)) => panic!("{what}: a damaged section was trusted"),
            Some(Err(why)) => why,
            None => prepared
                .problem()
                .unwrap_or_else(|| panic!("{what}: neither a section nor a problem"))
                .to_string(),
        };
        assert!(why.contains(expected), "{what}: {why}");
    }
    // A section written with a valid checksum but a hierarchy whose arcs
    // break its levels' order (one lower arc leading to its own vertex).
    let Some(Preparation::Hierarchy(mut hierarchy)) = built.first().cloned() else {
        panic!("the hierarchy comes first");
    };
    let vertex = (0..hierarchy.chains.kept_count())
        .find(|&vertex| hierarchy.lower.of(vertex).next().is_some())
        .expect("a vertex with a lower arc");
    let first_arc = 2 * hierarchy.lower.row_offsets[vertex as usize] as usize;
    hierarchy.lower.arcs[first_arc] = vertex;
    let path = write_prepared(
        test,
        "disordered.bcsr",
        &graph,
        &[Preparation::Hierarchy(hierarchy)],
    );
    let (_, prepared) = read(&path);
    let why = prepared
        .load(PreparationKind::Hierarchy, graph.vertex_count())
        .unwrap()
        .unwrap_err();
    assert!(why.contains("in order"), "{why}");
    // A damaged CSR is still refused as a whole.
    let mut damaged_graph = good.clone();
    damaged_graph[60] ^= 1;
    let path = temporary_folder(test).join("damaged.bcsr");
    std::fs::write(&path, &damaged_graph).unwrap();
    let error = binary::read_prepared(&path).unwrap_err().1;
    assert!(error.contains("checksum"), "{error}");
}

#[test]
fn the_hierarchy_of_a_prepared_road_network_gives_the_reference_distances() {
    for (name, graph) in road_networks() {
        let built = HierarchySweep::build(&graph).unwrap();
        let path = write_prepared(
            "the_hierarchy_of_a_prepared_road_network_gives_the_reference_distances",
            "road.bcsr",
            &graph,
            &[Preparation::Hierarchy(built)],
        );
        let (loaded, prepared) = read(&path);
        let Some(Ok(Preparation::Hierarchy(hierarchy))) =
            prepared.load(PreparationKind::Hierarchy, loaded.vertex_count())
        else {
            panic!("{name}: no hierarchy");
        };
        for source in sources(&graph) {
            let expected = cpu::bfs(&graph, source);
            let swept = bfs_tests::sweeps::hierarchy_levels(&hierarchy, source);
            assert_eq!(swept, expected.levels, "{name} from {source}");
        }
    }
}

#[test]
fn road_networks_are_seeded_road_like_and_directed_where_one_way() {
    let undirected = generated("road:2000", 7);
    assert_eq!(
        undirected,
        generated("road:2000", 7),
        "the same seed, the same graph"
    );
    assert_ne!(undirected, generated("road:2000", 8));
    assert!(undirected.is_symmetric());
    assert_eq!(
        bfs::gpu::strategy(&undirected),
        Strategy::ManyLevelsPerLaunch
    );
    let kept = bfs::graph::chains::ChainContraction::kept_at_least(&undirected);
    assert!(
        kept * 4 < undirected.vertex_count(),
        "mostly chains: {kept} of {}",
        undirected.vertex_count()
    );
    assert!(
        undirected.vertex_count() > 2000 * 5,
        "streets hold shape points"
    );
    let directed = generated("road:2000:0.2", 7);
    assert!(!directed.is_symmetric());
    let reached = cpu::bfs(&undirected, 0).reached();
    assert!(
        reached * 10 > undirected.vertex_count() as usize * 9,
        "one large component: {reached}"
    );
}

#[test]
fn auto_plans_for_the_searches_and_what_is_prepared() {
    let road = generated("road:3000", 3);
    let grid = generated("grid:300x300:0.05", 3);
    let kronecker = generated("kron:12:16", 3);
    let none = Preparations::none();
    let strategy = |graph: &Csr, searches: usize, prepared: &Preparations, cooperative: bool| {
        plan(graph, cooperative, Workload { searches, prepared }).strategy
    };
    let many = bfs::gpu::HIERARCHY_PAYS_FROM_SEARCHES.max(bfs::gpu::ZONES_PAY_FROM_SEARCHES);
    assert_eq!(
        strategy(&road, 1, &none, true),
        Strategy::ManyLevelsPerLaunch
    );
    assert_eq!(strategy(&road, many, &none, true), Strategy::HierarchySweep);
    assert_eq!(
        strategy(&grid, 1, &none, true),
        Strategy::ManyLevelsPerLaunch
    );
    assert_eq!(strategy(&grid, many, &none, true), Strategy::GhostZones);
    assert_eq!(
        strategy(&grid, many, &none, false),
        Strategy::ManyLevelsPerLaunch
    );
    assert_eq!(
        strategy(&kronecker, 1, &none, true),
        Strategy::DirectionOptimizingInOneLaunch
    );
    assert_eq!(
        strategy(&kronecker, 1, &none, false),
        Strategy::DirectionOptimizing
    );
    let test = "auto_plans_for_the_searches_and_what_is_prepared";
    let capacity = ghost_zones::capacity(SHARED_BYTES);
    let (_, road_prepared) = read(&write_prepared(
        test,
        "road.bcsr",
        &road,
        &preparations(&road, capacity),
    ));
    let hierarchy_loading_pays = bfs::gpu::PREPARED_HIERARCHY_PAYS_FROM_SEARCHES;
    assert_eq!(
        strategy(&road, hierarchy_loading_pays, &road_prepared, true),
        Strategy::HierarchySweep
    );
    assert_eq!(
        strategy(&road, hierarchy_loading_pays - 1, &road_prepared, true),
        Strategy::ManyLevelsPerLaunch
    );
    let (_, grid_prepared) = read(&write_prepared(
        test,
        "grid.bcsr",
        &grid,
        &preparations(&grid, capacity),
    ));
    let loading_pays = bfs::gpu::PREPARED_ZONES_PAY_FROM_SEARCHES;
    assert_eq!(
        strategy(&grid, loading_pays - 1, &grid_prepared, true),
        Strategy::ManyLevelsPerLaunch
    );
    assert_eq!(
        strategy(&grid, loading_pays, &grid_prepared, true),
        Strategy::GhostZones
    );
    let reason = plan(
        &grid,
        true,
        Workload {
            searches: 1,
            prepared: &none,
        },
    )
    .reason;
    assert!(
        reason.contains("one search") && reason.contains("bfs prepare"),
        "{reason}"
    );
}

/// A road network of more junctions than one block's sweep once took (2^18)
/// still gets the hierarchy, which the grid sweeps.
#[test]
fn auto_takes_the_hierarchy_past_a_quarter_million_junctions() {
    let road = generated("road:270000", 5);
    let kept = bfs::graph::chains::ChainContraction::kept_at_least(&road);
    assert!(kept > 1 << 18, "{kept} kept vertices");
    assert!(kept <= bfs::gpu::MOST_KEPT_VERTICES);
    let planned = plan(&road, true, Workload::many());
    assert_eq!(
        planned.strategy,
        Strategy::HierarchySweep,
        "{}",
        planned.reason
    );
    // Its hierarchy takes more searches to repay than a small network's.
    let repays = bfs::gpu::hierarchy_pays_from_searches(kept);
    assert!(repays > bfs::gpu::HIERARCHY_PAYS_FROM_SEARCHES, "{repays}");
    let none = Preparations::none();
    let strategy = |searches| {
        let prepared = &none;
        plan(&road, true, Workload { searches, prepared }).strategy
    };
    assert_eq!(strategy(repays - 1), Strategy::ManyLevelsPerLaunch);
    assert_eq!(strategy(repays), Strategy::HierarchySweep);
}

/// Building a hierarchy repays from more searches as the graph grows, as
/// the square root of its kept vertices (building grows with them, a
/// level-by-level search with its levels), never from fewer than on the
/// smallest networks.
#[test]
fn a_hierarchy_repays_from_searches_growing_with_the_root_of_its_kept_vertices() {
    use bfs::gpu::{HIERARCHY_PAYS_FROM_SEARCHES, hierarchy_pays_from_searches};
    assert_eq!(
        hierarchy_pays_from_searches(0),
        HIERARCHY_PAYS_FROM_SEARCHES
    );
    assert_eq!(
        hierarchy_pays_from_searches(16_905),
        HIERARCHY_PAYS_FROM_SEARCHES
    );
    let at = |kept: u32| hierarchy_pays_from_searches(kept) as f64;
    let (quarter, four) = (at(1 << 20), at(1 << 22));
    assert!((four / quarter - 2.0).abs() < 0.01, "{quarter} {four}");
}

/// The distances of every variant on `graph`, searched from its prepared
/// file's graph with the file's preparations, equal the reference.
fn assert_prepared_exact(gpu: &Gpu, name: &str, graph: &Csr, path: &Path) {
    let (loaded, prepared) = read(path);
    let references: Vec<_> = sources(graph)
        .into_iter()
        .map(|source| cpu::bfs(graph, source))
        .collect();
    let for_variant = |variant: Variant, strategy: Option<Strategy>| {
        let kind = match variant {
            Variant::HierarchySweep => Some(PreparationKind::Hierarchy),
            Variant::GhostZones => Some(PreparationKind::GhostZones),
            Variant::Auto => strategy.and_then(Strategy::needs),
            _ => None,
        };
        kind.and_then(|kind| prepared.load(kind, loaded.vertex_count()))
            .transpose()
            .unwrap_or_else(|why| panic!("{name}: {why}"))
    };
    let mut runs: Vec<(String, Variant, Option<Strategy>)> = gpu
        .variants()
        .into_iter()
        .map(|variant| (variant.name().to_string(), variant, None))
        .collect();
    for searches in [1, usize::MAX] {
        let planned = plan(
            &loaded,
            gpu.cooperative_launch(),
            Workload {
                searches,
                prepared: &prepared,
            },
        );
        runs.push((
            format!("auto for {searches} searches"),
            Variant::Auto,
            Some(planned.strategy),
        ));
    }
    for (label, variant, strategy) in runs {
        let preparation = for_variant(variant, strategy);
        let Ok(mut search) = Search::prepared(gpu, &loaded, variant, strategy, preparation) else {
            // Variants that refuse a graph refuse it built anew too (the
            // GPU suite checks their refusals).
            assert!(
                Search::new(gpu, graph, variant).is_err(),
                "{label} on {name}"
            );
            continue;
        };
        for reference in &references {
            let run = search.run(reference.source).unwrap();
            let context = format!("{label} on prepared {name} from {}", reference.source);
            same_levels(&run.result, reference)
                .unwrap_or_else(|error| panic!("{context}: {error}"));
            validate(graph, &run.result).unwrap_or_else(|error| panic!("{context}: {error}"));
        }
    }
}

#[test]
fn a_prepared_file_gives_every_variant_the_distances_built_anew() {
    let test = "a_prepared_file_gives_every_variant_the_distances_built_anew";
    let Some(gpu) = gpu(test) else {
        return;
    };
    let capacity = bfs::gpu::ghost_zone_capacity(&gpu);
    let mut graphs = test_graphs();
    graphs.extend(road_networks());
    for (index, (name, graph)) in graphs.iter().enumerate() {
        let path = write_prepared(
            test,
            &format!("{index}.bcsr"),
            graph,
            &preparations(graph, capacity),
        );
        assert_prepared_exact(&gpu, name, graph, &path);
    }
}

#[test]
fn the_cli_notes_a_damaged_section_and_builds_it_anew() {
    let test = "the_cli_notes_a_damaged_section_and_builds_it_anew";
    let graph = generated("road:400", 9);
    let hierarchy = Preparation::Hierarchy(HierarchySweep::build(&graph).unwrap());
    let path = write_prepared(test, "road.bcsr", &graph, &[hierarchy]);
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 5;
    bytes[last] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let levels = temporary_folder(test).join("levels.txt");
    let run = run_bfs(&[
        "--graph",
        path.to_str().unwrap(),
        "--variant",
        "hierarchy-sweep",
        "--source",
        "7",
        "--output",
        levels.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let written = std::fs::read_to_string(&levels).unwrap();
    let expected: String = cpu::bfs(&graph, 7)
        .levels
        .iter()
        .map(|&level| match level {
            bfs::UNREACHED => "-1\n".to_string(),
            level => format!("{level}\n"),
        })
        .collect();
    assert_eq!(written, expected);
    if run.stderr.contains("no CUDA device") {
        skip(test, "no CUDA device: the CPU ran, and needs no hierarchy");
        return;
    }
    let notes: Vec<&str> = run
        .stderr
        .lines()
        .filter(|line| line.starts_with("note:"))
        .collect();
    assert_eq!(notes.len(), 1, "{}", run.stderr);
    assert!(
        notes[0].contains("unusable")
            && notes[0].contains("checksum")
            && notes[0].contains("building it anew"),
        "{}",
        notes[0]
    );
}

#[test]
fn bfs_prepare_writes_what_auto_loads() {
    let test = "bfs_prepare_writes_what_auto_loads";
    let path = temporary_folder(test).join("road.bcsr");
    let prepared = run_bfs(&["prepare", "gen:road:2000", path.to_str().unwrap()]);
    assert_eq!(prepared.code, Some(0), "{}", prepared.stderr);
    assert!(
        prepared.stdout.contains("prepared:  contraction hierarchy"),
        "{}",
        prepared.stdout
    );
    let (_, sections) = read(&path);
    assert_eq!(sections.kinds(), [PreparationKind::Hierarchy]);
    let refused = run_bfs(&[
        "prepare",
        "gen:road:20",
        temporary_folder(test).join("road.mtx").to_str().unwrap(),
    ]);
    refused.assert_one_line_error("must end in .bcsr");
    let run = run_bfs(&[
        "--graph",
        path.to_str().unwrap(),
        "--source",
        "3",
        "--verify",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    if run.stderr.contains("no CUDA device") {
        skip(
            test,
            "no CUDA device: the CPU ran, and loads no preparation",
        );
        return;
    }
    let plan_line = run
        .stdout
        .lines()
        .find(|line| line.starts_with("plan:"))
        .unwrap();
    assert!(
        plan_line.contains("does not repay loading the file's contraction hierarchy"),
        "{plan_line}"
    );
    let many = run_bfs(&[
        "--graph",
        path.to_str().unwrap(),
        "--sources",
        "8",
        "--verify",
    ]);
    assert_eq!(many.code, Some(0), "{}", many.stderr);
    let plan_line = many
        .stdout
        .lines()
        .find(|line| line.starts_with("plan:"))
        .unwrap();
    assert!(
        plan_line.contains("hierarchy-sweep") && plan_line.contains("loaded from the file"),
        "{plan_line}"
    );
}

#[test]
fn the_main_job_says_where_it_ran_and_why_in_one_line() {
    let run = run_bfs(&["--graph", "gen:grid:100x100"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let plans: Vec<&str> = run
        .stdout
        .lines()
        .filter(|line| line.starts_with("plan:"))
        .collect();
    assert_eq!(plans.len(), 1, "{}", run.stdout);
    let plan = plans[0];
    match run.stderr.contains("no CUDA device") {
        true => assert!(
            plan.contains("CPU") && plan.contains("no CUDA device"),
            "{plan}"
        ),
        false => assert!(
            plan.contains("auto took")
                && plan.contains("road-like")
                && plan.contains("machine code")
                || plan.contains("PTX"),
            "{plan}"
        ),
    }
}

#[test]
fn the_phases_of_a_run_add_up_to_its_wall_time() {
    let test = "the_phases_of_a_run_add_up_to_its_wall_time";
    let json = temporary_folder(test).join("run.json");
    // Long enough that the process's exit, after its report (where a GPU
    // ran, the driver frees what the context held: tens of milliseconds),
    // stays well within the tolerance; few levels, so that the report's
    // per-level traces, written after the phases end, stay small.
    let graph = match Gpu::open() {
        Ok(_) => "gen:uniform:8000000:64000000",
        Err(_) => "gen:uniform:1000000:8000000",
    };
    let started = Instant::now();
    let run = run_bfs(&[
        "--graph",
        graph,
        "--sources",
        "64",
        "--json",
        json.to_str().unwrap(),
    ]);
    let measured = started.elapsed().as_secs_f64();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let report: serde_json_value::Value =
        serde_json_value::from_str(&std::fs::read_to_string(&json).unwrap());
    let wall = report.number("wall_seconds");
    let sum: f64 = report.phase_seconds().iter().sum();
    assert!(
        (sum - wall).abs() < 1e-6,
        "phases {sum} s against wall {wall} s"
    );
    assert!(
        (wall - measured).abs() <= 0.05 * measured,
        "the phases' {wall:.4} s against the process's {measured:.4} s"
    );
    let names = report.phase_names();
    for expected in ["start", "load", "search", "output", "teardown"] {
        assert!(names.iter().any(|name| name == expected), "{names:?}");
    }
}

/// The few reads of a JSON report these tests make, without a JSON
/// library in the tests' dependencies: `bfs --json` writes one field a
/// line, and the phases as one line of `{"phase":…,"seconds":…}` objects.
mod serde_json_value {
    pub struct Value(String);

    pub fn from_str(text: &str) -> Value {
        Value(text.to_string())
    }

    impl Value {
        /// The number of top-level field `name`.
        pub fn number(&self, name: &str) -> f64 {
            let key = format!("\"{name}\": ");
            let start = self.0.find(&key).unwrap_or_else(|| panic!("no {name}")) + key.len();
            let end = self.0[start..].find([',', '\n']).unwrap() + start;
            self.0[start..end].trim().parse().unwrap()
        }

        fn phases(&self) -> Vec<(String, f64)> {
            let start = self.0.find("\"phases\": [").expect("phases") + "\"phases\": [".len();
            let end = self.0[start..].find(']').unwrap() + start;
            self.0[start..end]
                .split('}')
                .filter_map(|object| {
                    let name = object.split("\"phase\":\"").nth(1)?.split('"').next()?;
                    let seconds = object.split("\"seconds\":").nth(1)?.trim().parse().ok()?;
                    Some((name.to_string(), seconds))
                })
                .collect()
        }

        pub fn phase_seconds(&self) -> Vec<f64> {
            self.phases()
                .into_iter()
                .map(|(_, seconds)| seconds)
                .collect()
        }

        pub fn phase_names(&self) -> Vec<String> {
            self.phases().into_iter().map(|(name, _)| name).collect()
        }
    }
}

#[test]
fn a_graph_source_lists_the_preparations_of_its_file() {
    let graph = generated("road:300", 2);
    let path = write_prepared(
        "a_graph_source_lists_the_preparations_of_its_file",
        "road.bcsr",
        &graph,
        &preparations(&graph, ghost_zones::capacity(SHARED_BYTES)),
    );
    let source = GraphSource::parse(path.to_str().unwrap()).unwrap();
    let (loaded, prepared) = source.load_prepared(Reader::Fast).unwrap();
    assert_eq!(loaded, graph);
    assert_eq!(prepared.kinds(), PreparationKind::ALL);
    let (_, none) = GraphSource::parse("gen:road:300")
        .unwrap()
        .load_prepared(Reader::Fast)
        .unwrap();
    assert!(none.kinds().is_empty());
}

/// `bfs centrality` on a GPU takes a prepared file's hierarchy for its
/// trees (and says so), notes a damaged one and builds it anew, with the
/// same closeness as from the plain graph either way, on one GPU and
/// shared by `--gpus 1`.
#[test]
fn centrality_takes_the_files_hierarchy_or_notes_a_damaged_one() {
    let test = "centrality_takes_the_files_hierarchy_or_notes_a_damaged_one";
    let graph = generated("road:400", 9);
    let hierarchy = Preparation::Hierarchy(HierarchySweep::build(&graph).unwrap());
    let folder = temporary_folder(test);
    let plain = folder.join("road.mtx");
    bfs::graph::save(&graph, &plain).unwrap();
    let path = write_prepared(test, "road.bcsr", &graph, &[hierarchy]);
    let closeness = |file: &std::path::Path, gpus: &[&str], output: &str| {
        let output = folder.join(output);
        let mut arguments = vec![
            "centrality",
            "--graph",
            file.to_str().unwrap(),
            "--measure",
            "closeness",
            "--output",
            output.to_str().unwrap(),
        ];
        arguments.extend(gpus);
        let run = run_bfs(&arguments);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        (run, std::fs::read_to_string(&output).unwrap())
    };
    let (plain_run, expected) = closeness(&plain, &[], "plain.txt");
    if plain_run.stderr.contains("no CUDA device") {
        skip(test, "no CUDA device: the CPU ran, and takes no hierarchy");
        return;
    }
    for gpus in [&[][..], &["--gpus", "1"]] {
        let (run, values) = closeness(&path, gpus, "prepared.txt");
        assert_eq!(values, expected, "{gpus:?}");
        let device = run.stdout.lines().find(|line| line.starts_with("device:"));
        assert!(
            device.is_some_and(|line| line.contains("its hierarchy from the prepared file")),
            "{gpus:?}: {}",
            run.stdout
        );
    }
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 5;
    bytes[last] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let (run, values) = closeness(&path, &[], "damaged.txt");
    assert_eq!(values, expected);
    let notes: Vec<&str> = run
        .stderr
        .lines()
        .filter(|line| line.starts_with("note:"))
        .collect();
    assert!(
        notes.len() == 1 && notes[0].contains("unusable") && notes[0].contains("building it anew"),
        "{}",
        run.stderr
    );
}
