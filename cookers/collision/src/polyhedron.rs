//! Havok convex polyhedra (hkpConvexVerticesShape), one per hull, in world units.
//!
//! Vertices are stored transposed in blocks of four ("four vectors": x of 4 vertices, then
//! y, then z), the last block padded by repeating the last vertex. Each face has a plane
//! equation `[n, w]` with `n · x + w <= 0` inside. The convex radius is 0, so the shape
//! is exactly the hull and pieces keep their declared sizes; a positive radius would grow
//! every piece by it.

use crate::hull::ConvexHull;
use forge_bytes::{Reader, Writer};

pub const FORMAT_VERSION: u32 = 1;
const MAGIC: &[u8; 4] = b"FPOL";
pub const CONVEX_RADIUS: f32 = 0.0;

#[derive(Debug, Clone, PartialEq)]
pub struct Polyhedron {
    pub name: String,
    pub aabb_centre: [f32; 3],
    pub aabb_half_extents: [f32; 3],
    pub radius: f32,
    pub vertex_count: u16,
    /// `[x; 4], [y; 4], [z; 4]` per block of four vertices.
    pub four_vectors: Vec<[[f32; 4]; 3]>,
    pub planes: Vec<[f32; 4]>,
}

impl Polyhedron {
    pub fn build(hull: &ConvexHull) -> Polyhedron {
        let verts: Vec<[f64; 3]> = hull
            .vertices
            .iter()
            .map(|v| forge_units::pack_to_blam(*v))
            .collect();
        let (lo, hi) = crate::vec3::bounds(verts.iter().copied());
        let four_vectors = verts
            .chunks(4)
            .map(|chunk| {
                let get = |i: usize| chunk[i.min(chunk.len() - 1)];
                [0, 1, 2].map(|axis| [0, 1, 2, 3].map(|i| get(i)[axis] as f32))
            })
            .collect();
        let wu = forge_units::METRES_PER_WORLD_UNIT;
        let planes = hull
            .faces
            .iter()
            .map(|f| {
                [
                    f.plane.normal[0] as f32,
                    f.plane.normal[1] as f32,
                    f.plane.normal[2] as f32,
                    (-f.plane.offset / wu) as f32,
                ]
            })
            .collect();
        Polyhedron {
            name: hull.name.clone(),
            aabb_centre: [0, 1, 2].map(|a| ((lo[a] + hi[a]) / 2.0) as f32),
            aabb_half_extents: [0, 1, 2].map(|a| ((hi[a] - lo[a]) / 2.0) as f32),
            radius: CONVEX_RADIUS,
            vertex_count: verts.len() as u16,
            four_vectors,
            planes,
        }
    }

    /// The vertices, unpacked from the four vectors.
    pub fn vertices(&self) -> Vec<[f32; 3]> {
        self.four_vectors
            .iter()
            .flat_map(|fv| (0..4).map(move |i| [fv[0][i], fv[1][i], fv[2][i]]))
            .take(self.vertex_count as usize)
            .collect()
    }
}

pub fn to_bytes(polyhedra: &[Polyhedron]) -> Vec<u8> {
    let mut w = Writer::default();
    w.raw(MAGIC);
    w.u32(FORMAT_VERSION);
    w.u32(polyhedra.len() as u32);
    for p in polyhedra {
        w.string(&p.name);
        w.f32s(&p.aabb_centre);
        w.f32s(&p.aabb_half_extents);
        w.f32(p.radius);
        w.u16(p.vertex_count);
        w.u16(p.four_vectors.len() as u16);
        for fv in &p.four_vectors {
            for row in fv {
                w.f32s(row);
            }
        }
        w.u16(p.planes.len() as u16);
        for plane in &p.planes {
            w.f32s(plane);
        }
    }
    w.bytes
}

pub fn from_bytes(bytes: &[u8]) -> Result<Vec<Polyhedron>, forge_bytes::ReadError> {
    let mut r = Reader::new(bytes);
    r.magic(MAGIC, FORMAT_VERSION, "polyhedra file")?;
    let n = r.u32()? as usize;
    if n.saturating_mul(34) > r.remaining() {
        return Err("polyhedron count exceeds the data".into());
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.string()?;
        let f = |r: &mut Reader| -> Result<[f32; 3], forge_bytes::ReadError> {
            Ok([r.f32()?, r.f32()?, r.f32()?])
        };
        let aabb_centre = f(&mut r)?;
        let aabb_half_extents = f(&mut r)?;
        let radius = r.f32()?;
        let vertex_count = r.u16()?;
        let blocks = r.u16()? as usize;
        if blocks != (vertex_count as usize).div_ceil(4) || vertex_count > 255 {
            return Err(format!("polyhedron {name:?}: {vertex_count} vertices do not fit {blocks} four-vector blocks").into());
        }
        let mut four_vectors = Vec::with_capacity(blocks);
        for _ in 0..blocks {
            let mut fv = [[0.0f32; 4]; 3];
            for row in &mut fv {
                for x in row.iter_mut() {
                    *x = r.f32()?;
                }
            }
            four_vectors.push(fv);
        }
        let planes_n = r.u16()? as usize;
        if planes_n > 255 {
            return Err(format!("polyhedron {name:?} has {planes_n} planes").into());
        }
        let planes = (0..planes_n)
            .map(|_| Ok([r.f32()?, r.f32()?, r.f32()?, r.f32()?]))
            .collect::<Result<Vec<_>, forge_bytes::ReadError>>()?;
        out.push(Polyhedron {
            name,
            aabb_centre,
            aabb_half_extents,
            radius,
            vertex_count,
            four_vectors,
            planes,
        });
    }
    r.finish()?;
    Ok(out)
}
