//! The loader's resolution, step by step, and the sample report of `docs/haf.md`.

use haf::{parse, resolve, Module, Pack};
use serde_json::{json, Value};

fn pack(file: &str, name: &str, value: Value) -> Pack {
    parse(file, name, &value.to_string()).unwrap()
}

fn models(prefix: &str, n: usize) -> Value {
    (0..n)
        .map(|i| json!({"resourceName": format!("{prefix}{i}"), "pawnDescription": format!("Pawn_{prefix}{i}")}))
        .collect()
}

fn module(name: &str, index: u32) -> Module {
    Module {
        name: name.into(),
        guid: None,
        index,
    }
}

#[test]
fn the_seeds_sample_report_line_for_line() {
    let enc = pack(
        "haf_packs/ENCReload/pack.json",
        "ENCReload",
        json!({"schemaVersion": 1, "modId": "enc", "module": "ENCReload", "models": models("enc", 13)}),
    );
    let yours = pack(
        "haf_packs/yourmod.json",
        "yourmod",
        json!({"schemaVersion": 1, "modId": "yourmod", "loadAfter": ["enc"], "models": models("y", 1)}),
    );
    let modules = [
        module("ENCReload", 1),
        module("Other", 2),
        module("YourMod", 4),
    ];
    let report = resolve(vec![yours, enc], Some(&modules)).report();
    let expected = "\
HAF load report  (regenerated every load)
packs=2  models=14  conflicts=0  overrides applied=0  schema implemented=1 (reads 1+)

[enc]      schemaVersion=1  models=13  file=pack.json
[yourmod]  schemaVersion=1  models=1   file=yourmod.json

RESOLUTION:
  HK module order: enc #1→ENCReload → yourmod #4→YourMod
";
    assert_eq!(report, expected);
}

#[test]
fn duplicates_and_missing_dependencies_are_skipped_iteratively() {
    let packs = vec![
        pack("a.json", "a", json!({"modId": "a", "models": []})),
        pack("a2.json", "a2", json!({"modId": "a", "models": []})),
        pack(
            "b.json",
            "b",
            json!({"modId": "b", "dependsOn": ["c"], "models": []}),
        ),
        pack(
            "c.json",
            "c",
            json!({"modId": "c", "dependsOn": ["gone"], "models": []}),
        ),
    ];
    let r = resolve(packs, None);
    let ids: Vec<&str> = r.order.iter().map(|p| p.pack.mod_id.as_str()).collect();
    assert_eq!(ids, ["a"]);
    let report = r.report();
    assert!(
        report.contains("skipped a (a2.json): duplicate modId, a.json keeps it"),
        "{report}"
    );
    assert!(
        report.contains("skipped c (c.json): it depends on gone"),
        "{report}"
    );
    assert!(
        report.contains("skipped b (b.json): it depends on c"),
        "{report}"
    );
    assert!(
        report.contains("a (no matching module — alphabetical)"),
        "{report}"
    );
}

#[test]
fn constraints_reorder_and_a_cycle_is_broken_loudly() {
    let packs = vec![
        pack(
            "x.json",
            "x",
            json!({"schemaVersion": 1, "modId": "x", "loadAfter": ["z"], "models": []}),
        ),
        pack(
            "y.json",
            "y",
            json!({"schemaVersion": 1, "modId": "y", "loadAfter": ["absent"], "models": []}),
        ),
        pack(
            "z.json",
            "z",
            json!({"schemaVersion": 1, "modId": "z", "models": []}),
        ),
    ];
    let r = resolve(packs, None);
    let ids: Vec<&str> = r.order.iter().map(|p| p.pack.mod_id.as_str()).collect();
    assert_eq!(ids, ["y", "z", "x"]);
    let cyclic = vec![
        pack(
            "a.json",
            "a",
            json!({"modId": "a", "loadAfter": ["b"], "models": []}),
        ),
        pack(
            "b.json",
            "b",
            json!({"modId": "b", "loadAfter": ["a"], "models": []}),
        ),
    ];
    let r = resolve(cyclic, None);
    let ids: Vec<&str> = r.order.iter().map(|p| p.pack.mod_id.as_str()).collect();
    assert_eq!(ids, ["a", "b"]);
    assert!(r.report().contains("cycle broken: a, b"), "{}", r.report());
    assert!(r.report().contains("a: unversioned"), "{}", r.report());
}

#[test]
fn overrides_conflicts_and_disabled_entries() {
    let pawn = |p: &str| json!({"resourceName": "r", "pawnDescription": p});
    let packs = vec![
        pack(
            "a.json",
            "a",
            json!({"modId": "a", "models": [pawn("P1"), pawn("P2"), pawn("P3")]}),
        ),
        pack(
            "b.json",
            "b",
            json!({"modId": "b", "overrides": [{"modId": "a", "pawnDescription": "P1"}, {"modId": "a", "pawnDescription": "P3"}],
            "models": [pawn("P1"), pawn("P2"), {"resourceName": "r", "pawnDescription": "P3", "disabled": true}]}),
        ),
    ];
    let r = resolve(packs, None);
    assert_eq!(r.models["P1"].0, "b", "a declared override replaces");
    assert_eq!(
        r.models["P2"].0, "a",
        "an undeclared conflict: the first wins"
    );
    assert_eq!(
        r.models["P3"].0, "a",
        "a disabled override leaves the prior owner"
    );
    let report = r.report();
    assert!(
        report.contains("OVERRIDES APPLIED:\n  pawn=P1 'b' replaces 'a'"),
        "{report}"
    );
    assert!(
        report.contains("CONFLICTS:\n  pawn=P2 'a' wins over 'b'"),
        "{report}"
    );
    assert!(
        report.contains("DISABLED: pawn=P3 'b' is disabled; 'a' keeps the pawn"),
        "{report}"
    );
    assert!(
        report.contains("conflicts=1  overrides applied=1"),
        "{report}"
    );
}

#[test]
fn a_legacy_bare_file_takes_its_name_and_a_parse_error_says_where() {
    let legacy = parse("haf_packs/old.json", "old", r#"{"models": []}"#).unwrap();
    assert_eq!(
        (legacy.mod_id.as_str(), legacy.schema_version),
        ("old", None)
    );
    let e = parse("bad.json", "bad", "{\n  \"modId\": ,\n}").unwrap_err();
    assert_eq!((e.line, e.file.as_str()), (2, "bad.json"));
}

#[test]
fn tuning_tables_follow_the_resolved_order_only() {
    let packs = vec![
        pack(
            "a.json",
            "a",
            json!({"schemaVersion": 1, "modId": "a", "models": [],
            "unitScales": [{"match": "Cavalry", "scale": 0.6}],
            "eraGrid": {"3": [1, 2]}, "formationThresholds": {"line": 4}}),
        ),
        pack(
            "b.json",
            "b",
            json!({"schemaVersion": 1, "modId": "b", "models": [],
            "unitScales": [{"match": "Cavalry", "scale": 0.5}],
            "eraGrid": {"3": [5, 6], "4": [1]}, "formationThresholds": {"line": 9}}),
        ),
        // Skipped: its scales must change nothing.
        pack(
            "c.json",
            "c",
            json!({"schemaVersion": 1, "modId": "c", "dependsOn": ["gone"], "models": [],
            "unitScales": [{"match": "Cavalry", "scale": 0.1}]}),
        ),
    ];
    let report = resolve(packs, None).report();
    assert!(
        report.contains("TUNING: unitScales match=Cavalry: a ×0.6 × b ×0.5 → ×0.3"),
        "{report}"
    );
    assert!(
        report.contains("TUNING: eraGrid row 3: b wins over a"),
        "{report}"
    );
    assert!(!report.contains("row 4"), "{report}");
    assert!(
        report.contains("TUNING: formationThresholds: b's table replaces a"),
        "{report}"
    );
}

#[test]
fn the_schema_version_is_advice_never_a_gate() {
    let packs = vec![
        pack(
            "new.json",
            "new",
            json!({"schemaVersion": 2, "modId": "new", "models": [], "glowCurve": [1], "tint": 3}),
        ),
        pack(
            "old.json",
            "old",
            json!({"schemaVersion": 0, "modId": "old", "models": []}),
        ),
        pack(
            "now.json",
            "now",
            json!({"schemaVersion": 1, "modId": "now", "models": []}),
        ),
    ];
    let r = resolve(packs, None);
    assert_eq!(r.order.len(), 3, "every pack keeps its place");
    let report = r.report();
    assert!(report.contains("WARNING: new schemaVersion=2 is newer than this HAF (1); keys it does not know are stripped: glowCurve, tint"), "{report}");
    assert!(
        report
            .contains("WARNING: old schemaVersion=0 is older than this HAF reads (1+); re-bake it"),
        "{report}"
    );
    assert!(!report.contains("WARNING: now"), "{report}");
}

#[test]
fn file_assets_look_in_the_packs_folder_then_the_shared_ones() {
    let packs = vec![
        pack(
            "haf_packs/mymod/pack.json",
            "mymod",
            json!({"schemaVersion": 1, "modId": "mymod",
            "models": [{"resourceName": "r", "pawnDescription": "P", "soundFile": "hum.wav", "textureFile": "skin.png"}]}),
        ),
        pack(
            "haf_packs/flat.json",
            "flat",
            json!({"schemaVersion": 1, "modId": "flat",
            "models": [{"resourceName": "r", "pawnDescription": "Q", "soundStartFile": "old.wav"}]}),
        ),
    ];
    let mut r = resolve(packs, None);
    let present = ["haf_packs/mymod/sounds/hum.wav", "haf_sounds/old.wav"];
    haf::assets::check(&mut r, |p| present.contains(&p));
    assert_eq!(
        r.warnings,
        ["WARNING: mymod: textureFile \"skin.png\" is in none of haf_packs/mymod/skins/skin.png, haf_skins/skin.png"]
    );
    assert_eq!(
        haf::assets::pack_folder("haf_packs/flat.json").as_deref(),
        Some("haf_packs/flat")
    );
    assert_eq!(haf::assets::pack_folder("haf_models.json"), None);
}

fn simple(id: &str, extra: Value) -> Pack {
    let mut v = json!({"schemaVersion": 1, "modId": id, "models": []});
    if let Value::Object(map) = extra {
        for (k, x) in map {
            v[k] = x;
        }
    }
    pack(&format!("haf_packs/{id}.json"), id, v)
}

fn ids(r: &haf::Resolution) -> Vec<&str> {
    r.order.iter().map(|p| p.pack.mod_id.as_str()).collect()
}

#[test]
fn a_cycles_members_fall_back_to_the_file_order() {
    let packs = vec![
        simple("a", json!({})),
        simple("b", json!({"loadAfter": ["c"]})),
        simple("c", json!({"loadAfter": ["b"]})),
        simple("d", json!({})),
        simple("e", json!({})),
    ];
    let r = resolve(packs, None);
    assert_eq!(ids(&r), ["a", "b", "c", "d", "e"]);
    assert!(
        r.notes.iter().any(|n| n.starts_with("cycle broken: b, c")),
        "{:?}",
        r.notes
    );
}

#[test]
fn an_override_declared_by_the_pack_that_loads_first_is_an_override() {
    let first = simple(
        "first",
        json!({"overrides": [{"modId": "second", "pawnDescription": "P"}], "models": [{"resourceName": "mine", "pawnDescription": "P"}]}),
    );
    let second = simple(
        "second",
        json!({"models": [{"resourceName": "theirs", "pawnDescription": "P"}]}),
    );
    let r = resolve(vec![first, second], None);
    assert!(r.conflicts.is_empty(), "{:?}", r.conflicts);
    assert_eq!(r.overrides.len(), 1, "{:?}", r.overrides);
    assert!(
        r.overrides[0].contains("'first' replaces 'second'"),
        "{}",
        r.overrides[0]
    );
    assert_eq!(r.models["P"].0, "first");
    // Undeclared on both sides, the first loaded still wins as a conflict.
    let r = resolve(
        vec![
            simple(
                "first",
                json!({"models": [{"resourceName": "mine", "pawnDescription": "P"}]}),
            ),
            simple(
                "second",
                json!({"models": [{"resourceName": "theirs", "pawnDescription": "P"}]}),
            ),
        ],
        None,
    );
    assert_eq!(r.conflicts.len(), 1);
}

#[test]
fn a_newer_pack_loses_the_model_keys_this_loader_does_not_know_and_says_which() {
    let newer = pack(
        "haf_packs/next.json",
        "next",
        json!({"schemaVersion": 2, "modId": "next", "futureTable": {}, "models": [
            {"resourceName": "a", "pawnDescription": "P", "glowDial": 3, "clipIdle": [1, 2], "skel": [4]},
        ]}),
    );
    let r = resolve(vec![newer], None);
    let model = &r.models["P"].1;
    assert!(!model.contains_key("glowDial"));
    assert!(model.contains_key("clipIdle") && model.contains_key("skel"));
    let warning = r
        .warnings
        .iter()
        .find(|w| w.contains("next schemaVersion=2"))
        .unwrap();
    assert!(
        warning.contains("futureTable") && warning.contains("models[].glowDial"),
        "{warning}"
    );
    // A version-1 pack keeps what it wrote: bake-time keys are simply not read.
    let current = simple(
        "now",
        json!({"models": [{"resourceName": "a", "pawnDescription": "Q", "size": 2}]}),
    );
    let r = resolve(vec![current], None);
    assert!(r.models["Q"].1.contains_key("size"));
}

#[test]
fn a_model_without_a_pawn_is_named_in_the_report() {
    let p = simple("solo", json!({"models": [{"resourceName": "nowhere"}]}));
    let r = resolve(vec![p], None);
    assert!(r.models.is_empty());
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("solo: model 0 has no pawnDescription")),
        "{:?}",
        r.notes
    );
    assert!(r.report().contains("model 0 has no pawnDescription"));
}

#[test]
fn the_tuning_tables_are_composed_in_load_order() {
    let a = simple(
        "a",
        json!({"unitScales": [{"match": "Cavalry", "scale": 0.6}], "eraGrid": {"Ancient": [1, 2]}, "formationThresholds": {"line": 4}}),
    );
    let b = simple(
        "b",
        json!({"loadAfter": ["a"], "unitScales": [{"match": "Cavalry", "scale": 0.5}, {"match": "Infantry", "scale": 1.2}], "eraGrid": {"Ancient": [3, 4], "Classical": [5]}, "formationThresholds": {"line": 6}}),
    );
    let r = resolve(vec![b, a], None);
    let t = &r.tuning_tables;
    assert_eq!(t["unitScales"][0]["match"], "Cavalry");
    assert_eq!(t["unitScales"][0]["scale"], 0.3);
    assert_eq!(t["unitScales"][0]["rules"][0]["modId"], "a");
    assert_eq!(t["unitScales"][1]["scale"], 1.2);
    assert_eq!(
        t["eraGrid"]["Ancient"],
        json!({"modId": "b", "row": [3, 4]})
    );
    assert_eq!(t["eraGrid"]["Classical"]["modId"], "b");
    assert_eq!(
        t["formationThresholds"],
        json!({"modId": "b", "table": {"line": 6}})
    );
}

#[test]
fn a_dependency_chain_of_ten_thousand_resolves_and_a_missing_root_skips_it_all() {
    let n = 10_000;
    let chain = |missing_root: bool| -> Vec<Pack> {
        (0..n)
            .map(|i| {
                let deps = if i == 0 {
                    if missing_root {
                        json!(["absent"])
                    } else {
                        json!([])
                    }
                } else {
                    json!([format!("p{}", i - 1)])
                };
                simple(&format!("p{i}"), json!({"dependsOn": deps}))
            })
            .rev()
            .collect()
    };
    let r = resolve(chain(false), None);
    assert_eq!(r.order.len(), n);
    assert_eq!(r.order[0].pack.mod_id, "p0");
    assert_eq!(r.order[n - 1].pack.mod_id, format!("p{}", n - 1));
    let r = resolve(chain(true), None);
    assert!(r.order.is_empty());
    assert_eq!(
        r.notes.iter().filter(|n| n.starts_with("skipped")).count(),
        n
    );
}
