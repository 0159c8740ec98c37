//! One cook per build folder: an exclusive lock on `<out>/.lock`, released when the
//! process ends (even by `kill -9`, since the OS drops the lock with the file handle).

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

pub struct BuildLock {
    _file: File,
}

pub enum LockError {
    /// Another cook holds the lock.
    Busy,
    Io(std::io::Error),
}

impl BuildLock {
    pub fn acquire(out: &Path) -> Result<BuildLock, LockError> {
        std::fs::create_dir_all(out).map_err(LockError::Io)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(out.join(".lock"))
            .map_err(LockError::Io)?;
        match file.try_lock() {
            Ok(()) => Ok(BuildLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(LockError::Busy),
            Err(TryLockError::Error(e)) => Err(LockError::Io(e)),
        }
    }

    /// Waits for the lock (for a command that only reads the build).
    pub fn wait(out: &Path) -> std::io::Result<BuildLock> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(out.join(".lock"))?;
        file.lock()?;
        Ok(BuildLock { _file: file })
    }
}
