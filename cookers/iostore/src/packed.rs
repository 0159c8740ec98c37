//! Chunks already cut into compression blocks and packed (`FPCK`): a block's share of a
//! container, made once when the block is cooked, so that a container is laid out from
//! them without compressing anything again. A chunk's blocks depend only on its own bytes,
//! so a container written from packed chunks is byte for byte the one [`crate::write`]
//! makes from the same chunks.
//!
//! `FPCK` v1, little-endian: magic, u32 version, u32 chunk count; per chunk: 12-byte id,
//! 20-byte BLAKE3-160 of its data, u64 data length, u16 path length and the path (UTF-8;
//! length 0xFFFF for no path), u32 block count; per block: u8 method (0 stored, 1 zlib),
//! u32 uncompressed size, u32 stored size and the stored bytes.

use forge_bytes::{Reader, Writer};
use rayon::prelude::*;

use crate::container::{hash160, Compression, NewChunk, BLOCK_SIZE};
use crate::error::{IoStoreError, Result};
use crate::ids::ChunkId;

const MAGIC: &[u8; 4] = b"FPCK";
const VERSION: u32 = 1;
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

pub fn to_bytes(chunks: &[PackedChunk]) -> Vec<u8> {
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
        w.u32(c.blocks.len() as u32);
        for b in &c.blocks {
            w.u8(b.method);
            w.u32(b.uncompressed_size);
            w.u32(b.stored.len() as u32);
            w.raw(&b.stored);
        }
    }
    w.bytes
}

pub fn from_bytes(bytes: &[u8]) -> Result<Vec<PackedChunk>> {
    let e = |e: forge_bytes::ReadError| IoStoreError::new("packed_chunks", e.to_string());
    let mut r = Reader::new(bytes);
    r.magic(MAGIC, VERSION, "packed chunk list").map_err(e)?;
    let count = r.u32().map_err(e)?;
    // The smallest chunk record is 12 + 20 + 8 + 2 + 4 bytes.
    let count = r.fits(u64::from(count), 46).map_err(e)?;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push(read_chunk(&mut r).map_err(e)?);
    }
    r.finish().map_err(e)?;
    Ok(out)
}

fn read_chunk(r: &mut Reader) -> forge_bytes::Result<PackedChunk> {
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
    let count = r.u32()?;
    let count = r.fits(u64::from(count), 9)?;
    let mut blocks = Vec::with_capacity(count);
    for _ in 0..count {
        let method = r.u8()?;
        let uncompressed_size = r.u32()?;
        let stored_len = r.u32()? as usize;
        if method > 1 || uncompressed_size > BLOCK_SIZE || stored_len > BLOCK_SIZE as usize + 1024 {
            return Err("a block's method or sizes are out of range".into());
        }
        blocks.push(PackedBlock {
            method,
            uncompressed_size,
            stored: r.take(stored_len)?.to_vec(),
        });
    }
    let total: u64 = blocks.iter().map(|b| u64::from(b.uncompressed_size)).sum();
    if total != length {
        return Err(format!("the blocks hold {total} bytes, not the chunk's {length}").into());
    }
    Ok(PackedChunk {
        id,
        path,
        length,
        hash,
        blocks,
    })
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
        assert_eq!(from_bytes(&to_bytes(&packed)).unwrap(), packed);
        assert_eq!(
            crate::write_packed("c", &packed).unwrap(),
            crate::write("c", &chunks, Compression::Zlib).unwrap()
        );
    }

    #[test]
    fn damaged_lists_are_coded_errors() {
        let bytes = to_bytes(&pack(&chunks(), Compression::Zlib));
        for cut in [0, 4, 11, 50, bytes.len() - 1] {
            assert_eq!(from_bytes(&bytes[..cut]).unwrap_err().code, "packed_chunks");
        }
        let mut huge = bytes.clone();
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(from_bytes(&huge).unwrap_err().code, "packed_chunks");
    }
}
