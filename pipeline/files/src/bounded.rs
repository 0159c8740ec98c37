//! Reads that trust nothing about the file: it must be a regular file (checked on the
//! opened handle, so a swap after the check cannot slip a FIFO in), and it is read to at
//! most `limit` bytes whatever its metadata says. On Unix the file is opened non-blocking,
//! so opening a FIFO returns at once instead of waiting for a writer.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Why a bounded read failed.
#[derive(Debug)]
pub enum ReadError {
    NotFound,
    /// A folder, FIFO, socket or device.
    NotAFile,
    /// Larger than the limit, which it names.
    TooLarge(u64),
    NotUtf8,
    Io(std::io::Error),
}

impl ReadError {
    /// The stable code reported for it.
    pub fn code(&self) -> &'static str {
        match self {
            ReadError::NotFound => "not_found",
            ReadError::NotAFile => "not_a_file",
            ReadError::TooLarge(_) => "too_large",
            ReadError::NotUtf8 => "not_utf8",
            ReadError::Io(_) => "unreadable",
        }
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            ReadError::NotFound => write!(f, "it does not exist"),
            ReadError::NotAFile => write!(f, "it is not a regular file"),
            ReadError::TooLarge(limit) => write!(f, "it is larger than {limit} bytes"),
            ReadError::NotUtf8 => write!(f, "it is not UTF-8 text"),
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

fn open(path: &Path) -> Result<File, ReadError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ReadError::NotFound,
        _ => ReadError::Io(e),
    })
}

/// The regular file at `path` and its size, refused when it holds more than `limit`
/// bytes, to be read as a stream of at most `limit + 1` bytes (one more, so a file that
/// grew while read is seen to be too large).
pub fn open_regular(path: &Path, limit: u64) -> Result<(std::io::Take<File>, u64), ReadError> {
    let file = open(path)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile);
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge(limit));
    }
    Ok((file.take(limit + 1), meta.len()))
}

/// The bytes of the regular file at `path`, at most `limit` of them.
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let (mut file, size) = open_regular(path, limit)?;
    let mut bytes = Vec::with_capacity(size as usize);
    file.read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(limit));
    }
    Ok(bytes)
}

/// The text of the regular file at `path`, at most `limit` bytes of UTF-8.
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    String::from_utf8(read(path, limit)?).map_err(|_| ReadError::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "hello").unwrap();
        assert_eq!(read_text(&file, 5).unwrap(), "hello");
        assert!(matches!(read(&file, 4), Err(ReadError::TooLarge(4))));
        assert!(matches!(read(dir.path(), 10), Err(ReadError::NotAFile)));
        let missing = dir.path().join("none");
        assert_eq!(read(&missing, 10).unwrap_err().code(), "not_found");
        std::fs::write(&file, [0xff, 0xfe]).unwrap();
        assert_eq!(read_text(&file, 10).unwrap_err().code(), "not_utf8");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(read(&fifo, 10).unwrap_err().code(), "not_a_file");
    }
}
