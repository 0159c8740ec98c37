//! From pack to map: `map bake` on a cooked pack, a refusal that writes nothing, and
//! `map pack` into a release the Hub's scan accepts.

use crate::support;

use std::io::Read;

use support::{repo, stderr, Workspace};

fn bake(ws: &Workspace, level: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "map",
        "bake",
        level,
        "--paks",
        "build/game/foundry/all/content",
        "--pack",
        "build/game/foundry/all",
    ];
    args.extend_from_slice(extra);
    ws.mjolnir(&args)
}

/// `map pack` of `level` with foundry's own cooked container as the map's content, into
/// `m.mjolnir`: every case here is one the packer must refuse.
fn pack_foundry_content(ws: &Workspace, level: &str) -> std::process::Output {
    ws.mjolnir(&[
        "map",
        "pack",
        level,
        "--content",
        "build/game/foundry/all/content",
        "--out",
        "m.mjolnir",
    ])
}

/// The baked map's container in `baked/`, as the game's level bake would leave it: a
/// stand-in here.
fn baked_canvas(ws: &Workspace) {
    let chunk = forge_iostore::NewChunk {
        id: forge_iostore::ids::ChunkId::new(
            forge_iostore::ids::name_hash("/Game/Maps/ForgeCanvas/Scenario"),
            0,
            2,
        ),
        data: b"scenario".to_vec(),
        path: Some("Maps/ForgeCanvas/Scenario.ubulk".into()),
    };
    let (utoc, ucas) =
        forge_iostore::write("forge-canvas_P", &[chunk], forge_iostore::Compression::None).unwrap();
    std::fs::create_dir_all(ws.path("baked")).unwrap();
    std::fs::write(ws.path("baked/forge-canvas_P.utoc"), utoc).unwrap();
    std::fs::write(ws.path("baked/forge-canvas_P.ucas"), ucas).unwrap();
}

/// The stock Forge Canvas, copied into the workspace so a test may edit it.
fn canvas(ws: &Workspace) -> &'static str {
    support::copy_dir(
        &repo().join("forge-maps/forge-canvas"),
        &ws.path("maps/forge-canvas"),
    );
    "maps/forge-canvas/level.json"
}

#[test]
fn the_canvas_bakes_and_a_canvas_override_writes_nothing() {
    let ws = Workspace::without_donors(&["foundry"]);
    ws.cook(&[]);
    let level = canvas(&ws);
    let out = bake(&ws, level, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let palette: serde_json::Value = serde_json::from_slice(
        &std::fs::read(ws.path("build/maps/forge-canvas/palette.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(palette["custom"].as_array().unwrap().len(), 23);
    assert_eq!(palette["dependencies"][0]["range"], "^0.2.0");

    std::fs::remove_dir_all(ws.path("build/maps")).unwrap();
    ws.edit(level, |t| t.replace("\"standalone\"", "\"canvas\""));
    let out = bake(&ws, level, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("canvas_override"), "{}", stderr(&out));
    assert!(!ws.path("build/maps").exists(), "nothing written");
}

#[test]
fn a_crate_missing_from_the_paks_fails_the_bake() {
    let ws = Workspace::without_donors(&["foundry"]);
    ws.cook(&[]);
    let level = canvas(&ws);
    std::fs::create_dir_all(ws.path("renamed-paks")).unwrap();
    std::fs::copy(
        ws.path("build/game/foundry/all/content/foundry_P.utoc"),
        ws.path("renamed-paks/other.utoc"),
    )
    .unwrap();
    let out = ws.mjolnir(&[
        "map",
        "bake",
        level,
        "--paks",
        "renamed-paks",
        "--pack",
        "build/game/foundry/all",
    ]);
    // The TOC is read by its chunk ids, so a container under another name still counts.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let roadworks = ws.path("roadworks-paks");
    std::fs::create_dir_all(&roadworks).unwrap();
    let other = Workspace::without_donors(&["roadworks"]);
    other.cook(&[]);
    std::fs::copy(
        other.path("build/game/roadworks/all/content/roadworks_P.utoc"),
        roadworks.join("roadworks_P.utoc"),
    )
    .unwrap();
    let out = ws.mjolnir(&[
        "map",
        "bake",
        level,
        "--paks",
        roadworks.to_str().unwrap(),
        "--pack",
        "build/game/foundry/all",
        "--out",
        "palette.json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("missing_crate"), "{}", stderr(&out));
    assert!(!ws.path("palette.json").exists());
}

#[test]
fn map_pack_keeps_the_forge_packs_and_depends_on_each_pack() {
    let ws = Workspace::without_donors(&["foundry"]);
    let level = canvas(&ws);
    baked_canvas(&ws);
    let out = ws.mjolnir(&[
        "map",
        "pack",
        level,
        "--content",
        "baked",
        "--out",
        "canvas.mjolnir",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let verify = ws.mjolnir(&["forge", "verify", "canvas.mjolnir", "--allow-unsigned"]);
    assert_eq!(verify.status.code(), Some(0), "{}", stderr(&verify));

    let bytes = std::fs::read(ws.path("canvas.mjolnir")).unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut read = |name: &str| {
        let mut text = String::new();
        zip.by_name(name)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()
    };
    let manifest = read("mjolnir.json");
    assert_eq!(
        manifest["deps"],
        serde_json::json!([{"slug": "foundry", "range": "^0.2.0"}])
    );
    let archived = read("level.json");
    assert_eq!(
        archived["blam"]["forge_packs"][0]["blocks"]
            .as_array()
            .unwrap()
            .len(),
        23
    );
    assert_eq!(read("layout.json")["objects"].as_array().unwrap().len(), 66);
}

/// A workspace with the three stock packs and the three stock maps configured.
pub fn with_maps() -> Workspace {
    let ws = Workspace::without_donors(&["foundry", "foundry-wide", "roadworks"]);
    let mut toml = std::fs::read_to_string(ws.path("pipeline.toml")).unwrap();
    for map in ["forge-canvas", "crossline", "roadworks-circuit"] {
        support::copy_dir(
            &repo().join("forge-maps").join(map),
            &ws.path(&format!("maps/{map}")),
        );
        toml.push_str(&format!("[[map]]\npath = \"maps/{map}\"\n\n"));
    }
    std::fs::write(ws.path("pipeline.toml"), toml).unwrap();
    ws
}

#[test]
fn a_full_cook_checks_every_stock_map_and_shows_it_in_the_report() {
    let ws = with_maps();
    ws.cook(&[]);
    for map in ["forge-canvas", "crossline", "roadworks-circuit"] {
        for file in ["palette.json", "checks.json", "overview.png"] {
            assert!(
                ws.path(&format!("build/maps/{map}/{file}")).is_file(),
                "{map}/{file}"
            );
        }
    }
    let checks: serde_json::Value = serde_json::from_slice(
        &std::fs::read(ws.path("build/maps/roadworks-circuit/checks.json")).unwrap(),
    )
    .unwrap();
    let length = checks["circuit"]["length_m"].as_f64().unwrap();
    assert!((length - 731.0).abs() <= 5.0, "{checks}");
    assert!(checks["circuit"]["closure_m"].as_f64().unwrap() < 0.01);
    let crossline: serde_json::Value = serde_json::from_slice(
        &std::fs::read(ws.path("build/maps/crossline/checks.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        (
            crossline["objects"].as_u64(),
            crossline["object_budget"].as_u64()
        ),
        (Some(300), Some(651))
    );
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    assert!(
        html.contains("maps/crossline/overview.png"),
        "the overview is in the report"
    );

    // A cook of one pack checks only the maps it can: the circuit.
    // Its map step is cached, so not in `report.json`; the page shows the maps it checked.
    ws.cook(&["--pack", "roadworks"]);
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    assert!(
        html.contains("maps/roadworks-circuit/overview.png")
            && !html.contains("maps/crossline/overview.png"),
        "the one-pack cook's page shows the circuit alone: {html}"
    );
    assert!(
        ws.path("build/maps/crossline/overview.png").is_file(),
        "and leaves the other maps' folders as they were"
    );
}

#[test]
fn a_piece_off_the_course_fails_the_cook_with_its_code() {
    let ws = with_maps();
    ws.edit_json("maps/roadworks-circuit/layout.json", |v| {
        let x = v["objects"][3]["position_m"][0].as_f64().unwrap();
        v["objects"][3]["position_m"][0] = serde_json::json!(x + 0.05);
    });
    let out = ws.mjolnir(&["forge", "cook"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("circuit_undocked"),
        "{}",
        stderr(&out)
    );
    ws.edit_json("maps/crossline/layout.json", |v| {
        v["objects"][0]["position_m"] = serde_json::json!([500.0, 0.0, 0.0]);
    });
    let out = ws.mjolnir(&["forge", "cook", "--keep-going"]);
    assert!(stderr(&out).contains("out_of_bounds"), "{}", stderr(&out));
}

#[test]
fn compat_says_why_historical_layouts_need_a_rebuild() {
    let ws = Workspace::without_donors(&[]);
    let compat = |old: &str, new: &str| {
        let out = ws.mjolnir(&[
            "forge",
            "compat",
            repo().join(old).to_str().unwrap(),
            repo().join(new).to_str().unwrap(),
        ]);
        (out.status.code(), stderr(&out))
    };
    let (code, text) = compat(
        "forge-packs/historical/roadworks-0.1",
        "forge-packs/roadworks",
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("warning[new_line]") && text.contains("need an explicit rebuild"),
        "{text}"
    );
    assert!(
        text.contains(
            "\"road_straight_10\" changed dimensions from [10.0, 9.0, 0.8] to [10.0, 13.0, 0.8]"
        ),
        "{text}"
    );
    let (code, text) = compat(
        "forge-packs/historical/foundry-wide-0.1",
        "forge-packs/foundry-wide",
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("warning[new_line]"), "{text}");
}

#[test]
fn a_level_cannot_name_a_folder_or_a_layout_outside_its_own() {
    let ws = Workspace::without_donors(&["foundry"]);
    ws.cook(&[]);
    let level = canvas(&ws);
    let original = std::fs::read_to_string(ws.path(level)).unwrap();
    // A slug that climbs out of build/maps/: refused, nothing written anywhere.
    ws.edit_json(level, |v| v["slug"] = serde_json::json!("../../../x"));
    let out = bake(&ws, level, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("error[bad_slug]"), "{}", stderr(&out));
    assert!(!ws.path("build/maps").exists() && !ws.path("../x").exists());
    // A layout outside the level's folder is never read, nor shipped by map pack.
    for layout in ["/etc/passwd", "../secret.json"] {
        std::fs::write(ws.path(level), &original).unwrap();
        ws.edit_json(level, |v| v["layout"] = serde_json::json!(layout));
        let out = bake(&ws, level, &[]);
        assert_eq!(out.status.code(), Some(1), "{layout}");
        assert!(
            stderr(&out).contains("error[layout_outside]"),
            "{}",
            stderr(&out)
        );
        let out = pack_foundry_content(&ws, level);
        assert_eq!(out.status.code(), Some(1), "{layout}: {}", stderr(&out));
        assert!(!ws.path("m.mjolnir").exists());
    }
}

#[test]
fn a_map_cannot_carry_a_packs_packages() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    let level = canvas(&ws);
    // foundry's own container passed off as the map's.
    let out = pack_foundry_content(&ws, level);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("map_holds_pack_packages")
            && stderr(&out).contains("/Game/MJOLNIR/Forge/foundry/"),
        "{}",
        stderr(&out)
    );
    assert!(!ws.path("m.mjolnir").exists());
}

#[test]
fn map_pack_refuses_a_level_the_bake_would_refuse() {
    let ws = Workspace::without_donors(&["foundry"]);
    ws.cook(&[]);
    let level = canvas(&ws);
    ws.edit(level, |t| t.replace("\"standalone\"", "\"canvas\""));
    let out = pack_foundry_content(&ws, level);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("canvas_override"), "{}", stderr(&out));
    assert!(!ws.path("m.mjolnir").exists());
}

#[test]
fn a_level_may_give_block_ids_alone_and_the_bake_draws_its_overview() {
    let ws = Workspace::without_donors(&["foundry"]);
    ws.cook(&[]);
    let level = canvas(&ws);
    let out = bake(&ws, level, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let full = std::fs::read(ws.path("build/maps/forge-canvas/palette.json")).unwrap();
    let overview = image::open(ws.path("build/maps/forge-canvas/overview.png"))
        .unwrap()
        .to_rgba8();
    // The overview's background is (24, 26, 30); the canvas's floor covers most of it.
    let background = image::Rgba([24, 26, 30, 255]);
    let drawn = overview.pixels().filter(|p| **p != background).count();
    assert!(
        drawn > 100_000,
        "the layout's pieces are drawn: {drawn} pixels"
    );

    ws.edit_json(level, |l| {
        for pack in l["blam"]["forge_packs"].as_array_mut().unwrap() {
            for block in pack["blocks"].as_array_mut().unwrap() {
                *block = block["id"].clone();
            }
        }
    });
    let out = bake(&ws, level, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(ws.path("build/maps/forge-canvas/palette.json")).unwrap(),
        full,
        "ids alone mean the pack's canonical tags"
    );

    // The released level carries the tags the game reads.
    baked_canvas(&ws);
    let out = ws.mjolnir(&[
        "map",
        "pack",
        level,
        "--content",
        "baked",
        "--out",
        "c.mjolnir",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bytes = std::fs::read(ws.path("c.mjolnir")).unwrap();
    let shipped = forge_release::archive::read_member(&bytes, "level.json", 1 << 20)
        .unwrap()
        .unwrap();
    let shipped: serde_json::Value = serde_json::from_slice(&shipped).unwrap();
    assert_eq!(
        shipped["blam"]["forge_packs"][0]["blocks"][0]["tag"],
        "objects\\mjolnir\\forge\\foundry\\floor_1x1"
    );
}

#[test]
fn a_block_edit_that_keeps_the_crates_does_not_bake_the_maps_again() {
    let ws = Workspace::with_packs(&["foundry", "foundry-wide", "roadworks"]);
    let mut toml = std::fs::read_to_string(ws.path("pipeline.toml")).unwrap();
    for map in ["forge-canvas", "crossline", "roadworks-circuit"] {
        support::copy_dir(
            &repo().join("forge-maps").join(map),
            &ws.path(&format!("maps/{map}")),
        );
        toml.push_str(&format!("\n[[map]]\npath = \"maps/{map}\"\n"));
    }
    std::fs::write(ws.path("pipeline.toml"), toml).unwrap();
    ws.cook(&[]);
    // One texture coordinate moved in one model: its Unreal mesh, and so the container,
    // change; its geometry and the crates the container holds do not.
    let model = ws.path("packs/foundry/source/models/column_1.gltf");
    let gltf: serde_json::Value = serde_json::from_slice(&std::fs::read(&model).unwrap()).unwrap();
    let uv = &gltf["accessors"][gltf["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"]
        .as_u64()
        .unwrap() as usize];
    let view = &gltf["bufferViews"][uv["bufferView"].as_u64().unwrap() as usize];
    let at =
        (view["byteOffset"].as_u64().unwrap() + uv["byteOffset"].as_u64().unwrap_or(0)) as usize;
    let bin = ws.path("packs/foundry/source/models/column_1.bin");
    let mut bytes = std::fs::read(&bin).unwrap();
    let u = f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) + 0.25;
    bytes[at..at + 4].copy_from_slice(&u.to_le_bytes());
    std::fs::write(&bin, bytes).unwrap();
    ws.cook(&[]);
    let ran = ws.ran();
    assert!(ran.iter().any(|s| s == "foundry/assemble/all"), "{ran:?}");
    assert!(
        ran.iter().any(|s| s == "foundry/crate_index/all"),
        "{ran:?}"
    );
    assert!(
        !ran.iter().any(|s| s.contains("/map")),
        "no map is baked again: {ran:?}"
    );
}
