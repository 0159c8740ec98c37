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

/// Replaces `path` with `size` bytes from `fill`, as [`write_with`] does, but writes them
/// into `spare` (a file of the caller's, on `path`'s file system and outside any folder a
/// reader looks in) instead of a new temporary file, and keeps what `path` held as the
/// next spare. A large file replaced on every cook (a set's container after each edit)
/// then reuses its predecessor's blocks and pages: writing a new file and freeing the old
/// one took twice as long as the write itself. `path` always holds a whole file. When no
/// spare can be used, a new one is made at `spare`'s name, so nothing but the final rename
/// touches `path`'s folder (a caller may be sweeping it meanwhile); only when that fails
/// does the write go through a temporary file beside `path`. `fill` is told, when the
/// file it writes is the spare holding what it held, the spare's metadata as it was
/// opened, before it was cut to `size` (so a caller that knows what it holds may write
/// only what differs); `None` for a new file.
pub fn replace_reusing(
    path: &Path,
    spare: &Path,
    size: u64,
    fill: impl FnOnce(&mut std::fs::File, Option<&std::fs::Metadata>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let (mut file, found) = match reusable(spare, path) {
        Some((file, found)) => (file, Some(found)),
        None => match new_spare(spare) {
            Some(file) => (file, None),
            None => {
                let mut pending = Pending::new(path)?;
                fill(pending.file(), None)?;
                let temp = std::mem::take(&mut pending.temp);
                drop(pending.file.take());
                return swap_in(&temp, path, spare);
            }
        },
    };
    let written = (|| {
        file.set_len(size)?;
        fill(&mut file, found.as_ref())?;
        use std::io::Seek;
        match file.stream_position()? == size {
            true => Ok(()),
            false => Err(std::io::Error::other(
                "the spare was not filled to its size",
            )),
        }
    })();
    drop(file);
    if let Err(e) = written {
        // Half written, it is nobody's: the next write starts a new one.
        let _ = std::fs::remove_file(spare);
        return Err(e);
    }
    // A new spare was made outside `path`'s folder, which may not exist yet.
    if let Err(e) = std::fs::create_dir_all(path.parent().unwrap_or(Path::new("."))) {
        let _ = std::fs::remove_file(spare);
        return Err(e);
    }
    swap_in(spare, path, spare)
}

/// A new, empty spare at `spare`, if nothing is at its name.
fn new_spare(spare: &Path) -> Option<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(spare).ok()
}

/// The spare, opened to be written over, and its metadata, if it is a regular file of its
/// own: one linked anywhere else (`path` itself, after an interrupted swap, or by hand) is
/// removed instead.
fn reusable(spare: &Path, path: &Path) -> Option<(std::fs::File, std::fs::Metadata)> {
    let meta = std::fs::symlink_metadata(spare).ok()?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let opened = meta.is_file().then(|| options.open(spare).ok()).flatten();
    let found = opened.as_ref().and_then(|f| f.metadata().ok());
    let alone = found.as_ref().is_some_and(|m| {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let target = std::fs::symlink_metadata(path).ok();
            m.is_file()
                && m.nlink() == 1
                && m.ino() == meta.ino()
                && target.is_none_or(|t| (t.dev(), t.ino()) != (m.dev(), m.ino()))
        }
        // Without link counts and inodes, a spare that is another name of the live file
        // could not be told apart: it is never written into.
        #[cfg(not(unix))]
        {
            let _ = (m, &meta, path);
            false
        }
    });
    if !alone {
        let _ = std::fs::remove_file(spare);
        return None;
    }
    opened.zip(found)
}

/// Renames `from` over `path`, first linking what `path` held to `keep` (through
/// `<keep>.old`, so `path` is never missing and nothing is freed). Keeping is best effort:
/// another file system, or no file at `path`, keeps nothing.
fn swap_in(from: &Path, path: &Path, keep: &Path) -> std::io::Result<()> {
    let mut kept = keep.as_os_str().to_owned();
    kept.push(".old");
    let kept = std::path::PathBuf::from(kept);
    let _ = std::fs::remove_file(&kept);
    let linked = std::fs::create_dir_all(keep.parent().unwrap_or(Path::new(".")))
        .and_then(|()| std::fs::hard_link(path, &kept))
        .is_ok();
    if let Err(e) = std::fs::rename(from, path) {
        let _ = std::fs::remove_file(from);
        let _ = std::fs::remove_file(&kept);
        return Err(e);
    }
    if linked && std::fs::rename(&kept, keep).is_err() {
        let _ = std::fs::remove_file(&kept);
    }
    Ok(())
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

    /// Held by every test here: the temporary names come from one counter, which a test
    /// predicts, so no other may take a name meanwhile.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn alone() -> std::sync::MutexGuard<'static, ()> {
        ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The temporary name the next write in this process gets (every write of the crate's
    /// tests holds [`alone`], so no other takes it first).
    fn next_temp(dir: &Path) -> std::path::PathBuf {
        let n = COUNTER.load(Ordering::Relaxed);
        dir.join(format!("{TEMP_PREFIX}{}-{n}", std::process::id()))
    }

    #[cfg(unix)]
    #[test]
    fn whatever_is_left_at_the_temporary_name_is_replaced_never_followed() {
        let _alone = alone();
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
    #[cfg(unix)]
    fn inode(path: &Path) -> u64 {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(path).unwrap().ino()
    }

    fn put(
        bytes: &'static [u8],
    ) -> impl FnOnce(&mut std::fs::File, Option<&std::fs::Metadata>) -> std::io::Result<()> {
        move |file, _| file.write_all(bytes)
    }

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_is_kept_as_the_spare_and_the_next_write_goes_into_it() {
        let _alone = alone();
        let dir = tempfile::tempdir().unwrap();
        let (target, spare) = (dir.path().join("set/c.ucas"), dir.path().join("spare/c"));
        replace_reusing(&target, &spare, 5, |file, reused| {
            assert!(reused.is_none(), "a new file is no spare");
            file.write_all(b"first")
        })
        .unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"first");
        assert!(!spare.exists(), "nothing was replaced, so nothing is kept");

        let first = inode(&target);
        replace_reusing(&target, &spare, 6, put(b"second")).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"second");
        assert_eq!(std::fs::read(&spare).unwrap(), b"first");
        assert_eq!(inode(&spare), first, "the old file is kept, not freed");

        // The third write goes into the first file's blocks; a shorter one is cut to size.
        let second = inode(&target);
        let mut held = None;
        replace_reusing(&target, &spare, 2, |file, reused| {
            use std::io::{Read, Seek};
            held = Some((reused.map(|m| m.len()), String::new()));
            file.read_to_string(&mut held.as_mut().unwrap().1)?;
            file.rewind()?;
            file.write_all(b"3d")
        })
        .unwrap();
        // It was told the file is the spare, as long as it was, and could read what it
        // held (cut to size).
        assert_eq!(held, Some((Some(5), "fi".to_string())));
        assert_eq!(std::fs::read(&target).unwrap(), b"3d");
        assert_eq!(inode(&target), first);
        assert_eq!(inode(&spare), second);
        let names: Vec<_> = std::fs::read_dir(dir.path().join("spare"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["c"], "no staging link is left");
    }

    #[cfg(unix)]
    #[test]
    fn a_spare_linked_anywhere_else_is_never_written_into() {
        let _alone = alone();
        let dir = tempfile::tempdir().unwrap();
        let (target, spare) = (dir.path().join("c.ucas"), dir.path().join("spare"));
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, b"keep me").unwrap();
        std::fs::write(&target, b"live").unwrap();
        // The target itself as the spare (an interrupted swap, say): written into, it
        // would change the live file before the swap.
        std::fs::hard_link(&target, &spare).unwrap();
        replace_reusing(&target, &spare, 3, put(b"new")).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::read(&spare).unwrap(), b"live");
        // A link to a file outside, or a second name of the spare, is not followed.
        std::fs::remove_file(&spare).unwrap();
        std::os::unix::fs::symlink(&outside, &spare).unwrap();
        replace_reusing(&target, &spare, 5, put(b"newer")).unwrap();
        std::fs::hard_link(&spare, dir.path().join("second-name")).unwrap();
        replace_reusing(&target, &spare, 6, put(b"newest")).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"newest");
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep me");
        assert_eq!(
            std::fs::read(dir.path().join("second-name")).unwrap(),
            b"new"
        );

        // A FIFO in the spare's place is removed, never opened (opening it would wait for
        // a reader); a link left at the staging name by an interrupted swap is replaced,
        // never followed.
        std::fs::remove_file(&spare).unwrap();
        assert!(std::process::Command::new("mkfifo")
            .arg(&spare)
            .status()
            .unwrap()
            .success());
        let staging = dir.path().join("spare.old");
        std::os::unix::fs::symlink(&outside, &staging).unwrap();
        replace_reusing(&target, &spare, 4, put(b"last")).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"last");
        assert_eq!(std::fs::read(&spare).unwrap(), b"newest");
        assert!(!staging.exists());
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep me");
    }

    #[test]
    fn a_spare_write_that_fails_or_falls_short_leaves_the_target_whole() {
        let _alone = alone();
        let dir = tempfile::tempdir().unwrap();
        let (target, spare) = (dir.path().join("c.ucas"), dir.path().join("spare"));
        replace_reusing(&target, &spare, 3, put(b"one")).unwrap();
        replace_reusing(&target, &spare, 3, put(b"two")).unwrap();
        let failing = |_: &mut std::fs::File, _: Option<&std::fs::Metadata>| {
            Err(std::io::Error::other("a source failed"))
        };
        assert!(replace_reusing(&target, &spare, 3, failing).is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"two");
        assert!(!spare.exists(), "a half-written spare is dropped");
        replace_reusing(&target, &spare, 3, put(b"six")).unwrap();
        assert!(replace_reusing(&target, &spare, 9, put(b"short")).is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"six");
    }
}
