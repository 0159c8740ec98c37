//! The studio lights, after Blender Workbench's default studio setup: a warm key light
//! from above the camera's left shoulder, a cooler, weaker fill from the right, and a sky
//! ambient that is brighter on faces turned up. The lights turn with the camera, so every
//! view of a turntable is lit the same way and flat faces at different angles read apart.
//!
//! Light is in linear units: a face turned straight at the key receives
//! `AMBIENT + SKY + KEY` ≈ 1.0, so a base colour is shown at its own value there.

use crate::camera::Camera;
use crate::V3;

/// Light every face receives.
pub const AMBIENT: f32 = 0.18;
/// Extra light on faces turned up (half of it on vertical faces, none facing down).
pub const SKY: f32 = 0.12;
/// The key light's strength, and its direction in camera space (right, up, toward the
/// camera), pointing at the light.
pub const KEY: f32 = 0.72;
pub const KEY_FROM: [f64; 3] = [-0.45, 0.55, 0.7];
/// The fill light's strength and direction, likewise.
pub const FILL: f32 = 0.22;
pub const FILL_FROM: [f64; 3] = [0.7, -0.1, 0.7];

/// The lights placed for one camera, in world space.
#[derive(Debug, Clone)]
pub struct Studio {
    key: V3,
    fill: V3,
}

fn unit(v: V3) -> V3 {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|c| c / l)
}

impl Studio {
    pub fn facing(camera: &Camera) -> Studio {
        let (right, up, back) = camera.basis();
        let place =
            |d: [f64; 3]| unit([0, 1, 2].map(|k| d[0] * right[k] + d[1] * up[k] + d[2] * back[k]));
        Studio {
            key: place(KEY_FROM),
            fill: place(FILL_FROM),
        }
    }

    /// The light a surface with unit normal `n` (world space, facing the camera) receives.
    pub fn light(&self, n: V3) -> f32 {
        let lambert = |l: V3| (n[0] * l[0] + n[1] * l[1] + n[2] * l[2]).max(0.0) as f32;
        let sky = (0.5 + 0.5 * n[2]) as f32;
        AMBIENT + SKY * sky + KEY * lambert(self.key) + FILL * lambert(self.fill)
    }
}
