//! Remembers the content hash of each source file by (size, mtime, inode), so a no-op cook
//! does not re-read unchanged sources.
//!
//! An entry is trusted only if all three match. Files modified within [`RACY_WINDOW`] of
//! saving are not recorded, since a second edit in the same timestamp tick would otherwise
//! go unseen. A missing, old or unreadable cache file just means rehashing everything.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::atomic;

const FORMAT: u32 = 1;
const RACY_WINDOW: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    size: u64,
    mtime_ns: u128,
    inode: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    #[serde(flatten)]
    stamp: Stamp,
    hash: String,
}

#[derive(Serialize, Deserialize)]
struct OnDisk {
    format: u32,
    entries: BTreeMap<PathBuf, Entry>,
}

pub struct StatCache {
    file: PathBuf,
    entries: Mutex<BTreeMap<PathBuf, Entry>>,
}

/// A source file read (or recognised) through the cache.
#[derive(Debug, Clone)]
pub struct Hashed {
    pub hash: String,
    pub size: u64,
    /// The bytes, when the file had to be read to hash it.
    pub bytes: Option<Vec<u8>>,
}

fn stamp(meta: &std::fs::Metadata) -> Stamp {
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(meta);
    #[cfg(not(unix))]
    let inode = 0;
    let mtime_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Stamp {
        size: meta.len(),
        mtime_ns,
        inode,
    }
}

impl StatCache {
    pub fn open(file: PathBuf) -> StatCache {
        let entries = std::fs::read(&file)
            .ok()
            .and_then(|b| serde_json::from_slice::<OnDisk>(&b).ok())
            .filter(|d| d.format == FORMAT)
            .map(|d| d.entries)
            .unwrap_or_default();
        StatCache {
            file,
            entries: Mutex::new(entries),
        }
    }

    /// The content hash of `path`, reading the file only when its stamp changed.
    pub fn hash(&self, path: &Path) -> std::io::Result<Hashed> {
        let meta = std::fs::symlink_metadata(path)?;
        let now = stamp(&meta);
        if let Some(e) = self.entries.lock().expect("stat cache lock").get(path) {
            if e.stamp == now {
                return Ok(Hashed {
                    hash: e.hash.clone(),
                    size: now.size,
                    bytes: None,
                });
            }
        }
        let bytes = std::fs::read(path)?;
        let hash = blake3::hash(&bytes).to_hex().to_string();
        self.entries.lock().expect("stat cache lock").insert(
            path.to_path_buf(),
            Entry {
                stamp: now,
                hash: hash.clone(),
            },
        );
        Ok(Hashed {
            hash,
            size: bytes.len() as u64,
            bytes: Some(bytes),
        })
    }

    /// Records a file the pipeline just wrote, whose hash it already knows.
    pub fn record(&self, path: &Path, hash: &str) {
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            self.entries.lock().expect("stat cache lock").insert(
                path.to_path_buf(),
                Entry {
                    stamp: stamp(&meta),
                    hash: hash.to_string(),
                },
            );
        }
    }

    pub fn forget(&self, path: &Path) {
        self.entries.lock().expect("stat cache lock").remove(path);
    }

    pub fn save(&self) -> std::io::Result<()> {
        let horizon = SystemTime::now()
            .checked_sub(RACY_WINDOW)
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let entries: BTreeMap<PathBuf, Entry> = self
            .entries
            .lock()
            .expect("stat cache lock")
            .iter()
            .filter(|(p, e)| e.stamp.mtime_ns < horizon && p.exists())
            .map(|(p, e)| (p.clone(), e.clone()))
            .collect();
        let bytes = serde_json::to_vec(&OnDisk {
            format: FORMAT,
            entries,
        })
        .expect("stat cache serializes");
        atomic::write(&self.file, &bytes)
    }
}
