//! Matrix Market (`.mtx`) coordinate files: a fast parallel reader, and
//! `nalgebra-sparse`'s reader as the reference it is tested against.
//!
//! The file is the adjacency matrix of the graph: entry `(i, j)` (1-based) is
//! the edge from vertex `i - 1` to vertex `j - 1`. Values are ignored; any
//! field is accepted (pattern, integer, real, complex). Symmetric,
//! skew-symmetric and hermitian files store one triangle, which the readers
//! mirror. `%` comments and blank lines may stand anywhere; CRLF is fine.

use nalgebra_sparse::CooMatrix;
use nalgebra_sparse::io::{MatrixMarketError, MatrixMarketScalar, load_coo_from_matrix_market_str};
use nalgebra_sparse::na::Complex;

use rayon::prelude::*;

use super::edge_list::{self, LineRules};
use super::generate::SplitMix64;
use crate::Csr;

pub use super::edge_list::FormatError;

/// What the header line says the values are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// No values.
    Pattern,
    /// One integer per entry.
    Integer,
    /// One real per entry.
    Real,
    /// Two reals per entry.
    Complex,
}

/// The parsed banner and size line.
#[derive(Clone, Copy, Debug)]
pub struct Header {
    /// The value type.
    pub field: Field,
    /// Whether only one triangle is stored (symmetric, skew-symmetric, hermitian).
    pub mirrored: bool,
    /// Rows (and columns: the matrix is square): the vertex count.
    pub vertex_count: u32,
    /// Entries the size line declares.
    pub entries: u64,
    /// Byte offset of the first line after the size line.
    pub body_offset: usize,
    /// Line number of that line.
    pub body_line: u64,
}

/// Reads the banner, comments and size line.
pub fn header(bytes: &[u8]) -> Result<Header, FormatError> {
    let mut lines = bytes.split(|&byte| byte == b'\n');
    let first_line = lines.next().unwrap_or_default();
    let banner = String::from_utf8_lossy(first_line).trim().to_string();
    let words: Vec<String> = banner
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let word = |index: usize| words.get(index).map(String::as_str);
    let in_banner = |message: String| -> FormatError { (Some(1), message) };
    if word(0) != Some("%%matrixmarket") {
        return Err(in_banner(
            "not a Matrix Market file: the first line must start with %%MatrixMarket".into(),
        ));
    }
    if word(1) != Some("matrix") || word(2) != Some("coordinate") {
        return Err(in_banner(format!(
            "unsupported header '{banner}': a graph needs 'matrix coordinate' (sparse) storage"
        )));
    }
    let field = match word(3) {
        Some("pattern") => Field::Pattern,
        Some("integer") => Field::Integer,
        Some("real") => Field::Real,
        Some("complex") => Field::Complex,
        _ => {
            return Err(in_banner(format!(
                "unsupported field in header '{banner}': expected pattern, integer, real or complex"
            )));
        }
    };
    let mirrored = match word(4) {
        Some("general") => false,
        Some("symmetric" | "skew-symmetric" | "hermitian") => true,
        _ => {
            return Err(in_banner(format!(
                "unsupported symmetry in header '{banner}': expected general, symmetric, skew-symmetric or hermitian"
            )));
        }
    };
    let mut offset = first_line.len() + 1;
    let mut line = 1;
    for text in lines {
        line += 1;
        offset += text.len() + 1;
        let text = String::from_utf8_lossy(text);
        let text = text.trim();
        if text.is_empty() || text.starts_with('%') {
            continue;
        }
        let at_line = |message: String| -> FormatError { (Some(line), message) };
        let bad_size_line = || {
            at_line(format!(
                "bad size line '{text}': expected 'rows columns entries'"
            ))
        };
        let numbers: Vec<u64> = text
            .split_whitespace()
            .map(|word| word.parse::<u64>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad_size_line())?;
        let [rows, columns, entries] = numbers[..] else {
            return Err(bad_size_line());
        };
        if rows != columns {
            return Err(at_line(format!(
                "the matrix is {rows}×{columns}: a graph's adjacency matrix must be square"
            )));
        }
        let vertex_count = u32::try_from(rows)
            .ok()
            .filter(|&count| count != u32::MAX)
            .ok_or_else(|| {
                at_line(format!(
                    "{rows} vertices: ids beyond 2^32 - 2 do not fit u32"
                ))
            })?;
        return Ok(Header {
            field,
            mirrored,
            vertex_count,
            entries,
            body_offset: offset.min(bytes.len()),
            body_line: line + 1,
        });
    }
    Err((None, "no size line: the file ends after its header".into()))
}

/// Parses a whole file's bytes with the parallel reader; `progress(bytes)`
/// is called as the body is parsed.
pub fn parse(bytes: &[u8], progress: &(dyn Fn(u64) + Sync)) -> Result<Csr, FormatError> {
    let header = header(bytes)?;
    let body = &bytes[header.body_offset..];
    let rules = LineRules {
        comment: b'%',
        tag: 0,
        one_based: true,
        values: match header.field {
            Field::Pattern => 0,
            Field::Integer | Field::Real => 1,
            Field::Complex => 2,
        },
        integer_values: header.field == Field::Integer,
        extra_tokens: false,
        vertex_count: Some(header.vertex_count),
    };
    edge_list::build_csr(
        body,
        &rules,
        header.body_line,
        Some((header.entries, "size line")),
        header.mirrored,
        progress,
    )
}

/// Parses with `nalgebra-sparse`'s reader: the reference the fast reader
/// is checked against (far slower, and holding several times the file in
/// memory).
pub fn parse_reference(text: &str) -> Result<Csr, FormatError> {
    let header = header(text.as_bytes())?;
    let parse = || match header.field {
        Field::Pattern => edges_of::<()>(text),
        Field::Integer => edges_of::<i64>(text),
        Field::Real => edges_of::<f64>(text),
        Field::Complex => edges_of::<Complex<f64>>(text),
    };
    // nalgebra-sparse 0.12 panics on some malformed input (an index beyond
    // `usize`, found by fuzzing); contain it, quietly, and let the fast
    // reader say what is wrong. The hook is process-wide: a panic elsewhere
    // in this instant would go unprinted, never unreported.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let outcome = std::panic::catch_unwind(parse);
    std::panic::set_hook(hook);
    outcome.unwrap_or_else(|_| match self::parse(text.as_bytes(), &|_| {}) {
        Err(error) => Err(error),
        Ok(_) => Err((
            None,
            "nalgebra-sparse's reader failed on this file (the fast reader accepts it)".into(),
        )),
    })
}

fn edges_of<T: MatrixMarketScalar>(text: &str) -> Result<Csr, FormatError> {
    let matrix: CooMatrix<T> =
        load_coo_from_matrix_market_str(text).map_err(|error| one_line(&error))?;
    let vertex_count = matrix.nrows() as u32;
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
fn one_line(error: &MatrixMarketError) -> FormatError {
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

/// The order in which [`write()`] lists a graph's entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EntryOrder {
    /// By row, then column: the CSR's own order.
    #[default]
    RowMajor,
    /// By column, then row, as many SuiteSparse files are.
    ColumnMajor,
    /// A pseudo-random permutation from this seed, as shuffled exports are.
    Shuffled(u64),
}

/// Writes `graph` as a general pattern Matrix Market file (every CSR entry,
/// 1-based), its entries in `order`.
pub fn write(
    graph: &Csr,
    order: EntryOrder,
    writer: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let n = graph.vertex_count();
    writeln!(writer, "%%MatrixMarket matrix coordinate pattern general")?;
    writeln!(
        writer,
        "% written by bfs: one line per directed edge, tail row, head column"
    )?;
    writeln!(writer, "{n} {n} {}", graph.edge_count())?;
    let mut rows =
        (0..n).flat_map(|tail| graph.neighbours(tail).iter().map(move |&head| (tail, head)));
    let mut line = |(tail, head): (u32, u32)| writeln!(writer, "{} {}", tail + 1, head + 1);
    match order {
        EntryOrder::RowMajor => rows.try_for_each(line),
        EntryOrder::ColumnMajor => {
            let mut entries: Vec<(u32, u32)> = rows.collect();
            entries.par_sort_unstable_by_key(|&(tail, head)| (head, tail));
            entries.into_iter().try_for_each(&mut line)
        }
        EntryOrder::Shuffled(seed) => {
            let mut entries: Vec<(u32, u32)> = rows.collect();
            // Fisher–Yates on a SplitMix64 stream.
            let mut random = SplitMix64(seed);
            for index in (1..entries.len()).rev() {
                entries.swap(index, (random.next() % (index as u64 + 1)) as usize);
            }
            entries.into_iter().try_for_each(&mut line)
        }
    }
}
