//! Ray checks: every cooked piece is what its author declared, on every cook.
//!
//! [`run`] takes a block's geometry source, its catalog dimensions, its cooked collision
//! (the BSP, cross-checked through the MOPP), its placed visual bounds and the source
//! hulls as parry3d shapes, and returns a [`BlockReport`] with one result per check:
//!
//! | check | what must hold | failure codes |
//! |---|---|---|
//! | `apertures` | a grid of rays through each opening passes; rays just outside its frame hit | `aperture_blocked`, `aperture_misplaced` |
//! | `supports` | downward rays over each walkable area hit at the expected height (1 cm), no steeper than 45°, and a player capsule stands there clear of other hulls | `support_missing`, `support_height`, `support_too_steep`, `support_blocked` |
//! | `size` | the visual and the collision bounds equal `dimensions_m` (1 mm), at the origin convention | `size_mismatch`, `origin_mismatch`, `model_in_centimetres`, `model_z_up` |
//! | `joins` | the walkable top along each declared edge is at the declared height (1 mm) | `join_height` |
//! | `connectors` | each connector frame sits on the road surface (1 cm step), at the deck's end (1 mm), facing along it (0.01°) | `connector_step`, `connector_position`, `connector_heading` |
//!
//! Every ray goes through both the BSP and the MOPP; if they disagree the check fails with
//! `engines_disagree`. A failure names its first failing ray and what it hit. A block may
//! carry a reviewed waiver for a check in `geometry.json`; the check still runs, and the
//! report lists the waiver. Densities and limits are the constants below
//! (`docs/checks.md`).

mod trace;

pub use trace::{trace, TracedCheck, TracedHit, TracedRay};

use forge_collision::reference::SourceShapes;
use forge_collision::{CollisionModel, ModelHit, MoppIndex};
use forge_contract::geometry::{ApertureKind, Axis, BlockGeometry, Edge, Frame};
use forge_contract::Origin;
use serde::Serialize;

/// Version of this cooker; part of every checks step's key.
pub const VERSION: u32 = 2; // 2: apertures must be open in the visual mesh; export mistakes named

pub const APERTURE_SPACING_M: f64 = 0.25;
pub const APERTURE_INSET_M: f64 = 0.05;
pub const FRAME_OFFSET_M: f64 = 0.05;
pub const SUPPORT_SPACING_M: f64 = 0.5;
pub const SUPPORT_TOLERANCE_M: f64 = 0.01;
pub const WALKABLE_MAX_SLOPE_DEG: f64 = 45.0;
pub const PLAYER_RADIUS_M: f64 = 0.3;
pub const PLAYER_HEIGHT_M: f64 = 1.8;
pub const STAND_CLEARANCE_M: f64 = 0.02;
pub const SIZE_TOLERANCE_M: f64 = 0.001;
pub const JOIN_TOLERANCE_M: f64 = 0.001;
pub const JOIN_SPACING_M: f64 = 0.5;
pub const CONNECTOR_STEP_M: f64 = 0.01;
pub const CONNECTOR_POSITION_M: f64 = 0.001;
pub const CONNECTOR_ANGLE_DEG: f64 = 0.01;
/// BSP and MOPP hits may differ by this much before they count as disagreeing.
pub const ENGINE_TOLERANCE_M: f64 = 1e-4;

pub struct Inputs<'a> {
    pub block: &'a BlockGeometry,
    pub dimensions_m: [f64; 3],
    pub model: &'a CollisionModel,
    pub index: &'a MoppIndex,
    /// The visual mesh's bounds as the actor places it, in pack space.
    pub visual_bounds_m: ([f64; 3], [f64; 3]),
    /// The visual mesh's triangles as the actor places them, in pack space: an opening
    /// must be open in what players see too.
    pub visual_triangles_m: &'a [[[f64; 3]; 3]],
    pub source: &'a SourceShapes,
}

#[derive(Debug, Clone, Serialize)]
pub struct RayRecord {
    pub origin_m: [f64; 3],
    pub direction: [f64; 3],
}

#[derive(Debug, Clone, Serialize)]
pub struct HitRecord {
    pub distance_m: f64,
    pub hull: String,
    pub surface: u16,
}

#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub code: &'static str,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ray: Option<RayRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hit: Option<HitRecord>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Waived {
    pub reason: String,
    pub reviewed_by: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    pub check: &'static str,
    /// The aperture, support, join or connector checked (or the block, for `size`).
    pub name: String,
    pub passed: bool,
    pub rays: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiver: Option<Waived>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BlockReport {
    pub format: &'static str,
    pub version: u32,
    pub block: String,
    pub checks: Vec<CheckResult>,
}

impl BlockReport {
    /// Failed checks without a waiver: these fail the cook.
    pub fn blocking(&self) -> impl Iterator<Item = &CheckResult> {
        self.checks
            .iter()
            .filter(|c| !c.passed && c.waiver.is_none())
    }
}

/// Evenly spaced samples from `lo` to `hi` inclusive, at most `spacing` apart (at least 2).
fn samples(lo: f64, hi: f64, spacing: f64) -> Vec<f64> {
    if hi <= lo {
        return vec![(lo + hi) / 2.0];
    }
    let n = ((hi - lo) / spacing).ceil().max(1.0) as usize;
    (0..=n)
        .map(|i| lo + (hi - lo) * i as f64 / n as f64)
        .collect()
}

struct Caster<'a> {
    inputs: &'a Inputs<'a>,
    rays: usize,
}

impl Caster<'_> {
    /// The BSP's first hit, after checking the MOPP agrees.
    fn cast(
        &mut self,
        origin: [f64; 3],
        dir: [f64; 3],
        max_m: f64,
    ) -> Result<Option<ModelHit>, Box<Failure>> {
        self.rays += 1;
        let bsp = self.inputs.model.ray(origin, dir, max_m);
        let mopp = self
            .inputs
            .index
            .ray(self.inputs.model, origin, dir, max_m)
            .map_err(|e| Failure {
                code: "engines_disagree",
                message: format!("the MOPP could not be run: {e}"),
                ray: Some(RayRecord {
                    origin_m: origin,
                    direction: dir,
                }),
                hit: None,
            })?;
        let agree = match (bsp, mopp) {
            (None, None) => true,
            (Some(a), Some(b)) => (a.distance_m - b.distance_m).abs() <= ENGINE_TOLERANCE_M,
            _ => false,
        };
        if !agree {
            return Err(Box::new(Failure {
                code: "engines_disagree",
                message: format!("the BSP says {bsp:?} and the MOPP says {mopp:?}"),
                ray: Some(RayRecord {
                    origin_m: origin,
                    direction: dir,
                }),
                hit: None,
            }));
        }
        Ok(bsp)
    }

    fn hit_record(&self, h: &ModelHit) -> HitRecord {
        HitRecord {
            distance_m: h.distance_m,
            hull: self.inputs.model.regions[h.region].name.clone(),
            surface: h.surface,
        }
    }

    fn normal(&self, h: &ModelHit) -> [f64; 3] {
        let bsp = &self.inputs.model.regions[h.region].bsp;
        bsp.planes[bsp.surfaces[h.surface as usize].plane as usize]
            .ijk
            .map(f64::from)
    }
}

fn fail(
    code: &'static str,
    message: String,
    origin: [f64; 3],
    dir: [f64; 3],
    hit: Option<HitRecord>,
) -> Box<Failure> {
    Box::new(Failure {
        code,
        message,
        ray: Some(RayRecord {
            origin_m: origin,
            direction: dir,
        }),
        hit,
    })
}

fn result(
    check: &'static str,
    name: &str,
    rays: usize,
    outcome: Result<(), Box<Failure>>,
) -> CheckResult {
    let failure = outcome.err().map(|b| *b);
    CheckResult {
        check,
        name: name.to_string(),
        passed: failure.is_none(),
        rays,
        failure,
        waiver: None,
    }
}

pub fn run(inputs: &Inputs) -> BlockReport {
    let mut checks = Vec::new();
    let (lo, hi) = inputs.model.bounds_m().unwrap_or(([0.0; 3], [0.0; 3]));
    for a in &inputs.block.apertures {
        let mut c = Caster { inputs, rays: 0 };
        let outcome = aperture(&mut c, a, lo, hi);
        checks.push(result("apertures", &a.name, c.rays, outcome));
    }
    for s in &inputs.block.supports {
        let mut c = Caster { inputs, rays: 0 };
        let outcome = support(&mut c, s);
        checks.push(result("supports", &s.name, c.rays, outcome));
    }
    checks.push(result("size", &inputs.block.id, 0, size(inputs, lo, hi)));
    for j in &inputs.block.joins {
        let mut c = Caster { inputs, rays: 0 };
        let outcome = join(&mut c, j, lo, hi);
        checks.push(result("joins", &j.name, c.rays, outcome));
    }
    if let Some(conn) = &inputs.block.connectors {
        let frames = [("entry", &conn.entry, -1.0)]
            .into_iter()
            .chain([("exit", &conn.exit, 1.0)])
            .chain(conn.branches.iter().map(|b| ("branch", b, 1.0)));
        for (i, (name, frame, outward)) in frames.enumerate() {
            let mut c = Caster { inputs, rays: 0 };
            let outcome = connector(&mut c, frame, outward);
            let label = if name == "branch" {
                format!("branch_{}", i - 2)
            } else {
                name.to_string()
            };
            checks.push(result("connectors", &label, c.rays, outcome));
        }
    }
    for check in &mut checks {
        if !check.passed {
            if let Some(w) = inputs.block.waivers.iter().find(|w| w.check == check.check) {
                check.waiver = Some(Waived {
                    reason: w.reason.clone(),
                    reviewed_by: w.reviewed_by.clone(),
                });
            }
        }
    }
    BlockReport {
        format: "mjolnir-forge-checks",
        version: VERSION,
        block: inputs.block.id.clone(),
        checks,
    }
}

/// One ray a check casts, in pack-space metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckRay {
    pub origin: [f64; 3],
    pub direction: [f64; 3],
    pub length: f64,
}

/// The grid of rays through an aperture: inset from its frame, at most
/// [`APERTURE_SPACING_M`] apart, from 1 m before the piece (`lo..hi`) to 1 m past it.
pub fn aperture_rays(
    a: &forge_contract::geometry::Aperture,
    lo: [f64; 3],
    hi: [f64; 3],
) -> Vec<CheckRay> {
    let (along, across) = match a.axis {
        Axis::X => (0, 1),
        Axis::Y => (1, 0),
    };
    let mut direction = [0.0; 3];
    direction[along] = 1.0;
    let length = hi[along] - lo[along] + 2.0;
    let (hw, hh) = (a.width_m / 2.0, a.height_m / 2.0);
    let mut rays = Vec::new();
    for u in samples(
        -hw + APERTURE_INSET_M,
        hw - APERTURE_INSET_M,
        APERTURE_SPACING_M,
    ) {
        for v in samples(
            -hh + APERTURE_INSET_M,
            hh - APERTURE_INSET_M,
            APERTURE_SPACING_M,
        ) {
            let mut origin = a.centre_m;
            origin[along] = lo[along] - 1.0;
            origin[across] = a.centre_m[across] + u;
            origin[2] = a.centre_m[2] + v;
            rays.push(CheckRay {
                origin,
                direction,
                length,
            });
        }
    }
    rays
}

/// The downward rays over a walkable area, at most [`SUPPORT_SPACING_M`] apart, each from
/// 1 m above the surface it expects, with that expected height.
pub fn support_rays(s: &forge_contract::geometry::Support) -> Vec<(CheckRay, f64)> {
    let mut rays = Vec::new();
    for x in samples(s.min_m[0], s.max_m[0], SUPPORT_SPACING_M) {
        for y in samples(s.min_m[1], s.max_m[1], SUPPORT_SPACING_M) {
            let expected =
                s.height_m + s.grade[0] * (x - s.min_m[0]) + s.grade[1] * (y - s.min_m[1]);
            rays.push((
                CheckRay {
                    origin: [x, y, expected + 1.0],
                    direction: [0.0, 0.0, -1.0],
                    length: 2.0,
                },
                expected,
            ));
        }
    }
    rays
}

fn aperture(
    c: &mut Caster,
    a: &forge_contract::geometry::Aperture,
    lo: [f64; 3],
    hi: [f64; 3],
) -> Result<(), Box<Failure>> {
    let (along, across) = match a.axis {
        Axis::X => (0, 1),
        Axis::Y => (1, 0),
    };
    let mut dir = [0.0; 3];
    dir[along] = 1.0;
    let length = hi[along] - lo[along] + 2.0;
    let point = |u: f64, v: f64| {
        let mut p = a.centre_m;
        p[along] = lo[along] - 1.0;
        p[across] = a.centre_m[across] + u;
        p[2] = a.centre_m[2] + v;
        p
    };
    let (hw, hh) = (a.width_m / 2.0, a.height_m / 2.0);
    for ray in aperture_rays(a, lo, hi) {
        {
            let o = ray.origin;
            if let Some(h) = c.cast(o, dir, length)? {
                let hit = c.hit_record(&h);
                return Err(fail(
                    "aperture_blocked",
                    format!(
                        "{:?} is blocked: a ray through the opening hits hull {:?} at {:.4} m",
                        a.name, hit.hull, h.distance_m
                    ),
                    o,
                    dir,
                    Some(hit),
                ));
            }
        }
    }
    for ray in aperture_rays(a, lo, hi) {
        if let Some((t, at)) = visual_hit(c.inputs.visual_triangles_m, ray.origin, dir, length) {
            return Err(fail(
                "aperture_blocked_visual",
                format!(
                    "{:?} is open in the collision but not in the visual mesh: a ray through the opening hits the model at ({:.3}, {:.3}, {:.3}), {t:.3} m along; open it in the model as well, or move the aperture in geometry.json",
                    a.name, at[0], at[1], at[2]
                ),
                ray.origin,
                dir,
                None,
            ));
        }
    }
    let mut frame = vec![
        ("left", -hw - FRAME_OFFSET_M, 0.0),
        ("right", hw + FRAME_OFFSET_M, 0.0),
        ("top", 0.0, hh + FRAME_OFFSET_M),
    ];
    if a.kind == ApertureKind::Window {
        frame.push(("bottom", 0.0, -hh - FRAME_OFFSET_M));
    }
    for (side, u, v) in frame {
        let o = point(u, v);
        if c.cast(o, dir, length)?.is_none() {
            return Err(fail("aperture_misplaced", format!("{:?}: a ray just outside the opening's {side} edge passes, so the opening is not where it is declared", a.name), o, dir, None));
        }
    }
    Ok(())
}

fn support(c: &mut Caster, s: &forge_contract::geometry::Support) -> Result<(), Box<Failure>> {
    let dir = [0.0, 0.0, -1.0];
    let max_slope_cos = WALKABLE_MAX_SLOPE_DEG.to_radians().cos();
    for (ray, expected) in support_rays(s) {
        {
            let o = ray.origin;
            let (x, y) = (o[0], o[1]);
            let Some(h) = c.cast(o, dir, 2.0)? else {
                return Err(fail("support_missing", format!("{:?}: nothing to stand on at ({x:.3}, {y:.3}); expected a surface at {expected:.3} m", s.name), o, dir, None));
            };
            let z = o[2] - h.distance_m;
            if (z - expected).abs() > SUPPORT_TOLERANCE_M {
                let hit = c.hit_record(&h);
                return Err(fail("support_height", format!("{:?}: the surface at ({x:.3}, {y:.3}) is at {z:.4} m, expected {expected:.4} m (within 1 cm)", s.name), o, dir, Some(hit)));
            }
            let n = c.normal(&h);
            if n[2] < max_slope_cos {
                let slope = n[2].clamp(-1.0, 1.0).acos().to_degrees();
                let hit = c.hit_record(&h);
                return Err(fail("support_too_steep", format!("{:?}: the surface at ({x:.3}, {y:.3}) slopes {slope:.1}°, steeper than the {WALKABLE_MAX_SLOPE_DEG}° walkable limit", s.name), o, dir, Some(hit)));
            }
            let bottom = [x, y, z + PLAYER_RADIUS_M + STAND_CLEARANCE_M];
            let top = [x, y, z + PLAYER_HEIGHT_M - PLAYER_RADIUS_M];
            let blocking: Vec<usize> = c
                .inputs
                .source
                .capsule_hits(bottom, top, PLAYER_RADIUS_M)
                .into_iter()
                .filter(|&i| i != h.region)
                .collect();
            if let Some(&other) = blocking.first() {
                let name = &c.inputs.model.regions[other].name;
                return Err(fail("support_blocked", format!("{:?}: a player standing at ({x:.3}, {y:.3}, {z:.3}) would be inside hull {name:?}", s.name), o, dir, Some(c.hit_record(&h))));
            }
        }
    }
    Ok(())
}

fn size(inputs: &Inputs, lo: [f64; 3], hi: [f64; 3]) -> Result<(), Box<Failure>> {
    let declared = inputs.dimensions_m;
    let fmt = |d: [f64; 3]| format!("{:.4} x {:.4} x {:.4} m", d[0], d[1], d[2]);
    for (what, (l, h)) in [
        ("collision", (lo, hi)),
        ("visual mesh", inputs.visual_bounds_m),
    ] {
        let got = [h[0] - l[0], h[1] - l[1], h[2] - l[2]];
        if (0..3).any(|a| (got[a] - declared[a]).abs() > SIZE_TOLERANCE_M) {
            if what == "visual mesh" {
                if let Some(failure) = export_mistake(got, declared) {
                    return Err(Box::new(failure));
                }
            }
            return Err(Box::new(Failure {
                code: "size_mismatch",
                message: format!(
                    "the {what} is {}, but the catalog declares {}",
                    fmt(got),
                    fmt(declared)
                ),
                ray: None,
                hit: None,
            }));
        }
        if inputs.block.origin == Origin::BottomCentre {
            let centre = [(l[0] + h[0]) / 2.0, (l[1] + h[1]) / 2.0];
            if centre[0].abs() > SIZE_TOLERANCE_M
                || centre[1].abs() > SIZE_TOLERANCE_M
                || l[2].abs() > SIZE_TOLERANCE_M
            {
                return Err(Box::new(Failure {
                    code: "origin_mismatch",
                    message: format!("the {what}'s footprint centre is ({:.4}, {:.4}) and its bottom at {:.4} m; a bottom_centre piece has both at 0", centre[0], centre[1], l[2]),
                    ray: None,
                    hit: None,
                }));
            }
        }
    }
    Ok(())
}

/// The nearest visual triangle a ray meets within `length` (Möller-Trumbore), and where.
fn visual_hit(
    triangles: &[[[f64; 3]; 3]],
    o: [f64; 3],
    d: [f64; 3],
    length: f64,
) -> Option<(f64, [f64; 3])> {
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let mut best: Option<f64> = None;
    for [a, b, c] in triangles {
        let (e1, e2) = (sub(*b, *a), sub(*c, *a));
        let p = cross(d, e2);
        let det = dot(e1, p);
        if det.abs() < 1e-12 {
            continue;
        }
        let s = sub(o, *a);
        let u = dot(s, p) / det;
        let q = cross(s, e1);
        let v = dot(d, q) / det;
        let t = dot(e2, q) / det;
        if (0.0..=1.0).contains(&u)
            && v >= 0.0
            && u + v <= 1.0
            && t > 0.0
            && t <= length
            && best.is_none_or(|b| t < b)
        {
            best = Some(t);
        }
    }
    best.map(|t| (t, [o[0] + d[0] * t, o[1] + d[1] * t, o[2] + d[2] * t]))
}

/// The two export mistakes that size a model wrong, named with the setting that fixes
/// them: centimetres for metres (everything 100 times too large), and a Z-up export
/// (height and depth swapped).
fn export_mistake(got: [f64; 3], declared: [f64; 3]) -> Option<Failure> {
    let near = |a: f64, b: f64| (a - b).abs() <= SIZE_TOLERANCE_M.max(b.abs() * 0.01);
    let fmt = |d: [f64; 3]| format!("{:.3} x {:.3} x {:.3} m", d[0], d[1], d[2]);
    let (code, message) = if (0..3).all(|a| near(got[a], declared[a] * 100.0)) {
        ("model_in_centimetres", format!(
            "the visual mesh is {}, 100 times the declared {}: the model was exported in centimetres; in Blender set Scene Properties > Units > Unit Scale to 1.0 with Length in Meters, apply the scale (Ctrl+A > Scale), and export again",
            fmt(got), fmt(declared)
        ))
    } else if near(got[0], declared[0])
        && near(got[1], declared[2])
        && near(got[2], declared[1])
        && !near(got[1], declared[1])
    {
        ("model_z_up", format!(
            "the visual mesh is {}, the declared {} with height and depth swapped: the model was exported Z-up; in Blender's glTF exporter keep Include > Transform > +Y Up checked",
            fmt(got), fmt(declared)
        ))
    } else {
        return None;
    };
    Some(Failure {
        code,
        message,
        ray: None,
        hit: None,
    })
}

fn join(
    c: &mut Caster,
    j: &forge_contract::geometry::Join,
    lo: [f64; 3],
    hi: [f64; 3],
) -> Result<(), Box<Failure>> {
    // Along the edge, sample where the block declares walkable area (else its bounds).
    let (axis, at, along) = match j.edge {
        Edge::PlusX => (0, hi[0] - 0.001, 1),
        Edge::MinusX => (0, lo[0] + 0.001, 1),
        Edge::PlusY => (1, hi[1] - 0.001, 0),
        Edge::MinusY => (1, lo[1] + 0.001, 0),
    };
    let supports = &c.inputs.block.supports;
    let (from, to) = if supports.is_empty() {
        (lo[along] + 0.1, hi[along] - 0.1)
    } else {
        (
            supports
                .iter()
                .map(|s| s.min_m[along])
                .fold(f64::MAX, f64::min),
            supports
                .iter()
                .map(|s| s.max_m[along])
                .fold(f64::MIN, f64::max),
        )
    };
    let dir = [0.0, 0.0, -1.0];
    for t in samples(from, to, JOIN_SPACING_M) {
        let mut o = [0.0, 0.0, hi[2] + 1.0];
        o[axis] = at;
        o[along] = t;
        let length = hi[2] - lo[2] + 2.0;
        let Some(h) = c.cast(o, dir, length)? else {
            return Err(fail(
                "join_height",
                format!(
                    "{:?}: nothing at the {} edge at {t:.3} m; declared {:.4} m",
                    j.name,
                    j.edge.as_str(),
                    j.height_m
                ),
                o,
                dir,
                None,
            ));
        };
        let z = o[2] - h.distance_m;
        if (z - j.height_m).abs() > JOIN_TOLERANCE_M {
            let hit = c.hit_record(&h);
            return Err(fail(
                "join_height",
                format!(
                    "{:?}: the top at the {} edge is at {z:.4} m, declared {:.4} m (within 1 mm)",
                    j.name,
                    j.edge.as_str(),
                    j.height_m
                ),
                o,
                dir,
                Some(hit),
            ));
        }
    }
    Ok(())
}

fn connector(c: &mut Caster, f: &Frame, outward: f64) -> Result<(), Box<Failure>> {
    let heading = f.heading_deg.to_radians();
    let fwd = [heading.cos(), heading.sin(), 0.0];
    let out = fwd.map(|x| x * outward);
    // On the road: just inside the piece, the surface is at the frame's height.
    let inside = [
        f.position_m[0] - out[0] * 0.001,
        f.position_m[1] - out[1] * 0.001,
        f.position_m[2] + 1.0,
    ];
    let down = [0.0, 0.0, -1.0];
    let Some(h) = c.cast(inside, down, 2.0)? else {
        return Err(fail(
            "connector_step",
            format!("no road surface under the frame at {:?}", f.position_m),
            inside,
            down,
            None,
        ));
    };
    let z = inside[2] - h.distance_m;
    if (z - f.position_m[2]).abs() > CONNECTOR_STEP_M {
        return Err(fail("connector_step", format!("the road surface at the frame is at {z:.4} m, the frame at {:.4} m: a step over 1 cm", f.position_m[2]), inside, down, Some(c.hit_record(&h))));
    }
    // At the deck's end and facing along it: from 0.5 m outside, a ray back must meet the
    // end face 0.5 m away, with the face's normal pointing out along the heading.
    let o = [
        f.position_m[0] + out[0] * 0.5,
        f.position_m[1] + out[1] * 0.5,
        f.position_m[2] - 0.25,
    ];
    let back = out.map(|x| -x);
    let Some(h) = c.cast(o, back, 1.0)? else {
        return Err(fail(
            "connector_position",
            format!("no deck end behind the frame at {:?}", f.position_m),
            o,
            back,
            None,
        ));
    };
    if (h.distance_m - 0.5).abs() > CONNECTOR_POSITION_M {
        return Err(fail(
            "connector_position",
            format!(
                "the deck ends {:.4} m from the frame, not at it (within 1 mm)",
                h.distance_m - 0.5
            ),
            o,
            back,
            Some(c.hit_record(&h)),
        ));
    }
    // The angle from atan2 of the cross and dot products: acos of a dot product near 1
    // would turn the f32 normal's rounding into a hundredth of a degree.
    let n = c.normal(&h);
    let dot = n[0] * out[0] + n[1] * out[1] + n[2] * out[2];
    let cross = [
        n[1] * out[2] - n[2] * out[1],
        n[2] * out[0] - n[0] * out[2],
        n[0] * out[1] - n[1] * out[0],
    ];
    let angle = (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2])
        .sqrt()
        .atan2(dot)
        .to_degrees();
    if angle > CONNECTOR_ANGLE_DEG {
        return Err(fail(
            "connector_heading",
            format!(
                "the frame's heading {:.4}° is {angle:.4}° off the deck's end (within 0.01°)",
                f.heading_deg
            ),
            o,
            back,
            Some(c.hit_record(&h)),
        ));
    }
    Ok(())
}

/// Chains pieces by their connector frames, each piece's entry placed on the previous
/// exit. Returns the final `(position, heading in degrees)` when starting at the origin
/// heading along +X.
pub fn chain(pieces: &[(Frame, Frame)]) -> ([f64; 3], f64) {
    let mut p = [0.0; 3];
    let mut heading = 0.0f64;
    for (entry, exit) in pieces {
        let e = entry.heading_deg.to_radians();
        let d = [
            exit.position_m[0] - entry.position_m[0],
            exit.position_m[1] - entry.position_m[1],
            exit.position_m[2] - entry.position_m[2],
        ];
        // The exit in the entry's frame, then in the world's.
        let local = [
            d[0] * e.cos() + d[1] * e.sin(),
            -d[0] * e.sin() + d[1] * e.cos(),
            d[2],
        ];
        let h = heading.to_radians();
        p = [
            p[0] + local[0] * h.cos() - local[1] * h.sin(),
            p[1] + local[0] * h.sin() + local[1] * h.cos(),
            p[2] + local[2],
        ];
        heading += exit.heading_deg - entry.heading_deg;
    }
    (p, heading)
}
