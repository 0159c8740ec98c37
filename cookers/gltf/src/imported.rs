//! The imported mesh and its binary form (`FGIM`, spec in `docs/formats/imported-mesh.md`).
//!
//! The writer and reader live side by side so they cannot drift; the reader checks every
//! count against the bytes that remain before allocating.

use crate::ImportError;
use forge_bytes::Reader;

pub const FORMAT_VERSION: u32 = 1;
const MAGIC: &[u8; 4] = b"FGIM";
const VERTEX_BYTES: usize = 64;

/// A triangle mesh in pack space: f64 metres, Z up, counter-clockwise front faces.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportedMesh {
    pub positions: Vec<[f64; 3]>,
    pub normals: Vec<[f64; 3]>,
    pub uvs: Vec<[f64; 2]>,
    pub triangles: Vec<[u32; 3]>,
    /// Material slots in first-use order; each covers a run of triangles.
    pub sections: Vec<Section>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub material: String,
    pub first_triangle: u32,
    pub triangle_count: u32,
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

impl ImportedMesh {
    /// Axis-aligned bounds `(min, max)`; `None` for an empty mesh.
    pub fn bounds(&self) -> Option<([f64; 3], [f64; 3])> {
        let first = *self.positions.first()?;
        Some(self.positions.iter().fold((first, first), |(lo, hi), p| {
            (
                [lo[0].min(p[0]), lo[1].min(p[1]), lo[2].min(p[2])],
                [hi[0].max(p[0]), hi[1].max(p[1]), hi[2].max(p[2])],
            )
        }))
    }

    pub fn triangle_area(&self, t: [u32; 3]) -> f64 {
        let [a, b, c] = t.map(|i| self.positions[i as usize]);
        let n = cross(sub(b, a), sub(c, a));
        (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt() / 2.0
    }

    /// Area-weighted vertex normals for vertices from `first_vertex`, using triangles from
    /// `first_triangle` (one primitive that came without normals).
    pub(crate) fn compute_normals(&mut self, first_vertex: usize, first_triangle: usize) {
        for t in &self.triangles[first_triangle..] {
            let [a, b, c] = t.map(|i| self.positions[i as usize]);
            let n = cross(sub(b, a), sub(c, a));
            for &i in t {
                let v = &mut self.normals[i as usize];
                for k in 0..3 {
                    v[k] += n[k];
                }
            }
        }
        for v in &mut self.normals[first_vertex..] {
            let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            if len > 0.0 {
                *v = v.map(|x| x / len);
            }
        }
    }

    pub(crate) fn add_section(&mut self, material: String, first: u32, count: u32) {
        if count > 0 {
            self.sections.push(Section {
                material,
                first_triangle: first,
                triangle_count: count,
            });
        }
    }

    pub(crate) fn finish(&mut self, file: &str) -> Result<(), ImportError> {
        if self.triangles.is_empty() {
            return Err(ImportError::new(
                "gltf_no_triangles",
                file,
                "the scene has no triangles to cook",
            ));
        }
        if !self
            .triangles
            .iter()
            .any(|&t| self.triangle_area(t) > 1e-12)
        {
            return Err(ImportError::new(
                "gltf_zero_area",
                file,
                "every triangle has zero area; nothing would render",
            ));
        }
        Ok(())
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            20 + self.positions.len() * VERTEX_BYTES + self.triangles.len() * 12,
        );
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        for n in [
            self.positions.len(),
            self.triangles.len(),
            self.sections.len(),
        ] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        for i in 0..self.positions.len() {
            for x in self.positions[i]
                .iter()
                .chain(&self.normals[i])
                .chain(&self.uvs[i])
            {
                out.extend_from_slice(&x.to_le_bytes());
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
            out.extend_from_slice(&(s.material.len() as u16).to_le_bytes());
            out.extend_from_slice(s.material.as_bytes());
        }
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<ImportedMesh, forge_bytes::ReadError> {
        let mut r = Reader::new(bytes);
        if r.take(4)? != MAGIC {
            return Err("not an imported mesh (bad magic)".into());
        }
        let version = r.u32()?;
        if version != FORMAT_VERSION {
            return Err(format!("imported mesh version {version} is not {FORMAT_VERSION}").into());
        }
        let (v, t, s) = (r.u32()? as usize, r.u32()? as usize, r.u32()? as usize);
        if v.saturating_mul(VERTEX_BYTES)
            .saturating_add(t.saturating_mul(12))
            > r.remaining()
        {
            return Err("counts exceed the data".into());
        }
        let mut mesh = ImportedMesh::default();
        for _ in 0..v {
            mesh.positions.push([r.f64()?, r.f64()?, r.f64()?]);
            mesh.normals.push([r.f64()?, r.f64()?, r.f64()?]);
            mesh.uvs.push([r.f64()?, r.f64()?]);
        }
        for _ in 0..t {
            let tri = [r.u32()?, r.u32()?, r.u32()?];
            if tri.iter().any(|&i| i as usize >= v) {
                return Err("a triangle index is out of range".into());
            }
            mesh.triangles.push(tri);
        }
        if s.saturating_mul(10) > r.remaining() {
            return Err("section count exceeds the data".into());
        }
        for _ in 0..s {
            let first_triangle = r.u32()?;
            let triangle_count = r.u32()?;
            let len = r.u16()? as usize;
            let material = String::from_utf8(r.take(len)?.to_vec())
                .map_err(|_| "a material name is not UTF-8")?;
            if first_triangle as u64 + triangle_count as u64 > t as u64 {
                return Err("a section is out of range".into());
            }
            mesh.sections.push(Section {
                material,
                first_triangle,
                triangle_count,
            });
        }
        if r.remaining() != 0 {
            return Err("trailing bytes".into());
        }
        Ok(mesh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ImportedMesh {
        ImportedMesh {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.5]],
            normals: vec![[0.0, 0.0, 1.0]; 3],
            uvs: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]],
            triangles: vec![[0, 1, 2]],
            sections: vec![Section {
                material: "steel".into(),
                first_triangle: 0,
                triangle_count: 1,
            }],
        }
    }

    #[test]
    fn round_trips_byte_for_byte() {
        let bytes = sample().to_bytes();
        let back = ImportedMesh::from_bytes(&bytes).unwrap();
        assert_eq!(back, sample());
        assert_eq!(back.to_bytes(), bytes);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = sample().to_bytes();
        for cut in 0..bytes.len() {
            assert!(
                ImportedMesh::from_bytes(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn huge_counts_do_not_allocate() {
        let mut bytes = sample().to_bytes();
        bytes[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(ImportedMesh::from_bytes(&bytes).is_err());
    }
}
