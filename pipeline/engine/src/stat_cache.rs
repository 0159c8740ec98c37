//! Remembers the content hash of each source file by (size, mtime, ctime, inode), so a
//! no-op cook does not re-read unchanged sources.
//!
//! An entry is trusted only if all four match. The ctime is what catches an edit whose
//! mtime was put back (`touch -d`, an extractor, a careless script): no tool can set it.
//! Files modified or changed within [`RACY_WINDOW`] of saving are not recorded, since a second edit in the same timestamp tick would otherwise
//! go unseen. Linux stamps files from a coarse clock (a few milliseconds), well inside it. A missing, old or unreadable cache file just means rehashing everything.
//!
//! Saving appends what this cook changed to a journal beside the file (`stat-cache.log`,
//! a JSON line per change) rather than writing every entry again: an edit of one block
//! of a catalog-sized pack changes a dozen of its thousands of entries, and writing them
//! all was the longest part of the cook's end. Once the journal holds a quarter of the
//! file's bytes, the file is written whole and the journal removed. Every line states a
//! fact that was true when it was written (a stamp's content, a content's derived fact,
//! or a forgotten path), so a journal left beside a newer file, or cut short, misleads no
//! lookup: a stale stamp matches no file.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::atomic;
use mjolnir_files::bounded::ReadError;

const FORMAT: u32 = 4;
pub const RACY_WINDOW: Duration = Duration::from_millis(100);

/// What identifies a file's version without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub size: u64,
    pub mtime_ns: u64,
    pub ctime_ns: u64,
    pub inode: u64,
}

impl Stamp {
    /// Whether the file was touched within [`RACY_WINDOW`] of `now`: a second edit in the
    /// same timestamp tick could then go unseen, so such a stamp is not trusted later.
    pub fn is_racy(&self, now: SystemTime) -> bool {
        let horizon = now
            .checked_sub(RACY_WINDOW)
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as u64);
        self.mtime_ns.max(self.ctime_ns) >= horizon
    }
}

/// A file's entry in memory; on disk it is a [`Row`].
#[derive(Debug, Clone)]
struct Entry {
    stamp: Stamp,
    hash: String,
    /// Whether this cook found the file as stamped (or wrote it): saving then need not
    /// ask whether it still exists.
    seen: bool,
}

/// The file: every entry a row, sorted by path, and the derived facts.
#[derive(Serialize, Deserialize)]
struct OnDisk<P, H> {
    format: u32,
    entries: Vec<Row<P, H>>,
    /// Facts derived from a file's content (a glTF's buffer URIs), by
    /// `<deriver>@<version>:<content hash>`.
    #[serde(default)]
    derived: BTreeMap<String, Vec<String>>,
}

/// One file as `[path, size, mtime_ns, ctime_ns, inode, hash]`: rows rather than objects,
/// since naming each field of thousands of entries made up half the file, and reading it
/// back was the largest part of opening a catalog-sized cache.
#[derive(Serialize, Deserialize)]
struct Row<P, H>(P, u64, u64, u64, u64, H);

impl Row<String, String> {
    fn into_entry(self) -> (OsString, Entry) {
        let Row(path, size, mtime_ns, ctime_ns, inode, hash) = self;
        let stamp = Stamp {
            size,
            mtime_ns,
            ctime_ns,
            inode,
        };
        let entry = Entry {
            stamp,
            hash,
            seen: false,
        };
        (path.into(), entry)
    }
}

impl<'a> Row<&'a str, &'a str> {
    fn of(path: &'a str, entry: &'a Entry) -> Self {
        let s = &entry.stamp;
        Row(path, s.size, s.mtime_ns, s.ctime_ns, s.inode, &entry.hash)
    }
}

/// Larger than the cache of any build folder this layout writes; a larger file is not
/// read, and every source is hashed again.
const MAX_FILE_BYTES: u64 = 1 << 30;

/// The journal's name beside the file's.
const JOURNAL: &str = "log";

/// A journal line: a path's row, a path forgotten (`[path]`), or a derived fact.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Change<P, H> {
    Set(Row<P, H>),
    Forget((P,)),
    Derived { derived: P, facts: Vec<H> },
}

/// What this process changed since the cache was read, for the journal.
#[derive(Default)]
struct Dirty {
    paths: HashSet<OsString>,
    derived: HashSet<String>,
}

pub struct StatCache {
    file: PathBuf,
    /// What changed since loading: an unchanged cache is not written.
    dirty: Mutex<Dirty>,
    /// The bytes of the file and of its journal, as read.
    read_bytes: (u64, u64),
    // Hashed in memory: a no-op cook looks up every source and output, and ordered path
    // comparisons showed in its profile. Keyed by the path's bytes: hashing a `Path`
    // walks its components, which showed too. The file on disk stays sorted.
    entries: Mutex<HashMap<OsString, Entry>>,
    derived: Mutex<BTreeMap<String, Vec<String>>>,
    /// Folders found to be (or not be) symbolic links this cook: every source in a folder
    /// asks, and the answer is the same for all of them.
    links: Mutex<HashMap<PathBuf, bool>>,
    /// Each source's hash and size as this cook first found it. A source many steps read
    /// (a pack's manifest: four steps per block) is stat'ed once, and every step of the
    /// cook sees the same version of it.
    this_cook: Mutex<HashMap<OsString, (String, u64)>>,
    /// The sources this cook had to read to hash: those changed since the cache saw them.
    read_this_cook: Mutex<HashSet<OsString>>,
}

/// A source file read (or recognised) through the cache.
#[derive(Debug, Clone)]
pub struct Hashed {
    pub hash: String,
    pub size: u64,
    /// The bytes, when the file had to be read to hash it.
    pub bytes: Option<Vec<u8>>,
}

/// The stamp of whatever is at `path` (not followed if a link), if anything is.
pub fn stamp_of(path: &Path) -> Option<Stamp> {
    std::fs::symlink_metadata(path).ok().map(|m| stamp(&m))
}

pub fn stamp(meta: &std::fs::Metadata) -> Stamp {
    #[cfg(unix)]
    let (inode, ctime_ns) = {
        use std::os::unix::fs::MetadataExt;
        let ctime = meta.ctime() as u64 * 1_000_000_000 + meta.ctime_nsec() as u64;
        (meta.ino(), ctime)
    };
    #[cfg(not(unix))]
    let (inode, ctime_ns) = (0, 0);
    let mtime_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    Stamp {
        size: meta.len(),
        mtime_ns,
        ctime_ns,
        inode,
    }
}

/// A spliced file's recipe is kept with the derived facts, by the file's content hash
/// (so it is dropped with the last file of that content). For a spliced file that hash is
/// its leaves' root (`leaves`), not the BLAKE3 of its bytes: version 2, so a fact recorded
/// under the other is never read as this one.
fn spliced_key(content_hash: &str) -> String {
    format!("spliced@2:{content_hash}")
}

impl StatCache {
    pub fn open(file: PathBuf) -> StatCache {
        let whole = mjolnir_files::bounded::read(&file, MAX_FILE_BYTES).unwrap_or_default();
        let (mut entries, mut derived): (HashMap<OsString, Entry>, _) =
            serde_json::from_slice::<OnDisk<String, String>>(&whole)
                .ok()
                .filter(|d| d.format == FORMAT)
                .map(|d| {
                    (
                        d.entries.into_iter().map(Row::into_entry).collect(),
                        d.derived,
                    )
                })
                .unwrap_or_default();
        let journal =
            mjolnir_files::bounded::read(&journal_of(&file), MAX_FILE_BYTES).unwrap_or_default();
        replay(&journal, &mut entries, &mut derived);
        StatCache {
            file,
            dirty: Mutex::new(Dirty::default()),
            read_bytes: (whole.len() as u64, journal.len() as u64),
            entries: Mutex::new(entries),
            derived: Mutex::new(derived),
            links: Mutex::new(HashMap::new()),
            this_cook: Mutex::new(HashMap::new()),
            read_this_cook: Mutex::new(HashSet::new()),
        }
    }

    /// Whether `folder` is a symbolic link, asked of the file system once per cook.
    pub fn is_link(&self, folder: &Path) -> bool {
        if let Some(&known) = self.links.lock().expect("stat cache lock").get(folder) {
            return known;
        }
        let link = std::fs::symlink_metadata(folder).is_ok_and(|m| m.file_type().is_symlink());
        self.links
            .lock()
            .expect("stat cache lock")
            .insert(folder.to_path_buf(), link);
        link
    }

    /// The recorded hash and size of `path` if its stamp is unchanged; `None` when it would
    /// have to be read (or cannot be).
    pub fn lookup(&self, path: &Path) -> Option<(String, u64)> {
        if let Some(known) = self.found_this_cook(path) {
            return Some(known);
        }
        let meta = std::fs::symlink_metadata(path).ok()?;
        if !meta.is_file() {
            return None;
        }
        let mut entries = self.entries.lock().expect("stat cache lock");
        let entry = entries
            .get_mut(path.as_os_str())
            .filter(|e| e.stamp == stamp(&meta))?;
        entry.seen = true;
        let found = (entry.hash.clone(), meta.len());
        drop(entries);
        self.found(path, &found.0, found.1);
        Some(found)
    }

    /// Forgets what this cook found, for a cache kept from one cook to the next (a test's
    /// bench): a cook opens its own, so each sees the sources as they are when it starts.
    pub fn new_cook(&self) {
        self.this_cook.lock().expect("stat cache lock").clear();
        self.read_this_cook.lock().expect("stat cache lock").clear();
    }

    /// Whether `path` changed since the cache last saw it: this cook had to read it to
    /// hash it, or would have to (its stamp is not the recorded one).
    pub fn changed_this_cook(&self, path: &Path) -> bool {
        let read =
            (self.read_this_cook.lock().expect("stat cache lock")).contains(path.as_os_str());
        read || self.lookup(path).is_none()
    }

    fn found_this_cook(&self, path: &Path) -> Option<(String, u64)> {
        self.this_cook
            .lock()
            .expect("stat cache lock")
            .get(path.as_os_str())
            .cloned()
    }

    fn found(&self, path: &Path, hash: &str, size: u64) {
        self.this_cook
            .lock()
            .expect("stat cache lock")
            .insert(path.as_os_str().to_owned(), (hash.to_string(), size));
    }

    /// The content hash of `path`, reading the file only when its stamp changed.
    /// Symlinks and anything but a regular file are refused with `InvalidInput`: sources
    /// must live inside the pack folder, and a link could point anywhere.
    pub fn hash(&self, path: &Path) -> std::io::Result<Hashed> {
        if let Some((hash, size)) = self.found_this_cook(path) {
            return Ok(Hashed {
                hash,
                size,
                bytes: None,
            });
        }
        let meta = std::fs::symlink_metadata(path)?;
        if meta.file_type().is_symlink() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "it is a symlink",
            ));
        }
        if !meta.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "it is not a regular file",
            ));
        }
        let now = stamp(&meta);
        if let Some(e) = self
            .entries
            .lock()
            .expect("stat cache lock")
            .get_mut(path.as_os_str())
        {
            if e.stamp == now {
                e.seen = true;
                let hash = e.hash.clone();
                self.found(path, &hash, now.size);
                return Ok(Hashed {
                    hash,
                    size: now.size,
                    bytes: None,
                });
            }
        }
        // Read no further than the size just seen: a file that grew since is an error,
        // and one swapped for a FIFO is refused, not waited on.
        let bytes = mjolnir_files::bounded::read(path, now.size).map_err(|e| match e {
            ReadError::Io(e) => e,
            ReadError::NotFound => std::io::ErrorKind::NotFound.into(),
            e => std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()),
        })?;
        let hash = blake3::hash(&bytes).to_hex().to_string();
        self.mark_dirty(path);
        self.entries.lock().expect("stat cache lock").insert(
            path.as_os_str().to_owned(),
            Entry {
                stamp: now,
                hash: hash.clone(),
                seen: true,
            },
        );
        self.found(path, &hash, bytes.len() as u64);
        self.read_this_cook
            .lock()
            .expect("stat cache lock")
            .insert(path.as_os_str().to_owned());
        Ok(Hashed {
            hash,
            size: bytes.len() as u64,
            bytes: Some(bytes),
        })
    }

    /// A fact computed from the file's content by `derive`, remembered by content hash and
    /// by the deriving code's name and version (a new importer may read a file
    /// differently), so an unchanged file is neither read nor parsed again. `None` when the
    /// file is unreadable.
    pub fn derived(
        &self,
        path: &Path,
        deriver: &str,
        version: u32,
        derive: impl FnOnce(&[u8]) -> Vec<String>,
    ) -> Option<Vec<String>> {
        let hashed = self.hash(path).ok()?;
        let key = |hash: &str| format!("{deriver}@{version}:{hash}");
        if let Some(fact) = self
            .derived
            .lock()
            .expect("stat cache lock")
            .get(&key(&hashed.hash))
        {
            return Some(fact.clone());
        }
        // Bytes read just now for the hash are hashed already; bytes read again (the stamp
        // was known) are hashed, since the file may have changed in between.
        let (bytes, hash) = match hashed.bytes {
            Some(b) => (b, hashed.hash),
            None => {
                let b = mjolnir_files::bounded::read(path, hashed.size).ok()?;
                let h = blake3::hash(&b).to_hex().to_string();
                (b, h)
            }
        };
        let fact = derive(&bytes);
        self.add_derived(key(&hash), fact.clone());
        Some(fact)
    }

    fn add_derived(&self, key: String, facts: Vec<String>) {
        self.dirty
            .lock()
            .expect("stat cache lock")
            .derived
            .insert(key.clone());
        self.derived
            .lock()
            .expect("stat cache lock")
            .insert(key, facts);
    }

    /// The content hash recorded for `path`, whose metadata the caller already has (from a
    /// directory listing), if it is a regular file and its stamp is unchanged.
    pub fn recorded(&self, path: &Path, meta: &std::fs::Metadata) -> Option<String> {
        let mut entries = self.entries.lock().expect("stat cache lock");
        let entry = entries
            .get_mut(path.as_os_str())
            .filter(|e| e.stamp == stamp(meta))?;
        entry.seen = true;
        meta.is_file().then(|| entry.hash.clone())
    }

    /// Records a file written from a spliced output: its content hash, and the hash of
    /// the recipe that made it, so a later cook that finds a file with that content (its
    /// stamp unknown, say) knows which recipe it is, without assembling anything.
    pub fn record_spliced(&self, path: &Path, content_hash: &str, recipe_hash: &str) {
        self.record(path, content_hash);
        self.add_derived(spliced_key(content_hash), vec![recipe_hash.to_string()]);
    }

    /// [`record_spliced`](Self::record_spliced) for a file found as `meta`.
    pub fn record_spliced_stamped(
        &self,
        path: &Path,
        meta: &std::fs::Metadata,
        content_hash: &str,
        recipe_hash: &str,
    ) {
        self.record_stamped(path, meta, content_hash);
        self.add_derived(spliced_key(content_hash), vec![recipe_hash.to_string()]);
    }

    /// The recipe that made a file of content `content_hash`, as [`record_spliced`] saw.
    pub fn spliced_recipe(&self, content_hash: &str) -> Option<String> {
        let derived = self.derived.lock().expect("stat cache lock");
        derived.get(&spliced_key(content_hash))?.first().cloned()
    }

    /// Whether any file was recorded as written from recipe `recipe_hash`.
    pub fn knows_recipe(&self, recipe_hash: &str) -> bool {
        let derived = self.derived.lock().expect("stat cache lock");
        derived.iter().any(|(key, facts)| {
            key.starts_with("spliced@") && facts.first().map(String::as_str) == Some(recipe_hash)
        })
    }

    /// Records a file the pipeline just wrote, whose hash it already knows.
    pub fn record(&self, path: &Path, hash: &str) {
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            self.record_stamped(path, &meta, hash);
        }
    }

    /// Records the hash of `path` as read after `meta` was taken of it.
    pub fn record_stamped(&self, path: &Path, meta: &std::fs::Metadata, hash: &str) {
        self.mark_dirty(path);
        self.entries.lock().expect("stat cache lock").insert(
            path.as_os_str().to_owned(),
            Entry {
                stamp: stamp(meta),
                hash: hash.to_string(),
                seen: true,
            },
        );
    }

    pub fn forget(&self, path: &Path) {
        self.this_cook
            .lock()
            .expect("stat cache lock")
            .remove(path.as_os_str());
        if self
            .entries
            .lock()
            .expect("stat cache lock")
            .remove(path.as_os_str())
            .is_some()
        {
            self.mark_dirty(path);
        }
    }

    fn mark_dirty(&self, path: &Path) {
        self.dirty
            .lock()
            .expect("stat cache lock")
            .paths
            .insert(path.as_os_str().to_owned());
    }

    /// Saves what changed, if anything did: to the journal, or, once the journal would
    /// hold a quarter of the file's bytes, the whole file. Entries modified or changed
    /// within [`RACY_WINDOW`] are left out.
    pub fn save(&self) -> std::io::Result<()> {
        {
            let dirty = self.dirty.lock().expect("stat cache lock");
            if dirty.paths.is_empty() && dirty.derived.is_empty() {
                return Ok(());
            }
        }
        let now = SystemTime::now();
        let lines = self.journal_lines(now);
        let (file_bytes, journal_bytes) = self.read_bytes;
        if file_bytes == 0 || (journal_bytes + lines.len() as u64) * 4 > file_bytes {
            return self.write_whole(now);
        }
        // Anything but a regular file in the journal's place (a link, a FIFO) is replaced
        // by writing the whole file, which removes it.
        match mjolnir_files::append::open(&journal_of(&self.file)) {
            Ok(mut journal) => std::io::Write::write_all(&mut journal, &lines),
            Err(_) => self.write_whole(now),
        }
    }

    /// The journal's lines for this cook: each path it recorded (or forgot, or whose
    /// stamp is racy), each entry whose file is gone, each fact it derived.
    fn journal_lines(&self, now: SystemTime) -> Vec<u8> {
        let all = self.entries.lock().expect("stat cache lock");
        let dirty = self.dirty.lock().expect("stat cache lock");
        let gone = all
            .iter()
            .filter(|(p, e)| !e.seen && !Path::new(p).exists())
            .map(|(p, _)| p);
        let mut paths: Vec<&OsString> = dirty.paths.iter().chain(gone).collect();
        paths.sort_unstable();
        paths.dedup();
        let mut out = Vec::new();
        for path in paths {
            let Some(name) = path.to_str() else { continue };
            let change = match all.get(path).filter(|e| e.seen && !e.stamp.is_racy(now)) {
                Some(entry) => Change::Set(Row::of(name, entry)),
                None => Change::Forget((name,)),
            };
            line(&mut out, &change);
        }
        let derived = self.derived.lock().expect("stat cache lock");
        let mut keys: Vec<&String> = dirty.derived.iter().collect();
        keys.sort_unstable();
        for key in keys {
            if let Some(facts) = derived.get(key) {
                let facts = facts.iter().map(String::as_str).collect();
                line(
                    &mut out,
                    &Change::Derived {
                        derived: key.as_str(),
                        facts,
                    },
                );
            }
        }
        out
    }

    /// Writes every entry to the file, sorted, and removes the journal.
    fn write_whole(&self, now: SystemTime) -> std::io::Result<()> {
        let all = self.entries.lock().expect("stat cache lock");
        // Sorted as text: ordering thousands of paths component by component was half
        // of saving. The file is JSON: a path that is not UTF-8 is not remembered, only
        // rehashed.
        let mut entries: Vec<Row<&str, &str>> = all
            .iter()
            .filter(|(_, e)| !e.stamp.is_racy(now))
            .filter(|(p, e)| e.seen || Path::new(p).exists())
            .filter_map(|(p, e)| Some(Row::of(p.to_str()?, e)))
            .collect();
        entries.sort_unstable_by_key(|row| row.0);
        // A racy file's stamp is not kept, but what was derived from its content is: the
        // next cook that reads it again finds it.
        let live: std::collections::HashSet<&str> = all.values().map(|e| e.hash.as_str()).collect();
        let derived = self
            .derived
            .lock()
            .expect("stat cache lock")
            .iter()
            // Keyed `<deriver>@<version>:<hash>`: kept while a file with that content is.
            .filter(|(key, _)| key.rsplit_once(':').is_some_and(|(_, h)| live.contains(h)))
            .map(|(h, f)| (h.clone(), f.clone()))
            .collect();
        let bytes = serde_json::to_vec(&OnDisk {
            format: FORMAT,
            entries,
            derived,
        })
        .expect("stat cache serializes");
        atomic::write(&self.file, &bytes)?;
        // What the journal held is in the file now. One that cannot be removed states only
        // facts, and anything else in its place is never read as a journal.
        let _ = std::fs::remove_file(journal_of(&self.file));
        Ok(())
    }
}

/// Applies the journal's lines in order; one that does not read (the last one of a
/// killed cook) is left out.
fn replay(
    journal: &[u8],
    entries: &mut HashMap<OsString, Entry>,
    derived: &mut BTreeMap<String, Vec<String>>,
) {
    for line in journal.split(|&b| b == b'\n') {
        match serde_json::from_slice::<Change<String, String>>(line) {
            Ok(Change::Set(row)) => {
                let (path, entry) = row.into_entry();
                entries.insert(path, entry);
            }
            Ok(Change::Forget((path,))) => {
                entries.remove(std::ffi::OsStr::new(&path));
            }
            Ok(Change::Derived {
                derived: key,
                facts,
            }) => {
                derived.insert(key, facts);
            }
            Err(_) => {}
        }
    }
}

/// The journal beside the cache file `file`.
fn journal_of(file: &Path) -> PathBuf {
    file.with_extension(JOURNAL)
}

/// Appends `change` to `out` as one JSON line.
fn line(out: &mut Vec<u8>, change: &Change<&str, &str>) {
    serde_json::to_writer(&mut *out, change).expect("a journal line serializes");
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ages `file` out of the racy window: an old mtime, and a wait for the ctime that
    /// setting it changed.
    fn settle(file: &Path) {
        let old = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(file)
            .unwrap()
            .set_modified(old)
            .unwrap();
        std::thread::sleep(RACY_WINDOW + Duration::from_millis(20));
    }

    #[test]
    fn a_saved_cache_recognises_unchanged_files_without_reading_them() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("model.bin");
        std::fs::write(&file, b"bytes").unwrap();
        settle(&file);
        let cache = StatCache::open(dir.path().join("stat-cache.json"));
        let first = cache.hash(&file).unwrap();
        assert!(first.bytes.is_some(), "a new file is read");
        cache.save().unwrap();

        let reopened = StatCache::open(dir.path().join("stat-cache.json"));
        let again = reopened.hash(&file).unwrap();
        assert!(again.bytes.is_none(), "an unchanged file is not read again");
        assert_eq!(again.hash, first.hash);
        assert_eq!(reopened.lookup(&file), Some((first.hash.clone(), 5)));

        std::fs::write(&file, b"other").unwrap();
        assert_eq!(
            reopened.lookup(&file),
            Some((first.hash.clone(), 5)),
            "one cook sees one version of a source"
        );
        reopened.new_cook();
        assert_eq!(reopened.lookup(&file), None, "a changed stamp is a miss");
        assert!(reopened.hash(&file).unwrap().bytes.is_some());
    }

    #[test]
    fn recently_modified_files_are_not_trusted_after_saving() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("fresh.bin");
        std::fs::write(&file, b"bytes").unwrap();
        let cache = StatCache::open(dir.path().join("stat-cache.json"));
        cache.hash(&file).unwrap();
        cache.save().unwrap();
        let reopened = StatCache::open(dir.path().join("stat-cache.json"));
        assert_eq!(reopened.lookup(&file), None);
    }

    #[test]
    fn symlinks_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("real"), b"x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link")).unwrap();
        let cache = StatCache::open(dir.path().join("stat-cache.json"));
        let err = cache.hash(&dir.path().join("link")).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
        assert_eq!(cache.lookup(&dir.path().join("link")), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_in_place_of_the_cache_file_is_an_empty_cache_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("stat-cache.json");
        crate::test_support::make_fifo(&file);
        let source = dir.path().join("a.txt");
        std::fs::write(&source, b"x").unwrap();
        // Opening does not wait for a writer, and the cache knows nothing yet.
        let cache = StatCache::open(file);
        assert_eq!(cache.lookup(&source), None);
    }

    #[test]
    fn a_derived_fact_survives_saving_and_is_keyed_by_its_deriver_version() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("model.gltf");
        std::fs::write(&file, b"{}").unwrap();
        settle(&file);
        let cache_file = dir.path().join("stat-cache.json");
        let cache = StatCache::open(cache_file.clone());
        let fact = cache.derived(&file, "import", 1, |_| vec!["a.bin".into()]);
        assert_eq!(fact.unwrap(), ["a.bin"]);
        cache.save().unwrap();

        let cache = StatCache::open(cache_file);
        let unread = cache.derived(&file, "import", 1, |_| panic!("the saved fact is used"));
        assert_eq!(unread.unwrap(), ["a.bin"]);
        let newer = cache.derived(&file, "import", 2, |_| vec!["b.bin".into()]);
        assert_eq!(newer.unwrap(), ["b.bin"], "a new importer derives again");
    }

    /// `count` settled files in `dir`, named `f<i>.bin`.
    fn settled_files(dir: &Path, count: usize) -> Vec<PathBuf> {
        let files: Vec<PathBuf> = (0..count)
            .map(|i| {
                let file = dir.join(format!("f{i}.bin"));
                std::fs::write(&file, format!("content {i}")).unwrap();
                let old = SystemTime::now() - Duration::from_secs(60);
                std::fs::File::options()
                    .write(true)
                    .open(&file)
                    .unwrap()
                    .set_modified(old)
                    .unwrap();
                file
            })
            .collect();
        std::thread::sleep(RACY_WINDOW + Duration::from_millis(20));
        files
    }

    /// A folder of `count` settled files and a cache in it that hashed and saved the
    /// first `hashed` of them.
    struct Saved {
        _dir: tempfile::TempDir,
        files: Vec<PathBuf>,
        cache_file: PathBuf,
        journal: PathBuf,
    }

    fn saved(count: usize, hashed: usize) -> Saved {
        let dir = tempfile::tempdir().unwrap();
        let files = settled_files(dir.path(), count);
        let cache_file = dir.path().join("stat-cache.json");
        let journal = dir.path().join("stat-cache.log");
        let cache = StatCache::open(cache_file.clone());
        for f in &files[..hashed] {
            cache.hash(f).unwrap();
        }
        cache.save().unwrap();
        assert!(!journal.exists(), "a first save writes the whole file");
        Saved {
            _dir: dir,
            files,
            cache_file,
            journal,
        }
    }

    #[test]
    fn a_few_changes_go_to_the_journal_and_read_back_over_the_file() {
        let Saved {
            _dir,
            files,
            cache_file,
            journal,
        } = saved(40, 39);
        let whole = std::fs::read(&cache_file).unwrap();

        let cache = StatCache::open(cache_file.clone());
        cache.hash(&files[39]).unwrap();
        cache.forget(&files[0]);
        for f in &files[1..39] {
            assert!(cache.hash(f).unwrap().bytes.is_none());
        }
        cache.save().unwrap();
        assert_eq!(
            std::fs::read(&cache_file).unwrap(),
            whole,
            "the file is not rewritten"
        );
        let lines = std::fs::read_to_string(&journal).unwrap();
        assert_eq!(lines.lines().count(), 2, "{lines}");

        let cache = StatCache::open(cache_file.clone());
        assert!(
            cache.hash(&files[39]).unwrap().bytes.is_none(),
            "set in the journal"
        );
        assert!(
            cache.hash(&files[0]).unwrap().bytes.is_some(),
            "forgotten in it"
        );
        assert!(
            cache.hash(&files[1]).unwrap().bytes.is_none(),
            "kept from the file"
        );
    }

    #[test]
    fn a_journal_past_a_quarter_of_the_file_is_folded_into_it() {
        let Saved {
            _dir,
            files,
            cache_file,
            journal,
        } = saved(40, 1);
        // Thirty-nine new entries against a file of one: written whole.
        let cache = StatCache::open(cache_file.clone());
        for f in &files {
            cache.hash(f).unwrap();
        }
        cache.save().unwrap();
        assert!(!journal.exists());
        let cache = StatCache::open(cache_file);
        assert!(files.iter().all(|f| cache.hash(f).unwrap().bytes.is_none()));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_or_a_fifo_in_the_journals_place_is_never_written_through_or_waited_on() {
        let Saved {
            _dir,
            files,
            cache_file,
            journal,
        } = saved(42, 40);
        let outside = cache_file.with_file_name("outside.txt");
        std::fs::write(&outside, b"keep me").unwrap();
        let stand_ins: [&dyn Fn(&Path); 2] = [
            &|j| std::os::unix::fs::symlink(&outside, j).unwrap(),
            &|j| crate::test_support::make_fifo(j),
        ];
        // Each time one new entry against a file of forty: a journal's worth of change, but
        // nothing to take it but the whole file.
        for (stand_in, new) in stand_ins.into_iter().zip(&files[40..]) {
            stand_in(&journal);
            let cache = StatCache::open(cache_file.clone());
            assert!(cache.hash(new).unwrap().bytes.is_some());
            cache.save().unwrap();
            assert_eq!(std::fs::read(&outside).unwrap(), b"keep me");
            assert!(
                std::fs::symlink_metadata(&journal).is_err(),
                "it was removed"
            );
            let cache = StatCache::open(cache_file.clone());
            assert!(
                cache.hash(new).unwrap().bytes.is_none(),
                "the file holds it"
            );
        }
    }

    #[test]
    fn a_torn_or_hostile_journal_misleads_no_lookup() {
        let Saved {
            _dir,
            files,
            cache_file,
            journal,
        } = saved(2, 1);
        let known = StatCache::open(cache_file.clone())
            .hash(&files[0])
            .unwrap()
            .hash;
        // A line cut short, a line of another shape, and a row whose stamp no file has.
        let row = format!(
            "[{:?},1,2,3,4,\"{}\"]\n[\"x\"\n{{\"derived\":7}}\n[{:?},",
            files[1].to_str().unwrap(),
            "0".repeat(64),
            files[0].to_str().unwrap()
        );
        std::fs::write(&journal, row).unwrap();
        let cache = StatCache::open(cache_file.clone());
        assert!(cache.hash(&files[0]).unwrap().bytes.is_none());
        assert_eq!(cache.hash(&files[0]).unwrap().hash, known);
        assert!(
            cache.hash(&files[1]).unwrap().bytes.is_some(),
            "its stamp is not the file's"
        );
        // A FIFO in the journal's place is no journal, at once.
        #[cfg(unix)]
        {
            std::fs::remove_file(&journal).unwrap();
            crate::test_support::make_fifo(&journal);
            let cache = StatCache::open(cache_file);
            assert!(cache.hash(&files[0]).unwrap().bytes.is_none());
        }
    }
}
