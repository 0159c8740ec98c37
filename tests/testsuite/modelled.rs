//! Pieces modelled in Blender and added with `forge suggest --write`: a wall with a
//! doorway, a ramp and a plate, each as a `.blend` and as a glTF Blender exported
//! (`tests/data/blender/pieces.py`, run with bpy). No geometry is written by hand.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};
use support::{donor_paks, repo, DONOR_ACTOR, DONOR_MESH};

const PIECES: &[&str] = &[
    "wall_door",
    "ramp",
    "plate",
    "wall_door_gltf",
    "ramp_gltf",
    "plate_gltf",
];

fn python() -> Option<String> {
    let python = std::env::var("BLENDER_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_bpy = Command::new(&python)
        .args(["-c", "import bpy"])
        .status()
        .is_ok_and(|s| s.success());
    has_bpy.then_some(python)
}

fn make_pieces(python: &str, models: &Path, plugged: bool) {
    let mut command = Command::new(python);
    command
        .arg(repo().join("tests/data/blender/pieces.py"))
        .arg(models);
    if plugged {
        command.arg("--plugged");
    }
    let made = command.output().unwrap();
    assert!(made.status.success(), "{}", text(&made));
}

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn entry<'a>(geometry: &'a mut Value, id: &str) -> &'a mut Value {
    geometry["blocks"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|b| b["id"] == id)
        .unwrap()
}

#[test]
fn pieces_modelled_in_blender_are_suggested_cooked_and_their_doorway_checked() {
    let Some(python) = python() else {
        support::skip("no bpy for python3 (pip install bpy), so no pieces can be modelled");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mjolnir = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mjolnir"))
            .args(args)
            .current_dir(dir.path())
            .env("MJOLNIR_CONFIG_DIR", dir.path().join("config"))
            .output()
            .unwrap()
    };
    let paks = donor_paks();
    let cook = || {
        mjolnir(&[
            "forge",
            "cook",
            "--paks",
            paks.to_str().unwrap(),
            "--donor-mesh",
            DONOR_MESH,
            "--donor-actor",
            DONOR_ACTOR,
        ])
    };
    assert!(mjolnir(&["forge", "new", "kit"]).status.success());
    let models = dir.path().join("kit/source/models");
    make_pieces(&python, &models, false);
    for piece in PIECES {
        let out = mjolnir(&["forge", "suggest", "kit", piece, "--write"]);
        assert!(out.status.success(), "{piece}: {}", text(&out));
    }
    // The pack's export script runs with bpy alone, as the guide says.
    let exported = dir.path().join("plate_export.gltf");
    let out = Command::new(&python)
        .arg(dir.path().join("kit/tools/export_gltf.py"))
        .arg(models.join("plate.blend"))
        .arg(&exported)
        .output()
        .unwrap();
    assert!(out.status.success() && exported.is_file(), "{}", text(&out));
    let geometry_path = dir.path().join("kit/source/geometry.json");
    let mut geometry = read_json(&geometry_path);
    for wall in ["wall_door", "wall_door_gltf"] {
        let door = &entry(&mut geometry, wall)["apertures"][0];
        assert_eq!(door["kind"], "door", "{wall}: {door}");
        assert_eq!(
            (door["width_m"].clone(), door["height_m"].clone()),
            (json!(1.2), json!(2.2))
        );
    }
    for ramp in ["ramp", "ramp_gltf"] {
        let support = &entry(&mut geometry, ramp)["supports"][0];
        assert_eq!(support["grade"], json!([0.25, 0.0]), "{ramp}: {support}");
    }
    // The model is the source: one ramp's entry goes, and one plate keeps only its origin.
    geometry["blocks"]
        .as_array_mut()
        .unwrap()
        .retain(|b| b["id"] != "ramp");
    *entry(&mut geometry, "plate") = json!({"id": "plate", "origin": "bottom_centre"});
    std::fs::write(
        &geometry_path,
        serde_json::to_vec_pretty(&geometry).unwrap(),
    )
    .unwrap();

    let out = mjolnir(&["forge", "validate", "kit"]);
    assert!(
        out.status.success(),
        "validate agrees with the cook: {}",
        text(&out)
    );
    let out = mjolnir(&["forge", "suggest", "kit", "plate"]);
    assert!(
        text(&out).contains("the cook takes id, origin from source/geometry.json")
            || text(&out).contains(
                "the cook takes origin from source/geometry.json and hulls, supports, joins from"
            ),
        "{}",
        text(&out)
    );
    let out = mjolnir(&[
        "forge",
        "cook",
        "--explain",
        "--paks",
        paks.to_str().unwrap(),
        "--donor-mesh",
        DONOR_MESH,
        "--donor-actor",
        DONOR_ACTOR,
    ]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("geometry: origin from source/geometry.json; hulls, supports, joins from source/models/plate.blend")
            && said.contains("geometry: origin, hulls, supports, joins from source/models/ramp.blend"),
        "--explain says where each field came from: {said}"
    );
    let shipped = |block: &str| {
        read_json(
            &dir.path()
                .join(format!("build/game/kit/all/cooked/{block}/geometry.json")),
        )
    };
    assert_eq!(shipped("ramp")["supports"][0]["grade"], json!([0.25, 0.0]));
    assert_eq!(shipped("plate")["hulls"][0]["name"], "slab");

    // A plug in the doorway of the visual mesh: the suggested aperture fails both walls.
    make_pieces(&python, &models, true);
    let out = cook();
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    for wall in ["wall_door", "wall_door_gltf"] {
        assert!(
            said.contains(&format!("kit/checks/{wall} failed"))
                && said.contains("error[aperture_blocked_visual]"),
            "{wall}: {said}"
        );
    }
    make_pieces(&python, &models, false);
    let out = cook();
    assert!(out.status.success(), "{}", text(&out));

    // A hand-tuned field survives a second suggest --write.
    let mut geometry = read_json(&geometry_path);
    entry(&mut geometry, "wall_door")["apertures"][0]["width_m"] = json!(1.1);
    std::fs::write(
        &geometry_path,
        serde_json::to_vec_pretty(&geometry).unwrap(),
    )
    .unwrap();
    let out = mjolnir(&["forge", "suggest", "kit", "wall_door", "--write"]);
    assert!(
        text(&out).contains("= apertures: kept as written"),
        "{}",
        text(&out)
    );
    let mut geometry = read_json(&geometry_path);
    assert_eq!(
        entry(&mut geometry, "wall_door")["apertures"][0]["width_m"],
        1.1
    );
    assert_eq!(
        entry(&mut geometry, "plate"),
        &json!({"id": "plate", "origin": "bottom_centre"}),
        "suggest for another block leaves this one alone"
    );
}
