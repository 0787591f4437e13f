//! Writing results where the user points them: one value per line, in
//! vertex order, or any text.
//!
//! `-` is standard output. A symbolic link is followed and the file it
//! points to written, the link kept. A FIFO, a device or any other file that
//! is not a regular one is written in place, as a shell's `>` would. A
//! regular file or a new path is replaced atomically, through a temporary
//! file renamed over it, so a failure (a full disk) never leaves a partial
//! file or clobbers the old one. [`check_room`] checks a file's size
//! against the disk before the work that fills it; `npy.rs` writes NumPy's
//! `.npy` arrays.

pub mod npy;

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result, UNREACHED};

/// The path that means standard output.
pub const STANDARD_OUTPUT: &str = "-";

/// Symbolic links followed before giving up, as the kernel's own limit.
const MOST_LINKS: usize = 40;

/// Writes one value per line (`-1` for [`UNREACHED`]) to `path` (see [`write_with`]).
pub fn write_per_vertex(path: &Path, values: &[u32]) -> Result<()> {
    write_with(path, |writer| {
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

/// Checks that `bytes` of output fit on the file system `path` is
/// written to (its free space for unprivileged users, by `statvfs`), before
/// the work that makes them: standard output, a FIFO or a device is not
/// checked. The error says how much is needed and how much is free.
pub fn check_room(path: &Path, bytes: u64) -> Result<()> {
    if path == Path::new(STANDARD_OUTPUT) {
        return Ok(());
    }
    let target = follow_links(path)?;
    if let Ok(metadata) = std::fs::metadata(&target)
        && !metadata.is_file()
    {
        return Ok(());
    }
    let folder = match target.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    let io_error = |error| Error::Io {
        path: folder.into(),
        error,
    };
    let name = std::ffi::CString::new(folder.as_os_str().as_encoded_bytes())
        .map_err(|error| io_error(std::io::Error::other(error)))?;
    let mut status = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `name` is a NUL-terminated path and `status` a buffer of the
    // structure `statvfs` fills; it is read only where the call succeeds.
    if unsafe { libc::statvfs(name.as_ptr(), status.as_mut_ptr()) } != 0 {
        return Err(io_error(std::io::Error::last_os_error()));
    }
    // SAFETY: `statvfs` succeeded, so it filled `status`.
    let status = unsafe { status.assume_init() };
    let free = status.f_bavail.saturating_mul(status.f_frsize);
    if bytes > free {
        return Err(Error::OutputTooLarge(format!(
            "{} needs {} MB, {} has {} MB free",
            path.display(),
            bytes.div_ceil(1_000_000),
            folder.display(),
            free / 1_000_000
        )));
    }
    Ok(())
}

/// Writes `text` to `path` (see [`write_with`]).
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    write_with(path, |writer| writer.write_all(text.as_bytes()))
}

/// Writes through `write` to `path`: standard output for `-`; the file a
/// symbolic link points to, the link kept; a FIFO, device or other
/// non-regular file in place; a regular file or a new path atomically.
pub fn write_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    if path == Path::new(STANDARD_OUTPUT) {
        let mut writer = BufWriter::new(std::io::stdout().lock());
        return write(&mut writer)
            .and_then(|()| writer.flush())
            .map_err(|error| Error::Io {
                path: "standard output".into(),
                error,
            });
    }
    let target = follow_links(path)?;
    let io_error = |error| Error::Io {
        path: target.clone(),
        error,
    };
    match std::fs::metadata(&target) {
        Ok(metadata) if !metadata.is_file() && !metadata.is_dir() => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(io_error)?;
            let mut writer = BufWriter::new(file);
            write(&mut writer)
                .and_then(|()| writer.flush())
                .map_err(io_error)
        }
        _ => write_atomically(&target, write),
    }
}

/// The file `path` names once every symbolic link on the way is followed
/// (the path itself when it is no link, or names nothing yet).
fn follow_links(path: &Path) -> Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MOST_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let link = std::fs::read_link(&current).map_err(|error| Error::Io {
                    path: current.clone(),
                    error,
                })?;
                current = match current.parent() {
                    Some(directory) if link.is_relative() => directory.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(Error::Io {
        path: path.into(),
        error: std::io::Error::other(format!("more than {MOST_LINKS} symbolic links")),
    })
}

/// Writes through a temporary file in the same directory, renamed over
/// `path` at the end, so a failure never leaves a partial file or clobbers
/// an existing one.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
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
