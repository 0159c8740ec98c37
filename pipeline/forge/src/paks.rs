//! A Paks folder: the `.utoc`/`.ucas` containers the game mounts, as the donor extraction
//! and the map bake read them.
//!
//! A real game's folder holds hundreds of containers. Finding a few donor packages reads
//! only each TOC's chunk ids, one TOC at a time, and remembers the answer per TOC by its
//! stamp (size and modification time) in `<out>/donors/paks-index.json`. So a cook after
//! the first re-reads only the TOCs that changed, and then only those that hold a donor
//! are parsed in full.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use forge_iostore::ids::ChunkId;
use forge_iostore::Toc;
use serde::{Deserialize, Serialize};

/// The largest `.utoc` read: a real game's biggest is a few tens of megabytes.
pub const MAX_TOC_BYTES: u64 = 256 << 20;
/// The largest index read back; a larger one is rebuilt.
const MAX_INDEX_BYTES: u64 = 64 << 20;
const INDEX: &str = "paks-index.json";

/// Every `.utoc` in the folder, in name order (names only, nothing opened yet).
pub fn toc_paths(paks: &Path) -> Result<Vec<PathBuf>> {
    let listing = std::fs::read_dir(paks).map_err(|e| {
        anyhow!(
            "error[paks_missing]: cannot read the Paks folder {}: {e}",
            paks.display()
        )
    })?;
    let mut paths: Vec<PathBuf> = listing
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "utoc"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        bail!(
            "error[paks_missing]: {} holds no .utoc containers",
            paks.display()
        );
    }
    Ok(paths)
}

/// A TOC's bytes: a regular file of at most [`MAX_TOC_BYTES`].
pub fn read_toc_bytes(path: &Path) -> Result<Vec<u8>> {
    mjolnir_files::bounded::read(path, MAX_TOC_BYTES)
        .map_err(|e| anyhow!("error[{}]: cannot read {}: {e}", e.code(), path.display()))
}

/// Every `.utoc` in the folder, parsed, in name order.
pub fn read_tocs(paks: &Path) -> Result<Vec<(PathBuf, Toc)>> {
    toc_paths(paks)?
        .into_iter()
        .map(|p| {
            let bytes = read_toc_bytes(&p)?;
            let toc = Toc::parse(&bytes).map_err(|e| anyhow!("{}: {e}", p.display()))?;
            Ok((p, toc))
        })
        .collect()
}

/// What the index remembers of one TOC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    size: u64,
    modified_ns: u128,
    /// The wanted chunk ids it holds, as hex.
    holds: Vec<String>,
}

#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Index {
    /// The chunk ids looked for; another set makes every TOC's answer stale.
    wanted: Vec<String>,
    tocs: BTreeMap<String, Entry>,
}

/// For each of `wanted`, the first TOC (in name order) that holds it. TOCs whose stamp is
/// the one the index recorded are not opened.
pub fn find_chunks(
    paks: &Path,
    wanted: &[ChunkId],
    out: &Path,
) -> Result<BTreeMap<ChunkId, PathBuf>> {
    let index_path = out.join("donors").join(INDEX);
    let wanted_hex: Vec<String> = wanted.iter().map(hex).collect();
    let old = read_index(&index_path).filter(|i| i.wanted == wanted_hex);
    let mut index = Index {
        wanted: wanted_hex,
        tocs: BTreeMap::new(),
    };
    let mut found = BTreeMap::new();
    for path in toc_paths(paks)? {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let (size, modified_ns) = stamp(&path)?;
        let remembered = old
            .as_ref()
            .and_then(|i| i.tocs.get(&name))
            .filter(|e| e.size == size && e.modified_ns == modified_ns);
        let entry = match remembered {
            Some(e) => e.clone(),
            None => Entry {
                size,
                modified_ns,
                holds: holds(&path, wanted)?,
            },
        };
        for id in wanted.iter().filter(|id| entry.holds.contains(&hex(id))) {
            found.entry(*id).or_insert_with(|| path.clone());
        }
        index.tocs.insert(name, entry);
    }
    if old.as_ref() != Some(&index) {
        // The index only saves time: one that cannot be written is rebuilt next cook.
        let _ = crate::atomic::write(&index_path, &json_out::pretty(&index));
    }
    Ok(found)
}

/// Which of `wanted` a TOC holds, from its chunk ids alone.
fn holds(path: &Path, wanted: &[ChunkId]) -> Result<Vec<String>> {
    let bytes = read_toc_bytes(path)?;
    let ids = Toc::chunk_ids(&bytes).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let present: std::collections::HashSet<&ChunkId> = ids.iter().collect();
    Ok(wanted
        .iter()
        .filter(|id| present.contains(id))
        .map(hex)
        .collect())
}

fn read_index(path: &Path) -> Option<Index> {
    let text = mjolnir_files::bounded::read_text(path, MAX_INDEX_BYTES).ok()?;
    serde_json::from_str(&text).ok()
}

fn stamp(path: &Path) -> Result<(u64, u128)> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot stat {}", path.display()))?;
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Ok((meta.len(), modified))
}

fn hex(id: &ChunkId) -> String {
    id.0.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use forge_iostore::ids;

    fn container(dir: &Path, name: &str, packages: &[&str]) {
        let chunks: Vec<forge_iostore::NewChunk> = packages
            .iter()
            .map(|p| forge_iostore::NewChunk {
                id: ChunkId::new(ids::name_hash(p), 0, ids::EXPORT_BUNDLE_DATA),
                data: p.as_bytes().to_vec(),
                path: None,
            })
            .collect();
        let (utoc, ucas) =
            forge_iostore::write(name, &chunks, forge_iostore::Compression::None).unwrap();
        std::fs::write(dir.join(format!("{name}.utoc")), utoc).unwrap();
        std::fs::write(dir.join(format!("{name}.ucas")), ucas).unwrap();
    }

    #[test]
    fn the_index_answers_for_unchanged_tocs_and_a_changed_one_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let (paks, out) = (dir.path().join("Paks"), dir.path().join("build"));
        std::fs::create_dir_all(&paks).unwrap();
        container(&paks, "a", &["/Game/A"]);
        container(&paks, "b", &["/Game/B", "/Game/Donor"]);
        let donor = ChunkId::new(ids::name_hash("/Game/Donor"), 0, ids::EXPORT_BUNDLE_DATA);
        let found = find_chunks(&paks, &[donor], &out).unwrap();
        assert_eq!(found[&donor], paks.join("b.utoc"));
        // An unchanged TOC is not read: one made unreadable keeps its remembered answer.
        let index = std::fs::read(out.join("donors").join(INDEX)).unwrap();
        let b = paks.join("b.utoc");
        let bytes = std::fs::read(&b).unwrap();
        let mut scrambled = bytes.clone();
        scrambled[..16].copy_from_slice(&[0; 16]);
        let modified = std::fs::metadata(&b).unwrap().modified().unwrap();
        std::fs::write(&b, &scrambled).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&b)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        assert_eq!(find_chunks(&paks, &[donor], &out).unwrap()[&donor], b);
        assert_eq!(
            std::fs::read(out.join("donors").join(INDEX)).unwrap(),
            index
        );
        // A TOC that changed is read again: the donor moved to a.
        std::fs::write(&b, &bytes).unwrap();
        container(&paks, "a", &["/Game/A", "/Game/Donor"]);
        assert_eq!(
            find_chunks(&paks, &[donor], &out).unwrap()[&donor],
            paks.join("a.utoc")
        );
    }
}
