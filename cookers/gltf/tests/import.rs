//! Import of the stock models, hand-made documents for each feature, and broken inputs.

use std::collections::BTreeMap;
use std::path::PathBuf;

use base64::Engine;
use forge_gltf::{external_uris, import, ImportedMesh};
use serde_json::{json, Value};

fn packs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../forge-packs")
}

fn import_file(path: &std::path::Path) -> Result<ImportedMesh, forge_gltf::ImportError> {
    let bytes = std::fs::read(path).unwrap();
    let name = path.file_name().unwrap().to_str().unwrap();
    let mut external = BTreeMap::new();
    for uri in external_uris(name, &bytes)? {
        external.insert(
            uri.clone(),
            std::fs::read(path.with_file_name(&uri)).unwrap(),
        );
    }
    import(name, &bytes, &external)
}

#[test]
fn every_stock_model_imports_at_its_declared_size() {
    for pack in ["foundry", "foundry-wide", "roadworks"] {
        let manifest: Value = serde_json::from_str(
            &std::fs::read_to_string(packs().join(pack).join("mjolnir.json")).unwrap(),
        )
        .unwrap();
        for block in manifest["forge_pack"]["blocks"].as_array().unwrap() {
            let id = block["id"].as_str().unwrap();
            let models = packs().join(pack).join("source/models");
            let path = [
                models.join(format!("{id}.gltf")),
                models.join(format!("{id}.glb")),
            ]
            .into_iter()
            .find(|p| p.exists())
            .unwrap();
            let mesh = import_file(&path).unwrap_or_else(|e| panic!("{e}"));
            let (lo, hi) = mesh.bounds().unwrap();
            for axis in 0..3 {
                let declared = block["dimensions_m"][axis].as_f64().unwrap();
                let size = hi[axis] - lo[axis];
                assert!(
                    (size - declared).abs() < 1e-3,
                    "{pack}/{id} axis {axis}: mesh {size} m, declared {declared} m"
                );
            }
            if pack != "roadworks" {
                assert!(
                    lo[2].abs() < 1e-6,
                    "{pack}/{id}: bottom-centre origin has its lowest point at 0"
                );
                assert!(
                    (lo[0] + hi[0]).abs() < 1e-6 && (lo[1] + hi[1]).abs() < 1e-6,
                    "{pack}/{id} is not centred"
                );
            }
            assert!(!mesh.sections.is_empty());
            assert_eq!(mesh.normals.len(), mesh.positions.len());
        }
    }
}

/// A document with one buffer as a data URI, holding `positions` (f32) and optional
/// `indices` (u16).
fn doc(positions: &[[f32; 3]], indices: Option<&[u16]>, mode: u32, nodes: Value) -> Vec<u8> {
    let mut bin: Vec<u8> = positions
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let pos_len = bin.len();
    let mut lo = [f32::MAX; 3];
    let mut hi = [f32::MIN; 3];
    for p in positions {
        for i in 0..3 {
            lo[i] = lo[i].min(p[i]);
            hi[i] = hi[i].max(p[i]);
        }
    }
    let mut accessors = vec![
        json!({"bufferView": 0, "componentType": 5126, "count": positions.len(), "type": "VEC3", "min": lo, "max": hi}),
    ];
    let mut views = vec![json!({"buffer": 0, "byteOffset": 0, "byteLength": pos_len})];
    let mut prim = json!({"attributes": {"POSITION": 0}, "mode": mode, "material": 0});
    if let Some(idx) = indices {
        let bytes: Vec<u8> = idx.iter().flat_map(|i| i.to_le_bytes()).collect();
        views.push(json!({"buffer": 0, "byteOffset": pos_len, "byteLength": bytes.len()}));
        accessors.push(
            json!({"bufferView": 1, "componentType": 5123, "count": idx.len(), "type": "SCALAR"}),
        );
        prim["indices"] = json!(1);
        bin.extend(bytes);
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    );
    serde_json::to_vec(&json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "meshes": [{"name": "m", "primitives": [prim]}],
        "materials": [{"name": "slot_a"}],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": bin.len(), "uri": uri}]
    }))
    .unwrap()
}

const TRI: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

fn one_node() -> Value {
    json!([{"mesh": 0}])
}

#[test]
fn data_uri_and_axes() {
    let mesh = import("t.gltf", &doc(&TRI, None, 4, one_node()), &BTreeMap::new()).unwrap();
    // glTF (0, 1, 0) is up: pack (0, 0, 1).
    assert_eq!(mesh.positions[2], [0.0, 0.0, 1.0]);
    assert_eq!(mesh.sections[0].material, "slot_a");
    // Normals were absent and are computed: the triangle faces glTF +Z, pack -Y.
    assert!((mesh.normals[0][1] + 1.0).abs() < 1e-9);
}

#[test]
fn parented_rotated_scaled_nodes_land_where_blender_shows_them() {
    // Parent: translated 10 m along glTF X and rotated 90 degrees about glTF Y.
    // Child: scaled 2x and given as a matrix translating 1 m along glTF Y (up).
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let nodes = json!([
        {"translation": [10.0, 0.0, 0.0], "rotation": [0.0, s, 0.0, s], "children": [1]},
        {"matrix": [2.0,0.0,0.0,0.0, 0.0,2.0,0.0,0.0, 0.0,0.0,2.0,0.0, 0.0,1.0,0.0,1.0], "mesh": 0}
    ]);
    let mesh = import("t.gltf", &doc(&TRI, None, 4, nodes), &BTreeMap::new()).unwrap();
    // Vertex (1, 0, 0): scaled to (2, 0, 0), lifted to (2, 1, 0), rotated about Y by +90
    // degrees to (0, 1, -2), moved to (10, 1, -2); in pack space (10, 2, 1).
    let p = mesh.positions[1];
    for (got, want) in p.iter().zip([10.0, 2.0, 1.0]) {
        assert!((got - want).abs() < 1e-6, "{p:?}");
    }
}

#[test]
fn mirrored_nodes_keep_faces_front_facing() {
    let nodes = json!([{"scale": [-1.0, 1.0, 1.0], "mesh": 0}]);
    let mesh = import("t.gltf", &doc(&TRI, None, 4, nodes), &BTreeMap::new()).unwrap();
    assert_eq!(mesh.triangles[0], [0, 2, 1]);
}

#[test]
fn strips_and_fans_become_triangles() {
    let quad: [[f32; 3]; 4] = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
    ];
    let strip = import("t.gltf", &doc(&quad, None, 5, one_node()), &BTreeMap::new()).unwrap();
    assert_eq!(strip.triangles, vec![[0, 1, 2], [2, 1, 3]]);
    let fan = import(
        "t.gltf",
        &doc(&quad, Some(&[0, 1, 3, 2]), 6, one_node()),
        &BTreeMap::new(),
    )
    .unwrap();
    assert_eq!(fan.triangles, vec![[0, 1, 3], [0, 3, 2]]);
}

#[test]
fn refusals_have_codes() {
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("gltf_not_triangles", doc(&TRI, None, 0, one_node())),
        ("gltf_not_triangles", doc(&TRI, None, 1, one_node())),
        (
            "gltf_index_out_of_range",
            doc(&TRI, Some(&[0, 1, 7]), 4, one_node()),
        ),
        (
            "gltf_nan_position",
            doc(
                &[[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                None,
                4,
                one_node(),
            ),
        ),
        (
            "gltf_zero_area",
            doc(
                &[[0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]],
                None,
                4,
                one_node(),
            ),
        ),
        ("gltf_parse", b"{not json".to_vec()),
        ("gltf_parse", b"glTF\x02\x00\x00\x00".to_vec()),
    ];
    for (code, bytes) in cases {
        let err = import("t.gltf", &bytes, &BTreeMap::new()).unwrap_err();
        assert_eq!(err.code, code, "{err}");
        assert!(err.to_string().contains("t.gltf"));
    }
}

#[test]
fn sparse_accessors_are_refused() {
    let mut v: Value = serde_json::from_slice(&doc(&TRI, None, 4, one_node())).unwrap();
    v["accessors"][0]["sparse"] = json!({"count": 1, "indices": {"bufferView": 0, "componentType": 5125}, "values": {"bufferView": 0}});
    let err = import("t.gltf", &serde_json::to_vec(&v).unwrap(), &BTreeMap::new()).unwrap_err();
    assert!(
        err.message.contains("sparse") || err.code == "gltf_invalid",
        "{err}"
    );
}

#[test]
fn missing_and_truncated_buffers() {
    let models = packs().join("foundry/source/models");
    let gltf = std::fs::read(models.join("floor_2x2.gltf")).unwrap();
    let err = import("floor_2x2.gltf", &gltf, &BTreeMap::new()).unwrap_err();
    assert_eq!(err.code, "gltf_missing_buffer");
    let bin = std::fs::read(models.join("floor_2x2.bin")).unwrap();
    let short = BTreeMap::from([("floor_2x2.bin".to_string(), bin[..bin.len() / 2].to_vec())]);
    assert_eq!(
        import("floor_2x2.gltf", &gltf, &short).unwrap_err().code,
        "gltf_truncated_buffer"
    );
    let glb = std::fs::read(packs().join("roadworks/source/models/road_straight_5.glb")).unwrap();
    for cut in (0..glb.len()).step_by(97) {
        assert!(import("road_straight_5.glb", &glb[..cut], &BTreeMap::new()).is_err());
    }
}

/// Files written by Blender's own exporter (`tools/blender/export_fixtures.py`, bpy 5.0):
/// a parented, rotated and unevenly scaled hierarchy lands where Blender shows it.
#[test]
fn blender_exports_land_where_blender_shows_them() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/blender");
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    for file in ["hierarchy.gltf", "hierarchy.glb"] {
        let mesh = import_file(&dir.join(file)).unwrap_or_else(|e| panic!("{e}"));
        for (object, verts) in expected["objects"].as_object().unwrap() {
            for v in verts.as_array().unwrap() {
                let want: Vec<f64> = v
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_f64().unwrap())
                    .collect();
                let found = mesh
                    .positions
                    .iter()
                    .any(|p| (0..3).all(|i| (p[i] - want[i]).abs() < 1e-5));
                assert!(
                    found,
                    "{file}: {object} vertex {want:?} is not where Blender shows it"
                );
            }
        }
        let (lo, hi) = mesh.bounds().unwrap();
        for i in 0..3 {
            assert!(
                (lo[i] - expected["bounds_m"]["min"][i].as_f64().unwrap()).abs() < 1e-5,
                "{file} min {i}"
            );
            assert!(
                (hi[i] - expected["bounds_m"]["max"][i].as_f64().unwrap()).abs() < 1e-5,
                "{file} max {i}"
            );
        }
        let materials: std::collections::BTreeSet<&str> =
            mesh.sections.iter().map(|s| s.material.as_str()).collect();
        assert_eq!(
            materials.into_iter().collect::<Vec<_>>(),
            ["paint", "steel"],
            "{file}"
        );
        // Blender writes normals; every imported normal is a unit vector.
        assert!(mesh
            .normals
            .iter()
            .all(|n| ((n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt() - 1.0).abs() < 1e-4));
    }
}

#[test]
fn a_model_past_the_vertex_budget_is_refused_before_it_is_built() {
    // One accessor of 1,002 vertices placed by 1,100 nodes: 1.1 million vertices.
    let positions: Vec<[f32; 3]> = (0..1002).map(|i| [i as f32, (i % 3) as f32, 0.0]).collect();
    let children: Vec<usize> = (1..=1100).collect();
    let mut nodes = vec![json!({"children": children})];
    nodes.extend((0..1100).map(|_| json!({"mesh": 0})));
    let err = import(
        "big.gltf",
        &doc(&positions, None, 4, json!(nodes)),
        &BTreeMap::new(),
    )
    .unwrap_err();
    assert_eq!(err.code, "gltf_too_large");
}
