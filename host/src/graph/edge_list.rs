//! The parallel reader behind every text format: the body of a file (after
//! its header) is split at line boundaries into chunks, each parsed on its
//! own thread into its entries, which it sorts into [`binned`](super::binned) blocks of
//! tails at once; the blocks then become the CSR, each in cache, so the
//! file's order does not matter.
//!
//! Parsing is byte-level: no `str` conversion, no `str::parse`. A line is
//! blank, a comment (its first non-blank byte is the format's comment byte),
//! or an entry: an optional tag (DIMACS's `a`), two vertex ids, then the
//! value tokens the format requires. Spaces, tabs and `\r` (CRLF files)
//! separate tokens. Errors carry the byte offset; [`line_of`] turns it into a
//! line number only when one is reported.

use rayon::prelude::*;

use super::binned::{BinnedPiece, Binning};
use super::fits_in_host_memory;
use crate::Csr;

/// A format error: the 1-based line where one applies, and the message.
pub type FormatError = (Option<u64>, String);

/// How a format's entry lines look.
#[derive(Clone, Copy, Debug)]
pub struct LineRules {
    /// A line whose first non-blank byte is this is a comment.
    pub comment: u8,
    /// The tag each entry line starts with (DIMACS `a`), or `0` for none.
    pub tag: u8,
    /// Ids in the file start at 1 (Matrix Market, DIMACS) rather than 0.
    pub one_based: bool,
    /// Value tokens each entry must have after the two ids.
    pub values: usize,
    /// Whether the values are integers only (else decimal reals).
    pub integer_values: bool,
    /// Whether tokens after the required ones are accepted (SNAP extra columns).
    pub extra_tokens: bool,
    /// The number of vertices, where the header gives it: ids must be below it.
    pub vertex_count: Option<u32>,
}

/// What a pass over the entries found.
#[derive(Clone, Copy, Debug, Default)]
pub struct Summary {
    /// Entry lines.
    pub entries: u64,
    /// The largest id seen, plus one (0 when none).
    pub id_bound: u64,
}

impl Summary {
    fn merged(self, other: Summary) -> Summary {
        Summary {
            entries: self.entries + other.entries,
            id_bound: self.id_bound.max(other.id_bound),
        }
    }
}

/// A parse error at a byte offset of the body.
#[derive(Debug)]
pub struct ParseError {
    /// Offset in the body of the line's start.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

/// Builds the CSR of a text `body` (whose first line is line `first_line`):
/// parses and bins it in parallel pieces, then builds the blocks' rows.
/// `declared` is the entry count the header states and the header's name
/// for it, checked before the build. Without a vertex count in `rules`
/// (SNAP), a first pass finds the largest id. `progress` sees every pass,
/// each its share of the bytes.
pub fn build_csr(
    body: &[u8],
    rules: &LineRules,
    first_line: u64,
    declared: Option<(u64, &str)>,
    symmetric: bool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Csr, FormatError> {
    let with_line =
        |error: ParseError| (Some(line_of(body, error.offset, first_line)), error.message);
    // Every pass reports its share of the bytes, so the bar ends at 100%.
    let passes: u64 = if rules.vertex_count.is_some() { 1 } else { 2 };
    let share = |bytes: u64| progress(bytes / passes);
    let vertex_count = match rules.vertex_count {
        Some(count) => count,
        None => {
            let pieces = split_at_lines(body, rayon::current_num_threads() * 16);
            pieces
                .par_iter()
                .map(|&(start, end)| {
                    let summary = parse_piece(&body[start..end], rules, start, &mut |_, _| {});
                    share((end - start) as u64);
                    summary
                })
                .try_reduce(Summary::default, |left, right| Ok(left.merged(right)))
                .map_err(with_line)?
                .id_bound as u32
        }
    };
    let binning = Binning::new(vertex_count, symmetric);
    // An entry line takes at least 3 bytes ("1 2"), so a header's claim of
    // more entries than that costs no memory check, only its error below.
    let most_entries =
        (body.len() as u64 / 3 + 1).min(declared.map_or(u64::MAX, |(entries, _)| entries));
    let offsets_bytes = 4 * (vertex_count as u64 + 1);
    let edges = most_entries * binning.copies();
    fits_in_host_memory(
        2 * offsets_bytes + (8 + 4) * edges,
        vertex_count,
        Some(edges),
    )
    .map_err(|message| (None, message))?;

    let too_large = || {
        (
            None,
            "the binned entries do not fit in the host's memory".to_string(),
        )
    };
    let pieces = split_at_lines(body, rayon::current_num_threads() * 16);
    let parsed: Vec<(Summary, BinnedPiece)> = pieces
        .par_iter()
        .map(|&(start, end)| {
            let mut entries = Vec::new();
            let summary = parse_piece(&body[start..end], rules, start, &mut |tail, head| {
                entries.push((tail, head))
            })
            .map_err(with_line)?;
            let binned = binning.bin(&entries).ok_or_else(too_large)?;
            share((end - start) as u64);
            Ok((summary, binned))
        })
        .collect::<Result<_, FormatError>>()?;
    let entries: u64 = parsed.iter().map(|(summary, _)| summary.entries).sum();
    if let Some((declared, name)) = declared
        && entries != declared
    {
        return Err((
            None,
            format!("the {name} declares {declared} entries, the file holds {entries}"),
        ));
    }
    let pieces: Vec<BinnedPiece> = parsed.into_iter().map(|(_, piece)| piece).collect();
    binning.build(&pieces).ok_or_else(|| {
        (
            None,
            format!(
                "the CSR's {} directed edges do not fit in the host's memory",
                entries * binning.copies(),
            ),
        )
    })
}

/// The 1-based line number of `offset` in `body`, whose first line is line `first_line`.
pub fn line_of(body: &[u8], offset: usize, first_line: u64) -> u64 {
    first_line + memchr::memchr_iter(b'\n', &body[..offset.min(body.len())]).count() as u64
}

/// `(start, end)` ranges covering `body`, each ending after a `\n` (or at the end).
fn split_at_lines(body: &[u8], pieces: usize) -> Vec<(usize, usize)> {
    let target = body.len().div_ceil(pieces.max(1)).max(1 << 16);
    let mut ranges = Vec::new();
    let mut start = 0;
    while start < body.len() {
        let tentative = (start + target).min(body.len());
        let end = match memchr::memchr(b'\n', &body[tentative..]) {
            Some(newline) if tentative < body.len() => tentative + newline + 1,
            _ => body.len(),
        };
        ranges.push((start, end));
        start = end;
    }
    ranges
}

fn is_blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r')
}

/// Parses one piece of the body, which starts at byte `offset` of it,
/// giving each entry to `visit`.
fn parse_piece(
    text: &[u8],
    rules: &LineRules,
    offset: usize,
    visit: &mut dyn FnMut(u32, u32),
) -> Result<Summary, ParseError> {
    let mut summary = Summary::default();
    let mut position = 0;
    while position < text.len() {
        let line_start = position;
        let line_end = memchr::memchr(b'\n', &text[position..])
            .map_or(text.len(), |newline| position + newline);
        let error = |message: String| ParseError {
            offset: offset + line_start,
            message,
        };
        let mut cursor = Cursor {
            text: &text[..line_end],
            position,
        };
        position = line_end + 1;
        cursor.skip_blanks();
        let Some(first) = cursor.peek() else { continue };
        if first == rules.comment {
            continue;
        }
        if rules.tag != 0 {
            if first != rules.tag {
                return Err(error(format!("expected an '{}' line", rules.tag as char)));
            }
            cursor.position += 1;
            cursor.expect_separator().map_err(error)?;
        }
        let tail = cursor.vertex(rules).map_err(error)?;
        cursor.expect_separator().map_err(error)?;
        let head = cursor.vertex(rules).map_err(error)?;
        for _ in 0..rules.values {
            cursor.expect_separator().map_err(error)?;
            cursor.value(rules.integer_values).map_err(error)?;
        }
        cursor.skip_blanks();
        if !rules.extra_tokens && cursor.peek().is_some() {
            return Err(error(format!(
                "unexpected '{}' after the entry",
                cursor.token()
            )));
        }
        summary.id_bound = summary.id_bound.max(tail as u64 + 1).max(head as u64 + 1);
        summary.entries += 1;
        visit(tail, head);
    }
    Ok(summary)
}

/// A position in one line.
struct Cursor<'a> {
    text: &'a [u8],
    position: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.position).copied()
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(is_blank) {
            self.position += 1;
        }
    }

    fn expect_separator(&mut self) -> Result<(), String> {
        if self.peek().is_some_and(|byte| !is_blank(byte)) {
            return Err(format!("bad token '{}'", self.token()));
        }
        self.skip_blanks();
        match self.peek() {
            None => Err("the entry ends early: expected two vertex ids and its values".into()),
            Some(_) => Ok(()),
        }
    }

    /// The token at the cursor, for messages.
    fn token(&self) -> String {
        let rest = &self.text[self.position.min(self.text.len())..];
        let token = rest
            .split(|&byte| is_blank(byte))
            .next()
            .unwrap_or_default();
        String::from_utf8_lossy(&token[..token.len().min(40)]).into_owned()
    }

    /// A vertex id, checked against the rules and converted to 0-based.
    fn vertex(&mut self, rules: &LineRules) -> Result<u32, String> {
        let start = self.position;
        let mut value = 0u64;
        while let Some(digit @ b'0'..=b'9') = self.peek() {
            value = value * 10 + (digit - b'0') as u64;
            if value > u32::MAX as u64 + 1 {
                return Err(format!(
                    "vertex id {} is too large (ids must fit 32 bits)",
                    self.token_from(start)
                ));
            }
            self.position += 1;
        }
        if self.position == start || self.peek().is_some_and(|byte| !is_blank(byte)) {
            self.position = start;
            return Err(format!("bad vertex id '{}'", self.token()));
        }
        let id = if rules.one_based {
            if value == 0 {
                return Err("vertex id 0 in a 1-based file".into());
            }
            value - 1
        } else {
            value
        };
        if let Some(count) = rules.vertex_count
            && id >= count as u64
        {
            return Err(format!(
                "vertex id {value} is beyond the {count} vertices the header declares"
            ));
        }
        if id >= u32::MAX as u64 {
            return Err(format!(
                "vertex id {value} is too large (at most 2^32 - 2 as 0-based)"
            ));
        }
        Ok(id as u32)
    }

    fn token_from(&self, start: usize) -> String {
        let end = (start..self.text.len())
            .find(|&index| is_blank(self.text[index]))
            .unwrap_or(self.text.len());
        String::from_utf8_lossy(&self.text[start..end]).into_owned()
    }

    /// A value token: an integer, or a decimal real (`1`, `-2.5e3`, `1.0D-2`).
    fn value(&mut self, integer: bool) -> Result<(), String> {
        let start = self.position;
        let mut digits = 0;
        while let Some(byte) = self.peek().filter(|&byte| !is_blank(byte)) {
            let allowed = match byte {
                b'0'..=b'9' => {
                    digits += 1;
                    true
                }
                b'+' | b'-' => true,
                b'.' | b'e' | b'E' | b'd' | b'D' => !integer,
                _ => false,
            };
            if !allowed {
                self.position = start;
                return Err(format!("bad value '{}'", self.token()));
            }
            self.position += 1;
        }
        if digits == 0 {
            self.position = start;
            return Err(format!("bad value '{}'", self.token()));
        }
        Ok(())
    }
}
