//! The authoring guide, run: every command in `docs/authoring.md`'s `sh` blocks, in order,
//! in an empty folder, with the test donors standing in for the game's Paks.

use crate::support;

use std::process::Command;

use support::{donor_paks, repo, DONOR_ACTOR, DONOR_MESH};

/// The commands of the guide's `sh` blocks, in order.
fn guide_commands() -> Vec<String> {
    let text = std::fs::read_to_string(repo().join("docs/authoring.md")).unwrap();
    let mut commands = Vec::new();
    let mut in_sh = false;
    for line in text.lines() {
        match line.trim() {
            "```sh" => in_sh = true,
            "```" => in_sh = false,
            command if in_sh && !command.is_empty() => commands.push(command.to_string()),
            _ => {}
        }
    }
    commands
}

#[test]
fn the_authoring_guide_runs_from_new_to_a_signed_verified_archive() {
    let commands = guide_commands();
    assert!(commands.len() >= 5, "{commands:?}");
    let dir = tempfile::tempdir().unwrap();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_mjolnir"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for command in &commands {
        let out = Command::new("sh")
            .args(["-c", command])
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("MJOLNIR_CONFIG_DIR", dir.path().join("config"))
            .env("PAKS", donor_paks())
            .env("DONOR_MESH", DONOR_MESH)
            .env("DONOR_ACTOR", DONOR_ACTOR)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "`{command}` failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(dir.path().join("my-pack-0.1.0.mjolnir").is_file());
    assert!(
        dir.path().join("hub/api/v1/forge").is_file(),
        "the guide's Hub is published"
    );
}

#[test]
fn a_cook_without_a_configuration_says_how_to_make_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mjolnir"))
        .args(["forge", "cook"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("error[no_config]") && text.contains("mjolnir forge new"),
        "{text}"
    );
}

#[test]
fn a_block_added_by_dropping_in_a_model_with_ucx_hulls_cooks_and_signs() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_mjolnir"))
            .args(args)
            .current_dir(dir.path())
            .env("MJOLNIR_CONFIG_DIR", dir.path().join("config"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    run(&["forge", "new", "kit"]);
    run(&["forge", "cook"]);
    // The artist's model: a slab with its visual mesh and a UCX_ hull, no geometry typed.
    let models = dir.path().join("kit/source/models");
    let mut model: serde_json::Value =
        serde_json::from_slice(&std::fs::read(models.join("floor_2x2.gltf")).unwrap()).unwrap();
    model["nodes"] =
        serde_json::json!([{"mesh": 0, "name": "slab"}, {"mesh": 0, "name": "UCX_Slab.001"}]);
    std::fs::write(
        models.join("slab.gltf"),
        serde_json::to_vec(&model).unwrap(),
    )
    .unwrap();
    let printed = run(&["forge", "suggest", "kit", "slab"]);
    let entry: serde_json::Value = serde_json::from_slice(&printed.stdout).unwrap();
    assert_eq!(entry["hulls"][0]["name"], "slab_001");
    assert_eq!(entry["hulls"][0]["points"].as_array().unwrap().len(), 8);
    assert_eq!(entry["supports"][0]["height_m"], 0.5);
    assert_eq!(entry["joins"].as_array().unwrap().len(), 4);
    // The block's catalog entry and change row: no geometry entry, no hull typed.
    let catalog = dir.path().join("kit/mjolnir.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&catalog).unwrap()).unwrap();
    let tag = "objects\\mjolnir\\forge\\kit\\slab";
    manifest["forge_pack"]["blocks"].as_array_mut().unwrap().push(serde_json::json!(
        {"id": "slab", "name": "Slab", "tag": tag, "category": "floors", "dimensions_m": [4.0, 4.0, 0.5], "snap_m": 0.5}));
    std::fs::write(&catalog, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    let changes = dir.path().join("kit/changes.json");
    let mut list: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&changes).unwrap()).unwrap();
    list["tags"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"group": "bloc", "tag": tag, "fields": []}));
    std::fs::write(&changes, serde_json::to_vec_pretty(&list).unwrap()).unwrap();
    let geometry = std::fs::read_to_string(dir.path().join("kit/source/geometry.json")).unwrap();
    assert!(
        !geometry.contains("slab"),
        "geometry.json does not list the new block"
    );
    let paks = donor_paks();
    run(&[
        "forge",
        "cook",
        "--paks",
        paks.to_str().unwrap(),
        "--donor-mesh",
        DONOR_MESH,
        "--donor-actor",
        DONOR_ACTOR,
    ]);
    assert!(dir
        .path()
        .join("build/game/kit/all/cooked/slab/collision.fcol")
        .is_file());
    let shipped = std::fs::read_to_string(
        dir.path()
            .join("build/game/kit/all/cooked/slab/geometry.json"),
    )
    .unwrap();
    assert!(
        shipped.contains("\"slab_001\"") && shipped.contains("slab_001_top"),
        "{shipped}"
    );
    run(&["key", "new"]);
    run(&[
        "forge",
        "pack",
        "build/game/kit/all/mjolnir.json",
        "--content",
        "build/game/kit/all/content",
        "--changes",
        "build/game/kit/all/changes.json",
        "--out",
        "kit.mjolnir",
        "--sign",
    ]);
    run(&["forge", "verify", "kit.mjolnir"]);
}

#[test]
fn a_blend_source_is_exported_by_blender_and_cooks() {
    let python = std::env::var("BLENDER_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_bpy = Command::new(&python)
        .args(["-c", "import bpy"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_bpy && std::env::var_os("BLENDER").is_none() {
        support::skip(&format!(
            "no Blender (set BLENDER, or install bpy for {python}: pip install bpy)"
        ));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mjolnir = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mjolnir"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    assert!(mjolnir(&["forge", "new", "kit"]).status.success());
    let models = dir.path().join("kit/source/models");
    std::fs::remove_file(models.join("floor_2x2.gltf")).unwrap();
    // The artist's .blend: a 4 x 4 x 0.5 m slab standing on the origin, made by bpy.
    let make = format!(
        "import bpy\nbpy.ops.wm.read_factory_settings(use_empty=True)\nbpy.ops.mesh.primitive_cube_add(location=(0, 0, 0.25))\n\
         cube = bpy.context.active_object\ncube.scale = (2, 2, 0.25)\ncube.name = 'floor_2x2'\n\
         mat = bpy.data.materials.new('steel')\ncube.data.materials.append(mat)\n\
         bpy.ops.wm.save_as_mainfile(filepath={:?})\n",
        models.join("floor_2x2.blend").display().to_string()
    );
    let made = Command::new(&python).args(["-c", &make]).output().unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let out = mjolnir(&["forge", "cook"]);
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("build/report.json")).unwrap())
            .unwrap();
    let ran: Vec<&str> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert!(ran.contains(&"kit/blend/floor_2x2"), "{ran:?}");
    let blend_step = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "kit/blend/floor_2x2")
        .unwrap();
    assert!(blend_step["key"].is_string());
}

#[test]
fn suggest_write_keeps_hand_written_fields_and_replaces_only_what_it_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let mjolnir = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mjolnir"))
            .args(args)
            .current_dir(dir.path())
            .env("MJOLNIR_CONFIG_DIR", dir.path().join("config"))
            .output()
            .unwrap()
    };
    // `forge suggest kit floor_2x2 --write`, with these flags after it.
    let suggest = |more: &[&str]| {
        let mut args = vec!["forge", "suggest", "kit", "floor_2x2", "--write"];
        args.extend_from_slice(more);
        mjolnir(&args)
    };
    assert!(mjolnir(&["forge", "new", "kit"]).status.success());
    let path = dir.path().join("kit/source/geometry.json");
    let read =
        || -> serde_json::Value { serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap() };
    // A hand-written aperture and hand-tuned hulls on the scaffold's floor.
    let mut geometry = read();
    let entry = &mut geometry["blocks"][0];
    assert_eq!(entry["id"], "floor_2x2");
    entry["apertures"] = serde_json::json!([{"name": "door", "hand": true}]);
    entry["hulls"][0]["name"] = serde_json::json!("hand_tuned");
    std::fs::write(&path, serde_json::to_vec_pretty(&geometry).unwrap()).unwrap();

    let out = suggest(&[]);
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{said}");
    let kept = read();
    assert_eq!(
        kept["blocks"][0]["apertures"][0]["name"], "door",
        "never deleted"
    );
    assert_eq!(kept["blocks"][0]["hulls"][0]["name"], "hand_tuned");
    assert!(said.contains("= hulls: kept as written"), "{said}");

    // Run again: still there, byte for byte.
    let before = std::fs::read(&path).unwrap();
    assert!(suggest(&[]).status.success());
    assert_eq!(std::fs::read(&path).unwrap(), before);

    // --replace takes the model's hulls, and nothing else.
    let out = suggest(&["--replace", "hulls"]);
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{said}");
    assert!(said.contains("~ hulls: replaced"), "{said}");
    let replaced = read();
    assert_ne!(replaced["blocks"][0]["hulls"][0]["name"], "hand_tuned");
    assert_eq!(replaced["blocks"][0]["apertures"][0]["name"], "door");

    // A field a geometry entry does not have is refused with its code, and nothing is written.
    let before = std::fs::read(&path).unwrap();
    let out = suggest(&["--replace", "hull"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[unknown_geometry_field]"));
    assert_eq!(std::fs::read(&path).unwrap(), before);
}
