//! Containers built to make a reader inflate far more than they hold are refused before
//! anything is inflated or allocated.

use std::io::Write;

use forge_iostore::ids::{name_hash, ChunkId, EXPORT_BUNDLE_DATA};
use forge_iostore::{write, Compression, NewChunk, Toc};

const MAX_24_BITS: u32 = (1 << 24) - 1;

/// A good container of `n` chunks of 64 KiB zeros, each one zlib block.
fn zeros(n: usize) -> (Vec<u8>, Vec<u8>) {
    let chunks: Vec<NewChunk> = (0..n)
        .map(|i| NewChunk {
            id: ChunkId::new(
                name_hash(&format!("/Game/MJOLNIR/Forge/bomb/p{i}")),
                0,
                EXPORT_BUNDLE_DATA,
            ),
            data: vec![0; 64 << 10],
            path: Some(format!("MJOLNIR/Forge/bomb/p{i}.uasset")),
        })
        .collect();
    write("bomb_P", &chunks, Compression::Zlib).unwrap()
}

/// Every block pointed at one zlib stream of 16 MiB of zeros (less one byte: the TOC
/// stores a block's size in 24 bits): a few kilobytes that would inflate to 16 MiB per
/// block.
pub fn bomb() -> (Vec<u8>, Vec<u8>) {
    let (utoc, _) = zeros(64);
    let mut toc = Toc::parse(&utoc).unwrap();
    let mut stream = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    stream.write_all(&vec![0u8; MAX_24_BITS as usize]).unwrap();
    let ucas = stream.finish().unwrap();
    for block in &mut toc.blocks {
        block.offset = 0;
        block.compressed_size = ucas.len() as u32;
        block.uncompressed_size = MAX_24_BITS;
    }
    (toc.to_bytes(), ucas)
}

fn code(utoc: &[u8]) -> &'static str {
    Toc::parse(utoc).unwrap_err().code
}

#[test]
fn a_block_that_inflates_past_the_block_size_is_refused() {
    let (utoc, ucas) = bomb();
    assert!(utoc.len() + ucas.len() < 64 << 10, "the bomb is small");
    assert_eq!(code(&utoc), "utoc_block_size");
}

#[test]
fn blocks_sharing_compressed_bytes_are_refused() {
    let (utoc, _) = zeros(8);
    let mut toc = Toc::parse(&utoc).unwrap();
    let first = toc.blocks[0];
    for block in &mut toc.blocks {
        block.offset = first.offset;
        block.compressed_size = first.compressed_size;
    }
    assert_eq!(code(&toc.to_bytes()), "utoc_overlapping_blocks");
}

#[test]
fn chunks_declaring_more_than_their_blocks_hold_are_refused() {
    let (utoc, _) = zeros(8);
    let mut toc = Toc::parse(&utoc).unwrap();
    for o in &mut toc.offsets {
        o.offset = 0;
        o.length = 64 << 10;
    }
    toc.offsets[0].length = 8 * (64 << 10);
    assert_eq!(code(&toc.to_bytes()), "utoc_overlapping_chunks");
}

/// The bomb checked into `tests/bad-inputs/` for the bad-input corpus and the fuzz seeds
/// (written by this test with `MJOLNIR_WRITE_BOMB=1`; zlib's bytes depend on the backend
/// compiled in, so the files are compared by what they are, not byte for byte).
#[test]
fn the_checked_in_bomb_is_refused() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bad-inputs");
    if std::env::var_os("MJOLNIR_WRITE_BOMB").is_some() {
        let (utoc, ucas) = bomb();
        std::fs::write(dir.join("container-bomb.utoc"), &utoc).unwrap();
        std::fs::write(dir.join("container-bomb.ucas"), &ucas).unwrap();
    }
    let utoc = std::fs::read(dir.join("container-bomb.utoc")).unwrap();
    let ucas = std::fs::read(dir.join("container-bomb.ucas")).unwrap();
    assert!(utoc.len() + ucas.len() < 64 << 10);
    assert_eq!(code(&utoc), "utoc_block_size");
}
