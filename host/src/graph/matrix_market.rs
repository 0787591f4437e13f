//! Matrix Market (`.mtx`) coordinate files, read with `nalgebra-sparse`.
//!
//! The adjacency matrix of the graph: entry `(i, j)` (1-based in the file) is
//! the edge from vertex `i - 1` to vertex `j - 1`. Values are ignored; any
//! field is accepted (pattern, integer, real, complex). Symmetric,
//! skew-symmetric and hermitian files store one triangle, which the reader
//! mirrors.

use std::path::Path;

use nalgebra_sparse::CooMatrix;
use nalgebra_sparse::io::{MatrixMarketError, MatrixMarketScalar, load_coo_from_matrix_market_str};
use nalgebra_sparse::na::Complex;

use crate::{Csr, Error, Result};

/// Loads a Matrix Market file into a CSR graph.
pub fn load(path: &Path) -> Result<Csr> {
    let text = std::fs::read_to_string(path).map_err(|error| Error::Io {
        path: path.into(),
        error,
    })?;
    parse(&text).map_err(|(line, message)| Error::Format {
        path: path.into(),
        line,
        message,
    })
}

/// Parses the text of a Matrix Market file. Errors carry the 1-based line,
/// where one applies, and a one-line message.
pub fn parse(text: &str) -> Result<Csr, (Option<u64>, String)> {
    let header = text.lines().next().unwrap_or_default();
    let words: Vec<String> = header
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    if words.first().map(String::as_str) != Some("%%matrixmarket") {
        return Err((
            Some(1),
            "not a Matrix Market file: the first line must start with %%MatrixMarket".into(),
        ));
    }
    if words.get(1).map(String::as_str) != Some("matrix")
        || words.get(2).map(String::as_str) != Some("coordinate")
    {
        return Err((
            Some(1),
            format!(
                "unsupported header '{header}': a graph needs 'matrix coordinate' (sparse) storage"
            ),
        ));
    }
    match words.get(3).map(String::as_str) {
        Some("pattern") => edges_of::<()>(text),
        Some("integer") => edges_of::<i64>(text),
        Some("real") => edges_of::<f64>(text),
        Some("complex") => edges_of::<Complex<f64>>(text),
        _ => Err((
            Some(1),
            format!(
                "unsupported field in header '{header}': expected pattern, integer, real or complex"
            ),
        )),
    }
}

fn edges_of<T: MatrixMarketScalar>(text: &str) -> Result<Csr, (Option<u64>, String)> {
    let matrix: CooMatrix<T> =
        load_coo_from_matrix_market_str(text).map_err(|error| one_line(&error))?;
    if matrix.nrows() != matrix.ncols() {
        return Err((
            None,
            format!(
                "the matrix is {}×{}: a graph's adjacency matrix must be square",
                matrix.nrows(),
                matrix.ncols()
            ),
        ));
    }
    let vertex_count = u32::try_from(matrix.nrows())
        .ok()
        .filter(|&count| count != u32::MAX)
        .ok_or_else(|| {
            (
                None,
                format!(
                    "{} vertices: ids beyond 2^32 - 2 do not fit u32",
                    matrix.nrows()
                ),
            )
        })?;
    let edges: Vec<(u32, u32)> = matrix
        .row_indices()
        .iter()
        .zip(matrix.col_indices())
        .map(|(&row, &column)| (row as u32, column as u32))
        .collect();
    Csr::from_edges(vertex_count, &edges, false).map_err(|error| (None, error.to_string()))
}

/// Turns `nalgebra-sparse`'s message (the parser's is several lines, with a
/// ` --> line:column` marker) into a line number and a one-line message.
fn one_line(error: &MatrixMarketError) -> (Option<u64>, String) {
    let message = error.message();
    let line = message
        .split_once("--> ")
        .and_then(|(_, rest)| rest.split(':').next())
        .and_then(|line| line.trim().parse().ok());
    let reason = message
        .lines()
        .map(|line| line.trim().trim_start_matches("= "))
        .filter(|line| !line.is_empty() && !line.starts_with("-->") && !line.contains('|'))
        .collect::<Vec<_>>()
        .join("; ");
    (line, format!("{:?}: {reason}", error.kind()))
}
