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
    let (tx, rx) = mpsc::channel::<Vec<PathBuf>>();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(e) = event {
            if !e.kind.is_access() {
                let _ = tx.send(e.paths);
            }
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
            Ok(paths) => {
                let mut changed = std::collections::BTreeSet::new();
                changed.extend(paths);
                while let Ok(more) = rx.recv_timeout(SETTLE) {
                    changed.extend(more);
                }
                eprintln!("{}", changed_line(&changed));
                code = build()?;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(code),
        }
    }
}

/// The files a settled change touched, as the rebuild names them: the first few, and how
/// many more.
fn changed_line(changed: &std::collections::BTreeSet<PathBuf>) -> String {
    const SHOWN: usize = 3;
    let names: Vec<String> = changed
        .iter()
        .take(SHOWN)
        .map(|p| p.display().to_string())
        .collect();
    let more = changed.len().saturating_sub(SHOWN);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("changed: {}{tail}; cooking again", names.join(", "))
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
