//! `forge-packgen fixture-packages SOURCE.utoc OUT.utoc`: copies every package chunk
//! (type 1) and the container header (type 6) of a container into a new, zlib-compressed
//! container with the same paths. The UE 5.8 fixture builds hold megabytes of bulk data
//! (audio, textures) that no package test reads; this keeps the repository's copy small.

use std::path::Path;

use anyhow::{anyhow, Context, Result};
use forge_iostore::ids;
use forge_iostore::{ChunkData, Compression, NewChunk, Toc};

pub fn write(source: &Path, out: &Path) -> Result<()> {
    let toc =
        Toc::parse(&std::fs::read(source)?).map_err(|e| anyhow!("{}: {e}", source.display()))?;
    let ucas = std::fs::read(source.with_extension("ucas"))
        .with_context(|| format!("{} has no .ucas beside it", source.display()))?;
    let paths: std::collections::BTreeMap<u32, String> = match &toc.directory {
        Some(d) => d.files()?.into_iter().map(|(p, i)| (i, p)).collect(),
        None => Default::default(),
    };
    let mut chunks = Vec::new();
    for (entry, id) in toc.chunks.iter().enumerate() {
        if id.kind() != ids::EXPORT_BUNDLE_DATA && id.kind() != ids::CONTAINER_HEADER {
            continue;
        }
        let ChunkData::Bytes(data) = forge_iostore::read_chunk(&toc, &ucas, entry)? else {
            return Err(anyhow!(
                "{}: chunk {entry} is not readable here",
                source.display()
            ));
        };
        // Paths under the project's Content folder, which the writer mounts as `/Game`.
        let path = paths
            .get(&(entry as u32))
            .and_then(|p| p.split_once("/Content/"))
            .map(|(_, rel)| rel.to_string());
        chunks.push(NewChunk {
            id: *id,
            data,
            path,
        });
    }
    let name = out
        .file_stem()
        .and_then(|s| s.to_str())
        .context("an output name")?;
    let (utoc, ucas) = forge_iostore::write(name, &chunks, Compression::Zlib)?;
    std::fs::create_dir_all(out.parent().unwrap_or(Path::new(".")))?;
    std::fs::write(out, utoc)?;
    std::fs::write(out.with_extension("ucas"), ucas)?;
    Ok(())
}
