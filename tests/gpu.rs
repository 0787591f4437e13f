//! Every GPU variant against the CPU reference: the same distance on every
//! vertex, for every test graph and several sources, plus Graph500 validation.
//! Without a GPU each test prints `skip: no CUDA device` (and fails instead
//! when `BFS_REQUIRE_GPU` is set, as the bundle's runner does).

use bfs::gpu::{
    CLUSTER_KERNELS_PTX, ChainContracted, DirectionOptimizing, Driver, GhostZones, Gpu,
    HierarchicalQueue, HierarchySweep, KERNELS_PTX, Labels, Partitioned,
    PersistentDirectionOptimizing, Placement, Request, RowOffsets, STAGING_HALF_BYTES, Search,
    Variant,
};
use bfs::validate::{same_levels, validate};
use bfs::{Bfs, Csr, Error, abi, cpu};
use bfs_tests::{gpu, sources, test_graphs};

#[test]
fn every_kernel_name_has_an_entry_in_its_module() {
    for (ptx, names) in [
        (KERNELS_PTX, abi::KERNEL_NAMES),
        (CLUSTER_KERNELS_PTX, abi::SM90_KERNEL_NAMES),
    ] {
        for name in names {
            assert!(
                ptx.contains(&format!(".entry {name}(")),
                "no .entry {name} in its PTX"
            );
        }
    }
    assert!(CLUSTER_KERNELS_PTX.contains(".target sm_90"));
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
        assert_exact(&gpu, (&name, &graph), &references, &gpu.variants());
    }
}

/// Runs each of `variants` on `graph` from every reference's source, one
/// search object per variant, and checks the distances against the
/// reference and the result against the Graph500 rules.
fn assert_exact(gpu: &Gpu, (name, graph): (&str, &Csr), references: &[Bfs], variants: &[Variant]) {
    for &variant in variants {
        let search = Search::new(gpu, graph, variant).unwrap();
        assert_search_exact(search, (&format!("{variant} on {name}"), graph), references);
    }
}

/// Runs `search` from every reference's source, checking as [`assert_exact`].
fn assert_search_exact(mut search: Search, (name, graph): (&str, &Csr), references: &[Bfs]) {
    for reference in references {
        let run = search.run(reference.source).unwrap();
        let context = format!("{name} from {}", reference.source);
        same_levels(&run.result, reference).unwrap_or_else(|error| panic!("{context}: {error}"));
        validate(graph, &run.result).unwrap_or_else(|error| panic!("{context}: {error}"));
    }
}

#[test]
fn repeated_searches_reuse_buffers_and_agree() {
    let Some(gpu) = gpu("repeated_searches_reuse_buffers_and_agree") else {
        return;
    };
    let graph = bfs_tests::generated("grid:100x100:0.1", 21);
    for variant in gpu.variants() {
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
fn a_search_asked_for_levels_alone_gives_them_and_no_parents() {
    let Some(gpu) = gpu("a_search_asked_for_levels_alone_gives_them_and_no_parents") else {
        return;
    };
    let graph = bfs_tests::generated("grid:100x100:0.1", 21);
    let reference = cpu::bfs(&graph, 5);
    for variant in gpu.variants() {
        let mut search = Search::new(&gpu, &graph, variant).unwrap();
        for (parents, statistics) in [(false, false), (true, true), (false, true), (true, false)] {
            let mut request = Request::labels(5, parents);
            request.statistics = statistics;
            let run = search.run_for(request).unwrap();
            same_levels(&run.result, &reference)
                .unwrap_or_else(|error| panic!("{variant}: {error}"));
            match parents && variant.records_parents() {
                true => validate(&graph, &run.result).unwrap(),
                false => assert_eq!(run.result.parents, None, "{variant} gave parents unasked"),
            }
            // Asked, a search reports its levels; unasked, a one-launch
            // search reports no step and no work (a level loop's steps
            // cost no pass, and it reports them whatever the request).
            let levels: u32 = run.steps.iter().map(|step| step.levels).sum();
            if statistics || !run.steps.is_empty() {
                assert_eq!(levels, run.result.level_count(), "{variant}");
            } else {
                assert_eq!(run.work, None, "{variant} counted its work unasked");
            }
        }
    }
}

/// `graph`'s rows as a new graph, its symmetry unknown (as a graph from
/// Python's arrays is), less the last arc of each of `cut`'s rows.
fn rows_of(graph: &Csr, cut: &[u32]) -> Csr {
    let (mut offsets, mut columns) = (vec![0], Vec::new());
    for vertex in 0..graph.vertex_count() {
        let row = graph.neighbours(vertex);
        let kept = match cut.contains(&vertex) && !row.is_empty() {
            true => &row[..row.len() - 1],
            false => row,
        };
        columns.extend_from_slice(kept);
        offsets.push(columns.len() as u64);
    }
    Csr::from_rows(offsets, columns).unwrap()
}

#[test]
fn the_device_finds_the_symmetry_the_host_finds() {
    let Some(gpu) = gpu("the_device_finds_the_symmetry_the_host_finds") else {
        return;
    };
    let mut graphs = test_graphs();
    // A hub's row far longer than a warp's run of arcs, and the same
    // graphs less one arc: a leaf's, the hub's last, a mid-sized row's.
    let hub = bfs_tests::generated("star:100000", 1);
    graphs.push((
        "star:100000 less a leaf's arc".into(),
        rows_of(&hub, &[77_777]),
    ));
    graphs.push((
        "star:100000 less the hub's last".into(),
        rows_of(&hub, &[0]),
    ));
    graphs.push(("star:100000".into(), hub));
    let kron = bfs_tests::generated("kron:14:16", 2);
    graphs.push(("kron:14 less one arc".into(), rows_of(&kron, &[4321])));
    graphs.push(("dkron:12".into(), bfs_tests::generated("dkron:12:8", 3)));
    for (name, graph) in graphs {
        let on_device = rows_of(&graph, &[]);
        assert_eq!(on_device.known_symmetric(), None, "{name}");
        Search::new(&gpu, &on_device, Variant::TwoKernel).unwrap();
        let expected = rows_of(&graph, &[]).is_symmetric();
        assert_eq!(on_device.known_symmetric(), Some(expected), "{name}");
    }
}

#[test]
fn results_copied_into_locked_vectors_are_exact_and_reused_once_dropped() {
    let Some(gpu) = gpu("results_copied_into_locked_vectors_are_exact_and_reused_once_dropped")
    else {
        return;
    };
    let graph = bfs_tests::generated("grid:120x120:0.05", 4);
    let n = graph.vertex_count();
    let mut held = Vec::new();
    // Partitioned renumbers its result on the host: ordinary vectors.
    for (variant, locked) in [
        (Variant::Auto, true),
        (Variant::DirectionOptimizing, true),
        (Variant::HierarchySweep, true),
        (Variant::Partitioned, false),
    ] {
        if !gpu.variants().contains(&variant) {
            continue;
        }
        let mut search = Search::new(&gpu, &graph, variant).unwrap();
        let mut dropped = Vec::new();
        for turn in 0..30 {
            let source = turn * 461 % n;
            let (result, _) = search.run_locked(Request::labels(source, true)).unwrap();
            let in_vectors = in_vectors(&result);
            same_levels(&in_vectors, &cpu::bfs(&graph, source))
                .unwrap_or_else(|error| panic!("{variant} from {source}: {error}"));
            validate(&graph, &in_vectors).unwrap_or_else(|error| panic!("{variant}: {error}"));
            let labels = [Some(&result.levels), result.parents.as_ref()];
            for labels in labels.into_iter().flatten() {
                assert_eq!(
                    matches!(labels, Labels::Locked(_)),
                    locked,
                    "{variant} from {source}"
                );
                // The locked vectors dropped after the turn before came back.
                assert!(
                    !locked || dropped.is_empty() || dropped.contains(&labels.as_ptr()),
                    "{variant} from {source}: a new vector where one was given back"
                );
            }
            dropped = match turn % 5 {
                0 => Vec::new(),
                _ => labels
                    .into_iter()
                    .flatten()
                    .map(|labels| labels.as_ptr())
                    .collect(),
            };
            match turn % 5 {
                0 => held.push((variant, result)),
                _ => drop(result),
            }
        }
    }
    // Held past their device: still exact, and freed after it.
    drop(gpu);
    for (variant, result) in held {
        let source = result.source;
        same_levels(&in_vectors(&result), &cpu::bfs(&graph, source))
            .unwrap_or_else(|error| panic!("{variant}, held from {source}: {error}"));
    }
}

/// A result's labels copied into vectors, as the checks take them.
fn in_vectors(result: &Bfs<Labels>) -> Bfs {
    Bfs {
        source: result.source,
        levels: result.levels.to_vec(),
        parents: result.parents.as_deref().map(<[u32]>::to_vec),
    }
}

#[test]
fn results_larger_than_the_staging_come_back_whole() {
    let Some(gpu) = gpu("results_larger_than_the_staging_come_back_whole") else {
        return;
    };
    // More levels than two halves of the staging hold: the copy goes
    // round them both, more than once.
    let side = ((3 * STAGING_HALF_BYTES / 4) as f64).sqrt().ceil() as u32;
    let graph = bfs_tests::generated(&format!("grid:{side}x{side}"), 1);
    let reference = cpu::bfs(&graph, 7);
    for variant in [Variant::Auto, Variant::DirectionOptimizing] {
        let mut search = Search::new(&gpu, &graph, variant).unwrap();
        let run = search.run(7).unwrap();
        same_levels(&run.result, &reference).unwrap_or_else(|error| panic!("{variant}: {error}"));
        validate(&graph, &run.result).unwrap_or_else(|error| panic!("{variant}: {error}"));
    }
}

#[test]
fn a_source_outside_the_graph_is_an_error() {
    let Some(gpu) = gpu("a_source_outside_the_graph_is_an_error") else {
        return;
    };
    let graph = bfs_tests::generated("path:10", 1);
    for variant in gpu.variants() {
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

#[test]
fn hierarchical_queues_are_exact_for_every_sub_queue_count() {
    let Some(gpu) = gpu("hierarchical_queues_are_exact_for_every_sub_queue_count") else {
        return;
    };
    // The star overflows every level (w-queue, b-queue, then the g-queue directly);
    // the R-MAT graph has hubs and wide levels.
    for (name, graph) in [
        ("star:5000", bfs_tests::generated("star:5000", 1)),
        ("kron:13", bfs_tests::generated("kron:13:16", 2)),
    ] {
        let reference = cpu::bfs(&graph, 0);
        for sub_queue_count in [1, 2, 3, 8, 31, abi::hierarchical_queue::MAX_SUB_QUEUES] {
            let mut search =
                Search::with(&gpu, &graph, Variant::HierarchicalQueue, |gpu, graph| {
                    Ok(Box::new(HierarchicalQueue::with_sub_queues(
                        gpu,
                        graph.vertex_count(),
                        sub_queue_count,
                    )?))
                })
                .unwrap();
            let run = search.run(0).unwrap();
            let context = format!("{sub_queue_count} w-queues on {name}");
            same_levels(&run.result, &reference)
                .unwrap_or_else(|error| panic!("{context}: {error}"));
            validate(&graph, &run.result).unwrap_or_else(|error| panic!("{context}: {error}"));
        }
    }
}

#[test]
fn ghost_zones_are_exact_for_every_shape() {
    let Some(gpu) = gpu("ghost_zones_are_exact_for_every_shape") else {
        return;
    };
    // Partitions far more than the blocks (many zones a block a step), of a
    // size that is no power of two, zones from 1 to 16 hops deep, their
    // images copied to shared memory and read where they lie; the directed
    // graph's zones follow its edges backwards.
    let directed = Csr::from_edges(
        600,
        &(0..600u32)
            .flat_map(|vertex| [(vertex, (vertex + 1) % 600), (vertex, (vertex * 7) % 600)])
            .collect::<Vec<_>>(),
        false,
    )
    .unwrap();
    for (name, graph) in [
        ("grid:60x60:0.1", bfs_tests::generated("grid:60x60:0.1", 5)),
        ("path:700", bfs_tests::generated("path:700", 1)),
        ("kron:10:8", bfs_tests::generated("kron:10:8", 6)),
        ("directed", directed),
    ] {
        let references: Vec<_> = [0, 17, graph.vertex_count() - 1]
            .into_iter()
            .map(|source| cpu::bfs(&graph, source))
            .collect();
        for (partition_size, hops) in [(32, 1), (50, 3), (100, 7), (256, 16)] {
            for in_place in [false, true] {
                let search = Search::with(&gpu, &graph, Variant::GhostZones, |gpu, graph| {
                    let search = GhostZones::with_shape(gpu, graph, partition_size, hops)?;
                    Ok(Box::new(if in_place {
                        search.reading_images_in_place()
                    } else {
                        search
                    }))
                })
                .unwrap();
                let context = format!(
                    "ghost zones of {partition_size}, {hops} hops, on {name}, images read in \
                     place: {in_place}"
                );
                assert_search_exact(search, (&context, &graph), &references);
            }
        }
    }
    // The default shape on a grid of 78 zones, dozens listed a step: a
    // ghost's level read while its owner writes it must count as unreached
    // (the bench once found a level 2 too high where it did not).
    let grid = bfs_tests::generated("grid:400x400:0.05", 7);
    let references: Vec<_> = [0, 80_200, 159_999, 4_321]
        .into_iter()
        .map(|source| cpu::bfs(&grid, source))
        .collect();
    let search = Search::new(&gpu, &grid, Variant::GhostZones).unwrap();
    assert_search_exact(search, ("ghost-zones on grid:400x400", &grid), &references);
    // The same on 7 blocks: most steps list more zones than blocks, and
    // each block takes the next entry as it finishes one.
    let search = Search::with(&gpu, &grid, Variant::GhostZones, |gpu, graph| {
        Ok(Box::new(GhostZones::new(gpu, graph)?.limited_to_blocks(7)))
    })
    .unwrap();
    assert_search_exact(
        search,
        ("ghost-zones on grid:400x400, 7 blocks", &grid),
        &references,
    );
}

#[test]
fn every_variant_steps_through_each_level_once() {
    let Some(gpu) = gpu("every_variant_steps_through_each_level_once") else {
        return;
    };
    for (name, graph) in [
        ("grid:120x120", bfs_tests::generated("grid:120x120:0.05", 3)),
        ("kron:14", bfs_tests::generated("kron:14:16", 4)),
    ] {
        for variant in gpu.variants() {
            let run = Search::new(&gpu, &graph, variant).unwrap().run(1).unwrap();
            let mut next_level = 0;
            for step in &run.steps {
                assert_eq!(
                    step.first_level, next_level,
                    "{variant} on {name}: {:?}",
                    run.steps
                );
                next_level += step.levels;
                assert_eq!(
                    step.direction.is_some(),
                    variant == Variant::DirectionOptimizing,
                    "{variant} on {name}: only direction-optimizing's levels have a direction"
                );
            }
            assert_eq!(next_level, run.result.level_count(), "{variant} on {name}");
        }
    }
}

#[test]
fn auto_runs_road_like_graphs_in_one_block_and_the_rest_by_direction() {
    use bfs::gpu::{Strategy, strategy};
    for (spec, expected) in [
        ("grid:200x200:0.05", Strategy::ManyLevelsPerLaunch),
        ("path:5000", Strategy::ManyLevelsPerLaunch),
        ("kron:12:16", Strategy::DirectionOptimizing),
        ("uniform:4000:32000", Strategy::DirectionOptimizing),
        ("star:1000", Strategy::DirectionOptimizing),
    ] {
        assert_eq!(strategy(&bfs_tests::generated(spec, 1)), expected, "{spec}");
    }
}

#[test]
fn direction_optimizing_is_exact_on_graphs_larger_than_the_grid() {
    let Some(gpu) = gpu("direction_optimizing_is_exact_on_graphs_larger_than_the_grid") else {
        return;
    };
    // More vertices than a persistent grid has threads (a few hundred
    // thousand on a large GPU), so bottom-up levels take several rounds
    // and a warp's bitmap words vary by round; several sources per search,
    // so each search starts on the bitmaps the last one cleared. Kronecker
    // and the directed graph have hubs, whose lists the persistent kernel
    // cuts into chunks (the source among them: the sources include the
    // highest degree); the directed graph runs top-down only.
    let generated = |spec: &str, seed| (spec.to_string(), bfs_tests::generated(spec, seed));
    let (kronecker, uniform) = (
        generated("kron:19:16", 31),
        generated("uniform:600000:4800000", 32),
    );
    let vertex_count = 300_000;
    let mut arcs: Vec<(u32, u32)> = (1..=3 * abi::hub_chunks::CHUNK_EDGES)
        .map(|head| (0, head))
        .collect();
    arcs.extend((1..vertex_count).map(|tail| (tail, (tail * 7919) % vertex_count)));
    arcs.extend((0..=abi::hub_chunks::CHUNK_EDGES).map(|head| (vertex_count - 1, head * 11)));
    // Lists of a warp's edges or more, shorter than a chunk: one short chunk each.
    arcs.extend((0..abi::hub_chunks::CHUNKED_LIST_EDGES).map(|head| (1, 2 + head * 13)));
    arcs.extend((0..abi::hub_chunks::CHUNK_EDGES - 1).map(|head| (2, 3 + head * 17)));
    let directed = (
        "directed, with hubs".to_string(),
        Csr::from_edges(vertex_count, &arcs, false).unwrap(),
    );
    for ((name, graph), has_hubs) in [(kronecker, true), (uniform, false), (directed, true)] {
        let most_edges = (0..graph.vertex_count())
            .map(|vertex| graph.degree(vertex))
            .max();
        assert_eq!(
            most_edges >= Some(abi::hub_chunks::CHUNK_EDGES),
            has_hubs,
            "{name}'s hubs"
        );
        let references: Vec<_> = sources(&graph)
            .into_iter()
            .map(|source| cpu::bfs(&graph, source))
            .collect();
        let variants = [
            Variant::DirectionOptimizing,
            Variant::PersistentDirectionOptimizing,
        ];
        assert_exact(&gpu, (&name, &graph), &references, &variants);
        // The variants read these graphs' row offsets in 32 bits (in
        // bottom-up levels, for `direction-optimizing`); their kernels for
        // 64-bit ones, which larger graphs take, on them too.
        assert_eq!(RowOffsets::for_graph(&graph), RowOffsets::Narrow);
        for variant in variants {
            let wide = Search::with(&gpu, &graph, variant, |gpu, graph| {
                let wide = RowOffsets::Wide;
                Ok(match variant {
                    Variant::DirectionOptimizing => {
                        Box::new(DirectionOptimizing::with_row_offsets(gpu, graph, wide)?)
                    }
                    _ => Box::new(PersistentDirectionOptimizing::with_row_offsets(
                        gpu, graph, wide,
                    )?),
                })
            })
            .unwrap();
            let wide_name = format!("{variant} over 64-bit row offsets on {name}");
            assert_search_exact(wide, (&wide_name, &graph), &references);
        }
    }
}

#[test]
fn one_block_levels_are_exact_with_the_visited_bitmap_in_global_memory() {
    let Some(gpu) = gpu("one_block_levels_are_exact_with_the_visited_bitmap_in_global_memory")
    else {
        return;
    };
    // 1.2M vertices: a 150 KB bitmap, which with the 96 KB of small-frontier's
    // queues exceeds any GPU's shared memory per block (227 KB on Hopper), so
    // the single block claims in global memory; `auto`'s smaller queues
    // leave room for it, so both placements run here.
    let graph = bfs_tests::generated("grid:1200x1000:0.05", 23);
    for variant in [Variant::SmallFrontier, Variant::Auto] {
        let mut search = Search::new(&gpu, &graph, variant).unwrap();
        for source in [0, 599_999, 1_199_999] {
            let run = search.run(source).unwrap();
            let context = format!("{variant} from {source}");
            same_levels(&run.result, &cpu::bfs(&graph, source))
                .unwrap_or_else(|error| panic!("{context}: {error}"));
            validate(&graph, &run.result).unwrap_or_else(|error| panic!("{context}: {error}"));
        }
    }
}

#[test]
fn partitioned_search_is_exact_with_partitions_staged_anew() {
    let Some(gpu) = gpu("partitioned_search_is_exact_with_partitions_staged_anew") else {
        return;
    };
    // Partitions of 32 and 96 vertices: far more than blocks, so each
    // search stages its partition, and the wave crosses many boundaries.
    for (spec, seed) in [
        ("grid:300x200:0.05", 31),
        ("kron:12:16", 32),
        ("path:3000", 33),
        ("uniform:20000:30000", 34),
    ] {
        let graph = bfs_tests::generated(spec, seed);
        for partition_size in [32, 96] {
            let mut search = Search::with(&gpu, &graph, Variant::Partitioned, |gpu, graph| {
                Ok(Box::new(Partitioned::with_partition_size(
                    gpu,
                    graph,
                    partition_size,
                )?))
            })
            .unwrap();
            for source in sources(&graph) {
                let run = search.run(source).unwrap();
                let context = format!("{spec}, partitions of {partition_size}, from {source}");
                same_levels(&run.result, &cpu::bfs(&graph, source))
                    .unwrap_or_else(|error| panic!("{context}: {error}"));
                validate(&graph, &run.result).unwrap_or_else(|error| panic!("{context}: {error}"));
                let work = run.work.expect("partitioned reports its work");
                assert_eq!(work.barriers, 0, "{context}");
                assert!(
                    work.edges_examined >= run.result.edges_traversed(&graph),
                    "{context}: fewer edges examined than a level-synchronous search"
                );
            }
        }
    }
}

#[test]
fn a_partition_size_that_is_no_multiple_of_32_is_an_error() {
    let Some(gpu) = gpu("a_partition_size_that_is_no_multiple_of_32_is_an_error") else {
        return;
    };
    let graph = bfs_tests::generated("path:100", 1);
    for partition_size in [0, 33, 1 << 24] {
        let error = Partitioned::with_partition_size(&gpu, &graph, partition_size)
            .err()
            .expect("a bad partition size accepted");
        assert!(error.to_string().contains("partition size"), "{error}");
    }
}

#[test]
fn on_chip_refuses_a_graph_too_large_for_a_cluster_with_the_bytes_it_needs() {
    let Some(gpu) = gpu("on_chip_refuses_a_graph_too_large_for_a_cluster_with_the_bytes_it_needs")
    else {
        return;
    };
    if !gpu.runs(Variant::OnChip) {
        let error = Search::new(&gpu, &bfs_tests::generated("path:100", 1), Variant::OnChip)
            .err()
            .expect("on-chip ran without thread-block clusters");
        assert!(
            error.to_string().contains("thread-block clusters"),
            "{error}"
        );
        return;
    }
    // A million vertices: 12 MB of slots and rows alone, past any cluster.
    let graph = bfs_tests::generated("grid:1000x1000:0.05", 1);
    let error = Search::new(&gpu, &graph, Variant::OnChip)
        .err()
        .expect("on-chip took a graph larger than a cluster's shared memory");
    let message = error.to_string();
    assert!(
        matches!(error, Error::Unsupported(_))
            && message.contains("bytes a block")
            && !message.contains('\n'),
        "{message}"
    );
}

/// Graphs for the variants that contract chains, with their sources (every
/// vertex of a small one): chains and rings; a directed graph (nothing
/// contracted); a path (one chain); a sparse grid and a sparse random graph
/// (chains between junctions); a Kronecker graph (hubs); a grid with nearly
/// half its streets missing (a road-like hierarchy: wide vertices below
/// the core).
fn chain_test_graphs() -> Vec<(String, Csr, Vec<u32>)> {
    let mut graphs = vec![
        (
            "chains and rings".to_string(),
            bfs_tests::chains_and_rings(),
        ),
        (
            "directed".to_string(),
            bfs_tests::directed_random(2000, 6000, 44),
        ),
    ];
    for (spec, seed) in [
        ("path:3000", 41),
        ("grid:60x60:0.3", 42),
        ("uniform:3000:3000", 43),
        ("kron:12:16", 45),
        ("grid:64x64:0.45", 1),
        ("road:3000", 46),
        ("road:3000:0.1", 47),
    ] {
        graphs.push((spec.to_string(), bfs_tests::generated(spec, seed)));
    }
    graphs
        .into_iter()
        .map(|(name, graph)| {
            let every_source = if graph.vertex_count() <= 64 {
                (0..graph.vertex_count()).collect()
            } else {
                sources(&graph)
            };
            (name, graph, every_source)
        })
        .collect()
}

#[test]
fn chain_contracted_is_exact_from_every_source_and_with_overflowing_queues() {
    let Some(gpu) = gpu("chain_contracted_is_exact_from_every_source_and_with_overflowing_queues")
    else {
        return;
    };
    for (name, graph, every_source) in &chain_test_graphs() {
        // Queues as large as fit, and of 2 entries: every larger round
        // then scans the bitmap.
        for queue_capacity in [None, Some(2)] {
            let mut search = Search::with(&gpu, graph, Variant::ChainContracted, |gpu, graph| {
                Ok(Box::new(ChainContracted::with_queue_capacity(
                    gpu,
                    graph,
                    queue_capacity,
                )?))
            })
            .unwrap();
            for &source in every_source {
                let run = search.run(source).unwrap();
                let context = format!("{name}, queues {queue_capacity:?}, from {source}");
                same_levels(&run.result, &cpu::bfs(graph, source))
                    .unwrap_or_else(|error| panic!("{context}: {error}"));
                validate(graph, &run.result).unwrap_or_else(|error| panic!("{context}: {error}"));
                let work = run.work.expect("chain-contracted reports its work");
                assert!(work.barriers >= 1, "{context}: no round");
                assert!(
                    work.edges_examined >= run.result.edges_traversed(graph),
                    "{context}: fewer edges examined than the parents' pass alone"
                );
            }
        }
    }
}

#[test]
fn hierarchy_sweep_is_exact_from_every_source_in_every_placement() {
    let Some(gpu) = gpu("hierarchy_sweep_is_exact_from_every_source_in_every_placement") else {
        return;
    };
    for (name, graph, every_source) in &chain_test_graphs() {
        for placement in [
            Placement::SharedMemory,
            Placement::GlobalMemory,
            Placement::Grid,
        ] {
            let mut search = Search::with(&gpu, graph, Variant::HierarchySweep, |gpu, graph| {
                Ok(Box::new(HierarchySweep::with_placement(
                    gpu, graph, placement,
                )?))
            })
            .unwrap();
            for &source in every_source {
                let run = search.run(source).unwrap();
                let context = format!("{name}, {placement:?}, from {source}");
                same_levels(&run.result, &cpu::bfs(graph, source))
                    .unwrap_or_else(|error| panic!("{context}: {error}"));
                validate(graph, &run.result).unwrap_or_else(|error| panic!("{context}: {error}"));
                let work = run.work.expect("hierarchy-sweep reports its work");
                assert!(
                    work.edges_examined >= run.result.edges_traversed(graph),
                    "{context}: fewer edges examined than the parents' pass alone"
                );
                if name.starts_with("path") {
                    assert!(
                        work.barriers * 100 < run.result.level_count(),
                        "{context}: {} barriers for {} levels",
                        work.barriers,
                        run.result.level_count()
                    );
                }
            }
        }
    }
}

/// A road network whose junctions' distances outgrow one block's shared
/// memory: the sweep goes to the grid, exact from many sources, undirected
/// and with one-way streets.
#[test]
fn hierarchy_sweep_takes_the_grid_past_shared_memory() {
    let Some(gpu) = gpu("hierarchy_sweep_takes_the_grid_past_shared_memory") else {
        return;
    };
    for spec in ["road:64000", "road:24000:0.1"] {
        let graph = bfs_tests::generated(spec, 48);
        let hierarchy = HierarchySweep::build(&graph).unwrap();
        let kept_count = hierarchy.chains.kept_count();
        let placement = Placement::for_hierarchy(&gpu, kept_count);
        if gpu.cooperative_launch() {
            assert_eq!(
                placement,
                Placement::Grid,
                "{spec}: {kept_count} kept vertices"
            );
        }
        let mut search = Search::with(&gpu, &graph, Variant::HierarchySweep, |gpu, graph| {
            Ok(Box::new(HierarchySweep::from_hierarchy(
                gpu, graph, hierarchy, None,
            )?))
        })
        .unwrap();
        for source in sources(&graph) {
            let run = search.run(source).unwrap();
            same_levels(&run.result, &cpu::bfs(&graph, source))
                .unwrap_or_else(|error| panic!("{spec} from {source}: {error}"));
            validate(&graph, &run.result)
                .unwrap_or_else(|error| panic!("{spec} from {source}: {error}"));
        }
    }
}

#[test]
fn auto_runs_direction_optimizing_in_one_launch_below_the_level_by_level_size() {
    let test = "auto_runs_direction_optimizing_in_one_launch_below_the_level_by_level_size";
    let Some(gpu) = gpu(test) else {
        return;
    };
    use bfs::gpu::{LEVEL_BY_LEVEL_LEAST_EDGES, Strategy, strategy_on};
    let graph = bfs_tests::generated("kron:12:16", 1);
    assert!(graph.edge_count() < LEVEL_BY_LEVEL_LEAST_EDGES);
    let expected = if gpu.cooperative_launch() {
        Strategy::DirectionOptimizingInOneLaunch
    } else {
        Strategy::DirectionOptimizing
    };
    assert_eq!(strategy_on(&gpu, &graph), expected);
}

#[test]
fn auto_sweeps_a_hierarchy_where_chains_are_most_of_the_graph() {
    let Some(gpu) = gpu("auto_sweeps_a_hierarchy_where_chains_are_most_of_the_graph") else {
        return;
    };
    use bfs::gpu::{Strategy, strategy_on};
    let path = bfs_tests::generated("path:5000", 1);
    assert_eq!(strategy_on(&gpu, &path), Strategy::HierarchySweep);
    let grid = bfs_tests::generated("grid:200x200:0.05", 1);
    assert_ne!(strategy_on(&gpu, &grid), Strategy::HierarchySweep);
}
