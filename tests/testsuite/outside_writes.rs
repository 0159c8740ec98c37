//! The readers of other people's files write only into their output folder or the build
//! folder: each command, given good inputs and hostile ones (a slug, a layout, a
//! manifestId, a source that climbs out), leaves every other file of the workspace as it
//! was, and nothing appears beside the workspace.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::json;

use crate::support::{self, repo, stderr, Workspace};

/// Every file and folder under `root` but the `allowed` ones, with its size and mtime.
fn snapshot(root: &Path, allowed: &[&str]) -> BTreeMap<PathBuf, (u64, Option<SystemTime>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if allowed.iter().any(|a| rel.starts_with(a)) {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            out.insert(rel, (meta.len(), meta.modified().ok()));
            if meta.is_dir() {
                stack.push(path);
            }
        }
    }
    out
}

/// Names beside the workspace that a hostile input tried to write.
fn escaped(ws: &Workspace) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in [ws.path(".."), ws.path("../..")] {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            if entry.file_name().to_string_lossy().starts_with("escape-") {
                found.push(entry.path());
            }
        }
    }
    found
}

fn manifest_with(
    ws: &Workspace,
    name: &str,
    change: impl FnOnce(&mut serde_json::Value),
) -> String {
    let text =
        std::fs::read_to_string(repo().join("cookers/asset-manifest/tests/data/example.json"));
    let mut m: serde_json::Value = serde_json::from_str(&text.unwrap()).unwrap();
    change(&mut m);
    std::fs::write(ws.path(name), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    name.to_string()
}

#[test]
fn no_reader_writes_outside_its_output_or_build_folder() {
    let ws = Workspace::without_donors(&["foundry"]);
    ws.cook(&[]);
    support::copy_dir(
        &repo().join("forge-maps/forge-canvas"),
        &ws.path("maps/canvas"),
    );
    let level = "maps/canvas/level.json";
    let original = std::fs::read_to_string(ws.path(level)).unwrap();
    let good = manifest_with(&ws, "good.json", |_| {});
    let climbing_id = manifest_with(&ws, "id.json", |m| {
        m["manifestId"] = json!("../../escape-id")
    });
    let climbing_source = manifest_with(&ws, "source.json", |m| {
        m["assets"][0]["representations"][0]["files"] = json!([
            {"path": "authoring/examplemod/host.txt", "format": "txt", "action": "copy", "source": "../../escape-source"}
        ]);
    });
    std::fs::create_dir_all(ws.path("haf/haf_packs")).unwrap();
    std::fs::write(
        ws.path("haf/haf_packs/a.json"),
        r#"{"schemaVersion": 1, "modId": "../../escape-haf", "models": [{"resourceName": "r", "pawnDescription": "P"}]}"#,
    )
    .unwrap();
    let bake = |out: &'static str| {
        vec![
            "map",
            "bake",
            level,
            "--paks",
            "build/game/foundry/all/content",
            "--pack",
            "build/game/foundry/all",
            "--out",
            out,
        ]
    };
    let allowed = ["out", "build"];
    let before = snapshot(ws.dir.path(), &allowed);

    // (command, whether it succeeds); the hostile ones change the level first.
    let runs: Vec<(Vec<&str>, Option<&str>, bool)> = vec![
        (bake("out/palette.json"), None, true),
        (bake("out/palette2.json"), Some("slug"), false),
        (bake("out/palette3.json"), Some("layout"), false),
        (
            vec![
                "map",
                "pack",
                level,
                "--content",
                "build/game/foundry/all/content",
                "--out",
                "out/m.mjolnir",
            ],
            Some("layout"),
            false,
        ),
        (vec!["manifest", "lint", &good], None, true),
        (
            vec![
                "manifest",
                "build",
                &good,
                "--out",
                "out/d.zip",
                "--build",
                "build",
            ],
            None,
            true,
        ),
        (
            vec![
                "manifest",
                "build",
                &climbing_id,
                "--out",
                "out/e.zip",
                "--build",
                "build",
            ],
            None,
            false,
        ),
        (
            vec![
                "manifest",
                "build",
                &climbing_source,
                "--out",
                "out/f.zip",
                "--build",
                "build",
            ],
            None,
            false,
        ),
        (
            vec![
                "manifest",
                "review",
                &good,
                "--delivery",
                "out/d.zip",
                "--start",
                "out/r.json",
            ],
            None,
            true,
        ),
        (
            vec!["haf", "resolve", "haf", "--out", "out/haf"],
            None,
            true,
        ),
    ];
    for (args, hostile, succeeds) in runs {
        std::fs::write(ws.path(level), &original).unwrap();
        match hostile {
            Some("slug") => ws.edit_json(level, |v| v["slug"] = json!("../../../escape-slug")),
            Some("layout") => {
                ws.edit_json(level, |v| v["layout"] = json!("../../escape-layout.json"))
            }
            _ => {}
        }
        let out = ws.mjolnir(&args);
        assert_eq!(out.status.success(), succeeds, "{args:?}: {}", stderr(&out));
    }
    std::fs::write(ws.path(level), &original).unwrap();
    let after = snapshot(ws.dir.path(), &allowed);
    let changed: Vec<&PathBuf> = after
        .iter()
        .filter(|(p, v)| before.get(*p) != Some(v))
        .map(|(p, _)| p)
        .chain(before.keys().filter(|p| !after.contains_key(*p)))
        .filter(|p| p.as_path() != Path::new(level))
        .collect();
    assert!(
        changed.is_empty(),
        "written outside out/ and build/: {changed:?}"
    );
    assert!(escaped(&ws).is_empty(), "{:?}", escaped(&ws));
    assert!(
        ws.path("out/palette.json").is_file() && ws.path("out/haf/haf_load_report.txt").is_file()
    );
}
