//! A set of more than 64 blocks reads its blocks' chunk indexes and facts a group at a time
//! (`block_group`): its container and documents are the same files, and an edit re-reads
//! the one group it touched.

use crate::support::{self, replace_all, stderr, tree, Workspace};
use serde_json::Value;

/// A workspace with a generated pack of `blocks` small blocks and the test donors; `None`
/// (the test skips) when forge-packgen is not built beside mjolnir.
fn generated(blocks: usize) -> Option<Workspace> {
    let packgen = support::packgen()?;
    let ws = Workspace::with_packs(&[]);
    let blocks = blocks.to_string();
    let out = std::process::Command::new(&packgen)
        .args([
            "synth",
            "packs/big",
            "--blocks",
            &blocks,
            "--triangles",
            "12",
        ])
        .args(["--hulls", "1", "--id", "big"])
        .current_dir(ws.path(""))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let toml = std::fs::read_to_string(ws.path("pipeline.toml")).unwrap();
    let pack = "[[pack]]\nid = \"big\"\npath = \"packs/big\"\n\n";
    std::fs::write(ws.path("pipeline.toml"), format!("{pack}{toml}")).unwrap();
    Some(ws)
}

fn inspect(ws: &Workspace, file: &str) -> Value {
    let out = ws.mjolnir(&["forge", "inspect", file, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_large_sets_blocks_are_read_a_group_at_a_time_and_an_edit_reruns_its_group() {
    let Some(ws) = generated(66) else {
        return;
    };
    ws.cook(&[]);
    let groups: Vec<String> = (0..5).map(|n| format!("big/block_group/all.{n}")).collect();
    let ran = ws.ran();
    assert_eq!(
        ran.iter()
            .filter(|id| id.contains("/block_group/"))
            .collect::<Vec<_>>(),
        groups.iter().collect::<Vec<_>>()
    );
    // Each group's two files (indexes and facts) name its blocks in order: 16 a group,
    // and the last holds the two left over.
    let mut cached = Vec::new();
    for (blob, bytes) in tree(&ws.path("build/cache/blobs")) {
        if bytes.starts_with(b"FGRP") {
            cached.push(inspect(&ws, &format!("build/cache/blobs/{blob}")));
        }
    }
    let mut sizes: Vec<usize> = cached
        .iter()
        .map(|g| g["blocks"].as_array().unwrap().len())
        .collect();
    sizes.sort();
    assert_eq!(sizes, [2, 2, 16, 16, 16, 16, 16, 16, 16, 16]);
    let last = cached
        .iter()
        .find(|g| g["blocks"].as_array().unwrap().len() == 2);
    let names: Vec<&str> = last.unwrap()["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["block"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["b064", "b065"]);
    // The container laid out from the groups holds every block's chunks, and they verify.
    let container = inspect(&ws, "build/game/big/all/content/big_P.utoc");
    assert_eq!(container["failures"], 0);
    assert_eq!(container["chunks"].as_array().unwrap().len(), 6 * 66 + 1);
    let inventory: Value = serde_json::from_slice(
        &std::fs::read(ws.path("build/game/big/all/inventory.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(inventory["blocks"].as_object().unwrap().len(), 66);

    // A material renamed in one block changes its facts, not its chunks: its group runs
    // again, the others and the container do not.
    let model = ws.path("packs/big/source/models/b040.glb");
    let glb = std::fs::read(&model).unwrap();
    std::fs::write(&model, replace_all(&glb, b"\"steel\"", b"\"stool\"")).unwrap();
    ws.cook(&[]);
    let ran = ws.ran();
    let rerun: Vec<&String> = ran
        .iter()
        .filter(|id| id.contains("/block_group/"))
        .collect();
    assert_eq!(rerun, [&groups[2]], "{ran:?}");
    assert!(ran.contains(&"big/documents/all".to_string()), "{ran:?}");
    assert!(!ran.contains(&"big/assemble/all".to_string()), "{ran:?}");
}
