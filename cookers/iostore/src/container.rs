//! Reading chunks out of a `.ucas` through its TOC, verifying them the way the game finds
//! them, and writing a container.

use std::io::Read;

use crate::directory::DirectoryIndex;
use crate::error::{IoStoreError, Result};
use crate::ids::{self, ChunkId};
use crate::packed::{IndexedChunk, PackedChunk};
use crate::toc::{
    ChunkMeta, CompressionBlock, OffsetLength, Toc, FLAG_COMPRESSED, FLAG_INDEXED, VERSION,
};

pub const BLOCK_SIZE: u32 = 0x10000;
/// Where a pack's containers mount: the game project's content, so files are `/Game/...`.
pub const MOUNT_POINT: &str = "../../../Meteorite/Content/";

fn align(x: u64, to: u64) -> u64 {
    x.div_ceil(to) * to
}

pub fn hash160(data: &[u8]) -> [u8; 20] {
    blake3::hash(data).as_bytes()[..20]
        .try_into()
        .expect("twenty bytes")
}

/// What reading a chunk gives.
#[derive(Debug, PartialEq, Eq)]
pub enum ChunkData {
    Bytes(Vec<u8>),
    /// A block uses a method this reader cannot decompress; reported, not failed.
    Unsupported(String),
}

/// Reads TOC entry `entry` from `ucas`.
pub fn read_chunk(toc: &Toc, ucas: &[u8], entry: usize) -> Result<ChunkData> {
    read_chunk_in(toc, ucas, 0, entry)
}

/// The byte range of the `.ucas` that holds entry `entry`'s blocks, so a reader of a
/// large container can fetch just that range and pass it to [`read_chunk_in`].
pub fn chunk_span(toc: &Toc, entry: usize) -> Result<std::ops::Range<u64>> {
    let (first, last) = block_range(toc, entry)?;
    let blocks = &toc.blocks[first as usize..=last as usize];
    let start = blocks.iter().map(|b| b.offset).min().unwrap_or(0);
    let end = blocks
        .iter()
        .map(|b| b.offset + u64::from(b.compressed_size))
        .max()
        .unwrap_or(0);
    Ok(start..end)
}

/// The first and last block of an entry (`(1, 0)` for an empty one).
fn block_range(toc: &Toc, entry: usize) -> Result<(u64, u64)> {
    let OffsetLength { offset, length } = *toc
        .offsets
        .get(entry)
        .ok_or_else(|| IoStoreError::new("utoc_entry", format!("entry {entry} does not exist")))?;
    let bs = u64::from(toc.compression_block_size);
    if bs == 0 {
        return Err(IoStoreError::new(
            "utoc_header",
            "the compression block size is 0",
        ));
    }
    if length == 0 {
        return Ok((1, 0));
    }
    let (first, last) = (offset / bs, (offset + length - 1) / bs);
    if last as usize >= toc.blocks.len() {
        return Err(IoStoreError::new(
            "utoc_offset",
            format!(
                "entry {entry} reaches block {last}, past the {} blocks",
                toc.blocks.len()
            ),
        ));
    }
    Ok((first, last))
}

/// Reads entry `entry` from `bytes`, the part of the `.ucas` that starts at `base`.
pub fn read_chunk_in(toc: &Toc, bytes: &[u8], base: u64, entry: usize) -> Result<ChunkData> {
    let (first, last) = block_range(toc, entry)?;
    if first > last {
        return Ok(ChunkData::Bytes(Vec::new()));
    }
    let OffsetLength { offset, length } = toc.offsets[entry];
    let bs = u64::from(toc.compression_block_size);
    // Declared sizes are checked against the bytes before they size an allocation.
    let mut data = Vec::with_capacity(length.min(1 << 20) as usize);
    let mut oodle = false;
    for b in first..=last {
        match block_bytes(toc, bytes, base, b)? {
            Decoded::Bytes(out, by_oodle) => {
                data.extend_from_slice(&out);
                oodle |= by_oodle;
            }
            Decoded::Unsupported(name) => return Ok(ChunkData::Unsupported(name)),
        }
    }
    let skip = (offset - first * bs) as usize;
    let end = skip + length as usize;
    if end > data.len() {
        return Err(IoStoreError::new(
            "utoc_offset",
            format!("entry {entry} ends past its blocks"),
        ));
    }
    let chunk = data[skip..end].to_vec();
    // The TOC's hash is what proves the bytes: an Oodle stream carries no checksum, and a
    // stored block none at all.
    if toc
        .metas
        .get(entry)
        .is_none_or(|m| m.hash != hash160(&chunk))
    {
        let (code, how) = if oodle {
            ("ucas_oodle_hash", "decodes to")
        } else {
            ("ucas_hash", "reads as")
        };
        return Err(IoStoreError::new(
            code,
            format!("entry {entry} {how} bytes whose hash is not the one its TOC records: the container is corrupt"),
        ));
    }
    Ok(ChunkData::Bytes(chunk))
}

/// One block's bytes, as decoded: and whether Oodle decoded them.
enum Decoded {
    Bytes(Vec<u8>, bool),
    Unsupported(String),
}

/// Block `b`, read from `ucas` (the part of the `.ucas` that starts at `base`) and
/// decoded by its method, to exactly its declared size.
fn block_bytes(toc: &Toc, ucas: &[u8], base: u64, b: u64) -> Result<Decoded> {
    let block = toc.blocks[b as usize];
    let start = block.offset.checked_sub(base).unwrap_or(u64::MAX) as usize;
    let stored = block.compressed_size as usize;
    let raw = ucas
        .get(start..start.saturating_add(stored))
        .ok_or_else(|| {
            IoStoreError::new(
                "ucas_out_of_range",
                format!(
                    "block {b} lies at {start}..{} past the end of the .ucas ({} bytes)",
                    start + stored,
                    ucas.len()
                ),
            )
        })?;
    let size = block.uncompressed_size;
    let name = match block.method {
        0 => {
            return Ok(Decoded::Bytes(
                raw[..(size as usize).min(raw.len())].to_vec(),
                false,
            ))
        }
        m => toc
            .methods
            .get(m as usize - 1)
            .map(String::as_str)
            .unwrap_or("?"),
    };
    if name.eq_ignore_ascii_case("zlib") {
        return inflate(raw, size, b).map(|out| Decoded::Bytes(out, false));
    }
    if name.eq_ignore_ascii_case("oodle") {
        return crate::oodle::decode(raw, size, b).map(|out| Decoded::Bytes(out, true));
    }
    Ok(Decoded::Unsupported(name.to_string()))
}

/// A zlib block, inflated to exactly `size` bytes and no further.
fn inflate(raw: &[u8], size: u32, b: u64) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity((size as usize).min(1 << 20));
    flate2::read::ZlibDecoder::new(raw)
        .take(u64::from(size))
        .read_to_end(&mut out)
        .map_err(|e| IoStoreError::new("ucas_zlib", format!("block {b} does not inflate: {e}")))?;
    if out.len() != size as usize {
        return Err(IoStoreError::new(
            "ucas_zlib",
            format!("block {b} inflates to {} bytes, not {size}", out.len()),
        ));
    }
    Ok(out)
}

/// The package name of a file path in the directory index: the path under
/// `<Project>/Content/` becomes `/Game/...`, without its extension.
pub fn package_name(path: &str) -> Option<String> {
    let mut name = String::new();
    package_name_into(path, &mut name).then_some(name)
}

/// [`package_name`] written into `name` (cleared first), so a caller that names every file
/// of a container reuses one buffer; `false` when the path names no package.
fn package_name_into(path: &str, name: &mut String) -> bool {
    name.clear();
    let rel = path.trim_start_matches("../").trim_start_matches("../");
    let Some((root, rest)) = rel.split_once("/Content/") else {
        return false;
    };
    let mount = match root.rsplit_once("/Plugins/") {
        _ if root == "Engine" => "Engine",
        Some((_, plugin)) => plugin,
        None => "Game",
    };
    let stem = rest.rsplit_once('.').map_or(rest, |(s, _)| s);
    for part in ["/", mount, "/", stem] {
        name.push_str(part);
    }
    true
}

/// One chunk's verification, as `mjolnir forge inspect` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkCheck {
    pub entry: usize,
    pub chunk: ChunkId,
    pub path: Option<String>,
    pub size: u64,
    /// Found at its own entry through the perfect hash alone.
    pub resolves: bool,
    /// `Some(true)` when the data matches the stored hash; `None` when it could not be read.
    pub hash_ok: Option<bool>,
    /// For files with a package name: whether the chunk's package id is its CityHash64.
    pub package_id_ok: Option<bool>,
    pub unsupported: Option<String>,
}

/// Checks every chunk of a container: perfect-hash resolution, stored hash, package id.
pub fn verify(toc: &Toc, ucas: Option<&[u8]>) -> Result<Vec<ChunkCheck>> {
    let paths = match &toc.directory {
        Some(d) => d.files()?,
        None => Vec::new(),
    };
    let mut out = Vec::with_capacity(toc.chunks.len());
    for (entry, chunk) in toc.chunks.iter().enumerate() {
        let path = paths
            .iter()
            .find(|(_, e)| *e as usize == entry)
            .map(|(p, _)| p.clone());
        let resolves = ids::lookup(&toc.seeds, toc.chunks.len(), chunk) == Some(entry);
        // Reading checks the hash: a mismatch is this check's answer, not an error.
        let (hash_ok, unsupported) = match ucas.map(|ucas| read_chunk(toc, ucas, entry)) {
            None => (None, None),
            Some(Ok(ChunkData::Bytes(_))) => (Some(true), None),
            Some(Ok(ChunkData::Unsupported(m))) => (None, Some(m)),
            Some(Err(e)) if e.code.ends_with("hash") => (Some(false), None),
            Some(Err(e)) => return Err(e),
        };
        let package_id_ok = path
            .as_deref()
            .and_then(package_name)
            .filter(|_| matches!(chunk.kind(), ids::EXPORT_BUNDLE_DATA | ids::BULK_DATA))
            .map(|name| ids::name_hash(&name) == chunk.package_id());
        out.push(ChunkCheck {
            entry,
            chunk: *chunk,
            path,
            size: toc.offsets[entry].length,
            resolves,
            hash_ok,
            package_id_ok,
            unsupported,
        });
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Zlib,
}

/// A chunk to write, with its path under the mount point (for the directory index).
pub struct NewChunk {
    pub id: ChunkId,
    pub data: Vec<u8>,
    pub path: Option<String>,
}

fn refuse_duplicates(ids: &[ChunkId]) -> Result<()> {
    let mut seen = std::collections::HashSet::with_capacity(ids.len());
    for id in ids {
        if !seen.insert(*id) {
            return Err(IoStoreError::new(
                "chunk_duplicate",
                format!("chunk {:02x?} is added twice", id.0),
            ));
        }
    }
    Ok(())
}

/// The directory index of the chunks that have a path, each by its TOC entry.
fn directory_of(chunks: &[IndexedChunk], entry_of: &[usize]) -> DirectoryIndex {
    let files: Vec<(String, u32)> = chunks
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.path.clone().map(|p| (p, entry_of[i] as u32)))
        .collect();
    DirectoryIndex::build(MOUNT_POINT, &files)
}

/// Writes a container named `name` (the `_P` suffix is the caller's): `(utoc, ucas)`.
/// Entries go in perfect-hash slot order, each chunk starts on a block boundary, and
/// blocks are padded to 16 bytes in the `.ucas`. The output is a function of the inputs.
/// Compressing is nearly all of the work; it is done per chunk ([`crate::pack`]), so a
/// caller that keeps packed chunks lays a container out with [`lay_out`] alone.
pub fn write(
    name: &str,
    chunks: &[NewChunk],
    compression: Compression,
) -> Result<(Vec<u8>, Vec<u8>)> {
    write_packed(name, &crate::packed::pack(chunks, compression))
}

/// [`write`] from chunks already packed.
pub fn write_packed(name: &str, chunks: &[PackedChunk]) -> Result<(Vec<u8>, Vec<u8>)> {
    let mut data = Vec::new();
    let index = crate::packed::split(chunks, &mut data);
    let (utoc, order) = lay_out(name, &index)?;
    let mut ucas = Vec::with_capacity(data.len());
    for &i in &order {
        let start = index[i].data_offset as usize;
        ucas.extend_from_slice(&data[start..start + index[i].data_len() as usize]);
    }
    Ok((utoc, ucas))
}

/// The `.utoc` of a container laid out from indexed chunks, and the order their data
/// goes in the `.ucas`: the `.ucas` is each chunk's data range
/// ([`IndexedChunk::data_len`] bytes from its `data_offset`), in that order, and nothing else.
pub fn lay_out(name: &str, chunks: &[IndexedChunk]) -> Result<(Vec<u8>, Vec<usize>)> {
    let ids_in: Vec<ChunkId> = chunks.iter().map(|c| c.id).collect();
    refuse_duplicates(&ids_in)?;
    let (seeds, slot_of) = ids::solve(&ids_in)?;
    let mut order = vec![0usize; chunks.len()];
    for (i, &slot) in slot_of.iter().enumerate() {
        order[slot] = i;
    }
    let bs = u64::from(BLOCK_SIZE);
    let mut ucas_len = 0u64;
    let mut offsets = Vec::with_capacity(chunks.len());
    let mut blocks = Vec::new();
    let mut metas = Vec::with_capacity(chunks.len());
    let mut address = 0u64;
    for &i in &order {
        let chunk = &chunks[i];
        offsets.push(OffsetLength {
            offset: address,
            length: chunk.length,
        });
        for block in &chunk.blocks {
            blocks.push(CompressionBlock {
                offset: ucas_len,
                compressed_size: block.stored_size,
                uncompressed_size: block.uncompressed_size,
                method: block.method,
            });
            ucas_len += crate::packed::padded(block.stored_size);
        }
        metas.push(ChunkMeta {
            hash: chunk.hash,
            flags: 0,
            pad: [0; 3],
        });
        // Block k covers addresses [k·bs, (k+1)·bs): an empty chunk takes no block and no space.
        address = align(address + chunk.length, bs);
    }
    if blocks.len() > 0xFFFF_FFFF || ucas_len >= 1 << 40 {
        return Err(IoStoreError::new(
            "container_too_large",
            "the container exceeds the TOC's address space",
        ));
    }
    let uses_zlib = blocks.iter().any(|b| b.method == 1);
    let directory = Some(directory_of(chunks, &slot_of));
    let toc = Toc {
        version: VERSION,
        reserved_after_version: [0; 3],
        compression_block_size: BLOCK_SIZE,
        partition_count: 1,
        container_id: ids::name_hash(name),
        encryption_key_guid: [0; 16],
        flags: FLAG_INDEXED | if uses_zlib { FLAG_COMPRESSED } else { 0 },
        reserved_after_flags: [0; 3],
        partition_size: u64::MAX,
        reserved_tail: [0; 44],
        chunks: order.iter().map(|&i| chunks[i].id).collect(),
        offsets,
        seeds,
        overflow: Vec::new(),
        blocks,
        methods: if uses_zlib {
            vec!["Zlib".to_string()]
        } else {
            Vec::new()
        },
        signatures: Vec::new(),
        directory,
        unread_directory: Vec::new(),
        metas,
    };
    Ok((toc.to_bytes(), order))
}

/// A `.pak` stub: the game discovers a container only through a `.pak` of the same stem.
/// This is a version 11 pak with an empty index and no files.
pub fn pak_stub() -> Vec<u8> {
    let mut index = Vec::new();
    let mount = b"../../../\0";
    index.extend_from_slice(&(mount.len() as i32).to_le_bytes());
    index.extend_from_slice(mount);
    index.extend_from_slice(&0i32.to_le_bytes()); // files
    index.extend_from_slice(&0u64.to_le_bytes()); // path hash seed
    index.extend_from_slice(&0u32.to_le_bytes()); // no path hash index
    index.extend_from_slice(&0u32.to_le_bytes()); // no full directory index
    index.extend_from_slice(&0i32.to_le_bytes()); // encoded entries size
    index.extend_from_slice(&0i32.to_le_bytes()); // unencoded entries
    let mut out = index.clone();
    out.extend_from_slice(&[0u8; 16]); // encryption key guid
    out.push(0); // index not encrypted
    out.extend_from_slice(&0x5A6F12E1u32.to_le_bytes());
    out.extend_from_slice(&11i32.to_le_bytes());
    out.extend_from_slice(&0i64.to_le_bytes()); // index offset
    out.extend_from_slice(&(index.len() as i64).to_le_bytes());
    out.extend_from_slice(
        &<[u8; 20]>::try_from(&blake3::hash(&index).as_bytes()[..20]).expect("twenty bytes"),
    ); // index hash slot
    out.extend_from_slice(&[0u8; 32 * 5]); // compression method names
    out
}

/// Files in the container's directory index whose package is not under `prefix` (e.g.
/// `/Game/MJOLNIR/Forge/foundry/`): a pack replaces nothing outside its own namespace.
pub fn outside_namespace(toc: &Toc, prefix: &str) -> Result<Vec<String>> {
    let Some(dir) = &toc.directory else {
        return Ok(Vec::new());
    };
    // Every file of the set's container is named on an edit's path: one buffer for all.
    let (mut outside, mut name) = (Vec::new(), String::new());
    dir.walk(|path, _| {
        let inside = package_name_into(path, &mut name)
            && name.starts_with(prefix)
            && !name.contains("/../")
            && !name.contains("/./");
        if !inside {
            outside.push(path.to_string());
        }
    })?;
    Ok(outside)
}

#[cfg(test)]
mod tests {
    use super::package_name;

    #[test]
    fn a_file_path_names_its_package_under_its_mount() {
        for (path, package) in [
            (
                "../../../Engine/Content/Shaders/Mat.uasset",
                Some("/Engine/Shaders/Mat"),
            ),
            (
                "../../../Halo/Plugins/MJOLNIR/Content/Forge/a/SM_a.uasset",
                Some("/MJOLNIR/Forge/a/SM_a"),
            ),
            ("Halo/Content/Maps/M.umap", Some("/Game/Maps/M")),
            ("Halo/Content/NoExtension", Some("/Game/NoExtension")),
            ("Halo/Plugins/X/Y.uasset", None),
        ] {
            assert_eq!(package_name(path).as_deref(), package, "{path}");
        }
    }
}
