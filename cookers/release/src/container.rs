//! The pack's IoStore container: which packages a set's blocks become, and where.
//!
//! Every block's static mesh and actor are cooked Unreal packages under
//! `/Game/MJOLNIR/Forge/<pack>/<block>/` (`SM_<block>`, `BP_<block>`), listed with their
//! imports in the container header; each tag is the bulk chunk of a package named by its
//! group extension beside them. A set cooked without donors has no Unreal packages and is
//! not installable. The container is `content/<pack>_P.{utoc,ucas}` plus the `.pak` stub
//! the game mounts it by.

use forge_iostore::ids::{self, ChunkId};
use forge_iostore::{Compression, IoStoreError, NewChunk, PackedChunk};
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

/// A block's chunks, packed: what the container is laid out from.
pub struct PackedBlockChunks {
    pub packages: Vec<PackedChunk>,
    pub tags: Vec<PackedChunk>,
    pub store: Vec<(u64, Vec<u64>)>,
}

/// Lays the blocks out as packages and writes the container; returns each of
/// [`container_files`] with its bytes. Refuses a package that breaks the namespace rule;
/// `shipped` lists the packages outside the namespace an import may name (the donors').
pub fn build(
    pack_id: &str,
    blocks: &[BlockContent],
    shipped: &[String],
) -> Result<Vec<(String, Vec<u8>)>, IoStoreError> {
    let packed = blocks
        .iter()
        .map(|b| {
            let chunks = block_chunks(pack_id, b, shipped)?;
            Ok(PackedBlockChunks {
                packages: forge_iostore::pack(&chunks.packages, Compression::Zlib),
                tags: forge_iostore::pack(&chunks.tags, Compression::Zlib),
                store: chunks.store,
            })
        })
        .collect::<Result<Vec<_>, IoStoreError>>()?;
    build_packed(pack_id, &packed)
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
/// tags, then the container header; nothing but the header is compressed here.
pub fn build_packed(
    pack_id: &str,
    blocks: &[PackedBlockChunks],
) -> Result<Vec<(String, Vec<u8>)>, IoStoreError> {
    let root = forge_contract::ids::unreal_root(pack_id);
    let mut chunks: Vec<PackedChunk> = Vec::new();
    chunks.extend(blocks.iter().flat_map(|b| b.packages.iter().cloned()));
    chunks.extend(blocks.iter().flat_map(|b| b.tags.iter().cloned()));
    let store: Vec<(u64, Vec<u64>)> = blocks
        .iter()
        .flat_map(|b| b.store.iter().cloned())
        .collect();
    if !store.is_empty() {
        let container_id = ids::name_hash(&container_name(pack_id));
        let header = NewChunk {
            id: ChunkId::new(container_id, 0, ids::CONTAINER_HEADER),
            data: ContainerHeader::new(container_id, store).to_bytes(),
            path: None,
        };
        chunks.extend(forge_iostore::pack(&[header], Compression::Zlib));
    }
    let (utoc, ucas) = forge_iostore::write_packed(&container_name(pack_id), &chunks)?;
    let toc = forge_iostore::Toc::parse(&utoc)?;
    if let Some(path) = forge_iostore::outside_namespace(&toc, &root)?.first() {
        return Err(IoStoreError::new(
            "namespace_violation",
            format!("{path} is outside the pack's namespace {root}"),
        ));
    }
    let [utoc_name, ucas_name, pak_name] = container_files(pack_id);
    Ok(vec![
        (utoc_name, utoc),
        (ucas_name, ucas),
        (pak_name, forge_iostore::pak_stub()),
    ])
}
