//! Matrix Market loading: the formats a graph file may use, and clear,
//! line-numbered errors for malformed ones.

use std::path::PathBuf;

use bfs::graph::{self, matrix_market};
use bfs::{Csr, Error, UNREACHED, output};

fn parse(text: &str) -> Csr {
    matrix_market::parse(text).unwrap_or_else(|(line, message)| panic!("line {line:?}: {message}"))
}

fn adjacency(graph: &Csr) -> Vec<Vec<u32>> {
    (0..graph.vertex_count())
        .map(|vertex| graph.neighbours(vertex).to_vec())
        .collect()
}

/// A file in a fresh temporary folder for this test.
fn temporary(test: &str, name: &str) -> PathBuf {
    bfs_tests::temporary_folder(test).join(name)
}

#[test]
fn symmetric_pattern_files_are_mirrored() {
    let house = parse(include_str!("fixtures/house-pattern-symmetric.mtx"));
    assert_eq!(
        adjacency(&house),
        [
            vec![1, 3],
            vec![0, 2],
            vec![1, 3, 4],
            vec![0, 2, 4],
            vec![2, 3]
        ]
    );
    assert!(house.is_symmetric());
}

#[test]
fn general_files_keep_direction_and_ignore_values_loops_and_duplicates() {
    let arcs = parse(include_str!("fixtures/arcs-real-general.mtx"));
    assert_eq!(adjacency(&arcs), [vec![1], vec![2], vec![0], vec![]]);
}

#[test]
fn skew_symmetric_integer_files_are_mirrored() {
    let graph = parse(include_str!("fixtures/integer-skew.mtx"));
    assert_eq!(adjacency(&graph), [vec![1], vec![0, 2], vec![1]]);
}

#[test]
fn loads_from_a_file_and_searches_it() {
    let path = temporary("loads", "house.mtx");
    std::fs::write(&path, include_str!("fixtures/house-pattern-symmetric.mtx")).unwrap();
    let house = graph::load(&path).unwrap();
    assert_eq!(bfs::cpu::bfs(&house, 0).levels, [0, 1, 2, 1, 2]);
}

#[test]
fn malformed_files_give_one_line_errors() {
    let cases: &[(&str, &str)] = &[
        ("", "first line must start with %%MatrixMarket"),
        ("3 3 1\n1 2\n", "first line must start with %%MatrixMarket"),
        (
            "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
            "coordinate",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n2 3 1\n1 2\n",
            "square",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n",
            "",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n0 2\n",
            "",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 4\n",
            "",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 x\n",
            "",
        ),
        (
            "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2\n",
            "",
        ),
        (
            "%%MatrixMarket matrix coordinate quaternion general\n3 3 1\n1 2 1\n",
            "unsupported field",
        ),
    ];
    for &(text, expected) in cases {
        let Err((_, message)) = matrix_market::parse(text) else {
            panic!("accepted: {text:?}")
        };
        assert!(
            !message.contains('\n'),
            "multi-line message for {text:?}: {message}"
        );
        assert!(message.contains(expected), "{text:?}: {message}");
    }
}

#[test]
fn file_errors_name_the_file_and_line() {
    let path = temporary("errors", "bad.mtx");
    std::fs::write(
        &path,
        "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 zz\n",
    )
    .unwrap();
    let message = graph::load(&path).unwrap_err().to_string();
    assert!(
        message.starts_with(&format!("{}:4:", path.display())),
        "{message}"
    );

    let missing = temporary("errors", "missing.mtx");
    let error = graph::load(&missing).unwrap_err();
    assert!(matches!(error, Error::Io { .. }), "{error}");
    assert!(error.to_string().contains("missing.mtx"));
}

#[test]
fn output_is_one_distance_per_line_and_replaces_atomically() {
    let path = temporary("output", "levels.txt");
    std::fs::write(&path, "old contents\n").unwrap();
    output::write_per_vertex(&path, &[0, 1, UNREACHED, 2]).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "0\n1\n-1\n2\n");
    let leftovers = std::fs::read_dir(path.parent().unwrap()).unwrap().count();
    assert_eq!(leftovers, 1, "a temporary file was left behind");

    let unwritable = path.join("not-a-folder").join("levels.txt");
    assert!(output::write_per_vertex(&unwritable, &[0]).is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "0\n1\n-1\n2\n");
}
