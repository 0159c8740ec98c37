//! Maps a JSON pointer back to a line and column in the source text.
//!
//! serde_json's `Value` forgets positions, yet authors need to be sent to the exact spot.
//! This scanner walks the text along the pointer and skips everything else. When the
//! pointer names something absent (a missing field), it answers with the position of the
//! deepest part that exists, which is where the field belongs.

/// 1-based (line, column) of the value at `pointer`, or of its deepest existing parent.
pub fn locate(text: &str, pointer: &str) -> Option<(usize, usize)> {
    Positions::new(text).locate(pointer)
}

/// Every value's position in one text, found in one walk, so that locating a thousand
/// findings costs one walk and not a thousand (a walk per finding made linting ten
/// thousand bad files take seconds each).
pub struct Positions<'a> {
    text: &'a str,
    /// Each value's byte offset, by its JSON pointer.
    offsets: std::collections::HashMap<String, usize>,
    /// The byte offset each line starts at.
    line_starts: Vec<usize>,
    /// Whether every character is one byte, so a column is a byte count (a document on one
    /// long line would otherwise be counted again for every finding).
    ascii: bool,
}

impl<'a> Positions<'a> {
    pub fn new(text: &'a str) -> Positions<'a> {
        let mut scanner = Scanner {
            bytes: text.as_bytes(),
            at: 0,
        };
        scanner.skip_space();
        let mut offsets = std::collections::HashMap::new();
        // A text that breaks off is indexed as far as it goes.
        let _ = scanner.index(String::new(), &mut offsets);
        let line_starts = std::iter::once(0)
            .chain(
                text.bytes()
                    .enumerate()
                    .filter(|(_, b)| *b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        Positions {
            text,
            offsets,
            line_starts,
            ascii: text.is_ascii(),
        }
    }

    /// 1-based (line, column) of the value at `pointer`, or of its deepest existing parent.
    pub fn locate(&self, pointer: &str) -> Option<(usize, usize)> {
        if !pointer.is_empty() && !pointer.starts_with('/') {
            return None;
        }
        let mut at = pointer;
        loop {
            if let Some(&offset) = self.offsets.get(at) {
                return Some(self.line_column(offset));
            }
            match at.rsplit_once('/') {
                Some((parent, _)) => at = parent,
                None => return Some(self.line_column(0)),
            }
        }
    }

    fn line_column(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line - 1];
        if self.ascii {
            return (line, offset - start + 1);
        }
        let column = String::from_utf8_lossy(&self.text.as_bytes()[start..offset])
            .chars()
            .count()
            + 1;
        (line, column)
    }
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    /// Records the offset of the value under the scanner as `pointer`, and of everything
    /// inside it, and moves past it.
    fn index(
        &mut self,
        pointer: String,
        offsets: &mut std::collections::HashMap<String, usize>,
    ) -> Option<()> {
        offsets.insert(pointer.clone(), self.at);
        let (close, object) = match self.peek()? {
            b'{' => (b'}', true),
            b'[' => (b']', false),
            _ => return self.skip_value(),
        };
        self.at += 1;
        let mut i = 0usize;
        loop {
            self.skip_space();
            match self.peek()? {
                c if c == close => {
                    self.at += 1;
                    return Some(());
                }
                b',' => {
                    self.at += 1;
                    continue;
                }
                _ => {}
            }
            let child = if object {
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
                child(&pointer, &key)
            } else {
                i += 1;
                format!("{pointer}/{}", i - 1)
            };
            self.index(child, offsets)?;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
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

/// Appends a pointer token, escaping `~` and `/` as RFC 6901 requires.
pub fn child(pointer: &str, token: impl std::fmt::Display) -> String {
    let token = token.to_string().replace('~', "~0").replace('/', "~1");
    format!("{pointer}/{token}")
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
