//! The cache: a content-addressed blob store and an action cache from step keys to outputs.
//!
//! Layout under the cache folder:
//!
//! | path | holds |
//! |---|---|
//! | `FORMAT` | the layout version; any other value wipes the cache |
//! | `blobs/<2 hex>/<blake3>` | output bytes, named by their hash |
//! | `actions.log` | one JSON [`ActionRecord`] per line: the outputs of a step key |
//! | `last/<step hash>.json` | the fingerprint a step last built with, for `--explain` |
//!
//! Blobs are written (atomically) before the action line that names them, so a killed cook
//! leaves at worst an unreferenced blob or a torn last line, which does not parse and is
//! ignored. The log is read once per cook (a no-op cook opens one file, not one per step),
//! appended to as steps finish, and rewritten compactly when it holds mostly stale lines.
//! Every blob is verified against its name when read; a bad one is deleted.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::atomic;
use crate::fingerprint::Fingerprint;

const FORMAT: &str = "mjolnir-cache 2\n";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputRef {
    pub name: String,
    pub hash: String,
    pub size: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ActionRecord {
    pub key: String,
    pub outputs: Vec<OutputRef>,
}

pub struct Store {
    root: PathBuf,
    actions: Mutex<Actions>,
}

struct Actions {
    index: HashMap<String, Vec<OutputRef>>,
    lines: usize,
    log: Option<std::fs::File>,
}

/// A line of the action log. `outputs: None` discards the key.
#[derive(Serialize, Deserialize)]
struct LogLine {
    key: String,
    outputs: Option<Vec<OutputRef>>,
}

fn hash_hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

impl Store {
    /// Opens (or creates) the cache, wiping it when its layout version is not this one.
    pub fn open(root: &Path) -> std::io::Result<Store> {
        let format_file = root.join("FORMAT");
        let current = std::fs::read_to_string(&format_file).ok();
        if current.as_deref() != Some(FORMAT) {
            for sub in ["blobs", "last"] {
                let _ = std::fs::remove_dir_all(root.join(sub));
            }
            let _ = std::fs::remove_file(root.join("actions.log"));
            atomic::write(&format_file, FORMAT.as_bytes())?;
        }
        let mut actions = Actions {
            index: HashMap::new(),
            lines: 0,
            log: None,
        };
        let mut torn = false;
        if let Ok(text) = std::fs::read(root.join("actions.log")) {
            torn = text.last().is_some_and(|&b| b != b'\n');
            for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                actions.lines += 1;
                match serde_json::from_slice::<LogLine>(line) {
                    Ok(LogLine {
                        key,
                        outputs: Some(outputs),
                    }) => {
                        actions.index.insert(key, outputs);
                    }
                    Ok(LogLine { key, outputs: None }) => {
                        actions.index.remove(&key);
                    }
                    Err(_) => {}
                }
            }
        }
        let store = Store {
            root: root.to_path_buf(),
            actions: Mutex::new(actions),
        };
        // A torn last line would swallow the next appended one: rewrite the log first.
        store.compact(torn)?;
        Ok(store)
    }

    fn blob_path(&self, hash: &str) -> PathBuf {
        self.root.join("blobs").join(&hash[..2]).join(hash)
    }

    fn last_path(&self, step: &str) -> PathBuf {
        self.root
            .join("last")
            .join(format!("{}.json", hash_hex(step.as_bytes())))
    }

    pub fn put_blob(&self, bytes: &[u8]) -> std::io::Result<String> {
        let hash = hash_hex(bytes);
        let path = self.blob_path(&hash);
        if !path.exists() {
            atomic::write(&path, bytes)?;
        }
        Ok(hash)
    }

    /// The blob's bytes, verified. A corrupt blob is deleted and `Err` says why.
    pub fn get_blob(&self, hash: &str) -> Result<Vec<u8>, String> {
        if hash.len() < 2 {
            return Err(format!("bad blob name {hash:?}"));
        }
        let path = self.blob_path(hash);
        let bytes = std::fs::read(&path)
            .map_err(|e| format!("blob {} unreadable: {e}", &hash[..12.min(hash.len())]))?;
        if hash_hex(&bytes) != hash {
            let _ = std::fs::remove_file(&path);
            return Err(format!(
                "blob {} failed its hash check and was discarded",
                &hash[..12]
            ));
        }
        Ok(bytes)
    }

    /// The recorded outputs for a key, or `None` (an unreadable record is deleted).
    /// Rewrites the log without stale lines when they outnumber the live ones (or `force`).
    fn compact(&self, force: bool) -> std::io::Result<()> {
        let mut actions = self.actions.lock().expect("action log lock");
        if !force && actions.lines <= 2 * actions.index.len() + 64 {
            return Ok(());
        }
        let mut keys: Vec<&String> = actions.index.keys().collect();
        keys.sort();
        let mut text = Vec::new();
        for key in keys {
            let line = LogLine {
                key: key.clone(),
                outputs: Some(actions.index[key].clone()),
            };
            text.extend(serde_json::to_vec(&line).expect("action serializes"));
            text.push(b'\n');
        }
        atomic::write(&self.root.join("actions.log"), &text)?;
        actions.lines = actions.index.len();
        actions.log = None;
        Ok(())
    }

    fn append(&self, line: &LogLine) -> std::io::Result<()> {
        let mut bytes = serde_json::to_vec(line).expect("action serializes");
        bytes.push(b'\n');
        let mut actions = self.actions.lock().expect("action log lock");
        if actions.log.is_none() {
            actions.log = Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(self.root.join("actions.log"))?,
            );
        }
        // One write per line, so a killed cook can only tear the last line.
        actions
            .log
            .as_mut()
            .expect("opened above")
            .write_all(&bytes)?;
        actions.lines += 1;
        match &line.outputs {
            Some(outputs) => actions.index.insert(line.key.clone(), outputs.clone()),
            None => actions.index.remove(&line.key),
        };
        Ok(())
    }

    pub fn get_action(&self, key: &str) -> Option<ActionRecord> {
        let actions = self.actions.lock().expect("action log lock");
        actions.index.get(key).map(|outputs| ActionRecord {
            key: key.to_string(),
            outputs: outputs.clone(),
        })
    }

    pub fn discard_action(&self, key: &str) {
        let _ = self.append(&LogLine {
            key: key.to_string(),
            outputs: None,
        });
    }

    pub fn put_action(&self, record: &ActionRecord) -> std::io::Result<()> {
        self.append(&LogLine {
            key: record.key.clone(),
            outputs: Some(record.outputs.clone()),
        })
    }

    pub fn last_fingerprint(&self, step: &str) -> Option<Fingerprint> {
        serde_json::from_slice(&std::fs::read(self.last_path(step)).ok()?).ok()
    }

    pub fn record_fingerprint(&self, step: &str, fingerprint: &Fingerprint) -> std::io::Result<()> {
        atomic::write(
            &self.last_path(step),
            &serde_json::to_vec(fingerprint).expect("fingerprint serializes"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(key: &str) -> ActionRecord {
        ActionRecord {
            key: key.into(),
            outputs: vec![OutputRef {
                name: "mesh.fgim".into(),
                hash: "ab".repeat(32),
                size: 3,
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

    #[test]
    fn a_stale_log_is_compacted() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for _ in 0..200 {
            store.put_action(&record("same")).unwrap();
        }
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        let lines = std::fs::read_to_string(dir.path().join("actions.log"))
            .unwrap()
            .lines()
            .count();
        assert_eq!(lines, 1);
        assert!(store.get_action("same").is_some());
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
}
