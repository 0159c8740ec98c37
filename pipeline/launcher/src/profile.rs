//! A launcher profile on disk, and what the launcher believes of it: only what it verified.
//!
//! ```text
//! trusted-keys.txt                     hex Ed25519 public keys, one a line
//! maps/*.mjolnir                       the enabled maps (verified like packs)
//! packs/*.mjolnir                      the installed releases, one per pack
//! packs/.install-journal.json          an install under way (see `install`)
//! ue4ss/Mods/MJOLNIRForge/layouts/     saved layouts and their .mvar.packs sidecars
//! ue4ss/MJOLNIRForgePacks/             installed.json and installed.txt, for the game
//! Paks/MJOLNIR/<slug>/                 each enabled release's containers and .pak stubs
//! launcher_report.txt                  the last sync's report
//! ```
//!
//! Each item that cannot be trusted (an archive that fails the scan or is signed by a key
//! the profile does not trust, a sidecar that is not a sidecar) becomes one finding, and
//! the rest of the profile is read as usual.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use forge_contract::Manifest;
use forge_release::scan::{self, ScanOptions};
use forge_resolve::layout::{self as saved, Row};
use mjolnir_files::bounded::{self, ReadError};
use semver::Version;
use serde_json::Value;

use crate::api::MAX_ARCHIVE_BYTES;
use crate::finding::Finding;

const MAX_SIDECAR_BYTES: u64 = 4 << 20;
const MAX_KEYS_BYTES: u64 = 1 << 20;
const MAX_MANIFEST_BYTES: u64 = 16 << 20;

pub struct Profile {
    pub root: PathBuf,
}

impl Profile {
    pub fn packs(&self) -> PathBuf {
        self.root.join("packs")
    }
    pub fn maps(&self) -> PathBuf {
        self.root.join("maps")
    }
    pub fn layouts(&self) -> PathBuf {
        self.root.join("ue4ss/Mods/MJOLNIRForge/layouts")
    }
    pub fn catalogs(&self) -> PathBuf {
        self.root.join("ue4ss/MJOLNIRForgePacks")
    }
    pub fn paks(&self) -> PathBuf {
        self.root.join("Paks/MJOLNIR")
    }
    pub fn report(&self) -> PathBuf {
        self.root.join("launcher_report.txt")
    }
    fn trusted_keys(&self) -> PathBuf {
        self.root.join("trusted-keys.txt")
    }
}

/// An archive that passed the scan, signed by a trusted key, as its own bytes describe it.
pub struct Verified {
    pub slug: String,
    pub version: Version,
    pub sha256: String,
    pub manifest: Manifest,
    /// The manifest's JSON as written, for what the typed manifest does not keep (the
    /// catalog as published, a map's name).
    pub raw: Value,
    pub path: PathBuf,
}

impl Verified {
    pub fn blocks(&self) -> usize {
        self.manifest.catalog().map_or(0, |c| c.blocks.len())
    }
}

/// The fingerprints of the keys the profile trusts. A line that is not a key is a finding;
/// the others still count.
pub fn trusted_fingerprints(profile: &Profile) -> (Vec<String>, Vec<Finding>) {
    let path = profile.trusted_keys();
    let text = match bounded::read_text(&path, MAX_KEYS_BYTES) {
        Ok(text) => text,
        Err(ReadError::NotFound) => return (Vec::new(), Vec::new()),
        Err(e) => {
            return (
                Vec::new(),
                vec![unreadable("trusted_keys_unreadable", &path, &e)],
            )
        }
    };
    let mut keys = Vec::new();
    let mut findings = Vec::new();
    for (n, line) in text.lines().enumerate().map(|(n, l)| (n + 1, l.trim())) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match decode_key(line) {
            Some(key) => keys.push(forge_release::signature::sha256_hex(&key)),
            None => findings.push(Finding::new(
                "bad_trusted_key",
                format!("{}:{n}", path.display()),
                "not a hex Ed25519 public key (64 hex digits); this line trusts no one",
            )),
        }
    }
    (keys, findings)
}

fn decode_key(line: &str) -> Option<Vec<u8>> {
    if line.len() != 64 || !line.is_ascii() {
        return None;
    }
    (0..64)
        .step_by(2)
        .map(|i| u8::from_str_radix(&line[i..i + 2], 16).ok())
        .collect()
}

pub fn unreadable(code: &'static str, path: &Path, e: &ReadError) -> Finding {
    Finding::new(
        code,
        path.display().to_string(),
        format!("cannot be read: {e}"),
    )
}

/// Scans `bytes` as the Hub does (signed, every rule), and checks the signer is trusted.
pub fn verify(bytes: &[u8], trusted: &[String], path: &Path) -> Result<Verified, Finding> {
    let subject = path.display().to_string();
    let report = scan::scan(bytes, &ScanOptions::default());
    if let Some(f) = report.errors().next() {
        return Err(Finding::new(
            "archive_refused",
            subject,
            format!("{} ({})", f.message, f.code),
        ));
    }
    let (Some(manifest), Some(signer)) = (report.manifest, report.signer) else {
        return Err(Finding::new(
            "archive_refused",
            subject,
            "the scan found no manifest or signer",
        ));
    };
    if !trusted.contains(&signer) {
        let key = report.signer_key.unwrap_or_default();
        return Err(Finding::new(
            "untrusted_signer",
            subject,
            format!("signed by key {signer}, which the profile does not trust; to trust this author, add this line to trusted-keys.txt: {key}"),
        ));
    }
    let raw = forge_release::archive::read_member(bytes, "mjolnir.json", MAX_MANIFEST_BYTES)
        .ok()
        .flatten()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    let slug = manifest
        .catalog()
        .map(|c| c.id.clone())
        .or_else(|| manifest.slug.clone())
        .unwrap_or_default();
    Ok(Verified {
        slug,
        version: manifest.version.clone(),
        sha256: forge_release::signature::sha256_hex(bytes),
        manifest,
        raw,
        path: path.to_path_buf(),
    })
}

/// The `.mjolnir` files in `dir`, sorted; names only, nothing opened yet.
pub fn archives(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mjolnir"))
        .collect();
    out.sort();
    out
}

/// Reads and verifies one archive of the profile.
fn read_verified(path: &Path, trusted: &[String]) -> Result<Verified, Finding> {
    let bytes = bounded::read(path, MAX_ARCHIVE_BYTES)
        .map_err(|e| unreadable("archive_unreadable", path, &e))?;
    verify(&bytes, trusted, path)
}

/// The verified installed releases, one per pack. An archive that does not verify, is not
/// a Forge pack, or is a second release of a pack is a finding and counts for nothing.
pub fn installed(
    profile: &Profile,
    trusted: &[String],
) -> (BTreeMap<String, Verified>, Vec<Finding>) {
    let mut out: BTreeMap<String, Verified> = BTreeMap::new();
    let mut findings = Vec::new();
    for path in archives(&profile.packs()) {
        let verified = match read_verified(&path, trusted) {
            Ok(v) if v.manifest.catalog().is_none() => Err(Finding::new(
                "not_a_pack",
                path.display().to_string(),
                "this archive is not a Forge pack; maps belong in maps/",
            )),
            other => other,
        };
        match verified {
            Err(f) => findings.push(f),
            Ok(v) => match out.get(&v.slug) {
                Some(kept) => findings.push(Finding::new(
                    "second_release",
                    v.path.display().to_string(),
                    format!(
                        "{} {} is installed already as {}; this copy is not used",
                        v.slug,
                        kept.version,
                        kept.path.display()
                    ),
                )),
                None => {
                    out.insert(v.slug.clone(), v);
                }
            },
        }
    }
    (out, findings)
}

/// The enabled maps that verify. A refused map is a finding and drives nothing.
pub fn maps(profile: &Profile, trusted: &[String]) -> (Vec<Verified>, Vec<Finding>) {
    let mut out = Vec::new();
    let mut findings = Vec::new();
    for path in archives(&profile.maps()) {
        match read_verified(&path, trusted) {
            Ok(v) if v.manifest.catalog().is_some() => findings.push(Finding::new(
                "not_a_map",
                path.display().to_string(),
                "this archive is a Forge pack, not a map; packs are installed by the launcher into packs/",
            )),
            Ok(v) => out.push(v),
            Err(f) => findings.push(Finding::new(
                "map_refused",
                f.subject,
                format!("{}: {}; it needs nothing until it verifies", f.code, f.message),
            )),
        }
    }
    (out, findings)
}

/// A saved layout with its sidecar's rows.
pub struct SavedLayout {
    pub mvar: PathBuf,
    pub rows: Vec<Row>,
}

/// Each saved layout with a readable sidecar. Orphan sidecars (no `.mvar` beside them)
/// and the layout history folder need nothing; a sidecar that cannot be read is a finding.
pub fn layouts(profile: &Profile) -> (Vec<SavedLayout>, Vec<Finding>) {
    let mut out = Vec::new();
    let mut findings = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(profile.layouts())
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let Some(mvar) = path
            .to_str()
            .and_then(|p| p.strip_suffix(".packs"))
            .map(PathBuf::from)
        else {
            continue;
        };
        if !mvar.is_file() {
            continue;
        }
        match read_sidecar(&path) {
            Ok(rows) => out.push(SavedLayout { mvar, rows }),
            Err(f) => findings.push(f),
        }
    }
    (out, findings)
}

/// A sidecar's rows, or why it is not one: `sidecar_not_a_file`, `sidecar_not_utf8`,
/// `sidecar_format`, `sidecar_too_new`, `sidecar_row`.
pub fn read_sidecar(path: &Path) -> Result<Vec<Row>, Finding> {
    let subject = path.display().to_string();
    let text = bounded::read_text(path, MAX_SIDECAR_BYTES).map_err(|e| {
        let code = match e {
            ReadError::NotAFile => "sidecar_not_a_file",
            ReadError::NotUtf8 => "sidecar_not_utf8",
            ReadError::NotFound => "missing_sidecar",
            _ => "sidecar_unreadable",
        };
        Finding::new(code, &subject, format!("the sidecar cannot be read: {e}"))
    })?;
    saved::read_sidecar(&text).map_err(|e| Finding::new(e.code, subject, e.message))
}
