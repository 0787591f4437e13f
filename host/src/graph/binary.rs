//! The binary CSR cache (`.bcsr`): the graph exactly as the GPU takes it,
//! loaded in a fraction of a second (`bfs convert IN OUT.bcsr`).
//!
//! Layout, little-endian: a 40-byte header (magic `BFSCSR\0\0`, format
//! version `u32`, reserved `u32`, vertex count `u64`, edge count `u64`,
//! CRC-32 of the two arrays `u32`, reserved `u32`), then the `n + 1` row
//! offsets and the `m` column indices as `u32`. A reader checks the magic,
//! version, sizes, checksum and the CSR's structure before trusting it.

use std::io::{Read, Write};
use std::path::Path;

use super::edge_list::FormatError;
use crate::Csr;

/// The file's first eight bytes.
pub const MAGIC: &[u8; 8] = b"BFSCSR\0\0";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
const HEADER_BYTES: usize = 40;

/// Writes `graph` in the binary format.
pub fn write(graph: &Csr, writer: &mut impl Write) -> std::io::Result<()> {
    let offsets: &[u8] = bytemuck::cast_slice(graph.row_offsets());
    let columns: &[u8] = bytemuck::cast_slice(graph.column_indices());
    let mut checksum = crc32fast::Hasher::new();
    checksum.update(offsets);
    checksum.update(columns);
    let mut header = Vec::with_capacity(HEADER_BYTES);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes());
    header.extend_from_slice(&(graph.vertex_count() as u64).to_le_bytes());
    header.extend_from_slice(&(graph.edge_count() as u64).to_le_bytes());
    header.extend_from_slice(&checksum.finalize().to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes());
    writer.write_all(&header)?;
    writer.write_all(offsets)?;
    writer.write_all(columns)
}

/// Reads a binary CSR file.
pub fn read(path: &Path) -> Result<Csr, FormatError> {
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
    if word(8) != VERSION {
        return Err(fail(format!(
            "binary CSR version {} (this build reads version {VERSION})",
            word(8)
        )));
    }
    let (vertex_count, edge_count, checksum) = (long(16), long(24), word(32));
    if vertex_count >= u32::MAX as u64 || edge_count > u32::MAX as u64 {
        return Err(fail(format!(
            "{vertex_count} vertices and {edge_count} edges do not fit a u32 CSR"
        )));
    }
    let expected = HEADER_BYTES as u64 + 4 * (vertex_count + 1) + 4 * edge_count;
    if length != expected {
        return Err(fail(format!(
            "the header declares {vertex_count} vertices and {edge_count} edges ({expected} bytes), the file has {length} bytes"
        )));
    }
    let mut row_offsets = vec![0u32; vertex_count as usize + 1];
    let mut column_indices = vec![0u32; edge_count as usize];
    file.read_exact(bytemuck::cast_slice_mut(&mut row_offsets))
        .map_err(|error| fail(error.to_string()))?;
    file.read_exact(bytemuck::cast_slice_mut(&mut column_indices))
        .map_err(|error| fail(error.to_string()))?;
    if cfg!(target_endian = "big") {
        row_offsets
            .iter_mut()
            .chain(column_indices.iter_mut())
            .for_each(|value| *value = u32::from_le(*value));
    }
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(bytemuck::cast_slice(&row_offsets));
    hasher.update(bytemuck::cast_slice(&column_indices));
    if hasher.finalize() != checksum {
        return Err(fail("checksum mismatch: the file is corrupt".into()));
    }
    Csr::from_parts(row_offsets, column_indices).map_err(fail)
}
