//! The no-op seal: how a cook with nothing to do finishes without planning the graph.
//!
//! A cook that found every step cached and every set folder already right writes
//! `<cache>/noop.seal`: the cook's key (its options and every kind's version) and the stamp
//! of everything that cook looked at: each source file, the pack and model folders whose
//! listings chose the sources, each set file and folder, and the action log. The next cook with the same
//! key stats those paths; if every stamp is unchanged, nothing it would look at changed
//! either, so it would find the same: all cached, nothing to write. It says so and stops,
//! leaving `build/report.*` from the cook that sealed it. Any difference, or a path
//! touched within the racy window when sealing, means the full cook runs (and removes the
//! seal first). Stamps hold the ctime, which no tool can put back.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::stat_cache::{stamp_of, Stamp};

const FILE: &str = "noop.seal";
const FORMAT: &str = "mjolnir-noop-seal 1";
/// Far more than a seal of any cook this layout makes (a line per path it looked at); a
/// larger file, or anything but a regular file at its name, is no seal.
const MAX_SEAL_BYTES: u64 = 256 << 20;

/// What a sealed cook did, to print the same closing line.
pub struct Sealed {
    pub packs: usize,
    pub steps: usize,
}

/// The sealed cook's counts, if `key` matches and every stamp is unchanged.
pub fn check(cache: &Path, key: &str) -> Option<Sealed> {
    let text = mjolnir_files::bounded::read_text(&cache.join(FILE), MAX_SEAL_BYTES).ok()?;
    let mut lines = text.lines();
    if lines.next()? != FORMAT || lines.next()? != key {
        return None;
    }
    let (packs, steps) = lines.next()?.split_once(' ')?;
    let sealed = Sealed {
        packs: packs.parse().ok()?,
        steps: steps.parse().ok()?,
    };
    for line in lines {
        let mut fields = line.splitn(5, ' ');
        let mut number = || fields.next()?.parse::<u64>().ok();
        let recorded = Stamp {
            size: number()?,
            mtime_ns: number()?,
            ctime_ns: number()?,
            inode: number()?,
        };
        let path = fields.next()?;
        if stamp_of(Path::new(path)) != Some(recorded) {
            return None;
        }
    }
    Some(sealed)
}

/// Removes the seal: a full cook is about to change what it vouches for.
pub fn clear(cache: &Path) {
    let _ = std::fs::remove_file(cache.join(FILE));
}

/// Seals a cook that changed nothing, with `paths` in the order to check them: the check
/// stops at the first that changed, so what an author edits goes first. Does nothing when
/// a path is missing, not UTF-8, or was touched within the racy window (the next no-op
/// cook seals instead).
pub fn write(
    cache: &Path,
    key: &str,
    sealed: &Sealed,
    paths: impl IntoIterator<Item = PathBuf>,
) -> std::io::Result<()> {
    let now = SystemTime::now();
    let mut text = format!("{FORMAT}\n{key}\n{} {}\n", sealed.packs, sealed.steps);
    for path in paths {
        let (Some(s), Some(name)) = (stamp_of(&path), path.to_str()) else {
            return Ok(());
        };
        if s.is_racy(now) || name.contains('\n') {
            return Ok(());
        }
        let _ = writeln!(
            text,
            "{} {} {} {} {name}",
            s.size, s.mtime_ns, s.ctime_ns, s.inode
        );
    }
    crate::atomic::write(&cache.join(FILE), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_seal_holds_until_anything_it_covers_changes() {
        let (dir, cache) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let file = dir.path().join("source.gltf");
        std::fs::write(&file, b"one").unwrap();
        std::thread::sleep(crate::stat_cache::RACY_WINDOW + Duration::from_millis(20));
        let sealed = Sealed { packs: 1, steps: 9 };
        let paths = [file.clone(), dir.path().to_path_buf()];
        write(cache.path(), "key", &sealed, paths).unwrap();
        assert_eq!(check(cache.path(), "key").unwrap().steps, 9);
        assert!(check(cache.path(), "other key").is_none());

        std::fs::write(dir.path().join("stray.txt"), b"").unwrap();
        assert!(
            check(cache.path(), "key").is_none(),
            "a new file breaks the seal"
        );
        std::fs::remove_file(dir.path().join("stray.txt")).unwrap();
        std::fs::write(&file, b"one").unwrap();
        assert!(
            check(cache.path(), "key").is_none(),
            "so does rewriting one"
        );
    }

    #[test]
    fn a_path_touched_just_now_is_not_sealed() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("fresh.json");
        std::fs::write(&file, b"{}").unwrap();
        write(dir.path(), "key", &Sealed { packs: 1, steps: 1 }, [file]).unwrap();
        assert!(check(dir.path(), "key").is_none());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_in_place_of_the_seal_is_no_seal_at_once() {
        let cache = tempfile::tempdir().unwrap();
        crate::test_support::make_fifo(&cache.path().join(FILE));
        // Checking does not wait for a writer.
        assert!(check(cache.path(), "key").is_none());
    }
}
