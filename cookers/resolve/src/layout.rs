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

/// Why a sidecar cannot be read: a stable code, and a message naming the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SidecarError {
    /// `sidecar_format` (no `forge-packs N` first line), `sidecar_too_new` (a later
    /// format than 1), or `sidecar_row`.
    pub code: &'static str,
    pub message: String,
}

impl std::fmt::Display for SidecarError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

/// Reads a sidecar; the error names the line.
pub fn read_sidecar(text: &str) -> Result<Vec<Row>, SidecarError> {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    if first != HEADER {
        let newer = first
            .strip_prefix("forge-packs ")
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|n| *n > 1);
        return Err(match newer {
            Some(n) => SidecarError {
                code: "sidecar_too_new",
                message: format!("the sidecar is format forge-packs {n}; this launcher reads {HEADER:?}; update the launcher"),
            },
            None => SidecarError {
                code: "sidecar_format",
                message: format!("the first line is not {HEADER:?}"),
            },
        });
    }
    lines
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, line)| read_row(i + 2, line))
        .collect()
}

fn read_row(at: usize, line: &str) -> Result<Row, SidecarError> {
    let bad = |message: String| SidecarError {
        code: "sidecar_row",
        message: format!("line {at}: {message}"),
    };
    let fields: Vec<&str> = line.split('\t').collect();
    let [index, tag, slug, version, sha256] = fields[..] else {
        return Err(bad(format!(
            "{} fields, not 5 tab-separated ones",
            fields.len()
        )));
    };
    Ok(Row {
        index: index
            .parse()
            .map_err(|_| bad(format!("{index:?} is not a palette index")))?,
        tag: tag.to_string(),
        slug: slug.to_string(),
        version: Version::parse(version).map_err(|e| bad(format!("{version:?}: {e}")))?,
        sha256: sha256.to_string(),
    })
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
        if !crate::caret(&row.version).matches(pack.version) {
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
        assert_eq!(
            read_sidecar("forge-packs 2\n").unwrap_err().code,
            "sidecar_too_new"
        );
        assert_eq!(read_sidecar("MVAR\n").unwrap_err().code, "sidecar_format");
        let row = read_sidecar("forge-packs 1\n1\t2\n").unwrap_err();
        assert_eq!(row.code, "sidecar_row");
        assert!(row.message.contains("line 2"), "{row}");
    }
}
