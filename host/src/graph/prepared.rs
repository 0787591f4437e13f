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

use bfs_kernels::abi::chain_contracted;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::EdgeOffset;
use super::chains::{ChainContraction, WeightedRows};
use super::ghost_zones::{MOST_ZONE_VERTICES, ZoneImages};
use super::hierarchy::ContractionHierarchy;
use super::reorder::Renumbering;

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
        self.sections.iter().any(|section| section.kind == kind)
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

/// CRC-32 of `bytes`.
fn crc32(bytes: &[u8]) -> u32 {
    crc32_hasher(bytes).finalize()
}

/// A CRC-32 hasher fed `bytes`, computed in parallel over pieces and
/// combined (the checksum of the pieces in order).
pub(crate) fn crc32_hasher(bytes: &[u8]) -> crc32fast::Hasher {
    const PIECE: usize = 8 << 20;
    bytes
        .par_chunks(PIECE)
        .map(|piece| {
            let mut hasher = crc32fast::Hasher::new();
            hasher.update(piece);
            hasher
        })
        .reduce(crc32fast::Hasher::new, |mut first, second| {
            first.combine(&second);
            first
        })
}

/// A payload being written.
#[derive(Default)]
struct Encoder(Vec<u8>);

impl Encoder {
    fn word(&mut self, word: u32) {
        self.0.extend_from_slice(&u64::from(word).to_le_bytes());
    }

    fn array<T: bytemuck::Pod + ToLittleEndian>(&mut self, values: &[T]) {
        self.0
            .extend_from_slice(&(values.len() as u64).to_le_bytes());
        if cfg!(target_endian = "little") {
            self.0.extend_from_slice(bytemuck::cast_slice(values));
        } else {
            for value in values {
                self.0
                    .extend_from_slice(bytemuck::bytes_of(&value.to_little_endian()));
            }
        }
        self.0.resize(self.0.len().next_multiple_of(8), 0);
    }
}

/// A section's payload being read from its file, each array straight into
/// its vector on every core, the checksum taken as it goes.
struct Decoder<'f> {
    file: &'f std::fs::File,
    at: u64,
    end: u64,
    hasher: crc32fast::Hasher,
}

impl Decoder<'_> {
    /// Reads `bytes` bytes into `into`'s place, hashing them.
    fn read(&mut self, into: &mut [u8]) -> Result<(), String> {
        if self.end - self.at < into.len() as u64 {
            return Err("its arrays run past its end".into());
        }
        read_in_parallel(self.file, self.at, into)
            .map_err(|error| format!("reading it: {error}"))?;
        self.hasher.combine(&crc32_hasher(into));
        self.at += into.len() as u64;
        Ok(())
    }

    /// Reads and hashes `bytes` bytes that hold nothing (padding, or what
    /// is left of a section that failed to decode).
    fn skip(&mut self, bytes: u64) -> Result<(), String> {
        let mut left = bytes;
        let mut buffer = vec![0u8; left.min(16 << 20) as usize];
        while left > 0 {
            let piece = left.min(buffer.len() as u64) as usize;
            self.read(&mut buffer[..piece])?;
            left -= piece as u64;
        }
        Ok(())
    }

    fn long(&mut self) -> Result<u64, String> {
        let mut bytes = [0u8; 8];
        self.read(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    }

    fn word(&mut self) -> Result<u32, String> {
        let value = self.long()?;
        u32::try_from(value).map_err(|_| format!("a word of {value} does not fit 32 bits"))
    }

    fn array<T: bytemuck::Pod + ToLittleEndian>(&mut self) -> Result<Vec<T>, String> {
        let count = self.long()?;
        let bytes = count
            .checked_mul(size_of::<T>() as u64)
            .filter(|&bytes| bytes <= self.end - self.at)
            .ok_or("an array runs past its section's end")?;
        let mut values = vec![T::zeroed(); count as usize];
        self.read(bytemuck::cast_slice_mut(&mut values))?;
        self.skip(bytes.next_multiple_of(8) - bytes)?;
        if cfg!(target_endian = "big") {
            values
                .iter_mut()
                .for_each(|value| *value = value.to_little_endian());
        }
        Ok(values)
    }
}

/// Fills `bytes` from `file` at `offset`, pieces of it on every core.
pub(crate) fn read_in_parallel(
    file: &std::fs::File,
    offset: u64,
    bytes: &mut [u8],
) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    const PIECE: usize = 8 << 20;
    bytes
        .par_chunks_mut(PIECE)
        .enumerate()
        .try_for_each(|(index, piece)| file.read_exact_at(piece, offset + (index * PIECE) as u64))
}

/// Byte order swaps for the payload's element types (the identity on
/// little-endian machines).
trait ToLittleEndian: Copy {
    fn to_little_endian(self) -> Self;
}

impl ToLittleEndian for u16 {
    fn to_little_endian(self) -> Self {
        self.to_le()
    }
}

impl ToLittleEndian for u32 {
    fn to_little_endian(self) -> Self {
        self.to_le()
    }
}

impl ToLittleEndian for u64 {
    fn to_little_endian(self) -> Self {
        self.to_le()
    }
}

fn encode_rows(rows: &WeightedRows, payload: &mut Encoder) {
    payload.array(&rows.row_offsets);
    payload.array(&rows.arcs);
}

fn encode_hierarchy(hierarchy: &ContractionHierarchy, payload: &mut Encoder) {
    let chains = &hierarchy.chains;
    encode_rows(&chains.graph, payload);
    payload.array(&chains.places);
    payload.array(&chains.chains);
    payload.array(&hierarchy.level_starts);
    payload.array(&hierarchy.wide_ends);
    encode_rows(&hierarchy.lower, payload);
    encode_rows(&hierarchy.higher, payload);
    payload.word(hierarchy.shortcuts);
}

/// Decodes `rows` rows of arcs whose heads lie below `heads` and whose
/// weights (path lengths) lie in `1..=vertex_count`.
fn decode_rows(
    payload: &mut Decoder<'_>,
    (rows, heads, vertex_count): (u32, u32, u32),
    what: &str,
) -> Result<WeightedRows, String> {
    let decoded = WeightedRows {
        row_offsets: payload.array::<EdgeOffset>()?,
        arcs: payload.array()?,
    };
    let offsets = &decoded.row_offsets;
    let fits = offsets.len() == rows as usize + 1
        && offsets.first() == Some(&0)
        && offsets.windows(2).all(|pair| pair[0] <= pair[1])
        && offsets.last().copied() == Some(decoded.arcs.len() as EdgeOffset / 2)
        && decoded.arcs.len().is_multiple_of(2)
        && decoded
            .arcs
            .par_chunks(2)
            .all(|arc| arc[0] < heads && (1..=vertex_count).contains(&arc[1]));
    match fits {
        true => Ok(decoded),
        false => Err(format!("its {what} are out of range")),
    }
}

fn decode_hierarchy(
    payload: &mut Decoder<'_>,
    vertex_count: u32,
) -> Result<ContractionHierarchy, String> {
    let contracted_row_offsets = payload.array::<EdgeOffset>()?;
    let kept_count = u32::try_from(contracted_row_offsets.len().saturating_sub(1))
        .map_err(|_| "too many kept vertices")?;
    let contracted = WeightedRows {
        row_offsets: contracted_row_offsets,
        arcs: payload.array()?,
    };
    let places: Vec<u32> = payload.array()?;
    let chain_words: Vec<u32> = payload.array()?;
    let level_starts: Vec<u32> = payload.array()?;
    let wide_ends: Vec<u32> = payload.array()?;
    let shape = (kept_count, kept_count, vertex_count);
    let lower = decode_rows(payload, shape, "lower arcs")?;
    let higher = decode_rows(payload, shape, "higher arcs")?;
    let shortcuts = payload.word()?;
    let chain_count = (chain_words.len() / chain_contracted::CHAIN_WORDS as usize) as u32;
    let contracted_fits = contracted.row_offsets.len() == kept_count as usize + 1
        && contracted
            .row_offsets
            .windows(2)
            .all(|pair| pair[0] <= pair[1])
        && contracted.row_offsets.last().copied() == Some(contracted.arcs.len() as EdgeOffset / 2)
        && contracted.arcs.len().is_multiple_of(2)
        && contracted
            .arcs
            .par_chunks(2)
            .all(|arc| arc[0] < kept_count && (1..=vertex_count).contains(&arc[1]));
    let chains_fit = chain_words
        .len()
        .is_multiple_of(chain_contracted::CHAIN_WORDS as usize)
        && chain_words
            .par_chunks(chain_contracted::CHAIN_WORDS as usize)
            .all(|chain| {
                chain[0] < kept_count && chain[1] < kept_count && chain[2] <= vertex_count
            });
    let places_fit = places.len() == 2 * vertex_count as usize
        && places
            .par_chunks(2)
            .all(|place| match place[0] & chain_contracted::IN_CHAIN {
                0 => place[0] < kept_count,
                _ => {
                    let chain = (place[0] & !chain_contracted::IN_CHAIN) as usize;
                    chain < chain_count as usize
                        && place[1]
                            < chain_words[chain_contracted::CHAIN_WORDS as usize * chain + 2]
                }
            });
    let levels_fit = level_starts.len() >= 2
        && level_starts.first() == Some(&0)
        && level_starts.last() == Some(&kept_count)
        && level_starts.windows(2).all(|pair| pair[0] <= pair[1])
        && wide_ends.len() + 1 == level_starts.len()
        && wide_ends
            .iter()
            .zip(level_starts.windows(2))
            .all(|(&end, level)| level[0] <= end && end <= level[1]);
    if !(contracted_fits && chains_fit && places_fit && levels_fit) {
        return Err("its indices are out of range".into());
    }
    if !arcs_join_levels_in_order(&level_starts, &lower, &higher) {
        return Err("its arcs do not join its levels in order".into());
    }
    Ok(ContractionHierarchy {
        chains: ChainContraction {
            graph: contracted,
            places,
            chains: chain_words,
        },
        level_starts,
        wide_ends,
        lower,
        higher,
        shortcuts,
    })
}

/// Whether each vertex's lower arcs lead to lower levels and its higher
/// arcs to higher ones (a core vertex's, the last level's, to the core),
/// as the sweeps read them: a vertex's distance is final when its level's
/// turn comes.
fn arcs_join_levels_in_order(
    level_starts: &[u32],
    lower: &WeightedRows,
    higher: &WeightedRows,
) -> bool {
    let level_of = |vertex: u32| level_starts.partition_point(|&start| start <= vertex) - 1;
    let core = level_starts.len() - 2;
    let kept_count = level_starts[level_starts.len() - 1];
    (0..kept_count).into_par_iter().all(|vertex| {
        let level = level_of(vertex);
        lower.of(vertex).all(|(head, _)| level_of(head) < level)
            && higher.of(vertex).all(|(head, _)| match level {
                _ if level == core => level_of(head) == core,
                _ => level_of(head) > level,
            })
    })
}

fn encode_zones(zones: &ZoneImages, payload: &mut Encoder) {
    payload.word(zones.partition_size);
    payload.word(zones.hops);
    payload.word(zones.most_zone_vertices);
    payload.array(&zones.renumbering.old_ids);
    payload.array(&zones.records);
    payload.array(&zones.images);
    payload.array(&zones.ghost_of_rows);
    payload.array(&zones.ghost_of);
}

/// Decodes zone images for a graph of `vertex_count` vertices, checking
/// every index the kernel will follow: the renumbering is a permutation,
/// each record names its zone and an image within the images whose
/// layout its vertices, interior and edges give, each image's rows ascend
/// to its edges, its ghosts are vertices, its neighbours lie in the zone,
/// and each ghost list names zones.
fn decode_zones(payload: &mut Decoder<'_>, vertex_count: u32) -> Result<ZoneImages, String> {
    let out_of_range = |what: &str| Err(format!("its {what} are out of range"));
    let partition_size = payload.word()?;
    let hops = payload.word()?;
    let most_zone_vertices = payload.word()?;
    let old_ids: Vec<u32> = payload.array()?;
    let records: Vec<u32> = payload.array()?;
    let images: Vec<u32> = payload.array()?;
    let ghost_of_rows: Vec<u32> = payload.array()?;
    let ghost_of: Vec<u32> = payload.array()?;
    if partition_size == 0
        || hops == 0
        || most_zone_vertices > MOST_ZONE_VERTICES
        || old_ids.len() != vertex_count as usize
    {
        return out_of_range("shape words");
    }
    let new_ids = inverse(&old_ids).ok_or("its renumbering is not a permutation")?;
    let zone_count = vertex_count.div_ceil(partition_size) as usize;
    if records.len() != 4 * zone_count || !images.len().is_multiple_of(4) {
        return out_of_range("zones' records");
    }
    let images_fit = records.par_chunks(4).enumerate().all(|(zone, record)| {
        let [index, first_quad, quads, vertices] = [record[0], record[1], record[2], record[3]];
        let first = zone as u32 * partition_size;
        let interior = partition_size.min(vertex_count - first);
        let (start, words) = (4 * first_quad as usize, 4 * quads as usize);
        if index != zone as u32
            || vertices < interior
            || vertices > most_zone_vertices
            || start + words > images.len()
        {
            return false;
        }
        let image = &images[start..start + words];
        let edges = image.get(vertices as usize).copied().unwrap_or(u32::MAX);
        let layout = bfs_kernels::abi::ghost_zones::GhostZoneImage::new(
            vertices,
            interior,
            edges.min(1 << 30),
        );
        layout.words() as usize == words
            && image[..=vertices as usize]
                .windows(2)
                .all(|pair| pair[0] <= pair[1])
            && image[0] == 0
            && image[layout.rows as usize..][..(vertices - interior) as usize]
                .iter()
                .all(|&ghost| ghost < vertex_count)
            && image[layout.columns_start() as usize..]
                .iter()
                .flat_map(|&pair| [pair & 0xffff, pair >> 16])
                .take(edges as usize)
                .all(|local| local < vertices)
    });
    if !images_fit {
        return out_of_range("zones' images");
    }
    let ascending = ghost_of_rows.first() == Some(&0)
        && ghost_of_rows.last().copied() == Some(ghost_of.len() as u32)
        && ghost_of_rows.par_windows(2).all(|pair| pair[0] <= pair[1]);
    if ghost_of_rows.len() != vertex_count as usize + 1
        || !ascending
        || ghost_of.par_iter().any(|&zone| zone as usize >= zone_count)
    {
        return out_of_range("ghosts' lists");
    }
    Ok(ZoneImages {
        renumbering: Renumbering { old_ids, new_ids },
        partition_size,
        hops,
        most_zone_vertices,
        records,
        images,
        ghost_of_rows,
        ghost_of,
    })
}

/// The inverse of `permutation` (on every core), or `None` if it is none.
fn inverse(permutation: &[u32]) -> Option<Vec<u32>> {
    use std::sync::atomic::{AtomicU32, Ordering};
    let inverse: Vec<AtomicU32> = (0..permutation.len())
        .into_par_iter()
        .map(|_| AtomicU32::new(u32::MAX))
        .collect();
    let unique = permutation.par_iter().enumerate().all(|(new, &old)| {
        inverse
            .get(old as usize)
            .is_some_and(|slot| slot.swap(new as u32, Ordering::Relaxed) == u32::MAX)
    });
    unique.then(|| inverse.into_par_iter().map(AtomicU32::into_inner).collect())
}
