//! `forge-packgen game-paks DONORS OUT [--containers N] [--chunks C]`: a Paks folder at the
//! size of a real game's, for the donor lookup's benchmark. N containers (300 by default)
//! of C chunks each (4,096): package export bundles with directory-index paths, so each
//! TOC is the size a shipped one is (a few hundred kilobytes). The donors sit in the middle
//! container, `pakchunk<N/2>-Windows`, as `donor-paks` writes them.

use std::path::Path;

use anyhow::Result;
use forge_iostore::ids::{self, ChunkId};
use forge_iostore::{Compression, NewChunk};

pub fn write(donors: &Path, out: &Path, containers: usize, chunks: usize) -> Result<()> {
    std::fs::create_dir_all(out)?;
    for c in 0..containers {
        let name = format!("pakchunk{c}-Windows");
        if c == containers / 2 {
            crate::donor_paks::write_named(donors, out, &name)?;
            continue;
        }
        let list: Vec<NewChunk> = (0..chunks)
            .map(|i| {
                let package = format!("/Game/Content{c}/Folder{}/Asset{i}", i % 64);
                NewChunk {
                    id: ChunkId::new(ids::name_hash(&package), 0, ids::EXPORT_BUNDLE_DATA),
                    data: vec![(i % 251) as u8; 16],
                    path: Some(format!("{}.uasset", package.trim_start_matches("/Game/"))),
                }
            })
            .collect();
        let (utoc, ucas) = forge_iostore::write(&name, &list, Compression::None)?;
        std::fs::write(out.join(format!("{name}.utoc")), utoc)?;
        std::fs::write(out.join(format!("{name}.ucas")), ucas)?;
    }
    Ok(())
}
