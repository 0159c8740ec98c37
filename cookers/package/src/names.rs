//! Name batches: the name map of a package, of a container header and of the global
//! script objects. A batch is a count, the string bytes' total, the hash version, one
//! CityHash64 per name, one two-byte big-endian header per name (bit 15 set for UTF-16,
//! the rest the length in characters), then the strings with no terminator.

use forge_bytes::{Reader, Writer};

use crate::error::{PackageError, Result};

/// The name-hash algorithm id every UE5 batch carries.
pub const HASH_VERSION: u64 = 0xC164_0000;

/// CityHash64 of the name with A-Z lower-cased, as ANSI bytes, or UTF-16LE when the name
/// is not all ASCII.
pub fn name_hash(name: &str) -> u64 {
    let lower: String = name.chars().map(|c| c.to_ascii_lowercase()).collect();
    if lower.is_ascii() {
        cityhasher::hash::<u64>(lower.as_bytes())
    } else {
        let wide: Vec<u8> = lower.encode_utf16().flat_map(u16::to_le_bytes).collect();
        cityhasher::hash::<u64>(&wide)
    }
}

/// A name as an index into a name map plus a number (`Name_3` is `Name` with number 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MappedName {
    pub index: u32,
    pub number: u32,
}

impl MappedName {
    /// The index into the name map, without the two type bits (package, container or
    /// global map) above it.
    pub fn slot(&self) -> usize {
        (self.index & 0x3fff_ffff) as usize
    }

    pub fn read(r: &mut Reader) -> forge_bytes::Result<MappedName> {
        Ok(MappedName {
            index: r.u32()?,
            number: r.u32()?,
        })
    }

    pub fn write(&self, w: &mut Writer) {
        w.u32(self.index);
        w.u32(self.number);
    }
}

/// Reads a name batch, checking each stored hash against the name.
pub fn read_batch(r: &mut Reader, part: &str) -> Result<Vec<String>> {
    let e = |error: forge_bytes::ReadError| PackageError::read(part, error);
    let count = r.u32().map_err(e)? as u64;
    if count == 0 {
        return Ok(Vec::new());
    }
    let string_bytes = r.u32().map_err(e)?;
    let version = r.u64().map_err(e)?;
    if version != HASH_VERSION {
        return Err(PackageError::new(
            "package_name_hash_version",
            format!("{part}: name hash version {version:#x} is not {HASH_VERSION:#x}"),
        ));
    }
    let count = r.fits(count, 10).map_err(e)?;
    let hashes: Vec<u64> = (0..count)
        .map(|_| r.u64())
        .collect::<forge_bytes::Result<_>>()
        .map_err(e)?;
    let headers: Vec<u16> = (0..count)
        .map(|_| r.take(2).map(|b| u16::from_be_bytes([b[0], b[1]])))
        .collect::<forge_bytes::Result<_>>()
        .map_err(e)?;
    let start = r.position();
    let mut names = Vec::with_capacity(count);
    for (header, hash) in headers.into_iter().zip(hashes) {
        let name = read_string(r, header).map_err(e)?;
        if name_hash(&name) != hash {
            return Err(PackageError::new(
                "package_name_hash",
                format!("{part}: the stored hash of {name:?} is not its CityHash64"),
            ));
        }
        names.push(name);
    }
    if (r.position() - start) as u64 != u64::from(string_bytes) {
        return Err(PackageError::new(
            "package_name_batch",
            format!(
                "{part}: the strings take {} bytes, not the {string_bytes} declared",
                r.position() - start
            ),
        ));
    }
    Ok(names)
}

fn read_string(r: &mut Reader, header: u16) -> forge_bytes::Result<String> {
    let length = usize::from(header & 0x7fff);
    if header & 0x8000 == 0 {
        let bytes = r.take(length)?;
        if !bytes.is_ascii() {
            return Err("an ANSI name holds a byte above 127".into());
        }
        Ok(bytes.iter().map(|&b| char::from(b)).collect())
    } else {
        let bytes = r.take(length * 2)?;
        let units: Vec<u16> = bytes
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        String::from_utf16(&units).map_err(|_| "a UTF-16 name is not valid UTF-16".into())
    }
}

/// Writes a name batch: ASCII names as ANSI, others as UTF-16LE.
pub fn write_batch(w: &mut Writer, names: &[String]) {
    w.u32(names.len() as u32);
    if names.is_empty() {
        return;
    }
    let encoded: Vec<(u16, Vec<u8>)> = names.iter().map(|n| encode(n)).collect();
    w.u32(encoded.iter().map(|(_, b)| b.len() as u32).sum());
    w.raw(&HASH_VERSION.to_le_bytes());
    for name in names {
        w.raw(&name_hash(name).to_le_bytes());
    }
    for (header, _) in &encoded {
        w.raw(&header.to_be_bytes());
    }
    for (_, bytes) in &encoded {
        w.raw(bytes);
    }
}

fn encode(name: &str) -> (u16, Vec<u8>) {
    if name.is_ascii() {
        (name.len() as u16, name.as_bytes().to_vec())
    } else {
        let units: Vec<u16> = name.encode_utf16().collect();
        (
            0x8000 | units.len() as u16,
            units.iter().flat_map(|u| u.to_le_bytes()).collect(),
        )
    }
}

/// Splits `Name_3` into `Name` and number 4, as FName does; `Name_03` keeps its digits.
pub fn split_number(name: &str) -> (&str, u32) {
    if let Some((base, digits)) = name.rsplit_once('_') {
        let canonical = !digits.is_empty() && (digits == "0" || !digits.starts_with('0'));
        if canonical && digits.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(n) = digits.parse::<u32>() {
                if n < u32::MAX {
                    return (base, n + 1);
                }
            }
        }
    }
    (name, 0)
}

/// The display form of a base name and number.
pub fn join_number(base: &str, number: u32) -> String {
    if number == 0 {
        base.to_string()
    } else {
        format!("{base}_{}", number - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_round_trips_ascii_and_wide_names() {
        let names = vec!["None".to_string(), "/Script/Engine".into(), "Größe".into()];
        let mut w = Writer::default();
        write_batch(&mut w, &names);
        let mut r = Reader::new(&w.bytes);
        assert_eq!(read_batch(&mut r, "test").unwrap(), names);
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn a_wrong_hash_is_refused() {
        let mut w = Writer::default();
        write_batch(&mut w, &["None".to_string()]);
        w.bytes[16] ^= 1;
        let err = read_batch(&mut Reader::new(&w.bytes), "test").unwrap_err();
        assert_eq!(err.code, "package_name_hash");
    }

    #[test]
    fn numbers_split_as_fname_does() {
        assert_eq!(split_number("Socket_3"), ("Socket", 4));
        assert_eq!(split_number("Socket_0"), ("Socket", 1));
        assert_eq!(split_number("Socket_03"), ("Socket_03", 0));
        assert_eq!(split_number("Socket"), ("Socket", 0));
        assert_eq!(join_number("Socket", 4), "Socket_3");
    }
}
