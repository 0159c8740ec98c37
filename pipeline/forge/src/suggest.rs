//! `mjolnir forge suggest PACK_DIR BLOCK [--write]`: a block's geometry entry from its
//! model, so no hull is typed by hand. The hulls are the model's `UCX_` nodes (convex
//! meshes, Unreal's naming convention); supports are the hulls' flat tops; joins are
//! suggested where a top reaches an edge of the piece. With `--write`, the entry goes into
//! `source/geometry.json`, and a block the catalog lacks gets its catalog entry (sized
//! from the model) and its `bloc` row in `changes.json`.
//!
//! Writing merges and never deletes: a field the block's entry already has (a
//! hand-written aperture, supports tuned by hand) is kept, and only the fields it lacks
//! are added. `--replace FIELD` overwrites one field on purpose. What changes, field by
//! field, is printed before it is written.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Value};

/// The fields of a block's geometry entry that `--replace` may name.
pub const FIELDS: &[&str] = &[
    "origin",
    "hulls",
    "supports",
    "joins",
    "apertures",
    "connectors",
];

/// Prints the suggested entry; with `write` (the fields to replace), merges it into
/// `source/geometry.json`.
pub fn suggest(pack: &Path, block: &str, write: Option<&[String]>) -> Result<i32> {
    // The block names files in the pack and its entries: it must be an id, so no path
    // is built from `../` or a separator.
    if !forge_contract::ids::is_entry_id(block) {
        bail!(
            "error[bad_id]: {block:?} is not a block id: {}",
            forge_contract::ids::ENTRY_ID_RULE
        );
    }
    if let Some(unknown) = write
        .into_iter()
        .flatten()
        .find(|f| !FIELDS.contains(&f.as_str()))
    {
        bail!(
            "error[unknown_geometry_field]: --replace {unknown:?} is not a field of a geometry entry; use one of {}",
            FIELDS.join(", ")
        );
    }
    let (hulls, mesh, label) = read_model(pack, block)?;
    let (existing, origin) = existing_entry(pack, block);
    let entry = entry_from_model(block, &origin, &hulls, &mesh).ok_or_else(|| {
        anyhow!("error[mesh_empty]: {label} has no visual mesh besides its UCX_ hulls")
    })?;
    let bounds = mesh
        .bounds()
        .map(|(lo, hi)| [lo, hi])
        .expect("the entry has bounds");
    print!("{}", json_out::pretty_text(&entry));
    for warning in forge_contract::derive::warnings(&entry) {
        eprintln!("warning[suggest_incomplete]: {label}: {warning}");
    }
    if let (Some(existing), None) = (&existing, write) {
        print_sources(existing, &entry, &label);
    }
    if let Some(replace) = write {
        let changes = write_geometry(pack, block, &entry, replace)?;
        for change in &changes {
            eprintln!("  {change}");
        }
        add_to_catalog(pack, block, bounds)?;
        eprintln!(
            "wrote {block}'s geometry entry into {}",
            pack.join("source/geometry.json").display()
        );
    }
    Ok(0)
}

/// What writing a suggestion does to one field of an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldChange {
    Added(String),
    /// The entry's own value stays: it differs from the suggestion.
    Kept(String),
    Replaced(String),
    Same(String),
}

impl std::fmt::Display for FieldChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldChange::Added(k) => write!(f, "+ {k}: added from the model"),
            FieldChange::Kept(k) => write!(
                f,
                "= {k}: kept as written (the model suggests otherwise; --replace {k} takes the suggestion)"
            ),
            FieldChange::Replaced(k) => write!(f, "~ {k}: replaced by the suggestion (--replace)"),
            FieldChange::Same(k) => write!(f, "  {k}: as suggested"),
        }
    }
}

/// Merges `suggested` into `existing`: fields `existing` lacks are added, those in
/// `replace` overwritten, every other field of `existing` kept as it is.
pub fn merge(existing: &mut Value, suggested: &Value, replace: &[String]) -> Vec<FieldChange> {
    let mut changes = Vec::new();
    let (Some(old), Some(new)) = (existing.as_object_mut(), suggested.as_object()) else {
        return changes;
    };
    for (field, value) in new {
        let change = match old.get(field) {
            None => FieldChange::Added(field.clone()),
            Some(v) if v == value => FieldChange::Same(field.clone()),
            Some(_) if replace.contains(field) => FieldChange::Replaced(field.clone()),
            Some(_) => {
                changes.push(FieldChange::Kept(field.clone()));
                continue;
            }
        };
        old.insert(field.clone(), value.clone());
        changes.push(change);
    }
    changes
}

/// A block's geometry entry from its model: the `UCX_` hulls, and the visual mesh's
/// triangles and bounds. What `forge suggest` prints and what `block_geometry` fills an
/// entry in from; `None` when the model has no visual mesh.
pub fn entry_from_model(
    block: &str,
    origin: &str,
    hulls: &[forge_gltf::ModelHull],
    mesh: &forge_gltf::ImportedMesh,
) -> Option<Value> {
    let (lo, hi) = mesh.bounds()?;
    let parts: Vec<forge_contract::derive::Hull> = hulls
        .iter()
        .map(|h| forge_contract::derive::Hull {
            name: &h.name,
            material: &h.material,
            points: &h.points,
        })
        .collect();
    let at = |i: u32| mesh.positions.get(i as usize).copied();
    let triangles: Vec<[[f64; 3]; 3]> = mesh
        .triangles
        .iter()
        .filter_map(|t| Some([at(t[0])?, at(t[1])?, at(t[2])?]))
        .collect();
    Some(forge_contract::derive::entry(
        block,
        origin,
        &parts,
        &triangles,
        [lo, hi],
    ))
}

/// The largest model or pack document `suggest` reads.
const MAX_READ_BYTES: u64 = 1 << 30;

/// The block's one model: its `.gltf`, `.glb` or `.blend` (exported through Blender, as
/// the cook does), as a path and glTF bytes.
fn model_bytes(pack: &Path, block: &str) -> Result<(std::path::PathBuf, Vec<u8>)> {
    let models = pack.join("source/models");
    let found: Vec<std::path::PathBuf> = crate::steps::geometry::MODEL_EXTENSIONS
        .iter()
        .map(|x| models.join(format!("{block}.{x}")))
        .filter(|p| p.is_file())
        .collect();
    let file = match found.as_slice() {
        [] => bail!(
            "error[missing_model]: {} has no {block}.gltf, {block}.glb or {block}.blend",
            models.display()
        ),
        [one] => one.clone(),
        many => bail!(
            "error[two_models]: block {block:?} has {} models: {}; keep the one you edit and delete the others",
            many.len(),
            many.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" and ")
        ),
    };
    let bytes = mjolnir_files::bounded::read(&file, MAX_READ_BYTES)
        .with_context(|| format!("cannot read {}", file.display()))?;
    if file.extension().is_some_and(|x| x == "blend") {
        let glb = crate::blender::export(&bytes)
            .map_err(|e| anyhow!("error[blender_export]: {}: {e}", file.display()))?;
        return Ok((file, glb));
    }
    Ok((file, bytes))
}

/// The model's hulls and visual mesh, pack space, and the model's path as a label.
fn read_model(
    pack: &Path,
    block: &str,
) -> Result<(Vec<forge_gltf::ModelHull>, forge_gltf::ImportedMesh, String)> {
    let models = pack.join("source/models");
    let (file, bytes) = model_bytes(pack, block)?;
    let label = file.display().to_string();
    let mut external = BTreeMap::new();
    for uri in forge_gltf::external_uris(&label, &bytes).map_err(|e| anyhow!("{e}"))? {
        // As the cook does: a buffer is a file beside the model or below it, so a URI
        // that climbs out (or is absolute) is refused before any path is built from it.
        let rel = forge_gltf::uri_to_relative_path(&uri);
        if !crate::steps::is_plain_relative(&rel) {
            bail!("error[missing_buffer]: {label} names buffer {uri:?}, which is not a file beside the model or below it");
        }
        let path = models.join(&rel);
        external.insert(
            uri,
            mjolnir_files::bounded::read(&path, MAX_READ_BYTES).with_context(|| {
                format!("{label} names {}, which cannot be read", path.display())
            })?,
        );
    }
    let hulls =
        forge_gltf::collision_hulls(&label, &bytes, &external).map_err(|e| anyhow!("{e}"))?;
    if hulls.is_empty() {
        bail!("error[no_model_hulls]: {label} has no collision hulls: in Blender, add a convex mesh per hull named UCX_<name> (UCX_slab, UCX_rail) beside the visual mesh, and export again");
    }
    let mesh = forge_gltf::import(&label, &bytes, &external).map_err(|e| anyhow!("{e}"))?;
    Ok((hulls, mesh, label))
}

/// The block's entry in `geometry.json`, when it has one, and the origin it is derived
/// at: the entry's own, else the convention of the pack's first block.
fn existing_entry(pack: &Path, block: &str) -> (Option<Value>, String) {
    let value: Option<Value> =
        mjolnir_files::bounded::read_text(&pack.join("source/geometry.json"), MAX_READ_BYTES)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok());
    let blocks = value
        .as_ref()
        .map_or(&[][..], forge_contract::document::geometry_blocks);
    let entry = blocks.iter().find(|b| b["id"] == block).cloned();
    let origin = entry
        .iter()
        .chain(blocks.first())
        .find_map(|b| b["origin"].as_str())
        .unwrap_or("bottom_centre")
        .to_string();
    (entry, origin)
}

/// Which fields the cook takes from the entry and which from the model.
fn print_sources(entry: &Value, suggested: &Value, model: &str) {
    let (_, sources) = forge_contract::derive::merge_over(entry, Some(suggested));
    let from = |wanted: forge_contract::derive::FieldSource| {
        let fields: Vec<&str> = sources
            .iter()
            .filter(|(_, s)| *s == wanted)
            .map(|(f, _)| *f)
            .collect();
        if fields.is_empty() {
            "nothing".to_string()
        } else {
            fields.join(", ")
        }
    };
    eprintln!(
        "the cook takes {} from source/geometry.json and {} from {model}",
        from(forge_contract::derive::FieldSource::Entry),
        from(forge_contract::derive::FieldSource::Model)
    );
}

fn mm(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn read_json(path: &Path) -> Result<Value> {
    serde_json::from_str(
        &mjolnir_files::bounded::read_text(path, MAX_READ_BYTES)
            .with_context(|| format!("cannot read {}", path.display()))?,
    )
    .with_context(|| format!("{} is not JSON", path.display()))
}

fn write_json(path: &Path, value: &Value) -> Result<()> {
    let bytes = json_out::pretty(value);
    crate::atomic::write(path, &bytes).with_context(|| format!("cannot write {}", path.display()))
}

fn write_geometry(
    pack: &Path,
    block: &str,
    entry: &Value,
    replace: &[String],
) -> Result<Vec<FieldChange>> {
    let path = pack.join("source/geometry.json");
    let mut geometry = read_json(&path)?;
    let blocks = forge_contract::document::geometry_blocks_mut(&mut geometry)
        .ok_or_else(|| anyhow!("{} has no blocks list", path.display()))?;
    let changes = match blocks.iter_mut().find(|b| b["id"] == block) {
        Some(existing) => merge(existing, entry, replace),
        None => {
            blocks.push(entry.clone());
            vec![FieldChange::Added(format!("{block} (a new entry)"))]
        }
    };
    write_json(&path, &geometry)?;
    Ok(changes)
}

/// A block the catalog lacks: its entry, sized from the model, and its change row.
fn add_to_catalog(pack: &Path, block: &str, bounds: [[f64; 3]; 2]) -> Result<()> {
    let path = pack.join("mjolnir.json");
    let mut manifest = read_json(&path)?;
    let id = forge_contract::document::catalog_id(&manifest)
        .ok_or_else(|| anyhow!("{} has no forge_pack id", path.display()))?
        .to_string();
    let blocks = forge_contract::document::catalog_entries_mut(&mut manifest)
        .ok_or_else(|| anyhow!("{} has no blocks", path.display()))?;
    if blocks.iter().any(|b| b["id"] == block) {
        return Ok(());
    }
    let snap = blocks
        .first()
        .and_then(|b| b["snap_m"].as_f64())
        .unwrap_or(0.5);
    let [lo, hi] = bounds;
    let tag = forge_contract::ids::entry_tag(&id, block);
    let name: String = block
        .split('_')
        .map(|w| w[..1].to_uppercase() + &w[1..])
        .collect::<Vec<_>>()
        .join(" ");
    blocks.push(
        json!({"id": block, "name": name, "tag": tag, "category": "pieces",
        "dimensions_m": [mm(hi[0] - lo[0]), mm(hi[1] - lo[1]), mm(hi[2] - lo[2])], "snap_m": snap}),
    );
    write_json(&path, &manifest)?;
    let changes_path = pack.join("changes.json");
    if let Ok(mut changes) = read_json(&changes_path) {
        if let Some(tags) = changes["tags"].as_array_mut() {
            tags.push(json!({"group": "bloc", "tag": tag, "fields": []}));
            write_json(&changes_path, &changes)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merge_adds_what_is_missing_and_keeps_what_was_written() {
        let mut written = json!({"id": "wall", "origin": "bottom_centre",
            "hulls": [{"name": "hand"}],
            "apertures": [{"kind": "doorway", "width_m": 1.2}]});
        let suggested = json!({"id": "wall", "origin": "bottom_centre",
            "hulls": [{"name": "model"}], "supports": [{"z": 0.0}]});
        let changes = merge(&mut written, &suggested, &[]);
        assert_eq!(written["apertures"][0]["width_m"], 1.2, "never deleted");
        assert_eq!(written["hulls"][0]["name"], "hand");
        assert_eq!(written["supports"][0]["z"], 0.0);
        assert!(changes.contains(&FieldChange::Kept("hulls".into())));
        assert!(changes.contains(&FieldChange::Added("supports".into())));
        let changes = merge(&mut written, &suggested, &["hulls".to_string()]);
        assert_eq!(written["hulls"][0]["name"], "model");
        assert_eq!(written["apertures"][0]["kind"], "doorway");
        assert!(changes.contains(&FieldChange::Replaced("hulls".into())));
    }
}
