//! What the crate's tests share.

/// Makes a FIFO at `path`: what a hostile test puts where a reader expects a file, to see
/// that it is refused at once rather than waited on for a writer.
#[cfg(unix)]
pub fn make_fifo(path: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(path.as_os_str().as_bytes()).expect("no NUL in a path");
    let made = unsafe { libc::mkfifo(name.as_ptr(), 0o600) };
    assert_eq!(made, 0, "cannot make a FIFO at {}", path.display());
}
