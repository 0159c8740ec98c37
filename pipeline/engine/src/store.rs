//! The cache: a content-addressed blob store and an action cache from step keys to outputs.
//!
//! Layout under the cache folder:
//!
//! | path | holds |
//! |---|---|
//! | `FORMAT` | the layout version; any other value wipes the cache |
//! | `blobs/<2 hex>/<blake3>` | output bytes (or a spliced output's recipe), named by their hash |
//! | `actions.log` | one JSON line per step key: the outputs it made, sealed to the key ([`KeyedLog`]) |
//! | `last.log` | one JSON line per step: the fingerprint it last built with, for `--explain` |
//! | `WRITING` | present while a cook is writing blobs; left behind by a killed one |
//!
//! Blobs are written before the action line that names them, so a killed cook
//! leaves at worst an unreferenced blob or a torn last line, which does not parse and is
//! ignored. The action log is read once per cook. `last.log` is only read when a step has
//! to run, so a no-op cook never parses it. Every blob is verified against its name when
//! read; a bad one is deleted. An action's outputs carry a seal, the hash of the key and
//! the outputs together, so a record moved to another key (or edited) is dropped as a miss
//! rather than materializing another block's data. A cook that was killed while writing blobs leaves `WRITING`
//! behind, and the next one sweeps the temporary files its writes left in `blobs/`: a
//! no-op cook writes no blob, so it never pays for the marker or the sweep.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::atomic;
use crate::fingerprint::Fingerprint;
use crate::keyed_log::KeyedLog;

mod action_line;

const FORMAT: &str = "mjolnir-cache 5\n";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputRef {
    pub name: String,
    pub hash: String,
    pub size: u64,
    /// A spliced output's (`splice`): `hash` names its recipe, of this many bytes, and
    /// `size` is the size of the bytes it makes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<u64>,
}

impl OutputRef {
    /// The size of the blob `hash` names.
    pub fn blob_size(&self) -> u64 {
        self.recipe.unwrap_or(self.size)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ActionRecord {
    pub key: String,
    pub outputs: Vec<OutputRef>,
}

/// An action's outputs as the log stores them, bound to their key.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Sealed {
    outputs: Vec<OutputRef>,
    seal: String,
}

fn seal(key: &str, outputs: &[OutputRef]) -> blake3::Hash {
    // Written out whole and hashed at once, as a key is (`fingerprint::key_of`): a cook
    // checks thousands of seals. The bytes are those the fields make one after the other.
    let mut m = Vec::with_capacity(96 + outputs.len() * 128);
    m.extend_from_slice(b"mjolnir-action\0");
    m.extend_from_slice(key.as_bytes());
    for o in outputs {
        for field in [o.name.as_bytes(), o.hash.as_bytes(), &o.size.to_le_bytes()] {
            m.extend_from_slice(&(field.len() as u64).to_le_bytes());
            m.extend_from_slice(field);
        }
        if let Some(recipe) = o.recipe {
            m.extend_from_slice(b"recipe");
            m.extend_from_slice(&recipe.to_le_bytes());
        }
    }
    blake3::hash(&m)
}

impl Sealed {
    /// Whether the record is sealed to `key`: compared as hex on the stack, since a cook
    /// checks the seal of every step it finds cached.
    fn is_sealed_to(&self, key: &str) -> bool {
        seal(key, &self.outputs).to_hex().as_str() == self.seal
    }
}

/// The largest blob the store reads back: no step's output comes near it.
pub const MAX_BLOB_BYTES: u64 = 4 << 30;

pub struct Store {
    root: PathBuf,
    /// Read-locked while probing: both threads look up actions at once.
    actions: std::sync::RwLock<KeyedLog<Sealed>>,
    /// Loaded on first use.
    last: Mutex<Option<KeyedLog<Fingerprint>>>,
    /// Set once `WRITING` is written, on the first new blob.
    writing: std::sync::OnceLock<()>,
    /// The bytes of the blobs this cook added.
    added: std::sync::atomic::AtomicU64,
}

const WRITING: &str = "WRITING";

fn hash_hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

impl Store {
    /// Opens (or creates) the cache, wiping it when its layout version is not this one.
    pub fn open(root: &Path) -> std::io::Result<Store> {
        let format_file = root.join("FORMAT");
        // Anything but the one short line (a FIFO, a huge file) is another layout.
        let current = mjolnir_files::bounded::read_text(&format_file, FORMAT.len() as u64).ok();
        if current.as_deref() != Some(FORMAT) {
            // `last/` is the per-step folder of layout 2.
            for sub in ["blobs", "last"] {
                let _ = std::fs::remove_dir_all(root.join(sub));
            }
            for log in ["actions.log", "last.log"] {
                let _ = std::fs::remove_file(root.join(log));
            }
            atomic::write(&format_file, FORMAT.as_bytes())?;
        }
        if root.join(WRITING).exists() {
            sweep_temp_files(&root.join("blobs"))?;
            std::fs::remove_file(root.join(WRITING))?;
        }
        Ok(Store {
            root: root.to_path_buf(),
            actions: std::sync::RwLock::new(KeyedLog::load(&root.join("actions.log"))?),
            last: Mutex::new(None),
            writing: std::sync::OnceLock::new(),
            added: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// Marks the end of this cook's blob writes: nothing is left half-written.
    pub fn close(&self) -> std::io::Result<()> {
        if self.writing.get().is_some() {
            std::fs::remove_file(self.root.join(WRITING))?;
        }
        Ok(())
    }

    /// The file that holds blob `hash`, if `hash` is a blob's name.
    pub fn blob_file(&self, hash: &str) -> Option<PathBuf> {
        check_name(hash).ok().map(|()| self.blob_path(hash))
    }

    fn blob_path(&self, hash: &str) -> PathBuf {
        self.root.join("blobs").join(&hash[..2]).join(hash)
    }

    pub fn put_blob(&self, bytes: &[u8]) -> std::io::Result<String> {
        let hash = hash_hex(bytes);
        self.put_blob_hashed(&hash, bytes)?;
        Ok(hash)
    }

    /// Stores bytes whose hash the caller has just checked (a remote hit's, against its
    /// signed digest), without hashing them again.
    pub fn put_blob_hashed(&self, hash: &str, bytes: &[u8]) -> std::io::Result<()> {
        check_name(hash)?;
        let path = self.blob_path(hash);
        let held = std::fs::metadata(&path).map(|m| m.len());
        if held.as_ref().ok() != Some(&(bytes.len() as u64)) {
            self.mark_writing()?;
            // Named by its hash and verified when read, so a new blob is written in place:
            // one cut short by a kill is shorter than its bytes, and is replaced here.
            if held.is_ok() || !atomic::create(&path, bytes)? {
                atomic::write(&path, bytes)?;
            }
            self.count_added(bytes.len() as u64);
        }
        Ok(())
    }

    fn count_added(&self, bytes: u64) {
        self.added
            .fetch_add(bytes, std::sync::atomic::Ordering::Relaxed);
    }

    /// The bytes of the blobs added since the store was opened: what this cook made the
    /// cache grow by, before any `gc`.
    pub fn bytes_added(&self) -> u64 {
        self.added.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether the store holds a blob of this hash and size, as a regular file
    /// (unverified: it is checked when read).
    pub fn has_blob(&self, hash: &str, size: u64) -> bool {
        check_name(hash).is_ok()
            && std::fs::symlink_metadata(self.blob_path(hash))
                .is_ok_and(|m| m.is_file() && m.len() == size)
    }

    /// Stores a blob as `fill` writes it, without holding it: a download, which `fill`
    /// checks as it arrives and fails when the bytes are not the ones named `hash`. Only a
    /// blob that `fill` accepted is ever put under its name.
    pub fn put_blob_with(
        &self,
        hash: &str,
        fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        check_name(hash)?;
        self.mark_writing()?;
        let path = self.blob_path(hash);
        atomic::write_with(&path, fill)?;
        self.count_added(std::fs::metadata(&path).map_or(0, |m| m.len()));
        Ok(())
    }

    fn mark_writing(&self) -> std::io::Result<()> {
        if self.writing.get().is_none() {
            std::fs::create_dir_all(&self.root)?;
            std::fs::write(self.root.join(WRITING), b"")?;
            let _ = self.writing.set(());
        }
        Ok(())
    }

    /// The blob's bytes, verified: a regular file (a FIFO or a device in the cache never
    /// hangs a cook) of at most [`MAX_BLOB_BYTES`]. A corrupt blob is deleted and `Err`
    /// says why.
    /// `length` bytes of blob `hash` (of `size` bytes) from `offset`, not verified: only
    /// for a blob already found sound. A blob file of another size is unreadable.
    pub fn read_blob_at(
        &self,
        hash: &str,
        size: u64,
        offset: u64,
        length: u64,
    ) -> Result<Vec<u8>, BadBlob> {
        check_name(hash).map_err(|_| BadBlob::Name(hash.to_string()))?;
        let short = hash[..12].to_string();
        let unreadable = |why: String| BadBlob::Unreadable(short.clone(), why);
        let (file, found) = mjolnir_files::bounded::open_regular(&self.blob_path(hash), size)
            .map_err(|e| unreadable(e.to_string()))?;
        if found != size || offset.checked_add(length).is_none_or(|end| end > size) {
            return Err(unreadable(format!("{length} bytes at {offset} of {found}")));
        }
        let mut bytes = vec![0; length as usize];
        crate::leaves::read_exact_at(file.get_ref(), &mut bytes, offset)
            .map_err(|e| unreadable(e.to_string()))?;
        Ok(bytes)
    }

    pub fn get_blob(&self, hash: &str) -> Result<Vec<u8>, BadBlob> {
        self.get_blob_checked(hash, true)
    }

    /// [`get_blob`](Store::get_blob), hashing the bytes only when `verify` is set: for a
    /// blob this cook has already read and verified.
    pub fn get_blob_checked(&self, hash: &str, verify: bool) -> Result<Vec<u8>, BadBlob> {
        // A name read from a file (a spare's ledger) must not reach outside the store: a
        // blob that fails its check is deleted.
        check_name(hash).map_err(|_| BadBlob::Name(hash.to_string()))?;
        let short = hash[..12.min(hash.len())].to_string();
        let path = self.blob_path(hash);
        let bytes = mjolnir_files::bounded::read(&path, MAX_BLOB_BYTES)
            .map_err(|e| BadBlob::Unreadable(short.clone(), e.to_string()))?;
        if verify && hash_hex(&bytes) != hash {
            let _ = std::fs::remove_file(&path);
            return Err(BadBlob::Corrupt(short));
        }
        Ok(bytes)
    }

    /// The recorded outputs for a key. A record whose seal does not match its key is
    /// discarded (the log heals) and reads as a miss.
    pub fn get_action(&self, key: &str) -> Option<ActionRecord> {
        let sealed = self
            .actions
            .read()
            .expect("action log lock")
            .peek_shaped(key, action_line::sealed)?;
        if !sealed.is_sealed_to(key) {
            self.discard_action(key);
            return None;
        }
        Some(ActionRecord {
            key: key.to_string(),
            outputs: sealed.outputs,
        })
    }

    pub fn discard_action(&self, key: &str) {
        let _ = self.actions.write().expect("action log lock").discard(key);
    }

    pub fn put_action(&self, record: &ActionRecord) -> std::io::Result<()> {
        self.actions.write().expect("action log lock").set(
            &record.key,
            &Sealed {
                outputs: record.outputs.clone(),
                seal: seal(&record.key, &record.outputs).to_hex().to_string(),
            },
        )
    }

    /// Every action whose record is sound, by key.
    pub fn actions(&self) -> Vec<ActionRecord> {
        let mut actions = self.actions.write().expect("action log lock");
        let mut records: Vec<ActionRecord> = actions
            .entries()
            .into_iter()
            .filter(|(key, sealed)| sealed.is_sealed_to(key))
            .map(|(key, sealed)| ActionRecord {
                key: key.to_string(),
                outputs: sealed.outputs.clone(),
            })
            .collect();
        records.sort_by(|a, b| a.key.cmp(&b.key));
        records
    }

    /// Every blob held, by hash, with its size on disk, sorted.
    pub fn blobs(&self) -> std::io::Result<Vec<(String, u64)>> {
        let mut blobs = Vec::new();
        for file in files_in_blob_folders(&self.root.join("blobs"))? {
            let name = file.file_name().to_string_lossy().into_owned();
            if !name.starts_with(atomic::TEMP_PREFIX) {
                blobs.push((name, file.metadata()?.len()));
            }
        }
        blobs.sort();
        Ok(blobs)
    }

    pub fn remove_blob(&self, hash: &str) -> std::io::Result<()> {
        match std::fs::remove_file(self.blob_path(hash)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    fn with_last<T>(&self, f: impl FnOnce(&mut KeyedLog<Fingerprint>) -> T) -> std::io::Result<T> {
        let mut last = self.last.lock().expect("fingerprint log lock");
        if last.is_none() {
            *last = Some(KeyedLog::load(&self.root.join("last.log"))?);
        }
        Ok(f(last.as_mut().expect("loaded above")))
    }

    /// Loads the fingerprint log now, if no step has yet: a cook that knows it will ask
    /// soon loads it beside other work. A log that cannot be read is met again when asked.
    pub fn load_fingerprints(&self) {
        let _ = self.with_last(|_| ());
    }

    pub fn last_fingerprint(&self, step: &str) -> Option<Fingerprint> {
        self.with_last(|log| log.get(step).cloned()).ok().flatten()
    }

    pub fn record_fingerprint(&self, step: &str, fingerprint: &Fingerprint) -> std::io::Result<()> {
        self.with_last(|log| log.set(step, fingerprint))?
    }
}

/// A blob's name is its BLAKE3 in lowercase hex: anything else (a name from a remote
/// entry, say) would not name a file of the store.
fn check_name(hash: &str) -> std::io::Result<()> {
    let hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    if hash.len() != 64 || !hash.bytes().all(hex) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{hash:?} is not a blob's name"),
        ));
    }
    Ok(())
}

/// Deletes what interrupted atomic writes left in the blob folders.
fn sweep_temp_files(blobs: &Path) -> std::io::Result<()> {
    for file in files_in_blob_folders(blobs)? {
        if file
            .file_name()
            .to_string_lossy()
            .starts_with(atomic::TEMP_PREFIX)
        {
            std::fs::remove_file(file.path())?;
        }
    }
    Ok(())
}

/// Every file in the blob store's two-letter folders (none when there is no store yet).
fn files_in_blob_folders(blobs: &Path) -> std::io::Result<Vec<std::fs::DirEntry>> {
    let mut files = Vec::new();
    let Ok(folders) = std::fs::read_dir(blobs) else {
        return Ok(files);
    };
    for folder in folders {
        let folder = folder?;
        if folder.file_type()?.is_dir() {
            for file in std::fs::read_dir(folder.path())? {
                files.push(file?);
            }
        }
    }
    Ok(files)
}

/// Why a blob cannot be used; each blob is named by the start of its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadBlob {
    Name(String),
    Unreadable(String, String),
    /// Its bytes no longer hash to its name; it was deleted.
    Corrupt(String),
}

impl std::fmt::Display for BadBlob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadBlob::Name(name) => write!(f, "bad blob name {name:?}"),
            BadBlob::Unreadable(blob, why) => write!(f, "blob {blob} unreadable: {why}"),
            BadBlob::Corrupt(blob) => {
                write!(f, "blob {blob} failed its hash check and was discarded")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_fifo_in_place_of_the_layout_file_is_another_layout_at_once() {
        let dir = tempfile::tempdir().unwrap();
        crate::test_support::make_fifo(&dir.path().join("FORMAT"));
        // Opening neither waits for a writer nor trusts the name: the cache is laid out anew.
        Store::open(dir.path()).unwrap();
        let format = std::fs::read_to_string(dir.path().join("FORMAT")).unwrap();
        assert_eq!(format, FORMAT);
    }

    fn record(key: &str) -> ActionRecord {
        ActionRecord {
            key: key.into(),
            outputs: vec![OutputRef {
                name: "mesh.fgim".into(),
                hash: "ab".repeat(32),
                size: 3,
                recipe: None,
            }],
        }
    }

    #[test]
    fn actions_survive_reopening_and_discards_stick() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.put_action(&record("k1")).unwrap();
        store.put_action(&record("k2")).unwrap();
        store.discard_action("k1");
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert!(store.get_action("k1").is_none());
        assert_eq!(
            store.get_action("k2").unwrap().outputs,
            record("k2").outputs
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_where_a_blob_belongs_is_refused_not_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let hash = store.put_blob(b"cooked bytes").unwrap();
        let path = store.blob_path(&hash);
        std::fs::remove_file(&path).unwrap();
        crate::test_support::make_fifo(&path);
        assert!(matches!(
            store.get_blob(&hash),
            Err(BadBlob::Unreadable(..))
        ));
    }

    #[test]
    fn blobs_are_verified_when_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let hash = store.put_blob(b"cooked bytes").unwrap();
        assert_eq!(store.get_blob(&hash).unwrap(), b"cooked bytes");
        let path = dir.path().join("blobs").join(&hash[..2]).join(&hash);
        std::fs::write(&path, b"cooked bytez").unwrap();
        assert!(store.get_blob(&hash).is_err());
        assert!(!path.exists(), "a corrupt blob is deleted");
    }

    #[test]
    fn a_killed_cooks_temp_files_are_swept_and_a_clean_one_leaves_no_marker() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let hash = store.put_blob(b"cooked bytes").unwrap();
        // Killed mid-write: the marker stays, and a temp file sits beside the blob.
        let debris = dir
            .path()
            .join("blobs")
            .join(&hash[..2])
            .join(format!("{}123-4", atomic::TEMP_PREFIX));
        std::fs::write(&debris, b"half a blo").unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert!(!debris.exists(), "debris is swept");
        assert!(!dir.path().join(WRITING).exists());
        assert_eq!(store.get_blob(&hash).unwrap(), b"cooked bytes");

        store.put_blob(b"more").unwrap();
        assert!(dir.path().join(WRITING).exists());
        store.close().unwrap();
        assert!(!dir.path().join(WRITING).exists());
    }

    #[test]
    fn a_record_moved_to_another_key_is_a_miss_and_is_healed() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.put_action(&record("k1")).unwrap();
        let mut other = record("k2");
        other.outputs[0].hash = "cd".repeat(32);
        store.put_action(&other).unwrap();
        drop(store);
        // k1's line now carries k2's outputs and seal, as a swapped or restored log could.
        let log = dir.path().join("actions.log");
        let text = std::fs::read_to_string(&log).unwrap();
        let k2_value = text
            .lines()
            .find(|l| l.contains("\"k2\""))
            .unwrap()
            .replacen("\"k2\"", "\"k1\"", 1);
        std::fs::write(&log, format!("{text}{k2_value}\n")).unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert!(
            store.get_action("k1").is_none(),
            "a swapped record is not trusted"
        );
        assert_eq!(store.get_action("k2").unwrap().outputs, other.outputs);
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert!(store.get_action("k1").is_none(), "the discard was logged");
    }

    #[test]
    fn workers_storing_the_same_new_blob_at_once_all_succeed() {
        for _ in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open(dir.path()).unwrap();
            let bytes = vec![7u8; 1 << 16];
            std::thread::scope(|s| {
                let puts: Vec<_> = (0..4).map(|_| s.spawn(|| store.put_blob(&bytes))).collect();
                for put in puts {
                    put.join().unwrap().unwrap();
                }
            });
            assert_eq!(store.get_blob(&hash_hex(&bytes)).unwrap(), bytes);
        }
    }

    #[test]
    fn a_blob_cut_short_is_written_again() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let hash = store.put_blob(b"cooked bytes").unwrap();
        let path = dir.path().join("blobs").join(&hash[..2]).join(&hash);
        std::fs::write(&path, b"cooked").unwrap();
        assert_eq!(store.put_blob(b"cooked bytes").unwrap(), hash);
        assert_eq!(std::fs::read(&path).unwrap(), b"cooked bytes");
    }

    #[test]
    fn another_layout_version_wipes_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let hash = store.put_blob(b"x").unwrap();
        store.put_action(&record("k")).unwrap();
        drop(store);
        std::fs::write(dir.path().join("FORMAT"), "mjolnir-cache 0\n").unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert!(store.get_action("k").is_none());
        assert!(store.get_blob(&hash).is_err());
    }

    #[test]
    fn a_blob_name_from_outside_is_checked_before_it_names_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for bad in [
            "../../etc/passwd",
            "AB",
            &"A".repeat(64),
            &format!("{}/x", "a".repeat(62)),
        ] {
            assert!(store.put_blob_hashed(bad, b"x").is_err(), "{bad}");
            assert!(store.put_blob_with(bad, |_| Ok(())).is_err(), "{bad}");
            assert!(!store.has_blob(bad, 1), "{bad}");
            assert!(
                matches!(store.get_blob(bad), Err(BadBlob::Name(_))),
                "{bad}"
            );
            assert!(store.read_blob_at(bad, 1, 0, 1).is_err(), "{bad}");
        }
        // A name that climbs out of the store is never read, nor deleted as a damaged blob.
        let cache = Store::open(&dir.path().join("cache")).unwrap();
        cache.put_blob(b"a blob, so that `blobs/` exists").unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, b"keep me").unwrap();
        // `blobs/<first two characters>/<name>`: `blobs/../../x` is the store's parent's `x`.
        assert!(cache.get_blob("../outside.txt").is_err());
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep me");
        // A FIFO under a blob's name is not a blob the store holds.
        #[cfg(unix)]
        {
            let hash = blake3::hash(b"x").to_hex().to_string();
            let path = dir.path().join("blobs").join(&hash[..2]).join(&hash);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            crate::test_support::make_fifo(&path);
            assert!(!store.has_blob(&hash, 0));
        }
    }
}
