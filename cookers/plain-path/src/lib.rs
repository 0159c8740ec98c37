//! Whether a relative path taken from data (an output's name, an archive member, a level's
//! layout file) stays inside the folder it is joined to, on Unix and on Windows, where the
//! game runs. The one rule every reader of such paths uses.

/// Why `path` would not stay inside its folder: `None` when it is plain (relative, with
/// no empty, `.` or `..` component, no backslash, drive letter or control character).
pub fn why_not(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        Some("it is empty")
    } else if path.starts_with('/') || path.contains(':') {
        Some("it is absolute")
    } else if path.contains('\\') {
        Some("it holds a backslash")
    } else if path.chars().any(char::is_control) {
        Some("it holds a control character")
    } else if path.split('/').any(|c| c == "..") {
        Some("it climbs out of its folder")
    } else if path.split('/').any(|c| c.is_empty() || c == ".") {
        Some("it has an empty or `.` component")
    } else {
        None
    }
}

/// A path that stays below the folder it is joined to.
pub fn is_plain(path: &str) -> bool {
    why_not(path).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_paths_pass() {
        for ok in ["a", "cooked/b/c.fmsh", "layout.json", "a.b/c"] {
            assert!(is_plain(ok), "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../b",
            "a\\b",
            "C:/x",
            "a//b",
            "./a",
            "a\nb",
        ] {
            assert!(!is_plain(bad), "{bad:?}");
        }
    }
}
