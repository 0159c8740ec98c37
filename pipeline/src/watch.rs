//! `--watch`: after a cook (or render), wait for a source to be saved and run it again.
//! The packs' and maps' folders and the configuration file are watched; a burst of saves
//! (an exporter writing a `.gltf` and its `.bin`) settles into one rebuild. Ctrl-C ends it.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result};
use notify::{RecursiveMode, Watcher};

use crate::config::{Config, Overrides};

/// Saves closer together than this are one change.
const SETTLE: Duration = Duration::from_millis(300);

/// Runs `build`, then again after every settled change under `dirs` or to `files`, until
/// Ctrl-C. `build` reloads whatever it needs, so an edited configuration takes effect.
pub fn watch(
    dirs: &[PathBuf],
    files: &[PathBuf],
    mut build: impl FnMut() -> Result<i32>,
) -> Result<i32> {
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok_and(|e| !e.kind.is_access()) {
            let _ = tx.send(());
        }
    })
    .context("cannot watch the sources")?;
    for dir in dirs {
        watcher
            .watch(dir, RecursiveMode::Recursive)
            .with_context(|| format!("cannot watch {}", dir.display()))?;
    }
    for file in files {
        watcher
            .watch(file, RecursiveMode::NonRecursive)
            .with_context(|| format!("cannot watch {}", file.display()))?;
    }
    let mut code = build()?;
    eprintln!("watching for changes (Ctrl-C stops)");
    loop {
        if crate::cook::CANCELLED.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(code);
        }
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(()) => {
                while rx.recv_timeout(SETTLE).is_ok() {}
                code = build()?;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(code),
        }
    }
}

/// What `--watch` watches: every configured pack's and map's folder, and the file itself.
pub fn watched(config: &Path, overrides: &Overrides) -> Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    let loaded = Config::load(config, overrides)?;
    let dirs = loaded
        .packs
        .iter()
        .chain(&loaded.maps)
        .map(|p| p.dir.clone())
        .collect();
    Ok((dirs, vec![config.to_path_buf()]))
}
