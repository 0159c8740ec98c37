//! Writes a piece's visual mesh as glTF 2.0 the way Blender's exporter does: Y-up metres,
//! one node, one primitive per material, flat-shaded split vertices with normals and UVs,
//! u16 indices where they fit, and the buffer either beside the file or inside a GLB.

use serde_json::{json, Value};

use crate::solid::{convex_ccw, cross, normalize, sub, Role, Solid};

pub struct Encoded {
    /// `(file name, bytes)` for each file to write.
    pub files: Vec<(String, Vec<u8>)>,
}

struct Primitive {
    material: &'static str,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    uvs: Vec<[f32; 2]>,
    indices: Vec<u32>,
}

/// Pack space (Z up) to glTF (Y up): `(x, y, z) -> (x, z, -y)`, a rotation, so winding stays.
fn to_gltf(p: [f64; 3]) -> [f32; 3] {
    [p[0] as f32, p[2] as f32, (-p[1]) as f32]
}

fn build_primitives(solids: &[Solid]) -> Vec<Primitive> {
    let mut prims: Vec<Primitive> = Vec::new();
    for solid in solids.iter().filter(|s| s.role != Role::Collision) {
        let index = match prims.iter().position(|p| p.material == solid.material) {
            Some(i) => i,
            None => {
                prims.push(Primitive {
                    material: solid.material,
                    positions: vec![],
                    normals: vec![],
                    uvs: vec![],
                    indices: vec![],
                });
                prims.len() - 1
            }
        };
        let prim = &mut prims[index];
        let points = solid.shape.hull_points();
        let n = points.len() as f64;
        let centre = points.iter().fold([0.0; 3], |a, p| {
            [a[0] + p[0] / n, a[1] + p[1] / n, a[2] + p[2] / n]
        });
        for face in solid.shape.faces() {
            let face = convex_ccw(face, centre);
            let normal = normalize(cross(sub(face[1], face[0]), sub(face[2], face[0])));
            let dominant = (0..3)
                .max_by(|&a, &b| normal[a].abs().total_cmp(&normal[b].abs()))
                .unwrap_or(2);
            let (u_axis, v_axis) = ((dominant + 1) % 3, (dominant + 2) % 3);
            let base = prim.positions.len() as u32;
            for p in &face {
                prim.positions.push(to_gltf(*p));
                prim.normals.push(to_gltf(normal));
                prim.uvs
                    .push([(p[u_axis] / 2.0) as f32, (1.0 - p[v_axis] / 2.0) as f32]);
            }
            for k in 1..face.len() as u32 - 1 {
                prim.indices.extend([base, base + k, base + k + 1]);
            }
        }
    }
    prims
}

fn material_json(name: &str) -> Value {
    let (color, metallic, roughness): ([f64; 4], f64, f64) = match name {
        "steel" => ([0.55, 0.57, 0.6, 1.0], 0.8, 0.45),
        "steel_dark" => ([0.2, 0.21, 0.23, 1.0], 0.7, 0.5),
        "concrete" => ([0.62, 0.6, 0.56, 1.0], 0.0, 0.9),
        "asphalt" => ([0.12, 0.12, 0.13, 1.0], 0.0, 0.95),
        "paint" => ([0.95, 0.85, 0.2, 1.0], 0.0, 0.6),
        "glass" => ([0.6, 0.8, 0.9, 0.35], 0.0, 0.05),
        "portal" => ([0.2, 0.6, 1.0, 0.8], 0.0, 0.2),
        "lamp" => ([1.0, 0.95, 0.8, 1.0], 0.0, 0.3),
        _ => ([0.8, 0.8, 0.8, 1.0], 0.0, 0.5),
    };
    let mut m = json!({
        "doubleSided": false,
        "name": name,
        "pbrMetallicRoughness": {"baseColorFactor": color, "metallicFactor": metallic, "roughnessFactor": roughness}
    });
    if color[3] < 1.0 {
        m["alphaMode"] = json!("BLEND");
    }
    if name == "lamp" {
        m["emissiveFactor"] = json!([1.0, 0.9, 0.7]);
    }
    m
}

/// Encodes one piece. `glb` selects a single binary file over `.gltf` + `.bin`.
pub fn encode(block_id: &str, solids: &[Solid], glb: bool) -> Encoded {
    encode_primitives(block_id, build_primitives(solids), glb)
}

/// Encodes an arbitrary indexed triangle mesh in pack space as one primitive, with
/// area-weighted vertex normals.
pub fn encode_mesh(
    block_id: &str,
    material: &'static str,
    positions: &[[f64; 3]],
    triangles: &[[u32; 3]],
    glb: bool,
) -> Encoded {
    let mut normals = vec![[0.0f64; 3]; positions.len()];
    for t in triangles {
        let [a, b, c] = t.map(|i| positions[i as usize]);
        let n = cross(sub(b, a), sub(c, a));
        for &i in t {
            for k in 0..3 {
                normals[i as usize][k] += n[k];
            }
        }
    }
    let prim = Primitive {
        material,
        positions: positions.iter().map(|p| to_gltf(*p)).collect(),
        normals: normals
            .iter()
            .map(|n| {
                to_gltf(if n.iter().any(|c| *c != 0.0) {
                    normalize(*n)
                } else {
                    [0.0, 0.0, 1.0]
                })
            })
            .collect(),
        uvs: positions
            .iter()
            .map(|p| [p[0] as f32, p[1] as f32])
            .collect(),
        indices: triangles.iter().flatten().copied().collect(),
    };
    encode_primitives(block_id, vec![prim], glb)
}

/// A GLB container: the document as its JSON chunk (space-padded) and `bin` as its BIN
/// chunk.
fn glb_bytes(doc: &Value, bin: &[u8]) -> Vec<u8> {
    let mut json_bytes = serde_json::to_vec(doc).expect("a JSON value always serializes");
    while !json_bytes.len().is_multiple_of(4) {
        json_bytes.push(b' ');
    }
    let total = 12 + 8 + json_bytes.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json_bytes);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out
}

/// The lowest and highest corner of a set of positions (glTF's accessor `min` and `max`).
fn bounds(positions: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::MAX; 3];
    let mut hi = [f32::MIN; 3];
    for p in positions {
        for i in 0..3 {
            lo[i] = lo[i].min(p[i]);
            hi[i] = hi[i].max(p[i]);
        }
    }
    (lo, hi)
}

fn encode_primitives(block_id: &str, prims: Vec<Primitive>, glb: bool) -> Encoded {
    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut primitives = Vec::new();
    let mut materials = Vec::new();
    let mut push_view = |bin: &mut Vec<u8>, bytes: &[u8], target: u32| {
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        views.push(json!({"buffer": 0, "byteLength": bytes.len(), "byteOffset": bin.len(), "target": target}));
        bin.extend_from_slice(bytes);
        views.len() - 1
    };
    for (mi, prim) in prims.iter().enumerate() {
        materials.push(material_json(prim.material));
        let (lo, hi) = bounds(&prim.positions);
        let floats = |v: &[[f32; 3]]| {
            v.iter()
                .flatten()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<u8>>()
        };
        let pos_view = push_view(&mut bin, &floats(&prim.positions), 34962);
        let nrm_view = push_view(&mut bin, &floats(&prim.normals), 34962);
        let uv_bytes: Vec<u8> = prim
            .uvs
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let uv_view = push_view(&mut bin, &uv_bytes, 34962);
        let wide = prim.positions.len() > u16::MAX as usize;
        let idx_bytes: Vec<u8> = if wide {
            prim.indices.iter().flat_map(|i| i.to_le_bytes()).collect()
        } else {
            prim.indices
                .iter()
                .flat_map(|i| (*i as u16).to_le_bytes())
                .collect()
        };
        let idx_view = push_view(&mut bin, &idx_bytes, 34963);
        let count = prim.positions.len();
        let a = accessors.len();
        accessors.push(json!({"bufferView": pos_view, "componentType": 5126, "count": count, "max": hi, "min": lo, "type": "VEC3"}));
        accessors.push(
            json!({"bufferView": nrm_view, "componentType": 5126, "count": count, "type": "VEC3"}),
        );
        accessors.push(
            json!({"bufferView": uv_view, "componentType": 5126, "count": count, "type": "VEC2"}),
        );
        accessors.push(json!({"bufferView": idx_view, "componentType": if wide { 5125 } else { 5123 }, "count": prim.indices.len(), "type": "SCALAR"}));
        primitives.push(json!({
            "attributes": {"POSITION": a, "NORMAL": a + 1, "TEXCOORD_0": a + 2},
            "indices": a + 3,
            "material": mi
        }));
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let mut buffer = json!({"byteLength": bin.len()});
    if !glb {
        buffer["uri"] = json!(format!("{block_id}.bin"));
    }
    let doc = json!({
        "asset": {"generator": "forge-packgen (Blender exporter layout)", "version": "2.0"},
        "scene": 0,
        "scenes": [{"name": "Scene", "nodes": [0]}],
        "nodes": [{"mesh": 0, "name": block_id}],
        "materials": materials,
        "meshes": [{"name": block_id, "primitives": primitives}],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [buffer]
    });
    if glb {
        Encoded {
            files: vec![(format!("{block_id}.glb"), glb_bytes(&doc, &bin))],
        }
    } else {
        let text = json_out::pretty_text(&doc);
        Encoded {
            files: vec![
                (format!("{block_id}.gltf"), text.into_bytes()),
                (format!("{block_id}.bin"), bin),
            ],
        }
    }
}
