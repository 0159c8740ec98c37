//! Every surface of a model as a flat polygon and plane, derived from the BSPs' winged
//! edges when the model is made. The MOPP index builds its boxes from it, and its ray
//! query's narrow phase reads a surface with two lookups instead of walking its edges.

use crate::bsp::CollisionBsp;
use crate::vec3::V3;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SurfaceTable {
    /// Per region, the table index of its first surface, and one past the last region.
    region_first: Vec<u32>,
    /// Per surface: its region and its index there.
    owners: Vec<(u16, u16)>,
    /// Per surface: the plane's normal and distance, in world units.
    planes: Vec<[f32; 4]>,
    /// Per surface, where its corners start in `corners`, and one past the last surface.
    corner_first: Vec<u32>,
    corners: Vec<[f32; 3]>,
}

/// The slack, in world units squared, by which a point may lie outside an edge and still
/// count as on its polygon: hits on a shared edge then belong to both surfaces.
const EDGE_SLACK: f64 = 1e-7;

impl SurfaceTable {
    pub fn new<'a>(bsps: impl IntoIterator<Item = &'a CollisionBsp>) -> SurfaceTable {
        let mut table = SurfaceTable::default();
        for (r, bsp) in bsps.into_iter().enumerate() {
            table.region_first.push(table.planes.len() as u32);
            for (s, surface) in bsp.surfaces.iter().enumerate() {
                table.owners.push((r as u16, s as u16));
                let plane = bsp.planes[surface.plane as usize];
                table
                    .planes
                    .push([plane.ijk[0], plane.ijk[1], plane.ijk[2], plane.d]);
                table.corner_first.push(table.corners.len() as u32);
                table.corners.extend(
                    bsp.surface_polygon(s as u16)
                        .iter()
                        .map(|&v| bsp.vertices[v as usize].point),
                );
            }
        }
        table.region_first.push(table.planes.len() as u32);
        table.corner_first.push(table.corners.len() as u32);
        table
    }

    /// The table index of a region's surface, if it has one.
    #[inline]
    pub fn find(&self, region: u16, surface: u16) -> Option<usize> {
        let first = *self.region_first.get(usize::from(region))?;
        let end = *self.region_first.get(usize::from(region) + 1)?;
        let at = first + u32::from(surface);
        (at < end).then_some(at as usize)
    }

    /// Like [`find`](Self::find), trying `slot` first: a MOPP index built from this model
    /// numbers its primitives in table order. The guess costs no read that waits on
    /// another, where `find` reads the region's first slot before the surface's data.
    #[inline]
    pub fn find_from(&self, slot: usize, region: u16, surface: u16) -> Option<usize> {
        if self.owners.get(slot) == Some(&(region, surface)) {
            Some(slot)
        } else {
            self.find(region, surface)
        }
    }

    /// The surface's outward normal and its distance from the origin (world units).
    #[inline]
    pub fn plane(&self, surface: usize) -> (V3, f64) {
        let [i, j, k, d] = self.planes[surface];
        ([i, j, k].map(f64::from), f64::from(d))
    }

    /// The surface's corners in order (world units); empty when its edges do not close.
    pub fn corners(&self, surface: usize) -> &[[f32; 3]] {
        let (from, to) = (self.corner_first[surface], self.corner_first[surface + 1]);
        &self.corners[from as usize..to as usize]
    }

    /// Whether `at`, a point on the surface's plane, is on its convex polygon: within
    /// `EDGE_SLACK` of the inside of every edge, seen along `normal` (a unit vector).
    #[inline]
    pub fn contains(&self, surface: usize, at: V3, normal: V3) -> bool {
        let corners = self.corners(surface);
        let abs = normal.map(f64::abs);
        // Projected along the normal's largest component, so that no edge degenerates.
        if abs[0] >= abs[1] && abs[0] >= abs[2] {
            contains_projected::<0>(corners, at, normal)
        } else if abs[1] >= abs[2] {
            contains_projected::<1>(corners, at, normal)
        } else {
            contains_projected::<2>(corners, at, normal)
        }
    }
}

/// The polygon test in the plane's projection along axis `K`. For a point on the plane,
/// the 3D test's `cross(b - a, at - a) · normal` is the 2D cross product over `normal[K]`;
/// multiplying through by `normal[K]²` keeps the test the same without a division.
#[inline(always)]
fn contains_projected<const K: usize>(corners: &[[f32; 3]], at: V3, normal: V3) -> bool {
    let (u, v) = ((K + 1) % 3, (K + 2) % 3);
    let Some(last) = corners.last() else {
        return false;
    };
    let nk = normal[K];
    let least = -EDGE_SLACK * nk * nk;
    let (pu, pv) = (at[u], at[v]);
    let (mut au, mut av) = (f64::from(last[u]), f64::from(last[v]));
    corners.iter().all(|b| {
        let (bu, bv) = (f64::from(b[u]), f64::from(b[v]));
        let side = (bu - au) * (pv - av) - (bv - av) * (pu - au);
        (au, av) = (bu, bv);
        side * nk >= least
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CollisionModel;

    #[test]
    fn matches_the_winged_edges_of_every_region() {
        let cube: Vec<[f64; 3]> = (0..8)
            .map(|i| [(i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64])
            .collect();
        let moved: Vec<[f64; 3]> = cube.iter().map(|p| [p[0] + 3.0, p[1], p[2]]).collect();
        let hulls = [
            crate::hull::build("a", "steel", &cube).unwrap(),
            crate::hull::build("b", "steel", &moved).unwrap(),
        ];
        let model = CollisionModel::build(&hulls).unwrap();
        let table = SurfaceTable::new(model.regions.iter().map(|r| &r.bsp));
        for (r, region) in model.regions.iter().enumerate() {
            let bsp = &region.bsp;
            for s in 0..bsp.surfaces.len() {
                let at = table.find(r as u16, s as u16).unwrap();
                assert_eq!(table.find_from(at, r as u16, s as u16), Some(at));
                assert_eq!(table.find_from(0, r as u16, s as u16), Some(at));
                let polygon = bsp.surface_polygon(s as u16);
                assert_eq!(table.corners(at).len(), polygon.len());
                let plane = bsp.planes[bsp.surfaces[s].plane as usize];
                assert_eq!(table.plane(at).0, plane.ijk.map(f64::from));
                // The polygon's centre is on it; a point past its first corner is not.
                let n = polygon.len() as f64;
                let centre = [0, 1, 2].map(|i| {
                    polygon
                        .iter()
                        .map(|&v| f64::from(bsp.vertices[v as usize].point[i]))
                        .sum::<f64>()
                        / n
                });
                let (normal, _) = table.plane(at);
                assert!(table.contains(at, centre, normal));
                let corner = bsp.vertices[polygon[0] as usize].point.map(f64::from);
                let outside = [0, 1, 2].map(|i| corner[i] + (corner[i] - centre[i]));
                assert!(!table.contains(at, outside, normal));
            }
            assert_eq!(table.find(r as u16, bsp.surfaces.len() as u16), None);
        }
        assert_eq!(table.find(2, 0), None);
    }
}
