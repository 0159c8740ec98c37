//! IoStore containers (`.utoc` + `.ucas`), TOC version 8, as the game mounts them.
//!
//! [`Toc::parse`] and [`Toc::to_bytes`] read and write the table of contents field for
//! field: reading and writing again gives the same bytes, for the UE 5.8 fixtures too.
//! [`read_chunk`] fetches a chunk through its compression blocks (none, zlib or Oodle; an
//! Oodle chunk is checked against its TOC hash, since its stream has no checksum). [`verify`] checks every chunk the way the game finds it:
//! through the perfect hash alone, against its BLAKE3-160, and its package id against the
//! CityHash64 of its name. [`write`] builds a container with a solved perfect hash that
//! never spills into the overflow list, since the game does not read it.
//!
//! The layout is recorded in `docs/formats/iostore.md`. Every count in a file is checked against the bytes that
//! remain before anything is allocated.
//!
//! ```
//! use forge_iostore::{ids::ChunkId, write, Compression, NewChunk, Toc};
//! let id = ChunkId::new(forge_iostore::ids::name_hash("/Game/Demo"), 0, 1);
//! let (utoc, ucas) = write("demo_P", &[NewChunk { id, data: b"hello".to_vec(), path: Some("Demo.uasset".into()) }], Compression::None).unwrap();
//! let toc = Toc::parse(&utoc).unwrap();
//! assert!(forge_iostore::verify(&toc, Some(&ucas)).unwrap().iter().all(|c| c.resolves && c.hash_ok == Some(true)));
//! ```

mod container;
pub mod directory;
mod error;
pub mod ids;
mod oodle;
pub mod packed;
pub mod toc;

pub use container::{
    chunk_span, hash160, lay_out, outside_namespace, package_name, pak_stub, read_chunk,
    read_chunk_in, verify, write, write_packed, ChunkCheck, ChunkData, Compression, NewChunk,
    BLOCK_SIZE, MOUNT_POINT,
};
pub use error::IoStoreError;
pub use packed::{pack, BlockEntry, IndexedChunk, PackedBlock, PackedChunk};
pub use toc::Toc;
