//! Little-endian byte writing and bounds-checked reading for the pipeline's binary formats
//! (imported mesh, static mesh, collision). Errors are short phrases; each format's reader
//! adds which file and field it was reading.

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
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.remaining() {
            return Err("truncated".into());
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    pub fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    pub fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().expect("two bytes"),
        ))
    }
    pub fn u24(&mut self) -> Result<u32, String> {
        let b = self.take(3)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
    }
    pub fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("four bytes"),
        ))
    }
    pub fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(
            self.take(4)?.try_into().expect("four bytes"),
        ))
    }
    pub fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_le_bytes(
            self.take(8)?.try_into().expect("eight bytes"),
        ))
    }
    pub fn string(&mut self) -> Result<String, String> {
        let n = self.u16()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| "a string is not UTF-8".to_string())
    }
    pub fn magic(&mut self, magic: &[u8; 4], version: u32, what: &str) -> Result<(), String> {
        if self.take(4)? != magic {
            return Err(format!("not a {what} (bad magic)"));
        }
        let v = self.u32()?;
        if v != version {
            return Err(format!("{what} version {v} is not {version}"));
        }
        Ok(())
    }
    pub fn finish(&self) -> Result<(), String> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err("trailing bytes".into())
        }
    }
}
