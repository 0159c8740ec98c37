//! Little-endian byte writing and bounds-checked reading for the pipeline's binary formats
//! (imported mesh, static mesh, collision, tags, IoStore). A [`ReadError`] says what was
//! wrong; each format's reader adds which file and field it was reading.

#[derive(Default)]
pub struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, x: u8) {
        self.bytes.push(x);
    }
    pub fn u16(&mut self, x: u16) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }
    pub fn u24(&mut self, x: u32) {
        self.bytes.extend_from_slice(&x.to_le_bytes()[..3]);
    }
    pub fn u32(&mut self, x: u32) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }
    pub fn f32(&mut self, x: f32) {
        self.bytes.extend_from_slice(&x.to_le_bytes());
    }
    pub fn f32s(&mut self, xs: &[f32]) {
        for x in xs {
            self.f32(*x);
        }
    }
    pub fn string(&mut self, s: &str) {
        self.u16(s.len() as u16);
        self.bytes.extend_from_slice(s.as_bytes());
    }
    pub fn raw(&mut self, b: &[u8]) {
        self.bytes.extend_from_slice(b);
    }
}

/// Why bytes did not read as the format they claim to be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("truncated")]
    Truncated,
    #[error("{count} records of {size} bytes need more than the {left} bytes left")]
    CountTooLarge { count: u64, size: u64, left: usize },
    #[error("a string is not UTF-8")]
    NotUtf8,
    #[error("not a {what} (bad magic)")]
    BadMagic { what: &'static str },
    #[error("{what} version {found} is not {expected}")]
    UnsupportedVersion {
        what: &'static str,
        found: u32,
        expected: u32,
    },
    #[error("trailing bytes")]
    TrailingBytes,
    /// A value the format does not allow; the format's reader says which.
    #[error("{0}")]
    Invalid(String),
}

impl From<&str> for ReadError {
    fn from(why: &str) -> Self {
        ReadError::Invalid(why.to_string())
    }
}

impl From<String> for ReadError {
    fn from(why: String) -> Self {
        ReadError::Invalid(why)
    }
}

pub type Result<T> = std::result::Result<T, ReadError>;

pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }
    /// How many bytes have been read.
    pub fn position(&self) -> usize {
        self.at
    }
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(ReadError::Truncated);
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    /// Checks that `count` records of `size` bytes fit in what is left, before the caller
    /// allocates for them.
    pub fn fits(&self, count: u64, size: u64) -> Result<usize> {
        let too_large = ReadError::CountTooLarge {
            count,
            size,
            left: self.remaining(),
        };
        match count.checked_mul(size) {
            Some(need) if need <= self.remaining() as u64 => Ok(count as usize),
            _ => Err(too_large),
        }
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    pub fn u16(&mut self) -> Result<u16> {
        self.array().map(u16::from_le_bytes)
    }
    pub fn u24(&mut self) -> Result<u32> {
        let [a, b, c] = self.array()?;
        Ok(u32::from_le_bytes([a, b, c, 0]))
    }
    pub fn u32(&mut self) -> Result<u32> {
        self.array().map(u32::from_le_bytes)
    }
    pub fn u64(&mut self) -> Result<u64> {
        self.array().map(u64::from_le_bytes)
    }
    pub fn f32(&mut self) -> Result<f32> {
        self.array().map(f32::from_le_bytes)
    }
    pub fn f64(&mut self) -> Result<f64> {
        self.array().map(f64::from_le_bytes)
    }
    pub fn string(&mut self) -> Result<String> {
        let n = self.u16()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| ReadError::NotUtf8)
    }
    pub fn magic(&mut self, magic: &[u8; 4], version: u32, what: &'static str) -> Result<()> {
        if self.take(4)? != magic {
            return Err(ReadError::BadMagic { what });
        }
        let found = self.u32()?;
        if found != version {
            return Err(ReadError::UnsupportedVersion {
                what,
                found,
                expected: version,
            });
        }
        Ok(())
    }
    pub fn finish(&self) -> Result<()> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(ReadError::TrailingBytes)
        }
    }
}
