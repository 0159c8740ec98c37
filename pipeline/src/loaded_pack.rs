//! A pack as the checking commands read it (`forge validate`, `forge compat`, `forge pack
//! --previous`, `map bake`): a pack folder, a manifest file, or a `.mjolnir` archive, its
//! manifest parsed through the contract and its geometry when present.

use std::path::Path;

use anyhow::{Context, Result};
use forge_contract::{
    parse_geometry_lacking, parse_manifest, Catalog, Diagnostic, GeometrySource, Manifest,
};

/// Reads a pack for checking: its manifest, and its geometry when present.
pub struct LoadedPack {
    pub label: String,
    pub manifest: Option<Manifest>,
    pub geometry: Option<GeometrySource>,
    pub findings: Vec<Diagnostic>,
}

/// The largest pack document read (`mjolnir.json`, `geometry.json`).
const MAX_DOCUMENT_BYTES: u64 = 64 << 20;

/// A pack document's text: a regular file of at most [`MAX_DOCUMENT_BYTES`].
pub fn read_document(path: &Path) -> Result<String> {
    mjolnir_files::bounded::read_text(path, MAX_DOCUMENT_BYTES)
        .map_err(|e| anyhow::anyhow!("error[{}]: cannot read {}: {e}", e.code(), path.display()))
}

pub fn load_pack_dir(dir: &Path) -> Result<LoadedPack> {
    let manifest_path = dir.join("mjolnir.json");
    let label = manifest_path.display().to_string();
    let text = read_document(&manifest_path)?;
    let mut pack = load_manifest_text(&label, &text);
    let geometry_path = dir.join("source/geometry.json");
    if let (Some(catalog), true) = (
        pack.manifest.as_ref().and_then(Manifest::catalog),
        geometry_path.is_file(),
    ) {
        let file = geometry_path.display().to_string();
        let text = read_document(&geometry_path)?;
        // As the cook reads it: a block with a model may leave fields (or its whole entry)
        // to the model's UCX_ hulls.
        let with_models = blocks_with_models(dir, catalog);
        match parse_geometry_lacking(&file, &text, catalog, &with_models) {
            Ok((g, warnings)) => {
                pack.geometry = Some(g);
                pack.findings.extend(warnings);
            }
            Err(findings) => pack.findings.extend(findings),
        }
    }
    Ok(pack)
}

/// The catalog's blocks that have a model file (`.gltf`, `.glb` or `.blend`).
pub fn blocks_with_models(dir: &Path, catalog: &Catalog) -> Vec<String> {
    let models = dir.join("source/models");
    catalog
        .blocks
        .iter()
        .filter(|b| {
            forge::steps::geometry::MODEL_EXTENSIONS
                .iter()
                .any(|x| models.join(format!("{}.{x}", b.id)).is_file())
        })
        .map(|b| b.id.clone())
        .collect()
}

fn load_manifest_text(label: &str, text: &str) -> LoadedPack {
    match parse_manifest(label, text) {
        Ok((m, warnings)) => LoadedPack {
            label: label.to_string(),
            manifest: Some(m),
            geometry: None,
            findings: warnings,
        },
        Err(findings) => LoadedPack {
            label: label.to_string(),
            manifest: None,
            geometry: None,
            findings,
        },
    }
}

/// A pack folder, a manifest file, or a `.mjolnir` archive (its `mjolnir.json`).
pub fn load_release(path: &Path) -> Result<LoadedPack> {
    if path.is_dir() {
        return load_pack_dir(path);
    }
    let label = path.display().to_string();
    let bytes = mjolnir_files::bounded::read(path, 512 << 20)
        .with_context(|| format!("cannot read {label}"))?;
    if bytes.starts_with(b"PK") {
        let manifest = forge_release::archive::read_member(&bytes, "mjolnir.json", 16 << 20)
            .with_context(|| format!("{label} is not a readable archive"))?
            .with_context(|| format!("{label} has no mjolnir.json"))?;
        let text = String::from_utf8(manifest)
            .with_context(|| format!("{label}: mjolnir.json is not UTF-8 text"))?;
        return Ok(load_manifest_text(&format!("{label}!mjolnir.json"), &text));
    }
    let text = String::from_utf8(bytes).with_context(|| format!("{label} is not UTF-8 text"))?;
    Ok(load_manifest_text(&label, &text))
}
