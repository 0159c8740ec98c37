//! `mjolnir launcher add-map MAP.mjolnir --profile DIR`: verifies a map release as a sync
//! would (the Hub's scan, a trusted signer, a map and not a pack) and puts it into the
//! profile's `maps/`, in place of an earlier release of the same map. The next sync
//! installs what it needs.

use std::path::Path;

use mjolnir_files::{atomic, bounded};

use crate::api::MAX_ARCHIVE_BYTES;
use crate::finding::Finding;
use crate::profile::{self, Profile};

pub fn add_map(archive: &Path, profile_dir: &Path) -> Result<i32, Finding> {
    let profile = Profile {
        root: profile_dir.to_path_buf(),
    };
    let bytes = bounded::read(archive, MAX_ARCHIVE_BYTES)
        .map_err(|e| profile::unreadable("archive_unreadable", archive, &e))?;
    let (trusted, _) = profile::trusted_fingerprints(&profile);
    let map = profile::verify(&bytes, &trusted, archive)?;
    if map.manifest.catalog().is_some() {
        return Err(Finding::new(
            "not_a_map",
            archive.display().to_string(),
            "this archive is a Forge pack, not a map; a sync installs the packs a map needs",
        ));
    }
    let maps = profile.maps();
    let name = format!("{}-{}.mjolnir", map.slug, map.version);
    let target = maps.join(&name);
    let write_error = |e: std::io::Error| {
        Finding::new("profile_write", target.display().to_string(), e.to_string())
    };
    std::fs::create_dir_all(&maps).map_err(write_error)?;
    atomic::write(&target, &bytes).map_err(write_error)?;
    // An earlier release of the same map would be enabled beside this one.
    let (enabled, _) = profile::maps(&profile, &trusted);
    for old in enabled
        .iter()
        .filter(|m| m.slug == map.slug && m.path != target)
    {
        std::fs::remove_file(&old.path).map_err(write_error)?;
        println!(
            "removed {} {} ({})",
            old.slug,
            old.version,
            old.path.display()
        );
    }
    println!(
        "added map {} {} to {}; `mjolnir launcher sync --hub URL --profile {}` installs the packs it needs",
        map.slug,
        map.version,
        target.display(),
        profile_dir.display()
    );
    Ok(0)
}
