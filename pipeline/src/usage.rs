//! What each cook used from the cache, for `mjolnir cache stats` and `cache gc`.
//!
//! | file | holds |
//! |---|---|
//! | `<cache>/cooks.log` | a JSON line per cook: its number, time, counts and remote hits (the last [`KEEP_COOKS`]) |
//! | `<cache>/uses.log` | step key → the number of the last cook that used it, as a hit or a run ([`KeyedLog`]) |
//! | `<cache>/uses.log.base` | the size of `uses.log` when it was last read, so an append reads it again only once it has grown well past that (`KeyedLog::append_all`) |
//!
//! `gc` evicts the least recently used keys first, and never a key the last recording
//! cook used: those are the outputs its set folders hold. A sealed no-op cook adds its
//! line to `cooks.log` but no uses: it used exactly what the cook that sealed it did.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::keyed_log::KeyedLog;

const COOKS: &str = "cooks.log";
const USES: &str = "uses.log";
/// How many cooks `cooks.log` remembers.
pub const KEEP_COOKS: usize = 100;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CookLine {
    pub number: u64,
    /// Seconds since the Unix epoch, when the cook ended.
    pub unix_s: u64,
    pub steps: usize,
    pub cached: usize,
    pub run: usize,
    pub failed: usize,
    pub remote_hits: u64,
    pub seconds: f64,
    /// Finished by the no-op seal, without planning.
    pub sealed: bool,
    /// What the cook added to the store's blobs (0 in a line from before it was counted).
    #[serde(default)]
    pub stored_bytes: u64,
}

/// The cooks remembered, oldest first. Torn or unreadable lines are skipped.
pub fn cooks(cache: &Path) -> Vec<CookLine> {
    let text = std::fs::read_to_string(cache.join(COOKS)).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Appends a cook's line (numbered after the last), trimming the file to the last
/// [`KEEP_COOKS`] lines now and then; returns the cook's number.
pub fn record_cook(cache: &Path, mut line: CookLine) -> std::io::Result<u64> {
    // A no-op cook records its line too: only the last line is parsed.
    let earlier = std::fs::read_to_string(cache.join(COOKS)).unwrap_or_default();
    let last = earlier
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<CookLine>(l).ok());
    line.number = last.map_or(1, |l| l.number + 1);
    line.unix_s = now_s();
    let mut text = serde_json::to_vec(&line).expect("a cook line serializes");
    text.push(b'\n');
    let lines: Vec<&str> = earlier.lines().collect();
    if lines.len() >= 2 * KEEP_COOKS {
        let mut kept = lines[lines.len() - KEEP_COOKS + 1..]
            .join("\n")
            .into_bytes();
        kept.push(b'\n');
        kept.extend(text);
        return crate::atomic::write(&cache.join(COOKS), &kept).map(|_| line.number);
    }
    std::fs::create_dir_all(cache)?;
    mjolnir_files::append::open(&cache.join(COOKS))?.write_all(&text)?;
    Ok(line.number)
}

/// Records that cook `number` used these step keys.
pub fn record_uses<'k>(
    cache: &Path,
    number: u64,
    keys: impl IntoIterator<Item = &'k str>,
) -> std::io::Result<()> {
    KeyedLog::<u64>::append_all(&cache.join(USES), keys.into_iter().map(|k| (k, number)))
}

/// Each step key's last use, by cook number.
pub fn uses(cache: &Path) -> std::io::Result<HashMap<String, u64>> {
    let mut log = KeyedLog::<u64>::load(&cache.join(USES))?;
    Ok(log
        .entries()
        .into_iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect())
}

/// Forgets the uses of evicted keys.
pub fn forget<'k>(cache: &Path, keys: impl IntoIterator<Item = &'k str>) -> std::io::Result<()> {
    let mut log = KeyedLog::<u64>::load(&cache.join(USES))?;
    for key in keys {
        log.discard(key)?;
    }
    Ok(())
}

/// Seconds since the Unix epoch.
pub fn now_s() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line() -> CookLine {
        CookLine {
            number: 0,
            unix_s: 0,
            steps: 3,
            cached: 2,
            run: 1,
            failed: 0,
            remote_hits: 0,
            seconds: 0.1,
            sealed: false,
            stored_bytes: 0,
        }
    }

    #[test]
    fn cooks_are_numbered_and_only_the_last_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        for n in 1..=2 * KEEP_COOKS as u64 + 5 {
            assert_eq!(record_cook(dir.path(), line()).unwrap(), n);
        }
        let kept = cooks(dir.path());
        assert!(kept.len() <= 2 * KEEP_COOKS && kept.len() >= KEEP_COOKS);
        assert_eq!(kept.last().unwrap().number, 2 * KEEP_COOKS as u64 + 5);
        record_uses(dir.path(), 7, ["a", "b"]).unwrap();
        forget(dir.path(), ["a"]).unwrap();
        assert_eq!(
            uses(dir.path()).unwrap(),
            HashMap::from([("b".to_string(), 7)])
        );
    }
}
