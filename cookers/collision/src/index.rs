//! The MOPP index of a collision model (`FMOP`): MOPP code over every surface of every
//! region, the map from primitive index to (region, surface), and the narrow phase that
//! turns candidates into a hit.

use crate::model::{CollisionModel, ModelHit};
use crate::mopp::Mopp;
use crate::vec3::{dot, length, scale, V3};
use crate::CollisionError;
use forge_bytes::{Reader, Writer};

pub const FORMAT_VERSION: u32 = 1;
const MAGIC: &[u8; 4] = b"FMOP";

#[derive(Debug, Clone, PartialEq)]
pub struct MoppIndex {
    pub mopp: Mopp,
    /// Primitive index to `(region, surface)`.
    pub primitives: Vec<(u16, u16)>,
}

impl MoppIndex {
    pub fn build(model: &CollisionModel) -> Result<MoppIndex, CollisionError> {
        // Primitives in table order, which the ray query's narrow phase relies on to find
        // a surface's slot at once.
        let table = model.surfaces();
        let primitives = (0..table.len()).map(|at| table.owner(at)).collect();
        let boxes: Vec<_> = (0..table.len())
            .map(|at| crate::vec3::bounds(table.corners(at).map(|c| c.map(f64::from))))
            .collect();
        Ok(MoppIndex {
            mopp: Mopp::build(&boxes)?,
            primitives,
        })
    }

    /// `(region, surface)` of primitives whose boxes may overlap `lo..hi` (pack metres).
    pub fn query_box_m(&self, lo: V3, hi: V3) -> Result<Vec<(u16, u16)>, forge_bytes::ReadError> {
        let found = self
            .mopp
            .query_box(forge_units::pack_to_blam(lo), forge_units::pack_to_blam(hi))?;
        found
            .into_iter()
            .map(|p| {
                self.primitives
                    .get(p as usize)
                    .copied()
                    .ok_or_else(|| format!("primitive {p} is not in the map").into())
            })
            .collect()
    }

    /// The first surface hit along a ray (pack metres): MOPP candidates, then an exact
    /// ray-polygon test on each.
    pub fn ray(
        &self,
        model: &CollisionModel,
        origin_m: V3,
        dir: V3,
        max_m: f64,
    ) -> Result<Option<ModelHit>, forge_bytes::ReadError> {
        let len = length(dir);
        if len == 0.0 || !len.is_finite() {
            return Ok(None);
        }
        let unit = scale(dir, 1.0 / len);
        let wu = forge_units::METRES_PER_WORLD_UNIT;
        let o = scale(origin_m, forge_units::WORLD_UNITS_PER_METRE);
        let max_t = max_m * forge_units::WORLD_UNITS_PER_METRE;
        let mut best: Option<ModelHit> = None;
        // Candidates come nearest subtree first; each hit shortens the ray for the rest.
        let table = model.surfaces();
        self.mopp.walk_ray(
            o,
            unit,
            max_t,
            #[inline(always)]
            |p, limit| {
                let &(region, surface) = self
                    .primitives
                    .get(p as usize)
                    .ok_or("primitive out of range")?;
                let at = table
                    .find_from(p as usize, region, surface)
                    .ok_or("the MOPP names a surface the model does not have")?;
                let (n, d) = table.plane(at);
                let denom = dot(n, unit);
                if denom >= 0.0 {
                    return Ok(limit); // Surfaces face out; a ray leaving through one does not hit it.
                }
                let t = (d - dot(n, o)) / denom;
                if !(0.0..=limit).contains(&t) {
                    return Ok(limit);
                }
                let point = [o[0] + unit[0] * t, o[1] + unit[1] * t, o[2] + unit[2] * t];
                // Equal distances keep the earlier primitive, as a sorted candidate list would.
                let closer = best.is_none_or(|b| {
                    t * wu < b.distance_m
                        || (t * wu == b.distance_m
                            && (region, surface) < (b.region as u16, b.surface))
                });
                if closer && table.contains(at, point, n) {
                    best = Some(ModelHit {
                        distance_m: t * wu,
                        region: region as usize,
                        surface,
                    });
                    return Ok(t);
                }
                Ok(limit)
            },
        )?;
        Ok(best)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.raw(MAGIC);
        w.u32(FORMAT_VERSION);
        w.f32s(&self.mopp.origin);
        w.f32(self.mopp.scale);
        w.u32(self.primitives.len() as u32);
        for (r, s) in &self.primitives {
            w.u16(*r);
            w.u16(*s);
        }
        w.u32(self.mopp.code.len() as u32);
        w.raw(&self.mopp.code);
        w.bytes
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<MoppIndex, forge_bytes::ReadError> {
        let mut r = Reader::new(bytes);
        r.magic(MAGIC, FORMAT_VERSION, "MOPP index")?;
        let origin = [r.f32()?, r.f32()?, r.f32()?];
        let scale = r.f32()?;
        if !(scale.is_finite() && scale > 0.0) || origin.iter().any(|c| !c.is_finite()) {
            return Err("the MOPP frame is not finite".into());
        }
        let n = r.u32()? as usize;
        if n.saturating_mul(4) > r.remaining() {
            return Err("primitive count exceeds the data".into());
        }
        let primitives = (0..n)
            .map(|_| Ok((r.u16()?, r.u16()?)))
            .collect::<Result<Vec<_>, forge_bytes::ReadError>>()?;
        let len = r.u32()? as usize;
        let code = r.take(len)?.to_vec();
        r.finish()?;
        let index = MoppIndex {
            mopp: Mopp {
                origin,
                scale,
                code,
            },
            primitives,
        };
        index.mopp.stats()?;
        Ok(index)
    }
}
