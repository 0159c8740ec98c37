//! What the packer checks before it writes anything, and the members it then writes.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::rules::{self, error};
use crate::scan::Finding;

/// A release ready to zip: its members and what the Hub would publish about it.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub slug: String,
    pub version: String,
    pub members: BTreeMap<String, Vec<u8>>,
    /// The catalog, version and dependencies (the archive hash is added once it exists).
    pub catalog: Value,
}

/// The dependencies as the Hub publishes them: `[{slug, range}]`.
fn dependencies(m: &forge_contract::Manifest) -> Vec<Value> {
    m.deps
        .iter()
        .map(|d| json!({"slug": d.slug, "range": d.range_text}))
        .collect()
}

/// The release's manifest, or its errors as the Hub's `bad_manifest` findings.
fn parse(text: &str) -> Result<forge_contract::Manifest, Vec<Finding>> {
    forge_contract::parse_manifest("mjolnir.json", text)
        .map(|(m, _)| m)
        .map_err(|d| {
            d.iter()
                .filter(|d| d.is_error())
                .map(|d| error("bad_manifest", Some("mjolnir.json"), d.to_string()))
                .collect()
        })
}

/// Checks a release before packing: the catalog (every contract rule), a publishable
/// version (no `+build`, not a reduced `--only` build at the full set's version), each
/// container paired and well-formed, and every package inside the pack's namespace.
/// `content` maps container file names to bytes; `.pak` stubs are left out (the launcher
/// makes them).
pub fn prepare(
    manifest: &[u8],
    content: &BTreeMap<String, Vec<u8>>,
    readme: Option<&[u8]>,
    changes: Option<&[u8]>,
) -> Result<Prepared, Vec<Finding>> {
    let text = String::from_utf8_lossy(manifest);
    let m = parse(&text)?;
    let mut findings = Vec::new();
    let Some(catalog) = m.catalog() else {
        return Err(vec![error(
            "not_a_forge_pack",
            Some("mjolnir.json"),
            "the manifest has no forge_pack catalog",
        )]);
    };
    findings.extend(rules::publishable(&m, &text));
    let (mut members, packages) = content_members(content, Some(catalog), &mut findings);
    if !members.keys().any(|k| k.ends_with(".utoc")) {
        findings.push(error(
            "no_content",
            None,
            "there is no container to release",
        ));
    } else {
        findings.extend(rules::ghost_blocks(catalog, &packages));
        findings.extend(rules::uninstallable_blocks(catalog, &packages));
    }
    if !findings.is_empty() {
        return Err(findings);
    }
    members.insert("mjolnir.json".into(), manifest.to_vec());
    if let Some(r) = readme {
        members.insert("docs/README.md".into(), r.to_vec());
    }
    if let Some(c) = changes {
        members.insert("changes.json".into(), c.to_vec());
    }
    let value: Value = serde_json::from_str(&text).unwrap_or_default();
    let deps = dependencies(&m);
    Ok(Prepared {
        slug: catalog.id.clone(),
        version: m.version.to_string(),
        members,
        catalog: json!({"catalog": forge_contract::document::catalog(&value), "release_version": m.version.to_string(), "dependencies": deps}),
    })
}

/// The content folder's containers as archive members (`content/<name>`), checked: paired,
/// well-formed, every package loadable and, given a catalog, in the pack's namespace.
/// Returns the members and the packages they hold.
fn content_members(
    content: &BTreeMap<String, Vec<u8>>,
    catalog: Option<&forge_contract::Catalog>,
    findings: &mut Vec<Finding>,
) -> (
    BTreeMap<String, Vec<u8>>,
    std::collections::BTreeSet<String>,
) {
    let mut members = BTreeMap::new();
    let mut packages = std::collections::BTreeSet::new();
    for (name, bytes) in content {
        if name.ends_with(".pak") {
            continue;
        }
        if rules::traverses(name) || name.contains('/') {
            findings.push(error(
                "path_traversal",
                Some(name),
                "container files must sit directly in the content folder",
            ));
            continue;
        }
        if let Some(finding) = rules::container_extension(name) {
            findings.push(finding);
            continue;
        }
        if name.ends_with(".utoc") {
            let ucas = content
                .get(&name.replace(".utoc", ".ucas"))
                .map(Vec::as_slice);
            let (found, held) = rules::container(name, bytes, ucas, catalog);
            findings.extend(found);
            packages.extend(held);
        } else if let Some(stem) = name.strip_suffix(".ucas") {
            if !content.contains_key(&format!("{stem}.utoc")) {
                findings.push(error(
                    "orphan_ucas",
                    Some(name),
                    "the container's .utoc is missing",
                ));
            }
        } else {
            findings.push(error(
                "forbidden_file",
                Some(name),
                "the content folder holds only .utoc/.ucas containers (and .pak stubs, left out)",
            ));
            continue;
        }
        members.insert(format!("content/{name}"), bytes.clone());
    }
    (members, packages)
}

/// Checks a map release before packing: a manifest with a slug and no catalog (a map is
/// not a pack), a publishable version, its containers, and the level document it carries
/// (kept whole, `blam.forge_packs` included) with its layout.
pub fn prepare_map(
    manifest: &[u8],
    level: &[u8],
    layout: Option<&[u8]>,
    content: &BTreeMap<String, Vec<u8>>,
) -> Result<Prepared, Vec<Finding>> {
    let text = String::from_utf8_lossy(manifest);
    let m = parse(&text)?;
    let mut findings = rules::publishable(&m, &text);
    if m.catalog().is_some() {
        findings.push(error(
            "map_has_catalog",
            Some("mjolnir.json"),
            "a map release carries no forge_pack catalog",
        ));
    }
    let Some(slug) = m.slug.clone() else {
        return Err(vec![error(
            "missing_slug",
            Some("mjolnir.json"),
            "a map release names its Hub slug",
        )]);
    };
    let (mut members, packages) = content_members(content, None, &mut findings);
    findings.extend(rules::pack_packages_in_map(&packages));
    if !members.keys().any(|k| k.ends_with(".utoc")) {
        findings.push(error(
            "no_content",
            None,
            "there is no container to release: the baked map's",
        ));
    }
    if !findings.is_empty() {
        return Err(findings);
    }
    members.insert("mjolnir.json".into(), manifest.to_vec());
    members.insert(LEVEL_MEMBER.into(), level.to_vec());
    if let Some(layout) = layout {
        members.insert(LAYOUT_MEMBER.into(), layout.to_vec());
    }
    let deps = dependencies(&m);
    Ok(Prepared {
        slug,
        version: m.version.to_string(),
        members,
        catalog: json!({"map": m.name, "release_version": m.version.to_string(), "dependencies": deps}),
    })
}

/// Where a map release keeps its level document and its layout.
pub const LEVEL_MEMBER: &str = "level.json";
pub const LAYOUT_MEMBER: &str = "layout.json";
