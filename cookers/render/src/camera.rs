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
    /// The three-quarter view of a box `lo..hi`, turned `turn_deg` about Z, framing the
    /// box's bounding sphere with a little margin.
    pub fn framing(lo: V3, hi: V3, turn_deg: f64, size: u32) -> Camera {
        let target = [
            (lo[0] + hi[0]) / 2.0,
            (lo[1] + hi[1]) / 2.0,
            (lo[2] + hi[2]) / 2.0,
        ];
        let radius = (dot(sub(hi, lo), sub(hi, lo))).sqrt() / 2.0;
        let distance = radius.max(0.01) / (FOV_DEG.to_radians() / 2.0).sin() * 1.05;
        let (az, el) = (
            (AZIMUTH_DEG + turn_deg).to_radians(),
            ELEVATION_DEG.to_radians(),
        );
        let dir = [el.cos() * az.cos(), el.cos() * az.sin(), el.sin()];
        Camera {
            position_m: [
                target[0] + dir[0] * distance,
                target[1] + dir[1] * distance,
                target[2] + dir[2] * distance,
            ],
            target_m: target,
            up: [0.0, 0.0, 1.0],
            vertical_fov_deg: FOV_DEG,
            resolution: [size, size],
        }
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
