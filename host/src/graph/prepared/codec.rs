//! A preparation section's payload, written and read: words and
//! little-endian arrays padded to 8 bytes, read on every core with the
//! CRC-32 taken as it goes.

use rayon::prelude::*;

/// CRC-32 of `bytes`.
pub(super) fn crc32(bytes: &[u8]) -> u32 {
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
pub(super) struct Encoder(pub(super) Vec<u8>);

impl Encoder {
    pub(super) fn word(&mut self, word: u32) {
        self.0.extend_from_slice(&u64::from(word).to_le_bytes());
    }

    pub(super) fn array<T: bytemuck::Pod + ToLittleEndian>(&mut self, values: &[T]) {
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
pub(super) struct Decoder<'f> {
    pub(super) file: &'f std::fs::File,
    pub(super) at: u64,
    pub(super) end: u64,
    pub(super) hasher: crc32fast::Hasher,
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
    pub(super) fn skip(&mut self, bytes: u64) -> Result<(), String> {
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

    pub(super) fn word(&mut self) -> Result<u32, String> {
        let value = self.long()?;
        u32::try_from(value).map_err(|_| format!("a word of {value} does not fit 32 bits"))
    }

    pub(super) fn array<T: bytemuck::Pod + ToLittleEndian>(&mut self) -> Result<Vec<T>, String> {
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
pub(super) trait ToLittleEndian: Copy {
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
