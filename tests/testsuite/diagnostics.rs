//! Each finding points at the thing to fix: the file that declares the value (a size in
//! `mjolnir.json`; a hull from the model at the model's node), the glTF that names a
//! missing buffer, full file names, and each finding once.

use std::path::Path;
use std::process::{Command, Output};

use base64::Engine;
use serde_json::{json, Value};

/// A mesh for [`gltf`]: its node name, glTF (Y-up) positions and triangle indices.
struct Part {
    name: &'static str,
    positions: Vec<[f32; 3]>,
    indices: Vec<u16>,
}

/// A 2 x 0.5 x 2 m box (glTF axes) standing on the origin.
fn slab_positions() -> Vec<[f32; 3]> {
    (0..8)
        .map(|k| {
            [
                if k & 1 == 0 { -1.0 } else { 1.0 },
                if k & 2 == 0 { 0.0 } else { 0.5 },
                if k & 4 == 0 { -1.0 } else { 1.0 },
            ]
        })
        .collect()
}

const SLAB_TRIANGLES: [u16; 36] = [
    0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5,
    7, 1, 7, 3,
];

fn slab(name: &'static str) -> Part {
    Part {
        name,
        positions: slab_positions(),
        indices: SLAB_TRIANGLES.to_vec(),
    }
}

/// A glTF of `parts`, one node each, with its buffer embedded or, given `bin`, beside it.
fn gltf(parts: &[Part], bin: Option<&str>) -> (Value, Vec<u8>) {
    let (mut bytes, mut views, mut accessors, mut meshes, mut nodes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, part) in parts.iter().enumerate() {
        let start = bytes.len();
        part.positions
            .iter()
            .flatten()
            .for_each(|c| bytes.extend(c.to_le_bytes()));
        views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": bytes.len() - start, "target": 34962}));
        let lo = [0, 1, 2].map(|k| part.positions.iter().map(|p| p[k]).fold(f32::MAX, f32::min));
        let hi = [0, 1, 2].map(|k| part.positions.iter().map(|p| p[k]).fold(f32::MIN, f32::max));
        accessors.push(json!({"bufferView": views.len() - 1, "componentType": 5126, "count": part.positions.len(), "type": "VEC3", "min": lo, "max": hi}));
        let start = bytes.len();
        part.indices
            .iter()
            .for_each(|i| bytes.extend(i.to_le_bytes()));
        views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": bytes.len() - start, "target": 34963}));
        while bytes.len() % 4 != 0 {
            bytes.push(0);
        }
        accessors.push(json!({"bufferView": views.len() - 1, "componentType": 5123, "count": part.indices.len(), "type": "SCALAR"}));
        meshes.push(json!({"name": part.name, "primitives": [{"attributes": {"POSITION": 2 * i}, "indices": 2 * i + 1, "material": 0}]}));
        nodes.push(json!({"mesh": i, "name": part.name}));
    }
    let uri = match bin {
        Some(name) => name.to_string(),
        None => format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bytes)
        ),
    };
    let doc = json!({"asset": {"version": "2.0"}, "scene": 0,
        "scenes": [{"nodes": (0..parts.len()).collect::<Vec<_>>()}], "nodes": nodes,
        "materials": [{"name": "steel"}], "meshes": meshes, "accessors": accessors,
        "bufferViews": views, "buffers": [{"byteLength": bytes.len(), "uri": uri}]});
    (doc, bytes)
}

struct Kit(tempfile::TempDir);

impl Kit {
    fn new() -> Kit {
        let kit = Kit(tempfile::tempdir().unwrap());
        assert!(kit.run(&["forge", "new", "kit"]).status.success());
        kit
    }

    fn path(&self, rel: &str) -> std::path::PathBuf {
        self.0.path().join(rel)
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_mjolnir"))
            .args(args)
            .current_dir(self.0.path())
            .env("MJOLNIR_CONFIG_DIR", self.0.path().join("config"))
            .output()
            .unwrap()
    }

    /// A failing cook's stderr.
    fn failing_cook(&self) -> String {
        let out = self.run(&["forge", "cook"]);
        let said = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(1), "{said}");
        said
    }

    fn edit_json(&self, rel: &str, edit: impl FnOnce(&mut Value)) {
        let path = self.path(rel);
        let mut value: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        edit(&mut value);
        std::fs::write(&path, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    }

    /// Adds block `id` from `model` with `forge suggest --write`, then leaves its entry
    /// only its id and origin, so the rest comes from the model.
    fn add_from_model(&self, id: &str, model: &Value) {
        let path = self.path(&format!("kit/source/models/{id}.gltf"));
        std::fs::write(&path, serde_json::to_vec(model).unwrap()).unwrap();
        let out = self.run(&["forge", "suggest", "kit", id, "--write"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.edit_json("kit/source/geometry.json", |g| {
            for b in g["blocks"].as_array_mut().unwrap() {
                if b["id"] == id {
                    *b = json!({"id": id, "origin": "bottom_centre"});
                }
            }
        });
    }
}

/// The lines of `said` that report `code`.
fn lines_with<'a>(said: &'a str, code: &str) -> Vec<&'a str> {
    let tag = format!("error[{code}]");
    said.lines().filter(|l| l.contains(&tag)).collect()
}

#[test]
fn a_hull_from_the_model_that_is_not_convex_is_named_at_its_node_in_the_model_once() {
    let kit = Kit::new();
    // The hull's top is dented: its centre point sits inside the box.
    let mut dented = slab("UCX_dent");
    dented.positions.push([0.0, 0.25, 0.0]);
    dented
        .indices
        .splice(6..12, [4, 6, 8, 6, 7, 8, 7, 5, 8, 5, 4, 8]);
    let (model, _) = gltf(&[slab("dented"), dented], None);
    kit.add_from_model("dented", &model);
    let said = kit.failing_cook();
    let found = lines_with(&said, "hull_not_convex");
    assert_eq!(found.len(), 1, "once: {said}");
    assert!(
        found[0].contains("kit/source/models/dented.gltf") && found[0].contains("UCX_dent"),
        "{said}"
    );
    assert!(!found[0].contains("geometry.json"), "{said}");
}

#[test]
fn a_size_that_differs_points_at_the_catalogs_dimensions() {
    let kit = Kit::new();
    kit.edit_json("kit/mjolnir.json", |m| {
        m["forge_pack"]["blocks"][0]["dimensions_m"] = json!([4.0, 4.0, 0.75]);
    });
    let said = kit.failing_cook();
    let found = lines_with(&said, "size_mismatch");
    assert_eq!(found.len(), 1, "{said}");
    let text = std::fs::read_to_string(kit.path("kit/mjolnir.json")).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("\"dimensions_m\""))
        .unwrap()
        + 1;
    assert!(
        found[0].contains(&format!("kit/mjolnir.json:{line}:"))
            && found[0].contains("at /forge_pack/blocks/0/dimensions_m"),
        "{said}"
    );
}

#[test]
fn a_missing_buffer_is_blamed_on_the_gltf_that_names_it() {
    let kit = Kit::new();
    let (model, bytes) = gltf(&[slab("slab"), slab("UCX_slab")], Some("slab.bin"));
    std::fs::write(kit.path("kit/source/models/slab.bin"), bytes).unwrap();
    kit.add_from_model("slab", &model);
    assert!(kit.run(&["forge", "cook"]).status.success());
    std::fs::remove_file(kit.path("kit/source/models/slab.bin")).unwrap();
    let said = kit.failing_cook();
    let found = lines_with(&said, "missing_source");
    assert!(!found.is_empty(), "{said}");
    for line in found {
        assert!(
            line.contains("kit/source/models/slab.bin")
                && line.contains("kit/source/models/slab.gltf names it")
                && !line.contains("floor_2x2"),
            "{said}"
        );
    }
}

#[test]
fn an_export_mistake_names_the_model_with_its_extension() {
    let kit = Kit::new();
    kit.edit_json("kit/source/models/floor_2x2.gltf", |g| {
        g["nodes"][0]["scale"] = json!([100.0, 100.0, 100.0]);
    });
    let said = kit.failing_cook();
    let found = lines_with(&said, "model_in_centimetres");
    assert_eq!(found.len(), 1, "{said}");
    assert!(
        found[0].contains("kit/source/models/floor_2x2.gltf:")
            || found[0].contains("kit/source/models/floor_2x2.gltf "),
        "{said}"
    );
}

#[test]
fn a_block_with_two_models_is_refused_naming_both() {
    let kit = Kit::new();
    let models = kit.path("kit/source/models");
    std::fs::copy(models.join("floor_2x2.gltf"), models.join("floor_2x2.glb")).unwrap();
    let said = kit.failing_cook();
    let found = lines_with(&said, "two_models");
    assert_eq!(found.len(), 1, "{said}");
    assert!(
        found[0].contains("source/models/floor_2x2.glb")
            && found[0].contains("source/models/floor_2x2.gltf"),
        "{said}"
    );
    let out = kit.run(&["forge", "suggest", "kit", "floor_2x2"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[two_models]"));
    assert!(Path::new(&models).is_dir());
}

#[test]
fn a_block_without_its_change_row_is_refused_by_cook_and_pack() {
    let kit = Kit::new();
    assert!(kit.run(&["forge", "cook"]).status.success());
    kit.edit_json("kit/changes.json", |c| c["tags"] = json!([]));
    let said = kit.failing_cook();
    let found = lines_with(&said, "missing_change_row");
    assert_eq!(found.len(), 1, "{said}");
    assert!(
        found[0].contains("kit/changes.json at /tags") && found[0].contains("floor_2x2"),
        "{said}"
    );
    let out = kit.run(&[
        "forge",
        "pack",
        "kit/mjolnir.json",
        "--content",
        "build/game/kit/all/content",
        "--changes",
        "kit/changes.json",
        "--out",
        "kit.mjolnir",
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("error[missing_change_row]: kit/changes.json at /tags"),
        "{said}"
    );
    assert!(!kit.path("kit.mjolnir").exists());
}

#[test]
fn suggest_refuses_a_buffer_uri_that_climbs_out_of_the_models_folder() {
    let kit = Kit::new();
    let (model, bytes) = gltf(
        &[slab("slab"), slab("UCX_slab")],
        Some("../../../outside.bin"),
    );
    // The file it names is there: suggest must refuse the name, not fail to find it.
    std::fs::write(kit.path("outside.bin"), bytes).unwrap();
    let path = kit.path("kit/source/models/slab.gltf");
    std::fs::write(&path, serde_json::to_vec(&model).unwrap()).unwrap();
    let out = kit.run(&["forge", "suggest", "kit", "slab"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("error[missing_buffer]") && said.contains("outside.bin"),
        "{said}"
    );
}

#[test]
fn suggest_refuses_a_block_name_that_is_not_an_id_before_reading_anything() {
    let kit = Kit::new();
    std::fs::write(kit.path("outside.gltf"), b"{}").unwrap();
    for block in ["../../outside", "a/b", "Wall"] {
        let out = kit.run(&["forge", "suggest", "kit", block, "--write"]);
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && said.contains("error[bad_id]"),
            "{block}: {said}"
        );
    }
}
