//! A group's file (`FGRP` v1, `docs/formats/iostore.md`): one file of each block of a run
//! of a set's blocks, under the block's name. A set's steps read every block's small files
//! (its chunk index, its facts); at a catalog's size each read back from the store cost
//! more than what it held, so a large set's blocks are read a group at a time.
//!
//! Little-endian: `FGRP`, u32 version 1, u32 entry count; per entry a u16 name length and
//! the UTF-8 name, then a u32 length and the bytes.

use forge_iostore::IoStoreError;

const MAGIC: &[u8; 4] = b"FGRP";
const VERSION: u32 = 1;

/// The group's file, its entries in the order given.
pub fn to_bytes(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = forge_bytes::Writer::default();
    w.raw(MAGIC);
    w.u32(VERSION);
    w.u32(entries.len() as u32);
    for (name, bytes) in entries {
        w.string(name);
        w.u32(bytes.len() as u32);
        w.raw(bytes);
    }
    w.bytes
}

/// Reads [`to_bytes`]'s file, borrowing each entry from `bytes`; every count is checked
/// against the bytes left, and a damaged file is `block_group`.
pub fn from_bytes(bytes: &[u8]) -> Result<Vec<(&str, &[u8])>, IoStoreError> {
    let e = |e: forge_bytes::ReadError| IoStoreError::new("block_group", e.to_string());
    let mut r = forge_bytes::Reader::new(bytes);
    r.magic(MAGIC, VERSION, "group of block files").map_err(e)?;
    let count = r.u32().map_err(e)?;
    // The smallest entry is an empty name and an empty file: two lengths.
    let count = r.fits(u64::from(count), 6).map_err(e)?;
    let mut entries = Vec::with_capacity(count);
    for _ in 0..count {
        let name_length = r.u16().map_err(e)?;
        let name = std::str::from_utf8(r.take(usize::from(name_length)).map_err(e)?)
            .map_err(|_| e(forge_bytes::ReadError::NotUtf8))?;
        let length = r.u32().map_err(e)?;
        entries.push((name, r.take(length as usize).map_err(e)?));
    }
    r.finish().map_err(e)?;
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_reads_back_as_written() {
        let entries: [(&str, &[u8]); 3] = [
            ("wall", b"FBLK.."),
            ("ramp", b""),
            ("b\u{e9}", &[0; 70_000]),
        ];
        assert_eq!(from_bytes(&to_bytes(&entries)).unwrap(), entries);
        assert!(from_bytes(&to_bytes(&[])).unwrap().is_empty());
    }

    #[test]
    fn a_damaged_group_is_refused_with_its_code() {
        let whole = to_bytes(&[("wall", b"index"), ("ramp", b"facts")]);
        let mut more = whole.clone();
        more[8] = 200;
        let mut longer = whole.clone();
        longer.push(0);
        let mut bad_name = whole.clone();
        bad_name[14] = 0xff;
        for (damaged, why) in [
            (&whole[..whole.len() - 1], "truncated"),
            (&more[..], "records"),
            (&longer[..], "trailing"),
            (&bad_name[..], "UTF-8"),
            (&b"FBLK\x01\0\0\0\0\0\0\0"[..], "magic"),
        ] {
            let err = from_bytes(damaged).unwrap_err();
            assert_eq!(err.code, "block_group");
            assert!(err.message.contains(why), "{why}: {}", err.message);
        }
    }
}
