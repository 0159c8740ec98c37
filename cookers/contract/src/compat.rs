//! "Updating a pack": what a new release may change relative to an earlier one.
//!
//! Within a caret line a release keeps every earlier entry with the same id, kind,
//! dimensions and snap; it may add entries. The Hub checks exactly that. With both
//! releases' geometry at hand this also warns when a kept entry's origin or joins moved,
//! which the Hub leaves to the author.

use crate::diagnostic::{Diagnostic, Severity};
use crate::geometry::{BlockGeometry, GeometrySource};
use crate::manifest::Manifest;
use crate::version::same_line;

/// One side of a comparison: a manifest, its geometry when known, and a label for findings.
pub struct Release<'a> {
    pub label: &'a str,
    pub manifest: &'a Manifest,
    pub geometry: Option<&'a GeometrySource>,
}

/// How far a point may move before a join or origin counts as moved.
pub const MOVE_TOLERANCE_M: f64 = 0.001;

pub fn compare(old: &Release, new: &Release) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut finding = |code: &'static str, severity: Severity, pointer: String, message: String| {
        out.push(Diagnostic {
            code,
            severity,
            file: new.label.to_string(),
            pointer,
            line: None,
            column: None,
            message,
        });
    };
    let (Some(old_pack), Some(new_pack)) = (old.manifest.catalog(), new.manifest.catalog()) else {
        finding(
            "not_a_forge_pack",
            Severity::Error,
            "/forge_pack".into(),
            "both releases must carry a forge_pack catalog".into(),
        );
        return out;
    };
    if old_pack.id != new_pack.id {
        finding(
            "different_pack",
            Severity::Error,
            "/forge_pack/id".into(),
            format!(
                "{:?} and {:?} are different packs; compare releases of one pack",
                old_pack.id, new_pack.id
            ),
        );
        return out;
    }
    let (old_v, new_v) = (&old.manifest.version, &new.manifest.version);
    if new_v == old_v {
        if old.manifest != new.manifest {
            finding("version_reused", Severity::Error, "/version".into(), format!("{new_v} is already published with other contents; a published version's bytes never change"));
        }
        return out;
    }
    if new_v < old_v {
        finding(
            "not_newer",
            Severity::Error,
            "/version".into(),
            format!("{new_v} is older than {old_v}"),
        );
        return out;
    }
    // A new line may change anything; what changed is then said as warnings, since it is
    // why maps and layouts built with the old line need an explicit rebuild.
    let new_line = !same_line(old_v, new_v);
    let breaking = if new_line {
        Severity::Warning
    } else {
        Severity::Error
    };
    if new_line {
        finding(
            "new_line",
            Severity::Warning,
            "/version".into(),
            format!("{new_v} starts a new line after {old_v}: maps and layouts built with ^{old_v} need an explicit rebuild to use it"),
        );
    }
    for old_entry in &old_pack.blocks {
        let Some(index) = new_pack.blocks.iter().position(|e| e.id == old_entry.id) else {
            finding(
                "entry_dropped",
                breaking,
                "/forge_pack/blocks".into(),
                format!("{:?} was in {old_v}; a release in the ^{old_v} line must keep every entry (start a new line or a new pack instead)", old_entry.id),
            );
            continue;
        };
        let new_entry = &new_pack.blocks[index];
        let at = format!("/forge_pack/blocks/{index}");
        compare_entry((old_entry, new_entry), &at, breaking, &mut finding);
        if let (Some(og), Some(ng)) = (
            old.geometry.and_then(|g| g.block(&old_entry.id)),
            new.geometry.and_then(|g| g.block(&old_entry.id)),
        ) {
            compare_geometry(og, ng, &mut finding);
        }
    }
    out
}

/// What a release in the same line may not change about a kept entry at `at`: its kind,
/// dimensions and snap.
fn compare_entry(
    (old_entry, new_entry): (&crate::Entry, &crate::Entry),
    at: &str,
    breaking: Severity,
    finding: &mut impl FnMut(&'static str, Severity, String, String),
) {
    if new_entry.kind != old_entry.kind {
        finding(
            "kind_changed",
            breaking,
            format!("{at}/kind"),
            format!(
                "{:?} changed kind from {:?} to {:?}",
                old_entry.id, old_entry.kind, new_entry.kind
            ),
        );
    }
    if new_entry.dimensions_m != old_entry.dimensions_m {
        finding(
            "dimensions_changed",
            breaking,
            format!("{at}/dimensions_m"),
            format!("{:?} changed dimensions from {:?} to {:?} m; that would resize existing builds (keep it and add the new size under a new block id, or start a new line)", old_entry.id, old_entry.dimensions_m, new_entry.dimensions_m),
        );
    }
    if new_entry.snap_m != old_entry.snap_m {
        finding(
            "snap_changed",
            breaking,
            format!("{at}/snap_m"),
            format!(
                "{:?} changed snap from {} to {}",
                old_entry.id,
                snap_text(old_entry.snap_m),
                snap_text(new_entry.snap_m)
            ),
        );
    }
}

fn compare_geometry(
    old: &BlockGeometry,
    new: &BlockGeometry,
    finding: &mut impl FnMut(&'static str, Severity, String, String),
) {
    let id = &old.id;
    if old.origin != new.origin {
        finding(
            "origin_moved",
            Severity::Warning,
            "geometry".into(),
            format!(
                "{id:?} changed its origin convention from {} to {}",
                old.origin.as_str(),
                new.origin.as_str()
            ),
        );
    } else if let (Some(a), Some(b)) = (hull_min(old), hull_min(new)) {
        if (0..3).any(|i| (a[i] - b[i]).abs() > MOVE_TOLERANCE_M) {
            finding("origin_moved", Severity::Warning, "geometry".into(), format!("{id:?} moved relative to its origin: its lowest corner went from {a:?} to {b:?} m"));
        }
    }
    for join in &old.joins {
        match new.joins.iter().find(|j| j.name == join.name) {
            None => finding(
                "join_removed",
                Severity::Warning,
                "geometry".into(),
                format!("{id:?} no longer declares join {:?}", join.name),
            ),
            Some(j)
                if j.edge != join.edge || (j.height_m - join.height_m).abs() > MOVE_TOLERANCE_M =>
            {
                finding(
                    "join_moved",
                    Severity::Warning,
                    "geometry".into(),
                    format!(
                        "{id:?} join {:?} moved from {} at {} m to {} at {} m",
                        join.name,
                        join.edge.as_str(),
                        join.height_m,
                        j.edge.as_str(),
                        j.height_m
                    ),
                )
            }
            Some(_) => {}
        }
    }
}

fn hull_min(block: &BlockGeometry) -> Option<[f64; 3]> {
    let mut points = block.hulls.iter().flat_map(|h| h.points.iter());
    let first = *points.next()?;
    Some(points.fold(first, |acc, p| {
        [acc[0].min(p[0]), acc[1].min(p[1]), acc[2].min(p[2])]
    }))
}

/// A snap as an author wrote it: `0.5 m`, or `none`.
fn snap_text(snap_m: Option<f64>) -> String {
    snap_m.map_or_else(|| "none".into(), |m| format!("{m} m"))
}
