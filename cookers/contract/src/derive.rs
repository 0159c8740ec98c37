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

/// The entry for block `id` with its origin convention and the visual mesh's bounds.
pub fn entry(id: &str, origin: &str, hulls: &[Hull], bounds: [[f64; 3]; 2]) -> Value {
    let supports = supports(hulls);
    let joins = if origin == "bottom_centre" {
        joins(&supports, bounds)
    } else {
        Vec::new()
    };
    let hulls: Vec<Value> = hulls
        .iter()
        .map(|h| json!({"name": id_like(h.name, "hull"), "material": id_like(h.material, "default"), "points": h.points}))
        .collect();
    json!({"id": id, "origin": origin, "hulls": hulls, "supports": supports, "joins": joins})
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

/// Each hull's flat top, inset off its rim, where it is wide enough to stand on.
fn supports(hulls: &[Hull]) -> Vec<Value> {
    let mut out = Vec::new();
    for hull in hulls {
        let top = hull.points.iter().map(|p| p[2]).fold(f64::MIN, f64::max);
        let on_top: Vec<&[f64; 3]> = hull
            .points
            .iter()
            .filter(|p| (p[2] - top).abs() < 0.001)
            .collect();
        if on_top.len() < 3 {
            continue;
        }
        let lo = |k: usize| on_top.iter().map(|p| p[k]).fold(f64::MAX, f64::min) + SUPPORT_INSET_M;
        let hi = |k: usize| on_top.iter().map(|p| p[k]).fold(f64::MIN, f64::max) - SUPPORT_INSET_M;
        if hi(0) - lo(0) >= MIN_SUPPORT_M && hi(1) - lo(1) >= MIN_SUPPORT_M {
            out.push(json!({"name": format!("{}_top", id_like(hull.name, "hull")), "min_m": [mm(lo(0)), mm(lo(1))],
                "max_m": [mm(hi(0)), mm(hi(1))], "height_m": mm(top)}));
        }
    }
    out
}

/// A join on each edge of the piece a support reaches, at the highest such support.
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
                .filter(|s| {
                    let reach = if high {
                        s["max_m"][axis].as_f64()
                    } else {
                        s["min_m"][axis].as_f64()
                    };
                    reach.is_some_and(|r| (r - at).abs() <= SUPPORT_INSET_M + JOIN_REACH_M)
                })
                .filter_map(|s| s["height_m"].as_f64())
                .fold(None, |best: Option<f64>, h| {
                    Some(best.map_or(h, |b| b.max(h)))
                })?;
            Some(json!({"name": name, "edge": edge, "height_m": height}))
        })
        .collect()
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
pub fn merge_over(entry: &Value, derived: Option<&Value>) -> (Value, Vec<(&'static str, FieldSource)>) {
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
    // The entry's key order first, then the model's fields in the contract's order.
    (merged, sources)
}
