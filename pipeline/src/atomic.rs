//! Atomic file writes: the bytes go to a temporary file in the same folder, which is then
//! renamed over the target, so a reader (or a killed cook) never sees half a file.
//!
//! There is no fsync. A killed process cannot tear a renamed file, since its bytes are
//! already in the page cache. A power cut can, but every cache blob is verified against
//! its hash when read, and every materialized file against its expected hash on the next
//! cook, so a torn file is rebuilt rather than trusted. Syncing every file made a cold cook
//! several times slower.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Prefix of temporary files; anything with it is debris from an interrupted write.
pub const TEMP_PREFIX: &str = ".mjolnir-tmp-";

pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!("{TEMP_PREFIX}{}-{n}", std::process::id()));
    let result = (|| {
        // The folder usually exists; it is made only when creating the file says it is
        // missing, which saves a system call on each of a cold cook's thousands of writes.
        let mut file = match std::fs::File::create(&temp) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(dir)?;
                std::fs::File::create(&temp)?
            }
            other => other?,
        };
        file.write_all(bytes)?;
        drop(file);
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}
