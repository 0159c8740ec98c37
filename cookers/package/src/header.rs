//! The zen package header as UE 5.8 writes it, in file order: the summary (52 bytes),
//! optional versioning info, the cell offsets, the name map, the bulk data map, the
//! imported public export hashes, the import map, the export map, the cell maps, the
//! export bundle entries, the dependency bundles and the imported package names, which
//! end at HeaderSize. Offsets are derived on write, never stored, so an edited header is
//! always consistent; reading checks each stored offset against where its part really is.

use forge_bytes::{Reader, Writer};

use crate::error::{PackageError, Result};
use crate::names::{self, MappedName};
use crate::object_index::ObjectIndex;

pub const SUMMARY_SIZE: usize = 52;
const EXPORT_ENTRY_SIZE: usize = 72;
const BULK_ENTRY_SIZE: usize = 32;
const DEPENDENCY_HEADER_SIZE: usize = 20;
const CELL_EXPORT_ENTRY_SIZE: usize = 40;
/// EExportCommandType: an export is created, then serialized.
pub const CREATE: u32 = 0;
pub const SERIALIZE: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versioning {
    pub zen_version: u32,
    pub file_version_ue4: i32,
    pub file_version_ue5: i32,
    pub licensee_version: i32,
    pub custom_versions: Vec<([u8; 16], i32)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkDataEntry {
    pub serial_offset: i64,
    pub duplicate_serial_offset: i64,
    pub serial_size: i64,
    pub flags: u32,
    pub cooked_index: u8,
    pub pad: [u8; 3],
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportEntry {
    pub cooked_serial_offset: u64,
    pub cooked_serial_size: u64,
    pub object_name: MappedName,
    pub outer: ObjectIndex,
    pub class: ObjectIndex,
    pub super_: ObjectIndex,
    pub template: ObjectIndex,
    pub public_export_hash: u64,
    pub object_flags: u32,
    pub filter_flags: u8,
    pub pad: [u8; 3],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BundleEntry {
    pub export: u32,
    pub command: u32,
}

/// Per export: where its dependencies start in the entries, and how many of each
/// (create before create, serialize before create, create before serialize, serialize
/// before serialize).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DependencyHeader {
    pub first_entry: i32,
    pub counts: [u32; 4],
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZenHeader {
    pub name: MappedName,
    pub package_flags: u32,
    /// `CookedHeaderSize` as read, less what the names took in it; the writer adds back
    /// what they take now ([`ZenHeader::cooked_header_size`]).
    pub legacy_header_rest: i64,
    pub versioning: Option<Versioning>,
    pub names: Vec<String>,
    /// The bytes that aligned the bulk data map, as read; the writer recomputes them
    /// for the package it writes ([`bulk_padding`]).
    pub bulk_pad: Vec<u8>,
    pub bulk_data: Vec<BulkDataEntry>,
    pub imported_public_export_hashes: Vec<u64>,
    pub imports: Vec<ObjectIndex>,
    pub exports: Vec<ExportEntry>,
    pub cell_imports: Vec<ObjectIndex>,
    /// Verse cell exports, kept as bytes: no Forge package has them.
    pub cell_exports: Vec<[u8; CELL_EXPORT_ENTRY_SIZE]>,
    pub bundle: Vec<BundleEntry>,
    pub dependency_headers: Vec<DependencyHeader>,
    pub dependency_entries: Vec<i32>,
    /// Imported package names with their numbers folded in (`Name_0` for number 1).
    pub imported_packages: Vec<String>,
}

struct Offsets {
    header_size: u32,
    public_hashes: i32,
    imports: i32,
    exports: i32,
    cell_imports: i32,
    cell_exports: i32,
    bundle: i32,
    dependency_headers: i32,
    dependency_entries: i32,
    imported_packages: i32,
}

impl ZenHeader {
    /// The name a [`MappedName`] stands for, with its number.
    pub fn name_of(&self, name: MappedName) -> Option<String> {
        let base = self.names.get(name.slot())?;
        Some(names::join_number(base, name.number))
    }

    pub fn package_name(&self) -> Option<String> {
        self.name_of(self.name)
    }

    /// Reads a header from the start of a package chunk; returns it and HeaderSize.
    pub fn read(bytes: &[u8]) -> Result<(ZenHeader, usize)> {
        let mut r = Reader::new(bytes);
        let Summary {
            header_size,
            name,
            package_flags,
            cooked_header_size,
            stored,
            versioning,
            cells,
        } = read_summary(&mut r)?;
        let names = names::read_batch(&mut r, "name map")?;
        let (bulk_pad, bulk_data) = read_bulk_map(&mut r)?;
        let [public_hashes, imports, exports, bundle, dep_headers, dep_entries, imported] = stored;
        expect_at(&r, public_hashes, "imported public export hashes")?;
        let mut t = Tables {
            r: &mut r,
            len: bytes.len(),
        };
        let imported_public_export_hashes = t.read(
            "imported public export hashes",
            (public_hashes, imports, 8),
            |r| r.u64(),
        )?;
        let imports_read = t.read("import map", (imports, exports, 8), ObjectIndex::read)?;
        let exports_read: Vec<ExportEntry> = t.read(
            "export map",
            (exports, cells.0, EXPORT_ENTRY_SIZE),
            read_export,
        )?;
        let cell_imports = t.read("cell import map", (cells.0, cells.1, 8), ObjectIndex::read)?;
        let cell_exports = t.read(
            "cell export map",
            (cells.1, bundle, CELL_EXPORT_ENTRY_SIZE),
            |r| {
                r.take(CELL_EXPORT_ENTRY_SIZE)
                    .map(|b| b.try_into().expect("40 bytes"))
            },
        )?;
        let bundle_read = t.read("export bundle", (bundle, dep_headers, 8), read_bundle_entry)?;
        let dependency_headers = t.read(
            "dependency bundle headers",
            (dep_headers, dep_entries, DEPENDENCY_HEADER_SIZE),
            read_dependency_header,
        )?;
        let dependency_entries = t.read(
            "dependency bundle entries",
            (dep_entries, imported, 4),
            |r| r.u32().map(|x| x as i32),
        )?;
        let imported_packages = read_imported_packages(&mut r)?;
        expect_end(&r, header_size)?;
        let mut header = ZenHeader {
            name,
            package_flags,
            legacy_header_rest: 0,
            versioning,
            names,
            bulk_pad,
            bulk_data,
            imported_public_export_hashes,
            imports: imports_read,
            exports: exports_read,
            cell_imports,
            cell_exports,
            bundle: bundle_read,
            dependency_headers,
            dependency_entries,
            imported_packages,
        };
        header.check_bundle()?;
        header.legacy_header_rest = i64::from(cooked_header_size) - header.legacy_name_bytes();
        Ok((header, header_size as usize))
    }

    /// Every export is created once and serialized once, its Create before its Serialize.
    fn check_bundle(&self) -> Result<()> {
        let n = self.exports.len();
        let mut seen = vec![[false; 2]; n];
        for entry in &self.bundle {
            let bad = |why: String| Err(PackageError::new("package_export_bundle", why));
            let Some(slot) = seen.get_mut(entry.export as usize) else {
                return bad(format!(
                    "the bundle names export {}, past the {n} exports",
                    entry.export
                ));
            };
            match entry.command {
                CREATE if !slot[0] => slot[0] = true,
                SERIALIZE if slot[0] && !slot[1] => slot[1] = true,
                c => {
                    return bad(format!(
                        "export {}: command {c} out of order or repeated",
                        entry.export
                    ))
                }
            }
        }
        if self.bundle.len() != 2 * n {
            return Err(PackageError::new(
                "package_export_bundle",
                format!(
                    "{} bundle entries for {n} exports, not twice as many",
                    self.bundle.len()
                ),
            ));
        }
        Ok(())
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut body = Writer::default();
        // Everything after the summary, with offsets measured from the package start.
        let at = |w: &Writer| (SUMMARY_SIZE + w.bytes.len()) as i32;
        if let Some(v) = &self.versioning {
            write_versioning(&mut body, v);
        }
        let cells_at = body.bytes.len();
        body.raw(&[0; 8]);
        names::write_batch(&mut body, &self.names);
        // The bulk data map, and everything after it, starts 8-byte aligned, as in every
        // package Unreal writes: the padding is the package's own, not the donor's.
        let pad = bulk_padding(SUMMARY_SIZE + body.bytes.len());
        body.raw(&(pad as u64).to_le_bytes());
        body.raw(&vec![0; pad]);
        body.raw(&((self.bulk_data.len() * BULK_ENTRY_SIZE) as u64).to_le_bytes());
        self.bulk_data
            .iter()
            .for_each(|b| write_bulk_entry(&mut body, b));
        let public_hashes = at(&body);
        self.imported_public_export_hashes
            .iter()
            .for_each(|h| body.raw(&h.to_le_bytes()));
        let imports = at(&body);
        self.imports.iter().for_each(|i| i.write(&mut body));
        let exports = at(&body);
        self.exports.iter().for_each(|x| write_export(&mut body, x));
        let cell_imports = at(&body);
        self.cell_imports.iter().for_each(|i| i.write(&mut body));
        let cell_exports = at(&body);
        self.cell_exports.iter().for_each(|c| body.raw(c));
        let bundle = at(&body);
        for entry in &self.bundle {
            body.u32(entry.export);
            body.u32(entry.command);
        }
        let dependency_headers = at(&body);
        self.dependency_headers
            .iter()
            .for_each(|d| write_dependency_header(&mut body, d));
        let dependency_entries = at(&body);
        self.dependency_entries
            .iter()
            .for_each(|d| body.u32(*d as u32));
        let imported_packages = at(&body);
        write_imported_packages(&mut body, &self.imported_packages);
        let offsets = Offsets {
            header_size: at(&body) as u32,
            public_hashes,
            imports,
            exports,
            cell_imports,
            cell_exports,
            bundle,
            dependency_headers,
            dependency_entries,
            imported_packages,
        };
        body.bytes[cells_at..cells_at + 4].copy_from_slice(&offsets.cell_imports.to_le_bytes());
        body.bytes[cells_at + 4..cells_at + 8].copy_from_slice(&offsets.cell_exports.to_le_bytes());
        let mut out = self.summary(&offsets);
        out.extend_from_slice(&body.bytes);
        out
    }

    fn summary(&self, o: &Offsets) -> Vec<u8> {
        let mut w = Writer::default();
        w.u32(u32::from(self.versioning.is_some()));
        w.u32(o.header_size);
        self.name.write(&mut w);
        w.u32(self.package_flags);
        w.u32(self.cooked_header_size());
        for offset in [
            o.public_hashes,
            o.imports,
            o.exports,
            o.bundle,
            o.dependency_headers,
            o.dependency_entries,
            o.imported_packages,
        ] {
            w.u32(offset as u32);
        }
        w.bytes
    }
}

/// Where a package's header tables start (public export hashes, imports, exports), from
/// its summary: each is 8-byte aligned in a package Unreal writes, since the bulk data map
/// before them is.
pub fn table_offsets(bytes: &[u8]) -> Option<[u32; 3]> {
    let at = |k: usize| Some(u32::from_le_bytes(bytes.get(k..k + 4)?.try_into().ok()?));
    Some([at(24)?, at(28)?, at(32)?])
}

/// The zero bytes between the padding's own length (a u64 at `at`) and the bulk data
/// map's size, so that the size, the entries and all after them are 8-byte aligned.
pub fn bulk_padding(at: usize) -> usize {
    (8 - (at + 8) % 8) % 8
}

fn expect_at(r: &Reader, offset: i32, part: &str) -> Result<()> {
    if r.position() as i64 != i64::from(offset) {
        return Err(PackageError::new(
            "package_offsets",
            format!(
                "the {part} are declared at {offset} but follow at {}",
                r.position()
            ),
        ));
    }
    Ok(())
}

fn read_versioning(r: &mut Reader) -> forge_bytes::Result<Versioning> {
    let zen_version = r.u32()?;
    let file_version_ue4 = r.u32()? as i32;
    let file_version_ue5 = r.u32()? as i32;
    let licensee_version = r.u32()? as i32;
    let declared = r.u32()?;
    let count = r.fits(u64::from(declared), 20)?;
    let custom_versions = (0..count)
        .map(|_| Ok((r.take(16)?.try_into().expect("16 bytes"), r.u32()? as i32)))
        .collect::<forge_bytes::Result<_>>()?;
    Ok(Versioning {
        zen_version,
        file_version_ue4,
        file_version_ue5,
        licensee_version,
        custom_versions,
    })
}

fn write_versioning(w: &mut Writer, v: &Versioning) {
    w.u32(v.zen_version);
    w.u32(v.file_version_ue4 as u32);
    w.u32(v.file_version_ue5 as u32);
    w.u32(v.licensee_version as u32);
    w.u32(v.custom_versions.len() as u32);
    for (guid, version) in &v.custom_versions {
        w.raw(guid);
        w.u32(*version as u32);
    }
}

fn read_bulk_entry(r: &mut Reader) -> forge_bytes::Result<BulkDataEntry> {
    Ok(BulkDataEntry {
        serial_offset: r.u64()? as i64,
        duplicate_serial_offset: r.u64()? as i64,
        serial_size: r.u64()? as i64,
        flags: r.u32()?,
        cooked_index: r.u8()?,
        pad: r.take(3)?.try_into().expect("3 bytes"),
    })
}

fn write_bulk_entry(w: &mut Writer, b: &BulkDataEntry) {
    w.raw(&b.serial_offset.to_le_bytes());
    w.raw(&b.duplicate_serial_offset.to_le_bytes());
    w.raw(&b.serial_size.to_le_bytes());
    w.u32(b.flags);
    w.u8(b.cooked_index);
    w.raw(&b.pad);
}

fn read_export(r: &mut Reader) -> forge_bytes::Result<ExportEntry> {
    Ok(ExportEntry {
        cooked_serial_offset: r.u64()?,
        cooked_serial_size: r.u64()?,
        object_name: MappedName::read(r)?,
        outer: ObjectIndex::read(r)?,
        class: ObjectIndex::read(r)?,
        super_: ObjectIndex::read(r)?,
        template: ObjectIndex::read(r)?,
        public_export_hash: r.u64()?,
        object_flags: r.u32()?,
        filter_flags: r.u8()?,
        pad: r.take(3)?.try_into().expect("3 bytes"),
    })
}

fn write_export(w: &mut Writer, x: &ExportEntry) {
    w.raw(&x.cooked_serial_offset.to_le_bytes());
    w.raw(&x.cooked_serial_size.to_le_bytes());
    x.object_name.write(w);
    for index in [x.outer, x.class, x.super_, x.template] {
        index.write(w);
    }
    w.raw(&x.public_export_hash.to_le_bytes());
    w.u32(x.object_flags);
    w.u8(x.filter_flags);
    w.raw(&x.pad);
}

fn read_dependency_header(r: &mut Reader) -> forge_bytes::Result<DependencyHeader> {
    let first_entry = r.u32()? as i32;
    let mut counts = [0; 4];
    for c in &mut counts {
        *c = r.u32()?;
    }
    Ok(DependencyHeader {
        first_entry,
        counts,
    })
}

fn write_dependency_header(w: &mut Writer, d: &DependencyHeader) {
    w.u32(d.first_entry as u32);
    d.counts.iter().for_each(|c| w.u32(*c));
}

/// A name batch of the base names, then one int32 number per name.
fn read_imported_packages(r: &mut Reader) -> Result<Vec<String>> {
    let bases = names::read_batch(r, "imported package names")?;
    bases
        .into_iter()
        .map(|base| {
            let number = r
                .u32()
                .map_err(|e| PackageError::read("imported package names", e))?;
            Ok(names::join_number(&base, number))
        })
        .collect()
}

fn write_imported_packages(w: &mut Writer, packages: &[String]) {
    let (bases, numbers): (Vec<String>, Vec<u32>) = packages
        .iter()
        .map(|p| {
            let (base, number) = names::split_number(p);
            (base.to_string(), number)
        })
        .unzip();
    names::write_batch(w, &bases);
    numbers.iter().for_each(|n| w.u32(*n));
}

/// The bulk data map: its padding, kept as read, and its entries.
fn read_bulk_map(r: &mut Reader) -> Result<(Vec<u8>, Vec<BulkDataEntry>)> {
    let e = |error| PackageError::read("bulk data map", error);
    let pad_len = r.u64().map_err(e)?;
    let pad_len = r.fits(pad_len, 1).map_err(e)?;
    let bulk_pad = r.take(pad_len).map_err(e)?.to_vec();
    let bulk_size = r.u64().map_err(e)?;
    if !bulk_size.is_multiple_of(BULK_ENTRY_SIZE as u64) {
        return Err(PackageError::new(
            "package_bulk_data",
            format!("the bulk data map's {bulk_size} bytes are not whole entries"),
        ));
    }
    let bulk_count = r
        .fits(bulk_size / BULK_ENTRY_SIZE as u64, BULK_ENTRY_SIZE as u64)
        .map_err(e)?;
    let bulk_data = (0..bulk_count)
        .map(|_| read_bulk_entry(r))
        .collect::<forge_bytes::Result<_>>()
        .map_err(e)?;
    Ok((bulk_pad, bulk_data))
}

fn expect_end(r: &Reader, header_size: u32) -> Result<()> {
    if r.position() == header_size as usize {
        return Ok(());
    }
    Err(PackageError::new(
        "package_header_size",
        format!(
            "the header ends at {}, not at HeaderSize {header_size}",
            r.position()
        ),
    ))
}

/// The package summary: the fields before the name map.
struct Summary {
    header_size: u32,
    name: MappedName,
    package_flags: u32,
    cooked_header_size: u32,
    /// The offsets of the seven tables that follow the bulk data map, in order.
    stored: [i32; 7],
    versioning: Option<Versioning>,
    /// The cell import and export maps' offsets.
    cells: (i32, i32),
}

fn read_summary(r: &mut Reader) -> Result<Summary> {
    let e = |part: &'static str| move |error| PackageError::read(part, error);
    let has_versioning = r.u32().map_err(e("summary"))?;
    let header_size = r.u32().map_err(e("summary"))?;
    let name = MappedName::read(r).map_err(e("summary"))?;
    let package_flags = r.u32().map_err(e("summary"))?;
    let cooked_header_size = r.u32().map_err(e("summary"))?;
    let mut stored = [0i32; 7];
    for s in &mut stored {
        *s = r.u32().map_err(e("summary"))? as i32;
    }
    let versioning = match has_versioning {
        0 => None,
        1 => Some(read_versioning(r).map_err(e("versioning info"))?),
        n => {
            return Err(PackageError::new(
                "package_summary",
                format!("bHasVersioningInfo is {n}, not 0 or 1"),
            ))
        }
    };
    let cells = (
        r.u32().map_err(e("cell offsets"))? as i32,
        r.u32().map_err(e("cell offsets"))? as i32,
    );
    Ok(Summary {
        header_size,
        name,
        package_flags,
        cooked_header_size,
        stored,
        versioning,
        cells,
    })
}

/// The header's tables that the summary says run from one offset to the next.
struct Tables<'r, 'b> {
    r: &'r mut Reader<'b>,
    /// The package's length: no table may reach past it.
    len: usize,
}

impl Tables<'_, '_> {
    /// The table `part` from one offset to the next in records of `size` bytes, each read
    /// by `one`.
    fn read<T>(
        &mut self,
        part: &'static str,
        (from, to, size): (i32, i32, usize),
        mut one: impl FnMut(&mut Reader) -> forge_bytes::Result<T>,
    ) -> Result<Vec<T>> {
        if from < 0
            || to < from
            || !((to - from) as usize).is_multiple_of(size)
            || to as usize > self.len
        {
            return Err(PackageError::new(
                "package_offsets",
                format!("the {part} runs from {from} to {to}, which is not whole {size}-byte records inside the package"),
            ));
        }
        let n = (to - from) as usize / size;
        (0..n)
            .map(|_| one(self.r))
            .collect::<forge_bytes::Result<_>>()
            .map_err(|error| PackageError::read(part, error))
    }
}

fn read_bundle_entry(r: &mut Reader) -> forge_bytes::Result<BundleEntry> {
    Ok(BundleEntry {
        export: r.u32()?,
        command: r.u32()?,
    })
}
