//! The Hub's read API: its paths, what each answers, and how large an answer may be. `hub
//! index` writes exactly these types and `launcher sync` reads exactly these, so the two
//! cannot drift apart.
//!
//! ```text
//! /api/v1/packs/<slug>/releases          [ReleaseRef], oldest first
//! /api/v1/releases/<id>/forge-pack       PackPayload (a Forge pack's release)
//! /api/v1/releases/<id>/map              MapPayload (a map's release)
//! /api/v1/forge                          ForgeCatalog: every published pack's pieces
//! /forge/<slug>.html                     the mod detail page of a pack's newest release
//! /files/<id>.mjolnir                    the archive
//! ```
//!
//! A release's id is `<slug>-<version>`. Nothing here is trusted by the launcher until it
//! is checked: [`checked_release`] before a name is used, the archive's own bytes after.

use forge_contract::ids::is_pack_id;
use semver::Version;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The largest release list read; a list is a few dozen bytes a release.
pub const MAX_LIST_BYTES: u64 = 1 << 20;
/// The most releases one pack may list.
pub const MAX_RELEASES: usize = 4096;
/// The largest payload read: a catalog of 256 entries is well under this.
pub const MAX_PAYLOAD_BYTES: u64 = 4 << 20;
/// The largest archive downloaded.
pub const MAX_ARCHIVE_BYTES: u64 = 512 << 20;

pub fn release_id(slug: &str, version: &Version) -> String {
    format!("{slug}-{version}")
}

pub fn releases_path(slug: &str) -> String {
    format!("/api/v1/packs/{slug}/releases")
}

pub fn payload_path(id: &str) -> String {
    format!("/api/v1/releases/{id}/forge-pack")
}

pub fn map_payload_path(id: &str) -> String {
    format!("/api/v1/releases/{id}/map")
}

pub fn archive_path(id: &str) -> String {
    format!("/files/{id}.mjolnir")
}

pub const FORGE_CATALOG_PATH: &str = "/api/v1/forge";

pub fn detail_page_path(slug: &str) -> String {
    format!("/forge/{slug}.html")
}

/// One entry of a pack's release list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseRef {
    pub id: String,
    pub version: String,
}

/// A dependency as the manifest writes it: `{"slug", "range"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DependencyRef {
    pub slug: String,
    pub range: String,
}

/// `GET /api/v1/releases/{id}/forge-pack`: the published catalog, release version, archive
/// SHA-256 and dependencies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackPayload {
    pub id: String,
    pub slug: String,
    pub release_version: String,
    pub archive_sha256: String,
    pub dependencies: Vec<DependencyRef>,
    /// The `forge_pack` object of the release's manifest, as published.
    pub catalog: Value,
    pub archive: String,
}

/// `GET /api/v1/releases/{id}/map`: a map release has no catalog; it names its level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapPayload {
    pub id: String,
    pub slug: String,
    pub name: String,
    pub release_version: String,
    pub archive_sha256: String,
    pub dependencies: Vec<DependencyRef>,
    pub archive: String,
}

/// `GET /api/v1/forge`: the Hub's Forge catalog, one row per published pack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForgeCatalog {
    pub packs: Vec<ForgeCatalogPack>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForgeCatalogPack {
    pub slug: String,
    pub name: String,
    /// The newest published release.
    pub version: String,
    pub pieces: Vec<Piece>,
    pub page: String,
}

/// One piece as the mod detail page shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Piece {
    pub id: String,
    pub name: String,
    pub kind: String,
    pub category: String,
    pub dimensions_m: [f64; 3],
    pub snap_m: Option<f64>,
}

/// Why a name the Hub sent cannot be used. Each holds at most 80 characters of what it
/// sent ([`truncated`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadHubName {
    Slug(String),
    Version { text: String, why: String },
    BuildMetadata(Version),
    ReleaseId { id: String, expected: String },
}

impl std::fmt::Display for BadHubName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadHubName::Slug(slug) => write!(
                f,
                "{slug:?} is not a pack id ({})",
                forge_contract::ids::PACK_ID_RULE
            ),
            BadHubName::Version { text, why } => {
                write!(f, "{text:?} is not a release version: {why}")
            }
            BadHubName::BuildMetadata(version) => write!(
                f,
                "{version} carries +build metadata, which Hub versions exclude"
            ),
            BadHubName::ReleaseId { id, expected } => {
                write!(f, "release id {id:?} is not {expected}")
            }
        }
    }
}

/// A slug from the Hub, checked to be a pack id.
pub fn checked_slug(slug: &str) -> Result<(), BadHubName> {
    if is_pack_id(slug) {
        Ok(())
    } else {
        Err(BadHubName::Slug(truncated(slug)))
    }
}

/// A Hub version: exact SemVer of at most 96 bytes, without `+build` metadata.
pub fn checked_version(text: &str) -> Result<Version, BadHubName> {
    let version =
        forge_contract::version::parse_version(text).map_err(|e| BadHubName::Version {
            text: truncated(text),
            why: format!("{e:?}"),
        })?;
    if !version.build.is_empty() {
        return Err(BadHubName::BuildMetadata(version));
    }
    Ok(version)
}

/// A release named by the Hub, checked: its slug a pack id, its version a Hub version, its
/// id the two joined.
pub fn checked_release(slug: &str, entry: &ReleaseRef) -> Result<Version, BadHubName> {
    checked_slug(slug)?;
    let version = checked_version(&entry.version)?;
    if entry.id != release_id(slug, &version) {
        return Err(BadHubName::ReleaseId {
            id: truncated(&entry.id),
            expected: release_id(slug, &version),
        });
    }
    Ok(version)
}

/// At most 80 characters of something a Hub sent, for a message.
pub fn truncated(text: &str) -> String {
    text.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_the_hub_are_checked_before_use() {
        assert!(checked_slug("foundry-wide").is_ok());
        for bad in ["../../escape", "/etc", "Foundry", "a", "", "x/y", "-a"] {
            assert!(checked_slug(bad).is_err(), "{bad}");
        }
        assert!(checked_version("0.2.0").is_ok());
        for bad in [
            "0.2",
            "0.2.0+build",
            "../0.2.0",
            &format!("1.0.0-{}", "a".repeat(91)),
        ] {
            assert!(checked_version(bad).is_err(), "{bad}");
        }
        let entry = |id: &str, v: &str| ReleaseRef {
            id: id.into(),
            version: v.into(),
        };
        assert!(checked_release("foundry", &entry("foundry-0.2.0", "0.2.0")).is_ok());
        assert!(checked_release("foundry", &entry("roadworks-0.2.0", "0.2.0")).is_err());
    }
}
