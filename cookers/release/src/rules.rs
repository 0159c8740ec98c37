//! The Hub's rules on what a release holds, shared by the packer (`prepare`, before
//! anything is written) and the scan (`scan`, on an archive as uploaded), so the two can
//! never disagree.

use std::collections::{BTreeMap, BTreeSet};

use forge_contract::{Catalog, Manifest};
use serde_json::Value;

use serde::Serialize;

/// How bad a finding of the Hub's rules is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    pub message: String,
}

pub fn error(code: &'static str, member: Option<&str>, message: impl Into<String>) -> Finding {
    Finding {
        code,
        severity: Severity::Error,
        member: member.map(str::to_string),
        message: message.into(),
    }
}

/// A member path the Hub refuses: `..`, absolute, drive letters, backslashes.
pub fn traverses(path: &str) -> bool {
    path.starts_with('/')
        || path.contains('\\')
        || path.split('/').any(|c| c == "..")
        || path.as_bytes().get(1) == Some(&b':')
}

/// Checks one member's path against every path rule, remembering it in `seen` (by its
/// case-folded form) to catch duplicates: which of two copies an extractor keeps is up to
/// the extractor, and names equal but for case land on one file on Windows.
pub fn member_path(path: &str, seen: &mut BTreeMap<String, String>) -> Option<Finding> {
    if traverses(path) {
        return Some(error(
            "path_traversal",
            Some(path),
            "member paths must be relative, without `..`, backslashes or drive letters",
        ));
    }
    if let Some(why) = plain_path::windows_refuses(path) {
        return Some(error("bad_member_name", Some(path), why));
    }
    if let Some(first) = seen.insert(path.to_lowercase(), path.to_string()) {
        let why = if first == path {
            "the archive holds this member twice; which copy is unpacked depends on the tool"
                .to_string()
        } else {
            format!("{path} and {first} differ only in case and unpack to one file on Windows")
        };
        return Some(error("duplicate_member", Some(path), why));
    }
    None
}

/// A container's extension must be exactly `.utoc`/`.ucas`: the launcher mounts no other.
pub fn container_extension(path: &str) -> Option<Finding> {
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    let lower = ext.to_ascii_lowercase();
    ((lower == "utoc" || lower == "ucas") && ext != lower).then(|| {
        error(
            "forbidden_file",
            Some(path),
            format!("container files end in .{lower}, in lower case; the launcher does not mount .{ext}"),
        )
    })
}

/// A publishable version: no `+build` metadata, and not a reduced `--only` build at the
/// full set's version.
pub fn publishable(manifest: &Manifest, text: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    if !manifest.version.build.is_empty() {
        findings.push(error(
            "build_metadata",
            Some("mjolnir.json"),
            format!(
                "{} carries +build metadata, which the Hub refuses; publish it without",
                manifest.version
            ),
        ));
    }
    if manifest.diagnostic {
        let value: Value = serde_json::from_str(text).unwrap_or_default();
        let (only, full) =
            forge_contract::document::diagnostic_marker(&value).unwrap_or((&Value::Null, ""));
        if full.is_empty() || full == manifest.version.to_string() {
            findings.push(error(
                "diagnostic_build",
                Some("mjolnir.json"),
                format!("this is a reduced --only build (blocks {only}); it cannot be published as {}, the full set's version", manifest.version),
            ));
        }
    }
    findings
}

/// Checks one container: it is paired, parses, is not encrypted, every chunk verifies,
/// and (given the catalog) every package is in the pack's namespace. Returns the findings
/// and the packages it holds.
pub fn container(
    name: &str,
    utoc: &[u8],
    ucas: Option<&[u8]>,
    catalog: Option<&Catalog>,
) -> (Vec<Finding>, BTreeSet<String>) {
    let mut findings = Vec::new();
    let mut packages = BTreeSet::new();
    if ucas.is_none() {
        findings.push(error(
            "orphan_utoc",
            Some(name),
            "the container's .ucas is missing",
        ));
    }
    let toc = match forge_iostore::Toc::parse(utoc) {
        Ok(toc) => toc,
        Err(e) if e.code == "utoc_encrypted" => {
            findings.push(error("encrypted_container", Some(name), e.message));
            return (findings, packages);
        }
        Err(e) => {
            findings.push(error("bad_container", Some(name), e.to_string()));
            return (findings, packages);
        }
    };
    match forge_iostore::verify(&toc, ucas) {
        Err(e) => findings.push(error("bad_container", Some(name), e.to_string())),
        Ok(checks) => {
            if let Some(c) = checks
                .iter()
                .find(|c| !c.resolves || c.hash_ok == Some(false))
            {
                let why = if c.resolves {
                    "fails its hash check"
                } else {
                    "is not found through the perfect hash"
                };
                findings.push(error(
                    "bad_container",
                    Some(name),
                    format!("chunk {} {why}", c.entry),
                ));
            }
        }
    }
    if let Some(ucas) = ucas {
        findings.extend(unreal_packages(name, &toc, ucas, catalog));
    }
    if let Some(dir) = &toc.directory {
        match dir.files() {
            Ok(files) => packages.extend(
                files
                    .iter()
                    .filter_map(|(p, _)| forge_iostore::package_name(p)),
            ),
            Err(e) => findings.push(error("bad_container", Some(name), e.to_string())),
        }
    }
    if let Some(catalog) = catalog {
        let prefix = forge_contract::ids::unreal_root(&catalog.id);
        match forge_iostore::outside_namespace(&toc, &prefix) {
            Ok(outside) => findings.extend(outside.iter().map(|p| error("namespace_violation", Some(name), format!("{p} is outside {prefix}: a pack replaces nothing outside its own namespace")))),
            Err(e) => findings.push(error("bad_container", Some(name), e.to_string())),
        }
        let own = format!("{}_P.utoc", catalog.id);
        if name.rsplit('/').next() != Some(own.as_str()) {
            findings.push(error(
                "foreign_container",
                Some(name),
                format!(
                    "a {} release carries only its own container, {own}",
                    catalog.id
                ),
            ));
        }
    }
    (findings, packages)
}

/// Each package chunk must be a cooked Unreal package the game can load, named as its
/// path says, and inside the pack's namespace.
fn unreal_packages(
    name: &str,
    toc: &forge_iostore::Toc,
    ucas: &[u8],
    catalog: Option<&Catalog>,
) -> Vec<Finding> {
    let paths: BTreeMap<u32, String> = toc
        .directory
        .as_ref()
        .and_then(|d| d.files().ok())
        .map(|files| files.into_iter().map(|(p, i)| (i, p)).collect())
        .unwrap_or_default();
    let mut findings = Vec::new();
    for (entry, id) in toc.chunks.iter().enumerate() {
        if id.kind() != forge_iostore::ids::EXPORT_BUNDLE_DATA {
            continue;
        }
        let path = paths
            .get(&(entry as u32))
            .cloned()
            .unwrap_or_else(|| format!("chunk {entry}"));
        let Ok(forge_iostore::ChunkData::Bytes(bytes)) =
            forge_iostore::read_chunk(toc, ucas, entry)
        else {
            continue; // unreadable chunks are reported by the verification above
        };
        let package = match forge_package::Package::read(&bytes) {
            Ok(p) => p,
            Err(e) => {
                findings.push(error(
                    "not_installable",
                    Some(name),
                    format!("{path} is not an Unreal package the game can load: {e}"),
                ));
                continue;
            }
        };
        if forge_iostore::package_name(&path) != package.header.package_name() {
            findings.push(error(
                "not_installable",
                Some(name),
                format!(
                    "{path} holds the package {:?}",
                    package.header.package_name()
                ),
            ));
        }
        if let Some(catalog) = catalog {
            let root = forge_contract::ids::unreal_root(&catalog.id);
            findings.extend(
                forge_package::namespace::violations(&package, &root, None)
                    .into_iter()
                    .map(|why| error("namespace_violation", Some(name), why)),
            );
        }
    }
    findings
}

/// A map's containers hold the map, not a pack's pieces: a package under any pack's root
/// (`/Game/MJOLNIR/Forge/<pack>/`) would replace that pack's own for every player.
pub fn pack_packages_in_map(packages: &BTreeSet<String>) -> Vec<Finding> {
    packages
        .iter()
        .filter(|p| p.starts_with(forge_contract::ids::UNREAL_PACKS_ROOT))
        .map(|p| {
            error(
                "map_holds_pack_packages",
                None,
                format!("{p} is a Forge pack's package; a map release carries only the map's own, and depends on the pack instead"),
            )
        })
        .collect()
}

/// Every catalog entry needs its static mesh and actor packages: a set cooked without
/// donors has neither, and the game could not show its blocks.
pub fn uninstallable_blocks(catalog: &Catalog, packages: &BTreeSet<String>) -> Vec<Finding> {
    let root = forge_contract::ids::unreal_root(&catalog.id);
    let missing: Vec<&str> = catalog
        .blocks
        .iter()
        .filter(|b| {
            let dir = format!("{root}{}/", b.id);
            // A block with no crate at all is a ghost block, reported as that.
            packages.contains(&format!("{dir}crate"))
                && (!packages.contains(&format!("{dir}SM_{}", b.id))
                    || !packages.contains(&format!("{dir}BP_{}", b.id)))
        })
        .map(|b| b.id.as_str())
        .collect();
    if missing.is_empty() {
        return Vec::new();
    }
    vec![error(
        "not_installable",
        Some("mjolnir.json"),
        format!(
            "blocks {missing:?} have no SM_/BP_ Unreal packages in the containers: the set was cooked without donors (see docs/donors.md), so the game could not show them"
        ),
    )]
}

/// Every catalog entry needs its crate in the containers: a "ghost" block would show in
/// the Forge palette and spawn nothing.
pub fn ghost_blocks(catalog: &Catalog, packages: &BTreeSet<String>) -> Vec<Finding> {
    let root = forge_contract::ids::unreal_root(&catalog.id);
    catalog
        .blocks
        .iter()
        .filter(|b| !packages.contains(&format!("{root}{}/crate", b.id)))
        .map(|b| {
            error(
                "ghost_block",
                Some("mjolnir.json"),
                format!("catalog block {:?} has no crate in the containers", b.id),
            )
        })
        .collect()
}
