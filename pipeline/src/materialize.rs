//! Makes a set folder (`build/game/<pack>/<set>/`) hold exactly the set's outputs.
//!
//! The folder belongs to the pipeline: files that are not part of the set (a removed or
//! renamed block, debris from a killed write) are deleted, so no one needs to remember to
//! use a fresh output folder. Unchanged files are recognised through the stat cache and
//! left alone.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::atomic;
use crate::execute::{CorruptOutput, Output};
use crate::stat_cache::StatCache;
use crate::store::Store;

#[derive(Debug, Default, Clone, Copy)]
pub struct Changes {
    pub written: usize,
    pub removed: usize,
}

#[derive(Debug)]
pub enum Error {
    Io(std::io::Error),
    Corrupt(CorruptOutput),
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

/// `files` maps a path relative to `dir` to its output.
pub fn set_folder(
    dir: &Path,
    files: &BTreeMap<String, Arc<Output>>,
    store: &Store,
    stat_cache: &StatCache,
) -> Result<Changes, Error> {
    let mut changes = Changes::default();
    for (rel, output) in files {
        let path = dir.join(rel);
        let current = stat_cache.hash(&path).ok().map(|h| h.hash);
        if current.as_deref() != Some(output.hash.as_str()) {
            let bytes = output.bytes(store).map_err(Error::Corrupt)?;
            atomic::write(&path, &bytes)?;
            stat_cache.record(&path, &output.hash);
            changes.written += 1;
        }
    }
    let wanted: HashSet<PathBuf> = files.keys().map(|rel| dir.join(rel)).collect();
    remove_unwanted(dir, &wanted, stat_cache, &mut changes)?;
    Ok(changes)
}

/// Deletes everything under `dir` that is not in `wanted`; returns whether `dir` is empty.
fn remove_unwanted(
    dir: &Path,
    wanted: &HashSet<PathBuf>,
    stat_cache: &StatCache,
    changes: &mut Changes,
) -> std::io::Result<bool> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(true);
    };
    let mut empty = true;
    for entry in entries {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if remove_unwanted(&path, wanted, stat_cache, changes)? {
                std::fs::remove_dir(&path)?;
            } else {
                empty = false;
            }
        } else if wanted.contains(&path) {
            empty = false;
        } else {
            std::fs::remove_file(&path)?;
            stat_cache.forget(&path);
            changes.removed += 1;
        }
    }
    Ok(empty)
}
