//! Every surface of a model as a flat polygon and plane, derived from the BSPs' winged
//! edges when the model is made. The MOPP index builds its boxes from it, and its ray
//! query's narrow phase reads a candidate surface from one slot instead of walking its
//! edges through several tables.

use crate::bsp::CollisionBsp;
use crate::vec3::V3;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SurfaceTable {
    /// Per region, the table index of its first surface, and one past the last region.
    region_first: Vec<u32>,
    slots: Vec<Slot>,
    /// Corners past the third of every surface, in order.
    more_corners: Vec<[f32; 3]>,
}

/// One surface in one cache line: all that the narrow phase reads of a triangle, so
/// testing one is a single read from memory rather than a read that waits on another.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C, align(64))]
struct Slot {
    /// The plane's normal and distance from the origin, in world units.
    plane: [f32; 4],
    /// The first three corners, in order (world units).
    corners: [[f32; 3]; 3],
    /// The region and the surface's index there.
    owner: (u16, u16),
    /// Where the corners past the third start in `more_corners`.
    more_first: u32,
    /// How many corners; none when the surface's edges do not close.
    count: u32,
}

/// The slack, in world units squared, by which a point may lie outside an edge and still
/// count as on its polygon: hits on a shared edge then belong to both surfaces.
const EDGE_SLACK: f64 = 1e-7;

impl SurfaceTable {
    pub fn new<'a>(bsps: impl IntoIterator<Item = &'a CollisionBsp>) -> SurfaceTable {
        let mut table = SurfaceTable::default();
        let mut polygon = Vec::new();
        for (r, bsp) in bsps.into_iter().enumerate() {
            table.region_first.push(table.slots.len() as u32);
            for (s, surface) in bsp.surfaces.iter().enumerate() {
                let plane = bsp.planes[surface.plane as usize];
                bsp.surface_polygon_into(s as u16, &mut polygon);
                let mut slot = Slot {
                    plane: [plane.ijk[0], plane.ijk[1], plane.ijk[2], plane.d],
                    owner: (r as u16, s as u16),
                    more_first: table.more_corners.len() as u32,
                    count: polygon.len() as u32,
                    ..Slot::default()
                };
                for (i, &v) in polygon.iter().enumerate() {
                    let point = bsp.vertices[v as usize].point;
                    match slot.corners.get_mut(i) {
                        Some(corner) => *corner = point,
                        None => table.more_corners.push(point),
                    }
                }
                table.slots.push(slot);
            }
        }
        table.region_first.push(table.slots.len() as u32);
        table
    }

    /// How many surfaces, over all regions.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The region of the surface in `slot`, and its index there.
    pub fn owner(&self, slot: usize) -> (u16, u16) {
        self.slots[slot].owner
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
        if self
            .slots
            .get(slot)
            .is_some_and(|s| s.owner == (region, surface))
        {
            Some(slot)
        } else {
            self.find(region, surface)
        }
    }

    /// The surface's outward normal and its distance from the origin (world units).
    #[inline]
    pub fn plane(&self, slot: usize) -> (V3, f64) {
        let [i, j, k, d] = self.slots[slot].plane;
        ([i, j, k].map(f64::from), f64::from(d))
    }

    /// The surface's corners in order (world units); none when its edges do not close.
    pub fn corners(&self, slot: usize) -> impl Iterator<Item = [f32; 3]> + '_ {
        let surface = &self.slots[slot];
        let count = surface.count as usize;
        let more = surface.more_first as usize;
        let more = &self.more_corners[more..more + count.saturating_sub(3)];
        surface.corners[..count.min(3)].iter().chain(more).copied()
    }

    /// Whether `at`, a point on the surface's plane, is on its convex polygon: within
    /// `EDGE_SLACK` of the inside of every edge, seen along `normal` (a unit vector).
    #[inline]
    pub fn contains(&self, slot: usize, at: V3, normal: V3) -> bool {
        let surface = &self.slots[slot];
        // Triangles, the most common surfaces, get their own copy of the test.
        if surface.count == 3 {
            return contains_on_axis(surface.corners[2], surface.corners, at, normal);
        }
        let last = match surface.count {
            0 => return false,
            n @ 1..=3 => surface.corners[n as usize - 1],
            n => self.more_corners[(surface.more_first + n - 4) as usize],
        };
        contains_on_axis(last, self.corners(slot), at, normal)
    }
}

/// Projected along the normal's largest component, so that no edge degenerates.
#[inline(always)]
fn contains_on_axis(
    last: [f32; 3],
    corners: impl IntoIterator<Item = [f32; 3]>,
    at: V3,
    normal: V3,
) -> bool {
    let abs = normal.map(f64::abs);
    if abs[0] >= abs[1] && abs[0] >= abs[2] {
        contains_projected::<0>(last, corners, at, normal)
    } else if abs[1] >= abs[2] {
        contains_projected::<1>(last, corners, at, normal)
    } else {
        contains_projected::<2>(last, corners, at, normal)
    }
}

/// The polygon test in the plane's projection along axis `K`. For a point on the plane,
/// the 3D test's `cross(b - a, at - a) · normal` is the 2D cross product over `normal[K]`;
/// multiplying through by `normal[K]²` keeps the test the same without a division.
#[inline(always)]
fn contains_projected<const K: usize>(
    last: [f32; 3],
    corners: impl IntoIterator<Item = [f32; 3]>,
    at: V3,
    normal: V3,
) -> bool {
    let (u, v) = ((K + 1) % 3, (K + 2) % 3);
    let nk = normal[K];
    let least = -EDGE_SLACK * nk * nk;
    let (pu, pv) = (at[u], at[v]);
    let (mut au, mut av) = (f64::from(last[u]), f64::from(last[v]));
    corners.into_iter().all(|b| {
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
        // A hexagonal prism: its caps have corners past the three a slot holds.
        let prism: Vec<[f64; 3]> = (0..12)
            .map(|i| {
                let a = (i % 6) as f64 * std::f64::consts::TAU / 6.0;
                [3.0 + a.cos(), a.sin(), (i / 6) as f64]
            })
            .collect();
        let hulls = [
            crate::hull::build("a", "steel", &cube).unwrap(),
            crate::hull::build("b", "steel", &prism).unwrap(),
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
                assert_eq!(table.corners(at).count(), polygon.len());
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
            let most = (0..bsp.surfaces.len()).map(|s| bsp.surface_polygon(s as u16).len());
            assert_eq!(most.max(), Some([4, 6][r]));
        }
        assert_eq!(table.find(2, 0), None);
    }
}
