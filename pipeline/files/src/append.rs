//! Appends to the pipeline's own logs (the action and fingerprint logs, the stat cache's
//! journal, the cook log): opened only as regular files of their own. A symbolic link in a
//! log's place is not followed (an append through it would write wherever it points), and
//! a FIFO is refused at once rather than waited on for a reader.

use std::fs::File;
use std::path::Path;

/// The regular file at `path` (made when missing), opened to append to.
pub fn open(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    match file.metadata()?.is_file() {
        true => Ok(file),
        false => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_log_is_appended_to_and_made_when_missing() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("a.log");
        open(&log).unwrap().write_all(b"one\n").unwrap();
        open(&log).unwrap().write_all(b"two\n").unwrap();
        assert_eq!(std::fs::read(&log).unwrap(), b"one\ntwo\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_link_or_a_fifo_in_a_logs_place_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, b"keep me").unwrap();
        let link = dir.path().join("linked.log");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert!(open(&link).is_err());
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep me");
        let fifo = dir.path().join("fifo.log");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        // No reader: opening does not wait for one.
        assert!(open(&fifo).is_err());
        let folder = dir.path().join("folder.log");
        std::fs::create_dir(&folder).unwrap();
        assert!(open(&folder).is_err());
    }
}
