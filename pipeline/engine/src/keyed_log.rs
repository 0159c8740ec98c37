//! An append-only file of JSON lines, each setting (or discarding) the value of a key:
//! the cache's action log and its record of the fingerprints steps last built with.
//!
//! One file instead of one file per key: a no-op cook opens one file, and a cold cook does
//! not create hundreds of small files (creating files is most of what a cold cook costs
//! on some file systems). Appends are one `write` per line, so a killed cook can tear only
//! the last line, which does not parse and is ignored; the next load rewrites the file
//! without it. A file that holds mostly stale lines is rewritten compactly when loaded.
//!
//! Loading reads only each line's key; a value is parsed when it is first asked for. A
//! one-block edit asks for a handful of the thousands of values a catalog-sized log holds,
//! and parsing them all was a fifth of the edit. A value that does not parse reads as
//! absent, like a value never set.

use std::collections::HashMap;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use memchr::memchr;
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};

use crate::atomic;

/// How many writes of [`KeyedLog::append_all`] a log holds before it is compacted. At three,
/// a catalog-sized cache's use log was read and rewritten every other cook, a twentieth of
/// a one-block edit; at eight it costs a few megabytes of disk.
const GROWN_WRITES: u64 = 8;

/// The bytes of the shortest line that sets a key, with its newline: `{"key":"","value":0}`.
const SHORTEST_LINE: usize = 21;

/// Larger than any log a cache of this layout writes; a larger file is not read.
const MAX_LOG_BYTES: u64 = 1 << 32;

/// A line of the log. `value: None` discards the key. Read as owned values, written from
/// borrowed ones. `key` comes first, which is what lets a load read only the keys.
#[derive(Serialize, Deserialize)]
struct Line<K, V> {
    key: K,
    value: Option<V>,
}

/// A key's value: still the bytes of its line in the loaded text, parsed, or appended by
/// this process and left in the file (a cold cook sets thousands of keys and reads back
/// none of them: keeping each value was a tenth of its heap).
enum Slot<V> {
    Unread(Range<usize>),
    /// Boxed: few slots are ever read, and every slot is as large as its largest kind.
    Read(Box<V>),
    Appended(Range<u64>),
}

impl<V> Slot<V> {
    /// The bytes of its line, while unread (only unread slots exist right after loading).
    fn len(&self) -> usize {
        match self {
            Slot::Unread(line) => line.len(),
            Slot::Read(_) | Slot::Appended(_) => 0,
        }
    }
}

pub struct KeyedLog<V> {
    path: PathBuf,
    /// The file as loaded, which `Slot::Unread` ranges point into.
    text: Vec<u8>,
    index: HashMap<String, Slot<V>>,
    lines: usize,
    file: Option<std::fs::File>,
    /// The file's length as this process last wrote or read it: where the next line goes.
    end: u64,
}

impl<V: Serialize + DeserializeOwned> KeyedLog<V> {
    /// Reads the log at `path` (a missing file is an empty log), then rewrites it if its
    /// last line is torn or most of its lines are stale.
    pub fn load(path: &Path) -> std::io::Result<KeyedLog<V>> {
        let text = match mjolnir_files::bounded::read(path, MAX_LOG_BYTES) {
            Ok(text) => text,
            Err(mjolnir_files::bounded::ReadError::NotFound) => Vec::new(),
            Err(e) => return Err(std::io::Error::other(e.to_string())),
        };
        // Sized for a line per key up front: growing the index as it filled was a third of
        // loading a catalog-sized log. No more than the shortest lines could fill, nor than
        // a large cache holds: a file of empty lines reserves nothing for them.
        let lines = memchr::memchr_iter(b'\n', &text)
            .count()
            .min(text.len() / SHORTEST_LINE)
            .min(1 << 20);
        let mut log = KeyedLog {
            path: path.to_path_buf(),
            text,
            index: HashMap::with_capacity(lines),
            lines: 0,
            file: None,
            end: 0,
        };
        log.end = log.text.len() as u64;
        let torn = log.text.last().is_some_and(|&b| b != b'\n');
        let mut start = 0;
        while start < log.text.len() {
            let end = memchr(b'\n', &log.text[start..]).map_or(log.text.len(), |n| start + n);
            if end > start {
                log.lines += 1;
                // A torn line is not a line: its key may be whole while its value is not.
                if end < log.text.len() || !torn {
                    log.index_line(start..end);
                }
            }
            start = end + 1;
        }
        // A torn last line would swallow the next appended one: rewrite the log first.
        // Stale lines are counted in bytes as well as lines: a step with many inputs
        // appends a line of a hundred kilobytes each time it runs.
        let live: usize = log.index.values().map(Slot::len).sum();
        let stale_lines = log.lines > 2 * log.index.len() + 64;
        if torn || stale_lines || log.text.len() > 2 * live + (64 << 10) {
            log.compact()?;
        }
        Ok(log)
    }

    fn index_line(&mut self, line: Range<usize>) {
        match key_of(&self.text[line.clone()]) {
            Some((key, false)) => {
                self.index.insert(key, Slot::Unread(line));
            }
            Some((key, true)) => {
                self.index.remove(&key);
            }
            None => {}
        }
    }

    pub fn get(&mut self, key: &str) -> Option<&V> {
        if !matches!(self.index.get(key)?, Slot::Read(_)) {
            match self.parse(key) {
                Some(v) => {
                    self.index.insert(key.to_string(), Slot::Read(Box::new(v)));
                }
                None => {
                    self.index.remove(key);
                    return None;
                }
            }
        }
        match self.index.get(key) {
            Some(Slot::Read(v)) => Some(v),
            _ => None,
        }
    }

    /// The value of a slot not yet parsed, from the loaded text or the file.
    fn parse(&self, key: &str) -> Option<V> {
        self.parse_with(key, |_| None)
    }

    /// [`parse`](Self::parse), trying `shaped` on the line first: a reader for the one
    /// shape its writer gives the line, which leaves any other line to serde.
    fn parse_with(&self, key: &str, shaped: fn(&[u8]) -> Option<V>) -> Option<V> {
        let appended;
        let line = match self.index.get(key)? {
            Slot::Unread(line) => &self.text[line.clone()],
            Slot::Appended(line) => {
                appended = self.read_appended(line.clone()).ok()?;
                &appended[..]
            }
            Slot::Read(_) => return None,
        };
        if let Some(value) = shaped(line) {
            return Some(value);
        }
        serde_json::from_slice::<Line<IgnoredAny, V>>(line)
            .ok()?
            .value
    }

    /// A line this process appended, read back from the file: a regular file still
    /// holding it (one replaced since, by a FIFO say, or cut short, is an error).
    fn read_appended(&self, line: Range<u64>) -> std::io::Result<Vec<u8>> {
        use std::io::{Read, Seek, SeekFrom};
        let (file, size) = mjolnir_files::bounded::open_regular(&self.path, MAX_LOG_BYTES)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        if size < line.end {
            return Err(std::io::Error::other(
                "the log is shorter than what was appended",
            ));
        }
        let mut file = file.into_inner();
        file.seek(SeekFrom::Start(line.start))?;
        let mut bytes = vec![0; (line.end - line.start) as usize];
        file.read_exact(&mut bytes)?;
        Ok(bytes)
    }

    /// The value of `key`, parsed again from its line if it was not asked for through
    /// [`get`](Self::get): a shared borrow, so several threads can look up a log that each
    /// key is read from once.
    pub fn peek(&self, key: &str) -> Option<V>
    where
        V: Clone,
    {
        self.peek_shaped(key, |_| None)
    }

    /// [`peek`](Self::peek), reading the line with `shaped` where it can
    /// ([`parse_with`](Self::parse_with)).
    pub fn peek_shaped(&self, key: &str, shaped: fn(&[u8]) -> Option<V>) -> Option<V>
    where
        V: Clone,
    {
        match self.index.get(key)? {
            Slot::Read(v) => Some(V::clone(v)),
            _ => self.parse_with(key, shaped),
        }
    }

    /// Appends `key`'s new value; it is read back from the file if asked for.
    pub fn set(&mut self, key: &str, value: &V) -> std::io::Result<()> {
        let line = self.append(&Line {
            key,
            value: Some(value),
        })?;
        self.index.insert(key.to_string(), Slot::Appended(line));
        Ok(())
    }

    /// Sets many keys in the log at `path` with one write, without reading the log first:
    /// a log every cook rewrites each key of (the cache's uses) is read only when it has
    /// grown by [`GROWN_WRITES`] such writes past what it held when last compacted
    /// ([`worth_compacting`]), and then compacted as it loads.
    pub fn append_all<'k>(
        path: &Path,
        entries: impl IntoIterator<Item = (&'k str, V)>,
    ) -> std::io::Result<()> {
        let bytes = lines_of(entries);
        let mut file = mjolnir_files::append::open(path)?;
        file.write_all(&bytes)?;
        let grown = file.metadata()?.len();
        drop(file);
        let base = base_path(path);
        let compacted = mjolnir_files::bounded::read_text(&base, 20)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0);
        if worth_compacting(grown, bytes.len() as u64, compacted) {
            let log = KeyedLog::<V>::load(path)?;
            atomic::write(&base, log.end.to_string().as_bytes())?;
        }
        Ok(())
    }

    /// Every live key whose value parses, and its value, sorted by key.
    pub fn entries(&mut self) -> Vec<(&str, &V)> {
        let mut keys: Vec<String> = self.index.keys().cloned().collect();
        keys.sort();
        for key in &keys {
            self.get(key);
        }
        let mut entries: Vec<(&str, &V)> = self
            .index
            .iter()
            .filter_map(|(k, slot)| match slot {
                Slot::Read(v) => Some((k.as_str(), &**v)),
                Slot::Unread(_) | Slot::Appended(_) => None,
            })
            .collect();
        entries.sort_by_key(|(k, _)| *k);
        entries
    }

    pub fn discard(&mut self, key: &str) -> std::io::Result<()> {
        self.append(&Line::<_, &V> { key, value: None })?;
        self.index.remove(key);
        Ok(())
    }

    /// Appends one line; returns where its text (without the newline) lies in the file.
    fn append(&mut self, line: &Line<&str, &V>) -> std::io::Result<Range<u64>> {
        let mut bytes = serde_json::to_vec(line).expect("a log line serializes");
        bytes.push(b'\n');
        let start = self.end;
        self.write_lines(&bytes, 1)?;
        Ok(start..start + bytes.len() as u64 - 1)
    }

    fn write_lines(&mut self, bytes: &[u8], lines: usize) -> std::io::Result<()> {
        if self.file.is_none() {
            self.file = Some(mjolnir_files::append::open(&self.path)?);
        }
        self.file.as_mut().expect("opened above").write_all(bytes)?;
        self.lines += lines;
        self.end += bytes.len() as u64;
        Ok(())
    }

    /// Rewrites the file with one line per live key, sorted. An unread value is copied as
    /// the line it was loaded from, and then points into the rewritten text. The entries
    /// are moved out of the index and sorted, not their keys copied: a catalog's use log
    /// holds thousands.
    fn compact(&mut self) -> std::io::Result<()> {
        let mut entries: Vec<(String, Slot<V>)> =
            std::mem::take(&mut self.index).into_iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut text = Vec::new();
        let mut index = HashMap::with_capacity(entries.len());
        for (key, slot) in entries {
            let start = text.len();
            let slot = match slot {
                Slot::Unread(line) => {
                    text.extend_from_slice(&self.text[line]);
                    Slot::Unread(start..text.len())
                }
                Slot::Appended(line) => {
                    text.extend(self.read_appended(line)?);
                    Slot::Unread(start..text.len())
                }
                Slot::Read(value) => {
                    let line = Line {
                        key: key.as_str(),
                        value: Some(&value),
                    };
                    text.extend(serde_json::to_vec(&line).expect("a log line serializes"));
                    Slot::Read(value)
                }
            };
            text.push(b'\n');
            index.insert(key, slot);
        }
        self.index = index;
        atomic::write(&self.path, &text)?;
        self.end = text.len() as u64;
        self.text = text;
        self.lines = self.index.len();
        self.file = None;
        Ok(())
    }
}

/// Where [`KeyedLog::append_all`] keeps the size its log had when last read and compacted.
fn base_path(log: &Path) -> PathBuf {
    let mut name = log.file_name().unwrap_or_default().to_os_string();
    name.push(".base");
    log.with_file_name(name)
}

/// Whether a log that an append left at `grown` bytes, `appended` of them just written, is
/// worth reading and compacting: once [`GROWN_WRITES`] such writes lie beyond twice what it
/// held when last compacted (`compacted`, 0 when not known or larger than the log). Held
/// against the writes alone, a log whose live lines outgrew them (the uses of a cache that
/// has seen many edits and no `cache gc`) was read on every append, and seldom found stale
/// enough to compact.
fn worth_compacting(grown: u64, appended: u64, compacted: u64) -> bool {
    let compacted = if compacted <= grown { compacted } else { 0 };
    grown > 2 * compacted + GROWN_WRITES * appended + (64 << 10)
}

/// The lines setting each key to its value.
fn lines_of<'k, V: Serialize>(entries: impl IntoIterator<Item = (&'k str, V)>) -> Vec<u8> {
    let mut bytes = Vec::new();
    for (key, value) in entries {
        let line = Line {
            key,
            value: Some(&value),
        };
        serde_json::to_writer(&mut bytes, &line).expect("a log line serializes");
        bytes.push(b'\n');
    }
    bytes
}

/// The key of a log line, and whether the line discards it, read without parsing the
/// value. The writer puts the key first; a key with escapes, or a line in any other
/// shape, is read by the JSON parser instead. `None`: not a line of this log.
fn key_of(line: &[u8]) -> Option<(String, bool)> {
    const OPEN: &[u8] = b"{\"key\":\"";
    const DISCARD: &[u8] = b",\"value\":null}";
    if let Some(rest) = line.strip_prefix(OPEN) {
        if let Some(close) = memchr(b'"', rest) {
            let key = &rest[..close];
            if !key.contains(&b'\\') {
                let key = std::str::from_utf8(key).ok()?.to_string();
                return Some((key, &rest[close + 1..] == DISCARD));
            }
        }
    }
    let Line { key, value } = serde_json::from_slice::<Line<String, IgnoredAny>>(line).ok()?;
    Some((key, value.is_none()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_survive_reloading_and_discards_stick() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        log.set("a", &1).unwrap();
        log.set("b", &2).unwrap();
        log.discard("a").unwrap();
        drop(log);
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        assert_eq!(log.get("a"), None);
        assert_eq!(log.get("b"), Some(&2));
    }

    #[test]
    fn an_append_reads_the_log_only_once_it_has_grown_past_its_compacted_size() {
        // Compacted to 100 KB: a log of 250 KB after a write of 1 KB is not read, since
        // twice that, eight writes and 64 KiB are 273.5 KB.
        assert!(!worth_compacting(250_000, 1_000, 100_000));
        assert!(worth_compacting(250_000, 1_000, 10_000));
        // Not known, or claiming more than the log holds: eight writes decide, as before.
        assert!(worth_compacting(250_000, 1_000, 0));
        assert!(worth_compacting(250_000, 1_000, u64::MAX));
        assert!(!worth_compacting(60_000, 1_000, 0));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_lie_in_place_of_the_logs_size_is_no_size_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("uses.log");
        crate::test_support::make_fifo(&base_path(&path));
        // The append does not wait for a writer, and the log is still read when grown.
        for n in 0..20u64 {
            KeyedLog::<u64>::append_all(&path, [("k", n)]).unwrap();
        }
        std::fs::remove_file(base_path(&path)).unwrap();
        std::fs::write(base_path(&path), u64::MAX.to_string()).unwrap();
        // A size larger than the log is no size: it is compacted once eight writes and
        // 64 KiB are past, not never.
        for n in 20..3000u64 {
            KeyedLog::<u64>::append_all(&path, [("k", n)]).unwrap();
        }
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert!(lines < 3000 / 2, "{lines} lines");
        assert_eq!(KeyedLog::<u64>::load(&path).unwrap().get("k"), Some(&2999));
    }

    #[test]
    fn a_log_whose_live_keys_outgrow_eight_writes_is_not_read_on_every_append() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("uses.log");
        let many: Vec<String> = (0..6000).map(|i| format!("key{i:05}")).collect();
        KeyedLog::<u64>::append_all(&path, many.iter().map(|k| (k.as_str(), 1))).unwrap();
        let few = || many[..10].iter().map(|k| k.as_str());
        let base = || std::fs::read_to_string(base_path(&path)).ok();
        // The first small write is past eight of itself: the log is read (too little of
        // it is stale to rewrite) and its size kept.
        KeyedLog::<u64>::append_all(&path, few().map(|k| (k, 2))).unwrap();
        let read_at = base().expect("the log's size is kept once it is read");
        for n in 3..23 {
            KeyedLog::<u64>::append_all(&path, few().map(|k| (k, n))).unwrap();
        }
        assert_eq!(
            base(),
            Some(read_at.clone()),
            "read again within twenty writes"
        );
        // Writes enough to be worth it are compacted: a line per key.
        let mut n = 23;
        while base() == Some(read_at.clone()) && n < 5000 {
            KeyedLog::<u64>::append_all(&path, few().map(|k| (k, n))).unwrap();
            n += 1;
        }
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert_eq!(lines, 6000);
        let mut log = KeyedLog::<u64>::load(&path).unwrap();
        assert_eq!(log.get("key00000"), Some(&(n - 1)));
        assert_eq!(log.get("key05999"), Some(&1));
    }

    #[test]
    fn a_stale_log_is_compacted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        for i in 0..200 {
            log.set("same", &i).unwrap();
        }
        drop(log);
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert_eq!(lines, 1);
        assert_eq!(log.get("same"), Some(&199));
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_the_next_append_survives() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        log.set("kept", &1).unwrap();
        drop(log);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"{\"key\":\"torn\",\"val").unwrap();
        drop(f);
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        log.set("after", &2).unwrap();
        drop(log);
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        assert_eq!(log.get("kept"), Some(&1));
        assert_eq!(log.get("torn"), None);
        assert_eq!(log.get("after"), Some(&2));
    }

    #[test]
    fn a_key_with_escapes_reads_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        log.set("a \"quoted\" \\ key", &7).unwrap();
        log.set("plain", &8).unwrap();
        log.discard("a \"quoted\" \\ key").unwrap();
        log.set("a \"quoted\" \\ key", &9).unwrap();
        drop(log);
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        assert_eq!(log.get("a \"quoted\" \\ key"), Some(&9));
        assert_eq!(log.get("plain"), Some(&8));
    }

    #[test]
    fn a_value_that_does_not_parse_reads_as_absent_and_others_stay() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(
            &path,
            "{\"key\":\"good\",\"value\":1}\n{\"key\":\"bad\",\"value\":\"not a number\"}\nnot json\n",
        )
        .unwrap();
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        assert_eq!(log.get("bad"), None);
        assert_eq!(log.get("good"), Some(&1));
        assert_eq!(log.entries(), vec![("good", &1)]);
    }

    #[test]
    fn peeking_reads_unparsed_and_set_values_alike_and_a_bad_value_as_absent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(
            &path,
            "{\"key\":\"good\",\"value\":1}\n{\"key\":\"bad\",\"value\":[]}\n",
        )
        .unwrap();
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        assert_eq!(log.peek("good"), Some(1));
        assert_eq!(log.peek("bad"), None);
        assert_eq!(log.peek("never"), None);
        log.set("new", &7).unwrap();
        assert_eq!(log.peek("new"), Some(7));
        // Peeking parses without keeping: the value is still there to get.
        assert_eq!(log.get("good"), Some(&1));
    }

    #[test]
    fn a_value_set_is_read_back_from_the_file_and_survives_compaction() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let text = |s: &str| s.to_string();
        let mut log = KeyedLog::<String>::load(&path).unwrap();
        log.set("a", &text("one")).unwrap();
        log.set("b", &text("two")).unwrap();
        log.set("a", &text("three")).unwrap();
        assert_eq!(log.peek("a").as_deref(), Some("three"));
        // One value read, one only appended: compacting writes the one and copies the
        // other's line, which it never parsed.
        assert_eq!(log.get("b").map(String::as_str), Some("two"));
        log.compact().unwrap();
        assert_eq!(log.peek("a").as_deref(), Some("three"));
        log.set("c", &text("four")).unwrap();
        assert_eq!(log.get("c").map(String::as_str), Some("four"));
        assert_eq!(log.get("b").map(String::as_str), Some("two"));
        let mut again = KeyedLog::<String>::load(&path).unwrap();
        assert_eq!(
            again.entries(),
            vec![
                ("a", &text("three")),
                ("b", &text("two")),
                ("c", &text("four"))
            ]
        );
    }

    #[test]
    fn an_appended_value_whose_file_was_cut_short_or_swapped_reads_as_absent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        log.set("a", &1).unwrap();
        log.set("b", &2).unwrap();
        std::fs::write(&path, b"{\"key\":\"a\",\"value\":1}\n").unwrap();
        assert_eq!(log.peek("b"), None);
        #[cfg(unix)]
        {
            // A FIFO at the log's name is refused at once, not waited on for a writer.
            std::fs::remove_file(&path).unwrap();
            crate::test_support::make_fifo(&path);
            assert_eq!(log.peek("a"), None);
            assert_eq!(log.get("a"), None);
        }
    }

    #[test]
    fn compacting_keeps_values_never_parsed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        log.set("untouched", &5).unwrap();
        for i in 0..200 {
            log.set("churn", &i).unwrap();
        }
        drop(log);
        // Compacted while loading, with "untouched" still unread; then read from the
        // rewritten text.
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
        assert_eq!(log.get("untouched"), Some(&5));
        assert_eq!(log.get("churn"), Some(&199));
    }

    #[test]
    fn a_log_grown_by_a_few_long_lines_is_compacted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = KeyedLog::<String>::load(&path).unwrap();
        for i in 0..10 {
            log.set("long", &format!("{i}{}", "x".repeat(100_000)))
                .unwrap();
        }
        drop(log);
        let mut log = KeyedLog::<String>::load(&path).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() < 200_000);
        assert!(log.get("long").unwrap().starts_with('9'));
    }

    #[test]
    fn a_log_of_empty_lines_loads_empty_and_reserves_nothing_for_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut text = vec![b'\n'; 4 << 20];
        text.extend_from_slice(b"{\"key\":\"k\",\"value\":7}\n");
        std::fs::write(&path, &text).unwrap();
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        // Four million newlines: a slot reserved per line would be four million slots.
        assert!(log.index.capacity() <= 2 * (text.len() / SHORTEST_LINE));
        assert_eq!(log.get("k"), Some(&7));
        assert_eq!(log.entries().len(), 1);
    }

    #[test]
    fn appending_without_loading_is_read_back_and_compacted_once_grown() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let keys: Vec<String> = (0..2000).map(|i| format!("key{i}")).collect();
        for cook in 0..30u64 {
            KeyedLog::append_all(&path, keys.iter().map(|k| (k.as_str(), cook))).unwrap();
        }
        let one_cook = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .filter(|l| l.contains("\"key0\""))
            .count();
        // Compacted once eight writes lie beyond twice the compacted log (a line per key).
        assert!(
            one_cook as u64 <= GROWN_WRITES + 4,
            "compacted as it grew: {one_cook} lines for key0"
        );
        let mut log = KeyedLog::<u64>::load(&path).unwrap();
        assert_eq!(log.get("key1999"), Some(&29));
        assert_eq!(log.entries().len(), 2000);
    }
}
