//! End-to-end tests of `mjolnir forge validate`, `compat` and `inspect`.

use crate::support;

use serde_json::{json, Value};
use support::{stderr, tree, Workspace};

#[test]
fn validate_accepts_the_stock_packs() {
    let ws = Workspace::with_packs(&["foundry", "foundry-wide", "roadworks"]);
    let out = ws.mjolnir(&[
        "forge",
        "validate",
        "packs/foundry",
        "packs/foundry-wide",
        "packs/roadworks",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 packs valid"));
    let out = ws.mjolnir(&["forge", "validate", "packs/foundry", "--slug", "foundry-2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("pack_id_not_slug"));
}

#[test]
fn validate_reports_every_finding_and_writes_nothing() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.edit_json("packs/foundry/mjolnir.json", |m| {
        m["forge_pack"]["blocks"][3]["light"] = json!({"offset_m": [0, 0, 1], "color_rgb": [1, 1, 1], "intensity_cd": 70, "radius_m": 0});
        m["forge_pack"]["blocks"][4]["id"] = json!("floor_2x2");
    });
    ws.edit_json("packs/foundry/source/geometry.json", |g| {
        g["blocks"][0]["hulls"][0]["points"] = json!([[0, 0, 0]])
    });
    let before = tree(ws.dir.path());
    let out = ws.mjolnir(&["forge", "validate", "packs/foundry", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let has = |code: &str, pointer: &str| {
        findings
            .iter()
            .any(|f| f["code"] == code && f["pointer"] == pointer && f["line"].is_u64())
    };
    assert!(
        has("bad_light", "/forge_pack/blocks/3/light/radius_m"),
        "{findings:#?}"
    );
    assert!(
        has("duplicate_id", "/forge_pack/blocks/4/id"),
        "{findings:#?}"
    );
    assert!(tree(ws.dir.path()) == before, "validation writes nothing");
    // With a valid catalog, geometry findings come through too.
    let ws = Workspace::with_packs(&["foundry"]);
    ws.edit_json("packs/foundry/source/geometry.json", |g| {
        g["blocks"][0]["hulls"][0]["points"] = json!([[0, 0, 0]])
    });
    let out = ws.mjolnir(&["forge", "validate", "packs/foundry"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("error[hull_points]")
            && stderr(&out).contains("/blocks/0/hulls/0/points"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn validate_names_line_and_column_of_broken_json() {
    let ws = Workspace::with_packs(&["foundry"]);
    std::fs::write(
        ws.path("packs/foundry/mjolnir.json"),
        "{\n  \"name\": \"x\",\n  oops\n}",
    )
    .unwrap();
    let out = ws.mjolnir(&["forge", "validate", "packs/foundry"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("error[not_json]") && stderr(&out).contains("mjolnir.json:3:3"),
        "{}",
        stderr(&out)
    );
}

/// A copy of the Foundry pack at `packs/new`, changed by `change`, compared with the stock one.
fn compat(
    change_manifest: impl FnOnce(&mut Value),
    change_geometry: impl FnOnce(&mut Value),
) -> (Option<i32>, String) {
    let ws = Workspace::with_packs(&["foundry"]);
    support::copy_dir(&ws.path("packs/foundry"), &ws.path("packs/new"));
    ws.edit_json("packs/new/mjolnir.json", change_manifest);
    ws.edit_json("packs/new/source/geometry.json", change_geometry);
    let out = ws.mjolnir(&["forge", "compat", "packs/foundry", "packs/new"]);
    (
        out.status.code(),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out)),
    )
}

fn bump(m: &mut Value, v: &str) {
    m["version"] = json!(v);
}

#[test]
fn compat_applies_the_updating_rules() {
    let (code, text) = compat(
        |m| {
            bump(m, "0.2.1");
            let mut extra = m["forge_pack"]["blocks"][0].clone();
            extra["id"] = json!("floor_8x8");
            extra["tag"] = json!("objects\\mjolnir\\forge\\foundry\\floor_8x8");
            m["forge_pack"]["blocks"]
                .as_array_mut()
                .unwrap()
                .push(extra);
        },
        |g| {
            let mut extra = g["blocks"][0].clone();
            extra["id"] = json!("floor_8x8");
            g["blocks"].as_array_mut().unwrap().push(extra);
        },
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("Foundry 0.2.1 may follow 0.2.0"));

    let (code, text) = compat(
        |m| {
            bump(m, "0.2.1");
            m["forge_pack"]["blocks"].as_array_mut().unwrap().remove(1);
        },
        |g| {
            g["blocks"].as_array_mut().unwrap().remove(1);
        },
    );
    assert_eq!(code, Some(1));
    assert!(
        text.contains("error[entry_dropped]") && text.contains("floor_2x2"),
        "{text}"
    );

    let (code, text) = compat(
        |m| {
            bump(m, "0.2.1");
            m["forge_pack"]["blocks"][1]["dimensions_m"] = json!([4, 4, 0.6]);
            m["forge_pack"]["blocks"][2]["snap_m"] = json!(1.0);
        },
        |_| {},
    );
    assert_eq!(code, Some(1));
    assert!(
        text.contains("error[dimensions_changed]")
            && text.contains("/forge_pack/blocks/1/dimensions_m"),
        "{text}"
    );
    assert!(
        text.contains("error[snap_changed]") && text.contains("/forge_pack/blocks/2/snap_m"),
        "{text}"
    );
    assert!(
        text.contains("changed snap from 0.5 m to 1 m") && !text.contains("Some("),
        "{text}"
    );

    // A new line may change anything, with a warning about older builds.
    let (code, text) = compat(
        |m| {
            bump(m, "0.3.0");
            m["forge_pack"]["blocks"][1]["dimensions_m"] = json!([4, 4, 0.6]);
        },
        |_| {},
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("warning[new_line]"));

    let (code, text) = compat(
        |m| m["forge_pack"]["blocks"][0]["name"] = json!("Renamed"),
        |_| {},
    );
    assert_eq!(code, Some(1));
    assert!(text.contains("error[version_reused]"), "{text}");

    let (code, text) = compat(|m| bump(m, "0.1.9"), |_| {});
    assert_eq!(code, Some(1));
    assert!(text.contains("error[not_newer]"), "{text}");
}

#[test]
fn compat_warns_when_origins_and_joins_move() {
    let (code, text) = compat(
        |m| bump(m, "0.2.1"),
        |g| {
            let floor = g["blocks"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|b| b["id"] == "floor_2x2")
                .unwrap();
            for p in floor["hulls"][0]["points"].as_array_mut().unwrap() {
                p[2] = json!(p[2].as_f64().unwrap() - 0.02);
            }
            floor["joins"][0]["height_m"] = json!(0.48);
        },
    );
    assert_eq!(code, Some(0), "warnings only: {text}");
    assert!(
        text.contains("warning[origin_moved]") && text.contains("floor_2x2"),
        "{text}"
    );
    assert!(text.contains("warning[join_moved]"), "{text}");
}

#[test]
fn compat_reads_manifests_and_archives() {
    let ws = Workspace::with_packs(&["foundry"]);
    let mut m: Value =
        serde_json::from_slice(&std::fs::read(ws.path("packs/foundry/mjolnir.json")).unwrap())
            .unwrap();
    m["version"] = json!("0.2.1");
    let archive = ws.path("foundry-0.2.1.mjolnir");
    {
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&archive).unwrap());
        zip.start_file("mjolnir.json", zip::write::SimpleFileOptions::default())
            .unwrap();
        std::io::Write::write_all(&mut zip, &serde_json::to_vec(&m).unwrap()).unwrap();
        zip.finish().unwrap();
    }
    let out = ws.mjolnir(&[
        "forge",
        "compat",
        "packs/foundry/mjolnir.json",
        "foundry-0.2.1.mjolnir",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn inspect_reads_static_meshes_and_actors() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&["--only", "light_post"]);
    let dir = "build/game/foundry/light_post/cooked/light_post";
    let out = ws.mjolnir(&[
        "forge",
        "inspect",
        &format!("{dir}/static_mesh.fmsh"),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "static-mesh");
    assert_eq!(
        v["asset"],
        "/Game/MJOLNIR/Forge/foundry/light_post/SM_light_post"
    );
    let (lo, hi) = (&v["bounds_cm"]["min"], &v["bounds_cm"]["max"]);
    for (axis, size) in [80.0, 80.0, 340.0].iter().enumerate() {
        let got = hi[axis].as_f64().unwrap() - lo[axis].as_f64().unwrap();
        assert!((got - size).abs() < 0.1, "axis {axis}: {got}");
    }
    let out = ws.mjolnir(&["forge", "inspect", &format!("{dir}/actor.json")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("BP_light_post.BP_light_post_C")
            && text.contains("collision NoCollision")
            && text.contains("at [0.0, 0.0, 310.0] cm"),
        "{text}"
    );
    std::fs::write(ws.path("junk.bin"), b"FGIM\x01\x00").unwrap();
    let out = ws.mjolnir(&["forge", "inspect", "junk.bin"]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::write(ws.path("junk.fmsh"), b"FMSH\x01\x00\x00\x00").unwrap();
    assert_eq!(
        ws.mjolnir(&["forge", "inspect", "junk.fmsh"]).status.code(),
        Some(2)
    );
}

#[test]
fn cooked_containers_resolve_and_verify_through_inspect() {
    let ws = Workspace::with_packs(&["foundry", "roadworks", "foundry-wide"]);
    ws.cook(&[]);
    for pack in ["foundry", "roadworks"] {
        let out = ws.mjolnir(&[
            "forge",
            "inspect",
            &format!("build/game/{pack}/all/content/{pack}_P.utoc"),
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["overflow"], 0);
        assert_eq!(v["failures"], 0);
        let chunks = v["chunks"].as_array().unwrap();
        // Per block: mesh, actor and four tags; then the container header.
        let blocks = if pack == "foundry" { 23 } else { 12 };
        assert_eq!(chunks.len(), 6 * blocks + 1);
        for c in chunks {
            if c["path"].is_null() {
                assert!(
                    c["chunk_id"].as_str().unwrap().ends_with(":06"),
                    "only the container header has no path: {c}"
                );
                continue;
            }
            assert_eq!(
                (
                    c["resolves"].as_bool(),
                    c["hash_ok"].as_bool(),
                    c["package_id_ok"].as_bool()
                ),
                (Some(true), Some(true), Some(true)),
                "{c}"
            );
            assert!(
                c["path"]
                    .as_str()
                    .unwrap()
                    .starts_with(&format!("../../../Meteorite/Content/MJOLNIR/Forge/{pack}/")),
                "{c}"
            );
        }
    }
    for pack in ["foundry", "roadworks", "foundry-wide"] {
        every_hull_is_reached_once_from_the_crate(&ws, pack);
    }
    cached_indexes_and_recipes_read_through_inspect(&ws);
    let out = ws.mjolnir(&[
        "forge",
        "inspect",
        "build/game/foundry/all/cooked/wall_door/wall_door.crate",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("reference hlmt objects\\mjolnir\\forge\\foundry\\wall_door"),
        "{text}"
    );
}

/// The cache holds each block's index in its container (`FBLK`, its packages' and tags'
/// packed chunks) and each set's `.ucas` as a recipe (`MJSP`) that makes exactly the
/// `.ucas` in the set folder.
fn cached_indexes_and_recipes_read_through_inspect(ws: &Workspace) {
    let mut formats = std::collections::BTreeMap::<String, Vec<Value>>::new();
    for (blob, bytes) in tree(&ws.path("build/cache/blobs")) {
        if !(bytes.starts_with(b"FBLK") || bytes.starts_with(b"MJSP")) {
            continue;
        }
        let blob = format!("build/cache/blobs/{blob}");
        let out = ws.mjolnir(&["forge", "inspect", &blob, "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        formats
            .entry(v["format"].as_str().unwrap().into())
            .or_default()
            .push(v);
    }
    let blocks = ["foundry", "roadworks", "foundry-wide"]
        .iter()
        .map(|pack| {
            std::fs::read_dir(ws.path(&format!("build/game/{pack}/all/cooked")))
                .unwrap()
                .count()
        })
        .sum::<usize>();
    assert!(formats["FBLK"].len() >= blocks, "an index per block");
    for index in &formats["FBLK"] {
        assert!(index["tags"].as_array().unwrap().len() >= 4, "{index}");
    }
    let sizes: Vec<u64> = formats["MJSP"]
        .iter()
        .map(|v| v["bytes"].as_u64().unwrap())
        .collect();
    for pack in ["foundry", "roadworks", "foundry-wide"] {
        let ucas = ws.path(&format!("build/game/{pack}/all/content/{pack}_P.ucas"));
        let size = std::fs::metadata(ucas).unwrap().len();
        assert!(
            sizes.contains(&size),
            "{pack}: {size} B not among {sizes:?}"
        );
    }
}

#[test]
fn a_cook_is_quiet_off_a_terminal_unless_asked() {
    let ws = Workspace::without_donors(&["roadworks"]);
    let out = ws.cook(&[]);
    let err = stderr(&out);
    assert!(!err.contains("steps,") && !err.contains("step,"), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    let out = ws.cook(&["--no-cache", "-v"]);
    let err = stderr(&out);
    assert!(
        err.contains("roadworks: catalog 1 step, 0 cached, 1 run"),
        "{err}"
    );
    assert!(
        err.contains("roadworks: import 12 steps, 0 cached, 12 run"),
        "{err}"
    );
}

#[test]
fn pack_prints_json_and_runs_the_update_rules_against_the_previous_release() {
    let ws = Workspace::with_packs(&["roadworks"]);
    ws.cook(&[]);
    let pack = |manifest: &str, out: &str, extra: &[&str]| {
        let mut args = vec![
            "forge",
            "pack",
            manifest,
            "--content",
            "build/game/roadworks/all/content",
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        ws.mjolnir(&args)
    };
    let first = pack(
        "build/game/roadworks/all/mjolnir.json",
        "first.mjolnir",
        &["--json"],
    );
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let v: Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(v["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(v["archive"], "first.mjolnir");

    let text = std::fs::read_to_string(ws.path("build/game/roadworks/all/mjolnir.json")).unwrap();
    let mut manifest: Value = serde_json::from_str(&text).unwrap();
    manifest["version"] = json!("0.2.1");
    manifest["forge_pack"]["blocks"][0]["dimensions_m"] = json!([5.0, 14.0, 0.8]);
    std::fs::write(
        ws.path("patch.json"),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    let out = pack(
        "patch.json",
        "patch.mjolnir",
        &["--previous", "first.mjolnir"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("dimensions_changed") && stderr(&out).contains("new block id"),
        "{}",
        stderr(&out)
    );
    assert!(!ws.path("patch.mjolnir").exists());
}

#[test]
fn a_buffer_uri_outside_the_models_folder_is_missing_and_never_looked_at() {
    let ws = Workspace::without_donors(&["foundry"]);
    let gltf = "packs/foundry/source/models/floor_1x1.gltf";
    for uri in ["/etc/hostname", "../../mjolnir.json"] {
        ws.edit_json(gltf, |v| v["buffers"][0]["uri"] = serde_json::json!(uri));
        let out = ws.mjolnir(&["forge", "validate", "packs/foundry"]);
        assert_eq!(out.status.code(), Some(1), "{uri}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("error[missing_buffer]"),
            "{uri}: {}",
            stderr(&out)
        );
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_as_a_packs_manifest_is_refused_not_waited_on() {
    let ws = Workspace::without_donors(&["foundry"]);
    let manifest = ws.path("packs/foundry/mjolnir.json");
    std::fs::remove_file(&manifest).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&manifest)
        .status()
        .unwrap();
    assert!(made.success());
    let out = ws.mjolnir(&["forge", "validate", "packs/foundry"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("not_a_file"), "{}", stderr(&out));
}

#[test]
fn missing_models_and_buffers_are_named_where_they_are() {
    let ws = Workspace::without_donors(&["foundry"]);
    std::fs::remove_file(ws.path("packs/foundry/source/models/floor_1x1.bin")).unwrap();
    std::fs::remove_file(ws.path("packs/foundry/source/models/wall_2.gltf")).unwrap();
    let out = ws.mjolnir(&["forge", "validate", "packs/foundry"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(
        text.contains("error[missing_buffer]: packs/foundry/source/models/floor_1x1.bin: packs/foundry/source/models/floor_1x1.gltf names it"),
        "{text}"
    );
    assert!(
        text.contains("error[missing_model]: packs/foundry/source/models/wall_2.gltf"),
        "{text}"
    );
    let out = ws.mjolnir(&["forge", "cook", "--keep-going"]);
    let text = stderr(&out);
    assert!(
        text.contains(
            "error[missing_source]: packs/foundry/source/models/floor_1x1.bin: cannot read it"
        ) && text.contains("packs/foundry/source/models/floor_1x1.gltf names it as a buffer"),
        "every error path is a real path: {text}"
    );
}

#[test]
fn export_mistakes_are_named_at_the_model_with_the_setting_to_change() {
    let ws = Workspace::without_donors(&["foundry"]);
    let model = "packs/foundry/source/models/floor_2x2.gltf";
    ws.edit_json(model, |g| g["nodes"][0]["scale"] = json!([100, 100, 100]));
    let out = ws.mjolnir(&["forge", "cook"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(
        text.contains("error[model_in_centimetres]: packs/foundry/source/models/floor_2x2.gltf: ")
            && text.contains(
                "400.000 x 400.000 x 50.000 m, 100 times the declared 4.000 x 4.000 x 0.500 m"
            )
            && text.contains("Unit Scale to 1.0"),
        "{text}"
    );
    ws.edit_json(model, |g| {
        g["nodes"][0].as_object_mut().unwrap().remove("scale");
        g["nodes"][0]["rotation"] = json!([
            std::f64::consts::FRAC_1_SQRT_2,
            0,
            0,
            std::f64::consts::FRAC_1_SQRT_2
        ]);
    });
    let text = stderr(&ws.mjolnir(&["forge", "cook"]));
    assert!(
        text.contains("error[model_z_up]: packs/foundry/source/models/floor_2x2.gltf: ")
            && text.contains("+Y Up"),
        "{text}"
    );
}

#[test]
fn a_doorway_the_model_closes_fails_naming_both_files() {
    let ws = Workspace::without_donors(&["foundry"]);
    let models = ws.path("packs/foundry/source/models");
    // wall_door's collision keeps its doorway; its model becomes the solid wall_2.
    std::fs::copy(models.join("wall_2.gltf"), models.join("wall_door.gltf")).unwrap();
    let out = ws.mjolnir(&["forge", "cook"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(
        text.contains(
            "error[aperture_blocked_visual]: packs/foundry/source/geometry.json:658:9 at /blocks/7/apertures/0: foundry/wall_door"
        ) && text.contains("is open in the collision but not in the visual mesh")
            // A path inside a message is the pack's own: cooked outputs carry no folder.
            && text.contains("(the model: source/models/wall_door.gltf)")
            && text.contains("first failing ray from (-0.950, -1.250, 0.050) along (0.000, 1.000, 0.000)"),
        "{text}"
    );
}

#[test]
fn validate_warns_that_a_models_textures_are_not_carried() {
    let ws = Workspace::without_donors(&["foundry"]);
    ws.edit_json("packs/foundry/source/models/floor_2x2.gltf", |g| {
        g["images"] = json!([{"uri": "steel.png"}]);
        g["textures"] = json!([{"source": 0}]);
        g["materials"][0]["pbrMetallicRoughness"] = json!({"baseColorTexture": {"index": 0}});
    });
    let out = ws.mjolnir(&["forge", "validate", "packs/foundry"]);
    assert_eq!(out.status.code(), Some(0), "a warning, not an error");
    let text = stderr(&out);
    assert!(
        text.contains("warning[texture_dropped]: packs/foundry/source/models/floor_2x2.gltf: 1 image(s) and textured materials [\"steel\"]"),
        "{text}"
    );
}

#[test]
fn validate_warns_about_a_textured_glb_too() {
    let ws = Workspace::without_donors(&["roadworks"]);
    let path = ws.path("packs/roadworks/source/models/road_curve_45_left.glb");
    let bytes = std::fs::read(&path).unwrap();
    let length = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut json: Value = serde_json::from_slice(&bytes[20..20 + length]).unwrap();
    json["images"] = serde_json::json!([{"uri": "asphalt.png"}]);
    let mut text = serde_json::to_vec(&json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let rest = &bytes[20 + length..];
    let mut glb = b"glTF".to_vec();
    glb.extend(2u32.to_le_bytes());
    glb.extend(((12 + 8 + text.len() + rest.len()) as u32).to_le_bytes());
    glb.extend((text.len() as u32).to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(&text);
    glb.extend(rest);
    std::fs::write(&path, glb).unwrap();
    let out = ws.mjolnir(&["forge", "validate", "packs/roadworks"]);
    let text = stderr(&out);
    assert!(text.contains("warning[texture_dropped]: packs/roadworks/source/models/road_curve_45_left.glb: 1 image(s)"), "{text}");
}

#[test]
fn a_failed_cooks_report_lists_each_error_with_its_file_and_location() {
    let ws = Workspace::without_donors(&["foundry"]);
    let models = ws.path("packs/foundry/source/models");
    std::fs::copy(models.join("wall_2.gltf"), models.join("wall_door.gltf")).unwrap();
    assert_eq!(ws.mjolnir(&["forge", "cook"]).status.code(), Some(1));
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    assert!(html.contains("<h2 class=\"fail\">Errors</h2>"), "{html}");
    assert!(
        html.contains("error[aperture_blocked_visual]: packs/foundry/source/geometry.json:658:9 at /blocks/7/apertures/0"),
        "the finding with its file, line and pointer"
    );
    // In a real browser, the page shows it.
    let Some(chromium) = support::chromium() else {
        return;
    };
    let page = ws.dom(chromium, "build/report.html");
    assert!(
        page.contains("aperture_blocked_visual") && page.contains("wall_door"),
        "{page}"
    );
}

/// The tag a reference names, from the set's cooked folder: `objects\mjolnir\forge\<pack>\<block>`
/// of group `ext` is `cooked/<block>/<block>.<ext>`.
fn referenced(set: &std::path::Path, tag: &forge_tags::Tag, ext: &str) -> forge_tags::Tag {
    fn refs(i: &forge_tags::Instance, out: &mut Vec<forge_tags::TagRef>) {
        for c in i.children.values() {
            match c {
                forge_tags::Child::Ref(Some(r)) => out.push(r.clone()),
                forge_tags::Child::Block { items, .. } => items.iter().for_each(|x| refs(x, out)),
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    refs(&tag.root, &mut found);
    let r = found
        .iter()
        .find(|r| forge_tags::extension(&r.group) == ext)
        .unwrap_or_else(|| panic!("no {ext} reference"));
    let block = r.path.rsplit('\\').next().unwrap();
    let bytes = std::fs::read(set.join(format!("cooked/{block}/{block}.{ext}"))).unwrap();
    forge_tags::Tag::from_bytes(&bytes).unwrap()
}

/// Crate to model to physics_model, through each rigid body to the polyhedra: one fixed
/// body per block, reaching each of the block's hulls exactly once.
fn every_hull_is_reached_once_from_the_crate(ws: &Workspace, pack: &str) {
    let set = ws.path(&format!("build/game/{pack}/all"));
    let mut blocks = 0;
    for dir in std::fs::read_dir(set.join("cooked")).unwrap() {
        let dir = dir.unwrap().path();
        let block = dir.file_name().unwrap().to_str().unwrap().to_string();
        let crate_tag = std::fs::read(dir.join(format!("{block}.crate"))).unwrap();
        let model = referenced(
            &set,
            &forge_tags::Tag::from_bytes(&crate_tag).unwrap(),
            "model",
        );
        let physics = referenced(&set, &model, "physics_model");
        let bodies = forge_tags::physics::bodies(&physics).unwrap();
        let geometry: Value =
            serde_json::from_slice(&std::fs::read(dir.join("geometry.json")).unwrap()).unwrap();
        let hulls = geometry["hulls"].as_array().unwrap().len();
        assert_eq!(bodies.len(), 1, "{pack}/{block}");
        assert_eq!(bodies[0].motion_type, "fixed", "{pack}/{block}");
        let mut reached = bodies[0].polyhedra.clone();
        reached.sort_unstable();
        assert_eq!(
            reached,
            (0..hulls).collect::<Vec<_>>(),
            "{pack}/{block}: each hull once"
        );
        blocks += 1;
    }
    assert!(blocks >= 12, "{pack}: {blocks} blocks");
}
