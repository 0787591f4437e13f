//! Loading graphs: every format, the fast Matrix Market reader against
//! `nalgebra-sparse`'s on many generated files, and clear, line-numbered
//! errors for malformed input.

use std::fmt::Write as _;
use std::path::PathBuf;

use bfs::graph::{self, Format, Reader, binary, generate, matrix_market};
use bfs::{Csr, Error, UNREACHED, output};

fn parse(text: &str) -> Csr {
    matrix_market::parse(text.as_bytes(), &|_| {})
        .unwrap_or_else(|(line, message)| panic!("line {line:?}: {message}"))
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
fn comments_blank_lines_and_crlf_are_accepted_anywhere() {
    let text = "%%MatrixMarket matrix coordinate complex hermitian\r\n% a comment\r\n\r\n  % an indented one\r\n3 3 3\r\n2 1 1.5 -2\r\n\r\n% between entries\r\n3 2 0 1e-3\r\n  3\t3 1 1\r\n";
    assert_eq!(adjacency(&parse(text)), [vec![1], vec![0, 2], vec![1]]);
}

#[test]
fn the_fast_reader_equals_nalgebra_on_generated_files() {
    for seed in 0..40u64 {
        let graph = bfs_tests::directed_random(
            1 + (seed as u32 * 37) % 500,
            (seed as u32 * 53) % 3000,
            seed,
        );
        for (field, value) in [
            ("pattern", ""),
            ("integer", " -7"),
            ("real", " 2.5e-3"),
            ("complex", " 1.0 -0.5"),
        ] {
            // General: every entry; symmetric: the lower triangle of the symmetrized graph.
            let entries: Vec<(u32, u32)> = (0..graph.vertex_count())
                .flat_map(|tail| graph.neighbours(tail).iter().map(move |&head| (tail, head)))
                .collect();
            let lower: Vec<(u32, u32)> =
                entries.iter().map(|&(a, b)| (a.max(b), a.min(b))).collect();
            for (symmetry, entries) in [("general", &entries), ("symmetric", &lower)] {
                let n = graph.vertex_count();
                let mut text = format!(
                    "%%MatrixMarket matrix coordinate {field} {symmetry}\n% seed {seed}\n{n} {n} {}\n",
                    entries.len()
                );
                for &(row, column) in entries.iter() {
                    let _ = writeln!(text, "{} {}{value}", row + 1, column + 1);
                }
                let fast = matrix_market::parse(text.as_bytes(), &|_| {}).unwrap();
                let reference = matrix_market::parse_reference(&text).unwrap();
                assert_eq!(fast, reference, "seed {seed}, {field} {symmetry}");
            }
        }
    }
}

/// A Matrix Market pattern file of `entries` (0-based), in their order.
fn pattern_file(symmetry: &str, vertex_count: u32, entries: &[(u32, u32)]) -> String {
    let mut text = format!(
        "%%MatrixMarket matrix coordinate pattern {symmetry}\n{vertex_count} {vertex_count} {}\n",
        entries.len()
    );
    for &(row, column) in entries {
        let _ = writeln!(text, "{} {}", row + 1, column + 1);
    }
    text
}

#[test]
fn every_entry_order_of_a_file_of_many_pieces_gives_the_same_graph() {
    // Megabytes of text: the reader splits it into many pieces, each binned
    // on its own, and the blocks of rows are built from all of them.
    let graph = bfs_tests::generated("uniform:40000:150000", 21);
    assert!(graph.is_symmetric());
    let mut entries: Vec<(u32, u32)> = (0..graph.vertex_count())
        .flat_map(|tail| graph.neighbours(tail).iter().map(move |&head| (tail, head)))
        .collect();
    let row_major = entries.clone();
    entries.sort_by_key(|&(row, column)| (column, row));
    let column_major = entries.clone();
    // A fixed pseudo-random permutation (Fisher–Yates on a linear congruential stream).
    let mut state = 99u64;
    for index in (1..entries.len()).rev() {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        entries.swap(index, (state >> 33) as usize % (index + 1));
    }
    let shuffled = entries;
    let n = graph.vertex_count();
    for (order, entries) in [
        ("row-major", &row_major),
        ("column-major", &column_major),
        ("shuffled", &shuffled),
    ] {
        let text = pattern_file("general", n, entries);
        assert!(text.len() > 2_000_000, "{order}: too small to split");
        assert_eq!(parse(&text), graph, "{order}, general");
        // The lower triangle, mirrored by the reader, is the graph again.
        let lower: Vec<(u32, u32)> = entries
            .iter()
            .filter(|&&(row, column)| row > column)
            .copied()
            .collect();
        assert_eq!(
            parse(&pattern_file("symmetric", n, &lower)),
            graph,
            "{order}, symmetric"
        );
    }
    let text = pattern_file("general", n, &shuffled);
    assert_eq!(
        parse(&text),
        matrix_market::parse_reference(&text).unwrap(),
        "shuffled, against nalgebra-sparse"
    );
}

#[test]
fn files_written_in_any_entry_order_load_as_the_graph() {
    use matrix_market::EntryOrder;
    let graph = bfs_tests::generated("kron:10:8", 22);
    let entry_lines = |path: &PathBuf| -> Vec<(u32, u32)> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .skip(3)
            .map(|line| {
                let (row, column) = line.split_once(' ').unwrap();
                (row.parse().unwrap(), column.parse().unwrap())
            })
            .collect()
    };
    for order in [
        EntryOrder::RowMajor,
        EntryOrder::ColumnMajor,
        EntryOrder::Shuffled(5),
    ] {
        let path = temporary("orders", &format!("{order:?}.mtx"));
        graph::save_ordered(&graph, &path, order).unwrap();
        assert_eq!(graph::load(&path).unwrap(), graph, "{order:?}");
        let lines = entry_lines(&path);
        let sorted_by = |key: fn(&(u32, u32)) -> (u32, u32)| lines.is_sorted_by_key(key);
        let (by_row, by_column) = (sorted_by(|&(r, c)| (r, c)), sorted_by(|&(r, c)| (c, r)));
        match order {
            EntryOrder::RowMajor => assert!(by_row && !by_column),
            EntryOrder::ColumnMajor => assert!(by_column && !by_row),
            EntryOrder::Shuffled(_) => assert!(!by_row && !by_column),
        }
    }
}

#[test]
fn an_error_deep_in_a_file_of_many_pieces_names_its_line() {
    let entries: Vec<(u32, u32)> = (0..300_000)
        .map(|index| (index % 1000, index % 997))
        .collect();
    let mut text = pattern_file("general", 1000, &entries);
    // Line 2 is the size line; entry k (from 0) is on line k + 3.
    let bad_line = 250_003;
    let start = text
        .match_indices('\n')
        .nth(bad_line - 2)
        .map(|(index, _)| index + 1)
        .unwrap();
    text.replace_range(start..start + 1, "x");
    let Err((line, message)) = matrix_market::parse(text.as_bytes(), &|_| {}) else {
        panic!("a bad id was accepted");
    };
    assert_eq!(line, Some(bad_line as u64), "{message}");
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
            "%%MatrixMarket matrix coordinate pattern general\n",
            "no size line",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n",
            "declares 2 entries, the file holds 1",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n2 3\n",
            "declares 1 entries, the file holds 2",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n0 2\n",
            "vertex id 0",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 4\n",
            "beyond the 3 vertices",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 x\n",
            "bad vertex id 'x'",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2 3\n",
            "unexpected '3'",
        ),
        (
            "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2\n",
            "ends early",
        ),
        (
            "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 abc\n",
            "bad value 'abc'",
        ),
        (
            "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n",
            "bad value '1.5'",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n3 3 x\n",
            "bad size line",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n5000000000 5000000000 1\n",
            "do not fit u32",
        ),
        (
            "%%MatrixMarket matrix coordinate quaternion general\n3 3 1\n1 2 1\n",
            "unsupported field",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern diagonal\n3 3 1\n1 2\n",
            "unsupported symmetry",
        ),
    ];
    for &(text, expected) in cases {
        let Err((_, message)) = matrix_market::parse(text.as_bytes(), &|_| {}) else {
            panic!("accepted: {text:?}")
        };
        assert!(
            !message.contains('\n'),
            "multi-line message for {text:?}: {message}"
        );
        assert!(message.contains(expected), "{text:?}: {message}");
        if let Err((_, message)) = matrix_market::parse_reference(text) {
            assert!(
                !message.contains('\n'),
                "multi-line reference message for {text:?}: {message}"
            );
        }
    }
}

#[test]
fn a_header_claiming_billions_of_entries_fails_fast() {
    // 400 million vertices (1.6 GB of counters, allocated zeroed and never
    // touched) and a claim of 4 billion entries over a file of two.
    let text = "%%MatrixMarket matrix coordinate pattern general\n400000000 400000000 4000000000\n1 2\n2 3\n";
    let started = std::time::Instant::now();
    let Err((_, message)) = matrix_market::parse(text.as_bytes(), &|_| {}) else {
        panic!("accepted")
    };
    assert!(
        message.contains("declares 4000000000 entries, the file holds 2"),
        "{message}"
    );
    assert!(
        started.elapsed().as_secs_f64() < 1.0,
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn file_errors_name_the_file_and_line() {
    let path = temporary("errors", "bad.mtx");
    std::fs::write(
        &path,
        "%%MatrixMarket matrix coordinate pattern general\n% c\n3 3 2\n1 2\n2 zz\n",
    )
    .unwrap();
    let message = graph::load(&path).unwrap_err().to_string();
    assert!(
        message.starts_with(&format!("{}:5:", path.display())),
        "{message}"
    );
    let message = graph::load_with(&path, Reader::Reference)
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with(&format!("{}:5:", path.display())),
        "{message}"
    );

    let missing = temporary("errors", "missing.mtx");
    let error = graph::load(&missing).unwrap_err();
    assert!(matches!(error, Error::Io { .. }), "{error}");
    assert!(error.to_string().contains("missing.mtx"));
}

#[test]
fn every_format_round_trips_and_is_detected() {
    let graph = generate::Spec {
        shape: generate::Shape::Kronecker {
            scale: 9,
            edge_factor: 8,
        },
        seed: 5,
    }
    .generate()
    .unwrap();
    for name in ["graph.mtx", "graph.bcsr"] {
        let path = temporary("round-trip", name);
        graph::save(&graph, &path).unwrap();
        assert_eq!(graph::load(&path).unwrap(), graph, "{name}");
    }
    let mtx = std::fs::read(temporary("round-trip", "graph.mtx")).unwrap();
    let gz = temporary("round-trip", "graph.mtx.gz");
    let mut encoder = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    std::io::Write::write_all(&mut encoder, &mtx).unwrap();
    encoder.finish().unwrap();
    assert_eq!(graph::load(&gz).unwrap(), graph);

    let mut snap = String::from("# a SNAP edge list\n# FromNodeId\tToNodeId\n");
    let mut dimacs = format!(
        "c a DIMACS graph\np sp {} {}\n",
        graph.vertex_count(),
        graph.edge_count()
    );
    for tail in 0..graph.vertex_count() {
        for &head in graph.neighbours(tail) {
            let _ = writeln!(snap, "{tail}\t{head}\t1700000000");
            let _ = writeln!(dimacs, "a {} {} 42", tail + 1, head + 1);
        }
    }
    let (snap_path, dimacs_path) = (
        temporary("round-trip", "graph.txt"),
        temporary("round-trip", "graph.gr"),
    );
    std::fs::write(&snap_path, snap).unwrap();
    std::fs::write(&dimacs_path, &dimacs).unwrap();
    assert_eq!(graph::load(&dimacs_path).unwrap(), graph);
    // SNAP knows no vertex count: trailing isolated vertices are not in the file.
    let from_snap = graph::load(&snap_path).unwrap();
    assert_eq!(from_snap.column_indices(), graph.column_indices());

    let unnamed = temporary("round-trip", "graph.data");
    std::fs::write(&unnamed, dimacs).unwrap();
    assert_eq!(Format::detect(&unnamed, b"c a DIMACS"), Format::Dimacs);
    assert_eq!(graph::load(&unnamed).unwrap(), graph);
}

#[test]
fn a_corrupt_binary_cache_is_refused() {
    let graph = bfs_tests::generated("grid:20x20:0.1", 2);
    let path = temporary("corrupt", "graph.bcsr");
    graph::save(&graph, &path).unwrap();
    let good = std::fs::read(&path).unwrap();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            {
                let mut bytes = good.clone();
                let last = bytes.len() - 1;
                bytes[last] ^= 1;
                bytes
            },
            "checksum",
        ),
        (good[..good.len() - 4].to_vec(), "bytes"),
        (
            {
                let mut bytes = good.clone();
                bytes[0] = b'X';
                bytes
            },
            "binary CSR",
        ),
        (
            {
                let mut bytes = good.clone();
                bytes[8] = 9;
                bytes
            },
            "version 9",
        ),
        (
            {
                let mut bytes = good.clone();
                bytes[12] |= 8;
                bytes
            },
            "flags 0xb unknown",
        ),
        (
            {
                let mut bytes = good.clone();
                bytes[12] ^= binary::SYMMETRIC as u8;
                bytes
            },
            "checksum",
        ),
    ];
    for (bytes, expected) in cases {
        std::fs::write(&path, bytes).unwrap();
        let error = match binary::read(&path) {
            Err((_, message)) => message,
            Ok(_) => panic!("accepted a corrupt file ({expected})"),
        };
        assert!(error.contains(expected), "{error}");
    }
}

#[test]
fn a_version_1_binary_cache_with_32_bit_offsets_still_loads() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    // Written by `bfs convert` before row offsets became 64-bit.
    let old = graph::load(&fixtures.join("house-version-1.bcsr")).unwrap();
    let house = graph::load(&fixtures.join("house-pattern-symmetric.mtx")).unwrap();
    assert_eq!(old, house);
    let path = temporary("version", "house.bcsr");
    graph::save(&house, &path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes[8..12], binary::VERSION.to_le_bytes());
    assert_eq!(bytes.len(), 40 + 8 * 6 + 4 * 12, "u64 offsets, u32 columns");
    assert_eq!(graph::load(&path).unwrap(), house);
}

#[test]
fn a_generated_graph_keeps_graph500s_input_edges_through_a_binary_cache() {
    let graph = bfs_tests::generated("kron:10:16", 4);
    let path = temporary("input-edges", "kron.bcsr");
    graph::save(&graph, &path).unwrap();
    let loaded = graph::load(&path).unwrap();
    assert_eq!(loaded, graph);
    assert_eq!(loaded.input_edge_ends(), graph.input_edge_ends());
    assert_eq!(loaded.input_edge_count(), Some(16 * 1024));
    // A graph read from rows has no ends to keep, so its file is as
    // version 2 wrote it but for the header, and version 2 still loads.
    let rows = Csr::from_parts(
        graph.row_offsets().to_vec(),
        graph.column_indices().to_vec(),
    )
    .unwrap();
    graph::save(&rows, &path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        bytes[12..16],
        binary::SYMMETRIC.to_le_bytes(),
        "symmetry alone"
    );
    std::fs::write(&path, as_version(bytes, binary::VERSION_WITHOUT_FLAGS)).unwrap();
    let version_2 = graph::load(&path).unwrap();
    assert_eq!(version_2, graph);
    assert_eq!(version_2.input_edge_count(), None);
}

/// A binary cache of a graph without input edge ends, its header
/// rewritten as `version` (2 or 3) wrote it: no flags, and the checksum
/// over the arrays alone.
fn as_version(mut bytes: Vec<u8>, version: u32) -> Vec<u8> {
    let checksum = crc32fast::hash(&bytes[40..]);
    bytes[8..12].copy_from_slice(&version.to_le_bytes());
    bytes[12..16].copy_from_slice(&0u32.to_le_bytes());
    bytes[32..36].copy_from_slice(&checksum.to_le_bytes());
    bytes
}

#[test]
fn a_binary_cache_records_whether_the_graph_is_symmetric() {
    let symmetric = bfs_tests::generated("kron:8:8", 5);
    let one_way = Csr::from_edges(4, &[(0, 1), (1, 2), (2, 3), (3, 1)], false).unwrap();
    for (graph, expected) in [(&symmetric, true), (&one_way, false)] {
        let path = temporary("symmetry", "graph.bcsr");
        // A graph read from rows does not know it until asked: the writer asks.
        let rows = Csr::from_parts(
            graph.row_offsets().to_vec(),
            graph.column_indices().to_vec(),
        )
        .unwrap();
        assert_eq!(rows.known_symmetric(), None);
        graph::save(&rows, &path).unwrap();
        let loaded = graph::load(&path).unwrap();
        assert_eq!(loaded.known_symmetric(), Some(expected));
        assert_eq!(&loaded, graph);
        // Version 3 recorded no symmetry: such a file still loads, and its
        // symmetry is found when asked.
        let bytes = std::fs::read(&path).unwrap();
        let version_3 = as_version(bytes, binary::VERSION_WITHOUT_SYMMETRY);
        std::fs::write(&path, version_3).unwrap();
        let version_3 = graph::load(&path).unwrap();
        assert_eq!(version_3.known_symmetric(), None);
        assert_eq!(version_3.is_symmetric(), expected);
    }
}

#[test]
fn nalgebra_matrices_convert_both_ways() {
    let graph = bfs_tests::generated("kron:8:8", 3);
    let matrix = graph.to_nalgebra(1.0f32);
    assert_eq!(matrix.nnz(), graph.edge_count() as usize);
    assert_eq!(Csr::from_nalgebra(&matrix).unwrap(), graph);
}

#[test]
fn rows_as_other_libraries_hold_them_make_the_graph_their_entries_make() {
    // Unsorted rows, a repeated neighbour and a self loop: the graph of the
    // same entries as edges.
    let edges = [(0, 2), (0, 1), (0, 2), (1, 1), (1, 3), (3, 0), (2, 3)];
    let rows = Csr::from_rows(vec![0, 3, 5, 6, 7], vec![2, 1, 2, 1, 3, 3, 0]).unwrap();
    assert_eq!(rows, Csr::from_edges(4, &edges, false).unwrap());
    // Rows already sorted, without loops, are kept as they are.
    let graph = bfs_tests::generated("kron:8:8", 3);
    let kept = Csr::from_rows(
        graph.row_offsets().to_vec(),
        graph.column_indices().to_vec(),
    )
    .unwrap();
    assert_eq!(kept, graph);
    // A sorted row with only a repeat, or only a loop, is not canonical.
    for (columns, edges) in [
        (vec![1, 1, 0], vec![(0, 1), (0, 1), (1, 0)]),
        (vec![0, 1, 0], vec![(0, 0), (0, 1), (1, 0)]),
    ] {
        let rows = Csr::from_rows(vec![0, 2, 3], columns).unwrap();
        assert_eq!(rows, Csr::from_edges(2, &edges, false).unwrap());
    }
    let fails = |offsets: Vec<u64>, columns: Vec<u32>| {
        Csr::from_rows(offsets, columns).expect_err("accepted bad rows")
    };
    assert_eq!(fails(vec![], vec![]), "no row offsets");
    assert!(fails(vec![0, 2], vec![0]).contains("from 0 to the number"));
    assert!(fails(vec![0, 2, 1, 2], vec![0, 1]).contains("decrease at vertex 1"));
    assert_eq!(
        fails(vec![0, 1, 1], vec![2]),
        "column index 2 names no vertex: the graph has 2"
    );
    // The first id past the vertices is the one named.
    assert_eq!(
        fails(vec![0, 2, 3], vec![0, 5, 7]),
        "column index 5 names no vertex: the graph has 2"
    );
}

#[test]
fn loads_from_a_file_and_searches_it() {
    let path = temporary("loads", "house.mtx");
    std::fs::write(&path, include_str!("fixtures/house-pattern-symmetric.mtx")).unwrap();
    let house = graph::load(&path).unwrap();
    assert_eq!(bfs::cpu::bfs(&house, 0).levels, [0, 1, 2, 1, 2]);
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

#[test]
fn the_reference_reader_never_panics_through_us() {
    // Found by fuzzing: nalgebra-sparse 0.12 unwraps an entry index that overflows `usize`.
    let text = "%%MatrixMarket matrix coordinate pattern symmetric\n5 5 2\n2 1\n577777777777777777777777777777777777 4\n";
    let Err((_, message)) = matrix_market::parse_reference(text) else {
        panic!("accepted")
    };
    assert!(
        message.contains("too large") && !message.contains('\n'),
        "{message}"
    );
}
