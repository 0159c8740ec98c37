//! The installed catalogs the game reads, under `ue4ss/MJOLNIRForgePacks/`: `installed.json`
//! (the editor's display metadata) and `installed.txt` (the native identity check: one line
//! per block, tag path, slug, version, archive SHA-256). They list exactly the enabled,
//! verified releases.

use mjolnir_files::atomic;
use serde_json::{json, Value};

use crate::finding::Finding;
use crate::profile::{Profile, Verified};

pub fn write(profile: &Profile, enabled: &[&Verified]) -> Result<(), Finding> {
    let packs: Vec<Value> = enabled
        .iter()
        .map(|v| {
            json!({"slug": v.slug, "name": v.manifest.name, "version": v.version.to_string(),
                "archive_sha256": v.sha256, "blocks": forge_contract::document::catalog_entries(&v.raw)})
        })
        .collect();
    let mut text = String::from("forge-packs-installed 1\n");
    for v in enabled {
        for block in v.manifest.catalog().into_iter().flat_map(|c| &c.blocks) {
            text += &format!("{}\t{}\t{}\t{}\n", block.tag, v.slug, v.version, v.sha256);
        }
    }
    let json_bytes = json_out::pretty(&json!({"format": "mjolnir-installed", "packs": packs}));
    let dir = profile.catalogs();
    for (name, bytes) in [
        ("installed.json", json_bytes.as_slice()),
        ("installed.txt", text.as_bytes()),
    ] {
        let path = dir.join(name);
        atomic::write(&path, bytes).map_err(|e| {
            Finding::new("catalog_write", path.display().to_string(), e.to_string())
        })?;
    }
    Ok(())
}
