//! Releases end to end: `mjolnir forge pack`, `verify` and `cook --archive`, and every
//! tampering the Hub's scan must catch, each with its code.

mod support;

use std::collections::BTreeMap;
use std::io::{Cursor, Read, Write};

use serde_json::Value;
use support::{stderr, Workspace};

const SEED_A: &str = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const SEED_B: &str = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb";
/// RFC 8032 test 1's public key: the key of SEED_A.
const KEY_A: &str = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

fn packed(ws: &Workspace, seed: Option<&str>, out: &str) -> Vec<u8> {
    let mut args = vec![
        "forge",
        "pack",
        "build/game/foundry/all/mjolnir.json",
        "--content",
        "build/game/foundry/all/content",
        "--readme",
        "packs/foundry/README.md",
        "--changes",
        "build/game/foundry/all/changes.json",
        "--out",
        out,
    ];
    if let Some(seed) = seed {
        std::fs::write(ws.path("seed.hex"), seed).unwrap();
        args.extend(["--sign-seed", "seed.hex"]);
    }
    let result = ws.mjolnir(&args);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    std::fs::read(ws.path(out)).unwrap()
}

fn members(bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut out = BTreeMap::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let mut data = Vec::new();
        f.read_to_end(&mut data).unwrap();
        out.insert(f.name().unwrap().to_string(), data);
    }
    out
}

fn rezip(members: &BTreeMap<String, Vec<u8>>) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in members {
        zip.start_file(name.as_str(), zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// Runs `verify` on `bytes` and returns the error codes.
fn verify(ws: &Workspace, bytes: &[u8], extra: &[&str]) -> Vec<String> {
    std::fs::write(ws.path("check.mjolnir"), bytes).unwrap();
    let mut args = vec!["forge", "verify", "check.mjolnir", "--json"];
    args.extend_from_slice(extra);
    let out = ws.mjolnir(&args);
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr(&out)));
    let errors: Vec<String> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        out.status.code(),
        Some(if errors.is_empty() { 0 } else { 1 })
    );
    errors
}

fn cooked() -> Workspace {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    ws
}

#[test]
fn signed_archives_verify_and_are_deterministic() {
    let ws = cooked();
    let signed = packed(&ws, Some(SEED_A), "a.mjolnir");
    assert!(verify(
        &ws,
        &signed,
        &["--expect-key", KEY_A, "--release-version", "0.2.0"]
    )
    .is_empty());
    let m = members(&signed);
    assert_eq!(
        m.keys().collect::<Vec<_>>(),
        [
            "changes.json",
            "content/foundry_P.ucas",
            "content/foundry_P.utoc",
            "docs/README.md",
            "mjolnir.json",
            "signature.json"
        ]
    );
    let envelope: Value = serde_json::from_slice(&m["signature.json"]).unwrap();
    assert_eq!(envelope["payload_type"], "mjolnir-mod-statement-v1");
    let unsigned1 = packed(&ws, None, "u1.mjolnir");
    let unsigned2 = packed(&ws, None, "u2.mjolnir");
    assert_eq!(
        unsigned1, unsigned2,
        "the same release packs to the same bytes"
    );
    let out = ws.mjolnir(&["forge", "verify", "u1.mjolnir"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("warning[unsigned]"));
    assert_eq!(
        verify(&ws, &signed, &["--release-version", "0.3.0"]),
        ["version_mismatch"]
    );
}

#[test]
fn tampering_is_caught_with_its_code() {
    let ws = cooked();
    let signed = packed(&ws, Some(SEED_A), "a.mjolnir");
    let base = members(&signed);

    let mut flipped = base.clone();
    flipped.get_mut("docs/README.md").unwrap()[3] ^= 1;
    assert_eq!(
        verify(&ws, &rezip(&flipped), &[]),
        ["bad_signature"],
        "a flipped byte"
    );

    let mut added = base.clone();
    added.insert("docs/extra.md".into(), b"extra".to_vec());
    assert_eq!(
        verify(&ws, &rezip(&added), &[]),
        ["bad_signature"],
        "an added member"
    );

    let mut removed = base.clone();
    removed.remove("docs/README.md");
    assert_eq!(
        verify(&ws, &rezip(&removed), &[]),
        ["bad_signature"],
        "a removed member"
    );

    let resigned = packed(&ws, Some(SEED_B), "b.mjolnir");
    assert!(verify(&ws, &resigned, &[]).is_empty());
    assert_eq!(
        verify(&ws, &resigned, &["--expect-key", KEY_A]),
        ["foreign_signature"],
        "signed under another key"
    );

    let unsigned = members(&packed(&ws, None, "u.mjolnir"));
    let with = |name: &str, data: &[u8]| {
        let mut m = unsigned.clone();
        m.insert(name.into(), data.to_vec());
        rezip(&m)
    };
    assert_eq!(
        verify(&ws, &with("../escape.txt", b"x"), &[]),
        ["path_traversal"]
    );
    assert_eq!(
        verify(&ws, &with("/etc/passwd.txt", b"x"), &[]),
        ["path_traversal"]
    );
    assert_eq!(
        verify(&ws, &with("content/evil.dll", b"MZ"), &[]),
        ["forbidden_file"]
    );
    assert_eq!(
        verify(
            &ws,
            &with("content/lonely.utoc", &unsigned["content/foundry_P.utoc"]),
            &[]
        ),
        ["orphan_utoc"]
    );
    assert_eq!(
        verify(&ws, &with("changes.json", b"{not json"), &[]),
        ["bad_changes"]
    );
    let mut no_content = unsigned.clone();
    no_content.retain(|k, _| !k.starts_with("content/"));
    assert_eq!(verify(&ws, &rezip(&no_content), &[]), ["no_content"]);
    assert_eq!(verify(&ws, b"PK\x03\x04 not really", &[]), ["bad_zip"]);
}

#[test]
fn a_300_mib_member_is_refused() {
    let ws = cooked();
    let mut m = members(&packed(&ws, None, "u.mjolnir"));
    m.insert("docs/huge.txt".into(), vec![0u8; 300 << 20]);
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in &m {
        zip.start_file(
            name.as_str(),
            zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .large_file(data.len() > u32::MAX as usize),
        )
        .unwrap();
        zip.write_all(data).unwrap();
    }
    let bytes = zip.finish().unwrap().into_inner();
    assert!(
        bytes.len() < 2 << 20,
        "the member is sparse: {} bytes packed",
        bytes.len()
    );
    assert_eq!(verify(&ws, &bytes, &[]), ["bad_zip"]);
}

#[test]
fn the_packer_refuses_what_must_not_be_published() {
    let ws = cooked();
    ws.cook(&["--only", "floor_2x2"]);
    let out = ws.mjolnir(&[
        "forge",
        "pack",
        "build/game/foundry/floor_2x2/mjolnir.json",
        "--content",
        "build/game/foundry/floor_2x2/content",
        "--out",
        "d.mjolnir",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("error[diagnostic_build]"),
        "{}",
        stderr(&out)
    );
    assert!(!ws.path("d.mjolnir").exists());
    ws.edit("build/game/foundry/all/mjolnir.json", |t| {
        t.replacen("\"0.2.0\"", "\"0.2.0+local\"", 1)
    });
    let out = ws.mjolnir(&[
        "forge",
        "pack",
        "build/game/foundry/all/mjolnir.json",
        "--content",
        "build/game/foundry/all/content",
        "--out",
        "b.mjolnir",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("error[build_metadata]"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn cook_archive_goes_from_sources_to_a_verified_release() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&["--archive"]);
    let archive =
        std::fs::read(ws.path("build/game/foundry/all/release/foundry-0.2.0.mjolnir")).unwrap();
    assert!(verify(&ws, &archive, &["--release-version", "0.2.0"]).is_empty());
    let catalog: Value = serde_json::from_slice(
        &std::fs::read(ws.path("build/game/foundry/all/release/foundry-0.2.0.forge-pack.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(catalog["release_version"], "0.2.0");
    assert_eq!(catalog["catalog"]["id"], "foundry");
    assert_eq!(
        catalog["archive_sha256"].as_str().unwrap(),
        forge_release::signature::sha256_hex(&archive)
    );
    // Cached like any step.
    ws.cook(&["--archive"]);
    assert!(ws.ran().is_empty());
    // A reduced build cannot be archived at the full set's version.
    let out = ws.mjolnir(&["forge", "cook", "--archive", "--only", "floor_2x2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("diagnostic_build"));
}

#[test]
fn author_keys_are_private_and_shown() {
    let ws = Workspace::with_packs(&["foundry"]);
    let dir = ws.path("config");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mjolnir"))
            .env("MJOLNIR_CONFIG_DIR", &dir)
            .current_dir(ws.dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["key", "new"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(dir.join("author-key"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    let shown = String::from_utf8_lossy(&run(&["key", "show"]).stdout).into_owned();
    assert!(shown.contains("public key") && shown.contains("fingerprint"));
    assert_eq!(
        run(&["key", "new"]).status.code(),
        Some(2),
        "an existing key is not replaced without --force"
    );
}
