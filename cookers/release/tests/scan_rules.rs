//! Each rule of the Hub's scan, on a real release (`tests/data/`, the stock Roadworks set
//! cooked with the test donors): the release passes, and each change below fails it with
//! its own code.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use forge_release::archive::{self, Signer};
use forge_release::rules;
use forge_release::scan::{scan, ScanOptions, ScanReport, Severity};
use forge_release::signature;

const RELEASE: &[u8] = include_bytes!("data/roadworks-0.2.0.mjolnir");
const UTOC: &str = "content/roadworks_P.utoc";
const UCAS: &str = "content/roadworks_P.ucas";

type Members = BTreeMap<String, Vec<u8>>;

fn members() -> Members {
    archive::read_members(RELEASE, |_| true, 1 << 30).expect("the test release reads")
}

fn zipped(members: &Members) -> Vec<u8> {
    archive::zip_members(members).unwrap()
}

fn unsigned(bytes: &[u8]) -> ScanReport {
    scan(
        bytes,
        &ScanOptions {
            allow_unsigned: true,
            ..ScanOptions::default()
        },
    )
}

fn codes(report: &ScanReport, severity: Severity) -> BTreeSet<&'static str> {
    report
        .findings
        .iter()
        .filter(|f| f.severity == severity)
        .map(|f| f.code)
        .collect()
}

fn errors(report: &ScanReport) -> BTreeSet<&'static str> {
    codes(report, Severity::Error)
}

/// The scan of the release with `change` made to its members, unsigned.
fn changed(change: impl FnOnce(&mut Members)) -> ScanReport {
    let mut m = members();
    change(&mut m);
    unsigned(&zipped(&m))
}

fn manifest_with(edit: impl FnOnce(&mut serde_json::Value)) -> impl FnOnce(&mut Members) {
    move |m: &mut Members| {
        let mut v: serde_json::Value = serde_json::from_slice(&m["mjolnir.json"]).unwrap();
        edit(&mut v);
        m.insert("mjolnir.json".into(), serde_json::to_vec(&v).unwrap());
    }
}

fn key(seed: u8) -> ed25519_dalek::SigningKey {
    signature::key_from_seed(&[seed; 32]).unwrap()
}

fn signed(members: &Members, seed: u8) -> Vec<u8> {
    let key = key(seed);
    let signer = Signer {
        key: &key,
        signed_at: "2026-12-01T00:00:00Z".into(),
    };
    archive::write(members, "roadworks", "0.2.0", Some(signer)).unwrap()
}

#[test]
fn the_release_passes_and_an_unsigned_one_is_refused_unless_allowed() {
    let report = unsigned(RELEASE);
    assert!(errors(&report).is_empty(), "{:?}", report.findings);
    assert_eq!(
        codes(&report, Severity::Warning),
        BTreeSet::from(["unsigned"])
    );
    let report = scan(RELEASE, &ScanOptions::default());
    assert_eq!(errors(&report), BTreeSet::from(["unsigned"]));
}

#[test]
fn a_signature_must_verify_over_the_members_and_be_the_authors() {
    let bytes = signed(&members(), 1);
    let mine = signature::public_key_hex(
        &archive::read_member(&bytes, "signature.json", 1 << 20)
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    let report = scan(
        &bytes,
        &ScanOptions {
            expect_key: Some(&mine),
            ..ScanOptions::default()
        },
    );
    assert!(errors(&report).is_empty(), "{:?}", report.findings);

    let theirs = signature::hex(key(2).verifying_key().as_bytes());
    let report = scan(
        &bytes,
        &ScanOptions {
            expect_key: Some(&theirs),
            ..ScanOptions::default()
        },
    );
    assert_eq!(errors(&report), BTreeSet::from(["foreign_signature"]));

    // A member changed after signing.
    let mut tampered = archive::read_members(&bytes, |_| true, 1 << 30).unwrap();
    tampered.insert("docs/README.md".into(), b"changed".to_vec());
    let report = scan(&zipped(&tampered), &ScanOptions::default());
    assert_eq!(errors(&report), BTreeSet::from(["bad_signature"]));
}

#[test]
fn what_is_not_a_release_archive_is_refused() {
    assert!(errors(&unsigned(b"not a zip at all")).contains("bad_zip"));
    let report = changed(|m| {
        m.remove("mjolnir.json");
    });
    assert!(
        errors(&report).contains("no_manifest"),
        "{:?}",
        report.findings
    );
}

#[test]
fn members_a_release_does_not_carry_are_refused() {
    let report = changed(|m| {
        m.insert("source/notes.txt".into(), b"a note".to_vec());
    });
    assert_eq!(errors(&report), BTreeSet::from(["unlisted_member"]));

    let report = changed(|m| {
        m.insert("content/tool.exe".into(), b"MZ".to_vec());
    });
    assert!(
        errors(&report).contains("forbidden_file"),
        "{:?}",
        report.findings
    );

    let report = changed(|m| {
        m.insert("../escape.json".into(), b"{}".to_vec());
    });
    assert!(
        errors(&report).contains("path_traversal"),
        "{:?}",
        report.findings
    );
}

/// A zip whose second member is a link, written by hand with the zip crate.
fn with_link() -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in members() {
        zip.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(&bytes).unwrap();
    }
    zip.add_symlink(
        "docs/link.md",
        "/etc/passwd",
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    zip.finish().unwrap().into_inner()
}

#[test]
fn a_link_and_a_name_given_twice_are_refused() {
    assert!(errors(&unsigned(&with_link())).contains("symlink_member"));

    // Two members whose names differ in one byte, then made the same in the local headers
    // and the central directory: the zip crate would not write a duplicate itself.
    let mut m = members();
    m.insert("docs/README.md".into(), b"one".to_vec());
    m.insert("docs/README.me".into(), b"two".to_vec());
    let mut bytes = zipped(&m);
    let (from, to) = (b"docs/README.me".as_slice(), b"docs/README.md".as_slice());
    let mut i = 0;
    while let Some(at) = bytes[i..].windows(from.len()).position(|w| w == from) {
        bytes[i + at..i + at + to.len()].copy_from_slice(to);
        i += at + to.len();
    }
    assert!(errors(&unsigned(&bytes)).contains("duplicate_member"));
}

#[test]
fn the_manifest_must_be_publishable_and_say_the_release_version() {
    let report = scan(
        RELEASE,
        &ScanOptions {
            allow_unsigned: true,
            release_version: Some("0.3.0"),
            ..ScanOptions::default()
        },
    );
    assert_eq!(errors(&report), BTreeSet::from(["version_mismatch"]));

    let report = changed(manifest_with(|v| v["version"] = "0.2.0+local".into()));
    assert!(
        errors(&report).contains("build_metadata"),
        "{:?}",
        report.findings
    );

    let report = changed(manifest_with(
        |v| v["diagnostic"] = serde_json::json!({"reason": "reduced --only build", "only": ["road_ramp"], "full_set_version": "0.2.0"}),
    ));
    assert!(
        errors(&report).contains("diagnostic_build"),
        "{:?}",
        report.findings
    );

    let report = changed(manifest_with(|v| {
        v["forge_pack"]["blocks"][0]["id"] = 7.into()
    }));
    assert!(
        errors(&report).contains("bad_manifest"),
        "{:?}",
        report.findings
    );
}

#[test]
fn a_catalog_block_without_a_crate_is_a_ghost() {
    let report = changed(manifest_with(|v| {
        let mut ghost = v["forge_pack"]["blocks"][0].clone();
        ghost["id"] = "road_ghost".into();
        ghost["tag"] = "objects\\mjolnir\\forge\\roadworks\\road_ghost".into();
        v["forge_pack"]["blocks"]
            .as_array_mut()
            .unwrap()
            .push(ghost);
    }));
    assert!(
        errors(&report).contains("ghost_block"),
        "{:?}",
        report.findings
    );
}

#[test]
fn containers_must_be_paired_whole_unencrypted_and_the_packs_own() {
    let report = changed(|m| {
        m.remove(UCAS);
    });
    assert!(
        errors(&report).contains("orphan_utoc"),
        "{:?}",
        report.findings
    );

    let report = changed(|m| {
        m.remove(UTOC);
    });
    assert!(
        errors(&report).contains("orphan_ucas"),
        "{:?}",
        report.findings
    );

    let report = changed(|m| {
        let utoc = m.get_mut(UTOC).unwrap();
        let last = utoc.len() - 1;
        utoc.truncate(last);
    });
    assert!(
        errors(&report).contains("bad_container"),
        "{:?}",
        report.findings
    );

    let report = changed(|m| {
        // The header's flags byte: 0x02 is the Encrypted flag.
        m.get_mut(UTOC).unwrap()[0x50] |= 0x02;
    });
    assert!(
        errors(&report).contains("encrypted_container"),
        "{:?}",
        report.findings
    );

    let report = changed(|m| {
        let (utoc, ucas) = (m.remove(UTOC).unwrap(), m.remove(UCAS).unwrap());
        m.insert("content/foundry_P.utoc".into(), utoc);
        m.insert("content/foundry_P.ucas".into(), ucas);
    });
    assert!(
        errors(&report).contains("foreign_container"),
        "{:?}",
        report.findings
    );

    let report = changed(|m| {
        let ucas = m.get_mut(UCAS).unwrap();
        let mid = ucas.len() / 2;
        ucas[mid] ^= 0xFF;
    });
    assert!(
        errors(&report).contains("bad_container"),
        "{:?}",
        report.findings
    );
}

#[test]
fn changes_json_is_optional_but_must_be_a_change_list() {
    let report = changed(|m| {
        m.remove("changes.json");
    });
    assert!(errors(&report).is_empty(), "{:?}", report.findings);
    assert!(codes(&report, Severity::Warning).contains("no_changes"));

    let report = changed(|m| {
        m.insert(
            "changes.json".into(),
            br#"{"tags": "all of them"}"#.to_vec(),
        );
    });
    assert!(
        errors(&report).contains("bad_changes"),
        "{:?}",
        report.findings
    );
}

#[test]
fn blocks_without_unreal_packages_and_maps_with_a_packs_packages_are_refused() {
    let m = members();
    let manifest = forge_contract::parse_manifest(
        "mjolnir.json",
        std::str::from_utf8(&m["mjolnir.json"]).unwrap(),
    )
    .unwrap()
    .0;
    let catalog = manifest.catalog().unwrap();
    let root = forge_contract::ids::unreal_root(&catalog.id);
    let block = &catalog.blocks[0].id;
    let crates: BTreeSet<String> = catalog
        .blocks
        .iter()
        .map(|b| format!("{root}{}/crate", b.id))
        .collect();
    let mut whole = crates.clone();
    for b in &catalog.blocks {
        whole.insert(format!("{root}{}/SM_{}", b.id, b.id));
        whole.insert(format!("{root}{}/BP_{}", b.id, b.id));
    }
    assert!(rules::uninstallable_blocks(catalog, &whole).is_empty());
    assert!(rules::ghost_blocks(catalog, &whole).is_empty());
    let found = rules::uninstallable_blocks(catalog, &crates);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].code, "not_installable");
    assert!(
        found[0].message.contains(block.as_str()),
        "{}",
        found[0].message
    );

    let in_a_map: BTreeSet<String> = [
        format!("{root}{block}/SM_{block}"),
        "/Game/MJOLNIR/Maps/circuit/Level".to_string(),
    ]
    .into();
    let found = rules::pack_packages_in_map(&in_a_map);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].code, "map_holds_pack_packages");
}
