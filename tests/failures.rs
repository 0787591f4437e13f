//! Every failure path ends in one clear `error: …` line and a non-zero exit,
//! never a panic, a wrong answer or a clobbered output file. Each runs the
//! `bfs` binary in its own process (a kernel that traps leaves its CUDA
//! context unusable), except the device-memory check, which fills the GPU.

use bfs::gpu::{KERNELS_PTX, Search, Variant};
use bfs::{Error, abi};
use bfs_tests::{generated, gpu, run_bfs, temporary_folder};

#[test]
fn bad_input_gives_one_line_errors() {
    let folder = temporary_folder("bad-input");
    let malformed = folder.join("malformed.mtx");
    std::fs::write(
        &malformed,
        "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 zz\n",
    )
    .unwrap();
    let malformed = malformed.to_str().unwrap();
    let missing = folder.join("missing.mtx");
    let missing = missing.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--graph", missing, "--device", "cpu"], "missing.mtx"),
        (
            &["--graph", malformed, "--device", "cpu"],
            "malformed.mtx:4:",
        ),
        (
            &[
                "--graph",
                "gen:path:10",
                "--source",
                "-1",
                "--device",
                "cpu",
            ],
            "source -1 is out of range",
        ),
        (
            &[
                "--graph",
                "gen:path:10",
                "--source",
                "10",
                "--device",
                "cpu",
            ],
            "source 10 is out of range",
        ),
        (&["--graph", "gen:cube:3"], "bad generator"),
        (&["--graph", "gen:path:0"], "'path:0': N must be at least 1"),
        (
            &["--graph", "gen:grid:0x5"],
            "width and height must be at least 1",
        ),
        (&["--variant", "fastest"], "unknown variant"),
        (
            &["--graph", "gen:path:10", "--partition-size", "64"],
            "--partition-size goes with --variant partitioned",
        ),
        (&["--frobnicate"], "unexpected argument"),
        (
            &[
                "--graph",
                "gen:path:10",
                "--ptx",
                missing,
                "--device",
                "gpu",
            ],
            "missing.mtx",
        ),
    ];
    for (arguments, expected) in cases {
        run_bfs(arguments).assert_one_line_error(expected);
    }
}

/// Environment variables: names and values.
type Variables<'a> = &'a [(&'a str, &'a str)];

/// `bfs` run with `arguments` and, of the variables that place a rank,
/// only `variables`.
fn placed_by(variables: Variables, arguments: &[&str]) -> bfs_tests::Cli {
    bfs_tests::unplaced_bfs()
        .args(["--graph", "gen:path:10"])
        .args(arguments)
        .envs(variables.iter().copied())
        .output()
        .expect("running bfs")
        .into()
}

#[test]
fn launcher_variables_that_cannot_place_a_rank_give_one_line_errors() {
    let slurm = [("SLURM_PROCID", "1"), ("SLURM_NTASKS", "2")];
    let cases: &[(Variables, &[&str], &str)] = &[
        (
            &[("SLURM_PROCID", "2"), ("SLURM_NTASKS", "2")],
            &[],
            "SLURM_PROCID=2 but SLURM_NTASKS=2: ranks are numbered 0 to 1",
        ),
        (
            &[
                ("OMPI_COMM_WORLD_RANK", "one"),
                ("OMPI_COMM_WORLD_SIZE", "2"),
            ],
            &[],
            "OMPI_COMM_WORLD_RANK=\"one\" is not a rank",
        ),
        (
            &[("PMI_RANK", "1")],
            &[],
            "PMI_RANK is set but PMI_SIZE is not",
        ),
        (
            &[
                ("OMPI_COMM_WORLD_RANK", "0"),
                ("OMPI_COMM_WORLD_SIZE", "2"),
                ("PMI_RANK", "1"),
                ("PMI_SIZE", "2"),
            ],
            &[],
            "disagree with PMI's PMI_RANK=1 and PMI_SIZE=2",
        ),
        (
            &slurm,
            &["--rank", "0", "--ranks", "2"],
            "--rank 0 --ranks 2 disagree with Slurm's SLURM_PROCID=1 and SLURM_NTASKS=2",
        ),
        (
            &slurm,
            &["--device", "cpu"],
            "rank 1 of a search over 2 processes, which takes no --device",
        ),
        (
            &[&slurm[..], &[("BFS_MASTER_ADDR", "127.0.0.1")]].concat(),
            &[],
            "--master-addr (BFS_MASTER_ADDR) is given, but no --master-port",
        ),
        (
            &[&slurm[..], &[("BFS_MASTER_PORT", "0")]].concat(),
            &[],
            "--master-port",
        ),
    ];
    for (variables, arguments, expected) in cases {
        placed_by(variables, arguments).assert_one_line_error(expected);
    }
    // A launcher of one process leaves an ordinary run.
    let alone = placed_by(
        &[("SLURM_PROCID", "0"), ("SLURM_NTASKS", "1")],
        &["--device", "cpu"],
    );
    assert_eq!(alone.code, Some(0), "{}", alone.stderr);
    assert!(alone.stdout.contains("levels:    10"), "{}", alone.stdout);
}

#[test]
fn a_failed_run_leaves_an_existing_output_file_alone() {
    let output = temporary_folder("kept-output").join("levels.txt");
    std::fs::write(&output, "keep me\n").unwrap();
    let output = output.to_str().unwrap();
    run_bfs(&[
        "--graph",
        "gen:path:10",
        "--source",
        "99",
        "--device",
        "cpu",
        "--output",
        output,
    ])
    .assert_one_line_error("out of range");
    assert_eq!(std::fs::read_to_string(output).unwrap(), "keep me\n");
}

#[test]
fn a_generated_graph_past_the_host_memory_is_refused_before_it_is_generated() {
    // Were their sizes not checked first, the first would abort on its
    // edge list and the others count edges for hours.
    for graph in [
        "gen:star:4000000000",
        "gen:uniform:1000:1000000000000",
        "gen:hub:10:1000000000000",
        "gen:road:4000000000",
    ] {
        bfs_tests::unplaced_bfs()
            .args(["--graph", graph, "--device", "cpu", "--load-only"])
            .env("BFS_HOST_MEMORY", "16G")
            .output()
            .map(bfs_tests::Cli::from)
            .expect("running bfs")
            .assert_one_line_error("of host memory to build, 17179 MB are available");
    }
}

#[test]
fn an_output_that_names_the_graph_or_another_output_is_refused_and_the_graph_kept() {
    let folder = temporary_folder("outputs-onto-inputs");
    let graph = folder.join("graph.mtx");
    let text = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n1 2\n2 3\n";
    std::fs::write(&graph, text).unwrap();
    let link = folder.join("link.mtx");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&graph, &link).unwrap();
    let (graph, link) = (graph.to_str().unwrap(), link.to_str().unwrap());
    let twice = folder.join("twice.txt");
    let twice = twice.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--output", graph], "that is the graph file being read"),
        (&["--parents", link], "that is the graph file being read"),
        (
            &["--output", twice, "--json", twice],
            "--output and --json name one file",
        ),
        (
            &["centrality", "--measure", "closeness", "--output", link],
            "that is the graph file being read",
        ),
        (
            &["components", "--output", graph],
            "that is the graph file being read",
        ),
    ];
    for (arguments, expected) in cases {
        let (command, options) = match arguments[0] {
            "centrality" | "components" => (&arguments[..1], &arguments[1..]),
            _ => (&arguments[..0], &arguments[..]),
        };
        let mut all = command.to_vec();
        all.extend(["--graph", graph, "--device", "cpu"]);
        all.extend(options);
        run_bfs(&all).assert_one_line_error(expected);
    }
    assert_eq!(std::fs::read_to_string(graph).unwrap(), text);
    assert!(!std::path::Path::new(twice).exists());
}

#[test]
fn the_host_memory_limit_can_be_set_and_is_enforced_with_one_line_errors() {
    let run = |limit: &str| -> bfs_tests::Cli {
        bfs_tests::unplaced_bfs()
            .args(["--graph", "gen:path:1000000", "--device", "cpu-reference"])
            .env("BFS_HOST_MEMORY", limit)
            .output()
            .expect("running bfs")
            .into()
    };
    // The path's row offsets and degree counters take 16 MB, its self-loop
    // counts 4 MB, its edges both ways 8 MB.
    let refused =
        run("1M").assert_one_line_error("28 MB of host memory to build, 1 MB are available");
    assert!(refused.contains("set by BFS_HOST_MEMORY"), "{refused}");
    run("2x").assert_one_line_error("BFS_HOST_MEMORY=2x is not a size");
    for enough in ["1T", "64G", "1000000000"] {
        let allowed = run(enough);
        assert_eq!(allowed.code, Some(0), "{enough}: {}", allowed.stderr);
        assert!(
            allowed.stdout.contains("reached:   1000000 of 1000000"),
            "{}",
            allowed.stdout
        );
    }
}

#[test]
fn ptx_that_fails_to_load_is_a_clear_error() {
    if gpu("ptx_that_fails_to_load_is_a_clear_error").is_none() {
        return;
    }
    let ptx = temporary_folder("broken-ptx").join("broken.ptx");
    std::fs::write(
        &ptx,
        ".version 7.0\n.target sm_75\n.address_size 64\nthis is not PTX\n",
    )
    .unwrap();
    run_bfs(&[
        "--graph",
        "gen:path:10",
        "--device",
        "gpu",
        "--ptx",
        ptx.to_str().unwrap(),
    ])
    .assert_one_line_error("loading the kernels' PTX");
}

#[test]
fn a_kernel_that_faults_names_the_variant_and_level_and_writes_nothing() {
    if gpu("a_kernel_that_faults_names_the_variant_and_level_and_writes_nothing").is_none() {
        return;
    }
    // The real module, with a `trap` at the start of the two-kernel expand kernel.
    let entry = KERNELS_PTX
        .find(&format!(".entry {}(", abi::two_kernel::EXPAND.name()))
        .unwrap();
    let body = entry + KERNELS_PTX[entry..].find("\tld.param").unwrap();
    let trapping = format!("{}\ttrap;\n{}", &KERNELS_PTX[..body], &KERNELS_PTX[body..]);
    let folder = temporary_folder("trap");
    let ptx = folder.join("trap.ptx");
    std::fs::write(&ptx, trapping).unwrap();
    let output = folder.join("levels.txt");
    let run = run_bfs(&[
        "--graph",
        "gen:grid:30x30:0",
        "--device",
        "gpu",
        "--variant",
        "two-kernel",
        "--ptx",
        ptx.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ]);
    run.assert_one_line_error("variant two-kernel, level 0");
    assert!(!output.exists(), "a failed run wrote {}", output.display());
}

#[test]
fn a_graph_larger_than_free_device_memory_is_refused_up_front() {
    let Some(gpu) = gpu("a_graph_larger_than_free_device_memory_is_refused_up_front") else {
        return;
    };
    let graph = generated("uniform:1000000:2000000", 1);
    // Leave 16 MiB free: less than the graph's 20 MB of CSR alone.
    let free = gpu.free_memory().unwrap() as usize;
    let filler = cust::memory::DeviceBuffer::<u8>::zeroed(free - (16 << 20)).unwrap();
    for variant in gpu.variants() {
        let error = Search::new(&gpu, &graph, variant)
            .err()
            .expect("the search fitted");
        let Error::DeviceMemory { needed, free, .. } = error else {
            panic!("{variant}: {error}")
        };
        assert!(needed > free, "{variant}: needed {needed}, free {free}");
        let message = error.to_string();
        assert!(
            message.contains(variant.name()) && message.contains(&needed.to_string()),
            "{message}"
        );
    }
    drop(filler);
    assert!(Search::new(&gpu, &graph, Variant::BlockQueue).is_ok());
}
