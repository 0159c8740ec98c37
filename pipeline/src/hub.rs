//! `mjolnir hub index DIR --out OUT`: published releases laid out as the Hub's read API,
//! so any static web server is a Hub for tests and for CI:
//!
//! - `api/v1/packs/<slug>/releases`: the slug's releases, `[{id, version}]`, oldest first;
//! - `api/v1/releases/<id>/forge-pack`: a release's catalog, version, archive SHA-256,
//!   dependencies and archive path (what `GET /api/v1/releases/{id}/forge-pack` returns);
//! - `files/<id>.mjolnir`: the archive.
//!
//! A release's id is `<slug>-<version>`.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use forge_release::scan::{self, ScanOptions};
use serde_json::{json, Value};

pub fn release_id(slug: &str, version: &str) -> String {
    format!("{slug}-{version}")
}

/// The manifest inside an archive, as JSON.
pub fn archive_manifest(bytes: &[u8]) -> Result<Value> {
    let mut zip =
        zip::ZipArchive::new(std::io::Cursor::new(bytes)).context("not a readable archive")?;
    let mut text = String::new();
    zip.by_name("mjolnir.json")
        .context("the archive has no mjolnir.json")?
        .take(16 << 20)
        .read_to_string(&mut text)?;
    serde_json::from_str(&text).context("mjolnir.json is not JSON")
}

pub fn index(dir: &Path, out: &Path) -> Result<i32> {
    let mut archives: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mjolnir"))
        .collect();
    archives.sort();
    let mut by_slug: BTreeMap<String, Vec<(semver::Version, String)>> = BTreeMap::new();
    for path in &archives {
        let bytes = std::fs::read(path)?;
        let report = scan::scan(
            &bytes,
            &ScanOptions {
                expect_key: None,
                release_version: None,
                allow_unsigned: true,
            },
        );
        if let Some(f) = report.errors().next() {
            bail!(
                "{} fails the Hub's scan: error[{}]: {}",
                path.display(),
                f.code,
                f.message
            );
        }
        let manifest = archive_manifest(&bytes).with_context(|| path.display().to_string())?;
        let slug = manifest["forge_pack"]["id"]
            .as_str()
            .or(manifest["slug"].as_str())
            .ok_or_else(|| anyhow!("{}: no slug", path.display()))?;
        let version = manifest["version"].as_str().unwrap_or_default().to_string();
        let id = release_id(slug, &version);
        let payload = json!({
            "id": id,
            "slug": slug,
            "catalog": manifest["forge_pack"],
            "release_version": version,
            "archive_sha256": forge_release::signature::sha256_hex(&bytes),
            "dependencies": manifest["deps"].as_array().cloned().unwrap_or_default(),
            "archive": format!("/files/{id}.mjolnir"),
        });
        write_json(
            &out.join(format!("api/v1/releases/{id}/forge-pack")),
            &payload,
        )?;
        crate::atomic::write(&out.join(format!("files/{id}.mjolnir")), &bytes)?;
        let parsed = semver::Version::parse(&version)
            .with_context(|| format!("{}: version {version:?}", path.display()))?;
        by_slug
            .entry(slug.to_string())
            .or_default()
            .push((parsed, id));
    }
    for (slug, mut releases) in by_slug {
        releases.sort();
        let list: Vec<Value> = releases
            .iter()
            .map(|(v, id)| json!({"id": id, "version": v.to_string()}))
            .collect();
        write_json(
            &out.join(format!("api/v1/packs/{slug}/releases")),
            &Value::Array(list),
        )?;
    }
    println!("indexed {} releases into {}", archives.len(), out.display());
    Ok(0)
}

fn write_json(path: &Path, value: &Value) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("serializes");
    bytes.push(b'\n');
    crate::atomic::write(path, &bytes).with_context(|| format!("cannot write {}", path.display()))
}
