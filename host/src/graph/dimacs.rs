//! DIMACS shortest-path graphs (`.gr`, 9th DIMACS Challenge): `c` comment
//! lines, one `p sp N M` problem line, then `M` arc lines `a U V W`, 1-based
//! and directed; the weights are ignored.

use super::edge_list::FormatError;
use super::edge_list::{self, LineRules};
use crate::Csr;

/// Parses a DIMACS `.gr` file.
pub fn parse(bytes: &[u8], progress: &(dyn Fn(u64) + Sync)) -> Result<Csr, FormatError> {
    let mut offset = 0;
    let mut line = 0;
    let (vertex_count, arcs) = loop {
        line += 1;
        if offset >= bytes.len() {
            return Err((None, "no problem line 'p sp N M'".into()));
        }
        let end =
            memchr::memchr(b'\n', &bytes[offset..]).map_or(bytes.len(), |newline| offset + newline);
        let text = String::from_utf8_lossy(&bytes[offset..end]);
        offset = end + 1;
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.first() {
            None | Some(&"c") => continue,
            Some(&"p") if words.len() == 4 => {
                let number = |word: &str| word.parse::<u64>().ok();
                match (number(words[2]), number(words[3])) {
                    (Some(vertices), Some(arcs)) if vertices < u32::MAX as u64 => {
                        break (vertices as u32, arcs);
                    }
                    _ => {
                        return Err((
                            Some(line),
                            format!("bad problem line '{}': expected 'p sp N M'", text.trim()),
                        ));
                    }
                }
            }
            _ => {
                return Err((
                    Some(line),
                    format!(
                        "expected the problem line 'p sp N M', found '{}'",
                        text.trim()
                    ),
                ));
            }
        }
    };
    let body = &bytes[offset.min(bytes.len())..];
    let rules = LineRules {
        comment: b'c',
        tag: b'a',
        one_based: true,
        values: 1,
        integer_values: true,
        extra_tokens: false,
        vertex_count: Some(vertex_count),
    };
    edge_list::build_csr(
        body,
        &rules,
        line + 1,
        Some((arcs, "problem line")),
        false,
        progress,
    )
}
