//! glTF 2.0 import into pack space (right-handed, Z up, metres, f64).
//!
//! [`import`] takes the document's bytes (`.gltf` or `.glb`) and the bytes of each external
//! buffer it names (see [`external_uris`]), walks the default scene's node hierarchy with
//! TRS or matrix transforms, and returns one [`ImportedMesh`]: triangles with normals, UVs
//! and a section per material slot. It never touches the file system, so the pipeline can
//! hash exactly what it reads.
//!
//! Triangle strips and fans become triangles; points and lines are refused, as are sparse
//! or out-of-range accessors, NaN positions and meshes with no triangle of non-zero area.
//! Every refusal names the file, mesh and primitive.
//!
//! ```
//! let gltf = br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[]}],"scene":0}"#;
//! let err = forge_gltf::import("empty.gltf", gltf, &Default::default()).unwrap_err();
//! assert_eq!(err.code, "gltf_no_triangles");
//! ```

mod accessor;
mod error;
mod glb;
mod imported;
mod looks;

use std::collections::BTreeMap;

use base64::Engine;
use gltf::mesh::Mode;
use nalgebra::{Matrix3, Matrix4, Quaternion, UnitQuaternion, Vector3, Vector4};

pub use error::ImportError;
pub use glb::{read_glb_nodes, write_glb, GlbMaterial, GlbNode, GlbNodeSummary, GlbPrimitive};
pub use imported::{ImportedMesh, Section, FORMAT_VERSION};
pub use looks::{image_uris, looks, BaseColourTexture, MaterialLook, WrappingMode};

/// Version of this cooker; part of every import step's cache key.
pub const VERSION: u32 = 4; // 2: non-finite normals and UVs are refused; 3: vertex and triangle budgets; 4: UCX_ hull nodes are not visual

/// The most vertices a block's model may have once every node's primitives are placed:
/// a Forge piece is a building block, and a model past this is an export mistake (an
/// instanced accessor, a scan) that would otherwise take gigabytes to cook.
pub const MAX_VERTICES: usize = 1 << 20;
/// The most triangles a block's model may have.
pub const MAX_TRIANGLES: usize = 1 << 21;

/// The relative URIs of external buffers the document needs (data URIs excluded), sorted.
pub fn external_uris(file: &str, bytes: &[u8]) -> Result<Vec<String>, ImportError> {
    let doc = read_unvalidated(file, bytes)?;
    let mut uris: Vec<String> = doc
        .document
        .buffers()
        .filter_map(|b| match b.source() {
            gltf::buffer::Source::Uri(uri) if !uri.starts_with("data:") => Some(uri.to_string()),
            _ => None,
        })
        .collect();
    uris.sort();
    uris.dedup();
    Ok(uris)
}

fn read_unvalidated(file: &str, bytes: &[u8]) -> Result<gltf::Gltf, ImportError> {
    let unreadable = |why: String| {
        ImportError::new(
            "gltf_parse",
            file,
            format!("not a readable glTF or GLB file: {why}"),
        )
    };
    // The gltf crate subtracts the header size from the GLB's declared length unchecked
    // (found by fuzzing), so a length shorter than the header is refused here first.
    const GLB_HEADER: u32 = 12;
    if bytes.len() >= GLB_HEADER as usize && bytes.starts_with(b"glTF") {
        let declared = u32::from_le_bytes(bytes[8..12].try_into().expect("four bytes"));
        if declared < GLB_HEADER {
            return Err(unreadable(format!(
                "the GLB header declares a length of {declared} bytes, shorter than the header"
            )));
        }
    }
    gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| unreadable(e.to_string()))
}

pub(crate) fn parse(file: &str, bytes: &[u8]) -> Result<gltf::Gltf, ImportError> {
    let doc = read_unvalidated(file, bytes)?;
    // gltf-json's validation reads a primitive's POSITION accessor before it checks the
    // index (found by fuzzing), so attribute indices are checked here first.
    let json = doc.document.as_json();
    for (m, mesh) in json.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            if let Some(index) = primitive
                .attributes
                .values()
                .find(|i| i.value() >= json.accessors.len())
            {
                return Err(ImportError::new(
                    "gltf_invalid",
                    file,
                    format!(
                        "mesh {m} primitive {p} names accessor {}, but the file has {}",
                        index.value(),
                        json.accessors.len()
                    ),
                ));
            }
        }
    }
    gltf::Gltf::from_slice(bytes).map(|_| doc).map_err(|e| {
        ImportError::new(
            "gltf_invalid",
            file,
            format!("the glTF document is invalid: {e}"),
        )
    })
}

/// Decodes a percent-encoded relative URI the way exporters write file names.
fn decode_uri(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 3 <= bytes.len() && uri.is_char_boundary(i + 3) {
            if let Ok(v) = u8::from_str_radix(&uri[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The decoded external-buffer name for a URI, as the pipeline should look it up on disk.
pub fn uri_to_relative_path(uri: &str) -> String {
    decode_uri(uri)
}

fn load_buffers(
    file: &str,
    doc: &gltf::Gltf,
    external: &BTreeMap<String, Vec<u8>>,
) -> Result<Vec<Vec<u8>>, ImportError> {
    let mut out = Vec::new();
    for buffer in doc.document.buffers() {
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => doc.blob.clone().ok_or_else(|| {
                ImportError::new(
                    "gltf_missing_buffer",
                    file,
                    "the GLB has no BIN chunk but a buffer refers to it",
                )
            })?,
            gltf::buffer::Source::Uri(uri) => {
                if let Some(payload) = uri.strip_prefix("data:") {
                    let (_, b64) = payload.split_once(";base64,").ok_or_else(|| {
                        ImportError::new(
                            "gltf_bad_uri",
                            file,
                            format!(
                                "buffer {} has a data URI that is not base64",
                                buffer.index()
                            ),
                        )
                    })?;
                    base64::engine::general_purpose::STANDARD
                        .decode(b64)
                        .map_err(|e| {
                            ImportError::new(
                                "gltf_bad_uri",
                                file,
                                format!("buffer {} has a corrupt data URI: {e}", buffer.index()),
                            )
                        })?
                } else {
                    external.get(uri).cloned().ok_or_else(|| {
                        ImportError::new(
                            "gltf_missing_buffer",
                            file,
                            format!("buffer {} needs {uri:?}, which is missing", buffer.index()),
                        )
                    })?
                }
            }
        };
        if data.len() < buffer.length() {
            return Err(ImportError::new(
                "gltf_truncated_buffer",
                file,
                format!(
                    "buffer {} declares {} bytes but has {}",
                    buffer.index(),
                    buffer.length(),
                    data.len()
                ),
            ));
        }
        out.push(data);
    }
    Ok(out)
}

fn local_matrix(node: &gltf::Node) -> Matrix4<f64> {
    match node.transform() {
        gltf::scene::Transform::Matrix { matrix } => {
            let m: Vec<f64> = matrix.iter().flatten().map(|&x| x as f64).collect();
            Matrix4::from_column_slice(&m)
        }
        gltf::scene::Transform::Decomposed {
            translation,
            rotation,
            scale,
        } => {
            let t = Matrix4::new_translation(&Vector3::new(
                translation[0] as f64,
                translation[1] as f64,
                translation[2] as f64,
            ));
            let q = UnitQuaternion::from_quaternion(Quaternion::new(
                rotation[3] as f64,
                rotation[0] as f64,
                rotation[1] as f64,
                rotation[2] as f64,
            ));
            let s = Matrix4::new_nonuniform_scaling(&Vector3::new(
                scale[0] as f64,
                scale[1] as f64,
                scale[2] as f64,
            ));
            t * q.to_homogeneous() * s
        }
    }
}

/// Nodes whose name starts with this are collision hulls (Unreal's convention), not part
/// of the visual mesh: [`collision_hulls`] reads them and [`import`] leaves them out.
pub const HULL_PREFIX: &str = "UCX_";

/// Visits every node of the default scene (or every root when the document names none)
/// with its world matrix, parents first.
fn walk(
    file: &str,
    doc: &gltf::Gltf,
    mut visit: impl FnMut(&gltf::Node, &Matrix4<f64>) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    let roots: Vec<gltf::Node> = match doc
        .document
        .default_scene()
        .or_else(|| doc.document.scenes().next())
    {
        Some(scene) => scene.nodes().collect(),
        None => doc.document.nodes().collect(),
    };
    let mut stack: Vec<(gltf::Node, Matrix4<f64>, usize)> = roots
        .into_iter()
        .map(|n| (n, Matrix4::identity(), 0))
        .collect();
    while let Some((node, parent, depth)) = stack.pop() {
        if depth > 256 {
            return Err(ImportError::new(
                "gltf_invalid",
                file,
                "the node hierarchy is deeper than 256 levels",
            ));
        }
        let world = parent * local_matrix(&node);
        visit(&node, &world)?;
        let mut children: Vec<_> = node.children().map(|c| (c, world, depth + 1)).collect();
        children.reverse();
        stack.extend(children);
    }
    Ok(())
}

fn is_hull(node: &gltf::Node) -> bool {
    node.name().is_some_and(|n| n.starts_with(HULL_PREFIX))
}

/// Imports the visual mesh: every mesh node but the collision hulls.
pub fn import(
    file: &str,
    bytes: &[u8],
    external: &BTreeMap<String, Vec<u8>>,
) -> Result<ImportedMesh, ImportError> {
    let doc = parse(file, bytes)?;
    let buffers = load_buffers(file, &doc, external)?;
    let mut mesh = ImportedMesh::default();
    walk(file, &doc, |node, world| match node.mesh() {
        Some(m) if !is_hull(node) => add_mesh(file, &m, world, &buffers, &doc, &mut mesh),
        _ => Ok(()),
    })?;
    mesh.finish(file)?;
    Ok(mesh)
}

/// A collision hull a model carries: a `UCX_` node's points in pack space.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelHull {
    /// The node's name without the prefix (`UCX_slab` is `slab`).
    pub name: String,
    /// The first primitive's material name, or `default`.
    pub material: String,
    pub points: Vec<[f64; 3]>,
}

/// The model's `UCX_` nodes as hulls, in document order of the walk.
pub fn collision_hulls(
    file: &str,
    bytes: &[u8],
    external: &BTreeMap<String, Vec<u8>>,
) -> Result<Vec<ModelHull>, ImportError> {
    let doc = parse(file, bytes)?;
    let buffers = load_buffers(file, &doc, external)?;
    let mut hulls = Vec::new();
    walk(file, &doc, |node, world| {
        let (Some(m), true) = (node.mesh(), is_hull(node)) else {
            return Ok(());
        };
        let name = node
            .name()
            .unwrap_or_default()
            .trim_start_matches(HULL_PREFIX)
            .to_string();
        let mut points = Vec::new();
        let mut material = None;
        for prim in m.primitives() {
            material = material.or_else(|| prim.material().name().map(str::to_string));
            let Some(acc) = prim.get(&gltf::Semantic::Positions) else {
                continue;
            };
            let positions = accessor::read_vec3(&acc, &buffers).map_err(|e| {
                ImportError::new(
                    "gltf_bad_accessor",
                    file,
                    format!("hull node {name:?}: POSITION: {e}"),
                )
            })?;
            for p in positions {
                let w = world * Vector4::new(p[0], p[1], p[2], 1.0);
                let q = forge_units::gltf_to_pack([w.x, w.y, w.z]);
                points.push(q.map(|c| (c * 1e6).round() / 1e6));
            }
        }
        points.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        points.dedup();
        hulls.push(ModelHull {
            name,
            material: material.unwrap_or_else(|| "default".into()),
            points,
        });
        Ok(())
    })?;
    Ok(hulls)
}

fn add_mesh(
    file: &str,
    m: &gltf::Mesh,
    world: &Matrix4<f64>,
    buffers: &[Vec<u8>],
    doc: &gltf::Gltf,
    out: &mut ImportedMesh,
) -> Result<(), ImportError> {
    let mesh_name = m
        .name()
        .map(str::to_string)
        .unwrap_or_else(|| format!("mesh {}", m.index()));
    let linear: Matrix3<f64> = world.fixed_view::<3, 3>(0, 0).into_owned();
    let placement = Placement {
        world: *world,
        normal_matrix: linear
            .try_inverse()
            .map(|i| i.transpose())
            .unwrap_or(linear),
        mirrored: linear.determinant() < 0.0,
    };
    for prim in m.primitives() {
        let at = |code: &'static str, msg: String| {
            ImportError::new(
                code,
                file,
                format!("mesh {mesh_name:?}, primitive {}: {msg}", prim.index()),
            )
        };
        let mode = prim.mode();
        if matches!(
            mode,
            Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
        ) {
            return Err(at(
                "gltf_not_triangles",
                format!("{mode:?} primitives cannot be cooked; export faces as triangles"),
            ));
        }
        let attributes = read_attributes(&prim, buffers, out, &at)?;
        let base = out.positions.len() as u32;
        push_vertices(&attributes, &placement, out, &at)?;
        let first = out.triangles.len() as u32;
        for t in accessor::triangulate(mode, &attributes.indices) {
            let t = [t[0] + base, t[1] + base, t[2] + base];
            out.triangles.push(if placement.mirrored {
                [t[0], t[2], t[1]]
            } else {
                t
            });
        }
        if attributes.normals.is_none() {
            out.compute_normals(base as usize, first as usize);
        }
        let material = match prim.material().index() {
            Some(i) => doc
                .document
                .materials()
                .nth(i)
                .and_then(|m| m.name().map(str::to_string))
                .unwrap_or_else(|| format!("material_{i}")),
            None => "default".to_string(),
        };
        out.add_section(material, first, out.triangles.len() as u32 - first);
    }
    Ok(())
}

/// Where a mesh's node puts it: its world transform, the matrix its normals take, and
/// whether it mirrors (which flips the winding).
struct Placement {
    world: Matrix4<f64>,
    normal_matrix: Matrix3<f64>,
    mirrored: bool,
}

/// A primitive's vertex attributes and indices, read and checked against each other.
struct Attributes {
    positions: Vec<[f64; 3]>,
    normals: Option<Vec<[f64; 3]>>,
    uvs: Option<Vec<[f64; 2]>>,
    indices: Vec<u32>,
}

type At<'a> = &'a dyn Fn(&'static str, String) -> ImportError;

fn read_attributes(
    prim: &gltf::Primitive,
    buffers: &[Vec<u8>],
    out: &ImportedMesh,
    at: At,
) -> Result<Attributes, ImportError> {
    let pos_acc = prim
        .get(&gltf::Semantic::Positions)
        .ok_or_else(|| at("gltf_no_positions", "it has no POSITION attribute".into()))?;
    let triangles = prim.indices().map_or(pos_acc.count(), |a| a.count()) / 3;
    if out.positions.len() + pos_acc.count() > MAX_VERTICES
        || out.triangles.len() + triangles > MAX_TRIANGLES
    {
        return Err(at(
            "gltf_too_large",
            format!("the model passes {MAX_VERTICES} vertices or {MAX_TRIANGLES} triangles; a Forge piece needs far fewer (is a mesh instanced many times, or a scan left unreduced?)"),
        ));
    }
    let positions = accessor::read_vec3(&pos_acc, buffers)
        .map_err(|e| at("gltf_bad_accessor", format!("POSITION: {e}")))?;
    let normals = match prim.get(&gltf::Semantic::Normals) {
        Some(a) => Some(
            accessor::read_vec3(&a, buffers)
                .map_err(|e| at("gltf_bad_accessor", format!("NORMAL: {e}")))?,
        ),
        None => None,
    };
    let uvs = match prim.get(&gltf::Semantic::TexCoords(0)) {
        Some(a) => Some(
            accessor::read_vec2(&a, buffers)
                .map_err(|e| at("gltf_bad_accessor", format!("TEXCOORD_0: {e}")))?,
        ),
        None => None,
    };
    if normals.as_ref().is_some_and(|n| n.len() != positions.len())
        || uvs.as_ref().is_some_and(|u| u.len() != positions.len())
    {
        return Err(at("gltf_bad_accessor", "attribute counts differ".into()));
    }
    let indices: Vec<u32> = match prim.indices() {
        Some(a) => accessor::read_indices(&a, buffers)
            .map_err(|e| at("gltf_bad_accessor", format!("indices: {e}")))?,
        None => (0..positions.len() as u32).collect(),
    };
    if let Some(bad) = indices.iter().find(|&&i| i as usize >= positions.len()) {
        return Err(at(
            "gltf_index_out_of_range",
            format!("index {bad} is past the {} vertices", positions.len()),
        ));
    }
    Ok(Attributes {
        positions,
        normals,
        uvs,
        indices,
    })
}

/// Each vertex placed in pack space, with its normal (zero when the primitive has none,
/// to be computed) and UV; any value that is not finite is refused.
fn push_vertices(
    a: &Attributes,
    placement: &Placement,
    out: &mut ImportedMesh,
    at: At,
) -> Result<(), ImportError> {
    for (i, p) in a.positions.iter().enumerate() {
        if p.iter().any(|c| !c.is_finite()) {
            return Err(at(
                "gltf_nan_position",
                format!("vertex {i} is not a finite number: {p:?}"),
            ));
        }
        let w = placement.world * Vector4::new(p[0], p[1], p[2], 1.0);
        if !(w.x.is_finite() && w.y.is_finite() && w.z.is_finite()) {
            return Err(at(
                "gltf_nan_position",
                format!("vertex {i} is not a finite number after the node transforms"),
            ));
        }
        out.positions
            .push(forge_units::gltf_to_pack([w.x, w.y, w.z]));
        let n = match &a.normals {
            Some(n) => {
                let v = placement.normal_matrix * Vector3::new(n[i][0], n[i][1], n[i][2]);
                let norm = v.norm();
                if !norm.is_finite() {
                    return Err(at(
                        "gltf_nan_attribute",
                        format!(
                            "the normal of vertex {i} is not a finite number: {:?}",
                            n[i]
                        ),
                    ));
                }
                let v = if norm > 0.0 { v / norm } else { v };
                forge_units::gltf_to_pack([v.x, v.y, v.z])
            }
            None => [0.0; 3],
        };
        out.normals.push(n);
        let uv = a.uvs.as_ref().map_or([0.0, 0.0], |u| u[i]);
        if !(uv[0].is_finite() && uv[1].is_finite()) {
            return Err(at(
                "gltf_nan_attribute",
                format!("the texture coordinate of vertex {i} is not a finite number: {uv:?}"),
            ));
        }
        out.uvs.push(uv);
    }
    Ok(())
}
