//! `mjolnir haf resolve` on a config folder laid out as `docs/haf.md` describes.

use crate::support;

use support::Workspace;

#[test]
fn resolve_discovers_packs_reports_and_writes_the_registry() {
    let ws = Workspace::without_donors(&[]);
    let packs = ws.path("config/haf_packs");
    std::fs::create_dir_all(packs.join("ENCReload")).unwrap();
    std::fs::write(
        packs.join("ENCReload/pack.json"),
        r#"{"schemaVersion": 1, "modId": "enc", "models": [{"resourceName": "a", "pawnDescription": "P"}]}"#,
    )
    .unwrap();
    std::fs::write(
        packs.join("yourmod.json"),
        r#"{"schemaVersion": 1, "modId": "yourmod", "loadAfter": ["enc"], "models": [{"resourceName": "b", "pawnDescription": "Q"}]}"#,
    )
    .unwrap();
    std::fs::write(packs.join("broken.json"), "{\n  \"modId\": ,\n}").unwrap();
    // A legacy base file loads first, named by its file.
    std::fs::write(
        ws.path("config/haf_models.json"),
        r#"{"models": [{"resourceName": "c", "pawnDescription": "P"}]}"#,
    )
    .unwrap();
    std::fs::write(
        ws.path("modules.json"),
        r#"[{"name": "ENCReload", "index": 1}, {"name": "YourMod", "index": 4}]"#,
    )
    .unwrap();
    let out = ws.mjolnir(&["haf", "resolve", "config", "--modules", "modules.json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read_to_string(ws.path("config/haf_load_report.txt")).unwrap();
    assert!(
        report.contains("HK module order: enc #1→ENCReload → yourmod #4→YourMod"),
        "{report}"
    );
    assert!(
        report.contains("not loaded haf_packs/broken.json:2:"),
        "{report}"
    );
    let registry: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ws.path("config/haf_registry.json")).unwrap())
            .unwrap();
    assert!(report.contains("[haf_models]  schemaVersion=0"), "{report}");
    assert!(report.contains("haf_models: unversioned"), "{report}");
    // The legacy file matches no module, so it follows the matched packs; enc, loaded
    // first, keeps the pawn both name.
    assert!(
        report.contains("CONFLICTS:\n  pawn=P 'enc' wins over 'haf_models'"),
        "{report}"
    );
    assert_eq!(registry["P"]["modId"], "enc");
    assert_eq!(registry["Q"]["model"]["resourceName"], "b");
}

#[cfg(unix)]
#[test]
fn packs_that_cannot_be_read_are_notes_and_the_rest_load() {
    let ws = Workspace::without_donors(&[]);
    let packs = ws.path("config/haf_packs");
    std::fs::create_dir_all(&packs).unwrap();
    std::fs::write(
        packs.join("good.json"),
        r#"{"schemaVersion": 1, "modId": "good", "models": [{"resourceName": "a", "pawnDescription": "P"}]}"#,
    )
    .unwrap();
    let fifo = packs.join("fifo.json");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::create_dir_all(packs.join("folder.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", packs.join("zero.json")).unwrap();
    std::os::unix::fs::symlink("self.json", packs.join("self.json")).unwrap();
    let big = vec![b' '; 17 << 20];
    std::fs::write(packs.join("huge.json"), big).unwrap();
    let out = ws.mjolnir(&["haf", "resolve", "config", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes: Vec<&str> = json["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    for name in ["fifo", "folder", "zero", "self", "huge"] {
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with(&format!("not loaded haf_packs/{name}.json"))),
            "{name}: {notes:?}"
        );
    }
    assert_eq!(json["order"][0]["modId"], "good");
}

#[test]
fn the_composed_tuning_tables_are_written_and_json_says_everything_the_report_does() {
    let ws = Workspace::without_donors(&[]);
    let packs = ws.path("config/haf_packs");
    std::fs::create_dir_all(&packs).unwrap();
    std::fs::write(
        packs.join("a.json"),
        r#"{"schemaVersion": 1, "modId": "a", "unitScales": [{"match": "Cavalry", "scale": 0.6}], "models": []}"#,
    )
    .unwrap();
    std::fs::write(
        packs.join("b.json"),
        r#"{"schemaVersion": 3, "modId": "b", "loadAfter": ["a"], "unitScales": [{"match": "Cavalry", "scale": 0.5}], "models": [{"resourceName": "x", "pawnDescription": "P", "newDial": 1}]}"#,
    )
    .unwrap();
    let out = ws.mjolnir(&["haf", "resolve", "config", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        json["warnings"][0]
            .as_str()
            .unwrap()
            .contains("models[].newDial"),
        "{json}"
    );
    assert!(
        json["tuning"][0]
            .as_str()
            .unwrap()
            .starts_with("TUNING: unitScales match=Cavalry"),
        "{json}"
    );
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ws.path("config/haf_tuning.json")).unwrap()).unwrap();
    assert_eq!(written, json["tuningTables"]);
    assert_eq!(written["unitScales"][0]["scale"], 0.3);
}

/// The JSON block of `docs/haf.md` fenced as ```json <label>.
fn example(label: &str) -> serde_json::Value {
    let docs = std::fs::read_to_string(support::repo().join("docs/haf.md")).unwrap();
    let start = docs
        .find(&format!("```json {label}\n"))
        .unwrap_or_else(|| panic!("docs/haf.md has no {label} example"));
    let body = &docs[start..].split_once('\n').unwrap().1;
    let body = body.split("```").next().unwrap();
    serde_json::from_str(body).unwrap_or_else(|e| panic!("the {label} example: {e}"))
}

#[test]
fn the_docs_examples_are_read_as_they_say() {
    let ws = Workspace::without_donors(&[]);
    let packs = ws.path("config/haf_packs");
    std::fs::create_dir_all(&packs).unwrap();
    std::fs::write(ws.path("modules.json"), example("haf-modules").to_string()).unwrap();
    let pack = serde_json::json!({
        "schemaVersion": 1, "modId": "yours", "module": "YourMod", "models": [],
        "unitScales": example("haf-unitScales"),
        "eraGrid": example("haf-eraGrid"),
        "formationThresholds": example("haf-formationThresholds"),
    });
    std::fs::write(packs.join("yours.json"), pack.to_string()).unwrap();
    let out = ws.mjolnir(&["haf", "resolve", "config", "--modules", "modules.json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read_to_string(ws.path("config/haf_load_report.txt")).unwrap();
    assert!(report.contains("yours #4→YourMod"), "{report}");
    let tuning: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ws.path("config/haf_tuning.json")).unwrap()).unwrap();
    assert_eq!(tuning["unitScales"][0]["match"], "Cavalry");
    assert_eq!(tuning["unitScales"][1]["scale"], 1.1);
    assert_eq!(
        tuning["eraGrid"]["Classical"]["row"],
        serde_json::json!([5, 4])
    );
    assert_eq!(
        tuning["formationThresholds"]["table"],
        example("haf-formationThresholds")
    );

    // The composed output the docs show, from the two packs they describe.
    std::fs::remove_file(packs.join("yours.json")).unwrap();
    let a = serde_json::json!({"schemaVersion": 1, "modId": "a", "models": [], "unitScales": [{"match": "Cavalry", "scale": 0.6}]});
    let b = serde_json::json!({
        "schemaVersion": 1, "modId": "b", "loadAfter": ["a"], "models": [],
        "unitScales": [{"match": "Cavalry", "scale": 0.5}],
        "eraGrid": example("haf-eraGrid"),
        "formationThresholds": example("haf-formationThresholds"),
    });
    std::fs::write(packs.join("a.json"), a.to_string()).unwrap();
    std::fs::write(packs.join("b.json"), b.to_string()).unwrap();
    let out = ws.mjolnir(&["haf", "resolve", "config"]);
    assert!(out.status.success());
    let tuning: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ws.path("config/haf_tuning.json")).unwrap()).unwrap();
    assert_eq!(tuning, example("haf-tuning-output"));
}
