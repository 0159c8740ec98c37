//! Reading the donors out of the game's Paks before a cook is planned. Only the TOCs are
//! read whole; of a `.ucas`, only the bytes of the donor's own blocks, so a Paks folder of
//! many gigabytes costs a few small reads. Each donor is written to `<out>/donors/` when
//! its bytes change, and the cook takes it from there as a source like any other: its
//! bytes and the TOC it came from enter the keys of every step that uses it.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use forge_iostore::ids::{self, ChunkId};
use forge_iostore::{ChunkData, Toc};

use crate::config::Donors;

/// Far more than any static mesh or Blueprint package; a TOC that says more is damaged.
const MAX_DONOR_BYTES: u64 = 1 << 30;

/// The extracted donors, as the planner wires them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DonorFiles {
    pub static_mesh: String,
    pub actor: String,
    pub static_mesh_file: PathBuf,
    pub actor_file: PathBuf,
    /// Each TOC a donor was found in: `paks/<file name>` and its path.
    pub tocs: Vec<(String, PathBuf)>,
}

pub fn extract(donors: &Donors, out: &Path) -> Result<DonorFiles> {
    let tocs = crate::paks::read_tocs(&donors.paks)?;
    let mut used = Vec::new();
    let mut files = Vec::new();
    for (role, package) in [
        ("static_mesh", &donors.static_mesh),
        ("actor", &donors.actor),
    ] {
        let (utoc, toc, entry) = find(&tocs, package).ok_or_else(|| {
            anyhow!(
                "error[donor_not_found]: no container in {} holds the donor {role} {package}",
                donors.paks.display()
            )
        })?;
        let bytes = read_package(utoc, toc, entry).with_context(|| {
            format!("reading the donor {role} {package} from {}", utoc.display())
        })?;
        let file = out.join("donors").join(format!("{role}.uasset"));
        if std::fs::read(&file).ok().as_deref() != Some(bytes.as_slice()) {
            crate::atomic::write(&file, &bytes)
                .with_context(|| format!("cannot write {}", file.display()))?;
        }
        let name = format!(
            "paks/{}",
            utoc.file_name().unwrap_or_default().to_string_lossy()
        );
        if !used.iter().any(|(n, _)| *n == name) {
            used.push((name, utoc.clone()));
        }
        files.push(file);
    }
    let [static_mesh_file, actor_file]: [PathBuf; 2] = files.try_into().expect("two donors");
    Ok(DonorFiles {
        static_mesh: donors.static_mesh.clone(),
        actor: donors.actor.clone(),
        static_mesh_file,
        actor_file,
        tocs: used,
    })
}

fn find<'a>(tocs: &'a [(PathBuf, Toc)], package: &str) -> Option<(&'a PathBuf, &'a Toc, usize)> {
    let id = ChunkId::new(ids::name_hash(package), 0, ids::EXPORT_BUNDLE_DATA);
    tocs.iter().find_map(|(path, toc)| {
        toc.chunks
            .iter()
            .position(|c| *c == id)
            .map(|e| (path, toc, e))
    })
}

/// Reads just the entry's blocks from the `.ucas` beside `utoc`.
fn read_package(utoc: &Path, toc: &Toc, entry: usize) -> Result<Vec<u8>> {
    let ucas = utoc.with_extension("ucas");
    let span = forge_iostore::chunk_span(toc, entry)?;
    if span.end - span.start > MAX_DONOR_BYTES {
        bail!(
            "error[donor_too_large]: the donor's blocks span {} bytes; a package is far smaller",
            span.end - span.start
        );
    }
    let mut file =
        std::fs::File::open(&ucas).with_context(|| format!("cannot open {}", ucas.display()))?;
    file.seek(SeekFrom::Start(span.start))?;
    let mut bytes = vec![0; (span.end - span.start) as usize];
    file.read_exact(&mut bytes)
        .with_context(|| format!("{} ends before the donor's blocks", ucas.display()))?;
    match forge_iostore::read_chunk_in(toc, &bytes, span.start, entry)? {
        ChunkData::Bytes(b) => Ok(b),
        ChunkData::Unsupported(method) => bail!(
            "error[donor_compressed]: the donor is stored with {method}, which this pipeline cannot decompress; extract it with the game's tools into an uncompressed or zlib container"
        ),
    }
}
