//! `forge-packgen donor-paks DONORS OUT`: a small "Paks" folder for tests and the README's
//! donor cook. Every `.uasset` in DONORS goes into one container, `OUT/Donors.utoc` and
//! `.ucas`, with its container header, as the game's own containers hold packages.

use std::path::Path;

use anyhow::{Context, Result};
use forge_iostore::ids::{self, ChunkId};
use forge_iostore::{Compression, NewChunk};
use forge_package::{ContainerHeader, Package};

pub const CONTAINER: &str = "Donors";

pub fn write(donors: &Path, out: &Path) -> Result<()> {
    write_named(donors, out, CONTAINER)
}

/// As [`write`], with the container called `container`.
pub fn write_named(donors: &Path, out: &Path, container: &str) -> Result<()> {
    let mut files: Vec<_> = std::fs::read_dir(donors)
        .with_context(|| format!("cannot read {}", donors.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "uasset"))
        .collect();
    files.sort();
    let mut chunks = Vec::new();
    let mut store = Vec::new();
    for file in files {
        let bytes = std::fs::read(&file)?;
        let package = Package::read(&bytes)
            .with_context(|| format!("{} is not a package", file.display()))?;
        let name = package
            .header
            .package_name()
            .context("a package without a name")?;
        let id = ids::name_hash(&name);
        store.push((
            id,
            package
                .header
                .imported_packages
                .iter()
                .map(|p| ids::name_hash(p))
                .collect(),
        ));
        chunks.push(NewChunk {
            id: ChunkId::new(id, 0, ids::EXPORT_BUNDLE_DATA),
            data: bytes,
            path: Some(format!("{}.uasset", name.trim_start_matches("/Game/"))),
        });
    }
    let container_id = ids::name_hash(container);
    chunks.push(NewChunk {
        id: ChunkId::new(container_id, 0, ids::CONTAINER_HEADER),
        data: ContainerHeader::new(container_id, store).to_bytes(),
        path: None,
    });
    let (utoc, ucas) = forge_iostore::write(container, &chunks, Compression::None)?;
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join(format!("{container}.utoc")), utoc)?;
    std::fs::write(out.join(format!("{container}.ucas")), ucas)?;
    Ok(())
}
