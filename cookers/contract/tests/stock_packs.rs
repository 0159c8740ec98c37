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
