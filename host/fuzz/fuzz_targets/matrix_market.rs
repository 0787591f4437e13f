//! Any bytes through the fast Matrix Market reader: an error or a valid CSR,
//! never a panic; and where the reference reader accepts a file, both agree.
//!
//! Numbers of seven digits or more are skipped: a file may declare a graph
//! of billions of vertices, which the reader rightly builds, too large for
//! a fuzzing run; the tests cover ids and counts at those limits.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if has_large_number(bytes) {
        return;
    }
    let fast = bfs::graph::matrix_market::parse(bytes, &|_| {});
    if let Ok(graph) = &fast {
        assert!(
            bfs::Csr::from_parts(
                graph.row_offsets().to_vec(),
                graph.column_indices().to_vec()
            )
            .is_ok()
        );
    }
    if let Ok(text) = std::str::from_utf8(bytes)
        && let (Ok(fast), Ok(reference)) = (&fast, bfs::graph::matrix_market::parse_reference(text))
    {
        assert_eq!(fast, &reference);
    }
});

fn has_large_number(bytes: &[u8]) -> bool {
    bytes
        .split(|byte| !byte.is_ascii_digit())
        .any(|digits| digits.len() > 6)
}
