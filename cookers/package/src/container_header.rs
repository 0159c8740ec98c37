//! The container header (chunk type 6, version 5): which packages a container holds and,
//! per package, the package ids it imports. The loader uses these store entries to load a
//! package's imports before the package itself.
//!
//! Layout: magic `0x496f436e`, version u32, container id u64, package ids (int32 count +
//! u64 each), the store entries buffer (int32 size, then 16 bytes per entry, two array
//! views of (int32 count, int32 offset from the view), then the arrays they point at),
//! optional-segment package ids and store entries, the redirect name map (a name batch),
//! localized packages, package redirects, and the soft package references section behind
//! an (offset, size) pair.

use forge_bytes::{Reader, Writer};

use crate::error::{PackageError, Result};
use crate::names;

pub const MAGIC: u32 = 0x496f_436e;
pub const VERSION: u32 = 5;
const ENTRY_SIZE: usize = 16;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StoreEntry {
    pub imported_packages: Vec<u64>,
    pub shader_map_hashes: Vec<[u8; 20]>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContainerHeader {
    pub container_id: u64,
    /// Package ids and their store entries, in the container's order.
    pub packages: Vec<(u64, StoreEntry)>,
    pub optional_segment_package_ids: Vec<u64>,
    pub optional_segment_store_entries: Vec<u8>,
    pub redirect_names: Vec<String>,
    /// Localized packages and package redirects, kept as bytes (count-prefixed records of
    /// 16 and 24 bytes): no Forge container has any.
    pub localized_packages: Vec<[u8; 16]>,
    pub package_redirects: Vec<[u8; 24]>,
    /// The soft package references section, kept as bytes (empty when absent).
    pub soft_package_references: Vec<u8>,
}

fn bad(why: impl Into<String>) -> PackageError {
    PackageError::new("container_header", why)
}

impl ContainerHeader {
    /// A header for `packages`, each with the ids of the packages it imports.
    pub fn new(container_id: u64, packages: Vec<(u64, Vec<u64>)>) -> ContainerHeader {
        ContainerHeader {
            container_id,
            packages: packages
                .into_iter()
                .map(|(id, imported_packages)| {
                    (
                        id,
                        StoreEntry {
                            imported_packages,
                            shader_map_hashes: Vec::new(),
                        },
                    )
                })
                .collect(),
            ..ContainerHeader::default()
        }
    }

    pub fn read(bytes: &[u8]) -> Result<ContainerHeader> {
        let e = |error| PackageError::read("container header", error);
        let mut r = Reader::new(bytes);
        if r.u32().map_err(e)? != MAGIC {
            return Err(bad(
                "the container header does not start with its magic 0x496f436e",
            ));
        }
        let version = r.u32().map_err(e)?;
        if version != VERSION {
            return Err(bad(format!(
                "container header version {version} is not {VERSION}"
            )));
        }
        let container_id = r.u64().map_err(e)?;
        let ids = read_u64s(&mut r).map_err(e)?;
        let entries_size = r.u32().map_err(e)? as u64;
        let buffer = r.take(r.fits(entries_size, 1).map_err(e)?).map_err(e)?;
        let entries = read_entries(buffer, ids.len())?;
        let optional_segment_package_ids = read_u64s(&mut r).map_err(e)?;
        let n = r.u32().map_err(e)? as u64;
        let optional_segment_store_entries = r.take(r.fits(n, 1).map_err(e)?).map_err(e)?.to_vec();
        let redirect_names = names::read_batch(&mut r, "container header redirect names")?;
        let localized_packages = read_records::<16>(&mut r).map_err(e)?;
        let package_redirects = read_records::<24>(&mut r).map_err(e)?;
        let soft_package_references = r.take(r.remaining()).map_err(e)?.to_vec();
        Ok(ContainerHeader {
            container_id,
            packages: ids.into_iter().zip(entries).collect(),
            optional_segment_package_ids,
            optional_segment_store_entries,
            redirect_names,
            localized_packages,
            package_redirects,
            soft_package_references,
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u32(MAGIC);
        w.u32(VERSION);
        w.raw(&self.container_id.to_le_bytes());
        write_u64s(&mut w, self.packages.iter().map(|(id, _)| *id));
        let buffer = write_entries(self.packages.iter().map(|(_, e)| e));
        w.u32(buffer.len() as u32);
        w.raw(&buffer);
        write_u64s(&mut w, self.optional_segment_package_ids.iter().copied());
        w.u32(self.optional_segment_store_entries.len() as u32);
        w.raw(&self.optional_segment_store_entries);
        names::write_batch(&mut w, &self.redirect_names);
        write_records(&mut w, &self.localized_packages);
        write_records(&mut w, &self.package_redirects);
        if self.soft_package_references.is_empty() {
            // An empty section: its serial info says offset 0, size 0.
            w.raw(&[0; 16]);
        } else {
            w.raw(&self.soft_package_references);
        }
        w.bytes
    }

    pub fn entry(&self, package_id: u64) -> Option<&StoreEntry> {
        self.packages
            .iter()
            .find(|(id, _)| *id == package_id)
            .map(|(_, e)| e)
    }
}

fn read_u64s(r: &mut Reader) -> forge_bytes::Result<Vec<u64>> {
    let declared = r.u32()?;
    let n = r.fits(u64::from(declared), 8)?;
    (0..n).map(|_| r.u64()).collect()
}

fn write_u64s(w: &mut Writer, values: impl ExactSizeIterator<Item = u64>) {
    w.u32(values.len() as u32);
    values.for_each(|v| w.raw(&v.to_le_bytes()));
}

fn read_records<const N: usize>(r: &mut Reader) -> forge_bytes::Result<Vec<[u8; N]>> {
    let declared = r.u32()?;
    let n = r.fits(u64::from(declared), N as u64)?;
    (0..n)
        .map(|_| r.take(N).map(|b| b.try_into().expect("N bytes")))
        .collect()
}

fn write_records<const N: usize>(w: &mut Writer, records: &[[u8; N]]) {
    w.u32(records.len() as u32);
    records.iter().for_each(|r| w.raw(r));
}

/// One array view: the count, and where its items start relative to the view itself.
fn view(buffer: &[u8], at: usize, size: usize) -> Result<std::ops::Range<usize>> {
    let int = |o: usize| i32::from_le_bytes(buffer[o..o + 4].try_into().expect("4 bytes"));
    let (count, offset) = (int(at), int(at + 4));
    let start = at as i64 + i64::from(offset);
    let end = start + i64::from(count) * size as i64;
    if count < 0 || (count > 0 && (start < 0 || end > buffer.len() as i64)) {
        return Err(bad(format!(
            "a store entry's array of {count} lies outside the entries"
        )));
    }
    Ok(if count == 0 {
        0..0
    } else {
        start as usize..end as usize
    })
}

fn read_entries(buffer: &[u8], count: usize) -> Result<Vec<StoreEntry>> {
    if buffer.len() < count * ENTRY_SIZE {
        return Err(bad(format!(
            "{count} store entries do not fit in {} bytes",
            buffer.len()
        )));
    }
    (0..count)
        .map(|i| {
            let at = i * ENTRY_SIZE;
            let imports = view(buffer, at, 8)?;
            let shaders = view(buffer, at + 8, 20)?;
            Ok(StoreEntry {
                imported_packages: buffer[imports]
                    .chunks(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                    .collect(),
                shader_map_hashes: buffer[shaders]
                    .chunks(20)
                    .map(|c| c.try_into().expect("20 bytes"))
                    .collect(),
            })
        })
        .collect()
}

/// The fixed-size entries first, then each entry's arrays in entry order.
fn write_entries<'a>(entries: impl ExactSizeIterator<Item = &'a StoreEntry>) -> Vec<u8> {
    let entries: Vec<&StoreEntry> = entries.collect();
    let mut head = Vec::with_capacity(entries.len() * ENTRY_SIZE);
    let mut tail = Vec::new();
    let data_start = entries.len() * ENTRY_SIZE;
    let mut put = |head: &mut Vec<u8>, count: usize, bytes: Vec<u8>| {
        let view_at = head.len();
        let offset = if count == 0 {
            0
        } else {
            (data_start + tail.len() - view_at) as i32
        };
        head.extend_from_slice(&(count as i32).to_le_bytes());
        head.extend_from_slice(&offset.to_le_bytes());
        tail.extend_from_slice(&bytes);
    };
    for entry in entries {
        let imports = entry
            .imported_packages
            .iter()
            .flat_map(|p| p.to_le_bytes())
            .collect();
        put(&mut head, entry.imported_packages.len(), imports);
        put(
            &mut head,
            entry.shader_map_hashes.len(),
            entry.shader_map_hashes.concat(),
        );
    }
    head.extend_from_slice(&tail);
    head
}
