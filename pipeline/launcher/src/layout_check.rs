//! `mjolnir layout check LAYOUT.mvar --profile DIR`: the native checks before a saved
//! layout's objects are recreated, against the profile's verified releases and maps.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use forge_resolve::layout::{self as saved};
use mjolnir_files::bounded;
use serde_json::Value;

use crate::finding::Finding;
use crate::profile::{self, Profile, Verified};

const MAX_MVAR_BYTES: u64 = 64 << 20;
const MAX_LEVEL_BYTES: u64 = 64 << 20;

/// Prints each refusal; 0 when the layout loads, 1 when it does not.
pub fn check_layout(mvar_path: &Path, profile_dir: &Path) -> Result<i32, Finding> {
    let mvar = bounded::read(mvar_path, MAX_MVAR_BYTES)
        .map_err(|e| profile::unreadable("layout_unreadable", mvar_path, &e))?;
    let sidecar_path = PathBuf::from(format!("{}.packs", mvar_path.display()));
    let rows = match profile::read_sidecar(&sidecar_path) {
        Ok(rows) => Some(rows),
        Err(f) if f.code == "missing_sidecar" => None,
        Err(f) => {
            eprintln!("{f}");
            return Ok(1);
        }
    };
    let profile = Profile {
        root: profile_dir.to_path_buf(),
    };
    let (trusted, _) = profile::trusted_fingerprints(&profile);
    let (installed, _) = profile::installed(&profile, &trusted);
    let (maps, _) = profile::maps(&profile, &trusted);
    let map_name = mvar_path
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let palette = palette_of(&maps, &map_name)?;
    let tags: BTreeMap<&str, Vec<String>> = installed
        .iter()
        .map(|(slug, v)| {
            (
                slug.as_str(),
                v.manifest
                    .catalog()
                    .into_iter()
                    .flat_map(|c| &c.blocks)
                    .map(|b| b.tag.clone())
                    .collect(),
            )
        })
        .collect();
    let packs = installed
        .iter()
        .map(|(slug, v)| {
            (
                slug.clone(),
                saved::InstalledPack {
                    version: &v.version,
                    tags: &tags[slug.as_str()],
                },
            )
        })
        .collect();
    let refusals = saved::check(&mvar, rows.as_deref(), &palette, &packs);
    for (code, message) in &refusals {
        eprintln!("error[{code}]: {}: {message}", mvar_path.display());
    }
    if refusals.is_empty() {
        println!("{} loads with this profile", mvar_path.display());
        Ok(0)
    } else {
        Ok(1)
    }
}

/// The flat palette of the enabled map named `name` (its level's name or slug): standard
/// entries first, then the custom ones in the level's pack and block order.
fn palette_of(maps: &[Verified], name: &str) -> Result<BTreeMap<usize, String>, Finding> {
    for map in maps {
        let Ok(bytes) = bounded::read(&map.path, crate::api::MAX_ARCHIVE_BYTES) else {
            continue;
        };
        let Some(level) = forge_release::archive::read_member(
            &bytes,
            forge_release::LEVEL_MEMBER,
            MAX_LEVEL_BYTES,
        )
        .ok()
        .flatten()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok()) else {
            continue;
        };
        if level["name"].as_str() != Some(name) && level["slug"].as_str() != Some(name) {
            continue;
        }
        let standard = level["standard_palette"].as_array().map_or(0, Vec::len);
        let tags = level["blam"]["forge_packs"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|p| p["blocks"].as_array().cloned().unwrap_or_default());
        return Ok(tags
            .enumerate()
            .filter_map(|(i, b)| Some((standard + i, b["tag"].as_str()?.to_string())))
            .collect());
    }
    Err(Finding::new(
        "unknown_map",
        name,
        "no enabled, verified map in the profile's maps/ has this name",
    ))
}
