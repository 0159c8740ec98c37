//! `mjolnir manifest lint` and `capabilities` through the binary, with a real inputs ZIP.

use crate::support;

use std::io::Write;

use serde_json::{json, Value};
use support::{repo, Workspace};

fn example() -> Value {
    let text =
        std::fs::read_to_string(repo().join("cookers/asset-manifest/tests/data/example.json"));
    serde_json::from_str(&text.unwrap()).unwrap()
}

/// Whether `value` is valid against `schemas/<name>.schema.json`.
fn follows(name: &str, value: &Value) -> bool {
    let path = repo().join(format!("schemas/{name}.schema.json"));
    let schema: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap().is_valid(value)
}

fn inputs_zip(ws: &Workspace, files: &[(&str, &[u8])]) -> std::path::PathBuf {
    let path = ws.path("inputs.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    for (name, bytes) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
    path
}

#[test]
fn lint_reports_rights_and_paths_as_json_in_the_result_schema() {
    let ws = Workspace::without_donors(&[]);
    let mut manifest = example();
    let file = &mut manifest["assets"][0]["representations"][0]["files"][0];
    *file = json!({
        "path": "assets/examplemod/textures/item/gem.png",
        "format": "png",
        "action": "derive",
        "derive": {"rule": "greyscale_for_tint", "from": ["ref/gem.png"]}
    });
    std::fs::write(
        ws.path("m.json"),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    let zip = inputs_zip(
        &ws,
        &[
            ("_inputs.json", br#"{"rights":"licensed","license":"MIT","files":{"ref/gem.png":{"rights":"ARR"}}}"#),
            ("ref/gem.png", b"png"),
        ],
    );
    let out = ws.mjolnir(&[
        "manifest",
        "lint",
        "m.json",
        "--inputs",
        zip.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(follows("myrlin.lint-result-1", &result), "{result}");
    let issue = &result["issues"][0];
    assert_eq!(issue["code"], "rights_forbid_bytes");
    assert_eq!(
        issue["where"],
        "assets[0].representations[0].files[0].derive.from[0]"
    );
    assert!(issue["line"].as_u64().is_some());

    // With the input's rights fixed, the manifest is clean.
    let zip = inputs_zip(
        &ws,
        &[
            ("_inputs.json", br#"{"rights":"original"}"#),
            ("ref/gem.png", b"png"),
        ],
    );
    let out = ws.mjolnir(&[
        "manifest",
        "lint",
        "m.json",
        "--inputs",
        zip.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn capabilities_are_data() {
    let ws = Workspace::without_donors(&[]);
    let out = ws.mjolnir(&["manifest", "capabilities", "--json"]);
    let caps: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(caps["formats"][0], "myrlin.asset-manifest/1");
    assert_eq!(caps["lanes"]["ogg"], "sound_generated");
    assert_eq!(caps["limits"]["maxPathLength"], 240);
}

#[test]
fn building_the_seeds_example_delivers_its_json_and_a_second_build_is_cached() {
    let ws = Workspace::without_donors(&[]);
    std::fs::write(
        ws.path("m.json"),
        serde_json::to_vec_pretty(&example()).unwrap(),
    )
    .unwrap();
    let out = ws.mjolnir(&[
        "manifest",
        "build",
        "m.json",
        "--out",
        "delivery.zip",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = std::fs::read(ws.path("delivery.zip")).unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(first.clone())).unwrap();
    assert_eq!(zip.len(), 1);
    let held: Value =
        serde_json::from_reader(zip.by_name("assets/examplemod/data/example.json").unwrap())
            .unwrap();
    assert_eq!(held, json!({"answer": 42}));

    let out = ws.mjolnir(&[
        "manifest",
        "build",
        "m.json",
        "--out",
        "delivery.zip",
        "--json",
    ]);
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["run"], 0, "{summary}");
    assert_eq!(summary["cached"], 1);
    assert_eq!(
        std::fs::read(ws.path("delivery.zip")).unwrap(),
        first,
        "the same bytes"
    );
}

#[test]
fn a_build_copies_derives_and_lists_what_waits_on_generation() {
    let ws = Workspace::without_donors(&[]);
    let mut strip = image::RgbaImage::new(2, 4);
    for (x, y, p) in strip.enumerate_pixels_mut() {
        p.0 = if y < 2 {
            [200, 10, 10, 255]
        } else {
            [x as u8, 0, 0, 255]
        };
    }
    let mut png = std::io::Cursor::new(Vec::new());
    strip.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let zip = inputs_zip(
        &ws,
        &[
            ("_inputs.json", br#"{"rights":"original"}"#),
            ("art/strip.png", png.get_ref()),
            ("notes.txt", b"hello"),
        ],
    );
    let mut manifest = example();
    manifest["assets"][0]["representations"][0]["files"] = json!([
        {"path": "assets/examplemod/textures/block/lamp.png", "format": "png", "action": "derive",
         "derive": {"rule": "frame0_crop", "from": ["art/strip.png"]}},
        {"path": "authoring/examplemod/notes.txt", "format": "txt", "action": "copy", "source": "notes.txt"},
        {"path": "assets/examplemod/sounds/hum.ogg", "format": "ogg", "action": "generate", "describe": "a low hum"},
    ]);
    std::fs::write(
        ws.path("m.json"),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    let args = [
        "manifest",
        "build",
        "m.json",
        "--inputs",
        zip.to_str().unwrap(),
        "--out",
        "d.zip",
        "--json",
    ];
    let out = ws.mjolnir(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(follows("myrlin.build-result-1", &summary), "{summary}");
    assert_eq!(
        summary["waiting_on_generation"],
        json!([{"path": "assets/examplemod/sounds/hum.ogg", "lane": "sound_generated"}])
    );
    let mut delivery =
        zip::ZipArchive::new(std::fs::File::open(ws.path("d.zip")).unwrap()).unwrap();
    let names: Vec<String> = (0..delivery.len())
        .map(|i| delivery.by_index(i).unwrap().name().unwrap().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "assets/examplemod/textures/block/lamp.png",
            "authoring/examplemod/notes.txt"
        ]
    );
    let mut lamp = Vec::new();
    std::io::Read::read_to_end(
        &mut delivery
            .by_name("assets/examplemod/textures/block/lamp.png")
            .unwrap(),
        &mut lamp,
    )
    .unwrap();
    let lamp = image::load_from_memory(&lamp).unwrap().to_rgba8();
    assert_eq!(lamp.dimensions(), (2, 2));
    assert!(lamp.pixels().all(|p| p.0 == [200, 10, 10, 255]));

    // A rule this build does not implement is refused before anything runs.
    manifest["assets"][0]["representations"][0]["files"][0]["derive"]["rule"] =
        json!("hytale_export");
    std::fs::write(
        ws.path("m.json"),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    let out = ws.mjolnir(&args);
    assert_eq!(out.status.code(), Some(1));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        result["issues"][0]["code"], "derive_rule_not_implemented",
        "{result}"
    );
    assert_eq!(
        result["issues"][0]["where"],
        "assets[0].representations[0].files[0].derive.rule"
    );
}

/// The issues' codes of a lint-result, in order.
fn codes(result: &Value) -> Vec<String> {
    result["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{} {}",
                i["code"].as_str().unwrap(),
                i["where"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn a_review_is_started_from_a_delivery_filled_in_and_goes_stale_when_the_bytes_change() {
    let ws = Workspace::without_donors(&[]);
    let mut manifest = example();
    manifest["assets"][0]["representations"][0]["files"] = json!([
        {"path": "assets/examplemod/data/example.json", "format": "json", "action": "emit", "content": {"answer": 42}},
        {"path": "authoring/examplemod/notes.txt", "format": "txt", "action": "copy", "source": "notes.txt"},
        {"path": "assets/examplemod/sounds/hum.ogg", "format": "ogg", "action": "generate", "describe": "a low hum"},
    ]);
    std::fs::write(
        ws.path("m.json"),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    let build = |notes: &[u8]| {
        let zip = inputs_zip(
            &ws,
            &[
                ("_inputs.json", br#"{"rights":"original"}"#),
                ("notes.txt", notes),
            ],
        );
        let out = ws.mjolnir(&[
            "manifest",
            "build",
            "m.json",
            "--inputs",
            zip.to_str().unwrap(),
            "--out",
            "d.zip",
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    build(b"first");
    let review = |extra: &[&str]| {
        let mut args = vec![
            "manifest",
            "review",
            "m.json",
            "--delivery",
            "d.zip",
            "--json",
        ];
        args.extend_from_slice(extra);
        let out = ws.mjolnir(&args);
        let result: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
        assert!(follows("myrlin.lint-result-1", &result), "{result}");
        (out.status.code(), result)
    };

    let (code, result) = review(&[
        "--start",
        "r.json",
        "--reviewer",
        "Ana",
        "--check",
        "r.json",
    ]);
    assert_eq!(code, Some(0), "{result}");
    assert_eq!(result["warnings"], 3, "every file pending: {result}");
    let mut started: Value =
        serde_json::from_slice(&std::fs::read(ws.path("r.json")).unwrap()).unwrap();
    assert!(follows("myrlin.asset-review-1", &started), "{started}");
    assert_eq!(
        started["files"][2].get("sha256"),
        None,
        "nothing delivered to judge yet"
    );

    started["files"][0]["verdict"] = json!("accepted");
    started["files"][1]["verdict"] = json!("rejected");
    started["files"][1]["notes"] = json!("say more");
    std::fs::write(
        ws.path("r.json"),
        serde_json::to_vec_pretty(&started).unwrap(),
    )
    .unwrap();
    assert!(follows("myrlin.asset-review-1", &started));
    let (code, result) = review(&["--check", "r.json"]);
    assert_eq!(code, Some(0), "{result}");
    assert_eq!(
        codes(&result),
        [
            "file_rejected authoring/examplemod/notes.txt",
            "file_pending assets/examplemod/sounds/hum.ogg"
        ]
    );

    let mut claimed = started.clone();
    claimed["files"][2]["sha256"] = json!("ab".repeat(32));
    std::fs::write(
        ws.path("r.json"),
        serde_json::to_vec_pretty(&claimed).unwrap(),
    )
    .unwrap();
    let (code, result) = review(&["--check", "r.json"]);
    assert_eq!(code, Some(1));
    assert!(
        codes(&result)
            .contains(&"review_not_delivered assets/examplemod/sounds/hum.ogg".to_string()),
        "{result}"
    );
    std::fs::write(
        ws.path("r.json"),
        serde_json::to_vec_pretty(&started).unwrap(),
    )
    .unwrap();

    build(b"second");
    let (code, result) = review(&["--check", "r.json"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        codes(&result)[0],
        "review_stale authoring/examplemod/notes.txt"
    );
    assert!(result["issues"][0]["line"].is_number(), "{result}");
}

#[test]
fn each_review_rule_reports_its_code() {
    let ws = Workspace::without_donors(&[]);
    std::fs::write(
        ws.path("m.json"),
        serde_json::to_vec_pretty(&example()).unwrap(),
    )
    .unwrap();
    let out = ws.mjolnir(&["manifest", "build", "m.json", "--out", "d.zip"]);
    assert_eq!(out.status.code(), Some(0));
    let path = "assets/examplemod/data/example.json";
    let ok = json!({"path": path, "verdict": "accepted",
        "sha256": "0000000000000000000000000000000000000000000000000000000000000000"});
    let cases = [
        (
            json!({"reviewer": "", "files": []}),
            "review_without_reviewer",
        ),
        (
            json!({"revision": 2, "files": []}),
            "review_of_another_manifest",
        ),
        (json!({"extra": 1, "files": []}), "unknown_field"),
        (
            json!({"files": [{"path": "x.json", "verdict": "pending"}]}),
            "review_unknown_path",
        ),
        (
            json!({"files": [{"path": path, "verdict": "pending"}, {"path": path, "verdict": "pending"}]}),
            "review_duplicate_path",
        ),
        (
            json!({"files": [{"path": path, "verdict": "fine"}]}),
            "bad_verdict",
        ),
        (
            json!({"files": [{"path": path, "verdict": "accepted"}]}),
            "review_without_bytes",
        ),
        (json!({"files": [ok]}), "review_stale"),
        (
            json!({"files": [{"path": path, "verdict": "rejected", "sha256": ok["sha256"]}]}),
            "review_rejection_unexplained",
        ),
        (
            json!({"schema": "myrlin.asset-review/2", "files": []}),
            "wrong_schema",
        ),
        (
            json!({"files": [{"path": path, "verdict": "pending"}]}),
            "file_pending",
        ),
        (json!({"files": []}), "review_missing_file"),
    ];
    for (change, code) in cases {
        let mut review = json!({"schema": "myrlin.asset-review/1", "manifestId": "example-pack",
            "revision": 1, "reviewer": "Ana"});
        for (k, v) in change.as_object().unwrap() {
            review[k] = v.clone();
        }
        std::fs::write(ws.path("r.json"), serde_json::to_vec(&review).unwrap()).unwrap();
        let out = ws.mjolnir(&[
            "manifest",
            "review",
            "m.json",
            "--delivery",
            "d.zip",
            "--check",
            "r.json",
            "--json",
        ]);
        let result: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            codes(&result)
                .iter()
                .any(|c| c.starts_with(&format!("{code} "))),
            "{code}: {result}"
        );
    }
}

#[test]
fn a_source_or_from_outside_the_inputs_is_refused_with_or_without_the_inputs_zip() {
    let ws = Workspace::without_donors(&[]);
    let mut manifest = example();
    manifest["assets"][0]["representations"][0]["files"] = json!([
        {"path": "authoring/examplemod/host.txt", "format": "txt", "action": "copy", "source": "/etc/hostname"},
        {"path": "assets/examplemod/textures/block/up.png", "format": "png", "action": "derive",
         "derive": {"rule": "frame0_crop", "from": ["../secret.png"]}},
    ]);
    std::fs::write(
        ws.path("m.json"),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    for command in ["lint", "build"] {
        let mut args = vec!["manifest", command, "m.json", "--json"];
        if command == "build" {
            args.extend(["--out", "d.zip"]);
        }
        let out = ws.mjolnir(&args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let result: Value = serde_json::from_slice(&out.stdout).unwrap();
        let found: Vec<(String, String)> = result["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["code"].as_str().unwrap().to_string(),
                    e["where"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        assert_eq!(
            found.iter().filter(|(c, _)| c == "bad_input_path").count(),
            2,
            "{command}: {result}"
        );
        assert!(found.iter().all(|(_, w)| !w.is_empty()), "{result}");
    }
    assert!(!ws.path("d.zip").exists());
}

#[test]
fn palette_entries_refuse_unknown_fields_and_a_missing_field_is_named_where_it_belongs() {
    let ws = Workspace::without_donors(&[]);
    let mut manifest = example();
    manifest["style"]["palette"] = json!([
        {"role": "ink", "color": "#000000", "gloss": 2},
        {"role": "paper", "color": "#fffffg"},
    ]);
    manifest.as_object_mut().unwrap().remove("revision");
    std::fs::write(
        ws.path("m.json"),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    let out = ws.mjolnir(&["manifest", "lint", "m.json", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(&str, &str)> = result["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["code"].as_str().unwrap(), e["where"].as_str().unwrap()))
        .collect();
    assert!(
        found.contains(&("unknown_field", "style.palette[0].gloss")),
        "{found:?}"
    );
    assert!(
        found.contains(&("bad_colour", "style.palette[1].color")),
        "{found:?}"
    );
    assert!(found.contains(&("missing_field", "revision")), "{found:?}");
    assert!(found.iter().all(|(_, w)| !w.is_empty()), "{found:?}");
}
