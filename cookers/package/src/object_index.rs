//! FPackageObjectIndex: how an export names its class, outer, super and template. The top
//! two bits are the kind; script imports carry a hash of the object path, package imports
//! an imported-package index and an index into the imported public export hashes.

use forge_bytes::{Reader, Writer};

const INDEX_MASK: u64 = (1 << 62) - 1;
const NULL: u64 = u64::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectIndex {
    Export(u32),
    /// A `/Script/...` object, by the hash [`script_import`] computes from its path.
    ScriptImport(u64),
    PackageImport {
        package: u32,
        export_hash: u32,
    },
    Null,
}

impl ObjectIndex {
    pub fn from_raw(raw: u64) -> ObjectIndex {
        if raw == NULL {
            return ObjectIndex::Null;
        }
        match raw >> 62 {
            0 => ObjectIndex::Export((raw & INDEX_MASK) as u32),
            1 => ObjectIndex::ScriptImport(raw & INDEX_MASK),
            _ => ObjectIndex::PackageImport {
                package: ((raw & INDEX_MASK) >> 32) as u32,
                export_hash: raw as u32,
            },
        }
    }

    pub fn raw(&self) -> u64 {
        match *self {
            ObjectIndex::Export(i) => u64::from(i),
            ObjectIndex::ScriptImport(hash) => (1 << 62) | (hash & INDEX_MASK),
            ObjectIndex::PackageImport {
                package,
                export_hash,
            } => (2 << 62) | (u64::from(package) << 32) | u64::from(export_hash),
            ObjectIndex::Null => NULL,
        }
    }

    pub fn read(r: &mut Reader) -> forge_bytes::Result<ObjectIndex> {
        r.u64().map(ObjectIndex::from_raw)
    }

    pub fn write(&self, w: &mut Writer) {
        w.raw(&self.raw().to_le_bytes());
    }
}

/// The script-import index of a `/Script/...` object path: CityHash64 of the path,
/// lower-cased, with `.` and `:` turned into `/`, as UTF-16LE, in the low 62 bits.
pub fn script_import(path: &str) -> ObjectIndex {
    ObjectIndex::ScriptImport(object_path_hash(path) & INDEX_MASK)
}

/// The hash of an object path the way script imports and public exports are keyed.
pub fn object_path_hash(path: &str) -> u64 {
    let normalized: String = path
        .chars()
        .map(|c| match c {
            '.' | ':' => '/',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    let wide: Vec<u8> = normalized
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    cityhasher::hash::<u64>(&wide)
}

/// The public export hash of an export at `path` inside its package (for example
/// `sm_block` or `bp_block_c`): CityHash64 of the lower-cased path, UTF-16LE.
pub fn public_export_hash(path_in_package: &str) -> u64 {
    let wide: Vec<u8> = path_in_package
        .to_lowercase()
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    cityhasher::hash::<u64>(&wide)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_round_trips_every_kind() {
        for index in [
            ObjectIndex::Export(3),
            ObjectIndex::ScriptImport(0x1234_5678_9abc),
            ObjectIndex::PackageImport {
                package: 2,
                export_hash: 7,
            },
            ObjectIndex::Null,
        ] {
            assert_eq!(ObjectIndex::from_raw(index.raw()), index);
        }
    }
}
