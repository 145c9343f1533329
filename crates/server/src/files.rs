//! Private files in the data dir: written atomically with mode 0600, the dir itself 0700.

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Reading or writing a file failed.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// The cause.
    pub source: std::io::Error,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> FileError + '_ {
    move |source| FileError {
        path: path.to_owned(),
        source,
    }
}

/// Creates `dir` (mode 0700) if it does not exist.
pub fn create_private_dir(dir: &Path) -> Result<(), FileError> {
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io_err(dir))
}

/// Writes `bytes` to `path` with mode 0600, through a temporary file and a rename.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    write_private_with(path, bytes, true)
}

/// Like [`write_private`] without the fsync, for files that are rewritten on every start.
pub fn write_private_unsynced(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    write_private_with(path, bytes, false)
}

fn write_private_with(path: &Path, bytes: &[u8], sync: bool) -> Result<(), FileError> {
    let tmp = path.with_extension("tmp");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(io_err(&tmp))?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))
        .map_err(io_err(&tmp))?;
    file.write_all(bytes).map_err(io_err(&tmp))?;
    if sync {
        file.sync_all().map_err(io_err(&tmp))?;
    }
    std::fs::rename(&tmp, path).map_err(io_err(path))
}

/// Reads `path` as text; `None` when it does not exist.
pub fn read_to_string_opt(path: &Path) -> Result<Option<String>, FileError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(FileError {
            path: path.to_owned(),
            source,
        }),
    }
}
