//! The `.utoc` table of contents, TOC version 8, read and written field for field so that
//! reading then writing gives back the same bytes. Layout: `docs/formats/iostore.md`.

use crate::directory::DirectoryIndex;
use crate::error::{IoStoreError, Result};
use crate::ids::ChunkId;

pub const MAGIC: &[u8; 16] = b"-==--==--==--==-";
pub const VERSION: u8 = 8;
pub const HEADER_SIZE: u32 = 144;
pub const BLOCK_ENTRY_SIZE: u32 = 12;
pub const METHOD_NAME_LENGTH: u32 = 32;
pub const META_SIZE: usize = 24;

pub const FLAG_COMPRESSED: u8 = 1;
pub const FLAG_ENCRYPTED: u8 = 2;
pub const FLAG_SIGNED: u8 = 4;
pub const FLAG_INDEXED: u8 = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetLength {
    pub offset: u64,
    pub length: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompressionBlock {
    /// Offset into the `.ucas` (40 bits).
    pub offset: u64,
    pub compressed_size: u32,
    pub uncompressed_size: u32,
    /// 0 = none, `i` = method name `i - 1`.
    pub method: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkMeta {
    /// The first 20 bytes of the BLAKE3 hash of the uncompressed chunk.
    pub hash: [u8; 20],
    pub flags: u8,
    pub pad: [u8; 3],
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toc {
    pub version: u8,
    pub reserved_after_version: [u8; 3],
    pub compression_block_size: u32,
    pub partition_count: u32,
    pub container_id: u64,
    pub encryption_key_guid: [u8; 16],
    pub flags: u8,
    pub reserved_after_flags: [u8; 3],
    pub partition_size: u64,
    pub reserved_tail: [u8; 44],
    pub chunks: Vec<ChunkId>,
    pub offsets: Vec<OffsetLength>,
    pub seeds: Vec<i32>,
    pub overflow: Vec<i32>,
    pub blocks: Vec<CompressionBlock>,
    pub methods: Vec<String>,
    /// The signature section, kept as read (only with the Signed flag).
    pub signatures: Vec<u8>,
    pub directory: Option<DirectoryIndex>,
    /// A directory index the flags say not to read (no Indexed flag), kept as bytes so the
    /// TOC writes back as it came; the game skips it the same way.
    pub unread_directory: Vec<u8>,
    pub metas: Vec<ChunkMeta>,
}

/// The TOC reader: `forge_bytes`' bounds-checked reader, with the TOC's error codes.
struct Cursor<'a> {
    reader: forge_bytes::Reader<'a>,
}

/// The header's 144 bytes, once the magic, the version, the sizes and the encryption flag
/// are ones this reader reads.
fn checked_header(bytes: &[u8]) -> Result<&[u8]> {
    if bytes.len() < HEADER_SIZE as usize {
        return Err(IoStoreError::new(
            "utoc_truncated",
            format!(
                "a TOC header is {HEADER_SIZE} bytes; this file has {}",
                bytes.len()
            ),
        ));
    }
    if &bytes[..16] != MAGIC {
        return Err(IoStoreError::new(
            "utoc_magic",
            "this is not a .utoc file (bad magic)",
        ));
    }
    let h = &bytes[..HEADER_SIZE as usize];
    let version = h[16];
    if version != VERSION {
        return Err(IoStoreError::new("utoc_version", format!("TOC version {version} is not supported; this reader reads version {VERSION}, as the game ships")));
    }
    let (header_size, block_entry_size, method_count, method_len) = (
        u32_at(h, 0x14),
        u32_at(h, 0x20),
        u32_at(h, 0x24),
        u32_at(h, 0x28),
    );
    if header_size != HEADER_SIZE
        || block_entry_size != BLOCK_ENTRY_SIZE
        || (method_count > 0 && method_len != METHOD_NAME_LENGTH)
    {
        return Err(IoStoreError::new("utoc_header", format!("unexpected header sizes (header {header_size}, block entry {block_entry_size}, method name {method_len})")));
    }
    if h[0x50] & FLAG_ENCRYPTED != 0 {
        return Err(IoStoreError::new("utoc_encrypted", "the container is encrypted; encrypted containers cannot be read here and the Hub refuses them"));
    }
    Ok(h)
}

impl<'a> Cursor<'a> {
    fn compression_blocks(&mut self, count: u32) -> Result<Vec<CompressionBlock>> {
        let bc = self.fits(u64::from(count), 12, "compression blocks")?;
        Ok(self
            .take(bc * 12, "compression blocks")?
            .chunks_exact(12)
            .map(|b| CompressionBlock {
                offset: le(&b[..5]),
                compressed_size: le(&b[5..8]) as u32,
                uncompressed_size: le(&b[8..11]) as u32,
                method: b[11],
            })
            .collect())
    }

    fn metas(&mut self, n: usize) -> Result<Vec<ChunkMeta>> {
        Ok(self
            .take(n * META_SIZE, "chunk metas")?
            .chunks_exact(META_SIZE)
            .map(|b| ChunkMeta {
                hash: b[..20].try_into().expect("twenty bytes"),
                flags: b[20],
                pad: [b[21], b[22], b[23]],
            })
            .collect())
    }

    /// Refuses bytes after the last table.
    fn at_end(&self, len: usize) -> Result<()> {
        if self.position() == len {
            return Ok(());
        }
        Err(IoStoreError::new(
            "utoc_trailing",
            format!("{} bytes follow the chunk metas", len - self.position()),
        ))
    }

    /// `count` little-endian i32s.
    fn i32_list(&mut self, count: u32, what: &'static str) -> Result<Vec<i32>> {
        let n = self.fits(u64::from(count), 4, what)?;
        Ok(self
            .take(n * 4, what)?
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes(b.try_into().expect("four bytes")))
            .collect())
    }

    /// The compression methods' NUL-padded names.
    fn method_names(&mut self, count: u32) -> Result<Vec<String>> {
        let mc = self.fits(
            u64::from(count),
            u64::from(METHOD_NAME_LENGTH),
            "compression method names",
        )?;
        let mut methods = Vec::with_capacity(mc);
        for _ in 0..mc {
            let raw = self.take(METHOD_NAME_LENGTH as usize, "method names")?;
            // A name is NUL-padded text; anything else could not be written back the same.
            let name = raw
                .iter()
                .position(|&b| b == 0)
                .filter(|&end| raw[end..].iter().all(|&b| b == 0))
                .and_then(|end| std::str::from_utf8(&raw[..end]).ok())
                .ok_or_else(|| {
                    IoStoreError::new(
                        "utoc_method_name",
                        format!(
                            "compression method name {} is not NUL-padded text",
                            methods.len()
                        ),
                    )
                })?;
            methods.push(name.to_string());
        }
        Ok(methods)
    }

    /// The signature section of a signed TOC, kept as read.
    fn signatures(&mut self, bytes: &[u8], block_count: u32) -> Result<Vec<u8>> {
        let start = self.position();
        let hash_size = i32::from_le_bytes(
            self.take(4, "signature size")?
                .try_into()
                .expect("four bytes"),
        );
        if hash_size < 0 {
            return Err(IoStoreError::new(
                "utoc_signature",
                "a negative signature size",
            ));
        }
        self.take(hash_size as usize * 2, "signatures")?;
        let bc = self.fits(u64::from(block_count), 20, "block signatures")?;
        self.take(bc * 20, "block signatures")?;
        Ok(bytes[start..self.position()].to_vec())
    }

    fn at(bytes: &'a [u8], offset: usize) -> Self {
        let mut reader = forge_bytes::Reader::new(bytes);
        reader
            .take(offset)
            .expect("the header was checked to be there");
        Cursor { reader }
    }
    fn position(&self) -> usize {
        self.reader.position()
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        self.reader.take(n).map_err(|_| {
            IoStoreError::new("utoc_truncated", format!("the TOC ends inside its {what}"))
        })
    }
    /// Checks that `count` records of `size` bytes fit before anything is allocated.
    fn fits(&self, count: u64, size: u64, what: &str) -> Result<usize> {
        self.reader
            .fits(count, size)
            .map_err(|e| IoStoreError::new("utoc_count_overflow", format!("the {what}: {e}")))
    }
}

/// The largest compression block size accepted; the game writes 64 KiB.
pub const MAX_BLOCK_SIZE: u32 = 64 << 20;

/// Blocks that share compressed bytes, or that inflate past the block size, are how a few
/// kilobytes of TOC make a reader inflate gigabytes (every block pointing at one stream of
/// zeros). The engine's writer makes neither, so both are refused before anything is read.
fn check_blocks(blocks: &[CompressionBlock], block_size: u32) -> Result<()> {
    if block_size > MAX_BLOCK_SIZE {
        return Err(IoStoreError::new(
            "utoc_header",
            format!("the compression block size {block_size} is over {MAX_BLOCK_SIZE} bytes"),
        ));
    }
    if let Some((i, b)) = blocks
        .iter()
        .enumerate()
        .find(|(_, b)| b.uncompressed_size > block_size)
    {
        return Err(IoStoreError::new(
            "utoc_block_size",
            format!(
                "block {i} inflates to {} bytes, more than the block size {block_size}",
                b.uncompressed_size
            ),
        ));
    }
    let mut spans: Vec<(u64, u64, usize)> = blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (b.offset, b.offset + u64::from(b.compressed_size), i))
        .collect();
    spans.sort_unstable();
    if let Some(pair) = spans.windows(2).find(|w| w[1].0 < w[0].1) {
        return Err(IoStoreError::new(
            "utoc_overlapping_blocks",
            format!(
                "compressed blocks {} and {} share bytes of the .ucas",
                pair[0].2, pair[1].2
            ),
        ));
    }
    Ok(())
}

/// The chunks together declare no more bytes than their blocks hold, so reading every
/// chunk inflates each block about once.
fn check_chunk_ranges(offsets: &[OffsetLength], blocks: usize, block_size: u32) -> Result<()> {
    let capacity = blocks as u64 * u64::from(block_size);
    let declared = offsets
        .iter()
        .try_fold(0u64, |sum, o| sum.checked_add(o.length));
    match declared {
        Some(total) if total <= capacity => Ok(()),
        _ => Err(IoStoreError::new(
            "utoc_overlapping_chunks",
            format!(
                "the chunks declare more bytes than the {blocks} blocks of {block_size} bytes hold"
            ),
        )),
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("four bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("eight bytes"))
}

fn be40(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

fn le(b: &[u8]) -> u64 {
    b.iter()
        .rev()
        .fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

impl Toc {
    pub fn is_compressed(&self) -> bool {
        self.flags & FLAG_COMPRESSED != 0
    }

    /// Only the chunk ids of a TOC, read from its header and first table: what a search
    /// of a Paks folder for a few packages needs, without the rest of each TOC.
    pub fn chunk_ids(bytes: &[u8]) -> Result<Vec<ChunkId>> {
        let h = checked_header(bytes)?;
        let mut c = Cursor::at(bytes, HEADER_SIZE as usize);
        let n = c.fits(u64::from(u32_at(h, 0x18)), 12, "chunk ids")?;
        Ok(c.take(n * 12, "chunk ids")?
            .chunks_exact(12)
            .map(|b| ChunkId(b.try_into().expect("twelve bytes")))
            .collect())
    }

    pub fn parse(bytes: &[u8]) -> Result<Toc> {
        let h = checked_header(bytes)?;
        let (version, flags) = (h[16], h[0x50]);
        let (entries, block_count, method_count, block_size, dir_size) = (
            u32_at(h, 0x18),
            u32_at(h, 0x1C),
            u32_at(h, 0x24),
            u32_at(h, 0x2C),
            u32_at(h, 0x30),
        );
        let seed_count = u32_at(h, 0x54);
        let overflow_count = u32_at(h, 0x60);
        let mut c = Cursor::at(bytes, HEADER_SIZE as usize);
        let n = c.fits(
            u64::from(entries),
            12 + 10 + META_SIZE as u64,
            "chunk entries",
        )?;
        let chunks = c
            .take(n * 12, "chunk ids")?
            .chunks_exact(12)
            .map(|b| ChunkId(b.try_into().expect("twelve bytes")))
            .collect();
        let offsets: Vec<OffsetLength> = c
            .take(n * 10, "offsets")?
            .chunks_exact(10)
            .map(|b| OffsetLength {
                offset: be40(&b[..5]),
                length: be40(&b[5..]),
            })
            .collect();
        let seeds = c.i32_list(seed_count, "perfect-hash seeds")?;
        let overflow = c.i32_list(overflow_count, "overflow entries")?;
        let blocks = c.compression_blocks(block_count)?;
        let methods = c.method_names(method_count)?;
        let signatures = if flags & FLAG_SIGNED != 0 {
            c.signatures(bytes, block_count)?
        } else {
            Vec::new()
        };
        let raw_directory = c.take(dir_size as usize, "directory index")?;
        let (directory, unread_directory) = if flags & FLAG_INDEXED != 0 && dir_size > 0 {
            (Some(DirectoryIndex::parse(raw_directory)?), Vec::new())
        } else {
            (None, raw_directory.to_vec())
        };
        let metas = c.metas(n)?;
        check_blocks(&blocks, block_size)?;
        check_chunk_ranges(&offsets, blocks.len(), block_size)?;
        c.at_end(bytes.len())?;
        Ok(Toc {
            version,
            reserved_after_version: [h[0x11], h[0x12], h[0x13]],
            compression_block_size: block_size,
            partition_count: u32_at(h, 0x34),
            container_id: u64_at(h, 0x38),
            encryption_key_guid: h[0x40..0x50].try_into().expect("sixteen bytes"),
            flags,
            reserved_after_flags: [h[0x51], h[0x52], h[0x53]],
            partition_size: u64_at(h, 0x58),
            reserved_tail: h[0x64..0x90].try_into().expect("44 bytes"),
            chunks,
            offsets,
            seeds,
            overflow,
            blocks,
            methods,
            signatures,
            directory,
            unread_directory,
            metas,
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let dir = self
            .directory
            .as_ref()
            .map(DirectoryIndex::to_bytes)
            .unwrap_or_else(|| self.unread_directory.clone());
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.push(self.version);
        out.extend_from_slice(&self.reserved_after_version);
        for v in [
            HEADER_SIZE,
            self.chunks.len() as u32,
            self.blocks.len() as u32,
            BLOCK_ENTRY_SIZE,
            self.methods.len() as u32,
            METHOD_NAME_LENGTH,
            self.compression_block_size,
            dir.len() as u32,
            self.partition_count,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.container_id.to_le_bytes());
        out.extend_from_slice(&self.encryption_key_guid);
        out.push(self.flags);
        out.extend_from_slice(&self.reserved_after_flags);
        out.extend_from_slice(&(self.seeds.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.partition_size.to_le_bytes());
        out.extend_from_slice(&(self.overflow.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.reserved_tail);
        debug_assert_eq!(out.len(), HEADER_SIZE as usize);
        for c in &self.chunks {
            out.extend_from_slice(&c.0);
        }
        for o in &self.offsets {
            out.extend_from_slice(&o.offset.to_be_bytes()[3..]);
            out.extend_from_slice(&o.length.to_be_bytes()[3..]);
        }
        for s in self.seeds.iter().chain(&self.overflow) {
            out.extend_from_slice(&s.to_le_bytes());
        }
        for b in &self.blocks {
            out.extend_from_slice(&b.offset.to_le_bytes()[..5]);
            out.extend_from_slice(&b.compressed_size.to_le_bytes()[..3]);
            out.extend_from_slice(&b.uncompressed_size.to_le_bytes()[..3]);
            out.push(b.method);
        }
        for m in &self.methods {
            let mut name = [0u8; METHOD_NAME_LENGTH as usize];
            let bytes = m.as_bytes();
            name[..bytes.len().min(31)].copy_from_slice(&bytes[..bytes.len().min(31)]);
            out.extend_from_slice(&name);
        }
        out.extend_from_slice(&self.signatures);
        out.extend_from_slice(&dir);
        for m in &self.metas {
            out.extend_from_slice(&m.hash);
            out.push(m.flags);
            out.extend_from_slice(&m.pad);
        }
        out
    }
}
