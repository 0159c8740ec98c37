//! `mjolnir forge suggest PACK_DIR BLOCK [--write]`: a block's geometry entry from its
//! model, so no hull is typed by hand. The hulls are the model's `UCX_` nodes (convex
//! meshes, Unreal's naming convention); supports are the hulls' flat tops; joins are
//! suggested where a top reaches an edge of the piece. With `--write`, the entry goes into
//! `source/geometry.json` (replacing the block's), and a block the catalog lacks gets its
//! catalog entry (sized from the model) and its `bloc` row in `changes.json`.
//! `geometry.json` stays the override: edit what was written as you like.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Value};

pub fn suggest(pack: &Path, block: &str, write: bool) -> Result<i32> {
    let (hulls, bounds) = read_model(pack, block)?;
    let origin = existing_origin(pack).unwrap_or_else(|| "bottom_centre".into());
    let entry = entry_from_hulls(block, &origin, &hulls, bounds);
    print!("{}", json_out::pretty_text(&entry));
    if write {
        write_geometry(pack, block, &entry)?;
        add_to_catalog(pack, block, bounds)?;
        eprintln!(
            "wrote {block}'s geometry entry into {}",
            pack.join("source/geometry.json").display()
        );
    }
    Ok(0)
}

/// The model's hulls and the visual mesh's bounds, pack space.
/// A block's geometry entry from its model's `UCX_` hulls and the mesh's bounds: what
/// `forge suggest` prints and what the `geometry` step derives for a block left out.
pub fn entry_from_hulls(
    block: &str,
    origin: &str,
    hulls: &[forge_gltf::ModelHull],
    bounds: [[f64; 3]; 2],
) -> Value {
    let parts: Vec<forge_contract::derive::Hull> = hulls
        .iter()
        .map(|h| forge_contract::derive::Hull {
            name: &h.name,
            material: &h.material,
            points: &h.points,
        })
        .collect();
    forge_contract::derive::entry(block, origin, &parts, bounds)
}

fn read_model(pack: &Path, block: &str) -> Result<(Vec<forge_gltf::ModelHull>, [[f64; 3]; 2])> {
    let models = pack.join("source/models");
    let (file, bytes) = ["glb", "gltf"]
        .iter()
        .map(|x| models.join(format!("{block}.{x}")))
        .find_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .ok_or_else(|| {
            anyhow!(
                "error[missing_model]: {} has no {block}.gltf or {block}.glb",
                models.display()
            )
        })?;
    let label = file.display().to_string();
    let mut external = BTreeMap::new();
    for uri in forge_gltf::external_uris(&label, &bytes).map_err(|e| anyhow!("{e}"))? {
        let path = models.join(&uri);
        external.insert(
            uri,
            std::fs::read(&path).with_context(|| {
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
    let bounds = mesh.bounds().ok_or_else(|| {
        anyhow!("error[mesh_empty]: {label} has no visual mesh besides its hulls")
    })?;
    Ok((hulls, [bounds.0, bounds.1]))
}

/// The origin convention of the pack's blocks so far.
fn existing_origin(pack: &Path) -> Option<String> {
    let text = std::fs::read_to_string(pack.join("source/geometry.json")).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    forge_contract::document::geometry_blocks(&value).first()?["origin"]
        .as_str()
        .map(str::to_string)
}

fn mm(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn read_json(path: &Path) -> Result<Value> {
    serde_json::from_str(
        &std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?,
    )
    .with_context(|| format!("{} is not JSON", path.display()))
}

fn write_json(path: &Path, value: &Value) -> Result<()> {
    let bytes = json_out::pretty(value);
    crate::atomic::write(path, &bytes).with_context(|| format!("cannot write {}", path.display()))
}

fn write_geometry(pack: &Path, block: &str, entry: &Value) -> Result<()> {
    let path = pack.join("source/geometry.json");
    let mut geometry = read_json(&path)?;
    let blocks = forge_contract::document::geometry_blocks_mut(&mut geometry)
        .ok_or_else(|| anyhow!("{} has no blocks list", path.display()))?;
    match blocks.iter_mut().find(|b| b["id"] == block) {
        Some(existing) => *existing = entry.clone(),
        None => blocks.push(entry.clone()),
    }
    write_json(&path, &geometry)
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
