//! The independent engine: parry3d queries on the source hulls.
//!
//! The cooked BSP and MOPP are checked against these answers (`mjolnir forge probe --via
//! source`, and the property tests). Each hull is built by parry's own convex hull
//! algorithm from the source points, not from this crate's hulls. Point queries use parry's
//! oriented triangle mesh of that hull, and so do ray queries: parry's convex-shape queries
//! iterate to a tolerance (1e-5 m off on a point, 1e-4 m on a grazing ray), while its
//! triangle tests are exact to f32.
//!
//! parry3d 0.31 speaks glam's f32 vectors; the conversion lives here and nowhere else.

use parry3d::math::{Pose, Vector};
use parry3d::query::{PointQuery, Ray, RayCast};
use parry3d::shape::{Capsule, ConvexPolyhedron, TriMesh, TriMeshFlags};

fn to_parry(p: [f64; 3]) -> Vector {
    Vector::new(p[0] as f32, p[1] as f32, p[2] as f32)
}

/// The source hulls as parry shapes, in pack-space metres.
pub struct SourceShapes {
    surfaces: Vec<TriMesh>,
    solids: Vec<ConvexPolyhedron>,
}

impl SourceShapes {
    /// One shape per point set; `None` when parry cannot make a hull of one.
    pub fn new<'a>(point_sets: impl IntoIterator<Item = &'a [[f64; 3]]>) -> Option<SourceShapes> {
        Self::try_new(point_sets).ok()
    }

    /// As [`SourceShapes::new`], naming the index of the first point set parry3d could
    /// not build a convex shape from.
    pub fn try_new<'a>(
        point_sets: impl IntoIterator<Item = &'a [[f64; 3]]>,
    ) -> Result<SourceShapes, usize> {
        let mut surfaces = Vec::new();
        let mut solids = Vec::new();
        for (i, points) in point_sets.into_iter().enumerate() {
            let pts: Vec<Vector> = points.iter().map(|p| to_parry(*p)).collect();
            let (vertices, indices) =
                parry3d::transformation::try_convex_hull(&pts).map_err(|_| i)?;
            solids.push(ConvexPolyhedron::from_convex_mesh(vertices.clone(), &indices).ok_or(i)?);
            surfaces.push(
                TriMesh::with_flags(vertices, indices, TriMeshFlags::ORIENTED).map_err(|_| i)?,
            );
        }
        Ok(SourceShapes { surfaces, solids })
    }

    pub fn contains(&self, p: [f64; 3]) -> bool {
        self.surfaces
            .iter()
            .any(|s| s.contains_point(&Pose::identity(), to_parry(p)))
    }

    /// `(distance in metres along the unit direction, hull index)` of the first hit.
    pub fn ray(&self, origin: [f64; 3], dir: [f64; 3], max_m: f64) -> Option<(f64, usize)> {
        let len = (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]).sqrt();
        let ray = Ray::new(to_parry(origin), to_parry(dir.map(|c| c / len)));
        self.surfaces
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                s.cast_ray(&Pose::identity(), &ray, max_m as f32, false)
                    .map(|t| (f64::from(t), i))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
    }

    /// The hulls a capsule from `a` to `b` with `radius` (metres) intersects.
    pub fn capsule_hits(&self, a: [f64; 3], b: [f64; 3], radius: f64) -> Vec<usize> {
        let capsule = Capsule::new(to_parry(a), to_parry(b), radius as f32);
        (0..self.solids.len())
            .filter(|&i| {
                parry3d::query::intersection_test(
                    &Pose::identity(),
                    &capsule,
                    &Pose::identity(),
                    &self.solids[i],
                )
                .is_ok_and(|r| r.intersecting)
            })
            .collect()
    }
}
