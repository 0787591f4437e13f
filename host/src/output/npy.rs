//! NumPy's `.npy` files, format version 1.0 (NumPy's `numpy.lib.format`,
//! NEP 1): the magic `\x93NUMPY`, the version, a little-endian 16-bit
//! header length, a Python dict literal (`descr`, `fortran_order`,
//! `shape`) padded with spaces and a newline so that the data starts at a
//! multiple of 64 bytes, then the values, little-endian, in C order.

use std::path::Path;

use super::write_with;
use crate::{Error, Result};

/// Bytes the data of an `.npy` file starts at a multiple of.
const ALIGNMENT: usize = 64;

/// The magic string and version 1.0.
const MAGIC: &[u8; 8] = b"\x93NUMPY\x01\x00";

/// A value `.npy` files hold: its NumPy type and its little-endian bytes.
pub trait Element: Copy {
    /// NumPy's type string, `<f8` and so on.
    const DESCR: &'static str;
    /// Appends the value's little-endian bytes to `bytes`.
    fn put(self, bytes: &mut Vec<u8>);
}

impl Element for f64 {
    const DESCR: &'static str = "<f8";
    fn put(self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.to_le_bytes());
    }
}

impl Element for i32 {
    const DESCR: &'static str = "<i4";
    fn put(self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.to_le_bytes());
    }
}

impl Element for u64 {
    const DESCR: &'static str = "<u8";
    fn put(self, bytes: &mut Vec<u8>) {
        bytes.extend_from_slice(&self.to_le_bytes());
    }
}

/// The header of an array of `T` of `shape`: magic, version, length, dict.
pub fn header<T: Element>(shape: &[usize]) -> Vec<u8> {
    let dimensions: Vec<String> = shape.iter().map(usize::to_string).collect();
    let shape = match dimensions.as_slice() {
        [one] => format!("({one},)"),
        all => format!("({})", all.join(", ")),
    };
    let dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        T::DESCR
    );
    let unpadded = MAGIC.len() + 2 + dict.len() + 1;
    let length = dict.len() + unpadded.next_multiple_of(ALIGNMENT) - unpadded + 1;
    let mut header = MAGIC.to_vec();
    header.extend_from_slice(&(length as u16).to_le_bytes());
    header.extend_from_slice(dict.as_bytes());
    header.resize(MAGIC.len() + 2 + length - 1, b' ');
    header.push(b'\n');
    header
}

/// Bytes of an `.npy` file of `T` of `shape`.
pub fn file_bytes<T: Element>(shape: &[usize]) -> u64 {
    let values: u64 = shape.iter().map(|&length| length as u64).product();
    header::<T>(shape).len() as u64 + values * size_of::<T>() as u64
}

/// Writes `values`, an array of `shape` in C order, to `path` as `.npy`
/// (through [`write_with`]: atomically where `path` is a regular file).
pub fn write<T: Element>(path: &Path, shape: &[usize], values: &[T]) -> Result<()> {
    let length: usize = shape.iter().product();
    if length != values.len() {
        return Err(Error::Unsupported(format!(
            "{} values for an array of shape {shape:?}",
            values.len()
        )));
    }
    write_with(path, |writer| {
        writer.write_all(&header::<T>(shape))?;
        let mut bytes = Vec::with_capacity(1 << 16);
        for chunk in values.chunks((1 << 16) / size_of::<T>()) {
            bytes.clear();
            for &value in chunk {
                value.put(&mut bytes);
            }
            writer.write_all(&bytes)?;
        }
        Ok(())
    })
}

/// Whether `path` names an `.npy` file (by its extension, in any case).
pub fn is_npy(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension.eq_ignore_ascii_case("npy"))
}

#[cfg(test)]
mod tests {
    use super::{Element, header};

    #[test]
    fn headers_are_padded_to_64_bytes_and_end_in_a_newline() {
        for shape in [&[3][..], &[0], &[2, 5], &[123_456_789, 987_654_321]] {
            let bytes = header::<f64>(shape);
            assert_eq!(bytes.len() % 64, 0, "{shape:?}");
            assert_eq!(bytes.last(), Some(&b'\n'));
            let length = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
            assert_eq!(length + 10, bytes.len());
            let text = String::from_utf8_lossy(&bytes[10..]);
            assert!(text.starts_with("{'descr': '<f8', 'fortran_order': False, 'shape': ("));
        }
        let text = String::from_utf8(header::<i32>(&[4])[10..].to_vec()).unwrap();
        assert!(text.contains("'shape': (4,)"), "{text}");
        assert_eq!(<i32 as Element>::DESCR, "<i4");
    }
}
