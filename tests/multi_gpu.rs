//! The search over several GPUs (NCCL) against the CPU reference: the same
//! distance on every vertex and valid parents, on one GPU, on every GPU of
//! the machine and on three where there are three, and over 2, 3 and 5
//! ranks sharing one GPU (no NCCL), over many graphs, including graphs
//! with fewer vertices than ranks; two processes on a two-GPU machine
//! (placed by `--rank`, and by Slurm's variables with the id over TCP);
//! a rank killed or failing mid-search, which the others leave with one
//! line; and the one-line errors of bad setups. Without a GPU
//! each test prints `skip: no CUDA device` (and fails instead when
//! `BFS_REQUIRE_GPU` is set).

use std::path::Path;
use std::time::Duration;

use bfs::gpu::{Direction, Gpu, LEVEL_BY_LEVEL};
use bfs::multi::claims::{UNCOUNTED_SLOT_EDGES, region_capacity};
use bfs::multi::delegates::Choice;
use bfs::multi::direction_optimizing::Rank;
use bfs::multi::{self, Ranks, Reach};
use bfs::validate::{same_levels, validate};
use bfs::{Csr, cpu};
use bfs_tests::{REQUIRE_GPU, directed_random, generated, run_bfs, skip, sources, test_graphs};

/// The GPUs of the machine, or `None` after a visible skip where there are none.
fn device_count(test: &str) -> Option<u32> {
    match Gpu::device_count() {
        Ok(count) if count > 0 => Some(count),
        _ if std::env::var_os(REQUIRE_GPU).is_some() => {
            panic!("{test}: the GPU is required but the driver sees none")
        }
        _ => {
            skip(test, "no CUDA device");
            None
        }
    }
}

/// Whether this host has two GPUs for `test`, whose two ranks need one
/// each; it skips (or, where the GPU is required, fails) where not.
fn two_gpus(test: &str) -> bool {
    match device_count(test) {
        Some(devices) if devices >= 2 => true,
        Some(_) => {
            skip(test, "one GPU: two ranks need two");
            false
        }
        None => false,
    }
}

/// The ranks to test on `devices` GPUs: one, two, three (an uneven
/// split) and all, as many as there are; and 2, 3 and 5 ranks sharing
/// one GPU, the logic over several ranks on any machine, each with the
/// claims and frontier words sent by collectives (as processes do) and
/// read where the other ranks wrote them (as threads on GPUs that reach
/// each other do).
fn rank_setups(devices: u32) -> Vec<Ranks> {
    let mut counts = vec![1, 2, 3, devices];
    counts.retain(|&count| count <= devices);
    counts.dedup();
    let shared = [2, 3, 5].into_iter().flat_map(|count| {
        [Reach::Collectives, Reach::PeerMemory].map(|reach| Ranks::SharedGpu(count, reach))
    });
    counts
        .into_iter()
        .map(Ranks::Threads)
        .chain(shared)
        .collect()
}

/// The direction of each level of a search whose levels are `levels`, by
/// gapbs's rule at the search over GPUs' α: what the ranks decide when
/// their counts of each next frontier and its edges over every rank are
/// right.
fn gapbs_directions(graph: &Csr, levels: &[u32]) -> Vec<Direction> {
    let level_count = levels
        .iter()
        .filter(|&&level| level != bfs::UNREACHED)
        .max()
        .map_or(0, |&last| last + 1);
    let (mut frontier_vertices, mut frontier_edges) = (
        vec![0u64; level_count as usize + 1],
        vec![0u64; level_count as usize + 1],
    );
    for (vertex, &level) in levels.iter().enumerate() {
        if level != bfs::UNREACHED {
            frontier_vertices[level as usize] += 1;
            frontier_edges[level as usize] += graph.degree(vertex as u32) as u64;
        }
    }
    let n = graph.vertex_count() as u64;
    let mut edges_to_check = graph.edge_count();
    let mut scout_count = frontier_edges[0];
    let mut directions = Vec::new();
    let mut level = 0;
    while level < level_count {
        if graph.is_symmetric() && LEVEL_BY_LEVEL.goes_bottom_up(scout_count, edges_to_check) {
            loop {
                directions.push(Direction::BottomUp);
                let (previous, awake) = (
                    frontier_vertices[level as usize],
                    frontier_vertices[level as usize + 1],
                );
                level += 1;
                if awake == 0 || !LEVEL_BY_LEVEL.stays_bottom_up(awake, previous, n) {
                    break;
                }
            }
            scout_count = 1;
        } else {
            edges_to_check = edges_to_check.saturating_sub(scout_count);
            directions.push(Direction::TopDown);
            level += 1;
            scout_count = frontier_edges[level as usize];
        }
    }
    directions
}

/// Searches `graph` from `sources` over `ranks` (claim regions of
/// `region_pairs` pairs, or the default) and checks each result against
/// the CPU reference and the Graph500 rules, each level's direction against
/// [`gapbs_directions`], and what rank 0 received each level: the whole
/// frontier bitmap bottom-up; top-down, the claims the other ranks sent
/// it, 8 bytes each, exactly the other ranks' frontier edges where every
/// rank's are few and the claims are sent (their room, uncounted), else
/// at most those edges and at least one for each of its vertices that
/// only another rank reached, and nothing on one rank; where the ranks
/// read the bottom-up frontiers in place, no claim of a vertex those
/// frontiers held. Returns the most rounds a level ran.
fn assert_exact(
    name: &str,
    graph: &Csr,
    setup: &Ranks,
    sources: &[u32],
    region_pairs: Option<u32>,
) -> u32 {
    let ranks = match setup {
        Ranks::Threads(count) | Ranks::SharedGpu(count, _) => *count,
        Ranks::Process { .. } => unreachable!("the tests run ranks as threads"),
    };
    // Where the ranks read their claims in place, only what was claimed
    // is read; sent, the claims take their room.
    let in_place = match setup {
        Ranks::SharedGpu(_, reach) => *reach == Reach::PeerMemory,
        Ranks::Threads(count) => *count > 1 && multi::peer_access::between_all(*count).unwrap(),
        Ranks::Process { .. } => false,
    };
    let capacity = region_pairs.unwrap_or_else(|| region_capacity(graph.vertex_count())) as u64;
    let ranges = multi::partition::edge_balanced(graph, ranks);
    let mut runs = Vec::new();
    let timeout = Duration::from_secs(60);
    multi::search_with_regions(graph, setup, sources, timeout, region_pairs, &mut |run| {
        runs.push(run);
        Ok(())
    })
    .unwrap_or_else(|error| panic!("{name} over {setup:?}: {error}"));
    assert_eq!(runs.len(), sources.len(), "{name}: one result a source");
    let mut most_rounds = 0;
    for (run, &source) in runs.iter().zip(sources) {
        let context = format!("{name} over {setup:?} from {source}");
        assert_eq!(run.result.source, source, "{context}");
        same_levels(&run.result, &cpu::bfs(graph, source))
            .unwrap_or_else(|error| panic!("{context}: {error}"));
        validate(graph, &run.result).unwrap_or_else(|error| panic!("{context}: {error}"));
        assert_eq!(
            run.memory.len(),
            ranks as usize,
            "{context}: every rank's memory"
        );
        let directions: Vec<_> = run.steps.iter().filter_map(|step| step.direction).collect();
        assert_eq!(
            directions,
            gapbs_directions(graph, &run.result.levels),
            "{context}: the levels' directions"
        );
        assert_eq!(
            run.steps.len() as u32,
            run.result.level_count(),
            "{context}: a step a level"
        );
        let bitmap_bytes = 4 * graph.vertex_count().div_ceil(32).max(1) as u64;
        // Each rank's frontier at `level`: its vertices and their edges.
        let frontier_by_rank = |level: u32| -> Vec<(u64, u64)> {
            ranges
                .iter()
                .map(|range| {
                    range
                        .clone()
                        .filter(|&vertex| run.result.levels[vertex as usize] == level)
                        .fold((0, 0), |(vertices, edges), vertex| {
                            (vertices + 1, edges + graph.degree(vertex) as u64)
                        })
                })
                .collect()
        };
        let bitmap_words = graph.vertex_count().div_ceil(32) as u64;
        // The hubs whose lists every rank walks its piece of: what they
        // reach, no rank claims.
        let delegates = match ranks {
            1 => Choice::none(),
            _ => Choice::of(graph),
        };
        let delegated = |vertex: u32| delegates.index_of(vertex).is_some();
        // Rank 0's vertices found at `level + 1` that no edge from its own
        // frontier nor from a delegate of the frontier reaches: another
        // rank's claims brought each of them.
        let claimed_for_rank_0 = |level: u32| -> u64 {
            let levels = &run.result.levels;
            let mut reached_here = vec![false; graph.vertex_count() as usize];
            let delegates_at_level = delegates.ids.iter().copied();
            let delegates_at_level = delegates_at_level.filter(|&v| levels[v as usize] == level);
            let own = ranges[0].clone().filter(|&v| levels[v as usize] == level);
            for vertex in own.chain(delegates_at_level) {
                for &neighbour in graph.neighbours(vertex) {
                    reached_here[neighbour as usize] = true;
                }
            }
            ranges[0]
                .clone()
                .filter(|&v| levels[v as usize] == level + 1 && !reached_here[v as usize])
                .count() as u64
        };
        // Claims for rank 0 that the other ranks may send at `level`: the
        // vertices of rank 0 their frontier reaches, but for delegates',
        // each once a sender, but none of a level in `seen` (frontiers
        // every rank read).
        let unseen_for_rank_0 = |level: u32, seen: &[u32]| -> u64 {
            let levels = &run.result.levels;
            let mut claims = 0;
            for range in &ranges[1..] {
                let mut claimed = vec![false; graph.vertex_count() as usize];
                let frontier = range.clone().filter(|&v| levels[v as usize] == level);
                for vertex in frontier.filter(|&v| !delegated(v)) {
                    for &neighbour in graph.neighbours(vertex) {
                        let unseen = !seen.contains(&levels[neighbour as usize]);
                        if ranges[0].contains(&neighbour) && unseen && !claimed[neighbour as usize]
                        {
                            claimed[neighbour as usize] = true;
                            claims += 1;
                        }
                    }
                }
            }
            claims
        };
        // The levels whose frontier every rank read in place (bottom-up,
        // not gathered by a collective): visited on every rank since.
        let mut read_in_place = Vec::new();
        for (index, step) in run.steps.iter().enumerate() {
            let level = step.first_level;
            // A bottom-up level after a top-down one (or the source) sends
            // the queues where the frontier has fewer vertices than the
            // bitmap has words; rank 0 receives the others'.
            let fresh_from_queues =
                index == 0 || run.steps[index - 1].direction == Some(Direction::TopDown);
            let (vertices, edges): (Vec<u64>, Vec<u64>) =
                frontier_by_rank(level).into_iter().unzip();
            let exchange = step
                .exchange
                .unwrap_or_else(|| panic!("{context}: level {level} has no exchange"));
            let direction = step
                .direction
                .unwrap_or_else(|| panic!("{context}: level {level} has no direction"));
            let others: u64 = edges[1..].iter().sum();
            let uncounted = edges
                .iter()
                .all(|&edges| edges <= UNCOUNTED_SLOT_EDGES.min(capacity));
            most_rounds = most_rounds.max(exchange.rounds);
            let queues = fresh_from_queues && vertices.iter().sum::<u64>() < bitmap_words;
            let expected = match direction {
                Direction::BottomUp if queues => {
                    exchange.bytes == 4 * vertices[1..].iter().sum::<u64>()
                }
                Direction::BottomUp => exchange.bytes == bitmap_bytes,
                Direction::TopDown if ranks == 1 => exchange.bytes == 0,
                Direction::TopDown if uncounted && !in_place => exchange.bytes == 8 * others,
                Direction::TopDown => {
                    exchange.bytes % 8 == 0
                        && exchange.bytes <= 8 * others
                        && exchange.bytes >= 8 * claimed_for_rank_0(level)
                        && (!in_place
                            || exchange.bytes <= 8 * unseen_for_rank_0(level, &read_in_place))
                }
            };
            // A bottom-up level fresh from a top-down one with a frontier
            // too large for queues gathers it by a collective.
            if direction == Direction::BottomUp && in_place && (queues || !fresh_from_queues) {
                read_in_place.push(level);
            }
            assert!(
                expected,
                "{context}: {} level {level} received {} bytes; the ranks' frontier edges are {edges:?}, the bitmap {bitmap_bytes} bytes",
                direction.name(),
                exchange.bytes
            );
        }
    }
    most_rounds
}

#[test]
fn several_gpus_give_the_cpu_distances_on_every_test_graph() {
    let test = "several_gpus_give_the_cpu_distances_on_every_test_graph";
    let Some(devices) = device_count(test) else {
        return;
    };
    // Hubs past `hub_chunks::CHUNK_EDGES` edges, expanded in chunks.
    let hubs = [
        ("gen:star:20000".to_string(), generated("star:20000", 1)),
        ("gen:kron:16:32".to_string(), generated("kron:16:32", 2)),
    ];
    for (name, graph) in test_graphs().into_iter().chain(hubs) {
        for setup in rank_setups(devices) {
            assert_exact(&name, &graph, &setup, &sources(&graph), None);
        }
    }
}

#[test]
fn several_gpus_give_the_cpu_distances_on_random_graphs_small_and_large() {
    let test = "several_gpus_give_the_cpu_distances_on_random_graphs_small_and_large";
    let Some(devices) = device_count(test) else {
        return;
    };
    // Sizes from fewer vertices than GPUs to more than one bitmap word per
    // rank, shapes from sparse to scale-free, undirected and directed.
    let mut state = 0x5eed_u64;
    let mut next = |bound: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % bound
    };
    for case in 0..24u64 {
        let vertices = [1, 2, 3, 31, 33, 64, 100, 1000, 5000][next(9) as usize];
        let edges = next(4 * vertices + 1);
        let graph = match case % 4 {
            0 => generated(&format!("uniform:{vertices}:{edges}"), case),
            1 => generated(&format!("kron:{}:8", 1 + next(12)), case),
            2 => generated(&format!("grid:{}x{}:0.2", 1 + next(60), 1 + next(60)), case),
            _ => directed_random(vertices as u32, edges as u32, case),
        };
        let name = format!("random graph {case} ({} vertices)", graph.vertex_count());
        let sources: Vec<u32> = (0..3)
            .map(|_| next(graph.vertex_count() as u64) as u32)
            .collect();
        for setup in rank_setups(devices) {
            assert_exact(&name, &graph, &setup, &sources, None);
        }
    }
}

#[test]
fn claims_past_a_regions_room_go_in_further_rounds() {
    let test = "claims_past_a_regions_room_go_in_further_rounds";
    let Some(devices) = device_count(test) else {
        return;
    };
    // Regions of a few pairs: most top-down levels overrun them, give
    // their claims' bits back and run again.
    let graphs = [
        ("gen:kron:14:16", generated("kron:14:16", 3)),
        ("gen:grid:60x60:0.1", generated("grid:60x60:0.1", 4)),
        ("a directed random graph", directed_random(3000, 12000, 5)),
    ];
    for (name, graph) in graphs {
        for setup in rank_setups(devices).into_iter().skip(1) {
            for pairs in [1, 7] {
                let rounds = assert_exact(name, &graph, &setup, &sources(&graph), Some(pairs));
                if pairs == 1 {
                    assert!(
                        rounds > 1,
                        "{name} over {setup:?}: regions of one pair, yet no level ran a second round"
                    );
                }
            }
        }
    }
}

#[test]
fn a_ranks_memory_shrinks_as_ranks_are_added() {
    // Device bytes only: no GPU needed. On one rank the search holds the
    // whole graph; on four each rank holds its share of the rows plus
    // bitmaps and claim regions, far below the replicated labels,
    // degrees and claims of every vertex (65 bytes a vertex) it held before.
    let graph = generated("kron:16:16", 6);
    let n = graph.vertex_count() as u64;
    let capacity = region_capacity(graph.vertex_count());
    let one = Rank::device_bytes(
        &graph,
        &multi::partition::edge_balanced(&graph, 1),
        0,
        capacity,
    );
    for parts in [2u32, 4] {
        let ranges = multi::partition::edge_balanced(&graph, parts);
        for rank in 0..parts {
            let bytes = Rank::device_bytes(&graph, &ranges, rank, capacity);
            let range = &ranges[rank as usize];
            let offsets = graph.row_offsets();
            let share = 4 * (offsets[range.end as usize] - offsets[range.start as usize])
                + 8 * range.len() as u64;
            // Rows, columns, labels, queues and hub chunks of its own
            // vertices; bitmaps and claim regions over every vertex.
            let allowance = 2 * share + 3 * n / 8 + parts as u64 * n + (4 << 20);
            assert!(
                bytes <= allowance && bytes < one,
                "rank {rank} of {parts}: {bytes} bytes (one rank: {one}, its share {share})"
            );
        }
    }
}

#[test]
fn two_processes_on_two_gpus_search_together() {
    let test = "two_processes_on_two_gpus_search_together";
    if !two_gpus(test) {
        return;
    }
    let folder = bfs_tests::temporary_folder(test);
    let id_file = folder.join("nccl-id");
    let id_file = id_file.to_str().expect("a UTF-8 path");
    let rank = |rank: &str| {
        bfs_tests::unplaced_bfs()
            .args(["--graph", "gen:kron:14:16", "--sources", "8", "--verify"])
            .args(["--rank", rank, "--ranks", "2", "--nccl-id-file", id_file])
            .output()
            .expect("running bfs")
    };
    // Rank 1 starts 3 s late, after rank 0 has written the id: a rank
    // slower to start or to load than rank 0 still takes it.
    let [first, _] = two_ranks("0", rank);
    assert!(
        !Path::new(id_file).exists(),
        "rank 0 removes the id file once all joined"
    );
    assert!(
        first.contains("verify:    pass for every source"),
        "{first}"
    );
    assert!(first.contains("2 × "), "{first}");
}

/// Starts rank `early` of two (`rank` runs one), and the other 3 s later;
/// returns what rank 0 and rank 1 printed, once both have succeeded.
fn two_ranks(early: &str, rank: impl Fn(&str) -> std::process::Output + Sync) -> [String; 2] {
    let late = if early == "0" { "1" } else { "0" };
    let outputs = std::thread::scope(|scope| {
        let early = scope.spawn(|| rank(early));
        std::thread::sleep(Duration::from_secs(3));
        let late = scope.spawn(|| rank(late));
        [early.join().unwrap(), late.join().unwrap()]
    });
    let [zero, one] = if early == "0" {
        outputs
    } else {
        let [one, zero] = outputs;
        [zero, one]
    };
    [zero, one].map(|output| {
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "a rank: {text}");
        text
    })
}

#[test]
fn two_processes_placed_by_slurm_pass_the_id_over_tcp() {
    let test = "two_processes_placed_by_slurm_pass_the_id_over_tcp";
    if !two_gpus(test) {
        return;
    }
    // The ranks run in a folder of their own, where an id file would land.
    let folder = bfs_tests::temporary_folder(test);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
        .to_string();
    let rank = |rank: &str| {
        bfs_tests::unplaced_bfs()
            .current_dir(&folder)
            .args(["--graph", "gen:kron:14:16", "--sources", "8", "--verify"])
            .envs([
                ("SLURM_PROCID", rank),
                ("SLURM_NTASKS", "2"),
                ("SLURM_LOCALID", rank),
                ("BFS_MASTER_ADDR", "127.0.0.1"),
                ("BFS_MASTER_PORT", &port),
            ])
            .output()
            .expect("running bfs")
    };
    // Rank 1 starts 3 s before rank 0 listens: it tries again until then.
    let [first, second] = two_ranks("1", rank);
    assert!(
        first.contains("over 2 processes through NCCL, one GPU each; this is rank 0")
            && first.contains("verify:    pass for every source")
            && first.contains("2 × "),
        "{first}"
    );
    assert!(second.contains("rank done: 8 searches"), "{second}");
    let left: Vec<_> = std::fs::read_dir(&folder).unwrap().collect();
    assert!(left.is_empty(), "no id file: {left:?}");
}

/// A child process killed when dropped, so that a failed test leaves none.
struct KilledOnDrop(std::process::Child);

impl Drop for KilledOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        // Reaped if it ends soon; a process the driver holds a while longer
        // does not hold the test.
        for _ in 0..100 {
            if !matches!(self.0.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// How a rank of two processes stops mid-search, in the tests of how the
/// other leaves.
#[derive(Clone, Copy, Debug)]
enum Stop {
    /// The rank is killed by SIGKILL three seconds into the searches.
    Killed(u32),
    /// The rank fails on an error of its own (`BFS_FAIL_RANK`).
    Fails(u32),
}

/// Two processes on two GPUs search many sources of a Kronecker graph
/// (seconds of searches, each a few milliseconds long, so the stop comes
/// mid-search) until one stops as `stop` says; the other must exit
/// non-zero within `--join-timeout` + 5 s of it, with one `error:` line
/// naming the rank that stopped. What the script did, with a
/// smaller graph.
fn the_survivor_leaves_with_one_line(test: &str, stop: Stop) {
    if !two_gpus(test) {
        return;
    }
    let folder = bfs_tests::temporary_folder(test);
    let graph = folder.join("kron.bcsr");
    let generated = run_bfs(&["gen", "kron:21", graph.to_str().expect("a UTF-8 path")]);
    assert_eq!(generated.code, Some(0), "{}", generated.stderr);
    let id_file = folder.join("nccl-id");
    let join_timeout = 10;
    let (stopping, survivor) = match stop {
        Stop::Killed(rank) | Stop::Fails(rank) => (rank, 1 - rank),
    };
    let output_of = |rank: u32| folder.join(format!("rank-{rank}.txt"));
    let start = |rank: u32| {
        let output = std::fs::File::create(output_of(rank)).expect("an output file");
        let mut command = bfs_tests::unplaced_bfs();
        command
            .arg("--graph")
            .arg(&graph)
            .args(["--sources", "20000", "--join-timeout"])
            .arg(join_timeout.to_string())
            .args([
                "--rank",
                &rank.to_string(),
                "--ranks",
                "2",
                "--nccl-id-file",
            ])
            .arg(&id_file)
            .env("CUDA_VISIBLE_DEVICES", rank.to_string())
            .stdout(output.try_clone().expect("a second handle"))
            .stderr(output);
        if let Stop::Fails(failing) = stop
            && failing == rank
        {
            // Its fiftieth search, a level in.
            command.env(multi::injected_failure::VARIABLE, format!("{rank}:50:1"));
        }
        // Neither outlives the test, however it ends.
        KilledOnDrop(command.spawn().expect("starting bfs"))
    };
    let (first, second) = (start(0), start(1));
    let started = std::time::Instant::now();
    // Rank 0 prints its plan as the ranks join; the searches follow.
    let planned = || std::fs::read_to_string(output_of(0)).is_ok_and(|text| text.contains("plan:"));
    while !planned() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no plan line within 120 s: {:?}",
            std::fs::read_to_string(output_of(0))
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let (mut stopping_process, mut surviving_process) = match stopping {
        0 => (first, second),
        _ => (second, first),
    };
    let stopped = match stop {
        Stop::Killed(_) => {
            std::thread::sleep(Duration::from_secs(3));
            stopping_process.0.kill().expect("killing the rank");
            std::time::Instant::now()
        }
        Stop::Fails(_) => {
            let status = stopping_process.0.wait().expect("the failing rank ends");
            assert!(!status.success(), "the failing rank exits non-zero");
            std::time::Instant::now()
        }
    };
    let deadline = Duration::from_secs(join_timeout + 20);
    while surviving_process
        .0
        .try_wait()
        .expect("the survivor's state")
        .is_none()
    {
        if stopped.elapsed() > deadline {
            panic!(
                "{stop:?}: rank {survivor} still ran {} s after rank {stopping} stopped: {}",
                deadline.as_secs(),
                std::fs::read_to_string(output_of(survivor)).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let waited = stopped.elapsed();
    let status = surviving_process.0.wait().expect("the survivor's status");
    let output = std::fs::read_to_string(output_of(survivor)).expect("its output");
    let errors: Vec<&str> = output
        .lines()
        .filter(|line| line.starts_with("error"))
        .collect();
    assert_eq!(status.code(), Some(1), "{stop:?}: {output}");
    assert_eq!(errors.len(), 1, "{stop:?}: not one error line: {output}");
    assert!(
        errors[0].contains(&format!("rank {stopping}")),
        "{stop:?}: the line names no rank {stopping}: {output}"
    );
    assert!(!output.contains("panicked"), "{output}");
    assert!(
        waited <= Duration::from_secs(join_timeout + 5),
        "{stop:?}: rank {survivor} took {} s to give up",
        waited.as_secs_f64()
    );
    if let Stop::Fails(_) = stop {
        let failed = std::fs::read_to_string(output_of(stopping)).expect("its output");
        assert!(
            failed.contains("failed at level 1 of search 50"),
            "{failed}"
        );
    }
}

#[test]
fn rank_1_killed_mid_search_makes_rank_0_exit_with_one_error_line() {
    the_survivor_leaves_with_one_line(
        "rank_1_killed_mid_search_makes_rank_0_exit_with_one_error_line",
        Stop::Killed(1),
    );
}

#[test]
fn rank_0_killed_mid_search_makes_rank_1_exit_with_one_error_line() {
    the_survivor_leaves_with_one_line(
        "rank_0_killed_mid_search_makes_rank_1_exit_with_one_error_line",
        Stop::Killed(0),
    );
}

#[test]
fn a_process_rank_that_fails_mid_search_makes_the_other_exit_with_one_error_line() {
    the_survivor_leaves_with_one_line(
        "a_process_rank_that_fails_mid_search_makes_the_other_exit_with_one_error_line",
        Stop::Fails(1),
    );
}

/// A rank of `--gpus 2` that fails mid-search (its GPU, as the injected
/// failure stands for) ends the search at once: one `error:` line, its
/// own, well within `--join-timeout`, though the other rank waits in the
/// same level's exchange.
#[test]
fn a_thread_rank_that_fails_mid_search_ends_the_search_with_its_own_line() {
    let test = "a_thread_rank_that_fails_mid_search_ends_the_search_with_its_own_line";
    if !two_gpus(test) {
        return;
    }
    let folder = bfs_tests::temporary_folder(test);
    let graph = folder.join("kron.bcsr");
    let graph = graph.to_str().expect("a UTF-8 path");
    let generated = run_bfs(&["gen", "kron:20", graph]);
    assert_eq!(generated.code, Some(0), "{}", generated.stderr);
    let join_timeout = 10;
    let started = std::time::Instant::now();
    let output = bfs_tests::unplaced_bfs()
        .args(["--graph", graph, "--gpus", "2", "--sources", "2000"])
        .args(["--join-timeout", &join_timeout.to_string()])
        .env(multi::injected_failure::VARIABLE, "1:20:1")
        .output()
        .expect("running bfs");
    let took = started.elapsed();
    let cli = bfs_tests::Cli::from(output);
    cli.assert_one_line_error("rank 1: failed at level 1 of search 20");
    assert!(
        took <= Duration::from_secs(join_timeout + 5),
        "the search took {} s to end",
        took.as_secs_f64()
    );
}

#[test]
fn a_part_beyond_its_gpus_free_memory_is_refused_with_the_bytes() {
    // Holds most of a GPU's memory for the test's length: the suite runs
    // the GPU tests one at a time (`--test-threads=1`).
    let test = "a_part_beyond_its_gpus_free_memory_is_refused_with_the_bytes";
    let Some(devices) = device_count(test) else {
        return;
    };
    let graph = generated("kron:23:16", 8);
    let (needed, message) = refusal_on_a_full_gpu(&graph, 1);
    assert!(
        message.contains(&format!("needs {needed} bytes of device memory"))
            && message.contains("are free")
            && !message.contains('\n'),
        "{message}"
    );
    if devices < 2 {
        return;
    }
    // Over two GPUs of which only the second lacks room: the error is
    // rank 1's own, with its bytes, not rank 0's word that another part
    // does not fit.
    let (needed, message) = refusal_on_a_full_gpu(&graph, 2);
    assert!(
        message.contains("rank 1's part")
            && message.contains(&format!("needs {needed} bytes of device memory")),
        "{message}"
    );
}

/// The error of a search of `graph` over `ranks` GPUs where the last GPU
/// has a little less free memory than its rank needs, and the bytes that
/// rank needs.
fn refusal_on_a_full_gpu(graph: &Csr, ranks: u32) -> (u64, String) {
    let last = ranks - 1;
    let needed = Rank::device_bytes(
        graph,
        &multi::partition::edge_balanced(graph, ranks),
        last,
        region_capacity(graph.vertex_count()),
    );
    // Leave a little less than the rank needs: ranks that are threads
    // check before NCCL joins them, so that NCCL's buffers (hundreds of
    // MB) do not fail first on a GPU this full.
    let gpu = Gpu::open_device(last).expect("the GPU opens");
    let free = gpu.free_memory().expect("free memory");
    let hog = cust::memory::DeviceBuffer::<u8>::zeroed((free - needed + (64 << 20)) as usize)
        .expect("most of the GPU's memory");
    let refused = multi::search(
        graph,
        &Ranks::Threads(ranks),
        &[0],
        Duration::from_secs(60),
        &mut |_| Ok(()),
    )
    .expect_err("the last rank's part does not fit");
    drop(hog);
    (needed, refused.to_string())
}

#[test]
fn bad_multi_gpu_setups_give_one_line_errors() {
    let test = "bad_multi_gpu_setups_give_one_line_errors";
    let Some(devices) = device_count(test) else {
        return;
    };
    let graph = ["--graph", "gen:kron:10:8"];
    let too_many = (devices + 1).to_string();
    run_bfs(&[&graph[..], &["--gpus", &too_many]].concat()).assert_one_line_error(&format!(
        "{too_many} GPUs were asked for; this host has {devices}"
    ));

    let missing = bfs_tests::unplaced_bfs()
        .args(graph)
        .args(["--gpus", "1"])
        .env(multi::nccl::LIBRARY_VARIABLE, "/nonexistent/libnccl.so.2")
        .output()
        .expect("running bfs");
    bfs_tests::Cli::from(missing).assert_one_line_error("could not be loaded");

    let folder = bfs_tests::temporary_folder(test);
    let id_file = folder.join("nccl-id");
    let id_file = id_file.to_str().expect("a UTF-8 path");
    let alone = |rank: &str| {
        run_bfs(
            &[
                &graph[..],
                &["--rank", rank, "--ranks", "2", "--nccl-id-file", id_file],
                &["--join-timeout", "2"],
            ]
            .concat(),
        )
    };
    alone("1").assert_one_line_error("rank 0 wrote no NCCL id");
    alone("0").assert_one_line_error("not every one of the 2 ranks joined within 2 s");
}
