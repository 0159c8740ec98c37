//! `mjolnir forge new <id>`: a pack that cooks the first time. One block in the chosen
//! style (a Foundry floor with its origin at the bottom centre, or a Roadworks straight
//! with its origin on the road at the entry), its model (a glTF with the buffer embedded),
//! its collision, supports, joins or connectors, the change list, a README, the Blender
//! export script with the pipeline's fixed settings, and the `pipeline.toml` entry.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use base64::Engine;
use serde_json::{json, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Style {
    Foundry,
    Roadworks,
}

/// The one block of a new pack: its id, catalog entry parts and geometry entry.
struct Block {
    id: &'static str,
    name: &'static str,
    category: &'static str,
    /// The box it is, pack space: `[min, max]`.
    bounds: [[f64; 3]; 2],
    geometry: Value,
    snap_m: f64,
}

fn block(style: Style) -> Block {
    match style {
        Style::Foundry => Block {
            id: "floor_2x2",
            name: "Floor 2 x 2",
            category: "floors",
            bounds: [[-2.0, -2.0, 0.0], [2.0, 2.0, 0.5]],
            snap_m: 0.5,
            geometry: json!({
                "origin": "bottom_centre",
                "supports": [{"name": "top", "min_m": [-1.9, -1.9], "max_m": [1.9, 1.9], "height_m": 0.5}],
                "joins": [{"name": "east", "edge": "+x", "height_m": 0.5}, {"name": "west", "edge": "-x", "height_m": 0.5},
                          {"name": "north", "edge": "+y", "height_m": 0.5}, {"name": "south", "edge": "-y", "height_m": 0.5}],
            }),
        },
        Style::Roadworks => Block {
            id: "road_straight_10",
            name: "Straight 10",
            category: "straights",
            bounds: [[0.0, -6.5, -0.5], [10.0, 6.5, 0.0]],
            snap_m: 1.0,
            geometry: json!({
                "origin": "entry_floor",
                "supports": [{"name": "lane", "min_m": [0.2, -6.0], "max_m": [9.8, 6.0], "height_m": 0.0}],
                "connectors": {"entry": {"position_m": [0.0, 0.0, 0.0], "heading_deg": 0.0},
                               "exit": {"position_m": [10.0, 0.0, 0.0], "heading_deg": 0.0}},
            }),
        },
    }
}

pub fn new_pack(id: &str, style: Style, parent: &Path) -> Result<i32> {
    if !forge_contract::ids::is_pack_id(id) {
        bail!(
            "error[bad_pack_id]: {id:?} is not a pack id: {}",
            forge_contract::ids::PACK_ID_RULE
        );
    }
    let dir = parent.join(id);
    if dir.exists() {
        bail!(
            "error[pack_exists]: {} already exists; nothing was written",
            dir.display()
        );
    }
    let b = block(style);
    let tag = forge_contract::ids::entry_tag(id, b.id);
    let [lo, hi] = b.bounds;
    let dimensions = [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]];
    let title: String = id
        .split(['-', '_'])
        .map(capitalize)
        .collect::<Vec<_>>()
        .join(" ");
    let manifest = json!({
        "schema_version": 1, "name": title, "version": "0.1.0", "type": "content", "slug": id,
        "summary": format!("{title}: community Forge pieces"),
        "forge_pack": {"schema_version": 1, "id": id, "blocks": [{
            "id": b.id, "name": b.name, "tag": tag, "category": b.category,
            "dimensions_m": dimensions, "snap_m": b.snap_m,
        }]},
    });
    let mut entry = b.geometry.clone();
    entry["id"] = json!(b.id);
    entry["hulls"] = json!([{"name": "body", "material": "steel", "points": box_points(lo, hi)}]);
    let geometry = json!({"schema_version": 1, "pack": id, "blocks": [entry]});
    let changes = json!({"schema_version": 1, "tags": [{"group": "bloc", "tag": tag, "fields": []}], "textures": [], "scripts": []});
    write(&dir.join("mjolnir.json"), &pretty(&manifest))?;
    write(&dir.join("source/geometry.json"), &pretty(&geometry))?;
    write(
        &dir.join(format!("source/models/{}.gltf", b.id)),
        &pretty(&box_gltf(b.id, lo, hi)),
    )?;
    write(&dir.join("changes.json"), &pretty(&changes))?;
    write(&dir.join("README.md"), readme(&title, id, b.id).as_bytes())?;
    write(&dir.join("tools/export_gltf.py"), EXPORT_SCRIPT.as_bytes())?;
    let config = add_to_config(parent, id)?;
    println!(
        "wrote {} with block {}; {} now builds it: run `mjolnir forge cook --pack {id}`",
        dir.display(),
        b.id,
        config.display()
    );
    Ok(0)
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

fn pretty(value: &Value) -> Vec<u8> {
    json_out::pretty(value)
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::atomic::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

fn box_points(lo: [f64; 3], hi: [f64; 3]) -> Vec<[f64; 3]> {
    let mut points = Vec::new();
    for z in [lo[2], hi[2]] {
        for y in [lo[1], hi[1]] {
            for x in [lo[0], hi[0]] {
                points.push([x, y, z]);
            }
        }
    }
    points
}

/// A box as glTF (Y up, metres): pack `(x, y, z)` is glTF `(x, z, -y)`. Four corners and
/// one normal per face, wound counter-clockwise from outside; the buffer embedded. The box
/// is also the block's collision hull, a `UCX_` node (`mjolnir forge suggest` reads it).
fn box_gltf(name: &str, lo: [f64; 3], hi: [f64; 3]) -> Value {
    let (min, max) = ([lo[0], lo[2], -hi[1]], [hi[0], hi[2], -lo[1]]);
    let centre = [0, 1, 2].map(|k| (min[k] + max[k]) / 2.0);
    let half = [0, 1, 2].map(|k| (max[k] - min[k]) / 2.0);
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut normals: Vec<[f32; 3]> = Vec::new();
    let mut indices: Vec<u16> = Vec::new();
    // (normal axis, sign): u and v are chosen so that u x v points along the normal.
    for (axis, sign) in [
        (0, 1.0),
        (0, -1.0),
        (1, 1.0),
        (1, -1.0),
        (2, 1.0),
        (2, -1.0),
    ] {
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        let (u, v) = if sign > 0.0 { (u, v) } else { (v, u) };
        let base = positions.len() as u16;
        for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let mut p = centre;
            p[axis] += sign * half[axis];
            p[u] += su * half[u];
            p[v] += sv * half[v];
            positions.push(p.map(|c| c as f32));
            let mut n = [0.0f32; 3];
            n[axis] = sign as f32;
            normals.push(n);
        }
        indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    let mut bytes: Vec<u8> = positions
        .iter()
        .flatten()
        .chain(normals.iter().flatten())
        .flat_map(|c| c.to_le_bytes())
        .collect();
    let index_at = bytes.len();
    bytes.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
    let n = positions.len();
    json!({
        "asset": {"version": "2.0", "generator": "mjolnir forge new"},
        "scene": 0, "scenes": [{"nodes": [0, 1]}],
        // The same box is the visual mesh and, as a UCX_ node, its collision hull.
        "nodes": [{"mesh": 0, "name": name}, {"mesh": 0, "name": "UCX_body"}],
        "materials": [{"name": "steel"}],
        "meshes": [{"name": name, "primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2, "material": 0}]}],
        "buffers": [{"byteLength": bytes.len(), "uri": format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&bytes))}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": n * 12, "target": 34962},
            {"buffer": 0, "byteOffset": n * 12, "byteLength": n * 12, "target": 34962},
            {"buffer": 0, "byteOffset": index_at, "byteLength": indices.len() * 2, "target": 34963},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3", "min": min, "max": max},
            {"bufferView": 1, "componentType": 5126, "count": n, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5123, "count": indices.len(), "type": "SCALAR"},
        ],
    })
}

/// Adds the pack to `pipeline.toml` in `parent`, or writes one that builds it.
fn add_to_config(parent: &Path, id: &str) -> Result<PathBuf> {
    let path = parent.join("pipeline.toml");
    let entry = format!("\n[[pack]]\nid = \"{id}\"\npath = \"{id}\"\n");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text + &entry,
        Err(_) => format!("# Made by `mjolnir forge new`; see README.md for the settings.\n[build]\nout = \"build\"\n{entry}"),
    };
    write(&path, text.as_bytes())?;
    Ok(path)
}

fn readme(title: &str, id: &str, block: &str) -> String {
    format!(
        "# {title}\n\nA Forge pack made by `mjolnir forge new`. It cooks as it is: `mjolnir forge cook --pack {id}`.\n\n\
         ## Adding a block\n\n\
         1. Model it in Blender in metres, with its origin where the catalog's origin convention puts it. Model\n   \
            each collision hull as a convex mesh named `UCX_<name>` beside the visual mesh.\n\
         2. Save it as `source/models/<block>.blend`, or export it (fixed settings, Blender or `pip install bpy`):\n   \
            `python3 tools/export_gltf.py MODEL.blend source/models/<block>.gltf`.\n\
         3. `mjolnir forge suggest . <block> --write` (from this folder): its geometry entry, catalog entry and\n   \
            `bloc` row in `changes.json`, from the model. Each field the entry in `source/geometry.json` gives\n   \
            overrides the model's; leave out what the model should decide. `source/models/{block}.gltf`\n   \
            (with its `UCX_body` hull) and its entry are a worked example.\n\
         4. `mjolnir forge cook --pack {id}`; every problem is reported with the file and what to change.\n\n\
         `docs/authoring.md` in the pipeline's repository walks from Blender to a signed archive, a map and a\n\
         player.\n"
    )
}

/// Blender's glTF export with the settings the pipeline expects: metres, +Y up, no
/// animation, textures kept beside the file. Runs inside Blender or with `bpy` alone.
const EXPORT_SCRIPT: &str = r#"# Export a .blend to glTF with the settings the pipeline expects.
#   python3 tools/export_gltf.py MODEL.blend OUT.gltf          (with `pip install bpy`)
#   blender --background MODEL.blend --python tools/export_gltf.py -- OUT.gltf
# The pipeline expects metres (Scene > Units > Unit Scale 1.0), +Y up, and one mesh per
# block, with its collision hulls as UCX_<name> meshes beside it.
import os
import sys

import bpy

if "--" in sys.argv:
    out = sys.argv[sys.argv.index("--") + 1]
else:
    source, out = sys.argv[1], sys.argv[2]
    bpy.ops.wm.open_mainfile(filepath=source)
bpy.ops.export_scene.gltf(
    filepath=out,
    export_format="GLTF_SEPARATE",
    export_yup=True,
    export_apply=True,
    export_animations=False,
    export_cameras=False,
    export_lights=False,
)
sys.stdout.flush()
# bpy as a module can crash while tearing down after opening a file; the export is done.
os._exit(0)
"#;
