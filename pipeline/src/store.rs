//! The cache: a content-addressed blob store and an action cache from step keys to outputs.
//!
//! Layout under the cache folder:
//!
//! | path | holds |
//! |---|---|
//! | `FORMAT` | the layout version; any other value wipes the cache |
//! | `blobs/<2 hex>/<blake3>` | output bytes, named by their hash |
//! | `actions/<2 hex>/<key>.json` | an [`ActionRecord`]: the outputs of one step key |
//! | `last/<step hash>.json` | the fingerprint a step last built with, for `--explain` |
//!
//! Blobs are written before the action that names them, each atomically, so a killed cook
//! leaves at worst an unreferenced blob. Every blob is verified against its name when read;
//! a bad one is deleted and reported as a miss, and the step runs again.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::atomic;
use crate::fingerprint::Fingerprint;

const FORMAT: &str = "mjolnir-cache 1\n";

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
            for sub in ["blobs", "actions", "last"] {
                let _ = std::fs::remove_dir_all(root.join(sub));
            }
            atomic::write(&format_file, FORMAT.as_bytes())?;
        }
        Ok(Store {
            root: root.to_path_buf(),
        })
    }

    fn blob_path(&self, hash: &str) -> PathBuf {
        self.root.join("blobs").join(&hash[..2]).join(hash)
    }

    fn action_path(&self, key: &str) -> PathBuf {
        self.root
            .join("actions")
            .join(&key[..2])
            .join(format!("{key}.json"))
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
    pub fn get_action(&self, key: &str) -> Option<ActionRecord> {
        let path = self.action_path(key);
        let bytes = std::fs::read(&path).ok()?;
        match serde_json::from_slice::<ActionRecord>(&bytes) {
            Ok(r) if r.key == key => Some(r),
            _ => {
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    pub fn discard_action(&self, key: &str) {
        let _ = std::fs::remove_file(self.action_path(key));
    }

    pub fn put_action(&self, record: &ActionRecord) -> std::io::Result<()> {
        atomic::write(
            &self.action_path(&record.key),
            &serde_json::to_vec(record).expect("action serializes"),
        )
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
