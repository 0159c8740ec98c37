//! A whole package chunk: the header, then each export's serialized bytes back to back in
//! the order of their cooked serial offsets (export map order in every fixture; not the
//! bundle's load order), then the four-byte package tag.

use crate::error::{PackageError, Result};
use crate::header::ZenHeader;

/// `C1 83 2A 9E`: PACKAGE_FILE_TAG, little-endian, after the last export.
pub const PACKAGE_TAG: [u8; 4] = [0xC1, 0x83, 0x2A, 0x9E];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    pub header: ZenHeader,
    /// Each export's serialized bytes, by export index.
    pub exports: Vec<Vec<u8>>,
}

impl Package {
    pub fn read(bytes: &[u8]) -> Result<Package> {
        let (header, header_size) = ZenHeader::read(bytes)?;
        let mut exports = vec![Vec::new(); header.exports.len()];
        let mut at = header_size;
        for index in header.layout_order() {
            let size = header.exports[index].cooked_serial_size;
            let end = usize::try_from(size)
                .ok()
                .and_then(|s| at.checked_add(s))
                .filter(|&e| e <= bytes.len());
            let Some(end) = end else {
                return Err(PackageError::new(
                    "package_export_size",
                    format!(
                        "export {index}'s {size} bytes run past the package's {} bytes",
                        bytes.len()
                    ),
                ));
            };
            exports[index] = bytes[at..end].to_vec();
            at = end;
        }
        if bytes.get(at..) != Some(&PACKAGE_TAG[..]) {
            return Err(PackageError::new(
                "package_tag",
                format!(
                    "the exports end at {at}, and what follows is not the 4-byte package tag (the chunk is {} bytes)",
                    bytes.len()
                ),
            ));
        }
        Ok(Package { header, exports })
    }

    /// The chunk bytes: the header as it stands, then the exports in layout order.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.header.to_bytes();
        for i in self.header.layout_order() {
            out.extend_from_slice(&self.exports[i]);
        }
        out.extend_from_slice(&PACKAGE_TAG);
        out
    }

    /// Replaces export `index`'s bytes, and moves the serial offsets of the exports laid
    /// out after it by the change in size, so the offsets stay what the cooker wrote.
    pub fn replace_export(&mut self, index: usize, bytes: Vec<u8>) {
        let entry = &self.header.exports[index];
        let (at, old) = (entry.cooked_serial_offset, entry.cooked_serial_size);
        let new = bytes.len() as u64;
        for other in &mut self.header.exports {
            if other.cooked_serial_offset > at {
                other.cooked_serial_offset = other.cooked_serial_offset - old + new;
            }
        }
        self.header.exports[index].cooked_serial_size = new;
        self.exports[index] = bytes;
    }

    /// The export index of the export named `name` (with its number).
    pub fn export_named(&self, name: &str) -> Option<usize> {
        self.header
            .exports
            .iter()
            .position(|x| self.header.name_of(x.object_name).as_deref() == Some(name))
    }
}

impl ZenHeader {
    /// Export indices in the order their bytes follow the header: by cooked serial offset.
    pub fn layout_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.exports.len()).collect();
        order.sort_by_key(|&i| (self.exports[i].cooked_serial_offset, i));
        order
    }
}
