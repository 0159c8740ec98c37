//! `forge cook --check`, `cache stats` and `cache gc`, through the real binary.

use crate::support;

use std::fs::File;

use support::{stderr, Workspace};

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn model(ws: &Workspace) -> std::path::PathBuf {
    ws.path("packs/foundry/source/models/column_1.gltf")
}

#[test]
fn check_lists_what_would_run_and_cooks_nothing() {
    let ws = Workspace::with_packs(&["foundry"]);
    let out = ws.mjolnir(&["forge", "cook", "--check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let listed = stdout(&out);
    assert!(
        listed.contains("would run foundry/import/column_1: never built before"),
        "{listed}"
    );
    assert!(
        listed.contains("would run foundry/mesh/column_1: after foundry/import/column_1"),
        "{listed}"
    );
    assert!(!ws.path("build/game").exists(), "nothing was materialized");
    let cached = std::fs::read(ws.path("build/cache/actions.log")).unwrap_or_default();
    assert!(cached.is_empty(), "nothing was cooked into the cache");

    ws.cook(&[]);
    let out = ws.mjolnir(&["forge", "cook", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("fresh: nothing would run"));

    // An edit: its block's import is named with the reason, and what follows it.
    let text = std::fs::read_to_string(model(&ws)).unwrap();
    std::fs::write(model(&ws), text.replacen("{", "{ ", 1)).unwrap();
    let before = std::fs::read(ws.path("build/cache/actions.log")).unwrap();
    let out = ws.mjolnir(&["forge", "cook", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    let listed = stdout(&out);
    assert!(
        listed.contains("would run foundry/import/column_1: source/models/column_1.gltf changed"),
        "{listed}"
    );
    assert!(!listed.contains("foundry/import/floor_1x1"), "{listed}");
    assert_eq!(
        std::fs::read(ws.path("build/cache/actions.log")).unwrap(),
        before
    );
}

#[test]
fn check_compares_the_set_folders_with_what_the_cook_would_write() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    let original = std::fs::read_to_string(model(&ws)).unwrap();
    std::fs::write(
        model(&ws),
        original.replacen("\"concrete\"", "\"concrete_2\"", 1),
    )
    .unwrap();
    ws.cook(&[]);
    // Reverted: every step's outputs are cached, but the set folder holds the edit.
    std::fs::write(model(&ws), &original).unwrap();
    let out = ws.mjolnir(&["forge", "cook", "--check"]);
    let listed = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{listed}");
    assert!(
        listed.contains("would write ") && listed.contains("column_1"),
        "{listed}"
    );
    ws.cook(&[]);
    let out = ws.mjolnir(&["forge", "cook", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // A file deleted by hand, and one put there by hand.
    let set = ws.path("build/game/foundry/all");
    std::fs::remove_file(set.join("cooked/column_1/geometry.json")).unwrap();
    std::fs::write(set.join("cooked/stray.txt"), b"by hand").unwrap();
    let out = ws.mjolnir(&["forge", "cook", "--check"]);
    let listed = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{listed}");
    assert!(
        listed.contains("cooked/column_1/geometry.json: it differs"),
        "{listed}"
    );
    assert!(
        listed.contains("would remove ") && listed.contains("stray.txt"),
        "{listed}"
    );
    assert!(
        !set.join("cooked/column_1/geometry.json").exists(),
        "--check changes nothing"
    );
    assert!(
        set.join("cooked/stray.txt").exists(),
        "--check changes nothing"
    );
}

#[test]
fn gc_evicts_the_least_recently_used_and_keeps_the_last_cooks_outputs() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    let geometry = ws.path("packs/foundry/source/geometry.json");
    let original = std::fs::read_to_string(&geometry).unwrap();
    // A second version of the column's collision: its first outputs are now used by no cook.
    ws.edit_json("packs/foundry/source/geometry.json", |g| {
        let blocks = g["blocks"].as_array_mut().unwrap();
        let column = blocks.iter_mut().find(|b| b["id"] == "column_1").unwrap();
        column["hulls"][0]["material"] = "steel".into();
    });
    ws.cook(&[]);
    let stats = ws.mjolnir(&["cache", "stats", "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(
        stats["recent_cooks"].as_array().unwrap().len(),
        2,
        "{stats}"
    );
    let before = stats["bytes"].as_u64().unwrap();
    // Each cook says what it stored: the edit stored its changed outputs, not the cache.
    let stored = |i: usize| stats["recent_cooks"][i]["stored_bytes"].as_u64().unwrap();
    assert!(stored(1) > 0 && stored(1) < stored(0) / 4, "{stats}");

    let out = ws.mjolnir(&["cache", "gc", "--max-size", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("the last cook's outputs alone take"),
        "{}",
        stdout(&out)
    );
    let stats = ws.mjolnir(&["cache", "stats", "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert!(stats["bytes"].as_u64().unwrap() < before, "{stats}");

    // The last cook's outputs are all there: nothing runs.
    ws.cook(&[]);
    assert!(ws.ran().is_empty(), "{:?}", ws.ran());
    // The first version's were evicted: going back cooks the column's collision again.
    std::fs::write(&geometry, &original).unwrap();
    ws.cook(&[]);
    assert!(
        ws.ran().iter().any(|s| s == "foundry/collision/column_1"),
        "{:?}",
        ws.ran()
    );
    let out = ws.mjolnir(&["cache", "stats"]);
    assert!(
        stdout(&out).contains("recent cooks, newest last:"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn gc_is_refused_and_stats_waits_while_a_cook_holds_the_lock() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    let lock = File::options()
        .write(true)
        .open(ws.path("build/.lock"))
        .unwrap();
    lock.lock().unwrap();
    let out = ws.mjolnir(&["cache", "gc", "--max-size", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("error[build_locked]"),
        "{}",
        stderr(&out)
    );

    let mut stats = std::process::Command::new(env!("CARGO_BIN_EXE_mjolnir"))
        .current_dir(ws.dir.path())
        .args(["cache", "stats"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        stats.try_wait().unwrap().is_none(),
        "stats waits for the cook"
    );
    drop(lock);
    let out = stats.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(
        stderr(&out).contains("waiting for the cook"),
        "{}",
        stderr(&out)
    );
}
