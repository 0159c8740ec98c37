//! Reading the donors out of the game's Paks before a cook is planned. Only the TOCs are
//! read whole; of a `.ucas`, only the bytes of the donor's own blocks, so a Paks folder of
//! many gigabytes costs a few small reads. Each donor is written to `<out>/donors/` when
//! its bytes change, and the cook takes it from there as a source like any other: its
//! bytes and the TOC it came from enter the keys of every step that uses it.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use forge_iostore::ids::{self, ChunkId};
use forge_iostore::{ChunkData, Toc};

/// Far more than any static mesh or Blueprint package; a TOC that says more is damaged.
const MAX_DONOR_BYTES: u64 = 1 << 30;

/// A donor's role: the file it is extracted to (and the donors step's output), and the
/// class its package must export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Role {
    pub output: &'static str,
    pub class: &'static str,
}

pub const STATIC_MESH: Role = Role {
    output: "static_mesh.uasset",
    class: forge_mesh::unreal::STATIC_MESH_CLASS,
};
pub const ACTOR: Role = Role {
    output: "actor.uasset",
    class: "/Script/Engine.BlueprintGeneratedClass",
};
pub const GLASS_MATERIAL: Role = Role {
    output: "glass_material.uasset",
    class: forge_package::material_instance::MATERIAL_INSTANCE_CLASS,
};
pub const PORTAL_MATERIAL: Role = Role {
    output: "portal_material.uasset",
    class: forge_package::material_instance::MATERIAL_INSTANCE_CLASS,
};

/// One extracted donor: its role, its package path and the file it was written to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DonorFile {
    pub role: Role,
    pub package: String,
    pub file: PathBuf,
}

/// The extracted donors, as the planner wires them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DonorFiles {
    /// The static mesh and the actor, then the material instances configured.
    pub files: Vec<DonorFile>,
    /// Each TOC a donor was found in: `paks/<file name>` and its path.
    pub tocs: Vec<(String, PathBuf)>,
    pub parameters: forge_material::ParameterNames,
}

impl DonorFiles {
    pub fn has(&self, role: Role) -> bool {
        self.files.iter().any(|f| f.role == role)
    }
}

pub fn extract(donors: &Donors, out: &Path) -> Result<DonorFiles> {
    let mut used = Vec::new();
    let mut files = Vec::new();
    let roles = [
        (STATIC_MESH, Some(&donors.static_mesh)),
        (ACTOR, Some(&donors.actor)),
        (GLASS_MATERIAL, donors.glass_material.as_ref()),
        (PORTAL_MATERIAL, donors.portal_material.as_ref()),
    ];
    let wanted: Vec<ChunkId> = roles
        .iter()
        .filter_map(|(_, p)| Some(package_chunk(p.as_ref()?)))
        .collect();
    let holders = crate::paks::find_chunks(&donors.paks, &wanted, out)?;
    // Only the TOCs that hold a donor are parsed in full, each once.
    let mut parsed: BTreeMap<PathBuf, Toc> = BTreeMap::new();
    for path in holders.values() {
        if !parsed.contains_key(path) {
            let bytes = crate::paks::read_toc_bytes(path)?;
            let toc = Toc::parse(&bytes).map_err(|e| anyhow!("{}: {e}", path.display()))?;
            parsed.insert(path.clone(), toc);
        }
    }
    for (role, package) in roles {
        let Some(package) = package else { continue };
        let (utoc, toc, entry) = find(&holders, &parsed, package).ok_or_else(|| {
            anyhow!(
                "error[donor_not_found]: no container in {} holds the donor {} {package}",
                donors.paks.display(),
                role.output.trim_end_matches(".uasset")
            )
        })?;
        let bytes = read_package(utoc, toc, entry)
            .with_context(|| format!("reading the donor {package} from {}", utoc.display()))?;
        let file = out.join("donors").join(role.output);
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
        files.push(DonorFile {
            role,
            package: package.clone(),
            file,
        });
    }
    Ok(DonorFiles {
        files,
        tocs: used,
        parameters: donors.parameters.clone(),
    })
}

/// A package's chunk: its export bundle, by the CityHash64 of its name.
fn package_chunk(package: &str) -> ChunkId {
    ChunkId::new(ids::name_hash(package), 0, ids::EXPORT_BUNDLE_DATA)
}

/// The TOC that holds `package` (the first in name order), and its entry there.
fn find<'a>(
    holders: &'a BTreeMap<ChunkId, PathBuf>,
    parsed: &'a BTreeMap<PathBuf, Toc>,
    package: &str,
) -> Option<(&'a PathBuf, &'a Toc, usize)> {
    let id = package_chunk(package);
    let path = holders.get(&id)?;
    let toc = parsed.get(path)?;
    let entry = toc.chunks.iter().position(|c| *c == id)?;
    Some((path, toc, entry))
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

/// The donors: the game's Paks folder (its `.utoc`/`.ucas` containers) and the package
/// paths of a shipped static mesh and a shipped actor Blueprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Donors {
    pub paks: PathBuf,
    pub static_mesh: String,
    pub actor: String,
    /// The material instances glass and portal surfaces are written over, when set.
    pub glass_material: Option<String>,
    pub portal_material: Option<String>,
    /// The parameter names the donor materials' parents expose.
    pub parameters: forge_material::ParameterNames,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_that_names_the_wrong_toc_finds_no_donor_never_a_wrong_one() {
        let dir = tempfile::tempdir().unwrap();
        let (paks, out) = (dir.path().join("Paks"), dir.path().join("build"));
        std::fs::create_dir_all(&paks).unwrap();
        for (name, package) in [("a", "/Game/Donor"), ("b", "/Game/Other")] {
            let chunk = forge_iostore::NewChunk {
                id: package_chunk(package),
                data: b"bytes".to_vec(),
                path: None,
            };
            let (utoc, ucas) =
                forge_iostore::write(name, &[chunk], forge_iostore::Compression::None).unwrap();
            std::fs::write(paks.join(format!("{name}.utoc")), utoc).unwrap();
            std::fs::write(paks.join(format!("{name}.ucas")), ucas).unwrap();
        }
        let donors = Donors {
            paks: paks.clone(),
            static_mesh: "/Game/Donor".into(),
            actor: "/Game/Donor".into(),
            glass_material: None,
            portal_material: None,
            parameters: forge_material::ParameterNames {
                tint: "Tint".into(),
                opacity: "Opacity".into(),
                emissive: "Emissive".into(),
            },
        };
        // A real lookup writes the index; then it is edited to say b holds the donor.
        let _ = extract(&donors, &out);
        let index = out.join("donors/paks-index.json");
        let text = std::fs::read_to_string(&index).unwrap();
        let donor: String = package_chunk("/Game/Donor")
            .0
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
        value["tocs"]["a.utoc"]["holds"] = serde_json::json!([]);
        value["tocs"]["b.utoc"]["holds"] = serde_json::json!([donor]);
        std::fs::write(&index, serde_json::to_vec(&value).unwrap()).unwrap();
        let e = extract(&donors, &out).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("donor_not_found"), "{e}");
    }
}
