//! The collision model of a block (`FCOL`): its materials and one region per hull, each
//! with a single permutation holding that hull's BSP. Regions are all active at once, so
//! composite pieces keep their hulls apart and their apertures open.

use crate::box_tree::{BoxTree, Ray};
use crate::bsp::CollisionBsp;
use crate::hull::ConvexHull;
use crate::surface_table::SurfaceTable;
use crate::vec3::{scale, V3};
use crate::CollisionError;
use forge_bytes::{Reader, Writer};

pub const FORMAT_VERSION: u32 = 1;
const MAGIC: &[u8; 4] = b"FCOL";

#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    /// The hull's name.
    pub name: String,
    pub permutation: String,
    pub bsp: CollisionBsp,
    /// The BSP's vertex bounds in world units; derived, not stored.
    pub bounds_wu: ([f32; 3], [f32; 3]),
}

impl Region {
    /// The region's vertex bounds in world units, as f64.
    fn bounds(&self) -> (V3, V3) {
        (
            self.bounds_wu.0.map(f64::from),
            self.bounds_wu.1.map(f64::from),
        )
    }

    pub fn new(name: String, permutation: String, bsp: CollisionBsp) -> Region {
        let bounds_wu = bsp.bounds_wu();
        Region {
            name,
            permutation,
            bsp,
            bounds_wu,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CollisionModel {
    /// Collision material names, sorted; surfaces index into this list.
    pub materials: Vec<String>,
    pub regions: Vec<Region>,
    /// The regions' boxes; derived, not stored.
    tree: BoxTree,
    /// Every region's surfaces as flat polygons; derived, not stored.
    surfaces: SurfaceTable,
}

/// A ray's first hit in a model, in pack-space metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelHit {
    pub distance_m: f64,
    pub region: usize,
    pub surface: u16,
}

impl CollisionModel {
    pub fn new(materials: Vec<String>, regions: Vec<Region>) -> CollisionModel {
        let boxes: Vec<(V3, V3)> = regions.iter().map(Region::bounds).collect();
        CollisionModel {
            surfaces: SurfaceTable::new(regions.iter().map(|r| &r.bsp)),
            materials,
            regions,
            tree: BoxTree::build(&boxes),
        }
    }

    pub fn surfaces(&self) -> &SurfaceTable {
        &self.surfaces
    }

    pub fn build(hulls: &[ConvexHull]) -> Result<CollisionModel, CollisionError> {
        let mut materials: Vec<String> = hulls.iter().map(|h| h.material.clone()).collect();
        materials.sort();
        materials.dedup();
        let regions = hulls
            .iter()
            .map(|h| {
                let material = materials
                    .binary_search(&h.material)
                    .expect("collected above") as i16;
                Ok(Region::new(
                    h.name.clone(),
                    "base".into(),
                    CollisionBsp::build(h, material)?,
                ))
            })
            .collect::<Result<_, CollisionError>>()?;
        Ok(CollisionModel::new(materials, regions))
    }

    /// Whether a pack-space point (metres) is inside any region's solid.
    pub fn contains(&self, p_m: V3) -> bool {
        let p = forge_units::pack_to_blam(p_m);
        self.regions.iter().any(|r| r.bsp.contains(p))
    }

    /// The regions whose solid holds a pack-space point (metres).
    pub fn regions_containing(&self, p_m: V3) -> Vec<usize> {
        let p = forge_units::pack_to_blam(p_m);
        (0..self.regions.len())
            .filter(|&r| self.regions[r].bsp.contains(p))
            .collect()
    }

    /// The first hit along a ray from `origin_m` in direction `dir` (any length; the
    /// distance is measured along the unit direction), up to `max_m` metres.
    pub fn ray(&self, origin_m: V3, dir: V3, max_m: f64) -> Option<ModelHit> {
        let len = crate::vec3::length(dir);
        if len == 0.0 || !len.is_finite() {
            return None;
        }
        let unit = scale(dir, 1.0 / len);
        let wu = forge_units::METRES_PER_WORLD_UNIT;
        let o = scale(origin_m, forge_units::WORLD_UNITS_PER_METRE);
        let mut best: Option<ModelHit> = None;
        // Regions are visited nearest box first; a hit shortens the ray for the rest.
        self.tree.walk_ray(
            &Ray::new(o, unit),
            max_m * forge_units::WORLD_UNITS_PER_METRE,
            |i, (entry, exit), limit| {
                // Outside its box the ray is in empty space, so the BSP walk covers the box.
                match self.regions[i]
                    .bsp
                    .ray_between(o, unit, entry, exit.min(limit))
                {
                    Some(h) if best.is_none_or(|b| h.t * wu < b.distance_m) => {
                        best = Some(ModelHit {
                            distance_m: h.t * wu,
                            region: i,
                            surface: h.surface,
                        });
                        h.t
                    }
                    _ => limit,
                }
            },
        );
        best
    }

    /// Pack-space bounds (metres) of every region's vertices.
    pub fn bounds_m(&self) -> Option<(V3, V3)> {
        if self.regions.is_empty() {
            return None;
        }
        let (lo, hi) = crate::vec3::union(self.regions.iter().map(Region::bounds));
        Some((forge_units::blam_to_pack(lo), forge_units::blam_to_pack(hi)))
    }

    pub fn surface_count(&self) -> usize {
        self.surfaces.len()
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.raw(MAGIC);
        w.u32(FORMAT_VERSION);
        w.u32(self.materials.len() as u32);
        for m in &self.materials {
            w.string(m);
        }
        w.u32(self.regions.len() as u32);
        for r in &self.regions {
            w.string(&r.name);
            w.string(&r.permutation);
            r.bsp.write(&mut w);
        }
        w.bytes
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<CollisionModel, forge_bytes::ReadError> {
        let mut r = Reader::new(bytes);
        r.magic(MAGIC, FORMAT_VERSION, "collision model")?;
        let materials_n = r.u32()? as usize;
        if materials_n.saturating_mul(2) > r.remaining() {
            return Err("material count exceeds the data".into());
        }
        let materials = (0..materials_n)
            .map(|_| r.string())
            .collect::<Result<Vec<_>, _>>()?;
        let regions_n = r.u32()? as usize;
        if regions_n.saturating_mul(36) > r.remaining() {
            return Err("region count exceeds the data".into());
        }
        let mut regions = Vec::with_capacity(regions_n);
        for _ in 0..regions_n {
            let name = r.string()?;
            let permutation = r.string()?;
            let bsp = CollisionBsp::read(&mut r)?;
            if bsp
                .surfaces
                .iter()
                .any(|s| s.material < 0 || s.material as usize >= materials.len())
            {
                return Err(
                    format!("region {name:?} has a surface with an unknown material").into(),
                );
            }
            regions.push(Region::new(name, permutation, bsp));
        }
        r.finish()?;
        Ok(CollisionModel::new(materials, regions))
    }
}
