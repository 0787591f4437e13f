//! The binaries start on a machine without the NVIDIA driver (issue 58).
//! None names `libcuda.so.1` among the libraries the dynamic loader must
//! find (read from its ELF dynamic section), since the host loads the
//! driver at run time (`bfs::gpu::libcuda`). `bfs` and `cuda-floor` run
//! with an empty environment, no library path, and the driver library
//! pointed at a missing file (`BFS_CUDA_LIBRARY`), so that a machine with
//! a driver tests the same: `bfs` says so once and answers on the CPU, or
//! with `--device gpu` fails with one line.

use std::path::{Path, PathBuf};
use std::process::Command;

use bfs::gpu::libcuda::LIBRARY_VARIABLE;
use bfs_tests::{Cli, bfs_binary, generated, temporary_folder};

/// A driver library that is not there.
const MISSING_DRIVER: &str = "/nonexistent/libcuda.so.1";

/// `SHT_DYNAMIC`, `DT_NULL` and `DT_NEEDED` (the ELF specification).
const DYNAMIC_SECTION: u32 = 6;
const END_OF_DYNAMIC: u64 = 0;
const NEEDED: u64 = 1;

/// The libraries `executable` needs (its `DT_NEEDED` entries), read from
/// its dynamic section: ELF64, little-endian, as the Linux targets built
/// here are.
fn needed_libraries(executable: &Path) -> Vec<String> {
    let bytes = std::fs::read(executable)
        .unwrap_or_else(|error| panic!("reading {}: {error}", executable.display()));
    assert!(
        bytes.starts_with(b"\x7fELF") && bytes[4] == 2 && bytes[5] == 1,
        "{} is not a 64-bit little-endian ELF file",
        executable.display()
    );
    let field = |at: usize, width: usize| {
        let mut value = [0u8; 8];
        value[..width].copy_from_slice(&bytes[at..at + width]);
        u64::from_le_bytes(value) as usize
    };
    let (headers, header_bytes, sections) = (field(0x28, 8), field(0x3a, 2), field(0x3c, 2));
    let header = |index: usize| headers + index * header_bytes;
    let dynamic = (0..sections)
        .map(header)
        .find(|&at| field(at + 4, 4) == DYNAMIC_SECTION as usize)
        .unwrap_or_else(|| panic!("{} has no dynamic section", executable.display()));
    let strings = field(header(field(dynamic + 40, 4)) + 24, 8);
    let (entries, size) = (field(dynamic + 24, 8), field(dynamic + 32, 8));
    (entries..entries + size)
        .step_by(16)
        .map(|at| (field(at, 8) as u64, field(at + 8, 8)))
        .take_while(|&(tag, _)| tag != END_OF_DYNAMIC)
        .filter(|&(tag, _)| tag == NEEDED)
        .map(|(_, name)| {
            let name = &bytes[strings + name..];
            let end = name.iter().position(|&byte| byte == 0).expect("a C string");
            String::from_utf8_lossy(&name[..end]).into_owned()
        })
        .collect()
}

/// `cuda-floor`, built beside `bfs`.
fn cuda_floor() -> PathBuf {
    let floor = bfs_binary().with_file_name("cuda-floor");
    assert!(
        floor.exists(),
        "{} is missing: build it (cargo build --bins; cargo xtask test does)",
        floor.display()
    );
    floor
}

/// `program` run with `arguments`, an empty environment, and the driver
/// library missing.
fn without_driver(program: &Path, arguments: &[&str]) -> Cli {
    Command::new(program)
        .args(arguments)
        .env_clear()
        .env(LIBRARY_VARIABLE, MISSING_DRIVER)
        .output()
        .expect("running the program")
        .into()
}

#[test]
fn no_executable_needs_the_driver_library() {
    let test = std::env::current_exe().expect("the test executable's path");
    for executable in [bfs_binary(), cuda_floor(), test] {
        let needed = needed_libraries(&executable);
        // The reader read: every executable here needs the C library.
        assert!(
            needed.iter().any(|name| name.starts_with("libc.so")),
            "{}: {needed:?}",
            executable.display()
        );
        assert!(
            !needed.iter().any(|name| name.starts_with("libcuda")),
            "{} needs {needed:?}: a driver call missing from host/src/gpu/libcuda.rs's list",
            executable.display()
        );
    }
}

#[test]
fn without_the_driver_bfs_says_so_once_and_searches_on_the_cpu() {
    let levels = temporary_folder("no-driver").join("levels.txt");
    let run = without_driver(
        &bfs_binary(),
        &[
            "--graph",
            "gen:grid:20x20:0",
            "--source",
            "21",
            "--verify",
            "--output",
            levels.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let notes: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(notes.len(), 1, "one line, the note: {}", run.stderr);
    assert!(
        notes[0].starts_with("note: no CUDA device (the NVIDIA driver could not be loaded: ")
            && notes[0].contains(MISSING_DRIVER)
            && notes[0].ends_with("running on the CPU instead"),
        "{}",
        notes[0]
    );
    assert!(
        run.stdout
            .contains("device:    CPU (direction-optimizing BFS")
            && run.stdout.contains("verify:    pass"),
        "{}",
        run.stdout
    );
    let expected = bfs::cpu::bfs(&generated("grid:20x20:0", 1), 21).levels;
    let written: Vec<u32> = std::fs::read_to_string(&levels)
        .unwrap()
        .lines()
        .map(|line| line.parse().expect("a level a line"))
        .collect();
    assert_eq!(written, expected);
}

#[test]
fn without_the_driver_a_gpu_asked_for_is_one_error_line() {
    let runs = [
        (
            bfs_binary(),
            &["--graph", "gen:path:10", "--device", "gpu"][..],
        ),
        (cuda_floor(), &[]),
    ];
    for (program, arguments) in runs {
        let run = without_driver(&program, arguments);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        run.assert_one_line_error(&format!(
            "no CUDA device: the NVIDIA driver could not be loaded: {MISSING_DRIVER}"
        ));
    }
}

#[test]
fn bfs_starts_with_an_empty_environment() {
    let run: Cli = Command::new(bfs_binary())
        .args(["--graph", "gen:path:10", "--source", "0"])
        .env_clear()
        .output()
        .expect("running bfs")
        .into();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains("levels:    10") && run.stdout.contains("reached:   10 of 10"),
        "{}",
        run.stdout
    );
}
