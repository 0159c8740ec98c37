//! The static mesh asset (`FMSH`) and its binary form, writer and reader side by side.

use forge_bytes::Reader;
pub const FORMAT_VERSION: u32 = 1;
const MAGIC: &[u8; 4] = b"FMSH";
const VERTEX_BYTES: usize = 32;

/// A re-centred mesh in Unreal space: centimetres, left-handed, Z up.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticMesh {
    pub asset_path: String,
    /// Where the actor places this mesh relative to its root (the authored origin), in cm.
    pub offset_cm: [f64; 3],
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub uvs: Vec<[f32; 2]>,
    /// Wound for Unreal's front faces.
    pub triangles: Vec<[u32; 3]>,
    pub sections: Vec<MeshSection>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshSection {
    pub material: String,
    pub first_triangle: u32,
    pub triangle_count: u32,
}

impl StaticMesh {
    /// Bounds of the (re-centred) vertices, in cm.
    pub fn bounds_cm(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::MAX; 3];
        let mut hi = [f32::MIN; 3];
        for p in &self.positions {
            for i in 0..3 {
                lo[i] = lo[i].min(p[i]);
                hi[i] = hi[i].max(p[i]);
            }
        }
        (lo, hi)
    }

    /// A mesh vertex where the actor puts it: moved by the mesh offset, in pack space
    /// (metres, Z up). The checks and the previews both see the mesh through this, so
    /// what they test is where the game draws it.
    pub fn placed_m(&self, p: [f32; 3]) -> [f64; 3] {
        forge_units::unreal_to_pack([0, 1, 2].map(|i| f64::from(p[i]) + self.offset_cm[i]))
    }

    /// The placed mesh's bounds in pack space, as (low, high) corners.
    pub fn placed_bounds_m(&self) -> ([f64; 3], [f64; 3]) {
        let (lo, hi) = self.bounds_cm();
        let (a, b) = (self.placed_m(lo), self.placed_m(hi));
        // Unreal reflects Y, so a corner's low and high can swap.
        (
            [0, 1, 2].map(|i| a[i].min(b[i])),
            [0, 1, 2].map(|i| a[i].max(b[i])),
        )
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            64 + self.positions.len() * VERTEX_BYTES + self.triangles.len() * 12,
        );
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        put_str(&mut out, &self.asset_path);
        for c in self.offset_cm {
            out.extend_from_slice(&c.to_le_bytes());
        }
        let (lo, hi) = self.bounds_cm();
        for c in lo.iter().chain(&hi) {
            out.extend_from_slice(&c.to_le_bytes());
        }
        for n in [
            self.positions.len(),
            self.triangles.len(),
            self.sections.len(),
        ] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        for i in 0..self.positions.len() {
            for c in self.positions[i]
                .iter()
                .chain(&self.normals[i])
                .chain(&self.uvs[i])
            {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        for t in &self.triangles {
            for i in t {
                out.extend_from_slice(&i.to_le_bytes());
            }
        }
        for s in &self.sections {
            out.extend_from_slice(&s.first_triangle.to_le_bytes());
            out.extend_from_slice(&s.triangle_count.to_le_bytes());
            put_str(&mut out, &s.material);
        }
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<StaticMesh, forge_bytes::ReadError> {
        let mut r = Reader::new(bytes);
        if r.take(4)? != MAGIC {
            return Err("not a static mesh (bad magic)".into());
        }
        let version = r.u32()?;
        if version != FORMAT_VERSION {
            return Err(format!("static mesh version {version} is not {FORMAT_VERSION}").into());
        }
        let asset_path = r.string()?;
        let offset_cm = [r.f64()?, r.f64()?, r.f64()?];
        let stored_bounds = [r.f32()?, r.f32()?, r.f32()?, r.f32()?, r.f32()?, r.f32()?];
        let (v, t, s) = (r.u32()? as usize, r.u32()? as usize, r.u32()? as usize);
        if v.saturating_mul(VERTEX_BYTES)
            .saturating_add(t.saturating_mul(12))
            .saturating_add(s.saturating_mul(10))
            > r.remaining()
        {
            return Err("counts exceed the data".into());
        }
        let mut mesh = StaticMesh {
            asset_path,
            offset_cm,
            positions: Vec::with_capacity(v),
            normals: Vec::with_capacity(v),
            uvs: Vec::with_capacity(v),
            triangles: Vec::with_capacity(t),
            sections: Vec::with_capacity(s),
        };
        for _ in 0..v {
            mesh.positions.push([r.f32()?, r.f32()?, r.f32()?]);
            mesh.normals.push([r.f32()?, r.f32()?, r.f32()?]);
            mesh.uvs.push([r.f32()?, r.f32()?]);
        }
        for _ in 0..t {
            let tri = [r.u32()?, r.u32()?, r.u32()?];
            if tri.iter().any(|&i| i as usize >= v) {
                return Err("a triangle index is out of range".into());
            }
            mesh.triangles.push(tri);
        }
        for _ in 0..s {
            let first_triangle = r.u32()?;
            let triangle_count = r.u32()?;
            let material = r.string()?;
            if first_triangle as u64 + triangle_count as u64 > t as u64 {
                return Err("a section is out of range".into());
            }
            mesh.sections.push(MeshSection {
                material,
                first_triangle,
                triangle_count,
            });
        }
        if r.remaining() != 0 {
            return Err("trailing bytes".into());
        }
        let (lo, hi) = mesh.bounds_cm();
        let computed = [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]];
        if v > 0
            && computed
                .iter()
                .zip(&stored_bounds)
                .any(|(a, b)| a.to_bits() != b.to_bits())
        {
            return Err("the stored bounds do not match the vertices".into());
        }
        Ok(mesh)
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u16).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> StaticMesh {
        StaticMesh {
            asset_path: "/Game/MJOLNIR/Forge/demo/a/SM_a".into(),
            offset_cm: [0.0, -50.0, 25.0],
            positions: vec![[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 1.0]],
            normals: vec![[0.0, 0.0, 1.0]; 3],
            uvs: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
            triangles: vec![[0, 2, 1]],
            sections: vec![MeshSection {
                material: "steel".into(),
                first_triangle: 0,
                triangle_count: 1,
            }],
        }
    }

    #[test]
    fn round_trips_byte_for_byte() {
        let bytes = sample().to_bytes();
        let back = StaticMesh::from_bytes(&bytes).unwrap();
        assert_eq!(back, sample());
        assert_eq!(back.to_bytes(), bytes);
    }

    #[test]
    fn truncations_and_lies_are_errors() {
        let bytes = sample().to_bytes();
        for cut in 0..bytes.len() {
            assert!(
                StaticMesh::from_bytes(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        let mut huge = bytes.clone();
        let counts_at = 4 + 4 + 2 + sample().asset_path.len() + 24 + 24;
        huge[counts_at..counts_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(StaticMesh::from_bytes(&huge).is_err());
        let mut moved = bytes;
        let bounds_at = 4 + 4 + 2 + sample().asset_path.len() + 24;
        moved[bounds_at] ^= 1;
        assert_eq!(
            StaticMesh::from_bytes(&moved).unwrap_err().to_string(),
            "the stored bounds do not match the vertices"
        );
    }
}
