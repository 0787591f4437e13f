//! Reading and writing graph files: where a graph comes from (a file or a
//! generator), each file's format, and the reader for that format.

use std::path::Path;

use super::progress::Progress;
use super::{Csr, binary, dimacs, generate, matrix_market, prepared, snap};
use crate::{Error, Result};

/// Where a graph comes from: a file, or a generator specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphSource {
    /// A Matrix Market file.
    File(std::path::PathBuf),
    /// A generated graph, `gen:SPEC` on the command line (see [`generate::Spec`]).
    Generated(generate::Spec),
}

impl GraphSource {
    /// Parses a `--graph` argument: `gen:SPEC` or a path.
    pub fn parse(argument: &str) -> Result<GraphSource> {
        match argument.strip_prefix("gen:") {
            Some(spec) => Ok(GraphSource::Generated(spec.parse()?)),
            None => Ok(GraphSource::File(argument.into())),
        }
    }

    /// The same source, a generated graph drawn with `seed`.
    pub fn with_seed(mut self, seed: u64) -> GraphSource {
        if let GraphSource::Generated(spec) = &mut self {
            spec.seed = seed;
        }
        self
    }

    /// Loads or generates the graph.
    pub fn load(&self) -> Result<Csr> {
        self.load_with(Reader::Fast)
    }

    /// Loads (with `reader` for Matrix Market) or generates the graph.
    pub fn load_with(&self, reader: Reader) -> Result<Csr> {
        match self {
            GraphSource::File(path) => load_with(path, reader),
            GraphSource::Generated(spec) => spec.generate(),
        }
    }

    /// Loads or generates the graph and, for a binary CSR file, lists the
    /// preparations stored after its CSR.
    pub fn load_prepared(&self, reader: Reader) -> Result<(Csr, prepared::Preparations)> {
        match self {
            GraphSource::File(path) => load_prepared(path, reader),
            GraphSource::Generated(spec) => Ok((spec.generate()?, prepared::Preparations::none())),
        }
    }

    /// A short name for summaries.
    pub fn name(&self) -> String {
        match self {
            GraphSource::File(path) => path.display().to_string(),
            GraphSource::Generated(spec) => format!("gen:{spec}"),
        }
    }
}

/// The file formats the loader reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Matrix Market coordinate (`.mtx`).
    MatrixMarket,
    /// SNAP edge list (`.txt`, `.el`, `.edges`).
    Snap,
    /// DIMACS shortest-path graph (`.gr`).
    Dimacs,
    /// The binary CSR cache (`.bcsr`).
    Binary,
}

/// Which Matrix Market reader to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Reader {
    /// The parallel reader.
    #[default]
    Fast,
    /// `nalgebra-sparse`'s reader, the reference.
    Reference,
}

impl Format {
    /// The format of `path`: by content where it says (the Matrix Market
    /// banner, the binary magic), else by extension (a `.gz` suffix is
    /// looked through), else DIMACS if the first line is a `c` or `p` line,
    /// else SNAP.
    pub fn detect(path: &Path, head: &[u8]) -> Format {
        if head.starts_with(binary::MAGIC) {
            return Format::Binary;
        }
        if head.len() >= 14 && head[..14].eq_ignore_ascii_case(b"%%MatrixMarket") {
            return Format::MatrixMarket;
        }
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let name = name.strip_suffix(".gz").unwrap_or(&name);
        match name.rsplit_once('.').map(|(_, extension)| extension) {
            Some("mtx") => Format::MatrixMarket,
            Some("gr") => Format::Dimacs,
            Some("bcsr") => Format::Binary,
            Some("txt" | "el" | "edges" | "snap" | "tsv") => Format::Snap,
            _ if head.starts_with(b"c ") || head.starts_with(b"p ") => Format::Dimacs,
            _ => Format::Snap,
        }
    }
}

/// Loads a graph file of any supported format, with the fast reader.
pub fn load(path: &Path) -> Result<Csr> {
    load_with(path, Reader::Fast)
}

/// Loads a graph file of any supported format: plain files are
/// memory-mapped, `.gz` files decompressed as they stream in. A progress bar
/// appears on a terminal when the load takes more than a second.
pub fn load_with(path: &Path, reader: Reader) -> Result<Csr> {
    load_prepared(path, reader).map(|(graph, _)| graph)
}

/// [`load_with`], and for a binary CSR file the preparations stored
/// after its CSR (none for the other formats).
pub fn load_prepared(path: &Path, reader: Reader) -> Result<(Csr, prepared::Preparations)> {
    let io_error = |error| Error::Io {
        path: path.into(),
        error,
    };
    let format_error = |(line, message): (Option<u64>, String)| Error::Format {
        path: path.into(),
        line,
        message,
    };
    let file = std::fs::File::open(path).map_err(io_error)?;
    let mut head = [0u8; 16];
    let head_length = std::io::Read::read(&mut &file, &mut head).map_err(io_error)?;
    let head = &head[..head_length];
    let decompressed;
    let mapped;
    let bytes: &[u8] = if head.starts_with(&[0x1f, 0x8b]) {
        let mut text = Vec::new();
        let mut decoder =
            flate2::read::MultiGzDecoder::new(std::fs::File::open(path).map_err(io_error)?);
        std::io::Read::read_to_end(&mut decoder, &mut text).map_err(io_error)?;
        decompressed = text;
        &decompressed
    } else {
        if Format::detect(path, head) == Format::Binary {
            return binary::read_prepared(path).map_err(format_error);
        }
        // SAFETY: the map is only read; as with any reader of a file, one
        // changed underneath by another process gives wrong data (or SIGBUS
        // if truncated), never unsoundness in this process's own memory.
        mapped = unsafe { memmap2::Mmap::map(&file) }.map_err(io_error)?;
        &mapped
    };
    let progress = Progress::bytes(path, bytes.len() as u64);
    let report = |bytes| progress.advance(bytes);
    let graph = match Format::detect(path, &bytes[..bytes.len().min(16)]) {
        Format::MatrixMarket if reader == Reader::Reference => {
            let text = std::str::from_utf8(bytes)
                .map_err(|error| format_error((None, format!("not UTF-8: {error}"))))?;
            matrix_market::parse_reference(text)
        }
        Format::MatrixMarket => matrix_market::parse(bytes, &report),
        Format::Snap => snap::parse(bytes, &report),
        Format::Dimacs => dimacs::parse(bytes, &report),
        Format::Binary => {
            return Err(format_error((
                None,
                "a compressed binary CSR file is not supported".into(),
            )));
        }
    };
    progress.finish();
    let graph = graph.map_err(format_error)?;
    Ok((graph, prepared::Preparations::none()))
}

/// Writes `graph` to `path`: the binary CSR cache for `.bcsr`, else Matrix Market.
pub fn save(graph: &Csr, path: &Path) -> Result<()> {
    save_ordered(graph, path, matrix_market::EntryOrder::RowMajor)
}

/// [`save`], a Matrix Market file's entries in `order` (a binary cache is
/// always in CSR order).
pub fn save_ordered(graph: &Csr, path: &Path, order: matrix_market::EntryOrder) -> Result<()> {
    let binary = path
        .extension()
        .is_some_and(|extension| extension == "bcsr");
    crate::output::write_with(path, |mut writer| {
        if binary {
            binary::write(graph, &mut writer)
        } else {
            matrix_market::write(graph, order, &mut writer)
        }
    })
}
