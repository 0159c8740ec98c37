//! The cooked UStaticMesh export of UE 5.8 (layout in `docs/formats/zen-package.md`):
//! tagged properties, then the native part — strip flags, the cooked flag, body setup and
//! nav collision indices, lighting guid, sockets, the render data (LODs, Nanite, cards,
//! distance fields, bounds, screen sizes), speed-tree flag and the static materials.
//!
//! [`MeshExport::read`] splits an export into those parts, walking every LOD's buffers;
//! [`MeshExport::with_geometry`] swaps the render data for one LOD built from our mesh and
//! keeps everything a donor decides (materials, strip flags, sockets, screen sizes).

use forge_bytes::{Reader, Writer};

use crate::error::{PackageError, Result};
use crate::names::MappedName;
use crate::properties::{ObjectProperties, TagList};

/// One LOD's geometry in Unreal space: centimetres, left-handed, front faces wound as
/// Unreal expects.
#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub uvs: Vec<[f32; 2]>,
    pub triangles: Vec<[u32; 3]>,
    /// (material slot, first triangle, triangle count) per section.
    pub sections: Vec<(u32, u32, u32)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bounds {
    pub origin: [f64; 3],
    pub extent: [f64; 3],
    pub radius: f64,
}

impl Bounds {
    pub fn of(positions: &[[f32; 3]]) -> Bounds {
        let mut lo = [f64::MAX; 3];
        let mut hi = [f64::MIN; 3];
        for p in positions {
            for k in 0..3 {
                lo[k] = lo[k].min(f64::from(p[k]));
                hi[k] = hi[k].max(f64::from(p[k]));
            }
        }
        if positions.is_empty() {
            (lo, hi) = ([0.0; 3], [0.0; 3]);
        }
        let origin = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
        let extent = [0, 1, 2].map(|k| (hi[k] - lo[k]) / 2.0);
        let radius = positions
            .iter()
            .map(|p| {
                (0..3)
                    .map(|k| (f64::from(p[k]) - origin[k]).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .fold(0.0, f64::max);
        Bounds {
            origin,
            extent,
            radius,
        }
    }

    fn read(r: &mut Reader) -> forge_bytes::Result<Bounds> {
        let mut v = [0.0; 7];
        for x in &mut v {
            *x = r.f64()?;
        }
        Ok(Bounds {
            origin: [v[0], v[1], v[2]],
            extent: [v[3], v[4], v[5]],
            radius: v[6],
        })
    }

    fn write(&self, w: &mut Writer) {
        for x in self.origin.iter().chain(&self.extent).chain([&self.radius]) {
            w.raw(&x.to_le_bytes());
        }
    }
}

/// A static mesh export taken apart. Byte runs the pipeline never edits stay bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshExport {
    pub properties: ObjectProperties,
    /// bHasGuid and the guid, as read.
    pub object_guid: Vec<u8>,
    /// Strip flags through the sockets array.
    pub head: Vec<u8>,
    pub lods: Vec<Lod>,
    pub nanite: Vec<u8>,
    pub ray_tracing_proxy: u32,
    pub card_strip: [u8; 2],
    /// Per LOD: bValid and, when valid, the card data.
    pub cards: Vec<Vec<u8>>,
    pub distance_field_strip: [u8; 2],
    pub bounds: Bounds,
    pub render_flags: u8,
    /// Eight cooked per-platform screen sizes and the trailing strip flags.
    pub screen_sizes_and_strip: Vec<u8>,
    /// bHasSpeedTreeWind through the static materials: the donor's material slots.
    pub materials: Vec<u8>,
    pub material_count: u32,
}

/// One LOD: its bytes, and the parts a test or an edit needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Lod {
    pub bytes: Vec<u8>,
    pub strip: [u8; 2],
    pub buffer_strip: [u8; 2],
    pub positions: Vec<[f32; 3]>,
    pub sections: Vec<(u32, u32, u32)>,
}

fn bad(why: impl Into<String>) -> PackageError {
    PackageError::new("package_static_mesh", why)
}

fn e(error: forge_bytes::ReadError) -> PackageError {
    PackageError::read("static mesh", error)
}

fn bool32(r: &mut Reader, what: &str) -> Result<bool> {
    match r.u32().map_err(e)? {
        0 => Ok(false),
        1 => Ok(true),
        n => Err(bad(format!("{what} is {n}, not a 0 or 1 bool"))),
    }
}

fn strip(r: &mut Reader) -> Result<[u8; 2]> {
    Ok(r.take(2).map_err(e)?.try_into().expect("2 bytes"))
}

/// An int32 count then that many `size`-byte items; returns the count.
fn skip_array(r: &mut Reader, size: u64) -> Result<usize> {
    let declared = r.u32().map_err(e)?;
    let n = r.fits(u64::from(declared), size).map_err(e)?;
    r.take(n * size as usize).map_err(e)?;
    Ok(n)
}

/// A bulk array: element size, count, the bytes.
fn bulk<'a>(r: &mut Reader<'a>) -> Result<(u32, &'a [u8])> {
    let size = r.u32().map_err(e)?;
    let declared = r.u32().map_err(e)?;
    let n = r.fits(u64::from(declared), u64::from(size)).map_err(e)?;
    Ok((size, r.take(n * size as usize).map_err(e)?))
}

const EDITOR_STRIPPED: u8 = 1;
const RENDER_STRIPPED: u8 = 2;

impl MeshExport {
    pub fn read(bytes: &[u8], none: usize) -> Result<MeshExport> {
        let mut r = Reader::new(bytes);
        let properties = ObjectProperties::read(&mut r, none)?;
        let guid_at = r.position();
        if bool32(&mut r, "bHasGuid")? {
            r.take(16).map_err(e)?;
        }
        let object_guid = bytes[guid_at..r.position()].to_vec();
        let head_at = r.position();
        let [global, _] = strip(&mut r)?;
        if global & EDITOR_STRIPPED == 0 || global & RENDER_STRIPPED != 0 {
            return Err(bad(format!("strip flags {global:#x}: the donor must be cooked with editor data stripped and render data kept")));
        }
        if !bool32(&mut r, "bCooked")? {
            return Err(bad("the donor mesh is not cooked (bCooked 0)"));
        }
        r.take(8 + 16).map_err(e)?;
        skip_array(&mut r, 4)?;
        let head = bytes[head_at..r.position()].to_vec();
        let declared = r.u32().map_err(e)?;
        let lod_count = r.fits(u64::from(declared), 64).map_err(e)?;
        let lods = (0..lod_count)
            .map(|_| read_lod(&mut r, bytes))
            .collect::<Result<Vec<_>>>()?;
        let _inlined = r.u8().map_err(e)?;
        let nanite_at = r.position();
        skip_nanite(&mut r)?;
        let nanite = bytes[nanite_at..r.position()].to_vec();
        let ray_tracing_proxy = r.u32().map_err(e)?;
        let card_strip = strip(&mut r)?;
        let cards = (0..lod_count)
            .map(|_| read_card(&mut r, bytes))
            .collect::<Result<Vec<_>>>()?;
        let distance_field_strip = strip(&mut r)?;
        for _ in 0..lod_count {
            if bool32(&mut r, "distance field bValid")? {
                return Err(bad(
                    "the donor has distance field data; choose a donor cooked without it",
                ));
            }
        }
        let bounds = Bounds::read(&mut r).map_err(e)?;
        let render_flags = r.u8().map_err(e)?;
        let sizes_at = r.position();
        for _ in 0..8 {
            bool32(&mut r, "ScreenSize bCooked")?;
            r.f32().map_err(e)?;
        }
        strip(&mut r)?;
        let screen_sizes_and_strip = bytes[sizes_at..r.position()].to_vec();
        let materials_at = r.position();
        bool32(&mut r, "bHasSpeedTreeWind")?;
        let material_count = skip_array(&mut r, 40)? as u32;
        let materials = bytes[materials_at..].to_vec();
        r.finish().map_err(|_| {
            bad(format!(
                "{} bytes follow the static materials",
                r.remaining()
            ))
        })?;
        Ok(MeshExport {
            properties,
            object_guid,
            head,
            lods,
            nanite,
            ray_tracing_proxy,
            card_strip,
            cards,
            distance_field_strip,
            bounds,
            render_flags,
            screen_sizes_and_strip,
            materials,
            material_count,
        })
    }

    /// The Nanite block's StreamablePages: its bulk data map index, and where in this
    /// export's bytes its (inline) data starts, right after the index, as Unreal records
    /// it in the map. SM_Fixture's empty entry 2 is at 2317, which this gives.
    pub fn nanite_bulk(&self) -> Option<(usize, i64)> {
        let index = i32::from_le_bytes(self.nanite.get(6..10)?.try_into().ok()?);
        let mut w = Writer::default();
        self.properties.write(&mut w);
        let before = w.bytes.len()
            + self.object_guid.len()
            + self.head.len()
            + 4
            + self.lods.iter().map(|l| l.bytes.len()).sum::<usize>()
            + 1;
        Some((usize::try_from(index).ok()?, (before + 10) as i64))
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        self.properties.write(&mut w);
        w.raw(&self.object_guid);
        w.raw(&self.head);
        w.u32(self.lods.len() as u32);
        self.lods.iter().for_each(|l| w.raw(&l.bytes));
        w.u8(self.lods.len() as u8);
        w.raw(&self.nanite);
        w.u32(self.ray_tracing_proxy);
        w.raw(&self.card_strip);
        self.cards.iter().for_each(|c| w.raw(c));
        w.raw(&self.distance_field_strip);
        for _ in &self.lods {
            w.u32(0);
        }
        self.bounds.write(&mut w);
        w.u8(self.render_flags);
        w.raw(&self.screen_sizes_and_strip);
        w.raw(&self.materials);
        w.bytes
    }

    /// The same export with one LOD built from `geometry`. Sections name material slots
    /// past the donor's last one as its last one. The LOD has no Lumen card (bValid 0).
    pub fn with_geometry(&self, geometry: &Geometry) -> Result<MeshExport> {
        let donor = self
            .lods
            .first()
            .ok_or_else(|| bad("the donor mesh has no LOD"))?;
        let last_slot = self.material_count.saturating_sub(1);
        let mut geometry = geometry.clone();
        for s in &mut geometry.sections {
            s.0 = s.0.min(last_slot);
        }
        let bounds = Bounds::of(&geometry.positions);
        let lod = write_lod(&geometry, &bounds, donor.strip, donor.buffer_strip)?;
        Ok(MeshExport {
            lods: vec![lod],
            cards: vec![0u32.to_le_bytes().to_vec()],
            bounds,
            ..self.clone()
        })
    }
}

impl MeshExport {
    /// Whether the Nanite block holds root data (strip flags, resource flags and the
    /// streamable-pages index come before the RootData array's count).
    pub fn has_nanite(&self) -> bool {
        self.nanite.get(10..14).is_some_and(|c| c != [0; 4])
    }
}

fn read_lod(r: &mut Reader, bytes: &[u8]) -> Result<Lod> {
    let at = r.position();
    let lod_strip = strip(r)?;
    let declared = r.u32().map_err(e)?;
    let n = r.fits(u64::from(declared), 40).map_err(e)?;
    let mut sections = Vec::with_capacity(n);
    for _ in 0..n {
        let material = r.u32().map_err(e)?;
        let first_index = r.u32().map_err(e)?;
        let triangles = r.u32().map_err(e)?;
        r.take(28).map_err(e)?;
        sections.push((material, first_index / 3, triangles));
    }
    Bounds::read(r).map_err(e)?;
    r.f32().map_err(e)?;
    let cooked_out = bool32(r, "bIsLODCookedOut")?;
    let inlined = bool32(r, "bInlined")?;
    let mut positions = Vec::new();
    let mut buffer_strip = [0; 2];
    if lod_strip[0] & RENDER_STRIPPED == 0 && !cooked_out {
        if bool32(r, "bHasRayTracingGeometry")? {
            return Err(bad("LODs with ray-tracing geometry are not supported"));
        }
        if !inlined {
            return Err(bad(
                "LODs stored outside the export (bInlined 0) are not supported",
            ));
        }
        (positions, buffer_strip) = read_buffers(r, lod_strip[1], sections.len())?;
    }
    r.take(12).map_err(e)?;
    Ok(Lod {
        bytes: bytes[at..r.position()].to_vec(),
        strip: lod_strip,
        buffer_strip,
        positions,
        sections,
    })
}

const CLASS_NO_REVERSED: u8 = 4;
const CLASS_NO_RAY_TRACING: u8 = 8;

fn read_buffers(r: &mut Reader, class: u8, sections: usize) -> Result<(Vec<[f32; 3]>, [u8; 2])> {
    let buffer_strip = strip(r)?;
    r.u32().map_err(e)?;
    r.u32().map_err(e)?;
    let (size, raw) = bulk(r)?;
    if size != 12 {
        return Err(bad(format!("position elements of {size} bytes, not 12")));
    }
    let positions = raw
        .chunks(12)
        .map(|c| [0, 4, 8].map(|o| f32::from_le_bytes(c[o..o + 4].try_into().expect("4 bytes"))))
        .collect();
    strip(r)?;
    r.take(16).map_err(e)?;
    bulk(r)?;
    bulk(r)?;
    strip(r)?;
    r.u32().map_err(e)?;
    if r.u32().map_err(e)? > 0 {
        bulk(r)?;
    }
    for _ in 0..index_buffer_count(class) {
        r.u32().map_err(e)?;
        bulk(r)?;
        r.u32().map_err(e)?;
    }
    if buffer_strip[0] & EDITOR_STRIPPED == 0 {
        return Err(bad("buffers with editor data are not supported"));
    }
    if class & CLASS_NO_RAY_TRACING == 0 {
        return Err(bad(
            "LOD buffers with ray-tracing geometry are not supported",
        ));
    }
    for _ in 0..=sections {
        skip_array(r, 4)?;
        skip_array(r, 4)?;
        r.f32().map_err(e)?;
    }
    Ok((positions, buffer_strip))
}

/// The main and depth-only index buffers, and their reversed forms unless stripped.
fn index_buffer_count(class: u8) -> usize {
    2 + usize::from(class & CLASS_NO_REVERSED == 0) * 2
}

fn skip_nanite(r: &mut Reader) -> Result<()> {
    strip(r)?;
    r.take(8).map_err(e)?;
    for size in [1, 20, 240, 4, 2, 48, 4, 4, 4] {
        skip_array(r, size)?;
    }
    r.take(28 + 12 + 12 + 8 + 4).map_err(e)?;
    Ok(())
}

fn read_card(r: &mut Reader, bytes: &[u8]) -> Result<Vec<u8>> {
    let at = r.position();
    if bool32(r, "card bValid")? {
        r.take(49 + 4).map_err(e)?;
        skip_array(r, 61)?;
    }
    Ok(bytes[at..r.position()].to_vec())
}

fn write_lod(
    g: &Geometry,
    bounds: &Bounds,
    lod_strip: [u8; 2],
    buffer_strip: [u8; 2],
) -> Result<Lod> {
    let n = g.positions.len();
    if g.normals.len() != n || g.uvs.len() != n {
        return Err(bad("positions, normals and UVs differ in count"));
    }
    if g.triangles.iter().flatten().any(|&i| i as usize >= n) {
        return Err(bad("a triangle names a vertex past the last"));
    }
    let mut w = Writer::default();
    w.raw(&lod_strip);
    w.u32(g.sections.len() as u32);
    for &(material, first, count) in &g.sections {
        let range = first as usize..first as usize + count as usize;
        let used = g
            .triangles
            .get(range)
            .ok_or_else(|| bad("a section runs past the last triangle"))?;
        let min = used.iter().flatten().min().copied().unwrap_or(0);
        let max = used.iter().flatten().max().copied().unwrap_or(0);
        for x in [material, first * 3, count, min, max, 1, 1, 0, 1, 1] {
            w.u32(x);
        }
    }
    bounds.write(&mut w);
    w.f32(0.0);
    w.u32(0); // bIsLODCookedOut
    w.u32(1); // bInlined
    w.u32(0); // bHasRayTracingGeometry
    let payload = write_buffers(&mut w, g, buffer_strip, lod_strip[1]);
    w.u32(payload);
    w.u32(0);
    w.u32(0);
    Ok(Lod {
        bytes: w.bytes,
        strip: lod_strip,
        buffer_strip,
        positions: g.positions.clone(),
        sections: g.sections.clone(),
    })
}

/// Writes the buffers; returns the raw payload size (positions, tangents, UVs, colours,
/// indices) that FStaticMeshBuffersSize records.
fn write_buffers(w: &mut Writer, g: &Geometry, buffer_strip: [u8; 2], class: u8) -> u32 {
    let n = g.positions.len() as u32;
    let plain = [buffer_strip[0], 0];
    w.raw(&buffer_strip);
    w.u32(12);
    w.u32(n);
    put_bulk(
        w,
        12,
        &g.positions
            .iter()
            .flatten()
            .flat_map(|c| c.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    w.raw(&plain);
    w.u32(2); // two UV channels: the second is the lightmap channel
    w.u32(n);
    w.u32(0);
    w.u32(0);
    let tangents: Vec<u8> = g.normals.iter().flat_map(|n| tangent_basis(*n)).collect();
    put_bulk(w, 8, &tangents);
    let uvs: Vec<u8> = g
        .uvs
        .iter()
        .flat_map(|uv| {
            let half: Vec<u8> = uv
                .iter()
                .flat_map(|c| half_bits(*c).to_le_bytes())
                .collect();
            [half.clone(), half].concat()
        })
        .collect();
    put_bulk(w, 4, &uvs);
    w.raw(&plain);
    w.u32(4);
    w.u32(0); // no vertex colours
    let wide = n > u32::from(u16::MAX);
    let indices: Vec<u8> = g
        .triangles
        .iter()
        .flatten()
        .flat_map(|&i| {
            if wide {
                i.to_le_bytes().to_vec()
            } else {
                (i as u16).to_le_bytes().to_vec()
            }
        })
        .collect();
    w.u32(u32::from(wide));
    put_bulk(w, 1, &indices);
    w.u32(0);
    // Empty reversed, depth-only and reversed depth-only index buffers, as the donor's
    // strip flags say which exist.
    for _ in 1..index_buffer_count(class) {
        w.u32(0);
        put_bulk(w, 1, &[]);
        w.u32(0);
    }
    for _ in 0..=g.sections.len() {
        w.raw(&[0; 12]);
    }
    (positions_bytes(n) + tangents.len() + uvs.len() + indices.len()) as u32
}

fn positions_bytes(n: u32) -> usize {
    n as usize * 12
}

fn put_bulk(w: &mut Writer, size: u32, bytes: &[u8]) {
    w.u32(size);
    w.u32(bytes.len() as u32 / size);
    w.raw(bytes);
}

/// TangentX then TangentZ as packed normals (signed bytes, 127 = 1.0); TangentZ's W is
/// the binormal sign. The tangent is any unit vector at right angles to the normal.
fn tangent_basis(normal: [f32; 3]) -> [u8; 8] {
    let [x, y, z] = normal;
    let helper = if x.abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let dot = helper[0] * x + helper[1] * y + helper[2] * z;
    let t = [
        helper[0] - dot * x,
        helper[1] - dot * y,
        helper[2] - dot * z,
    ];
    let len = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2])
        .sqrt()
        .max(f32::MIN_POSITIVE);
    let pack = |v: f32| (v.clamp(-1.0, 1.0) * 127.0).round() as i8 as u8;
    [
        pack(t[0] / len),
        pack(t[1] / len),
        pack(t[2] / len),
        pack(0.0),
        pack(x),
        pack(y),
        pack(z),
        pack(1.0),
    ]
}

/// IEEE half-precision bits, rounded to nearest, saturating to the largest finite half.
fn half_bits(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let magnitude = value.abs();
    if magnitude.is_nan() {
        return sign | 0x7e00;
    }
    if magnitude >= 65504.0 {
        return sign | 0x7bff;
    }
    if magnitude < 6.103_515_6e-5 {
        return sign | (magnitude / 5.960_464_5e-8).round() as u16;
    }
    let exponent = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mantissa = bits & 0x7f_ffff;
    let rounded = (mantissa + 0x1000) >> 13;
    sign | ((((exponent as u32) << 10) + rounded) as u16)
}

/// The names a slot's material is found by, in the package's name map.
pub struct SlotNames {
    pub static_materials: MappedName,
    pub material_interface: MappedName,
    pub none: usize,
}

impl MeshExport {
    /// Each material slot's name (its `MaterialSlotName`), as the package's name map holds
    /// it: what the game's slots are called, whichever materials the model named.
    pub fn slot_names(&self) -> Vec<MappedName> {
        (0..self.material_count as usize)
            .filter_map(|slot| {
                // bHasSpeedTreeWind and the array count, then 40 bytes a slot whose
                // MaterialSlotName follows the 4-byte MaterialInterface.
                let at = 8 + 40 * slot + 4;
                let mut r = Reader::new(self.materials.get(at..at + 8)?);
                MappedName::read(&mut r).ok()
            })
            .collect()
    }

    /// Points material slot `slot` at `material` (an FPackageIndex), in both places a
    /// cooked mesh keeps it: the `StaticMaterials` property and the native static
    /// materials. Returns the index it pointed at before.
    pub fn set_slot_material(
        &mut self,
        slot: usize,
        material: i32,
        names: &SlotNames,
    ) -> Result<i32> {
        if slot >= self.material_count as usize {
            return Err(bad(format!(
                "slot {slot} is past the donor's {} material slots",
                self.material_count
            )));
        }
        // bHasSpeedTreeWind and the array count, then 40 bytes a slot.
        let at = 8 + 40 * slot;
        let old = i32::from_le_bytes(self.materials[at..at + 4].try_into().expect("4 bytes"));
        self.materials[at..at + 4].copy_from_slice(&material.to_le_bytes());
        if let Some(tag) = self.properties.list.find_mut(names.static_materials) {
            let mut r = Reader::new(&tag.value);
            let count = r.u32().map_err(e)?;
            let mut elements = (0..count.min(self.material_count))
                .map(|_| TagList::read(&mut r, names.none))
                .collect::<Result<Vec<_>>>()?;
            r.finish().map_err(e)?;
            if let Some(field) = elements
                .get_mut(slot)
                .and_then(|el| el.find_mut(names.material_interface))
            {
                field.value = material.to_le_bytes().to_vec();
            }
            let mut w = Writer::default();
            w.u32(elements.len() as u32);
            elements.iter().for_each(|el| el.write(&mut w));
            tag.value = w.bytes;
        }
        Ok(old)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_round_trip_common_values() {
        assert_eq!(half_bits(0.0), 0);
        assert_eq!(half_bits(1.0), 0x3c00);
        assert_eq!(half_bits(-2.0), 0xc000);
        assert_eq!(half_bits(0.5), 0x3800);
        assert_eq!(half_bits(1e9), 0x7bff);
    }
}
