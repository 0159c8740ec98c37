//! Maps a JSON pointer back to a line and column in the source text.
//!
//! serde_json's `Value` forgets positions, yet authors need to be sent to the exact spot.
//! This scanner walks the text along the pointer and skips everything else. When the
//! pointer names something absent (a missing field), it answers with the position of the
//! deepest part that exists, which is where the field belongs.

/// 1-based (line, column) of the value at `pointer`, or of its deepest existing parent.
pub fn locate(text: &str, pointer: &str) -> Option<(usize, usize)> {
    let tokens: Vec<String> = if pointer.is_empty() {
        Vec::new()
    } else {
        pointer
            .strip_prefix('/')?
            .split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect()
    };
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        at: 0,
    };
    scanner.skip_space();
    let mut found = scanner.at;
    for token in &tokens {
        match scanner.descend(token) {
            Some(at) => found = at,
            None => break,
        }
    }
    Some(line_column(text, found))
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// With the scanner on a container, moves onto the child named `token` and returns
    /// its offset; `None` leaves the scanner somewhere inside the container.
    fn descend(&mut self, token: &str) -> Option<usize> {
        match self.peek()? {
            b'{' => {
                self.at += 1;
                loop {
                    self.skip_space();
                    if self.peek()? != b'"' {
                        return None;
                    }
                    let key = self.string()?;
                    self.skip_space();
                    if self.peek()? != b':' {
                        return None;
                    }
                    self.at += 1;
                    self.skip_space();
                    if key == token {
                        return Some(self.at);
                    }
                    self.skip_value()?;
                    self.skip_space();
                    if self.peek()? != b',' {
                        return None;
                    }
                    self.at += 1;
                }
            }
            b'[' => {
                let index: usize = token.parse().ok()?;
                self.at += 1;
                for _ in 0..index {
                    self.skip_space();
                    self.skip_value()?;
                    self.skip_space();
                    if self.peek()? != b',' {
                        return None;
                    }
                    self.at += 1;
                }
                self.skip_space();
                if self.peek()? == b']' {
                    return None;
                }
                Some(self.at)
            }
            _ => None,
        }
    }

    fn string(&mut self) -> Option<String> {
        let start = self.at;
        self.at += 1;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    break;
                }
                _ => self.at += 1,
            }
        }
        serde_json::from_slice(&self.bytes[start..self.at]).ok()
    }

    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => {
                self.string()?;
            }
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                self.at += 1;
                loop {
                    self.skip_space();
                    match self.peek()? {
                        c if c == close => {
                            self.at += 1;
                            break;
                        }
                        b',' | b':' => self.at += 1,
                        _ => self.skip_value()?,
                    }
                }
            }
            _ => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    self.at += 1;
                }
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::locate;

    const TEXT: &str = "{\n  \"a\": [1, {\"b/c\": 2}],\n  \"d\": \"x\"\n}";

    #[test]
    fn finds_nested_values_and_escaped_keys() {
        assert_eq!(locate(TEXT, ""), Some((1, 1)));
        assert_eq!(locate(TEXT, "/a"), Some((2, 8)));
        assert_eq!(locate(TEXT, "/a/1"), Some((2, 12)));
        assert_eq!(locate(TEXT, "/a/1/b~1c"), Some((2, 20)));
        assert_eq!(locate(TEXT, "/d"), Some((3, 8)));
    }

    #[test]
    fn missing_member_points_at_its_parent() {
        assert_eq!(locate(TEXT, "/a/1/zz"), Some((2, 12)));
        assert_eq!(locate(TEXT, "/a/7"), Some((2, 8)));
    }

    #[test]
    fn broken_text_never_panics() {
        for cut in 0..TEXT.len() {
            let _ = locate(&TEXT[..cut], "/a/1/b~1c");
        }
    }
}
