//! The pack's IoStore container: which packages a set's blocks become, and where.
//!
//! Every block's static mesh and actor are packages under
//! `/Game/MJOLNIR/Forge/<pack>/<block>/` (`SM_<block>`, `BP_<block>`), and each tag is the
//! bulk chunk of a package named by its group extension beside them. The container is
//! `content/<pack>_P.{utoc,ucas}` plus the `.pak` stub the game mounts it by.

use forge_iostore::ids::{self, ChunkId};
use forge_iostore::{Compression, IoStoreError, NewChunk};

/// One block's cooked content, as the container takes it.
pub struct BlockContent<'a> {
    pub id: &'a str,
    pub static_mesh: &'a [u8],
    pub actor: &'a [u8],
    /// Each tag's group extension (`crate`, `model`, ...) and its bytes, in container order.
    pub tags: Vec<(&'a str, &'a [u8])>,
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

/// Lays the blocks out as packages and writes the container; returns each of
/// [`container_files`] with its bytes. Refuses a package outside the pack's namespace.
pub fn build(
    pack_id: &str,
    blocks: &[BlockContent],
) -> Result<Vec<(String, Vec<u8>)>, IoStoreError> {
    let root = forge_contract::ids::unreal_root(pack_id);
    let mut chunks = Vec::new();
    let mut add = |package: String, kind: u8, extension: &str, data: &[u8]| {
        let rel = package.trim_start_matches("/Game/").to_string();
        chunks.push(NewChunk {
            id: ChunkId::new(ids::name_hash(&package), 0, kind),
            data: data.to_vec(),
            path: Some(format!("{rel}.{extension}")),
        });
    };
    for block in blocks {
        let id = block.id;
        add(
            forge_mesh::asset_path(pack_id, id),
            ids::EXPORT_BUNDLE_DATA,
            "uasset",
            block.static_mesh,
        );
        add(
            forge_actor::package_path(pack_id, id),
            ids::EXPORT_BUNDLE_DATA,
            "uasset",
            block.actor,
        );
        for (extension, bytes) in &block.tags {
            add(
                format!("{root}{id}/{extension}"),
                ids::BULK_DATA,
                "ubulk",
                bytes,
            );
        }
    }
    let (utoc, ucas) = forge_iostore::write(&container_name(pack_id), &chunks, Compression::Zlib)?;
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
