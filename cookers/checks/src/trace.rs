//! Every ray the aperture and support checks cast, each with what it met: what a 3D view
//! draws. [`run`](crate::run) stops a check at its first failing ray; a trace casts them
//! all, so an author sees which rays of a doorway are blocked and which pass.

use serde::Serialize;

use crate::{aperture_rays, support_rays, visual_hit, Inputs, SUPPORT_TOLERANCE_M};

/// One check's rays, under the check's own name (`apertures`/`door`).
#[derive(Debug, Clone, Serialize)]
pub struct TracedCheck {
    pub check: &'static str,
    pub name: String,
    pub rays: Vec<TracedRay>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TracedRay {
    pub origin_m: [f64; 3],
    pub direction: [f64; 3],
    pub length_m: f64,
    /// Whether this ray alone satisfies its check.
    pub passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit: Option<TracedHit>,
}

/// Where a ray first met something.
#[derive(Debug, Clone, Serialize)]
pub struct TracedHit {
    pub distance_m: f64,
    pub point_m: [f64; 3],
    /// `collision` (a hull, named) or `visual` (the mesh players see).
    pub by: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hull: Option<String>,
}

/// The rays of every aperture and support check of a block, in declaration order.
pub fn trace(inputs: &Inputs) -> Vec<TracedCheck> {
    let (lo, hi) = inputs.model.bounds_m().unwrap_or(([0.0; 3], [0.0; 3]));
    let mut out = Vec::new();
    for a in &inputs.block.apertures {
        let rays = aperture_rays(a, lo, hi)
            .into_iter()
            .map(|r| {
                let hit = first_hit(inputs, r.origin, r.direction, r.length);
                TracedRay {
                    origin_m: r.origin,
                    direction: r.direction,
                    length_m: r.length,
                    passed: hit.is_none(),
                    hit,
                }
            })
            .collect();
        out.push(TracedCheck {
            check: "apertures",
            name: a.name.clone(),
            rays,
        });
    }
    for s in &inputs.block.supports {
        let rays = support_rays(s)
            .into_iter()
            .map(|(r, expected)| {
                let hit = collision_hit(inputs, r.origin, r.direction, r.length);
                let passed = hit
                    .as_ref()
                    .is_some_and(|h| (h.point_m[2] - expected).abs() <= SUPPORT_TOLERANCE_M);
                TracedRay {
                    origin_m: r.origin,
                    direction: r.direction,
                    length_m: r.length,
                    passed,
                    hit,
                }
            })
            .collect();
        out.push(TracedCheck {
            check: "supports",
            name: s.name.clone(),
            rays,
        });
    }
    out
}

fn along(o: [f64; 3], d: [f64; 3], t: f64) -> [f64; 3] {
    [0, 1, 2].map(|i| o[i] + d[i] * t)
}

fn collision_hit(inputs: &Inputs, o: [f64; 3], d: [f64; 3], length: f64) -> Option<TracedHit> {
    let h = inputs.model.ray(o, d, length)?;
    Some(TracedHit {
        distance_m: h.distance_m,
        point_m: along(o, d, h.distance_m),
        by: "collision",
        hull: Some(inputs.model.regions[h.region].name.clone()),
    })
}

/// The nearer of the collision's and the visual mesh's first hits: an opening must be
/// open in both.
fn first_hit(inputs: &Inputs, o: [f64; 3], d: [f64; 3], length: f64) -> Option<TracedHit> {
    let collision = collision_hit(inputs, o, d, length);
    let visual = visual_hit(inputs.visual_triangles_m, o, d, length).map(|(t, at)| TracedHit {
        distance_m: t,
        point_m: at,
        by: "visual",
        hull: None,
    });
    match (collision, visual) {
        (Some(c), Some(v)) if v.distance_m < c.distance_m => Some(v),
        (Some(c), _) => Some(c),
        (None, v) => v,
    }
}
