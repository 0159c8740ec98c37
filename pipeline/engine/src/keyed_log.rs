//! An append-only file of JSON lines, each setting (or discarding) the value of a key:
//! the cache's action log and its record of the fingerprints steps last built with.
//!
//! One file instead of one file per key: a no-op cook opens one file, and a cold cook does
//! not create hundreds of small files (creating files is most of what a cold cook costs
//! on some file systems). Appends are one `write` per line, so a killed cook can tear only
//! the last line, which does not parse and is ignored; the next load rewrites the file
//! without it. A file that holds mostly stale lines is rewritten compactly when loaded.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::atomic;

/// A line of the log. `value: None` discards the key. Read as owned values, written from
/// borrowed ones.
#[derive(Serialize, Deserialize)]
struct Line<K, V> {
    key: K,
    value: Option<V>,
}

pub struct KeyedLog<V> {
    path: PathBuf,
    index: HashMap<String, V>,
    lines: usize,
    file: Option<std::fs::File>,
}

impl<V: Serialize + DeserializeOwned> KeyedLog<V> {
    /// Reads the log at `path` (a missing file is an empty log), then rewrites it if its
    /// last line is torn or most of its lines are stale.
    pub fn load(path: &Path) -> std::io::Result<KeyedLog<V>> {
        let mut log = KeyedLog {
            path: path.to_path_buf(),
            index: HashMap::new(),
            lines: 0,
            file: None,
        };
        let mut torn = false;
        if let Ok(text) = std::fs::read(path) {
            torn = text.last().is_some_and(|&b| b != b'\n');
            for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                log.lines += 1;
                if let Ok(Line { key, value }) = serde_json::from_slice::<Line<String, V>>(line) {
                    match value {
                        Some(v) => log.index.insert(key, v),
                        None => log.index.remove(&key),
                    };
                }
            }
        }
        // A torn last line would swallow the next appended one: rewrite the log first.
        if torn || log.lines > 2 * log.index.len() + 64 {
            log.compact()?;
        }
        Ok(log)
    }

    pub fn get(&self, key: &str) -> Option<&V> {
        self.index.get(key)
    }

    pub fn set(&mut self, key: &str, value: V) -> std::io::Result<()> {
        self.append(&Line {
            key,
            value: Some(&value),
        })?;
        self.index.insert(key.to_string(), value);
        Ok(())
    }

    /// Sets many keys with one write.
    pub fn set_all<'k>(
        &mut self,
        entries: impl IntoIterator<Item = (&'k str, V)>,
    ) -> std::io::Result<()> {
        let mut bytes = Vec::new();
        let mut values = Vec::new();
        for (key, value) in entries {
            bytes.extend(
                serde_json::to_vec(&Line {
                    key,
                    value: Some(&value),
                })
                .expect("a log line serializes"),
            );
            bytes.push(b'\n');
            values.push((key.to_string(), value));
        }
        self.write_lines(&bytes, values.len())?;
        self.index.extend(values);
        Ok(())
    }

    /// Every live key and its value, in no particular order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &V)> {
        self.index.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn discard(&mut self, key: &str) -> std::io::Result<()> {
        self.append(&Line::<_, &V> { key, value: None })?;
        self.index.remove(key);
        Ok(())
    }

    fn append(&mut self, line: &Line<&str, &V>) -> std::io::Result<()> {
        let mut bytes = serde_json::to_vec(line).expect("a log line serializes");
        bytes.push(b'\n');
        self.write_lines(&bytes, 1)
    }

    fn write_lines(&mut self, bytes: &[u8], lines: usize) -> std::io::Result<()> {
        if self.file.is_none() {
            self.file = Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&self.path)?,
            );
        }
        self.file.as_mut().expect("opened above").write_all(bytes)?;
        self.lines += lines;
        Ok(())
    }

    /// Rewrites the file with one line per live key, sorted.
    fn compact(&mut self) -> std::io::Result<()> {
        let mut keys: Vec<&String> = self.index.keys().collect();
        keys.sort();
        let mut text = Vec::new();
        for key in keys {
            let line = Line {
                key: key.as_str(),
                value: Some(&self.index[key]),
            };
            text.extend(serde_json::to_vec(&line).expect("a log line serializes"));
            text.push(b'\n');
        }
        atomic::write(&self.path, &text)?;
        self.lines = self.index.len();
        self.file = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_survive_reloading_and_discards_stick() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        log.set("a", 1).unwrap();
        log.set("b", 2).unwrap();
        log.discard("a").unwrap();
        drop(log);
        let log = KeyedLog::<u32>::load(&path).unwrap();
        assert_eq!(log.get("a"), None);
        assert_eq!(log.get("b"), Some(&2));
    }

    #[test]
    fn a_stale_log_is_compacted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        for i in 0..200 {
            log.set("same", i).unwrap();
        }
        drop(log);
        let log = KeyedLog::<u32>::load(&path).unwrap();
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert_eq!(lines, 1);
        assert_eq!(log.get("same"), Some(&199));
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_the_next_append_survives() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        log.set("kept", 1).unwrap();
        drop(log);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"{\"key\":\"torn\",\"val").unwrap();
        drop(f);
        let mut log = KeyedLog::<u32>::load(&path).unwrap();
        log.set("after", 2).unwrap();
        drop(log);
        let log = KeyedLog::<u32>::load(&path).unwrap();
        assert_eq!(log.get("kept"), Some(&1));
        assert_eq!(log.get("torn"), None);
        assert_eq!(log.get("after"), Some(&2));
    }
}
