//! File writes a killed cook cannot leave half-done unnoticed. [`write`] goes through a
//! temporary file in the same folder, renamed over the target, so a reader never sees half
//! a file. [`create`] writes a new file in place, for files checked before they are
//! trusted (blobs, verified by hash; set files, trusted by a recorded stamp only).
//!
//! There is no fsync. A killed process cannot tear a renamed file, since its bytes are
//! already in the page cache. A power cut can, but every cache blob is verified against
//! its hash when read, and every materialized file against its expected hash on the next
//! cook, so a torn file is rebuilt rather than trusted. Syncing every file made a cold cook
//! several times slower.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Prefix of temporary files; anything with it is debris from an interrupted write.
pub const TEMP_PREFIX: &str = ".mjolnir-tmp-";

/// Writes a file that must not exist yet, in place: no temporary file and no rename. Only
/// for files whose content is checked before it is trusted (blobs, named by their hash
/// and verified when read; set files, trusted by stamp only once recorded), so a write
/// cut short is found and redone. `Ok(false)` when the file already exists.
pub fn create(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    let open = || {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
    };
    let opened = match open() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
            open()
        }
        other => other,
    };
    // Another worker may make the same blob at the same moment: the file is then theirs.
    let mut file = match opened {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
        other => other?,
    };
    file.write_all(bytes)?;
    Ok(true)
}

pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, |file| file.write_all(bytes))
}

/// Like [`write`], with the bytes written by `fill` as they come (a download, checked as
/// it arrives): when `fill` fails, the temporary file is removed and `path` is untouched.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut pending = Pending::new(path)?;
    fill(pending.file())?;
    pending.finish()
}

/// A write through a temporary file that may span several stages of a cook (the report's
/// step records first, its summary once the cook is done). `path` changes only at
/// [`finish`](Pending::finish); dropped unfinished, the temporary file is removed.
pub struct Pending {
    temp: std::path::PathBuf,
    path: std::path::PathBuf,
    file: Option<std::fs::File>,
}

impl Pending {
    pub fn new(path: &Path) -> std::io::Result<Pending> {
        let dir = path.parent().unwrap_or(Path::new("."));
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!("{TEMP_PREFIX}{}-{n}", std::process::id()));
        // Created new, never opened: whatever is left at the name (a killed cook's file
        // under a reused process id, a link, a FIFO) is removed, not followed or waited on.
        // The folder usually exists; it is made only when creating the file says it is
        // missing, which saves a system call on each of a cold cook's thousands of writes.
        let create = || {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&temp)
        };
        let file = match create() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(dir)?;
                create()?
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                std::fs::remove_file(&temp)?;
                create()?
            }
            other => other?,
        };
        Ok(Pending {
            temp,
            path: path.to_path_buf(),
            file: Some(file),
        })
    }

    pub fn file(&mut self) -> &mut std::fs::File {
        self.file
            .as_mut()
            .expect("an unfinished write has its file")
    }

    /// Closes the temporary file and renames it over the target.
    pub fn finish(mut self) -> std::io::Result<()> {
        drop(self.file.take());
        let renamed = std::fs::rename(&self.temp, &self.path);
        if renamed.is_ok() {
            self.temp.clear();
        }
        renamed
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        drop(self.file.take());
        if !self.temp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The temporary name the next write in this process gets (the writes below are the
    /// crate's only ones, in one test, so no other takes it first).
    fn next_temp(dir: &Path) -> std::path::PathBuf {
        let n = COUNTER.load(Ordering::Relaxed);
        dir.join(format!("{TEMP_PREFIX}{}-{n}", std::process::id()))
    }

    #[cfg(unix)]
    #[test]
    fn whatever_is_left_at_the_temporary_name_is_replaced_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, b"keep me").unwrap();
        let target = dir.path().join("report.json");
        // A link where the next temporary file goes: writing must not go through it.
        std::os::unix::fs::symlink(&outside, next_temp(dir.path())).unwrap();
        write(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep me");
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        // A FIFO there is removed, not opened (which would wait for a reader).
        let fifo = next_temp(dir.path());
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        write(&target, b"newer").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"newer");
        assert!(!fifo.exists());
        // A pending write dropped unfinished leaves the target and no temporary file.
        let mut pending = Pending::new(&target).unwrap();
        pending.file().write_all(b"half").unwrap();
        drop(pending);
        assert_eq!(std::fs::read(&target).unwrap(), b"newer");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }
}
