//! Writing results: one value per line, in vertex order, replaced atomically.

use std::io::{BufWriter, Write};
use std::path::Path;

use crate::{Error, Result, UNREACHED};

/// Writes one value per line (`-1` for [`UNREACHED`]) to `path`, atomically
/// (see [`write_atomically`]).
pub fn write_per_vertex(path: &Path, values: &[u32]) -> Result<()> {
    write_atomically(path, |writer| {
        for &value in values {
            if value == UNREACHED {
                writer.write_all(b"-1\n")?;
            } else {
                writeln!(writer, "{value}")?;
            }
        }
        Ok(())
    })
}

/// Writes `text` to `path`, atomically.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    write_atomically(path, |writer| writer.write_all(text.as_bytes()))
}

/// Writes through a temporary file in the same directory, renamed over
/// `path` at the end, so a failure never leaves a partial file or clobbers
/// an existing one.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<()> {
    let io_error = |error| Error::Io {
        path: path.into(),
        error,
    };
    let file_name = path.file_name().ok_or_else(|| {
        io_error(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a file name",
        ))
    })?;
    let mut temporary_name = std::ffi::OsString::from(".");
    temporary_name.push(file_name);
    temporary_name.push(format!(".{}.tmp", std::process::id()));
    let temporary = path.with_file_name(temporary_name);
    let written = (|| {
        let mut writer = BufWriter::new(std::fs::File::create(&temporary)?);
        write(&mut writer)?;
        writer
            .into_inner()
            .map_err(|error| error.into_error())?
            .sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.map_err(io_error)
}
