//! The independent engine: parry3d queries on the source hulls.
//!
//! The cooked BSP and MOPP are checked against these answers (`mjolnir forge probe --via
//! source`, and the property tests). parry3d 0.31 speaks glam's f32 vectors; the conversion
//! lives here and nowhere else.

use parry3d::math::{Pose, Vector};
use parry3d::query::{PointQuery, Ray, RayCast};
use parry3d::shape::ConvexPolyhedron;

use crate::hull::ConvexHull;

fn to_parry(p: [f64; 3]) -> Vector {
    Vector::new(p[0] as f32, p[1] as f32, p[2] as f32)
}

/// The source hulls as parry shapes, in pack-space metres.
pub struct SourceShapes {
    shapes: Vec<ConvexPolyhedron>,
}

impl SourceShapes {
    pub fn new(hulls: &[ConvexHull]) -> Option<SourceShapes> {
        let shapes = hulls
            .iter()
            .map(|h| {
                ConvexPolyhedron::from_convex_hull(
                    &h.vertices.iter().map(|v| to_parry(*v)).collect::<Vec<_>>(),
                )
            })
            .collect::<Option<Vec<_>>>()?;
        Some(SourceShapes { shapes })
    }

    pub fn contains(&self, p: [f64; 3]) -> bool {
        self.shapes
            .iter()
            .any(|s| s.contains_point(&Pose::identity(), to_parry(p)))
    }

    /// `(distance in metres along the unit direction, hull index)` of the first hit.
    pub fn ray(&self, origin: [f64; 3], dir: [f64; 3], max_m: f64) -> Option<(f64, usize)> {
        let len = (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]).sqrt();
        let ray = Ray::new(to_parry(origin), to_parry(dir.map(|c| c / len)));
        self.shapes
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                s.cast_ray(&Pose::identity(), &ray, max_m as f32, true)
                    .map(|t| (f64::from(t), i))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
    }
}
