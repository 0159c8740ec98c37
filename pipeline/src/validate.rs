//! `mjolnir forge validate`: pack folders against the contract, and every block's model and
//! buffers; writes nothing.

use std::path::{Path, PathBuf};

use anyhow::Result;
use forge_contract::{Diagnostic, Manifest};

use crate::loaded_pack::load_pack_dir;
use crate::print::{exit_code, print_findings};

pub fn validate(dirs: &[PathBuf], slug: Option<&str>, as_json: bool) -> Result<i32> {
    let mut findings = Vec::new();
    for dir in dirs {
        let pack = load_pack_dir(dir)?;
        findings.extend(pack.findings);
        if let (Some(slug), Some(catalog)) =
            (slug, pack.manifest.as_ref().and_then(Manifest::catalog))
        {
            if catalog.id != slug {
                findings.push(crate::steps::finding(
                    "pack_id_not_slug",
                    &pack.label,
                    format!(
                        "the pack id {:?} must equal the Hub slug {slug:?}",
                        catalog.id
                    ),
                ));
            }
        }
        if let Some(catalog) = pack.manifest.as_ref().and_then(Manifest::catalog) {
            findings.extend(model_findings(dir, catalog));
            if let Some(geometry) = &pack.geometry {
                findings.extend(hulls_left_to_models(dir, catalog, geometry));
            }
        }
        if pack
            .manifest
            .as_ref()
            .is_some_and(|m| m.catalog().is_some())
            && pack.geometry.is_none()
            && !dir.join("source/geometry.json").is_file()
        {
            findings.push(crate::steps::finding(
                "missing_geometry",
                &pack.label,
                "source/geometry.json is missing; every block needs collision hulls",
            ));
        }
    }
    print_findings(&findings, as_json);
    let code = exit_code(&findings);
    if !as_json && code == 0 {
        println!(
            "{} pack{} valid",
            dirs.len(),
            if dirs.len() == 1 { "" } else { "s" }
        );
    }
    Ok(code)
}

/// The largest model `forge validate` reads: a Forge piece's is far smaller.
const MAX_MODEL_BYTES: u64 = 1 << 30;

/// Every block has one model (`source/models/<block>.gltf`, `.glb` or `.blend`), and
/// every buffer a `.gltf` names is there.
fn model_findings(dir: &Path, catalog: &forge_contract::Catalog) -> Vec<Diagnostic> {
    let models = dir.join("source/models");
    let mut findings = Vec::new();
    for block in &catalog.blocks {
        let gltf = models.join(format!("{}.gltf", block.id));
        let glb = models.join(format!("{}.glb", block.id));
        let blend = models.join(format!("{}.blend", block.id));
        let read = |path: &Path| mjolnir_files::bounded::read(path, MAX_MODEL_BYTES).ok();
        let sources: Vec<&Path> = [&gltf, &glb, &blend]
            .into_iter()
            .filter(|p| p.is_file())
            .map(|p| p.as_path())
            .collect();
        if sources.len() > 1 {
            let names: Vec<String> = sources.iter().map(|p| p.display().to_string()).collect();
            findings.push(crate::steps::finding(
                "two_models",
                &names[0],
                format!(
                    "block {:?} has {} models: {}; keep the one you edit and delete the others",
                    block.id,
                    names.len(),
                    names.join(" and ")
                ),
            ));
            continue;
        }
        // A .blend is exported by the cook's Blender; validate checks that it is there.
        if sources == [blend.as_path()] {
            continue;
        }
        if glb.is_file() && !gltf.is_file() {
            findings.extend(read(&glb).and_then(|b| dropped_textures(&glb, &b)));
            continue;
        }
        let Some(bytes) = read(&gltf) else {
            findings.push(crate::steps::finding(
                "missing_model",
                &gltf.display().to_string(),
                format!("block {:?} has no model: export source/models/{0}.gltf (with its .bin) or {0}.glb, or save source/models/{0}.blend", block.id),
            ));
            continue;
        };
        let rel = format!("source/models/{}.gltf", block.id);
        findings.extend(dropped_textures(&gltf, &bytes));
        for uri in forge_gltf::external_uris(&rel, &bytes).unwrap_or_default() {
            // As the cook does: a buffer is a file beside the model or below it, so a URI
            // that climbs out (or is absolute) is missing, and nothing outside is looked at.
            let rel = forge_gltf::uri_to_relative_path(&uri);
            let buffer = models.join(&rel);
            if !crate::steps::is_plain_relative(&rel) || !buffer.is_file() {
                findings.push(crate::steps::finding(
                    "missing_buffer",
                    &buffer.display().to_string(),
                    format!("{} names it as a buffer, and it is missing: export the .bin beside it, or export a .glb", gltf.display()),
                ));
            }
        }
    }
    findings
}

/// A block whose entry gives no hulls takes them from its model, which must have `UCX_`
/// nodes. A `.blend` saved compressed cannot be read without Blender, so is not judged.
fn hulls_left_to_models(
    dir: &Path,
    catalog: &forge_contract::Catalog,
    geometry: &forge_contract::GeometrySource,
) -> Vec<Diagnostic> {
    let models = dir.join("source/models");
    let zstd = [0x28, 0xb5, 0x2f, 0xfd];
    catalog
        .blocks
        .iter()
        .filter(|b| geometry.block(&b.id).is_none_or(|g| g.hulls.is_empty()))
        .filter_map(|b| {
            let model = forge::steps::geometry::MODEL_EXTENSIONS
                .iter()
                .map(|x| models.join(format!("{}.{x}", b.id)))
                .find(|p| p.is_file())?;
            let bytes = mjolnir_files::bounded::read(&model, MAX_MODEL_BYTES).ok()?;
            let prefix = forge_gltf::HULL_PREFIX.as_bytes();
            let has_hulls = bytes.starts_with(&zstd) || bytes.windows(prefix.len()).any(|w| w == prefix);
            (!has_hulls).then(|| {
                crate::steps::finding(
                    "missing_geometry",
                    &model.display().to_string(),
                    format!("block {:?} has no collision hulls: source/geometry.json gives none, and this model has no UCX_ node; give the model UCX_ hulls (then `mjolnir forge suggest`) or write \"hulls\" in its entry", b.id),
                )
            })
        })
        .collect()
}

/// A warning for a model's textures: the cook keeps geometry, normals, UVs and material
/// slot names, and the game draws the donor's materials, so textures are not carried.
fn dropped_textures(model: &Path, bytes: &[u8]) -> Option<Diagnostic> {
    // A .glb's JSON is its first chunk: 12 bytes of header, then length, type, data.
    let json = if bytes.starts_with(b"glTF") {
        let length = u32::from_le_bytes(bytes.get(12..16)?.try_into().ok()?) as usize;
        bytes.get(20..20usize.checked_add(length)?)?
    } else {
        bytes
    };
    let value: serde_json::Value = serde_json::from_slice(json).ok()?;
    let images = value["images"].as_array().map_or(0, Vec::len);
    let textured: Vec<&str> = value["materials"]
        .as_array()?
        .iter()
        .filter(|m| {
            m["pbrMetallicRoughness"]["baseColorTexture"].is_object()
                || m["normalTexture"].is_object()
        })
        .filter_map(|m| m["name"].as_str())
        .collect();
    if images == 0 && textured.is_empty() {
        return None;
    }
    let mut warning = crate::steps::finding(
        "texture_dropped",
        &model.display().to_string(),
        format!(
            "{images} image(s) and textured materials {textured:?}: the cook keeps the geometry, normals, UVs and material slot names; the game draws the donor's materials, so these textures are not carried (docs/donors.md)"
        ),
    );
    warning.severity = forge_contract::Severity::Warning;
    Some(warning)
}
