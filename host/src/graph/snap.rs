//! SNAP edge lists (the Stanford Network Analysis Project's `.txt` files):
//! one `tail head` pair per line, 0-based, `#` comments, tabs or spaces,
//! further columns ignored. Edges are directed as written; the vertex count
//! is the largest id plus one.

use super::edge_list::FormatError;
use super::edge_list::{self, LineRules};
use crate::Csr;

/// Parses a SNAP edge list.
pub fn parse(bytes: &[u8], progress: &(dyn Fn(u64) + Sync)) -> Result<Csr, FormatError> {
    let rules = LineRules {
        comment: b'#',
        tag: 0,
        one_based: false,
        values: 0,
        integer_values: true,
        extra_tokens: true,
        vertex_count: None,
    };
    edge_list::build_csr(bytes, &rules, 1, None, false, progress)
}
