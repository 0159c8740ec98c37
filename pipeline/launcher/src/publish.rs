//! `mjolnir hub index DIR --out OUT`: publishes the releases in DIR the way the Hub does,
//! laid out as its read API ([`crate::api`]) for any static web server. OUT keeps what was
//! published before: its archives count as published, so a version is never published
//! twice with other bytes, and a new release is held to the line rules against them.
//!
//! The Hub's publish rules, each refusal with its code:
//! - the Hub's scan, signed (`unsigned` unless `--allow-unsigned`, for local tests only),
//!   which also refuses a feature in `requires` this Hub does not know (`unknown_feature`);
//! - `version_reused`: a version already published with other bytes;
//! - the update rules within a caret line (`entry_dropped`, `kind_changed`,
//!   `dimensions_changed`, `snap_changed`), against the releases before and after it.
//!
//! Refused releases are reported and left out; the others are still published.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use forge_contract::compat::{self, Release as Side};
use forge_contract::Manifest;
use forge_release::scan::{self, ScanOptions};
use mjolnir_files::{atomic, bounded};
use semver::Version;
use serde::Serialize;
use serde_json::Value;

use crate::api::{
    self, DependencyRef, ForgeCatalog, ForgeCatalogPack, MapPayload, PackPayload, Piece, ReleaseRef,
};
use crate::finding::Finding;

pub struct IndexArgs {
    pub dir: PathBuf,
    pub out: PathBuf,
    pub allow_unsigned: bool,
}

/// A release the Hub accepted.
struct Published {
    slug: String,
    version: Version,
    sha256: String,
    bytes: Vec<u8>,
    manifest: Manifest,
    raw: Value,
}

impl Published {
    fn id(&self) -> String {
        api::release_id(&self.slug, &self.version)
    }
}

pub fn index(args: &IndexArgs) -> Result<i32, Finding> {
    let mut accepted: BTreeMap<(String, Version), Published> = BTreeMap::new();
    let mut refusals = Vec::new();
    let options = ScanOptions {
        allow_unsigned: args.allow_unsigned,
        ..ScanOptions::default()
    };
    for path in archives(&args.out.join("files")) {
        match read(&path, &options) {
            Ok(p) => {
                accepted.insert((p.slug.clone(), p.version.clone()), p);
            }
            Err(f) => refusals.push(f),
        }
    }
    let before = accepted.len();
    let sources = archives(&args.dir);
    if sources.is_empty() && !args.dir.is_dir() {
        return Err(Finding::new(
            "not_a_folder",
            args.dir.display().to_string(),
            "there is no folder of releases here",
        ));
    }
    for path in sources {
        match read(&path, &options).and_then(|p| admit(&accepted, p, &path)) {
            Ok(Some(p)) => {
                accepted.insert((p.slug.clone(), p.version.clone()), p);
            }
            Ok(None) => {}
            Err(f) => refusals.push(f),
        }
    }
    write_api(&args.out, &accepted)?;
    for f in &refusals {
        eprintln!("{f}");
    }
    println!(
        "published {} new releases ({} in all) into {}; refused {}",
        accepted.len() - before,
        accepted.len(),
        args.out.display(),
        refusals.len()
    );
    Ok(if refusals.is_empty() { 0 } else { 1 })
}

fn archives(dir: &Path) -> Vec<PathBuf> {
    crate::profile::archives(dir)
}

/// Reads one archive and runs the Hub's scan over it.
fn read(path: &Path, options: &ScanOptions) -> Result<Published, Finding> {
    let subject = path.display().to_string();
    let bytes = bounded::read(path, api::MAX_ARCHIVE_BYTES)
        .map_err(|e| Finding::new("unreadable", &subject, e.to_string()))?;
    let report = scan::scan(&bytes, options);
    if let Some(f) = report.errors().next() {
        return Err(Finding::new(f.code, &subject, f.message.clone()));
    }
    let manifest = report
        .manifest
        .ok_or_else(|| Finding::new("bad_manifest", &subject, "the manifest did not parse"))?;
    let slug = manifest
        .catalog()
        .map(|c| c.id.clone())
        .or_else(|| manifest.slug.clone())
        .ok_or_else(|| {
            Finding::new(
                "missing_slug",
                &subject,
                "a release names its Hub slug (a pack by its forge_pack id)",
            )
        })?;
    let raw = forge_release::archive::read_member(&bytes, "mjolnir.json", 16 << 20)
        .ok()
        .flatten()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    Ok(Published {
        slug,
        version: manifest.version.clone(),
        sha256: forge_release::signature::sha256_hex(&bytes),
        bytes,
        manifest,
        raw,
    })
}

/// Whether `new` may join what is published: `None` when it is published already, byte
/// for byte.
fn admit(
    accepted: &BTreeMap<(String, Version), Published>,
    new: Published,
    path: &Path,
) -> Result<Option<Published>, Finding> {
    let subject = path.display().to_string();
    if let Some(old) = accepted.get(&(new.slug.clone(), new.version.clone())) {
        if old.sha256 == new.sha256 {
            return Ok(None);
        }
        return Err(Finding::new("version_reused", subject, format!("{} is already published with other bytes; a published version's bytes never change: release {} under a new version", new.id(), new.slug)));
    }
    if new.manifest.catalog().is_none() {
        return Ok(Some(new));
    }
    let line = forge_resolve::caret(&new.version);
    let in_line = accepted.values().filter(|p| {
        p.slug == new.slug
            && p.manifest.catalog().is_some()
            && (line.matches(&p.version) || forge_resolve::caret(&p.version).matches(&new.version))
    });
    let before = in_line
        .clone()
        .filter(|p| p.version < new.version)
        .max_by(|a, b| a.version.cmp(&b.version));
    let after = in_line
        .filter(|p| p.version > new.version)
        .min_by(|a, b| a.version.cmp(&b.version));
    let pairs = [
        before.map(|old| (old, &new)),
        after.map(|later| (&new, later)),
    ];
    for (old, later) in pairs.into_iter().flatten() {
        let (old_label, new_label) = (old.id(), later.id());
        let findings = compat::compare(
            &Side {
                label: &old_label,
                manifest: &old.manifest,
                geometry: None,
            },
            &Side {
                label: &new_label,
                manifest: &later.manifest,
                geometry: None,
            },
        );
        if let Some(d) = findings.iter().find(|d| d.is_error()) {
            return Err(Finding::new(
                d.code,
                &subject,
                format!(
                    "{} would break the line of {}: {}",
                    new.id(),
                    old_label,
                    d.message
                ),
            ));
        }
    }
    Ok(Some(new))
}

fn dependencies(m: &Manifest) -> Vec<DependencyRef> {
    m.deps
        .iter()
        .map(|d| DependencyRef {
            slug: d.slug.clone(),
            range: d.range_text.clone(),
        })
        .collect()
}

fn write_api(out: &Path, accepted: &BTreeMap<(String, Version), Published>) -> Result<(), Finding> {
    let mut lists: BTreeMap<&str, Vec<ReleaseRef>> = BTreeMap::new();
    let mut newest: BTreeMap<&str, &Published> = BTreeMap::new();
    for p in accepted.values() {
        let id = p.id();
        write(out, &api::archive_path(&id), &p.bytes)?;
        if p.manifest.catalog().is_some() {
            let payload = PackPayload {
                id: id.clone(),
                slug: p.slug.clone(),
                release_version: p.version.to_string(),
                archive_sha256: p.sha256.clone(),
                dependencies: dependencies(&p.manifest),
                catalog: forge_contract::document::catalog(&p.raw).clone(),
                archive: api::archive_path(&id),
            };
            write_json(out, &api::payload_path(&id), &payload)?;
            if p.version.pre.is_empty() {
                newest.insert(&p.slug, p);
            }
        } else {
            let payload = MapPayload {
                id: id.clone(),
                slug: p.slug.clone(),
                name: p.manifest.name.clone(),
                release_version: p.version.to_string(),
                archive_sha256: p.sha256.clone(),
                dependencies: dependencies(&p.manifest),
                archive: api::archive_path(&id),
            };
            write_json(out, &api::map_payload_path(&id), &payload)?;
        }
        lists.entry(&p.slug).or_default().push(ReleaseRef {
            id,
            version: p.version.to_string(),
        });
    }
    for (slug, list) in &lists {
        write_json(out, &api::releases_path(slug), list)?;
    }
    let catalog = ForgeCatalog {
        packs: newest.values().map(|p| catalog_row(p)).collect(),
    };
    for pack in &catalog.packs {
        write(out, &pack.page, crate::detail_page::html(pack).as_bytes())?;
    }
    write_json(out, api::FORGE_CATALOG_PATH, &catalog)
}

fn catalog_row(p: &Published) -> ForgeCatalogPack {
    let pieces = p
        .manifest
        .catalog()
        .into_iter()
        .flat_map(|c| &c.blocks)
        .map(|e| Piece {
            id: e.id.clone(),
            name: e.name.clone(),
            kind: e.kind.clone(),
            category: e.category.clone(),
            dimensions_m: e.dimensions_m,
            snap_m: e.snap_m,
        })
        .collect();
    ForgeCatalogPack {
        slug: p.slug.clone(),
        name: p.manifest.name.clone(),
        version: p.version.to_string(),
        pieces,
        page: api::detail_page_path(&p.slug),
    }
}

/// `path` is an API path (`/api/...`), made only from checked slugs and versions.
fn write(out: &Path, path: &str, bytes: &[u8]) -> Result<(), Finding> {
    let target = out.join(path.trim_start_matches('/'));
    atomic::write(&target, bytes)
        .map_err(|e| Finding::new("hub_write", target.display().to_string(), e.to_string()))
}

fn write_json(out: &Path, path: &str, value: &impl Serialize) -> Result<(), Finding> {
    let bytes = json_out::pretty(value);
    write(out, path, &bytes)
}
