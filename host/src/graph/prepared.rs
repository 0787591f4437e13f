//! Preparations kept with a graph: what `auto` builds before it searches
//! (a contraction hierarchy, ghost zones), stored as sections after a
//! `.bcsr` file's CSR (`bfs prepare`), so that later runs load them instead
//! of building them.
//!
//! A section is a 40-byte header, little-endian: magic `BFSPREP\0`, its
//! kind `u32`, the kind's format version `u32`, the CRC-32 of the graph it
//! was built for (the file header's), a reserved `u32`, the payload's bytes
//! `u64`, the payload's CRC-32 `u32` and a reserved `u32`; then the
//! payload: words and arrays (an array is its element count as `u64`, then
//! its elements, padded to 8 bytes). A section is trusted only when its
//! kind's version is this build's, its graph checksum is the file's, its
//! payload's checksum holds and every index in it lies in range; anything
//! else (a truncated file, a flipped bit, a section from an older build)
//! makes it *unusable*, with a reason, and the run builds what it holds
//! anew.

mod codec;
mod hierarchy_payload;
mod zones_payload;

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use codec::{Decoder, Encoder, crc32};
pub(crate) use codec::{crc32_hasher, read_in_parallel};
use hierarchy_payload::{decode_hierarchy, encode_hierarchy};
use zones_payload::{decode_zones, encode_zones};

use super::ghost_zones::ZoneImages;
use super::hierarchy::ContractionHierarchy;

/// A section header's first eight bytes.
pub const MAGIC: &[u8; 8] = b"BFSPREP\0";
/// Bytes of a section header.
pub const HEADER_BYTES: usize = 40;

/// What a section holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PreparationKind {
    /// `hierarchy-sweep`'s chain contraction and contraction hierarchy.
    Hierarchy,
    /// `ghost-zones`'s partitions and zones.
    GhostZones,
}

impl PreparationKind {
    /// Both kinds, in the order `bfs prepare` writes them.
    pub const ALL: [PreparationKind; 2] = [PreparationKind::Hierarchy, PreparationKind::GhostZones];

    fn code(self) -> u32 {
        match self {
            PreparationKind::Hierarchy => 1,
            PreparationKind::GhostZones => 2,
        }
    }

    fn of_code(code: u32) -> Option<PreparationKind> {
        Self::ALL.into_iter().find(|kind| kind.code() == code)
    }

    /// The version of this kind's payload that this build writes and reads:
    /// raised whenever the payload's layout or meaning changes.
    fn version(self) -> u32 {
        match self {
            PreparationKind::Hierarchy => 1,
            PreparationKind::GhostZones => 1,
        }
    }

    /// Its name in notes and `--json`.
    pub fn name(self) -> &'static str {
        match self {
            PreparationKind::Hierarchy => "contraction hierarchy",
            PreparationKind::GhostZones => "ghost zones",
        }
    }
}

/// A preparation in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Preparation {
    /// For `hierarchy-sweep`.
    Hierarchy(ContractionHierarchy),
    /// For `ghost-zones`: the zones as the device reads them.
    GhostZones(ZoneImages),
}

impl Preparation {
    /// Which kind it is.
    pub fn kind(&self) -> PreparationKind {
        match self {
            Preparation::Hierarchy(_) => PreparationKind::Hierarchy,
            Preparation::GhostZones(_) => PreparationKind::GhostZones,
        }
    }

    /// Writes the section of this preparation for a graph whose checksum
    /// is `graph_checksum`: its header, then its payload.
    pub fn write_section(
        &self,
        graph_checksum: u32,
        writer: &mut impl std::io::Write,
    ) -> std::io::Result<()> {
        let mut payload = Encoder::default();
        match self {
            Preparation::Hierarchy(hierarchy) => encode_hierarchy(hierarchy, &mut payload),
            Preparation::GhostZones(zones) => encode_zones(zones, &mut payload),
        }
        let payload = payload.0;
        let kind = self.kind();
        let mut header = Vec::with_capacity(HEADER_BYTES);
        header.extend_from_slice(MAGIC);
        for word in [kind.code(), kind.version(), graph_checksum, 0] {
            header.extend_from_slice(&word.to_le_bytes());
        }
        header.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        header.extend_from_slice(&crc32(&payload).to_le_bytes());
        header.extend_from_slice(&0u32.to_le_bytes());
        writer.write_all(&header)?;
        writer.write_all(&payload)
    }
}

/// A section found in a file: where its payload lies and what its header says.
#[derive(Clone, Debug)]
struct Section {
    kind: PreparationKind,
    version: u32,
    graph_checksum: u32,
    payload_offset: u64,
    payload_bytes: u64,
    payload_checksum: u32,
    /// Why it cannot be read, where the file ends inside it.
    truncated: Option<String>,
}

/// The sections of one `.bcsr` file, listed from their headers (the
/// payloads are read only when asked for).
#[derive(Clone, Debug, Default)]
pub struct Preparations {
    path: PathBuf,
    graph_checksum: u32,
    sections: Vec<Section>,
    /// What was wrong past the CSR, if anything (a truncated section,
    /// bytes that are no section).
    problem: Option<String>,
}

impl Preparations {
    /// None: a graph that was not loaded from a prepared file.
    pub fn none() -> Preparations {
        Preparations::default()
    }

    /// Lists the sections of the file at `path` from `offset` (where its
    /// CSR ends) to its end; `graph_checksum` is the file header's.
    pub(crate) fn list(path: &Path, graph_checksum: u32, offset: u64) -> Preparations {
        let mut preparations = Preparations {
            path: path.to_path_buf(),
            graph_checksum,
            ..Preparations::default()
        };
        if let Err(problem) = preparations.read_headers(offset) {
            preparations.problem = Some(problem);
        }
        preparations
    }

    fn read_headers(&mut self, mut offset: u64) -> Result<(), String> {
        let mut file = std::fs::File::open(&self.path).map_err(|error| error.to_string())?;
        let length = file.metadata().map_err(|error| error.to_string())?.len();
        while offset < length {
            if length - offset < HEADER_BYTES as u64 {
                return Err(format!(
                    "{} bytes after the last section, too few for a section header (truncated?)",
                    length - offset
                ));
            }
            let mut header = [0u8; HEADER_BYTES];
            file.seek(SeekFrom::Start(offset))
                .and_then(|_| file.read_exact(&mut header))
                .map_err(|error| error.to_string())?;
            if &header[..8] != MAGIC {
                return Err(format!(
                    "bytes at offset {offset} are not a preparation section"
                ));
            }
            let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4"));
            let payload_bytes = u64::from_le_bytes(header[24..32].try_into().expect("8"));
            let payload_offset = offset + HEADER_BYTES as u64;
            let truncated = (payload_bytes > length - payload_offset).then(|| {
                format!(
                    "it declares {payload_bytes} bytes, the file holds {} more (truncated)",
                    length - payload_offset
                )
            });
            match PreparationKind::of_code(word(8)) {
                Some(kind) => self.sections.push(Section {
                    kind,
                    version: word(12),
                    graph_checksum: word(16),
                    payload_offset,
                    payload_bytes,
                    payload_checksum: word(32),
                    truncated: truncated.clone(),
                }),
                None => {
                    self.problem = Some(format!("a section of unknown kind {} (skipped)", word(8)))
                }
            }
            if let Some(truncated) = truncated {
                return Err(truncated);
            }
            offset = payload_offset + payload_bytes;
        }
        Ok(())
    }

    /// Whether the file has a section of `kind` (not yet checked: see
    /// [`load`](Self::load)).
    pub fn has(&self, kind: PreparationKind) -> bool {
        self.section(kind).is_some()
    }

    /// The kinds the file has sections of.
    pub fn kinds(&self) -> Vec<PreparationKind> {
        PreparationKind::ALL
            .into_iter()
            .filter(|&kind| self.has(kind))
            .collect()
    }

    /// Bytes of the payload of `kind`'s section, if there is one: what
    /// loading it reads.
    pub fn payload_bytes(&self, kind: PreparationKind) -> Option<u64> {
        self.section(kind).map(|section| section.payload_bytes)
    }

    /// What was wrong past the graph's CSR, if anything.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    fn section(&self, kind: PreparationKind) -> Option<&Section> {
        self.sections.iter().find(|section| section.kind == kind)
    }

    /// Reads, checks and decodes `kind`'s section for a graph of
    /// `vertex_count` vertices: `None` without one; `Some(Err(why))` when it
    /// is unusable (never trusted then).
    pub fn load(
        &self,
        kind: PreparationKind,
        vertex_count: u32,
    ) -> Option<Result<Preparation, String>> {
        let section = self.section(kind)?;
        Some(self.load_section(section, vertex_count))
    }

    fn load_section(&self, section: &Section, vertex_count: u32) -> Result<Preparation, String> {
        if let Some(truncated) = &section.truncated {
            return Err(truncated.clone());
        }
        if section.version != section.kind.version() {
            return Err(format!(
                "written by a build whose {} format is version {}, this build's is {}",
                section.kind.name(),
                section.version,
                section.kind.version()
            ));
        }
        if section.graph_checksum != self.graph_checksum {
            return Err("built for another graph (its graph checksum differs)".into());
        }
        let file = std::fs::File::open(&self.path).map_err(|error| error.to_string())?;
        let mut decoder = Decoder {
            file: &file,
            at: section.payload_offset,
            end: section.payload_offset + section.payload_bytes,
            hasher: crc32fast::Hasher::new(),
        };
        let decoded = match section.kind {
            PreparationKind::Hierarchy => {
                decode_hierarchy(&mut decoder, vertex_count).map(Preparation::Hierarchy)
            }
            PreparationKind::GhostZones => {
                decode_zones(&mut decoder, vertex_count).map(Preparation::GhostZones)
            }
        };
        // A corrupt section can fail to decode before its checksum is
        // known: read the rest, so that corruption is named as such.
        let left = decoder.end - decoder.at;
        if left > 0 {
            decoder.skip(left)?;
        }
        if decoder.hasher.finalize() != section.payload_checksum {
            return Err("checksum mismatch: the section is corrupt".into());
        }
        let preparation = decoded?;
        if left > 0 {
            return Err("bytes left over after its arrays".into());
        }
        Ok(preparation)
    }
}
