//! Chunks already cut into compression blocks and packed (`FPCK`): a block's share of a
//! container, made once when the block is cooked, so that a container is laid out from
//! them without compressing anything again. A chunk's blocks depend only on its own bytes,
//! so a container written from packed chunks is byte for byte the one [`crate::write`]
//! makes from the same chunks.
//!
//! Packed chunks are kept as two parts: the index ([`IndexedChunk`], written by
//! [`to_bytes`]) and the data, each chunk's stored blocks one after another, each padded to
//! 16 bytes exactly as the `.ucas` holds them. A container's `.ucas` is then the chunks'
//! data ranges in TOC order, so it can be copied together without reading the blocks.
//!
//! `FPCK` v2 (the index), little-endian: magic, u32 version, u32 chunk count; per chunk:
//! 12-byte id, 20-byte BLAKE3-160 of its bytes, u64 length, u16 path length and the path
//! (UTF-8; length 0xFFFF for no path), u64 offset of its blocks in the data, u32 block
//! count; per block: u8 method (0 stored, 1 zlib), u32 uncompressed size, u32 stored size.

use forge_bytes::{Reader, Writer};
use rayon::prelude::*;

use crate::container::{hash160, Compression, NewChunk, BLOCK_SIZE};
use crate::error::{IoStoreError, Result};
use crate::ids::ChunkId;

const MAGIC: &[u8; 4] = b"FPCK";
const VERSION: u32 = 2;
const NO_PATH: u16 = 0xFFFF;

/// One block of a packed chunk: its stored bytes, zlib-packed (method 1) or as is (0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedBlock {
    pub method: u8,
    pub uncompressed_size: u32,
    pub stored: Vec<u8>,
}

/// A chunk cut into [`BLOCK_SIZE`] blocks, each packed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedChunk {
    pub id: ChunkId,
    pub path: Option<String>,
    pub length: u64,
    pub hash: [u8; 20],
    pub blocks: Vec<PackedBlock>,
}

/// Packs each chunk's blocks (in parallel; the result does not depend on the threads).
pub fn pack(chunks: &[NewChunk], compression: Compression) -> Vec<PackedChunk> {
    chunks
        .par_iter()
        .map(|c| PackedChunk {
            id: c.id,
            path: c.path.clone(),
            length: c.data.len() as u64,
            hash: hash160(&c.data),
            blocks: c
                .data
                .chunks(BLOCK_SIZE as usize)
                .map(|piece| pack_block(piece, compression))
                .collect(),
        })
        .collect()
}

/// A block zlib-packed when that makes it smaller, else stored.
fn pack_block(piece: &[u8], compression: Compression) -> PackedBlock {
    let packed = match compression {
        Compression::Zlib => {
            use std::io::Write;
            let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
            z.write_all(piece).expect("writing to memory");
            Some(z.finish().expect("writing to memory")).filter(|p| p.len() < piece.len())
        }
        Compression::None => None,
    };
    match packed {
        Some(stored) => PackedBlock {
            method: 1,
            uncompressed_size: piece.len() as u32,
            stored,
        },
        None => PackedBlock {
            method: 0,
            uncompressed_size: piece.len() as u32,
            stored: piece.to_vec(),
        },
    }
}

/// A block in the index: its method and sizes. Its stored bytes are in the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEntry {
    pub method: u8,
    pub uncompressed_size: u32,
    pub stored_size: u32,
}

/// A packed chunk in the index: what the TOC needs of it, and where its blocks are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedChunk {
    pub id: ChunkId,
    pub path: Option<String>,
    pub length: u64,
    pub hash: [u8; 20],
    /// Where its first block starts in the data.
    pub data_offset: u64,
    pub blocks: Vec<BlockEntry>,
}

/// A stored block's room in the data and in the `.ucas`: its bytes padded to 16.
pub fn padded(stored_size: u32) -> u64 {
    u64::from(stored_size).div_ceil(16) * 16
}

impl IndexedChunk {
    /// How many bytes of the data its blocks take.
    pub fn data_len(&self) -> u64 {
        self.blocks.iter().map(|b| padded(b.stored_size)).sum()
    }
}

/// Splits packed chunks into their index and their blocks, appended to `data`.
pub fn split(chunks: &[PackedChunk], data: &mut Vec<u8>) -> Vec<IndexedChunk> {
    chunks
        .iter()
        .map(|c| {
            let data_offset = data.len() as u64;
            for b in &c.blocks {
                data.extend_from_slice(&b.stored);
                data.resize(data.len().div_ceil(16) * 16, 0);
            }
            IndexedChunk {
                id: c.id,
                path: c.path.clone(),
                length: c.length,
                hash: c.hash,
                data_offset,
                blocks: c
                    .blocks
                    .iter()
                    .map(|b| BlockEntry {
                        method: b.method,
                        uncompressed_size: b.uncompressed_size,
                        stored_size: b.stored.len() as u32,
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The index (`FPCK` v2).
pub fn to_bytes(chunks: &[IndexedChunk]) -> Vec<u8> {
    let mut w = Writer::default();
    w.raw(MAGIC);
    w.u32(VERSION);
    w.u32(chunks.len() as u32);
    for c in chunks {
        w.raw(&c.id.0);
        w.raw(&c.hash);
        w.raw(&c.length.to_le_bytes());
        match &c.path {
            Some(p) => w.string(p),
            None => w.u16(NO_PATH),
        }
        w.raw(&c.data_offset.to_le_bytes());
        w.u32(c.blocks.len() as u32);
        for b in &c.blocks {
            w.u8(b.method);
            w.u32(b.uncompressed_size);
            w.u32(b.stored_size);
        }
    }
    w.bytes
}

/// Reads an index, checking every block's sizes and that they add up to each chunk.
pub fn from_bytes(bytes: &[u8]) -> Result<Vec<IndexedChunk>> {
    let e = |e: forge_bytes::ReadError| IoStoreError::new("packed_chunks", e.to_string());
    let mut r = Reader::new(bytes);
    r.magic(MAGIC, VERSION, "packed chunk index").map_err(e)?;
    let count = r.u32().map_err(e)?;
    // The smallest chunk record is 12 + 20 + 8 + 2 + 8 + 4 bytes.
    let count = r.fits(u64::from(count), 54).map_err(e)?;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push(read_chunk(&mut r).map_err(e)?);
    }
    r.finish().map_err(e)?;
    Ok(out)
}

fn read_chunk(r: &mut Reader) -> forge_bytes::Result<IndexedChunk> {
    let id = ChunkId(r.take(12)?.try_into().expect("twelve bytes"));
    let hash: [u8; 20] = r.take(20)?.try_into().expect("twenty bytes");
    let length = r.u64()?;
    let path_len = r.u16()?;
    let path = if path_len == NO_PATH {
        None
    } else {
        let raw = r.take(usize::from(path_len))?;
        Some(String::from_utf8(raw.to_vec()).map_err(|_| forge_bytes::ReadError::NotUtf8)?)
    };
    let data_offset = r.u64()?;
    let count = r.u32()?;
    let count = r.fits(u64::from(count), 9)?;
    let mut blocks = Vec::with_capacity(count);
    for _ in 0..count {
        let block = BlockEntry {
            method: r.u8()?,
            uncompressed_size: r.u32()?,
            stored_size: r.u32()?,
        };
        let sizes_fit = match block.method {
            0 => block.stored_size == block.uncompressed_size,
            1 => block.stored_size <= BLOCK_SIZE + 1024,
            _ => false,
        };
        if !sizes_fit || block.uncompressed_size > BLOCK_SIZE {
            return Err("a block's method or sizes are out of range".into());
        }
        blocks.push(block);
    }
    let total: u64 = blocks.iter().map(|b| u64::from(b.uncompressed_size)).sum();
    if total != length {
        return Err(format!("the blocks hold {total} bytes, not the chunk's {length}").into());
    }
    let chunk = IndexedChunk {
        id,
        path,
        length,
        hash,
        data_offset,
        blocks,
    };
    if data_offset.checked_add(chunk.data_len()).is_none() {
        return Err("a chunk's blocks lie past the end of any data".into());
    }
    Ok(chunk)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids;

    fn chunks() -> Vec<NewChunk> {
        (0..5u8)
            .map(|i| NewChunk {
                id: ChunkId::new(ids::name_hash(&format!("/Game/P{i}")), 0, 1),
                data: (0..(i as usize * 40_000))
                    .map(|k| (k % (i as usize + 3)) as u8)
                    .collect(),
                path: (i % 2 == 0).then(|| format!("P{i}.uasset")),
            })
            .collect()
    }

    #[test]
    fn packed_chunks_round_trip_and_write_the_same_container() {
        let chunks = chunks();
        let packed = pack(&chunks, Compression::Zlib);
        let mut data = Vec::new();
        let index = split(&packed, &mut data);
        assert_eq!(from_bytes(&to_bytes(&index)).unwrap(), index);
        let ends: u64 = index.iter().map(IndexedChunk::data_len).sum();
        assert_eq!(ends, data.len() as u64);
        // The .ucas is the data in TOC order: every chunk reads back as it went in.
        let (utoc, ucas) = crate::write_packed("c", &packed).unwrap();
        assert_eq!(ucas.len(), data.len());
        let toc = crate::Toc::parse(&utoc).unwrap();
        for (entry, id) in toc.chunks.iter().enumerate() {
            let chunk = chunks.iter().find(|c| c.id == *id).unwrap();
            let read = crate::read_chunk(&toc, &ucas, entry).unwrap();
            assert_eq!(read, crate::ChunkData::Bytes(chunk.data.clone()));
        }
    }

    #[test]
    fn damaged_indexes_are_coded_errors() {
        let index = split(&pack(&chunks(), Compression::Zlib), &mut Vec::new());
        let bytes = to_bytes(&index);
        for cut in [0, 4, 11, 50, bytes.len() - 1] {
            assert_eq!(from_bytes(&bytes[..cut]).unwrap_err().code, "packed_chunks");
        }
        let mut huge = bytes.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(from_bytes(&huge).unwrap_err().code, "packed_chunks");
        let mut stored_lies = index.clone();
        stored_lies[1].blocks[0].method = 0;
        let e = from_bytes(&to_bytes(&stored_lies)).unwrap_err();
        assert_eq!(e.code, "packed_chunks");
        let mut far = index;
        far[1].data_offset = u64::MAX - 4;
        assert_eq!(
            from_bytes(&to_bytes(&far)).unwrap_err().code,
            "packed_chunks"
        );
    }
}
