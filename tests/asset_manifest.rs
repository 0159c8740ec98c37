//! `mjolnir manifest lint` and `capabilities` through the binary, with a real inputs ZIP.

mod support;

use std::io::Write;

use serde_json::{json, Value};
use support::{repo, Workspace};

fn example() -> Value {
    let text =
        std::fs::read_to_string(repo().join("cookers/asset-manifest/tests/data/example.json"));
    serde_json::from_str(&text.unwrap()).unwrap()
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
    let schema: Value = serde_json::from_slice(
        &std::fs::read(repo().join("schemas/myrlin.lint-result-1.schema.json")).unwrap(),
    )
    .unwrap();
    assert!(
        jsonschema::validator_for(&schema)
            .unwrap()
            .is_valid(&result),
        "{result}"
    );
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
