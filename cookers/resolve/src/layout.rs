//! Saved layouts: `<MAP>.mvar` and its sidecar `<MAP>.mvar.packs`. The sidecar starts with
//! `forge-packs 1`; each following line is tab-separated: flat palette index, full tag
//! path, pack slug, saved version, archive SHA-256, one per custom piece the layout uses.
//! The `.mvar` is opaque apart from its `fpk1` marker, which every new save carries.
//!
//! [`check`] is the native check before the engine recreates saved objects.

use std::collections::BTreeMap;

use semver::Version;
use serde::Serialize;

pub const HEADER: &str = "forge-packs 1";
pub const MARKER: &[u8] = b"fpk1";

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    pub index: usize,
    pub tag: String,
    pub slug: String,
    pub version: Version,
    pub sha256: String,
}

/// Reads a sidecar; the error names the line.
pub fn read_sidecar(text: &str) -> Result<Vec<Row>, String> {
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(format!("the first line is not {HEADER:?}"));
    }
    lines
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, line)| {
            let at = i + 2;
            let fields: Vec<&str> = line.split('\t').collect();
            let [index, tag, slug, version, sha256] = fields[..] else {
                return Err(format!(
                    "line {at}: {} fields, not 5 tab-separated ones",
                    fields.len()
                ));
            };
            Ok(Row {
                index: index
                    .parse()
                    .map_err(|_| format!("line {at}: {index:?} is not a palette index"))?,
                tag: tag.to_string(),
                slug: slug.to_string(),
                version: Version::parse(version)
                    .map_err(|e| format!("line {at}: {version:?}: {e}"))?,
                sha256: sha256.to_string(),
            })
        })
        .collect()
}

pub fn write_sidecar(rows: &[Row]) -> String {
    let mut out = format!("{HEADER}\n");
    for r in rows {
        out += &format!(
            "{}\t{}\t{}\t{}\t{}\n",
            r.index, r.tag, r.slug, r.version, r.sha256
        );
    }
    out
}

pub fn has_marker(mvar: &[u8]) -> bool {
    mvar.windows(MARKER.len()).any(|w| w == MARKER)
}

/// An installed, enabled pack as the native check sees it.
pub struct InstalledPack<'a> {
    pub version: &'a Version,
    pub tags: &'a [String],
}

/// Why a layout may not load: `(code, message)` each.
pub fn check(
    mvar: &[u8],
    sidecar: Option<&[Row]>,
    palette: &BTreeMap<usize, String>,
    installed: &BTreeMap<String, InstalledPack>,
) -> Vec<(&'static str, String)> {
    let mut refusals = Vec::new();
    let rows = match (has_marker(mvar), sidecar) {
        (true, None) => {
            return vec![(
                "missing_sidecar",
                "the layout is a marked save, and its .mvar.packs sidecar is missing".into(),
            )]
        }
        (false, None) => return refusals,
        (false, Some(rows)) if !rows.is_empty() => {
            return vec![(
                "legacy_custom_tags",
                "a layout without the fpk1 marker references custom pack tags".into(),
            )]
        }
        (_, Some(rows)) => rows,
    };
    for row in rows {
        let Some(pack) = installed.get(&row.slug) else {
            refusals.push((
                "missing_inventory",
                format!(
                    "{} is not installed, so {} cannot be placed",
                    row.slug, row.tag
                ),
            ));
            continue;
        };
        if !pack.tags.contains(&row.tag) {
            refusals.push((
                "missing_inventory",
                format!("{} {} has no {}", row.slug, pack.version, row.tag),
            ));
        }
        let line = semver::VersionReq::parse(&format!("^{}", row.version))
            .expect("a version makes a caret requirement");
        if !line.matches(pack.version) {
            let code = if *pack.version < row.version {
                "release_older"
            } else {
                "release_outside_line"
            };
            refusals.push((
                code,
                format!(
                    "installed {} {} cannot serve a layout saved with {}",
                    row.slug, pack.version, row.version
                ),
            ));
        }
        match palette.get(&row.index) {
            Some(tag) if *tag == row.tag => {}
            bound => refusals.push((
                "palette_binding",
                format!(
                    "palette index {} is {} now, not {}",
                    row.index,
                    bound.map_or("unbound", String::as_str),
                    row.tag
                ),
            )),
        }
    }
    refusals
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecars_read_what_they_write() {
        let rows = vec![Row {
            index: 27,
            tag: "objects\\mjolnir\\forge\\foundry\\floor_2x2".into(),
            slug: "foundry".into(),
            version: Version::parse("0.2.0").unwrap(),
            sha256: "ab".repeat(32),
        }];
        let text = write_sidecar(&rows);
        assert!(text.starts_with(
            "forge-packs 1\n27\tobjects\\mjolnir\\forge\\foundry\\floor_2x2\tfoundry\t0.2.0\t"
        ));
        assert_eq!(read_sidecar(&text).unwrap(), rows);
        assert!(read_sidecar("forge-packs 2\n").is_err());
        assert!(read_sidecar("forge-packs 1\n1\t2\n")
            .unwrap_err()
            .contains("line 2"));
    }
}
