//! The preview camera: a fixed three-quarter view framing the declared dimensions.

use serde::{Deserialize, Serialize};

pub type V3 = [f64; 3];

/// Everything needed to reproduce the view elsewhere (e.g. in Blender): pack-space
/// metres, Z up, vertical field of view in degrees, square resolution in pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Camera {
    pub position_m: V3,
    pub target_m: V3,
    pub up: V3,
    pub vertical_fov_deg: f64,
    pub resolution: [u32; 2],
}

pub const FOV_DEG: f64 = 35.0;
pub const ELEVATION_DEG: f64 = 30.0;
pub const AZIMUTH_DEG: f64 = -60.0;
/// The empty border left around the piece's projected bounds, as a fraction of the frame
/// on each side.
pub const MARGIN: f64 = 0.06;

fn bounds(points: &[V3]) -> (V3, V3) {
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for p in points {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    if lo[0] > hi[0] {
        return ([0.0; 3], [0.0; 3]);
    }
    (lo, hi)
}

fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn normalize(a: V3) -> V3 {
    let l = dot(a, a).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

impl Camera {
    /// The three-quarter view of a box `lo..hi`, turned `turn_deg` about Z, fitted to the
    /// box's eight corners.
    pub fn framing(lo: V3, hi: V3, turn_deg: f64, size: u32) -> Camera {
        let corners: Vec<V3> = (0..8)
            .map(|i| {
                [
                    if i & 1 == 0 { lo[0] } else { hi[0] },
                    if i & 2 == 0 { lo[1] } else { hi[1] },
                    if i & 4 == 0 { lo[2] } else { hi[2] },
                ]
            })
            .collect();
        Camera::fit(&corners, turn_deg, size)
    }

    /// The three-quarter view turned `turn_deg` about Z, placed so the points' projected
    /// bounds are centred and fill the frame but for [`MARGIN`] on the longer side.
    pub fn fit(points: &[V3], turn_deg: f64, size: u32) -> Camera {
        let (lo, hi) = bounds(points);
        let mut target = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
        let radius = dot(sub(hi, lo), sub(hi, lo)).sqrt().max(0.02) / 2.0;
        let mut distance = radius / (FOV_DEG.to_radians() / 2.0).sin();
        let (az, el) = (
            (AZIMUTH_DEG + turn_deg).to_radians(),
            ELEVATION_DEG.to_radians(),
        );
        let dir = [el.cos() * az.cos(), el.cos() * az.sin(), el.sin()];
        let at = |target: V3, distance: f64| Camera {
            position_m: [0, 1, 2].map(|k| target[k] + dir[k] * distance),
            target_m: target,
            up: [0.0, 0.0, 1.0],
            vertical_fov_deg: FOV_DEG,
            resolution: [size, size],
        };
        let tan = (FOV_DEG.to_radians() / 2.0).tan();
        // Perspective makes the fit nonlinear; a few rounds of re-centring and re-scaling
        // converge well below a pixel.
        for _ in 0..8 {
            let camera = at(target, distance);
            let Some((min, max)) = camera.projected_bounds(points) else {
                distance *= 2.0;
                continue;
            };
            let (right, up, _) = camera.basis();
            let mid = [(min[0] + max[0]) / 2.0, (min[1] + max[1]) / 2.0];
            let shift = [mid[0] * tan * distance, mid[1] * tan * distance];
            target = [0, 1, 2].map(|k| target[k] + right[k] * shift[0] + up[k] * shift[1]);
            let half = ((max[0] - min[0]).max(max[1] - min[1]) / 2.0).max(1e-6);
            distance *= half / (1.0 - 2.0 * MARGIN);
        }
        at(target, distance)
    }

    /// The points' bounds in normalized device coordinates (-1..1, y up), or `None` when
    /// one is behind the camera.
    fn projected_bounds(&self, points: &[V3]) -> Option<([f64; 2], [f64; 2])> {
        let (mut min, mut max) = ([f64::MAX; 2], [f64::MIN; 2]);
        let (w, h) = (f64::from(self.resolution[0]), f64::from(self.resolution[1]));
        for p in points {
            let [x, y, _] = self.project(*p)?;
            let ndc = [x / w * 2.0 - 1.0, 1.0 - y / h * 2.0];
            for k in 0..2 {
                min[k] = min[k].min(ndc[k]);
                max[k] = max[k].max(ndc[k]);
            }
        }
        Some((min, max))
    }

    /// The camera's right, up and backward unit vectors in world space.
    pub fn basis(&self) -> (V3, V3, V3) {
        let f = self.forward();
        let r = normalize(cross(f, self.up));
        let u = cross(r, f);
        (r, u, f.map(|c| -c))
    }

    /// Projects a point to `(x, y, depth)` in pixels (y down), or `None` behind the camera.
    pub fn project(&self, p: V3) -> Option<[f64; 3]> {
        let f = normalize(sub(self.target_m, self.position_m));
        let r = normalize(cross(f, self.up));
        let u = cross(r, f);
        let d = sub(p, self.position_m);
        let z = dot(d, f);
        if z <= 1e-6 {
            return None;
        }
        let scale = 1.0 / (self.vertical_fov_deg.to_radians() / 2.0).tan();
        let (w, h) = (f64::from(self.resolution[0]), f64::from(self.resolution[1]));
        let x = dot(d, r) / z * scale * (h / w);
        let y = dot(d, u) / z * scale;
        Some([(x + 1.0) / 2.0 * w, (1.0 - y) / 2.0 * h, z])
    }

    /// The direction the camera looks along.
    pub fn forward(&self) -> V3 {
        normalize(sub(self.target_m, self.position_m))
    }
}
