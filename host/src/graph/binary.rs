//! The binary CSR cache (`.bcsr`): the graph exactly as the GPU takes it,
//! loaded in a fraction of a second (`bfs convert IN OUT.bcsr`).
//!
//! Layout, little-endian: a 40-byte header (magic `BFSCSR\0\0`, format
//! version `u32`, flags `u32`, vertex count `u64`, edge count `u64`, CRC-32
//! `u32`, reserved `u32`), then the `n + 1` row offsets as `u64`, the `m`
//! column indices as `u32` and, with flag
//! [`INPUT_EDGE_ENDS`], a generated graph's `n` input edge ends as `u32`
//! (for Graph500's edge count: [`Csr::input_edge_ends`]). Flag
//! [`SYMMETRIC`] says whether every edge has its reverse, found once by
//! the writer: a search needs to know (bottom-up levels need it), and the
//! pass that finds out looks up every edge's reverse, which a file meant to
//! load fast should not cost each time. The
//! checksum covers the flags word, then the arrays, so a flipped flag is
//! caught as corruption. Version 5 files go on past the arrays with
//! preparation sections (`graph::prepared`: what `bfs prepare` stored),
//! each checked on its own when a run wants it, so a damaged section
//! never makes the graph unreadable. Version 4 files (no sections, written
//! where there is nothing prepared), version 3 files (the checksum without
//! the flags, symmetry not recorded), version 2 files (no flags) and
//! version 1 files, whose row offsets are `u32`, still load. A reader
//! checks the magic, version, flags, sizes, checksum and the CSR's
//! structure before trusting it. The arrays are read and checksummed on
//! every core.

use std::io::{Read, Write};
use std::path::Path;

use rayon::prelude::*;

use super::EdgeOffset;
use super::edge_list::FormatError;
use super::prepared::{Preparation, Preparations, crc32_hasher, read_in_parallel};
use crate::Csr;

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"BFSCSR\0\0";
/// The format version this build writes for a graph with preparations:
/// version 4's CSR, then preparation sections.
pub const VERSION_WITH_SECTIONS: u32 = 5;
/// The format version this build writes for a graph alone: 64-bit row
/// offsets, flags within the checksum, symmetry recorded.
pub const VERSION: u32 = 4;
/// The version before symmetry was recorded, which this build still reads.
pub const VERSION_WITHOUT_SYMMETRY: u32 = 3;
/// The version before flags, which this build still reads.
pub const VERSION_WITHOUT_FLAGS: u32 = 2;
/// The first version, with 32-bit row offsets, which this build still reads.
pub const VERSION_32_BIT_OFFSETS: u32 = 1;
/// Flag: the input edge ends follow the column indices.
pub const INPUT_EDGE_ENDS: u32 = 1;
/// Flag (version 4): every edge's reverse is an edge too.
pub const SYMMETRIC: u32 = 2;
const HEADER_BYTES: usize = 40;

/// Writes `graph` in the binary format.
pub fn write(graph: &Csr, writer: &mut impl Write) -> std::io::Result<()> {
    write_prepared(graph, &[], writer)
}

/// Writes `graph` in the binary format, followed by a section for each of
/// `preparations` (version 5; version 4 where there are none).
pub fn write_prepared(
    graph: &Csr,
    preparations: &[Preparation],
    writer: &mut impl Write,
) -> std::io::Result<()> {
    let offsets: &[u8] = bytemuck::cast_slice(graph.row_offsets());
    let columns: &[u8] = bytemuck::cast_slice(graph.column_indices());
    let ends: &[u8] = bytemuck::cast_slice(graph.input_edge_ends().unwrap_or_default());
    let mut flags = 0;
    if graph.input_edge_ends().is_some() {
        flags |= INPUT_EDGE_ENDS;
    }
    if graph.is_symmetric() {
        flags |= SYMMETRIC;
    }
    let checksum = checksum(&flags.to_le_bytes(), [offsets, columns, ends]);
    let version = match preparations.is_empty() {
        true => VERSION,
        false => VERSION_WITH_SECTIONS,
    };
    let mut header = Vec::with_capacity(HEADER_BYTES);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&version.to_le_bytes());
    header.extend_from_slice(&flags.to_le_bytes());
    header.extend_from_slice(&(graph.vertex_count() as u64).to_le_bytes());
    header.extend_from_slice(&graph.edge_count().to_le_bytes());
    header.extend_from_slice(&checksum.to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes());
    writer.write_all(&header)?;
    writer.write_all(offsets)?;
    writer.write_all(columns)?;
    writer.write_all(ends)?;
    for preparation in preparations {
        preparation.write_section(checksum, writer)?;
    }
    Ok(())
}

/// The CRC-32 of `first` and then each of `arrays`, each array's on every core.
fn checksum(first: &[u8], arrays: [&[u8]; 3]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(first);
    for array in arrays {
        hasher.combine(&crc32_hasher(array));
    }
    hasher.finalize()
}

/// Reads a binary CSR file (any sections it holds are left unread).
pub fn read(path: &Path) -> Result<Csr, FormatError> {
    read_prepared(path).map(|(graph, _)| graph)
}

/// Reads a binary CSR file, and lists the preparation sections after
/// its CSR (read only when a run asks for one).
pub fn read_prepared(path: &Path) -> Result<(Csr, Preparations), FormatError> {
    let fail = |message: String| (None, message);
    let mut file = std::fs::File::open(path).map_err(|error| fail(error.to_string()))?;
    let length = file
        .metadata()
        .map_err(|error| fail(error.to_string()))?
        .len();
    let mut header = [0u8; HEADER_BYTES];
    file.read_exact(&mut header)
        .map_err(|_| fail("truncated header".into()))?;
    if &header[..8] != MAGIC {
        return Err(fail("not a binary CSR file (bad magic number)".into()));
    }
    let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
    let long = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("8 bytes"));
    let version = word(8);
    let offset_bytes = match version {
        VERSION_WITH_SECTIONS | VERSION | VERSION_WITHOUT_SYMMETRY | VERSION_WITHOUT_FLAGS => 8,
        VERSION_32_BIT_OFFSETS => 4,
        _ => {
            return Err(fail(format!(
                "binary CSR version {version} (this build reads versions {VERSION_32_BIT_OFFSETS} to {VERSION_WITH_SECTIONS})"
            )));
        }
    };
    let (flags, known_flags) = match version {
        VERSION_WITH_SECTIONS | VERSION => (word(12), INPUT_EDGE_ENDS | SYMMETRIC),
        VERSION_WITHOUT_SYMMETRY => (word(12), INPUT_EDGE_ENDS),
        _ => (0, 0),
    };
    if flags & !known_flags != 0 {
        return Err(fail(format!(
            "binary CSR flags {flags:#x} unknown to this build"
        )));
    }
    let (vertex_count, edge_count, checksum) = (long(16), long(24), word(32));
    if vertex_count >= u32::MAX as u64 {
        return Err(fail(format!("{vertex_count} vertices do not fit u32 ids")));
    }
    let ends_count = if flags & INPUT_EDGE_ENDS != 0 {
        vertex_count
    } else {
        0
    };
    let expected = (vertex_count + 1)
        .checked_mul(offset_bytes)
        .and_then(|offsets| offsets.checked_add(edge_count.checked_mul(4)?))
        .and_then(|arrays| arrays.checked_add(4 * ends_count))
        .and_then(|arrays| arrays.checked_add(HEADER_BYTES as u64));
    let sections_follow = version == VERSION_WITH_SECTIONS;
    let fits = match expected {
        Some(expected) if sections_follow => expected <= length,
        Some(expected) => expected == length,
        None => false,
    };
    let Some(arrays_end) = expected.filter(|_| fits) else {
        return Err(fail(format!(
            "the header declares {vertex_count} vertices and {edge_count} edges, which do not match the file's {length} bytes"
        )));
    };
    let mut at = HEADER_BYTES as u64;
    let mut read_into = |bytes: &mut [u8]| -> Result<crc32fast::Hasher, FormatError> {
        read_in_parallel(&file, at, bytes).map_err(|error| fail(error.to_string()))?;
        at += bytes.len() as u64;
        Ok(crc32_hasher(bytes))
    };
    let mut hasher = crc32fast::Hasher::new();
    if matches!(version, VERSION_WITH_SECTIONS | VERSION) {
        hasher.update(&header[12..16]);
    }
    let mut row_offsets = if version == VERSION_32_BIT_OFFSETS {
        let mut narrow = vec![0u32; vertex_count as usize + 1];
        hasher.combine(&read_into(bytemuck::cast_slice_mut(&mut narrow))?);
        narrow
            .par_iter()
            .map(|&offset| u32::from_le(offset) as EdgeOffset)
            .collect()
    } else {
        let mut offsets = vec![0 as EdgeOffset; vertex_count as usize + 1];
        hasher.combine(&read_into(bytemuck::cast_slice_mut(&mut offsets))?);
        offsets
    };
    let mut column_indices = vec![0u32; edge_count as usize];
    hasher.combine(&read_into(bytemuck::cast_slice_mut(&mut column_indices))?);
    let mut ends = vec![0u32; ends_count as usize];
    hasher.combine(&read_into(bytemuck::cast_slice_mut(&mut ends))?);
    if hasher.finalize() != checksum {
        return Err(fail("checksum mismatch: the file is corrupt".into()));
    }
    if cfg!(target_endian = "big") {
        if version != VERSION_32_BIT_OFFSETS {
            row_offsets
                .iter_mut()
                .for_each(|offset| *offset = EdgeOffset::from_le(*offset));
        }
        for word in column_indices.iter_mut().chain(&mut ends) {
            *word = u32::from_le(*word);
        }
    }
    let mut graph = Csr::from_parts(row_offsets, column_indices).map_err(fail)?;
    if matches!(version, VERSION_WITH_SECTIONS | VERSION) {
        graph.symmetric = (flags & SYMMETRIC != 0).into();
    }
    let graph = match flags & INPUT_EDGE_ENDS {
        0 => graph,
        _ => graph.with_input_edge_ends(ends).map_err(fail)?,
    };
    let preparations = match sections_follow {
        true => Preparations::list(path, checksum, arrays_end),
        false => Preparations::none(),
    };
    Ok((graph, preparations))
}
