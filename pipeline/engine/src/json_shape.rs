//! JSON that one of our own writers laid out, read in that one shape without a general
//! parser. A catalog-sized cook reads thousands of action log lines and stat cache rows,
//! and serde was most of the time either took. A reader built on [`Cursor`] gives up
//! (`None`) at anything its writer does not write (an escape, a control character, a
//! number with a leading zero, a fraction or past `u64`, space, a field out of order),
//! and its caller then reads the text through serde. So what the cursor reads, it reads as
//! serde does, and serde decides the rest.

/// A position in the text, moved on by each piece read.
pub struct Cursor<'a> {
    pub rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a [u8]) -> Cursor<'a> {
        Cursor { rest: text }
    }

    pub fn literal(&mut self, expected: &[u8]) -> Option<()> {
        self.rest = self.rest.strip_prefix(expected)?;
        Some(())
    }

    /// Takes `byte` if it comes next.
    pub fn take(&mut self, byte: u8) -> bool {
        self.literal(&[byte]).is_some()
    }

    /// A string with nothing to unescape: no backslash and no control character.
    pub fn string(&mut self) -> Option<&'a str> {
        self.literal(b"\"")?;
        let end = memchr::memchr2(b'"', b'\\', self.rest)?;
        let (text, rest) = self.rest.split_at(end);
        if rest[0] != b'"' || text.iter().any(|&b| b < 0x20) {
            return None;
        }
        self.rest = &rest[1..];
        std::str::from_utf8(text).ok()
    }

    /// A whole number as JSON writes it: no sign, no leading zero, no fraction.
    pub fn number(&mut self) -> Option<u64> {
        let digits = self.rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let (text, rest) = self.rest.split_at(digits);
        if text.is_empty() || (text.len() > 1 && text[0] == b'0') {
            return None;
        }
        if matches!(rest.first(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.rest = rest;
        text.iter().try_fold(0u64, |n, d| {
            n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })
    }

    /// The items of an array whose `[` was just read, each read by `item`, up to its `]`.
    pub fn items<T>(&mut self, mut item: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let mut items = Vec::new();
        self.each(|at| {
            items.push(item(at)?);
            Some(())
        })?;
        Some(items)
    }

    /// [`items`](Self::items), handing each item to `item` rather than gathering them.
    pub fn each(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if self.take(b']') {
            return Some(());
        }
        loop {
            item(self)?;
            if self.take(b']') {
                return Some(());
            }
            self.literal(b",")?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_only_what_serde_reads_the_same() {
        assert_eq!(Cursor::new(b"\"a b\"").string(), Some("a b"));
        for refused in [&b"\"a\\\"b\""[..], b"\"a\nb\"", b"\"a", b"\"\xff\""] {
            assert_eq!(Cursor::new(refused).string(), None);
        }
        assert_eq!(Cursor::new(b"0").number(), Some(0));
        assert_eq!(
            Cursor::new(b"18446744073709551615").number(),
            Some(u64::MAX)
        );
        for refused in [
            &b"01"[..],
            b"-1",
            b"1.0",
            b"1e3",
            b"18446744073709551616",
            b"",
        ] {
            assert_eq!(Cursor::new(refused).number(), None, "{refused:?}");
        }
        let mut at = Cursor::new(b"1,2,3]x");
        assert_eq!(at.items(Cursor::number), Some(vec![1, 2, 3]));
        assert_eq!(at.rest, b"x");
        assert_eq!(Cursor::new(b"]").items(Cursor::number), Some(vec![]));
        assert_eq!(Cursor::new(b"1,]").items(Cursor::number), None);
    }
}
