//! The checked-in stock packs satisfy the contract and their JSON Schemas.

use std::path::PathBuf;

use forge_contract::{parse_geometry, parse_manifest};

fn pack_dir(id: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../forge-packs")
        .join(id)
}

const PACKS: [(&str, usize); 3] = [("foundry", 20), ("foundry-wide", 18), ("roadworks", 12)];

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn stock_packs_validate_cleanly() {
    for (id, min_blocks) in PACKS {
        let dir = pack_dir(id);
        let (manifest, warnings) = parse_manifest("mjolnir.json", &read(dir.join("mjolnir.json")))
            .unwrap_or_else(|d| panic!("{id}: {d:#?}"));
        assert!(warnings.is_empty(), "{id}: {warnings:#?}");
        assert_eq!(manifest.version.to_string(), "0.2.0");
        let catalog = manifest.catalog().expect("a forge pack");
        assert_eq!(catalog.id, id);
        assert!(
            catalog.blocks.len() >= min_blocks,
            "{id} has {} blocks",
            catalog.blocks.len()
        );
        let (geometry, warnings) = parse_geometry(
            "geometry.json",
            &read(dir.join("source/geometry.json")),
            catalog,
        )
        .unwrap_or_else(|d| panic!("{id}: {d:#?}"));
        assert!(warnings.is_empty());
        assert_eq!(geometry.blocks.len(), catalog.blocks.len());
    }
}

#[test]
fn foundry_floor_2x2_is_the_seed_example() {
    let text = read(pack_dir("foundry").join("mjolnir.json"));
    let (manifest, _) = parse_manifest("mjolnir.json", &text).unwrap();
    let floor = manifest.catalog().unwrap().entry("floor_2x2").unwrap();
    assert_eq!(floor.dimensions_m, [4.0, 4.0, 0.5]);
    assert_eq!(floor.snap_m, Some(0.5));
    assert_eq!(floor.tag, "objects\\mjolnir\\forge\\foundry\\floor_2x2");
}

#[test]
fn stock_pack_features_are_present() {
    let foundry = parse_manifest("m", &read(pack_dir("foundry").join("mjolnir.json")))
        .unwrap()
        .0;
    assert!(foundry
        .catalog()
        .unwrap()
        .blocks
        .iter()
        .any(|b| b.light.is_some()));
    let wide = parse_manifest("m", &read(pack_dir("foundry-wide").join("mjolnir.json")))
        .unwrap()
        .0;
    let blocks = &wide.catalog().unwrap().blocks;
    assert!(blocks.iter().any(|b| b.lift.is_some()));
    assert!(blocks.iter().any(|b| b.door.is_some()));
    assert!(blocks.iter().any(|b| b
        .surfaces
        .iter()
        .any(|s| s.profile == forge_contract::manifest::SurfaceProfile::Glass)));
    assert!(blocks.iter().any(|b| b
        .surfaces
        .iter()
        .any(|s| s.profile == forge_contract::manifest::SurfaceProfile::Portal)));
}

fn schema(name: &str) -> jsonschema::Validator {
    let text = read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../schemas")
            .join(name),
    );
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

#[test]
fn stock_packs_match_the_json_schemas() {
    let manifest_schema = schema("mjolnir.schema.json");
    let geometry_schema = schema("geometry.schema.json");
    for (id, _) in PACKS {
        let dir = pack_dir(id);
        let manifest: serde_json::Value =
            serde_json::from_str(&read(dir.join("mjolnir.json"))).unwrap();
        let errors: Vec<String> = manifest_schema
            .iter_errors(&manifest)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{id} mjolnir.json: {errors:#?}");
        let geometry: serde_json::Value =
            serde_json::from_str(&read(dir.join("source/geometry.json"))).unwrap();
        let errors: Vec<String> = geometry_schema
            .iter_errors(&geometry)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{id} geometry.json: {errors:#?}");
    }
}

#[test]
fn the_schemas_refuse_what_the_validator_refuses() {
    let manifest_schema = schema("mjolnir.schema.json");
    let good: serde_json::Value =
        serde_json::from_str(&read(pack_dir("foundry").join("mjolnir.json"))).unwrap();
    let mut with_kind = good.clone();
    with_kind["forge_pack"]["blocks"][0]["kind"] = serde_json::json!("block");
    assert!(manifest_schema.is_valid(&with_kind));
    with_kind["forge_pack"]["blocks"][0]["kind"] = serde_json::json!("weapon");
    assert!(!manifest_schema.is_valid(&with_kind));
    let breakers: [(&str, serde_json::Value); 4] = [
        ("/forge_pack/blocks/0/dimensions_m/0", serde_json::json!(0)),
        ("/forge_pack/blocks/0/id", serde_json::json!("Floor")),
        ("/version", serde_json::json!("0.2")),
        ("/schema_version", serde_json::json!(2)),
    ];
    for (pointer, value) in breakers {
        let mut bad = good.clone();
        *bad.pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer}")) = value;
        assert!(!manifest_schema.is_valid(&bad), "{pointer}");
        let text = serde_json::to_string(&bad).unwrap();
        assert!(parse_manifest("m", &text).is_err(), "{pointer}");
    }
}
