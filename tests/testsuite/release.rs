//! Releases end to end: `mjolnir forge pack`, `verify` and `cook --archive`, and every
//! tampering the Hub's scan must catch, each with its code.

use crate::support;

use std::collections::BTreeMap;
use std::io::{Cursor, Read, Write};

use serde_json::Value;
use support::{replace_all, stderr, Workspace};

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
    let out = ws.mjolnir(&["forge", "verify", "u1.mjolnir", "--allow-unsigned"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("warning[unsigned]"));
    assert_eq!(
        verify(&ws, &unsigned1, &[]),
        ["unsigned"],
        "the Hub refuses it"
    );
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
        ["unlisted_member", "bad_signature"],
        "an added member: not the contract's, and not signed"
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
        verify(&ws, &with("../escape.txt", b"x"), &["--allow-unsigned"]),
        ["path_traversal"]
    );
    assert_eq!(
        verify(&ws, &with("/etc/passwd.txt", b"x"), &["--allow-unsigned"]),
        ["path_traversal"]
    );
    assert_eq!(
        verify(&ws, &with("content/evil.dll", b"MZ"), &["--allow-unsigned"]),
        ["forbidden_file"]
    );
    assert_eq!(
        verify(
            &ws,
            &with("content/lonely.utoc", &unsigned["content/foundry_P.utoc"]),
            &["--allow-unsigned"]
        ),
        ["orphan_utoc", "foreign_container"]
    );
    assert_eq!(
        verify(
            &ws,
            &with("changes.json", b"{not json"),
            &["--allow-unsigned"]
        ),
        ["bad_changes"]
    );
    let mut no_content = unsigned.clone();
    no_content.retain(|k, _| !k.starts_with("content/"));
    assert_eq!(
        verify(&ws, &rezip(&no_content), &["--allow-unsigned"]),
        ["no_content"]
    );
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

/// A catalog entry for a block the containers do not hold.
fn add_ghost_block(manifest: &mut Value) {
    let mut entry = manifest["forge_pack"]["blocks"][0].clone();
    entry["id"] = "ghost_piece".into();
    entry["name"] = "Ghost piece".into();
    entry["tag"] = "objects\\mjolnir\\forge\\foundry\\ghost_piece".into();
    manifest["forge_pack"]["blocks"]
        .as_array_mut()
        .unwrap()
        .push(entry);
}

/// Packs the set in `set` (unsigned) and asserts the packer refuses it with `code`,
/// writing nothing.
fn refused_by_packer(ws: &Workspace, set: &str, code: &str) {
    let out = ws.mjolnir(&[
        "forge",
        "pack",
        &format!("build/game/foundry/{set}/mjolnir.json"),
        "--content",
        &format!("build/game/foundry/{set}/content"),
        "--out",
        "refused.mjolnir",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!("error[{code}]")),
        "{}",
        stderr(&out)
    );
    assert!(!ws.path("refused.mjolnir").exists());
}

#[test]
fn the_packer_refuses_what_must_not_be_published() {
    let ws = cooked();
    ws.cook(&["--only", "floor_2x2"]);
    refused_by_packer(&ws, "floor_2x2", "diagnostic_build");
    ws.edit("build/game/foundry/all/mjolnir.json", |t| {
        t.replacen("\"0.2.0\"", "\"0.2.0+local\"", 1)
    });
    refused_by_packer(&ws, "all", "build_metadata");
    // A catalog entry with no crate in the container: a ghost in the Forge palette.
    ws.edit("build/game/foundry/all/mjolnir.json", |t| {
        let mut v: Value = serde_json::from_str(&t.replacen("0.2.0+local", "0.2.0", 1)).unwrap();
        add_ghost_block(&mut v);
        v.to_string()
    });
    refused_by_packer(&ws, "all", "ghost_block");
}

#[test]
fn cook_archive_goes_from_sources_to_a_verified_release() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&["--archive"]);
    let archive =
        std::fs::read(ws.path("build/game/foundry/all/release/foundry-0.2.0.mjolnir")).unwrap();
    assert!(verify(
        &ws,
        &archive,
        &["--release-version", "0.2.0", "--allow-unsigned"]
    )
    .is_empty());
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
    // A key file someone loosened is replaced by one only its owner can read.
    let key = dir.join("author-key");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(run(&["key", "new", "--force"]).status.code(), Some(0));
    let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

/// `members` zipped, then `extra` adds entries the plain writer would not.
fn zip_with(
    members: &BTreeMap<String, Vec<u8>>,
    extra: impl FnOnce(&mut zip::ZipWriter<Cursor<Vec<u8>>>),
) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in members {
        zip.start_file(name.as_str(), zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(data).unwrap();
    }
    extra(&mut zip);
    zip.finish().unwrap().into_inner()
}

#[test]
fn verify_refuses_what_the_hub_refuses() {
    let ws = cooked();
    let signed = packed(&ws, Some(SEED_A), "a.mjolnir");
    let base = members(&signed);
    let offline = ["--allow-unsigned"];

    // A second, unsigned copy of a signed container: refused whatever the extractor keeps.
    let mut decoy = base.clone();
    decoy.insert(
        "content/foundry_P.ucaX".into(),
        b"not the signed one".to_vec(),
    );
    let doubled = replace_all(
        &rezip(&decoy),
        b"content/foundry_P.ucaX",
        b"content/foundry_P.ucas",
    );
    let codes = verify(&ws, &doubled, &["--expect-key", KEY_A]);
    assert!(codes.contains(&"duplicate_member".to_string()), "{codes:?}");
    let mut cased = base.clone();
    cased.insert("docs/readme.md".into(), b"shadow".to_vec());
    assert!(verify(&ws, &rezip(&cased), &[]).contains(&"duplicate_member".to_string()));

    let unsigned = members(&packed(&ws, None, "u.mjolnir"));
    let link = zip_with(&unsigned, |z| {
        z.add_symlink(
            "docs/link.md",
            "/etc/passwd",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
    });
    assert_eq!(verify(&ws, &link, &offline), ["symlink_member"]);
    let up = zip_with(&unsigned, |z| {
        z.add_directory("../up/", zip::write::SimpleFileOptions::default())
            .unwrap();
    });
    assert_eq!(verify(&ws, &up, &offline), ["path_traversal"]);
    for name in [
        "docs/a:b.md",
        "docs/CON.md",
        "docs/x\u{202E}dm.txt",
        "docs/trail.md.",
    ] {
        let mut m = unsigned.clone();
        m.insert(name.into(), b"x".to_vec());
        assert_eq!(
            verify(&ws, &rezip(&m), &offline),
            ["bad_member_name"],
            "{name:?}"
        );
    }

    let renamed = |from: &str, to: &str| {
        let mut m = unsigned.clone();
        for ext in ["utoc", "ucas"] {
            let data = m.remove(&format!("content/{from}.{ext}")).unwrap();
            let ext = if to.ends_with("_UPPER") {
                ext.to_uppercase()
            } else {
                ext.into()
            };
            m.insert(
                format!("content/{}.{ext}", to.trim_end_matches("_UPPER")),
                data,
            );
        }
        rezip(&m)
    };
    let upper = verify(&ws, &renamed("foundry_P", "foundry_P_UPPER"), &offline);
    assert!(
        upper.starts_with(&["forbidden_file".into(), "forbidden_file".into()]),
        "{upper:?}"
    );
    assert_eq!(
        verify(&ws, &renamed("foundry_P", "roadworks_P"), &offline),
        ["foreign_container"]
    );

    let with_manifest = |edit: &dyn Fn(&mut Value)| {
        let mut m = unsigned.clone();
        let mut manifest: Value = serde_json::from_slice(&m["mjolnir.json"]).unwrap();
        edit(&mut manifest);
        m.insert(
            "mjolnir.json".into(),
            serde_json::to_vec(&manifest).unwrap(),
        );
        rezip(&m)
    };
    let build = with_manifest(&|v| v["version"] = "0.2.0+local".into());
    assert_eq!(verify(&ws, &build, &offline), ["build_metadata"]);
    let ghost = with_manifest(&add_ghost_block);
    assert_eq!(verify(&ws, &ghost, &offline), ["ghost_block"]);
    let diagnostic = with_manifest(&|v| {
        v["diagnostic"] =
            serde_json::json!({"reason": "x", "only": ["floor_2x2"], "full_set_version": "0.2.0"});
    });
    assert_eq!(verify(&ws, &diagnostic, &offline), ["diagnostic_build"]);
}

#[test]
fn verify_json_names_the_signer_and_the_sha256() {
    let ws = cooked();
    let signed = packed(&ws, Some(SEED_A), "a.mjolnir");
    let out = ws.mjolnir(&["forge", "verify", "a.mjolnir", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sha256"], forge_release::signature::sha256_hex(&signed));
    let key: [u8; 32] =
        std::array::from_fn(|i| u8::from_str_radix(&KEY_A[2 * i..2 * i + 2], 16).unwrap());
    let fingerprint = forge_release::signature::sha256_hex(&key);
    assert_eq!(v["signer"], fingerprint);
    // `forge pack` writes what the Hub publishes beside the archive, as `cook --archive`.
    let catalog: Value =
        serde_json::from_slice(&std::fs::read(ws.path("a.forge-pack.json")).unwrap()).unwrap();
    assert_eq!(catalog["archive_sha256"], v["sha256"]);
    assert_eq!(catalog["release_version"], "0.2.0");
}
