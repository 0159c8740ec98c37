//! The game mounts a container only through a `.pak` sibling of the same stem, and the
//! archive carries none: the launcher lays out each enabled release's containers in
//! `Paks/MJOLNIR/<slug>/` with a generated stub beside each, and a `release.txt` naming the
//! release laid out. A folder whose release is still enabled is left as it is; one whose
//! pack is no longer enabled is removed. Replacing a release the game may have mounted is
//! reported, since the game reads containers only at start.

use std::collections::BTreeSet;
use std::path::Path;

use mjolnir_files::{atomic, bounded};

use crate::api::MAX_ARCHIVE_BYTES;
use crate::finding::Finding;
use crate::profile::{Profile, Verified};

const STAMP: &str = "release.txt";

/// Lays out `enabled`; returns notes for the report (restarts needed) and findings.
pub fn lay_out(profile: &Profile, enabled: &[&Verified]) -> (Vec<String>, Vec<Finding>) {
    let root = profile.paks();
    let mut notes = Vec::new();
    let mut findings = Vec::new();
    let keep: BTreeSet<&str> = enabled.iter().map(|v| v.slug.as_str()).collect();
    for entry in std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if forge_contract::ids::is_pack_id(&name) && !keep.contains(name.as_str()) {
            let _ = std::fs::remove_dir_all(entry.path());
            notes.push(format!(
                "removed {name}'s containers from Paks/MJOLNIR: no enabled map or layout needs it"
            ));
        }
    }
    for v in enabled {
        let dir = root.join(&v.slug);
        let stamp = format!("{} {} {}\n", v.slug, v.version, v.sha256);
        // Read like every file of the profile: a regular file, within a limit, so a FIFO
        // or a huge file in its place cannot hold the sync.
        let before = bounded::read_text(&dir.join(STAMP), 1 << 10).ok();
        if before.as_deref() == Some(stamp.as_str()) {
            continue;
        }
        match write_release(&dir, v, &stamp) {
            Ok(()) => {
                if let Some(old) = before.and_then(|b| b.split(' ').nth(1).map(str::to_string)) {
                    notes.push(format!("replaced {} {old} with {} in Paks/MJOLNIR: restart the game if it is running, since it mounts containers only at start", v.slug, v.version));
                }
            }
            Err(why) => findings.push(Finding::new(
                "paks_layout",
                dir.display().to_string(),
                why.to_string(),
            )),
        }
    }
    (notes, findings)
}

/// Why a verified release could not be laid out in the Paks folder.
#[derive(Debug)]
enum LayoutError {
    Read(bounded::ReadError),
    Archive(bounded_zip::ZipError),
    Name { member: String, why: String },
    Write { name: String, error: std::io::Error },
}

impl std::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LayoutError::Read(e) => write!(f, "{e}"),
            LayoutError::Archive(e) => write!(f, "{e}"),
            LayoutError::Name { member, why } => {
                write!(f, "{member:?} cannot be laid out: {why}")
            }
            LayoutError::Write { name, error } => write!(f, "{name}: {error}"),
        }
    }
}

fn write_release(dir: &Path, v: &Verified, stamp: &str) -> Result<(), LayoutError> {
    let bytes = bounded::read(&v.path, MAX_ARCHIVE_BYTES).map_err(LayoutError::Read)?;
    let is_container =
        |n: &str| n.starts_with("content/") && (n.ends_with(".utoc") || n.ends_with(".ucas"));
    let members = forge_release::archive::read_members(
        &bytes,
        is_container,
        forge_release::scan::MAX_UNPACKED,
    )
    .map_err(LayoutError::Archive)?;
    let _ = std::fs::remove_dir_all(dir);
    let write = |name: &str, data: &[u8]| {
        atomic::write(&dir.join(name), data).map_err(|error| LayoutError::Write {
            name: name.to_string(),
            error,
        })
    };
    for (member, data) in &members {
        // The scan refused traversal and duplicates; the file name alone is laid out, and
        // checked again here, since this is where it names a file.
        let name = member.rsplit('/').next().unwrap_or(member);
        if let Some(why) = plain_path::why_not(name) {
            return Err(LayoutError::Name {
                member: member.clone(),
                why: why.to_string(),
            });
        }
        write(name, data)?;
        if let Some(stem) = name.strip_suffix(".utoc") {
            write(&format!("{stem}.pak"), &forge_iostore::pak_stub())?;
        }
    }
    write(STAMP, stamp.as_bytes())
}
