//! A block's geometry entry derived from its model's collision hulls (`UCX_` nodes): the
//! hulls, a support on each flat top wide enough to stand on, and, for a `bottom_centre`
//! piece, a join on each edge a top reaches. `mjolnir forge suggest` prints or writes it;
//! the cook uses it for a block `geometry.json` does not list.

use serde_json::{json, Value};

/// A flat top narrower than this on either side is no place to stand.
pub const MIN_SUPPORT_M: f64 = 0.3;
/// Supports stop this far inside their top's edges, off the rim.
pub const SUPPORT_INSET_M: f64 = 0.1;
/// A top this close to the piece's edge meets a neighbour there.
pub const JOIN_REACH_M: f64 = 0.15;

/// One hull as the model gives it: node name, material name, points in pack space.
pub struct Hull<'a> {
    pub name: &'a str,
    pub material: &'a str,
    pub points: &'a [[f64; 3]],
}

/// The entry for block `id` with its origin convention, from its hulls, the visual mesh's
/// triangles (for the openings) and the visual mesh's bounds.
pub fn entry(
    id: &str,
    origin: &str,
    hulls: &[Hull],
    triangles: &[[[f64; 3]; 3]],
    bounds: [[f64; 3]; 2],
) -> Value {
    let supports = supports(hulls);
    let joins = if origin == "bottom_centre" {
        joins(&supports, bounds)
    } else {
        Vec::new()
    };
    let points: Vec<&[[f64; 3]]> = hulls.iter().map(|h| h.points).collect();
    let apertures = crate::openings::apertures(&points, triangles, bounds);
    let hulls: Vec<Value> = hulls
        .iter()
        .map(|h| json!({"name": id_like(h.name, "hull"), "material": id_like(h.material, "default"), "points": h.points}))
        .collect();
    let mut entry =
        json!({"id": id, "origin": origin, "hulls": hulls, "supports": supports, "joins": joins});
    if !apertures.is_empty() {
        entry["apertures"] = Value::Array(apertures);
    }
    entry
}

/// Why a derived entry lacks supports or joins, for the author to read.
pub fn warnings(entry: &Value) -> Vec<String> {
    let none = |field: &str| entry[field].as_array().is_none_or(Vec::is_empty);
    let mut out = Vec::new();
    if none("supports") {
        out.push(format!("no support: no hull's top is flat or sloped under {MAX_GRADE_DEG} degrees and at least {MIN_SUPPORT_M} m wide each way, so nothing on this piece is walkable; if it should be, write \"supports\" by hand"));
    } else if none("joins") && entry["origin"] == "bottom_centre" {
        out.push(format!("no join: no walkable top reaches within {JOIN_REACH_M} m of the piece's edge at a level height, so it meets no neighbour; if it should, write \"joins\" by hand"));
    }
    out
}

/// A name the contract takes as an id: lower case, digits and `_`.
pub fn id_like(name: &str, fallback: &str) -> String {
    let id: String = name
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let id = id.trim_matches('_').to_string();
    if id.is_empty() || !id.starts_with(|c: char| c.is_ascii_lowercase()) {
        fallback.to_string()
    } else {
        id
    }
}

fn mm(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// A top steeper than this is no place to stand (the checks' walkable limit).
pub const MAX_GRADE_DEG: f64 = 45.0;

/// Each hull's top, inset off its rim, where it is wide enough to stand on: flat, or
/// graded when it is one sloped plane (a ramp).
fn supports(hulls: &[Hull]) -> Vec<Value> {
    hulls.iter().filter_map(support).collect()
}

fn support(hull: &Hull) -> Option<Value> {
    let (upper, (base, grade)) = match upper_points(hull.points) {
        upper if plane(&upper).is_some() => {
            let fit = plane(&upper)?;
            (upper, fit)
        }
        // Not one plane (a frustum's rim shows beside its top): its flat top, if any.
        _ => {
            let top = hull.points.iter().map(|p| p[2]).fold(f64::MIN, f64::max);
            let flat: Vec<[f64; 3]> = hull
                .points
                .iter()
                .copied()
                .filter(|p| (p[2] - top).abs() < 0.001)
                .collect();
            if flat.len() < 3 {
                return None;
            }
            (flat, (top, [0.0, 0.0]))
        }
    };
    let lo = |k: usize| upper.iter().map(|p| p[k]).fold(f64::MAX, f64::min) + SUPPORT_INSET_M;
    let hi = |k: usize| upper.iter().map(|p| p[k]).fold(f64::MIN, f64::max) - SUPPORT_INSET_M;
    if hi(0) - lo(0) < MIN_SUPPORT_M || hi(1) - lo(1) < MIN_SUPPORT_M {
        return None;
    }
    let height = base + grade[0] * lo(0) + grade[1] * lo(1);
    let mut support = json!({"name": format!("{}_top", id_like(hull.name, "hull")), "min_m": [mm(lo(0)), mm(lo(1))],
        "max_m": [mm(hi(0)), mm(hi(1))], "height_m": mm(height)});
    if grade != [0.0, 0.0] {
        support["grade"] = json!(grade);
    }
    Some(support)
}

/// The points on a hull's top: those with no point of the hull above them.
fn upper_points(points: &[[f64; 3]]) -> Vec<[f64; 3]> {
    // Points at the same (x, y) to the millimetre are one column; its highest is on top.
    let key = |p: &[f64; 3]| {
        (
            (p[0] * 1000.0).round() as i64,
            (p[1] * 1000.0).round() as i64,
        )
    };
    let mut columns: std::collections::BTreeMap<(i64, i64), [f64; 3]> = Default::default();
    for p in points {
        let top = columns.entry(key(p)).or_insert(*p);
        if p[2] > top[2] {
            *top = *p;
        }
    }
    columns.into_values().collect()
}

/// The plane `z = base + grade . (x, y)` through the top's points, when they lie on one
/// (to 2 mm) no steeper than [`MAX_GRADE_DEG`]; the grade is rounded to 1e-4.
fn plane(points: &[[f64; 3]]) -> Option<(f64, [f64; 2])> {
    if points.len() < 3 {
        return None;
    }
    let n = points.len() as f64;
    let mean = |k: usize| points.iter().map(|p| p[k]).sum::<f64>() / n;
    let (mx, my, mz) = (mean(0), mean(1), mean(2));
    let (mut sxx, mut sxy, mut syy, mut sxz, mut syz) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for p in points {
        let (x, y, z) = (p[0] - mx, p[1] - my, p[2] - mz);
        (sxx, sxy, syy, sxz, syz) = (
            sxx + x * x,
            sxy + x * y,
            syy + y * y,
            sxz + x * z,
            syz + y * z,
        );
    }
    let det = sxx * syy - sxy * sxy;
    if det.abs() < 1e-12 {
        return None;
    }
    let round = |g: f64| {
        let r = (g * 10_000.0).round() / 10_000.0;
        if r == 0.0 {
            0.0
        } else {
            r
        }
    };
    let grade = [
        round((sxz * syy - syz * sxy) / det),
        round((syz * sxx - sxz * sxy) / det),
    ];
    let base = mz - grade[0] * mx - grade[1] * my;
    let fits = points
        .iter()
        .all(|p| (base + grade[0] * p[0] + grade[1] * p[1] - p[2]).abs() <= 0.002);
    let steepness = grade[0].hypot(grade[1]).atan().to_degrees();
    (fits && steepness <= MAX_GRADE_DEG).then_some((base, grade))
}

/// A join on each edge of the piece a support reaches, at the highest such support's
/// height there; a support sloping along the edge meets no neighbour level, so gives none.
fn joins(supports: &[Value], bounds: [[f64; 3]; 2]) -> Vec<Value> {
    let [lo, hi] = bounds;
    let edges = [
        ("east", "+x", 0, hi[0], true),
        ("west", "-x", 0, lo[0], false),
        ("north", "+y", 1, hi[1], true),
        ("south", "-y", 1, lo[1], false),
    ];
    edges
        .iter()
        .filter_map(|&(name, edge, axis, at, high)| {
            let height = supports
                .iter()
                .filter_map(|s| height_at_edge(s, axis, at, high))
                .fold(None, |best: Option<f64>, h| {
                    Some(best.map_or(h, |b| b.max(h)))
                })?;
            Some(json!({"name": name, "edge": edge, "height_m": mm(height)}))
        })
        .collect()
}

/// The height of a support at the piece's edge `at` on `axis`, when it reaches that edge
/// and is level along it.
fn height_at_edge(support: &Value, axis: usize, at: f64, high: bool) -> Option<f64> {
    let grade = |k: usize| support["grade"][k].as_f64().unwrap_or(0.0);
    let min = support["min_m"][axis].as_f64()?;
    let reach = support[if high { "max_m" } else { "min_m" }][axis].as_f64()?;
    let level_along_edge = grade(1 - axis) == 0.0;
    ((reach - at).abs() <= SUPPORT_INSET_M + JOIN_REACH_M && level_along_edge).then(|| {
        support["height_m"]
            .as_f64()
            .map(|h| h + grade(axis) * (at - min))
    })?
}

/// The fields of an entry the model can give, in the order an entry lists them.
pub const MODEL_FIELDS: &[&str] = &[
    "origin",
    "hulls",
    "supports",
    "joins",
    "apertures",
    "connectors",
];

/// Where one field of a block's geometry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldSource {
    /// `geometry.json`'s entry gives it, so it overrides the model.
    Entry,
    /// The entry leaves it out, so the model's is used.
    Model,
}

/// A block's geometry, field by field: each field `entry` gives wins, each one it leaves
/// out comes from `derived` (the model's). Also says where each field came from, for the
/// fields either one has. Fields only an entry can give (`waivers`) pass through.
pub fn merge_over(
    entry: &Value,
    derived: Option<&Value>,
) -> (Value, Vec<(&'static str, FieldSource)>) {
    let mut merged = entry.clone();
    let mut sources = Vec::new();
    let Some(out) = merged.as_object_mut() else {
        return (merged, sources);
    };
    for &field in MODEL_FIELDS {
        if out.contains_key(field) {
            sources.push((field, FieldSource::Entry));
        } else if let Some(value) = derived.and_then(|d| d.get(field)) {
            out.insert(field.to_string(), value.clone());
            sources.push((field, FieldSource::Model));
        }
    }
    (merged, sources)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cuboid(lo: [f64; 3], hi: [f64; 3]) -> Vec<[f64; 3]> {
        (0..8)
            .map(|k| [0, 1, 2].map(|a| if k >> a & 1 == 0 { lo[a] } else { hi[a] }))
            .collect()
    }

    fn derived(points: &[[f64; 3]], bounds: [[f64; 3]; 2]) -> Value {
        let hull = Hull {
            name: "body",
            material: "steel",
            points,
        };
        entry("piece", "bottom_centre", &[hull], &[], bounds)
    }

    #[test]
    fn a_ramp_gets_a_graded_support_and_joins_at_its_two_heights() {
        // A 4 m wedge rising 1 m along +X.
        let wedge = [
            [-2.0, -1.0, 0.0],
            [2.0, -1.0, 0.0],
            [2.0, 1.0, 0.0],
            [-2.0, 1.0, 0.0],
            [2.0, -1.0, 1.0],
            [2.0, 1.0, 1.0],
        ];
        let e = derived(&wedge, [[-2.0, -1.0, 0.0], [2.0, 1.0, 1.0]]);
        assert_eq!(e["supports"][0]["grade"], json!([0.25, 0.0]));
        assert_eq!(e["supports"][0]["height_m"], 0.025);
        let joins: Vec<(&str, f64)> = e["joins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| (j["edge"].as_str().unwrap(), j["height_m"].as_f64().unwrap()))
            .collect();
        assert_eq!(
            joins,
            [("+x", 1.0), ("-x", 0.0)],
            "none along the slope's sides"
        );
        assert!(warnings(&e).is_empty());
    }

    #[test]
    fn a_piece_with_nothing_to_stand_on_is_warned_about() {
        let post = cuboid([-0.1, -0.1, 0.0], [0.1, 0.1, 3.0]);
        let e = derived(&post, [[-0.1, -0.1, 0.0], [0.1, 0.1, 3.0]]);
        let said = warnings(&e);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].starts_with("no support"), "{said:?}");
    }

    #[test]
    fn a_support_that_reaches_no_edge_is_warned_about_as_no_join() {
        // A plinth in the middle of a wider piece's bounds.
        let plinth = cuboid([-1.0, -1.0, 0.0], [1.0, 1.0, 0.5]);
        let e = derived(&plinth, [[-4.0, -4.0, 0.0], [4.0, 4.0, 0.5]]);
        let said = warnings(&e);
        assert!(
            said.len() == 1 && said[0].starts_with("no join"),
            "{said:?}"
        );
    }

    #[test]
    fn merge_over_takes_each_field_the_entry_gives_and_the_rest_from_the_model() {
        let model = json!({"id": "w", "origin": "bottom_centre", "hulls": [1], "supports": [2], "joins": [3]});
        let entry = json!({"id": "w", "origin": "entry_floor", "waivers": [4]});
        let (merged, sources) = merge_over(&entry, Some(&model));
        assert_eq!(merged["origin"], "entry_floor");
        assert_eq!(merged["hulls"], json!([1]));
        assert_eq!(merged["waivers"], json!([4]));
        assert_eq!(
            sources,
            [
                ("origin", FieldSource::Entry),
                ("hulls", FieldSource::Model),
                ("supports", FieldSource::Model),
                ("joins", FieldSource::Model)
            ]
        );
    }
}
