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
