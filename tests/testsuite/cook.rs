//! End-to-end tests of `mjolnir forge cook`: caching, incrementality, determinism,
//! stale outputs, `--only`, cache corruption, locking and interrupted cooks.

use crate::support;

use support::{stderr, tree, Workspace};

#[test]
fn cold_then_noop_cook() {
    let ws = Workspace::with_packs(&["foundry", "foundry-wide", "roadworks"]);
    let out = ws.cook(&[]);
    let report = ws.report();
    let summary = &report["summary"];
    assert_eq!(summary["failed"], 0);
    assert_eq!(summary["cached"], 0);
    let steps = summary["steps"].as_u64().unwrap();
    assert_eq!(summary["run"].as_u64().unwrap(), steps);
    // Two validation steps, the donors, one assembly, its chunk index and the set's
    // documents per pack; per
    // block its geometry, its packed container chunks, its facts for the assembly,
    // an import, a mesh, an actor, their two Unreal packages, a collision model, MOPP
    // code, polyhedra, the ray checks and the tags; and the material instances of Foundry
    // Wide's glass panel and portal frame.
    assert_eq!(steps, 3 * 6 + 13 * (23 + 20 + 12) + 2);
    // Where the time went, phase by phase, in order, within the cook's own time.
    let phases = summary["phases_ms"].as_object().unwrap();
    let names: Vec<&str> = phases.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["open", "validate", "plan", "run", "materialize"],
        "{summary}"
    );
    let spent: f64 = phases.values().map(|ms| ms.as_f64().unwrap()).sum();
    let seconds = summary["seconds"].as_f64().unwrap();
    assert!(
        phases["run"].as_f64().unwrap() > 0.0 && spent <= seconds * 1000.0 + 0.1,
        "{summary}"
    );
    let page = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    let shown = page.split("<p>Time by phase: ").nth(1).unwrap_or_default();
    assert!(
        shown.starts_with("open ") && shown.contains(", materialize "),
        "{page}"
    );
    assert!(ws
        .path("build/game/foundry/all/content/foundry_P.utoc")
        .is_file());
    assert!(ws
        .path("build/game/foundry/all/content/foundry_P.ucas")
        .is_file());
    assert!(ws
        .path("build/game/foundry/all/content/foundry_P.pak")
        .is_file());
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(
        line.starts_with(&format!(
            "cooked 3 packs: {steps} steps, 0 cached, {steps} run, "
        )),
        "{line}"
    );
    assert!(ws.path("build/game/foundry/all/mjolnir.json").is_file());
    assert!(ws
        .path("build/game/foundry/all/cooked/floor_2x2/static_mesh.fmsh")
        .is_file());
    assert!(ws
        .path("build/game/foundry/all/cooked/floor_2x2/actor.json")
        .is_file());
    assert!(ws
        .path("build/game/roadworks/all/cooked/road_curve_90_left/geometry.json")
        .is_file());
    for step in report["steps"].as_array().unwrap() {
        assert_eq!(step["key"].as_str().unwrap().len(), 64, "{step}");
        assert!(!step["outputs"].as_array().unwrap().is_empty());
    }

    ws.cook(&[]);
    let summary = ws.report()["summary"].clone();
    assert_eq!(summary["run"], 0, "a no-op cook runs nothing: {summary}");
    assert_eq!(summary["cached"].as_u64().unwrap(), steps);
    assert_eq!(summary["materialized"]["written"], 0);
}

/// The `.ucas` is written from a recipe; whatever stands in its place (a FIFO, a longer
/// file of other bytes, one of the same length) is replaced, never read as it or waited on.
#[cfg(unix)]
#[test]
fn a_spliced_set_file_replaced_by_anything_is_written_again() {
    let ws = Workspace::without_donors(&["foundry"]);
    ws.cook(&[]);
    let ucas = ws.path("build/game/foundry/all/content/foundry_P.ucas");
    let right = std::fs::read(&ucas).unwrap();
    let mut same_length = right.clone();
    same_length[right.len() / 2] ^= 1;
    let longer = vec![0u8; right.len() * 4];
    for stand_in in ["fifo", "longer", "same length"] {
        std::fs::remove_file(&ucas).unwrap();
        match stand_in {
            "fifo" => assert!(std::process::Command::new("mkfifo")
                .arg(&ucas)
                .status()
                .unwrap()
                .success()),
            "longer" => std::fs::write(&ucas, &longer).unwrap(),
            _ => std::fs::write(&ucas, &same_length).unwrap(),
        }
        ws.cook(&[]);
        let summary = ws.report()["summary"].clone();
        assert_eq!(
            summary["materialized"]["written"], 1,
            "{stand_in}: {summary}"
        );
        assert_eq!(std::fs::read(&ucas).unwrap(), right, "{stand_in}");
    }
    // And once right, it stays: a no-op writes nothing.
    ws.cook(&[]);
    assert_eq!(ws.report()["summary"]["materialized"]["written"], 0);
    // The same bytes under a stamp the cache does not know are read back and kept.
    std::fs::remove_file(&ucas).unwrap();
    std::fs::write(&ucas, &right).unwrap();
    let inode = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&ucas).unwrap());
    ws.cook(&[]);
    assert_eq!(ws.report()["summary"]["materialized"]["written"], 0);
    let kept = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&ucas).unwrap());
    assert_eq!(kept, inode, "the file was not replaced");
}

#[test]
fn damaged_set_folders_are_put_right_by_the_next_cook() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    let edited = ws.path("build/game/foundry/all/cooked/floor_2x2/actor.json");
    let deleted = ws.path("build/game/foundry/all/content/foundry_P.utoc");
    let stray = ws.path("build/game/foundry/all/cooked/floor_2x2/notes.txt");
    let (edited_bytes, deleted_bytes) = (
        std::fs::read(&edited).unwrap(),
        std::fs::read(&deleted).unwrap(),
    );
    // Same length, written in place: only the file's stamp gives it away.
    let mut damaged = edited_bytes.clone();
    damaged[0] ^= 0x20;
    std::fs::write(&edited, &damaged).unwrap();
    std::fs::remove_file(&deleted).unwrap();
    std::fs::write(&stray, b"left by hand").unwrap();

    ws.cook(&[]);
    let summary = ws.report()["summary"].clone();
    assert_eq!(summary["run"], 0, "{summary}");
    assert_eq!(summary["materialized"]["written"], 2, "{summary}");
    assert_eq!(summary["materialized"]["removed"], 1, "{summary}");
    assert_eq!(std::fs::read(&edited).unwrap(), edited_bytes);
    assert_eq!(std::fs::read(&deleted).unwrap(), deleted_bytes);
    assert!(!stray.exists());
}

#[test]
fn one_model_edit_reruns_that_block_and_the_sets_documents() {
    let ws = Workspace::with_packs(&["foundry", "roadworks"]);
    ws.cook(&[]);
    ws.edit("packs/foundry/source/models/floor_2x2.gltf", |t| {
        t.replacen("\"name\":\"steel\"", "\"name\":\"steel_plate\"", 1)
            .replacen("\"name\": \"steel\"", "\"name\": \"steel_plate\"", 1)
    });
    let out = ws.cook(&["--explain"]);
    // A material's name is in the block's facts, not in its container chunks: the set's
    // container is not laid out again.
    assert_eq!(
        ws.ran(),
        [
            "foundry/actor/floor_2x2",
            "foundry/block_facts/floor_2x2",
            "foundry/checks/floor_2x2",
            "foundry/documents/all",
            "foundry/import/floor_2x2",
            "foundry/mesh/floor_2x2",
            "foundry/unreal_mesh/floor_2x2"
        ]
    );
    assert!(
        stderr(&out).contains("ran foundry/import/floor_2x2: source/models/floor_2x2.gltf changed"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn one_geometry_edit_stops_at_the_changed_block() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    ws.edit_json("packs/foundry/source/geometry.json", |g| {
        let block = g["blocks"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|b| b["id"] == "wall_2")
            .unwrap();
        block["hulls"][0]["material"] = serde_json::json!("steel");
    });
    ws.cook(&[]);
    // The geometry step re-splits the file; only wall_2's part changed, so no import runs.
    assert_eq!(
        ws.ran(),
        [
            "foundry/actor/wall_2",
            "foundry/block_facts/wall_2",
            "foundry/block_geometry/wall_2",
            "foundry/checks/wall_2",
            "foundry/collision/wall_2",
            "foundry/documents/all",
            "foundry/geometry",
            "foundry/mopp/wall_2",
            "foundry/polyhedra/wall_2",
            "foundry/tags/wall_2"
        ]
    );
    let inventory =
        std::fs::read_to_string(ws.path("build/game/foundry/all/cooked/wall_2/geometry.json"))
            .unwrap();
    assert!(inventory.contains("\"material\":\"steel\""));
}

#[test]
fn clean_cooks_are_byte_identical_across_job_counts() {
    let a = Workspace::with_packs(&["foundry", "foundry-wide", "roadworks"]);
    let b = Workspace::with_packs(&["foundry", "foundry-wide", "roadworks"]);
    a.cook(&["--jobs", "1"]);
    b.cook(&["--jobs", "2"]);
    let (ta, tb) = (tree(&a.path("build/game")), tree(&b.path("build/game")));
    assert!(ta.len() > 100);
    assert_eq!(ta.keys().collect::<Vec<_>>(), tb.keys().collect::<Vec<_>>());
    for (name, bytes) in &ta {
        assert!(tb[name] == *bytes, "{name} differs between -j1 and -j2");
    }
    // A second clean cook of the same sources, without the cache, gives the same bytes.
    std::fs::remove_dir_all(a.path("build")).unwrap();
    a.cook(&["--no-cache", "--jobs", "2"]);
    assert!(tree(&a.path("build/game")) == ta);
}

/// The blob of a step's first output, from the report of the cook that ran it.
fn blob_of(ws: &Workspace, report: &serde_json::Value, step_id: &str) -> std::path::PathBuf {
    let step = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == step_id)
        .unwrap();
    let hash = step["outputs"][0]["hash"].as_str().unwrap();
    ws.path(&format!("build/cache/blobs/{}/{hash}", &hash[..2]))
}

fn flip_byte(path: &std::path::Path) -> Vec<u8> {
    let good = std::fs::read(path).unwrap();
    let mut bad = good.clone();
    bad[40] ^= 0xff;
    std::fs::write(path, bad).unwrap();
    good
}

#[test]
fn corrupt_cache_entries_are_detected_and_rebuilt() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    let expected = tree(&ws.path("build/game"));
    let cold = ws.report();

    // A damaged blob is found when its bytes are needed (here, to restore a deleted set
    // file); the cook retries with every hit verified and rebuilds the step.
    let blob = blob_of(&ws, &cold, "foundry/mesh/floor_2x2");
    let good = flip_byte(&blob);
    std::fs::remove_file(ws.path("build/game/foundry/all/cooked/floor_2x2/static_mesh.fmsh"))
        .unwrap();
    let out = ws.cook(&[]);
    assert!(
        stderr(&out).contains("warning[cache_corrupt]"),
        "{}",
        stderr(&out)
    );
    assert_eq!(ws.ran(), ["foundry/mesh/floor_2x2"]);
    let report = ws.report();
    let step = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "foundry/mesh/floor_2x2")
        .unwrap();
    assert_eq!(step["reason"]["reason"], "cache_entry_bad", "{step}");
    assert_eq!(report["summary"]["verified_hits"], true);
    assert_eq!(std::fs::read(&blob).unwrap(), good, "the blob was rebuilt");
    assert!(tree(&ws.path("build/game")) == expected);

    // The same when a step that runs needs a damaged upstream output: the set's documents
    // read each block's facts.
    let facts = blob_of(&ws, &cold, "foundry/block_facts/floor_2x2");
    let good_facts = flip_byte(&facts);
    ws.edit("packs/foundry/changes.json", |t| {
        t.replacen("\"fields\": []", "\"fields\": [ ]", 1)
    });
    let out = ws.cook(&[]);
    assert!(
        stderr(&out).contains("warning[cache_corrupt]"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        ws.ran(),
        ["foundry/block_facts/floor_2x2", "foundry/documents/all"]
    );
    assert_eq!(std::fs::read(&facts).unwrap(), good_facts);

    // A torn action log loses only what it no longer holds: those steps run again.
    let log = ws.path("build/cache/actions.log");
    let text = std::fs::read(&log).unwrap();
    std::fs::write(&log, &text[..text.len() / 2]).unwrap();
    ws.cook(&[]);
    assert!(!ws.ran().is_empty());
    ws.cook(&[]);
    assert!(ws.ran().is_empty());
    let after = tree(&ws.path("build/game"));
    assert!(after.keys().eq(expected.keys()));
    assert!(after
        .iter()
        .filter(|(k, _)| !k.ends_with("changes.json"))
        .all(|(k, v)| expected[k] == *v));
}

#[test]
fn removed_and_renamed_blocks_leave_the_set() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    assert!(ws.path("build/game/foundry/all/cooked/column_1").is_dir());
    // Rename column_1 to pillar_1 everywhere.
    for rel in [
        "packs/foundry/mjolnir.json",
        "packs/foundry/source/geometry.json",
        "packs/foundry/changes.json",
    ] {
        ws.edit(rel, |t| t.replace("column_1", "pillar_1"));
    }
    for ext in ["gltf", "bin"] {
        std::fs::rename(
            ws.path(&format!("packs/foundry/source/models/column_1.{ext}")),
            ws.path(&format!("packs/foundry/source/models/pillar_1.{ext}")),
        )
        .unwrap();
    }
    ws.edit("packs/foundry/source/models/pillar_1.gltf", |t| {
        t.replace("column_1", "pillar_1")
    });
    ws.cook(&[]);
    assert!(!ws.path("build/game/foundry/all/cooked/column_1").exists());
    assert!(ws
        .path("build/game/foundry/all/cooked/pillar_1/static_mesh.fmsh")
        .is_file());
    // Debris in the set folder goes too.
    std::fs::write(ws.path("build/game/foundry/all/cooked/stray.txt"), b"x").unwrap();
    ws.cook(&[]);
    assert!(!ws.path("build/game/foundry/all/cooked/stray.txt").exists());
    let inventory =
        std::fs::read_to_string(ws.path("build/game/foundry/all/inventory.json")).unwrap();
    assert!(!inventory.contains("column_1") && inventory.contains("pillar_1"));
}

#[test]
fn only_writes_a_reduced_diagnostic_set() {
    let ws = Workspace::with_packs(&["foundry", "roadworks"]);
    ws.cook(&["--only", "floor_2x2", "--only", "wall_door"]);
    let set = ws.path("build/game/foundry/floor_2x2+wall_door");
    let files = tree(&set);
    let cooked: std::collections::BTreeSet<&str> = files
        .keys()
        .filter_map(|k| k.strip_prefix("cooked/"))
        .filter_map(|k| k.split('/').next())
        .collect();
    assert_eq!(
        cooked.into_iter().collect::<Vec<_>>(),
        ["floor_2x2", "wall_door"]
    );
    // Its change list declares only its own blocks' tags.
    let changes: serde_json::Value = serde_json::from_slice(&files["changes.json"]).unwrap();
    let tags: Vec<&str> = changes["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["tag"].as_str().unwrap())
        .collect();
    assert_eq!(
        tags,
        [
            "objects\\mjolnir\\forge\\foundry\\floor_2x2",
            "objects\\mjolnir\\forge\\foundry\\wall_door"
        ]
    );
    assert!(
        !ws.path("build/game/foundry/all").exists(),
        "the full set's folder is untouched"
    );
    assert!(
        !ws.path("build/game/roadworks").exists(),
        "packs without those blocks are not built"
    );
    let manifest: serde_json::Value = serde_json::from_slice(&files["mjolnir.json"]).unwrap();
    assert_eq!(
        manifest["diagnostic"]["only"],
        serde_json::json!(["floor_2x2", "wall_door"])
    );
    assert_eq!(manifest["diagnostic"]["full_set_version"], "0.2.0");
    assert_eq!(
        manifest["forge_pack"]["blocks"].as_array().unwrap().len(),
        2
    );
    // The reduced manifest is still a valid catalog, and says it is diagnostic.
    let (parsed, _) =
        forge_contract::parse_manifest("m", std::str::from_utf8(&files["mjolnir.json"]).unwrap())
            .unwrap();
    assert!(parsed.diagnostic);

    let out = ws.mjolnir(&["forge", "cook", "--only", "no_such_block"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no_such_block"));
}

#[test]
fn a_second_cook_is_locked_out() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    let lock = std::fs::OpenOptions::new()
        .write(true)
        .open(ws.path("build/.lock"))
        .unwrap();
    lock.try_lock().unwrap();
    let before = tree(&ws.path("build/game"));
    let out = ws.mjolnir(&["forge", "cook"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("build_locked"), "{}", stderr(&out));
    assert!(tree(&ws.path("build/game")) == before);
    drop(lock);
    ws.cook(&[]);
}

#[test]
fn contract_errors_stop_the_cook_before_cooking() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.edit_json("packs/foundry/mjolnir.json", |m| {
        m["forge_pack"]["blocks"][3]["light"] = serde_json::json!({"offset_m": [0, 0, 1], "color_rgb": [1, 1, 1], "intensity_cd": 70, "radius_m": 101});
        m["forge_pack"]["blocks"][5]["tag"] = serde_json::json!("objects\\mjolnir\\forge\\other\\wall_4");
    });
    let out = ws.mjolnir(&["forge", "cook"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("error[bad_light]") && err.contains("/forge_pack/blocks/3/light/radius_m"),
        "{err}"
    );
    assert!(
        err.contains("error[bad_tag]") && err.contains("/forge_pack/blocks/5/tag"),
        "{err}"
    );
    assert!(!ws.path("build/game").exists(), "nothing was materialized");
    let report = ws.report();
    assert_eq!(report["summary"]["failed"], 1);
    assert!(
        report["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["kind"] != "import"),
        "no cooking started"
    );
    let codes: Vec<&str> = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["bad_light", "bad_tag"]);
}

#[test]
fn a_broken_model_fails_its_block_and_the_rest_still_cook() {
    let ws = Workspace::with_packs(&["foundry"]);
    std::fs::write(ws.path("packs/foundry/source/models/wall_2.bin"), b"short").unwrap();
    let out = ws.mjolnir(&["forge", "cook", "--jobs", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("gltf_truncated_buffer"),
        "{}",
        stderr(&out)
    );
    let report = ws.report();
    let failed: Vec<&str> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["status"] == "failed")
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["foundry/import/wall_2"]);
    assert_eq!(
        report["summary"]["run"].as_u64().unwrap(),
        3 + 13 * 22 + 5,
        "every other block still cooked, and wall_2's geometry, collision and tags"
    );
    assert_eq!(
        report["summary"]["skipped"].as_u64().unwrap(),
        10,
        "wall_2's mesh, actor, Unreal packages, checks, packed chunks and facts, the assembly, its chunk index and the set's documents"
    );
    assert!(
        !ws.path("build/game").exists(),
        "a failed cook materializes nothing"
    );
}

#[test]
fn symlinked_sources_are_refused() {
    let ws = Workspace::with_packs(&["foundry"]);
    let model = ws.path("packs/foundry/source/models/wall_2.bin");
    std::fs::rename(&model, ws.path("elsewhere.bin")).unwrap();
    std::os::unix::fs::symlink(ws.path("elsewhere.bin"), &model).unwrap();
    let out = ws.mjolnir(&["forge", "cook"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("symlinked_source"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn killed_cooks_are_completed_by_the_next_one() {
    let reference = Workspace::with_packs(&["foundry", "foundry-wide"]);
    reference.cook(&[]);
    let expected = tree(&reference.path("build/game"));
    let ws = Workspace::with_packs(&["foundry", "foundry-wide"]);
    // Pseudo-random kill points across the whole cook, the same ones on every run.
    let mut state = 0x9e37_79b9_u64;
    let delays: Vec<u64> = (0..12)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % 400
        })
        .collect();
    for delay_ms in delays {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mjolnir"))
            .current_dir(ws.dir.path())
            .args(["forge", "cook", "--no-cache", "--jobs", "2"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        ws.cook(&[]);
        assert!(
            tree(&ws.path("build/game")) == expected,
            "after a kill at {delay_ms} ms"
        );
    }
}

#[test]
fn an_edit_at_the_same_size_with_its_mtime_put_back_is_seen() {
    let ws = Workspace::with_packs(&["foundry"]);
    let model = ws.path("packs/foundry/source/models/floor_2x2.gltf");
    let actor = ws.path("build/game/foundry/all/cooked/floor_2x2/actor.json");
    ws.cook(&[]);
    // Out of the racy window, a second cook trusts every stamp it records.
    std::thread::sleep(std::time::Duration::from_millis(150));
    ws.cook(&[]);
    assert!(ws.ran().is_empty());

    let put_back = |path: &std::path::Path, edit: &dyn Fn(&mut Vec<u8>)| {
        let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
        let mut bytes = std::fs::read(path).unwrap();
        let size = bytes.len();
        edit(&mut bytes);
        assert_eq!(bytes.len(), size);
        std::fs::write(path, &bytes).unwrap();
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    };
    let good_actor = std::fs::read(&actor).unwrap();
    put_back(&model, &|b| {
        let at = b.windows(7).position(|w| w == b"\"steel\"").unwrap();
        b[at + 4] = b'a';
    });
    put_back(&actor, &|b| b[0] ^= 0x20);
    ws.cook(&[]);
    assert!(
        ws.ran().contains(&"foundry/import/floor_2x2".to_string()),
        "{:?}",
        ws.ran()
    );
    assert_eq!(
        std::fs::read(&actor).unwrap(),
        good_actor,
        "the tampered output is rewritten"
    );
}

#[test]
fn damaged_or_swapped_action_records_are_rebuilt_never_trusted() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    let expected = tree(&ws.path("build/game"));
    let log = ws.path("build/cache/actions.log");
    let edit_log = |change: &dyn Fn(String) -> String| {
        let text = std::fs::read_to_string(&log).unwrap();
        let changed = change(text.clone());
        assert_ne!(text, changed);
        std::fs::write(&log, changed).unwrap();
    };

    // A corrupted output name: the step runs again and the log heals.
    edit_log(&|t| {
        t.replacen(
            "\"name\":\"static_mesh.fmsh\"",
            "\"name\":\"static_mesh.fmsX\"",
            1,
        )
    });
    ws.cook(&[]);
    assert_eq!(ws.ran().len(), 1, "{:?}", ws.ran());
    ws.cook(&[]);
    assert!(ws.ran().is_empty(), "healed: {:?}", ws.ran());
    assert!(tree(&ws.path("build/game")) == expected);

    // An output name that climbs out of the build folder is never materialized.
    edit_log(&|t| {
        t.replacen(
            "\"name\":\"actor.json\"",
            "\"name\":\"../../../../../x.json\"",
            1,
        )
    });
    ws.cook(&[]);
    assert!(!ws.path("x.json").exists() && !ws.path("build/x.json").exists());
    assert!(tree(&ws.path("build/game")) == expected);

    // Two blocks' mesh records with their hashes swapped: without the seal binding each
    // record to its key, each block would ship the other's mesh.
    edit_log(&|t| {
        let hashes: Vec<String> = t
            .match_indices("\"name\":\"static_mesh.fmsh\",\"hash\":\"")
            .take(2)
            .map(|(at, m)| t[at + m.len()..at + m.len() + 64].to_string())
            .collect();
        t.replacen(&hashes[0], "SWAP", 1)
            .replacen(&hashes[1], &hashes[0], 1)
            .replacen("SWAP", &hashes[1], 1)
    });
    ws.cook(&[]);
    assert_eq!(
        ws.ran().len(),
        2,
        "both records were refused: {:?}",
        ws.ran()
    );
    assert!(tree(&ws.path("build/game")) == expected);
}

#[test]
fn a_symlinked_set_folder_is_never_swept() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    let elsewhere = ws.path("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("precious.txt"), b"keep me").unwrap();
    let set = ws.path("build/game/foundry/all");
    std::fs::remove_dir_all(&set).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &set).unwrap();
    let out = ws.mjolnir(&["forge", "cook"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("error[symlinked_output]"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(elsewhere.join("precious.txt")).unwrap(),
        b"keep me"
    );
}

#[test]
fn only_with_many_blocks_gets_a_short_folder_name() {
    let ws = Workspace::with_packs(&["foundry"]);
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ws.path("packs/foundry/mjolnir.json")).unwrap())
            .unwrap();
    let mut args = Vec::new();
    for block in manifest["forge_pack"]["blocks"].as_array().unwrap() {
        args.push("--only".to_string());
        args.push(block["id"].as_str().unwrap().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ws.cook(&args);
    let sets: Vec<String> = std::fs::read_dir(ws.path("build/game/foundry"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(sets.len(), 1);
    assert!(sets[0].starts_with("only-23-blocks-"), "{sets:?}");
}

#[test]
fn a_sealed_noop_cook_still_sees_every_change() {
    let ws = Workspace::with_packs(&["foundry"]);
    let seal = ws.path("build/cache/noop.seal");
    let settle = || {
        // Out of the racy window, a cook that changes nothing seals.
        std::thread::sleep(std::time::Duration::from_millis(150));
        ws.cook(&[]);
        assert!(seal.exists());
    };
    ws.cook(&[]);
    settle();
    // What an author edits is checked first, the set folder's files last: the check stops
    // at the first stamp that changed.
    let text = std::fs::read_to_string(&seal).unwrap();
    let sealed: Vec<&str> = text
        .lines()
        .skip(3)
        .map(|l| l.splitn(5, ' ').nth(4).unwrap())
        .collect();
    let first = |part: &str| sealed.iter().position(|p| p.contains(part)).unwrap();
    assert!(first("packs/foundry/source/models/") < first("build/cache/actions.log"));
    assert!(first("build/cache/actions.log") < first("build/game/"));
    assert!(sealed
        .iter()
        .skip(first("build/game/"))
        .all(|p| !p.contains("packs/")));
    // Every set file and every folder between it and the set folder, each once.
    let set = "build/game/foundry/all";
    let files = tree(&ws.path(set));
    let mut folders: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for rel in files.keys() {
        let mut folder = std::path::Path::new(rel.as_str());
        while let Some(parent) = folder.parent() {
            folders.insert(parent.to_string_lossy().into_owned());
            folder = parent;
        }
    }
    for rel in files.keys().chain(&folders) {
        let path = match rel.as_str() {
            "" => set.to_string(),
            rel => format!("{set}/{rel}"),
        };
        let times = sealed.iter().filter(|p| p.ends_with(&path)).count();
        assert_eq!(times, 1, "{path} sealed {times} times");
    }
    let report = std::fs::read(ws.path("build/report.json")).unwrap();
    let out = ws.cook(&[]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 run"));
    assert_eq!(
        std::fs::read(ws.path("build/report.json")).unwrap(),
        report,
        "the fast path"
    );

    let stray = ws.path("build/game/foundry/all/cooked/wall_4/notes.txt");
    std::fs::write(&stray, b"left by hand").unwrap();
    ws.cook(&[]);
    assert!(!stray.exists(), "a stray file breaks the seal and is swept");

    settle();
    ws.edit("packs/foundry/source/geometry.json", |t| {
        t.replacen("  ", "   ", 1)
    });
    ws.cook(&[]);
    assert!(
        !seal.exists() || ws.ran().is_empty(),
        "a full cook ran and unsealed"
    );
    settle();
    let report = std::fs::read(ws.path("build/report.json")).unwrap();
    std::fs::copy(
        ws.path("packs/foundry/source/models/floor_2x2.gltf"),
        ws.path("packs/foundry/source/models/floor_2x2.glb.txt"),
    )
    .unwrap();
    ws.cook(&[]);
    // The full path writes a new report (its timings differ); the fast path writes none.
    // It may seal again afterwards, which is right: the new seal covers the new file.
    assert_ne!(
        std::fs::read(ws.path("build/report.json")).unwrap(),
        report,
        "a new file among the models is looked at"
    );
}

#[test]
fn an_output_folder_whose_name_is_not_utf8_cooks() {
    use std::os::unix::ffi::OsStrExt;
    let ws = Workspace::with_packs(&["foundry"]);
    let out = ws.dir.path().join(std::ffi::OsStr::from_bytes(b"out\xff"));
    for _ in 0..2 {
        let result = std::process::Command::new(env!("CARGO_BIN_EXE_mjolnir"))
            .current_dir(ws.dir.path())
            .arg("forge")
            .arg("cook")
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    }
    assert!(out.join("game/foundry/all/mjolnir.json").is_file());
}

#[test]
fn watch_rebuilds_once_for_a_burst_of_saves() {
    use std::io::BufRead;
    let ws = Workspace::with_packs(&["roadworks"]);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mjolnir"))
        .args(["forge", "cook", "--watch"])
        .current_dir(ws.dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let (said_tx, said) = std::sync::mpsc::channel();
    let stderr_pipe = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr_pipe)
            .lines()
            .map_while(Result::ok)
        {
            let _ = said_tx.send(line);
        }
    });
    let next = |rx: &std::sync::mpsc::Receiver<String>, secs| {
        rx.recv_timeout(std::time::Duration::from_secs(secs)).ok()
    };
    let first = next(&rx, 120).expect("the first cook");
    assert!(first.starts_with("cooked 1 pack"), "{first}");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let model = "packs/roadworks/source/geometry.json";
    for spaces in 1..=3 {
        ws.edit(model, |t| {
            t.replacen('\n', &format!("\n{}", " ".repeat(spaces)), 1)
        });
    }
    let second = next(&rx, 60).expect("one rebuild");
    assert!(
        second.contains(" run") && !second.contains(" 0 run"),
        "{second}"
    );
    assert_eq!(next(&rx, 2), None, "a burst of saves is one rebuild");
    let changed: Vec<String> = said
        .try_iter()
        .filter(|l| l.starts_with("changed: "))
        .collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(
        changed[0].contains("source/geometry.json"),
        "the rebuild names the file: {changed:?}"
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// No cooker sees a path: a cook in another folder, through an absolute `--config`, with
/// a failing block drawn into its preview, makes the same bytes, and only the printed
/// findings name the folder.
#[test]
fn cooks_in_two_folders_make_the_same_bytes() {
    let cook_in = || {
        let ws = Workspace::with_packs(&["foundry"]);
        let config = ws.path("pipeline.toml");
        let toml = std::fs::read_to_string(&config).unwrap();
        std::fs::write(&config, toml + "\n[render]\nenabled = true\nsize = 64\n").unwrap();
        let models = ws.path("packs/foundry/source/models");
        std::fs::copy(models.join("wall_2.gltf"), models.join("wall_door.gltf")).unwrap();
        let out = ws.mjolnir(&[
            "forge",
            "cook",
            "--keep-going",
            "--config",
            config.to_str().unwrap(),
        ]);
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{text}");
        let pack_dir = ws.path("packs/foundry").display().to_string();
        assert!(
            text.contains(&pack_dir),
            "findings name the real folder when printed: {text}"
        );
        ws
    };
    let (a, b) = (cook_in(), cook_in());
    assert_ne!(a.path(""), b.path(""));
    let blobs = |ws: &Workspace| -> Vec<String> {
        tree(&ws.path("build/cache/blobs")).into_keys().collect()
    };
    assert!(!blobs(&a).is_empty());
    assert_eq!(blobs(&a), blobs(&b), "every cooked output, by content hash");
    let previews = tree(&a.path("build/render"));
    assert!(
        previews.keys().any(|k| k.ends_with("wall_door.png")),
        "{:?}",
        previews.keys()
    );
    assert_eq!(previews, tree(&b.path("build/render")));
}

/// The report page reads the set's checks report bounded and regular-only: a FIFO put in
/// its place is written over by the cook before the page is made, and the page still shows
/// the checks of the block the cook changed. It draws a card for each block a step ran
/// for, and one line for the blocks that came from the cache.
#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_the_checks_report_is_replaced_before_the_page_reads_it() {
    let ws = Workspace::without_donors(&["foundry"]);
    ws.cook(&[]);
    let page = || std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    let passes = |html: &str| html.matches("class=\"pass\"").count();
    let cards = |html: &str| html.matches("class=\"card\"").count();
    let blocks = cards(&page());
    assert!(
        passes(&page()) > blocks,
        "the cold cook's page shows every block's checks"
    );
    assert!(!page().contains("came from the cache"), "{}", page());
    // The floor's card alone: its checks as the set's report has them.
    let floor = |html: &str| -> String {
        let card = html
            .split("<div class=\"card\"><b>floor_2x2</b>")
            .nth(1)
            .unwrap();
        card.split("</div>").next().unwrap().to_string()
    };
    let shown = passes(&floor(&page()));
    assert!(shown > 0, "the page shows the floor's checks");
    let checks = ws.path("build/game/foundry/all/checks.json");
    let right = std::fs::read(&checks).unwrap();
    std::fs::remove_file(&checks).unwrap();
    assert!(std::process::Command::new("mkfifo")
        .arg(&checks)
        .status()
        .unwrap()
        .success());
    // An edit of the floor's model: its card alone, its checks read from the report.
    let model = "packs/foundry/source/models/floor_2x2.gltf";
    ws.edit(model, |t| {
        t.replacen("\"name\":\"steel\"", "\"name\":\"steel_plate\"", 1)
            .replacen("\"name\": \"steel\"", "\"name\": \"steel_plate\"", 1)
    });
    ws.cook(&[]);
    assert_eq!(std::fs::read(&checks).unwrap(), right);
    assert_eq!(cards(&page()), 1, "{}", page());
    assert_eq!(passes(&floor(&page())), shown);
    let rest = format!("{} blocks came from the cache", blocks - 1);
    assert!(page().contains(&rest), "{}", page());
}
