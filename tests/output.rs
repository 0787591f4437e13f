//! Output goes where a shell user points it (`--output`, `--parents`,
//! `--json`, `--plot`, `convert`, `gen` all write through `bfs::output`):
//! `-` is standard output; a symbolic link is written through and kept; a
//! FIFO or a device is written in place, never replaced; a write error is
//! one line and a non-zero exit with the old file intact and no temporary
//! left; a closed standard output ends the program quietly.

use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Command;

use bfs_tests::{bfs_binary, run_bfs, skip, temporary_folder};

/// `--graph gen:path:5 --device cpu --source 0`'s distances, one a line.
const PATH_LEVELS: &str = "0\n1\n2\n3\n4\n";

fn search_path_into(output: &Path) -> bfs_tests::Cli {
    run_bfs(&[
        "--graph",
        "gen:path:5",
        "--device",
        "cpu",
        "--output",
        output.to_str().unwrap(),
    ])
}

/// Files in `folder` (a temporary one left behind shows here).
fn entries(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into())
        .collect();
    names.sort();
    names
}

#[test]
fn a_dash_is_standard_output() {
    let run = search_path_into(Path::new("-"));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.ends_with(PATH_LEVELS), "{}", run.stdout);
    let generated = run_bfs(&["gen", "path:3", "-"]);
    assert_eq!(generated.code, Some(0), "{}", generated.stderr);
    assert!(
        generated.stdout.starts_with("%%MatrixMarket"),
        "{}",
        generated.stdout
    );
}

#[test]
fn a_symbolic_link_is_written_through_and_kept() {
    let folder = temporary_folder("symbolic_link");
    let target = folder.join("levels.txt");
    fs::write(&target, "old\n").unwrap();
    let link = folder.join("link.txt");
    std::os::unix::fs::symlink("levels.txt", &link).unwrap();
    let dangling = folder.join("dangling.txt");
    std::os::unix::fs::symlink("new.txt", &dangling).unwrap();
    for (path, written) in [(&link, &target), (&dangling, &folder.join("new.txt"))] {
        let run = search_path_into(path);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert!(fs::symlink_metadata(path).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(written).unwrap(), PATH_LEVELS);
    }
    assert_eq!(
        entries(&folder),
        ["dangling.txt", "levels.txt", "link.txt", "new.txt"]
    );
}

#[test]
fn a_fifo_is_written_in_place() {
    let folder = temporary_folder("fifo");
    let fifo = folder.join("levels.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|status| status.success()) {
        skip("a_fifo_is_written_in_place", "mkfifo failed");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    let run = search_path_into(&fifo);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // Checked before waiting for the reader: a FIFO replaced by a file
    // would leave it waiting for a writer forever.
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(reader.join().unwrap(), PATH_LEVELS);
}

/// A character device node made in `folder` with the numbers of a Linux
/// memory device (`/dev/null` is 1, 3; `/dev/full` is 1, 7), so that no
/// device of the machine's own is at risk; `None` where mknod is refused
/// (not root).
fn device_node(folder: &Path, name: &str, minor: &str) -> Option<std::path::PathBuf> {
    let node = folder.join(name);
    let made = Command::new("mknod")
        .args([node.to_str().unwrap(), "c", "1", minor])
        .status();
    made.is_ok_and(|status| status.success()).then_some(node)
}

#[test]
fn a_device_is_written_in_place_and_a_full_one_is_a_one_line_error() {
    let test = "a_device_is_written_in_place_and_a_full_one_is_a_one_line_error";
    let folder = temporary_folder("device");
    let (Some(null), Some(full)) = (
        device_node(&folder, "null", "3"),
        device_node(&folder, "full", "7"),
    ) else {
        skip(test, "mknod is refused (not root)");
        return;
    };
    let run = search_path_into(&null);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    search_path_into(&full).assert_one_line_error("No space left on device");
    for node in [&null, &full] {
        assert!(fs::metadata(node).unwrap().file_type().is_char_device());
    }
    assert_eq!(entries(&folder), ["full", "null"]);
}

#[test]
fn a_failed_write_keeps_the_old_file_and_leaves_no_temporary() {
    let folder = temporary_folder("failed_write");
    let output = folder.join("levels.txt");
    fs::write(&output, "old\n").unwrap();
    // A file-size limit of one 512-byte block, with SIGXFSZ ignored, makes
    // writing the 20,000 distances fail with EFBIG, as a full disk would.
    let command = format!(
        "trap '' XFSZ; ulimit -f 1; exec '{}' --graph gen:path:20000 --device cpu --output '{}'",
        bfs_binary().display(),
        output.display()
    );
    let run: bfs_tests::Cli = Command::new("sh")
        .args(["-c", &command])
        .output()
        .unwrap()
        .into();
    run.assert_one_line_error("levels.txt");
    assert_eq!(fs::read_to_string(&output).unwrap(), "old\n");
    assert_eq!(entries(&folder), ["levels.txt"]);
}

#[test]
fn a_closed_standard_output_ends_the_program_quietly() {
    for arguments in [
        "--list-variants",
        "--graph gen:path:200000 --device cpu --output -",
    ] {
        let command = format!("'{}' {arguments} | head -1", bfs_binary().display());
        let run: bfs_tests::Cli = Command::new("sh")
            .args(["-c", &command])
            .output()
            .unwrap()
            .into();
        assert_eq!(run.code, Some(0), "{arguments}: {}", run.stderr);
        assert_eq!(run.stdout.lines().count(), 1, "{arguments}");
        assert!(run.stderr.trim().is_empty(), "{arguments}: {}", run.stderr);
    }
}
