//! A binary glTF (`.glb`) writer for views of a cooked piece: named nodes of triangles with
//! flat-colour materials, in pack space (converted to glTF's Y up on the way out). What it
//! writes reads back through [`import`](crate::import), the reader beside it.
//!
//! Layout (glTF 2.0, section 4.4): a 12-byte header (`glTF`, version 2, total length), a
//! JSON chunk padded with spaces to 4 bytes, and one BIN chunk padded with zeros holding,
//! per primitive, its positions (f32 x 3), its normals when given (f32 x 3) and its indices
//! (u32). Accessors carry the position bounds glTF requires.

use serde_json::{json, Value};

/// A material: a base colour (linear RGBA), its texture when it has one, and whether it
/// is seen through.
#[derive(Debug, Clone, PartialEq)]
pub struct GlbMaterial {
    pub name: String,
    pub base_colour: [f32; 4],
    pub texture: Option<crate::BaseColourTexture>,
    pub double_sided: bool,
    pub translucent: bool,
}

/// Triangles under one material.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GlbPrimitive {
    pub material: usize,
    /// Pack-space metres, Z up.
    pub positions: Vec<[f64; 3]>,
    /// One per position, when the mesh has them.
    pub normals: Option<Vec<[f64; 3]>>,
    /// One per position (glTF's: origin at the image's top left), when the mesh has them.
    pub uvs: Option<Vec<[f64; 2]>>,
    pub triangles: Vec<[u32; 3]>,
}

/// A named node with one mesh of any number of primitives.
#[derive(Debug, Clone, PartialEq)]
pub struct GlbNode {
    pub name: String,
    pub primitives: Vec<GlbPrimitive>,
}

/// The `.glb` of `nodes`, every node a child of the one scene's root list.
pub fn write_glb(materials: &[GlbMaterial], nodes: &[GlbNode]) -> Vec<u8> {
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut meshes = Vec::new();
    for node in nodes {
        let primitives: Vec<Value> = node
            .primitives
            .iter()
            .map(|p| primitive(p, &mut bin, &mut views, &mut accessors))
            .collect();
        meshes.push(json!({ "name": node.name, "primitives": primitives }));
    }
    let mut images = Vec::new();
    let mut textures = Vec::new();
    let mut samplers = Vec::new();
    let materials: Vec<Value> = materials
        .iter()
        .map(|m| {
            let texture = m.texture.as_ref().map(|t| {
                images.push(image(t, &mut bin, &mut views));
                samplers.push(json!({ "wrapS": wrap(t.wrap[0]), "wrapT": wrap(t.wrap[1]) }));
                textures.push(json!({ "source": images.len() - 1, "sampler": samplers.len() - 1 }));
                textures.len() - 1
            });
            material(m, texture)
        })
        .collect();
    let mut document = json!({
        "asset": { "version": "2.0", "generator": "mjolnir forge" },
        "scene": 0,
        "scenes": [{ "nodes": (0..nodes.len()).collect::<Vec<_>>() }],
        "nodes": nodes.iter().enumerate().map(|(i, n)| json!({ "name": n.name, "mesh": i })).collect::<Vec<_>>(),
        "meshes": meshes,
        "materials": materials,
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": views,
        "accessors": accessors,
    });
    if !images.is_empty() {
        document["images"] = json!(images);
        document["textures"] = json!(textures);
        document["samplers"] = json!(samplers);
    }
    container(
        &serde_json::to_vec(&document).expect("a glTF document serializes"),
        bin,
    )
}

fn material(m: &GlbMaterial, texture: Option<usize>) -> Value {
    let mut v = json!({
        "name": m.name,
        "pbrMetallicRoughness": { "baseColorFactor": m.base_colour, "metallicFactor": 0.0, "roughnessFactor": 0.8 },
        "doubleSided": m.double_sided,
    });
    if let Some(index) = texture {
        v["pbrMetallicRoughness"]["baseColorTexture"] = json!({ "index": index });
    }
    if m.translucent {
        v["alphaMode"] = json!("BLEND");
    }
    v
}

/// Appends a texture's PNG to `bin` and returns its image's JSON. The PNG encoder writes
/// the same bytes for the same pixels.
fn image(t: &crate::BaseColourTexture, bin: &mut Vec<u8>, views: &mut Vec<Value>) -> Value {
    use image::ImageEncoder;
    let start = bin.len();
    image::codecs::png::PngEncoder::new(&mut *bin)
        .write_image(&t.rgba8, t.width, t.height, image::ExtendedColorType::Rgba8)
        .expect("an RGBA8 image of its own size encodes");
    views.push(json!({ "buffer": 0, "byteOffset": start, "byteLength": bin.len() - start }));
    // The next view starts 4-byte aligned, as accessors need.
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    json!({ "bufferView": views.len() - 1, "mimeType": "image/png" })
}

fn wrap(mode: crate::WrappingMode) -> u32 {
    match mode {
        crate::WrappingMode::ClampToEdge => 33071,
        crate::WrappingMode::MirroredRepeat => 33648,
        crate::WrappingMode::Repeat => 10497,
    }
}

/// Appends a primitive's arrays to `bin` and returns its JSON.
fn primitive(
    p: &GlbPrimitive,
    bin: &mut Vec<u8>,
    views: &mut Vec<Value>,
    accessors: &mut Vec<Value>,
) -> Value {
    let gltf: Vec<[f64; 3]> = p
        .positions
        .iter()
        .map(|&q| forge_units::pack_to_gltf(q))
        .collect();
    let (lo, hi) = bounds(&gltf);
    let position = float_accessor(&gltf, bin, views, accessors);
    accessors[position]["min"] = json!(lo);
    accessors[position]["max"] = json!(hi);
    let mut attributes = json!({ "POSITION": position });
    if let Some(normals) = &p.normals {
        let gltf: Vec<[f64; 3]> = normals
            .iter()
            .map(|&n| forge_units::pack_to_gltf(n))
            .collect();
        attributes["NORMAL"] = json!(float_accessor(&gltf, bin, views, accessors));
    }
    if let Some(uvs) = &p.uvs {
        attributes["TEXCOORD_0"] = json!(float_accessor(uvs, bin, views, accessors));
    }
    let start = bin.len();
    for t in &p.triangles {
        for i in t {
            bin.extend_from_slice(&i.to_le_bytes());
        }
    }
    views.push(json!({ "buffer": 0, "byteOffset": start, "byteLength": bin.len() - start, "target": 34963 }));
    accessors.push(json!({
        "bufferView": views.len() - 1,
        "componentType": 5125,
        "count": p.triangles.len() * 3,
        "type": "SCALAR",
    }));
    json!({ "attributes": attributes, "indices": accessors.len() - 1, "material": p.material, "mode": 4 })
}

/// Appends `values` as f32 vectors of `N` components (VEC2 or VEC3) and returns their
/// accessor's index.
fn float_accessor<const N: usize>(
    values: &[[f64; N]],
    bin: &mut Vec<u8>,
    views: &mut Vec<Value>,
    accessors: &mut Vec<Value>,
) -> usize {
    let start = bin.len();
    for v in values {
        for c in v {
            bin.extend_from_slice(&(*c as f32).to_le_bytes());
        }
    }
    views.push(json!({ "buffer": 0, "byteOffset": start, "byteLength": bin.len() - start, "target": 34962 }));
    accessors.push(json!({
        "bufferView": views.len() - 1,
        "componentType": 5126,
        "count": values.len(),
        "type": format!("VEC{N}"),
    }));
    accessors.len() - 1
}

/// The bounds glTF requires on positions, as the f32 values stored.
fn bounds(points: &[[f64; 3]]) -> ([f32; 3], [f32; 3]) {
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for p in points {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k] as f32);
            hi[k] = hi[k].max(p[k] as f32);
        }
    }
    if points.is_empty() {
        return ([0.0; 3], [0.0; 3]);
    }
    (lo, hi)
}

fn container(json: &[u8], mut bin: Vec<u8>) -> Vec<u8> {
    let mut json = json.to_vec();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin);
    out
}

/// One node of a `.glb`, as `inspect` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct GlbNodeSummary {
    pub name: String,
    pub primitives: usize,
    pub triangles: usize,
}

/// The nodes of any `.glb` (this writer's or another tool's), read through the gltf crate
/// with the importer's guards: a length past the file is refused before the crate sees it.
pub fn read_glb_nodes(file: &str, bytes: &[u8]) -> Result<Vec<GlbNodeSummary>, crate::ImportError> {
    let doc = crate::parse(file, bytes)?;
    let nodes = doc
        .nodes()
        .map(|n| {
            let prims: Vec<_> = n.mesh().into_iter().flat_map(|m| m.primitives()).collect();
            let triangles = prims
                .iter()
                .map(
                    |p| match p.indices().or_else(|| p.get(&gltf::Semantic::Positions)) {
                        Some(a) => a.count() / 3,
                        None => 0,
                    },
                )
                .sum();
            GlbNodeSummary {
                name: n.name().unwrap_or("").to_string(),
                primitives: prims.len(),
                triangles,
            }
        })
        .collect();
    Ok(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(z: f64) -> GlbPrimitive {
        GlbPrimitive {
            material: 0,
            positions: vec![[0.0, 0.0, z], [1.0, 0.0, z], [1.0, 2.0, z], [0.0, 2.0, z]],
            normals: Some(vec![[0.0, 0.0, 1.0]; 4]),
            uvs: Some(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]),
            triangles: vec![[0, 1, 2], [0, 2, 3]],
        }
    }

    #[test]
    fn a_written_glb_reads_back_through_the_importer_in_pack_space() {
        let materials = [GlbMaterial {
            name: "Primary".into(),
            base_colour: [0.5, 0.25, 0.125, 1.0],
            texture: None,
            double_sided: false,
            translucent: false,
        }];
        let nodes = [GlbNode {
            name: "visual".into(),
            primitives: vec![quad(0.5)],
        }];
        let glb = write_glb(&materials, &nodes);
        assert!(glb.len().is_multiple_of(4));
        assert_eq!(
            u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize,
            glb.len()
        );
        let mesh = crate::import("view.glb", &glb, &Default::default()).unwrap();
        assert_eq!(mesh.triangles.len(), 2);
        let mut points: Vec<[f64; 3]> = mesh.positions.clone();
        points.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(
            points,
            [
                [0.0, 0.0, 0.5],
                [0.0, 2.0, 0.5],
                [1.0, 0.0, 0.5],
                [1.0, 2.0, 0.5]
            ]
        );
        assert_eq!(mesh.sections[0].material, "Primary");
        // The same input writes the same bytes.
        assert_eq!(glb, write_glb(&materials, &nodes));
    }

    #[test]
    fn a_texture_is_embedded_and_read_back_by_the_looks_reader() {
        let rgba8: Vec<u8> = (0..4 * 4 * 4).map(|i| (i * 7 % 256) as u8).collect();
        let texture = crate::BaseColourTexture {
            width: 4,
            height: 4,
            rgba8: rgba8.clone(),
            wrap: [
                crate::WrappingMode::Repeat,
                crate::WrappingMode::ClampToEdge,
            ],
        };
        let materials = [GlbMaterial {
            name: "Primary".into(),
            base_colour: [1.0; 4],
            texture: Some(texture),
            double_sided: false,
            translucent: false,
        }];
        let nodes = [GlbNode {
            name: "visual".into(),
            primitives: vec![quad(0.0)],
        }];
        let glb = write_glb(&materials, &nodes);
        let looks = crate::looks("view.glb", &glb, &Default::default()).unwrap();
        let read = looks[0].texture.as_ref().expect("the texture reads back");
        assert_eq!((read.width, read.height), (4, 4));
        assert_eq!(read.rgba8, rgba8);
        assert_eq!(read.wrap[1], crate::WrappingMode::ClampToEdge);
        let mesh = crate::import("view.glb", &glb, &Default::default()).unwrap();
        assert_eq!(mesh.uvs.len(), 4);
    }

    #[test]
    fn hull_nodes_keep_their_names_and_translucent_materials_blend() {
        let materials = [GlbMaterial {
            name: "collision".into(),
            base_colour: [0.2, 0.6, 1.0, 0.35],
            texture: None,
            double_sided: true,
            translucent: true,
        }];
        let nodes = [
            GlbNode {
                name: "UCX_post".into(),
                primitives: vec![quad(0.0)],
            },
            GlbNode {
                name: "UCX_lintel".into(),
                primitives: vec![quad(1.0)],
            },
        ];
        let glb = write_glb(&materials, &nodes);
        let doc = gltf::Gltf::from_slice(&glb).unwrap();
        let names: Vec<_> = doc.nodes().map(|n| n.name().unwrap().to_string()).collect();
        assert_eq!(names, ["UCX_post", "UCX_lintel"]);
        let m = doc.materials().next().unwrap();
        let read = read_glb_nodes("view.glb", &glb).unwrap();
        assert_eq!(read[1].name, "UCX_lintel");
        assert_eq!((read[1].primitives, read[1].triangles), (1, 2));
        assert_eq!(m.alpha_mode(), gltf::material::AlphaMode::Blend);
        assert!(m.double_sided());
    }
}
