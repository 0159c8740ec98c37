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

/// Why Windows, where the game runs, could not create a file of this path: a reserved
/// device name (`CON`, `NUL`, `COM1`, ...), a character it forbids, or a name ending in a
/// dot or a space.
pub fn windows_refuses(path: &str) -> Option<String> {
    const RESERVED: [&str; 4] = ["CON", "PRN", "AUX", "NUL"];
    for part in path.split('/') {
        if let Some(c) = part
            .chars()
            .find(|&c| c < ' ' || "<>:\"|?*".contains(c) || is_bidi_control(c))
        {
            return Some(format!("{c:?} is not allowed in a file name"));
        }
        if part.ends_with('.') || part.ends_with(' ') {
            return Some(format!("{part:?} ends with a dot or a space"));
        }
        let stem = part
            .split('.')
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        let numbered = (stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.len() == 4
            && stem.as_bytes()[3].is_ascii_digit();
        if RESERVED.contains(&stem.as_str()) || numbered {
            return Some(format!("{part:?} is a reserved device name"));
        }
    }
    None
}

/// Characters that reorder how a name is displayed, so `exe.txt` can show as `txt.exe`.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
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
