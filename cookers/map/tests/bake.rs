//! The palette bake's refusals, each fed one past its limit, and the layout checks, on the
//! stock maps and the stock packs' catalogs.

use std::collections::BTreeSet;

use forge_contract::{parse_manifest, Manifest};
use forge_map::{bake, check_layout, crate_package, parse_level, PackRelease};
use serde_json::{json, Value};

fn repo(rel: &str) -> String {
    std::fs::read_to_string(format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn manifest(pack: &str) -> Manifest {
    parse_manifest(
        "mjolnir.json",
        &repo(&format!("forge-packs/{pack}/mjolnir.json")),
    )
    .unwrap()
    .0
}

fn crossline() -> Value {
    serde_json::from_str(&repo("forge-maps/crossline/level.json")).unwrap()
}

/// Each manifest as a release the bake was given.
fn releases(manifests: &[Manifest]) -> Vec<PackRelease<'_>> {
    manifests
        .iter()
        .map(|m| PackRelease {
            version: m.version.clone(),
            catalog: m.catalog().unwrap(),
        })
        .collect()
}

/// Every crate of every listed block, as if the Paks held them all.
fn all_crates(level: &Value) -> BTreeSet<String> {
    let mut crates = BTreeSet::new();
    for pack in level["blam"]["forge_packs"].as_array().unwrap() {
        for block in pack["blocks"].as_array().unwrap() {
            crates.insert(crate_package(
                pack["slug"].as_str().unwrap(),
                block["id"].as_str().unwrap(),
            ));
        }
    }
    crates
}

/// The codes of the bake's findings on `level`, with the stock packs and `crates`.
fn codes(level: &Value, crates: &BTreeSet<String>) -> Vec<&'static str> {
    let text = serde_json::to_string_pretty(level).unwrap();
    let parsed = match parse_level("level.json", &text) {
        Ok(l) => l,
        Err(findings) => return findings.iter().map(|d| d.code).collect(),
    };
    let manifests = [manifest("foundry"), manifest("foundry-wide")];
    let releases = releases(&manifests);
    match bake("level.json", &text, &parsed, &releases, crates) {
        Ok(_) => Vec::new(),
        Err(findings) => findings.iter().map(|d| d.code).collect(),
    }
}

#[test]
fn crossline_bakes_in_authored_order_with_flat_indices() {
    let level = crossline();
    assert!(codes(&level, &all_crates(&level)).is_empty());
    let text = repo("forge-maps/crossline/level.json");
    let parsed = parse_level("level.json", &text).unwrap();
    let manifests = [manifest("foundry"), manifest("foundry-wide")];
    let releases = releases(&manifests);
    let palette = bake("level.json", &text, &parsed, &releases, &all_crates(&level)).unwrap();
    assert_eq!(palette.custom[0].index, palette.standard.len());
    assert_eq!(palette.custom[0].block, "floor_1x1");
    assert_eq!(palette.custom.last().unwrap().block, "portal_frame");
    assert!(palette
        .custom
        .windows(2)
        .all(|w| w[1].index == w[0].index + 1));
    assert_eq!(
        palette
            .dependencies
            .iter()
            .map(|d| d.range.as_str())
            .collect::<Vec<_>>(),
        ["^0.2.0", "^0.2.0"]
    );
    assert_eq!(
        palette.preloads[0],
        "/Game/MJOLNIR/Forge/foundry/floor_1x1/crate"
    );
}

#[test]
fn each_limit_one_past_gets_its_code() {
    let base = crossline();
    let crates = all_crates(&base);
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut level = base.clone();
        edit(&mut level);
        level
    };
    let canvas = with(&|l| l["build"] = json!("canvas"));
    assert!(codes(&canvas, &crates).contains(&"canvas_override"));

    let many_packs = with(&|l| {
        let list = l["blam"]["forge_packs"].as_array_mut().unwrap();
        let first = list[0].clone();
        while list.len() < 64 {
            let mut copy = first.clone();
            copy["slug"] = json!(format!("pack{}", list.len()));
            copy["blocks"] = json!([]);
            list.push(copy);
        }
    });
    assert!(codes(&many_packs, &crates).contains(&"too_many_packs"));

    let many_refs = with(&|l| {
        let blocks = l["blam"]["forge_packs"][0]["blocks"]
            .as_array_mut()
            .unwrap();
        while blocks.len() < 201 {
            let n = blocks.len();
            blocks.push(
                json!({"id": format!("extra_{n}"), "tag": "objects\\mjolnir\\forge\\foundry\\x"}),
            );
        }
    });
    assert!(codes(&many_refs, &crates).contains(&"too_many_custom_references"));

    // 43 custom entries: 213 standard ones make 256.
    let full = with(&|l| {
        l["standard_palette"] = json!((0..213)
            .map(|i| format!("standard_{i}"))
            .collect::<Vec<_>>())
    });
    assert_eq!(codes(&full, &crates), ["palette_full"]);
    let fits = with(&|l| {
        l["standard_palette"] = json!((0..212)
            .map(|i| format!("standard_{i}"))
            .collect::<Vec<_>>())
    });
    assert!(codes(&fits, &crates).is_empty());

    let unknown = with(&|l| l["blam"]["forge_packs"][0]["blocks"][3]["id"] = json!("floor_9x9"));
    assert_eq!(codes(&unknown, &crates), ["unknown_block"]);
    let retagged = with(&|l| {
        l["blam"]["forge_packs"][0]["blocks"][3]["tag"] =
            json!("objects\\mjolnir\\forge\\foundry\\floor_9x9")
    });
    assert_eq!(codes(&retagged, &crates), ["block_tag_mismatch"]);
    let newer = with(&|l| l["blam"]["forge_packs"][1]["version"] = json!("0.3.0"));
    assert_eq!(codes(&newer, &crates), ["pack_version_mismatch"]);
    let foreign = with(&|l| l["blam"]["forge_packs"][1]["slug"] = json!("roadworks"));
    assert_eq!(codes(&foreign, &crates), ["unknown_pack"]);

    let mut missing = crates.clone();
    missing.remove("/Game/MJOLNIR/Forge/foundry-wide/wide_deck_16x16/crate");
    assert_eq!(codes(&base, &missing), ["missing_crate"]);
}

#[test]
fn crossline_holds_what_the_seed_says() {
    let text = repo("forge-maps/crossline/level.json");
    let level = parse_level("level.json", &text).unwrap();
    let layout_text = repo("forge-maps/crossline/layout.json");
    let manifests = [manifest("foundry"), manifest("foundry-wide")];
    let releases = releases(&manifests);
    let palette = bake(
        "level.json",
        &text,
        &level,
        &releases,
        &all_crates(&crossline()),
    )
    .unwrap();
    let layout = check_layout("layout.json", &layout_text, &level, &palette).unwrap();
    let [min, max] = level.bounds_m;
    assert_eq!([max[0] - min[0], max[1] - min[1]], [96.0, 160.0]);
    assert_eq!(layout.objects.len(), 300);
    assert_eq!(
        level.object_budget - layout.objects.len(),
        351,
        "native slots left"
    );
    let count =
        |f: &dyn Fn(&forge_map::Placed) -> bool| layout.objects.iter().filter(|o| f(o)).count();
    assert_eq!(count(&|o| o.palette == "warthog"), 2);
    assert_eq!(
        count(&|o| o.palette == "spawn_point" && matches!(o.team.as_deref(), Some("red" | "blue"))),
        8
    );
    assert_eq!(
        count(&|o| o.palette == "spawn_point" && o.team.as_deref() == Some("neutral")),
        4
    );
    let height = |palette: &str| {
        let (pack, block) = palette.split_once('/').unwrap();
        let m = manifests
            .iter()
            .find(|m| m.catalog().unwrap().id == pack)
            .unwrap();
        m.catalog()
            .unwrap()
            .blocks
            .iter()
            .find(|b| b.id == block)
            .unwrap()
            .dimensions_m[2]
    };
    let decks: Vec<_> = layout
        .objects
        .iter()
        .filter(|o| o.palette.contains("deck"))
        .collect();
    assert!(!decks.is_empty());
    assert!(
        decks
            .iter()
            .all(|o| o.position_m[2] == 0.0 && height(&o.palette) == 4.5),
        "raised decks are 4.5 m high"
    );
    let walls: Vec<_> = layout
        .objects
        .iter()
        .filter(|o| o.palette == "foundry-wide/wide_wall_16")
        .collect();
    assert_eq!(
        walls.len(),
        32,
        "the perimeter: 2 x (96 + 160) m of 16 m walls"
    );
    assert!(
        walls.iter().all(|o| height(&o.palette) == 9.0),
        "a 9 m perimeter"
    );
}

#[test]
fn layout_refusals_get_their_codes() {
    let text = repo("forge-maps/forge-canvas/level.json");
    let level = parse_level("level.json", &text).unwrap();
    let manifests = [manifest("foundry")];
    let releases = releases(&manifests);
    let value: Value = serde_json::from_str(&text).unwrap();
    let palette = bake("level.json", &text, &level, &releases, &all_crates(&value)).unwrap();
    let layout: Value = serde_json::from_str(&repo("forge-maps/forge-canvas/layout.json")).unwrap();
    let check = |edit: &dyn Fn(&mut Value)| {
        let mut l = layout.clone();
        edit(&mut l);
        match check_layout("layout.json", &l.to_string(), &level, &palette) {
            Ok(_) => Vec::new(),
            Err(f) => f.iter().map(|d| d.code).collect::<Vec<_>>(),
        }
    };
    assert!(check(&|_| {}).is_empty());
    assert_eq!(
        check(&|l| l["objects"][0]["palette"] = json!("foundry-wide/wide_ramp")),
        ["unknown_palette_entry"]
    );
    assert_eq!(
        check(&|l| l["objects"][0]["position_m"] = json!([32.5, 0, 0])),
        ["out_of_bounds"]
    );
    let over = level.object_budget + 1;
    assert_eq!(
        check(&|l| {
            let first = l["objects"][0].clone();
            let list = l["objects"].as_array_mut().unwrap();
            while list.len() < over {
                list.push(first.clone());
            }
        }),
        ["over_budget"]
    );
}

#[test]
fn the_circuit_is_a_closed_docked_chain_of_about_731_m_within_its_deck() {
    use forge_map::circuit::{walk, PlacedPiece};
    let roadworks = manifest("roadworks");
    let (geometry, _) = forge_contract::parse_geometry(
        "geometry.json",
        &repo("forge-packs/roadworks/source/geometry.json"),
        roadworks.catalog().unwrap(),
    )
    .unwrap();
    let text = repo("forge-maps/roadworks-circuit/level.json");
    let level = parse_level("level.json", &text).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    let releases = [PackRelease {
        version: roadworks.version.clone(),
        catalog: roadworks.catalog().unwrap(),
    }];
    let palette = bake("level.json", &text, &level, &releases, &all_crates(&value)).unwrap();
    let layout = check_layout(
        "layout.json",
        &repo("forge-maps/roadworks-circuit/layout.json"),
        &level,
        &palette,
    )
    .unwrap();
    let pieces: Vec<PlacedPiece> = layout
        .objects
        .iter()
        .filter_map(|o| {
            let block = o.palette.strip_prefix("roadworks/")?;
            let c = geometry
                .blocks
                .iter()
                .find(|b| b.id == block)?
                .connectors
                .clone()?;
            Some(PlacedPiece {
                entry: c.entry,
                exit: c.exit,
                position_m: o.position_m,
                yaw_deg: o.yaw_deg,
            })
        })
        .collect();
    let circuit = walk(&pieces);
    assert_eq!(
        circuit.undocked, None,
        "every piece sits on the previous exit"
    );
    assert!(
        circuit.closure_m < 0.01 && circuit.closure_deg < 0.01,
        "{circuit:?}"
    );
    assert!((circuit.length_m - 731.0).abs() <= 5.0, "{circuit:?}");
    let [min, max] = level.bounds_m;
    assert_eq!([max[0] - min[0], max[1] - min[1]], [320.0, 320.0]);
    assert_eq!(
        layout
            .objects
            .iter()
            .filter(|o| o.palette == "warthog")
            .count(),
        3
    );

    // A piece nudged by 2 cm is found, and the loop no longer closes once one is dropped.
    let mut nudged = pieces
        .iter()
        .map(|p| PlacedPiece {
            entry: p.entry.clone(),
            exit: p.exit.clone(),
            position_m: p.position_m,
            yaw_deg: p.yaw_deg,
        })
        .collect::<Vec<_>>();
    nudged[5].position_m[0] += 0.02;
    assert_eq!(walk(&nudged).undocked, Some(5));
    assert!(walk(&pieces[1..]).closure_m > 1.0);
}

#[test]
fn crossline_0_2_needs_an_explicit_rebuild_to_use_wide_0_2() {
    let text = repo("forge-maps/historical/crossline-0.2/level.json");
    let level = parse_level("level.json", &text).unwrap();
    let [min, max] = level.bounds_m;
    assert_eq!([max[0] - min[0], max[1] - min[1]], [48.0, 80.0]);
    let value: Value = serde_json::from_str(&text).unwrap();
    let crates = all_crates(&value);
    let bake_with = |m: &Manifest| {
        let releases = [PackRelease {
            version: m.version.clone(),
            catalog: m.catalog().unwrap(),
        }];
        bake("level.json", &text, &level, &releases, &crates)
            .map_err(|f| f.iter().map(|d| d.code).collect::<Vec<_>>())
    };
    let wide_0_1 = parse_manifest(
        "mjolnir.json",
        &repo("forge-packs/historical/foundry-wide-0.1/mjolnir.json"),
    )
    .unwrap()
    .0;
    assert_eq!(
        wide_0_1.catalog().unwrap().blocks.len(),
        18,
        "the 18-piece kit"
    );
    let palette = bake_with(&wide_0_1).unwrap();
    let layout = check_layout(
        "layout.json",
        &repo("forge-maps/historical/crossline-0.2/layout.json"),
        &level,
        &palette,
    )
    .unwrap();
    assert!(!layout.objects.is_empty());
    assert_eq!(
        bake_with(&manifest("foundry-wide")).unwrap_err(),
        ["pack_version_mismatch"]
    );
}

#[test]
fn crosslines_stated_facts_hold_and_a_change_to_them_is_named() {
    let text = repo("forge-maps/crossline/level.json");
    let level = parse_level("level.json", &text).unwrap();
    let expect = level.expect.clone().expect("Crossline states its facts");
    let manifests = [manifest("foundry"), manifest("foundry-wide")];
    let catalogs: Vec<&forge_contract::Catalog> =
        manifests.iter().map(|m| m.catalog().unwrap()).collect();
    let layout: forge_map::Layout =
        serde_json::from_str(&repo("forge-maps/crossline/layout.json")).unwrap();
    assert!(forge_map::expect::check("level.json", &text, &expect, &layout, &catalogs).is_empty());
    let codes = |layout: &forge_map::Layout| {
        forge_map::expect::check("level.json", &text, &expect, layout, &catalogs)
            .iter()
            .map(|d| d.code)
            .collect::<Vec<_>>()
    };
    let mut raised = layout.clone();
    let deck = raised
        .objects
        .iter()
        .position(|o| o.palette.contains("deck"))
        .unwrap();
    raised.objects[deck].position_m[2] = 1.0;
    assert_eq!(codes(&raised), ["deck_height"]);
    let mut fewer = layout.clone();
    let warthog = fewer
        .objects
        .iter()
        .position(|o| o.palette == "warthog")
        .unwrap();
    fewer.objects.remove(warthog);
    assert_eq!(codes(&fewer), ["expect_objects", "expect_count"]);
}
