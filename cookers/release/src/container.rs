//! The pack's IoStore container: which packages a set's blocks become, and where.
//!
//! Every block's static mesh and actor are cooked Unreal packages under
//! `/Game/MJOLNIR/Forge/<pack>/<block>/` (`SM_<block>`, `BP_<block>`), listed with their
//! imports in the container header; each tag is the bulk chunk of a package named by its
//! group extension beside them. A set cooked without donors has no Unreal packages and is
//! not installable. The container is `content/<pack>_P.{utoc,ucas}` plus the `.pak` stub
//! the game mounts it by.

use forge_iostore::ids::{self, ChunkId};
use forge_iostore::{Compression, IndexedChunk, IoStoreError, NewChunk};
use forge_package::{ContainerHeader, Package};

/// One block's cooked content, as the container takes it.
pub struct BlockContent<'a> {
    pub id: &'a str,
    /// The block's Unreal packages (`SM_<block>`, `BP_<block>`); none without donors.
    pub packages: Vec<&'a [u8]>,
    /// Each tag's group extension (`crate`, `model`, ...) and its bytes, in container order.
    pub tags: Vec<(&'a str, &'a [u8])>,
}

fn package_error(e: forge_package::PackageError) -> IoStoreError {
    IoStoreError::new(e.code, e.message)
}

/// The container's name: `<pack>_P`, the patch-style name the game mounts after its own.
pub fn container_name(pack_id: &str) -> String {
    format!("{pack_id}_P")
}

/// The set folder paths of the container's three files, `.utoc`, `.ucas`, `.pak`.
pub fn container_files(pack_id: &str) -> [String; 3] {
    let name = container_name(pack_id);
    ["utoc", "ucas", "pak"].map(|ext| format!("content/{name}.{ext}"))
}

/// One block's chunks, before packing: its packages, its tags, and the container
/// header's store entry of each package (its id and the ids of what it imports).
pub struct BlockChunks {
    pub packages: Vec<NewChunk>,
    pub tags: Vec<NewChunk>,
    pub store: Vec<(u64, Vec<u64>)>,
}

/// A block's chunks, packed and indexed: what the container is laid out from. Their
/// blocks are in the block's packed data ([`pack_block`]), which the caller keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedBlockChunks {
    pub packages: Vec<IndexedChunk>,
    pub tags: Vec<IndexedChunk>,
    pub store: Vec<(u64, Vec<u64>)>,
}

const BLOCK_INDEX_MAGIC: &[u8; 4] = b"FBLK";
const BLOCK_INDEX_VERSION: u32 = 1;

impl IndexedBlockChunks {
    /// The block's index as one file (`FBLK` v1, `docs/formats/iostore.md`): its packages'
    /// and its tags' `FPCK` indexes, each after its u32 length, then the store entries (u32
    /// count; per entry a u64 package id, a u32 import count and each import's u64 id).
    /// One file, not three: a set's step reads every block's, and at a catalog's size each
    /// file read back from the store was a seventh of an edit's wait for its container.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = forge_bytes::Writer::default();
        w.raw(BLOCK_INDEX_MAGIC);
        w.u32(BLOCK_INDEX_VERSION);
        for list in [&self.packages, &self.tags] {
            let index = forge_iostore::packed::to_bytes(list);
            w.u32(index.len() as u32);
            w.raw(&index);
        }
        w.u32(self.store.len() as u32);
        for (package, imports) in &self.store {
            w.raw(&package.to_le_bytes());
            w.u32(imports.len() as u32);
            for import in imports {
                w.raw(&import.to_le_bytes());
            }
        }
        w.bytes
    }

    /// Reads [`to_bytes`](Self::to_bytes)'s file, every count checked against the bytes
    /// left; a damaged one is `packed_chunks`.
    pub fn from_bytes(bytes: &[u8]) -> Result<IndexedBlockChunks, IoStoreError> {
        let e = |e: forge_bytes::ReadError| IoStoreError::new("packed_chunks", e.to_string());
        let mut r = forge_bytes::Reader::new(bytes);
        r.magic(BLOCK_INDEX_MAGIC, BLOCK_INDEX_VERSION, "block chunk index")
            .map_err(e)?;
        let mut index = || -> Result<Vec<IndexedChunk>, IoStoreError> {
            let length = r.u32().map_err(e)?;
            forge_iostore::packed::from_bytes(r.take(length as usize).map_err(e)?)
        };
        let packages = index()?;
        let tags = index()?;
        let count = r.u32().map_err(e)?;
        // The smallest entry is a package id and an import count.
        let count = r.fits(u64::from(count), 12).map_err(e)?;
        let mut store = Vec::with_capacity(count);
        for _ in 0..count {
            let package = r.u64().map_err(e)?;
            let imports = r.u32().map_err(e)?;
            let imports = r.fits(u64::from(imports), 8).map_err(e)?;
            let imports = (0..imports).map(|_| r.u64()).collect::<Result<_, _>>();
            store.push((package, imports.map_err(e)?));
        }
        r.finish().map_err(e)?;
        Ok(IndexedBlockChunks {
            packages,
            tags,
            store,
        })
    }
}

/// Packs a block's chunks once: their index, and the data their blocks are in.
pub fn pack_block(chunks: BlockChunks) -> (IndexedBlockChunks, Vec<u8>) {
    let mut data = Vec::new();
    let mut indexed = |list: &[NewChunk]| {
        forge_iostore::packed::split(&forge_iostore::pack(list, Compression::Zlib), &mut data)
    };
    let packages = indexed(&chunks.packages);
    let tags = indexed(&chunks.tags);
    let index = IndexedBlockChunks {
        packages,
        tags,
        store: chunks.store,
    };
    (index, data)
}

/// Where a run of the `.ucas` comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UcasPiece {
    /// `length` bytes of block `block`'s packed data (by its place in the set), from `offset`.
    Block {
        block: usize,
        offset: u64,
        length: u64,
    },
    /// Bytes made here: the container header's blocks.
    Literal(Vec<u8>),
}

/// A container laid out: its `.utoc` and `.pak` stub, and its `.ucas` as pieces, in order.
pub struct Layout {
    pub utoc: Vec<u8>,
    pub ucas: Vec<UcasPiece>,
    pub pak: Vec<u8>,
}

/// One block's packages (each checked against the namespace rule) and tags as chunks.
pub fn block_chunks(
    pack_id: &str,
    block: &BlockContent,
    shipped: &[String],
) -> Result<BlockChunks, IoStoreError> {
    let root = forge_contract::ids::unreal_root(pack_id);
    let mut out = BlockChunks {
        packages: Vec::new(),
        tags: Vec::new(),
        store: Vec::new(),
    };
    for bytes in &block.packages {
        let package = Package::read(bytes).map_err(package_error)?;
        if let Some(why) =
            forge_package::namespace::violations(&package, &root, Some(shipped)).first()
        {
            return Err(IoStoreError::new("namespace_violation", why.clone()));
        }
        let name = package.header.package_name().unwrap_or_default();
        let imports = package
            .header
            .imported_packages
            .iter()
            .map(|p| ids::name_hash(p))
            .collect();
        out.store.push((ids::name_hash(&name), imports));
        out.packages.push(NewChunk {
            id: ChunkId::new(ids::name_hash(&name), 0, ids::EXPORT_BUNDLE_DATA),
            data: bytes.to_vec(),
            path: Some(format!("{}.uasset", name.trim_start_matches("/Game/"))),
        });
    }
    for (extension, bytes) in &block.tags {
        let package = format!("{root}{}/{extension}", block.id);
        let rel = package.trim_start_matches("/Game/").to_string();
        out.tags.push(NewChunk {
            id: ChunkId::new(ids::name_hash(&package), 0, ids::BULK_DATA),
            data: bytes.to_vec(),
            path: Some(format!("{rel}.ubulk")),
        });
    }
    Ok(out)
}

/// The container laid out from packed blocks: every block's packages, then every block's
/// tags, then the container header; nothing but the header is compressed here, and no
/// block's data is read. Refuses a path outside the pack's namespace.
pub fn lay_out(pack_id: &str, blocks: &[IndexedBlockChunks]) -> Result<Layout, IoStoreError> {
    let root = forge_contract::ids::unreal_root(pack_id);
    // Each chunk, and the block whose data holds it (`None`: the header, made here).
    let mut index: Vec<IndexedChunk> = Vec::new();
    let mut holder: Vec<Option<usize>> = Vec::new();
    let lists: [fn(&IndexedBlockChunks) -> &Vec<IndexedChunk>; 2] = [|b| &b.packages, |b| &b.tags];
    for list in lists {
        for (b, block) in blocks.iter().enumerate() {
            index.extend(list(block).iter().cloned());
            holder.resize(index.len(), Some(b));
        }
    }
    let store: Vec<(u64, Vec<u64>)> = blocks
        .iter()
        .flat_map(|b| b.store.iter().cloned())
        .collect();
    let mut header_data = Vec::new();
    if !store.is_empty() {
        let container_id = ids::name_hash(&container_name(pack_id));
        let header = NewChunk {
            id: ChunkId::new(container_id, 0, ids::CONTAINER_HEADER),
            data: ContainerHeader::new(container_id, store).to_bytes(),
            path: None,
        };
        let packed = forge_iostore::pack(&[header], Compression::Zlib);
        index.extend(forge_iostore::packed::split(&packed, &mut header_data));
        holder.resize(index.len(), None);
    }
    let (utoc, order) = forge_iostore::lay_out(&container_name(pack_id), &index)?;
    let toc = forge_iostore::Toc::parse(&utoc)?;
    if let Some(path) = forge_iostore::outside_namespace(&toc, &root)?.first() {
        return Err(IoStoreError::new(
            "namespace_violation",
            format!("{path} is outside the pack's namespace {root}"),
        ));
    }
    let ucas = order
        .iter()
        .map(|&i| match holder[i] {
            Some(block) => UcasPiece::Block {
                block,
                offset: index[i].data_offset,
                length: index[i].data_len(),
            },
            None => UcasPiece::Literal(header_data.clone()),
        })
        .collect();
    Ok(Layout {
        utoc,
        ucas,
        pak: forge_iostore::pak_stub(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(id: &str, tags: &[(&'static str, Vec<u8>)]) -> BlockChunks {
        let content = BlockContent {
            id,
            packages: Vec::new(),
            tags: tags.iter().map(|(e, b)| (*e, b.as_slice())).collect(),
        };
        block_chunks("foundry", &content, &[]).unwrap()
    }

    #[test]
    fn a_layout_over_packed_blocks_is_the_container_written_whole() {
        let bytes = |n: usize, k: usize| (0..n).map(|i| (i % k) as u8).collect::<Vec<u8>>();
        let blocks = [
            block(
                "wall",
                &[("crate", bytes(70_000, 7)), ("model", bytes(300, 3))],
            ),
            block(
                "ramp",
                &[("crate", bytes(10, 5)), ("model", bytes(140_000, 251))],
            ),
        ];
        let whole: Vec<NewChunk> = blocks
            .iter()
            .flat_map(|b| b.tags.iter())
            .map(|c| NewChunk {
                id: c.id,
                data: c.data.clone(),
                path: c.path.clone(),
            })
            .collect();
        let expected = forge_iostore::write("foundry_P", &whole, Compression::Zlib).unwrap();
        let (index, data): (Vec<_>, Vec<_>) = blocks.into_iter().map(pack_block).unzip();
        let layout = lay_out("foundry", &index).unwrap();
        let mut ucas = Vec::new();
        for piece in &layout.ucas {
            match piece {
                UcasPiece::Block {
                    block,
                    offset,
                    length,
                } => ucas.extend_from_slice(&data[*block][*offset as usize..][..*length as usize]),
                UcasPiece::Literal(bytes) => ucas.extend_from_slice(bytes),
            }
        }
        assert_eq!((layout.utoc.clone(), ucas), expected);
        assert!(layout.ucas.len() >= 4, "one piece per chunk at least");
    }

    #[test]
    fn a_block_index_reads_back_as_written_and_refuses_damage() {
        let bytes = |n: usize, k: usize| (0..n).map(|i| (i % k) as u8).collect::<Vec<u8>>();
        let chunks = block(
            "wall",
            &[("crate", bytes(70_000, 7)), ("model", bytes(300, 3))],
        );
        let (mut index, _) = pack_block(chunks);
        index.store = vec![(7, vec![1, 2, u64::MAX]), (9, vec![])];
        let file = index.to_bytes();
        assert_eq!(IndexedBlockChunks::from_bytes(&file).unwrap(), index);
        for cut in [0, 4, 8, 12, file.len() - 9, file.len() - 1] {
            let err = IndexedBlockChunks::from_bytes(&file[..cut]).unwrap_err();
            assert_eq!(err.code, "packed_chunks", "cut at {cut}");
        }
        let mut trailing = file.clone();
        trailing.push(0);
        assert!(IndexedBlockChunks::from_bytes(&trailing).is_err());
        // A store count far past the bytes left is refused before anything is allocated.
        let mut huge = file.clone();
        let at = file.len() - (4 + 8 + 4 + 24 + 8 + 4);
        huge[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            IndexedBlockChunks::from_bytes(&huge).unwrap_err().code,
            "packed_chunks"
        );
    }
}
