//! The checked-in stock packs are exactly what the generator writes, and its glTF passes
//! the Khronos validator.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(
                    path.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    out
}

#[test]
fn checked_in_packs_match_a_fresh_run() {
    let out = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_forge-packgen"))
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success());
    let fresh = tree(out.path());
    let checked_in = tree(&repo().join("forge-packs"));
    assert_eq!(
        fresh.keys().collect::<Vec<_>>(),
        checked_in.keys().collect::<Vec<_>>(),
        "run `cargo run -p forge-packgen -- forge-packs`"
    );
    for (path, bytes) in &fresh {
        assert!(
            checked_in[path] == *bytes,
            "{} is stale: run `cargo run -p forge-packgen -- forge-packs`",
            path.display()
        );
    }
    // A second run gives the same bytes.
    let again = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_forge-packgen"))
        .arg(again.path())
        .status()
        .unwrap();
    assert!(tree(again.path()) == fresh);
}

#[test]
fn stock_models_pass_the_khronos_validator() {
    let tool = repo().join("tools/gltf-validator");
    if Command::new("node").arg("--version").output().is_err() {
        println!("skipped: node is not installed, so the Khronos glTF validator cannot run");
        return;
    }
    if !tool.join("node_modules/gltf-validator").is_dir() {
        // The validator is an npm package pinned by package-lock.json; install it on first use.
        let installed = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--prefix"])
            .arg(&tool)
            .output();
        if !installed.as_ref().is_ok_and(|o| o.status.success())
            || !tool.join("node_modules/gltf-validator").is_dir()
        {
            println!("skipped: `npm ci --prefix tools/gltf-validator` could not install the Khronos glTF validator");
            return;
        }
    }
    let out = Command::new("node")
        .arg(tool.join("validate.mjs"))
        .arg(repo().join("forge-packs"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("55 files, 0 with errors"), "{text}");
}

#[test]
fn synthetic_packs_are_deterministic_and_valid_at_256_blocks() {
    let run = |dir: &Path| {
        let status = Command::new(env!("CARGO_BIN_EXE_forge-packgen"))
            .arg("synth")
            .arg(dir)
            .args([
                "--blocks",
                "256",
                "--triangles",
                "500",
                "--hulls",
                "3",
                "--seed",
                "7",
            ])
            .status()
            .unwrap();
        assert!(status.success());
        tree(dir)
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (ta, tb) = (run(a.path()), run(b.path()));
    assert!(ta == tb, "the same seed gives the same bytes");
    assert_eq!(
        ta.keys()
            .filter(|k| k.extension().is_some_and(|e| e == "glb"))
            .count(),
        256
    );
    let manifest = String::from_utf8(ta[Path::new("mjolnir.json")].clone()).unwrap();
    let (m, _) = forge_contract::parse_manifest("mjolnir.json", &manifest)
        .unwrap_or_else(|d| panic!("{d:#?}"));
    let geometry = String::from_utf8(ta[Path::new("source/geometry.json")].clone()).unwrap();
    forge_contract::parse_geometry("geometry.json", &geometry, m.catalog().unwrap())
        .unwrap_or_else(|d| panic!("{d:#?}"));
    let mesh = forge_gltf::import(
        "b000.glb",
        &ta[Path::new("source/models/b000.glb")],
        &Default::default(),
    )
    .unwrap();
    assert!(mesh.triangles.len() >= 500);
}

#[test]
fn the_donor_paks_are_what_the_generator_makes_from_the_donors() {
    let out = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_forge-packgen"))
        .arg("donor-paks")
        .arg(repo().join("tests/data/donors"))
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        tree(out.path()),
        tree(&repo().join("tests/data/donor-paks"))
    );
}

#[test]
fn checked_in_maps_match_a_fresh_run() {
    let out = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_forge-packgen"))
        .arg("maps")
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(tree(out.path()), tree(&repo().join("forge-maps")));
}
