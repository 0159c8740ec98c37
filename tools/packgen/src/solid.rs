//! Solids the stock pieces are made of: each is a convex collision hull, a visual mesh,
//! or both, in pack space (right-handed, Z up, metres).

/// Which side of the pipeline a solid feeds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A collision hull and its (bevelled) visual.
    Both,
    /// Visual detail only: trims, stair treads, stripes, portal planes.
    Visual,
    /// Collision only: the smooth ramp under a visual staircase.
    Collision,
}

#[derive(Clone)]
pub enum Shape {
    /// An axis-aligned box, drawn with chamfered edges.
    Box { min: [f64; 3], max: [f64; 3] },
    /// A convex polygon (counter-clockwise seen from +axis) swept along `axis` over
    /// `lo..hi`. `polygon` holds the two other coordinates in cyclic order (y, z), (z, x)
    /// or (x, y).
    Prism {
        axis: usize,
        polygon: Vec<[f64; 2]>,
        lo: f64,
        hi: f64,
    },
}

#[derive(Clone)]
pub struct Solid {
    pub name: String,
    pub material: &'static str,
    pub role: Role,
    pub shape: Shape,
}

pub const CHAMFER_M: f64 = 0.02;

impl Shape {
    fn lift(axis: usize, p: [f64; 2], along: f64) -> [f64; 3] {
        let mut out = [0.0; 3];
        out[axis] = along;
        out[(axis + 1) % 3] = p[0];
        out[(axis + 2) % 3] = p[1];
        out
    }

    /// The hull's points: the box corners or the prism's two caps.
    pub fn hull_points(&self) -> Vec<[f64; 3]> {
        match self {
            Shape::Box { min, max } => {
                let mut out = Vec::with_capacity(8);
                for i in 0..8 {
                    out.push([
                        if i & 1 == 0 { min[0] } else { max[0] },
                        if i & 2 == 0 { min[1] } else { max[1] },
                        if i & 4 == 0 { min[2] } else { max[2] },
                    ]);
                }
                out
            }
            Shape::Prism {
                axis,
                polygon,
                lo,
                hi,
            } => {
                let mut out: Vec<[f64; 3]> =
                    polygon.iter().map(|p| Self::lift(*axis, *p, *lo)).collect();
                out.extend(polygon.iter().map(|p| Self::lift(*axis, *p, *hi)));
                out
            }
        }
    }

    /// The visual surface as convex polygons, each wound counter-clockwise seen from outside.
    pub fn faces(&self) -> Vec<Vec<[f64; 3]>> {
        match self {
            Shape::Box { min, max } => chamfered_box(*min, *max),
            Shape::Prism {
                axis,
                polygon,
                lo,
                hi,
            } => {
                let mut faces = Vec::new();
                let top: Vec<_> = polygon.iter().map(|p| Self::lift(*axis, *p, *hi)).collect();
                let bottom: Vec<_> = polygon
                    .iter()
                    .rev()
                    .map(|p| Self::lift(*axis, *p, *lo))
                    .collect();
                faces.push(top);
                faces.push(bottom);
                let n = polygon.len();
                for i in 0..n {
                    let (a, b) = (polygon[i], polygon[(i + 1) % n]);
                    faces.push(vec![
                        Self::lift(*axis, a, *lo),
                        Self::lift(*axis, b, *lo),
                        Self::lift(*axis, b, *hi),
                        Self::lift(*axis, a, *hi),
                    ]);
                }
                faces
            }
        }
    }
}

/// A box with its 12 edges bevelled: 6 inset faces, 12 edge strips and 8 corner triangles.
/// The bevel stays inside the box, so bounds are unchanged.
fn chamfered_box(min: [f64; 3], max: [f64; 3]) -> Vec<Vec<[f64; 3]>> {
    let size = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
    let c = CHAMFER_M.min(size.iter().cloned().fold(f64::MAX, f64::min) / 4.0);
    let centre = [
        (min[0] + max[0]) / 2.0,
        (min[1] + max[1]) / 2.0,
        (min[2] + max[2]) / 2.0,
    ];
    // The point of corner `s` (signs per axis) that lies on the face normal to `axis`.
    let point = |s: [f64; 3], axis: usize| {
        let mut p = [0.0; 3];
        for i in 0..3 {
            let edge = if s[i] > 0.0 { max[i] } else { min[i] };
            p[i] = if i == axis { edge } else { edge - s[i] * c };
        }
        p
    };
    let signs = |bits: usize| {
        [
            if bits & 1 == 0 { -1.0 } else { 1.0 },
            if bits & 2 == 0 { -1.0 } else { 1.0 },
            if bits & 4 == 0 { -1.0 } else { 1.0 },
        ]
    };
    let mut faces = Vec::new();
    for axis in 0..3 {
        for side in [-1.0, 1.0] {
            let corners: Vec<_> = (0..8)
                .map(signs)
                .filter(|s| s[axis] == side)
                .map(|s| point(s, axis))
                .collect();
            faces.push(corners);
        }
    }
    for a in 0..3 {
        let b = (a + 1) % 3;
        for sa in [-1.0, 1.0] {
            for sb in [-1.0, 1.0] {
                let strip: Vec<_> = (0..8)
                    .map(signs)
                    .filter(|s| s[a] == sa && s[b] == sb)
                    .flat_map(|s| [point(s, a), point(s, b)])
                    .collect();
                faces.push(strip);
            }
        }
    }
    for bits in 0..8 {
        let s = signs(bits);
        faces.push((0..3).map(|axis| point(s, axis)).collect());
    }
    faces.into_iter().map(|f| convex_ccw(f, centre)).collect()
}

/// Orders a convex planar polygon counter-clockwise seen from outside (away from `centre`).
pub fn convex_ccw(points: Vec<[f64; 3]>, centre: [f64; 3]) -> Vec<[f64; 3]> {
    let n = points.len() as f64;
    let mid = points.iter().fold([0.0; 3], |a, p| {
        [a[0] + p[0] / n, a[1] + p[1] / n, a[2] + p[2] / n]
    });
    let mut normal = [0.0; 3];
    for i in 0..points.len() {
        let cand = cross(
            sub(points[i], mid),
            sub(points[(i + 1) % points.len()], mid),
        );
        if dot(cand, cand) > dot(normal, normal) {
            normal = cand;
        }
    }
    if dot(normal, sub(mid, centre)) < 0.0 {
        normal = [-normal[0], -normal[1], -normal[2]];
    }
    let u = normalize(sub(points[0], mid));
    let v = cross(normalize(normal), u);
    let mut sorted = points;
    sorted.sort_by(|p, q| {
        let ap = dot(sub(*p, mid), v).atan2(dot(sub(*p, mid), u));
        let aq = dot(sub(*q, mid), v).atan2(dot(sub(*q, mid), u));
        ap.total_cmp(&aq)
    });
    sorted
}

pub fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
pub fn normalize(a: [f64; 3]) -> [f64; 3] {
    let l = dot(a, a).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}
