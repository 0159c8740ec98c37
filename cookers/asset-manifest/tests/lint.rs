//! The lint, rule by rule: the format's example manifest is clean, and each violation gets its code
//! and its `where`.

use asset_manifest::{lint, Inputs, Issue};
use serde_json::{json, Value};

fn example() -> Value {
    serde_json::from_str(include_str!("data/example.json")).unwrap()
}

fn issues(manifest: &Value, inputs: Option<&Inputs>) -> Vec<Issue> {
    let text = serde_json::to_string_pretty(manifest).unwrap();
    lint("manifest.json", &text, inputs)
}

/// The codes and `where`s of the issues `change` causes in the example.
fn after(change: impl FnOnce(&mut Value)) -> Vec<(String, String)> {
    let mut m = example();
    change(&mut m);
    issues(&m, None)
        .into_iter()
        .map(|i| (i.diagnostic.code.to_string(), i.location))
        .collect()
}

fn file(m: &mut Value) -> &mut Value {
    &mut m["assets"][0]["representations"][0]["files"][0]
}

const FILE: &str = "assets[0].representations[0].files[0]";

/// A change to the example, the code it must cause, and where.
type Case = (Box<dyn FnOnce(&mut Value)>, &'static str, String);

#[test]
fn the_seeds_example_is_clean() {
    assert_eq!(issues(&example(), None), vec![]);
}

#[test]
fn each_rule_gives_its_code_and_where() {
    let at = |tail: &str| format!("{FILE}{tail}");
    let cases: Vec<Case> = vec![
        (
            Box::new(|m| m["extra"] = json!(1)),
            "unknown_field",
            "extra".into(),
        ),
        (
            Box::new(|m| {
                m.as_object_mut().unwrap().remove("style");
            }),
            "missing_field",
            "style".into(),
        ),
        (
            Box::new(|m| m["schema"] = json!("myrlin.asset-manifest/2")),
            "unknown_schema",
            "schema".into(),
        ),
        (
            Box::new(|m| m["revision"] = json!(0)),
            "bad_revision",
            "revision".into(),
        ),
        (
            Box::new(|m| m["targets"] = json!([])),
            "no_targets",
            "targets".into(),
        ),
        (
            Box::new(|m| m["assets"] = json!([])),
            "no_assets",
            "assets".into(),
        ),
        (
            Box::new(|m| m["assets"][0]["kind"] = json!("spaceship")),
            "unknown_asset_kind",
            "assets[0].kind".into(),
        ),
        (
            Box::new(|m| {
                m["assets"][0].as_object_mut().unwrap().remove("describe");
            }),
            "describe_required",
            "assets[0]".into(),
        ),
        (
            Box::new(|m| {
                let a = m["assets"][0].clone();
                m["assets"].as_array_mut().unwrap().push(a);
                m["assets"][1]["representations"][0]["files"][0]["path"] =
                    json!("assets/examplemod/data/other.json");
            }),
            "duplicate_asset_id",
            "assets[1].id".into(),
        ),
        (
            Box::new(|m| m["assets"][0]["representations"][0]["role"] = json!("hat")),
            "unknown_role",
            "assets[0].representations[0].role".into(),
        ),
        (
            Box::new(|m| m["assets"][0]["representations"][0]["files"] = json!([])),
            "no_files",
            "assets[0].representations[0].files".into(),
        ),
        (
            Box::new(|m| file(m)["format"] = json!("gif")),
            "unknown_format",
            at(".format"),
        ),
        (
            Box::new(|m| file(m)["action"] = json!("borrow")),
            "unknown_action",
            at(".action"),
        ),
        (
            Box::new(|m| {
                file(m).as_object_mut().unwrap().remove("content");
            }),
            "emit_without_content",
            at(""),
        ),
        (
            Box::new(|m| file(m)["action"] = json!("generate")),
            "describe_required",
            at(""),
        ),
        (
            Box::new(|m| {
                file(m)["action"] = json!("generate");
                file(m)["describe"] = json!("a file");
            }),
            "no_generation_lane",
            at(".format"),
        ),
        (
            Box::new(|m| file(m)["action"] = json!("derive")),
            "derive_without_block",
            at(""),
        ),
        (
            Box::new(|m| file(m)["derive"] = json!({"rule": "frame0_crop", "from": ["a.png"]})),
            "derive_block_without_action",
            at(".derive"),
        ),
        (
            Box::new(|m| {
                file(m)["action"] = json!("derive");
                file(m)["derive"] = json!({"rule": "melt", "from": ["a.png"]});
            }),
            "unknown_derive_rule",
            at(".derive.rule"),
        ),
        (
            Box::new(|m| {
                file(m)["action"] = json!("derive");
                file(m)["derive"] = json!({"rule": "frame0_crop", "from": []});
            }),
            "derive_without_sources",
            at(".derive"),
        ),
        (
            Box::new(|m| {
                let f = file(m).clone();
                m["assets"][0]["representations"][0]["files"]
                    .as_array_mut()
                    .unwrap()
                    .push(f);
            }),
            "duplicate_output_path",
            "assets/examplemod/data/example.json".into(),
        ),
        (
            Box::new(|m| {
                file(m)["path"] = json!(format!("assets/examplemod/{}.json", "x".repeat(240)))
            }),
            "path_too_long",
            format!("assets/examplemod/{}.json", "x".repeat(240)),
        ),
        (
            Box::new(|m| file(m)["path"] = json!("assets/examplemod/../x.json")),
            "bad_output_path",
            "assets/examplemod/../x.json".into(),
        ),
        (
            Box::new(|m| file(m)["path"] = json!("assets/othermod/data/example.json")),
            "wrong_namespace",
            "assets/othermod/data/example.json".into(),
        ),
        (
            Box::new(|m| file(m)["path"] = json!("Common/UI/example.json")),
            "path_outside_target",
            "Common/UI/example.json".into(),
        ),
        (
            Box::new(|m| {
                file(m)["path"] = json!("authoring/examplemod/model.obj");
                file(m)["format"] = json!("obj");
            }),
            "authoring_kind",
            "authoring/examplemod/model.obj".into(),
        ),
        (
            Box::new(|m| {
                m["targets"] = json!(["hytale-1"]);
                file(m)["path"] = json!("Server/Icons/a@2x.png");
                file(m)["format"] = json!("png");
            }),
            "double_density_outside_common",
            "Server/Icons/a@2x.png".into(),
        ),
        (
            Box::new(|m| file(m)["path"] = json!("assets/examplemod/data/example.txt")),
            "format_mismatch",
            at(".path"),
        ),
    ];
    for (change, code, place) in cases {
        let found = after(change);
        assert!(
            found.contains(&(code.to_string(), place.clone())),
            "{code} at {place:?}: got {found:?}"
        );
    }
}

#[test]
fn every_problem_is_reported_at_once_with_its_line() {
    let mut m = example();
    m["assets"][0]["kind"] = json!("spaceship");
    file(&mut m)["format"] = json!("gif");
    let found = issues(&m, None);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found
        .iter()
        .all(|i| i.diagnostic.line.is_some() && i.is_error()));
    let text = "{\"schema\": \"myrlin.asset-manifest/1\", \"schema\": 1}";
    assert!(lint("m.json", text, None)
        .iter()
        .any(|i| i.diagnostic.code == "duplicate_key"));
    assert_eq!(lint("m.json", "{", None)[0].diagnostic.code, "not_json");
}

#[test]
fn copies_and_derives_need_inputs_whose_rights_allow_their_bytes() {
    let inputs = Inputs::new(
        vec!["art/ok.png".into(), "art/ref.png".into()],
        Some(r#"{"rights":"original","files":{"art/ref.png":{"rights":"analysis-only"}}}"#),
    )
    .unwrap();
    let mut m = example();
    let f = file(&mut m);
    f["path"] = json!("assets/examplemod/textures/a.png");
    f["format"] = json!("png");
    f["action"] = json!("derive");
    f["derive"] =
        json!({"rule": "frame0_crop", "from": ["art/ok.png", "art/ref.png", "art/gone.png"]});
    f.as_object_mut().unwrap().remove("content");
    let found: Vec<(String, String)> = issues(&m, Some(&inputs))
        .into_iter()
        .map(|i| (i.diagnostic.code.to_string(), i.location))
        .collect();
    assert_eq!(
        found,
        vec![
            (
                "rights_forbid_bytes".to_string(),
                format!("{FILE}.derive.from[1]")
            ),
            (
                "missing_input".to_string(),
                format!("{FILE}.derive.from[2]")
            ),
        ]
    );
}

#[test]
fn the_shipped_schema_agrees_with_the_example_and_refuses_what_the_lint_refuses() {
    let schema: Value = serde_json::from_str(include_str!(
        "../../../schemas/myrlin.asset-manifest-1.schema.json"
    ))
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&example()));
    for change in [
        (|m: &mut Value| m["extra"] = json!(1)) as fn(&mut Value),
        |m| file(m)["format"] = json!("gif"),
        |m| file(m)["action"] = json!("derive"),
        |m| {
            file(m)["action"] = json!("generate");
        },
        |m| m["assets"][0]["kind"] = json!("spaceship"),
        |m| m["assets"][0]["representations"][0]["role"] = json!("hat"),
    ] {
        let mut m = example();
        change(&mut m);
        assert!(!validator.is_valid(&m), "{m}");
    }
}

#[test]
fn the_schemas_lists_are_the_vocabularys() {
    use asset_manifest::vocabulary as v;
    let schema: Value = serde_json::from_str(include_str!(
        "../../../schemas/myrlin.asset-manifest-1.schema.json"
    ))
    .unwrap();
    let list = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    let defs = &schema["$defs"];
    assert_eq!(list(&defs["action"]["enum"]), v::FILE_ACTIONS);
    assert_eq!(
        list(&defs["asset"]["properties"]["kind"]["enum"]),
        v::ASSET_KINDS
    );
    assert_eq!(
        list(&defs["representation"]["properties"]["role"]["enum"]),
        v::ROLES
    );
    assert_eq!(
        list(&defs["file"]["properties"]["format"]["enum"]),
        v::FORMATS
    );
    let rules = &defs["file"]["properties"]["derive"]["properties"]["rule"]["enum"];
    assert_eq!(list(rules), v::DERIVE_RULES);
}

#[test]
fn a_manifest_id_names_one_folder_and_nothing_outside_it() {
    for bad in ["../../../x", "/etc", "a/b", "", ".hidden", "a\\b"] {
        let found = after(|m| m["manifestId"] = json!(bad));
        assert!(
            found.iter().any(|(code, _)| code == "bad_manifest_id"),
            "{bad:?}: {found:?}"
        );
    }
    assert!(after(|m| m["manifestId"] = json!("job-2026.12_a")).is_empty());
}

#[test]
fn output_paths_windows_cannot_create_or_that_differ_only_by_case_are_refused() {
    for bad in [
        "assets/demo/CON.png",
        "assets/demo/a:b.png",
        "assets/demo/nul\u{0}.png",
        "assets/demo/line\nbreak.png",
        "assets/demo/dot.",
    ] {
        let found = after(|m| file(m)["path"] = json!(bad));
        assert!(
            found.iter().any(|(code, _)| code == "bad_output_path"),
            "{bad:?}: {found:?}"
        );
    }
}

#[test]
fn a_derive_rule_this_build_does_not_implement_is_a_lint_error() {
    let unimplemented: Vec<&str> = asset_manifest::vocabulary::DERIVE_RULES
        .iter()
        .copied()
        .filter(|r| !asset_manifest::derive::IMPLEMENTED.contains(r))
        .collect();
    let Some(rule) = unimplemented.first() else {
        return;
    };
    let found = after(|m| {
        let f = file(m);
        f["action"] = json!("derive");
        f["derive"] = json!({"rule": rule, "from": ["in.png"]});
    });
    assert!(
        found
            .iter()
            .any(|(code, _)| code == "derive_rule_not_implemented"),
        "{rule}: {found:?}"
    );
}

#[test]
fn the_240_character_limit_counts_characters_not_bytes() {
    let lint_path = |path: String| {
        let mut m = example();
        file(&mut m)["path"] = json!(path);
        let text = serde_json::to_string(&m).unwrap();
        lint("m.json", &text, None)
            .iter()
            .any(|i| i.diagnostic.code == "path_too_long")
    };
    let prefix = "assets/examplemod/data/";
    let name = |n: usize| format!("{prefix}{}.json", "é".repeat(n - prefix.len() - 5));
    // 240 characters, 240 + 217 bytes: within the limit.
    assert!(!lint_path(name(240)));
    assert!(lint_path(name(241)));
}
