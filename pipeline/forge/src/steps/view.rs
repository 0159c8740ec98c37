//! `view`: what the report's 3D viewer shows of a block, written beside its previews.
//!
//! - `<block>.glb`: the visual mesh (node `visual`, a primitive per material slot, in the
//!   model's base colours and textures) and each collision hull as the cooked BSP has it (node
//!   `UCX_<hull>`, translucent), in glTF's Y-up metres;
//! - `<block>.rays.json`: the preview camera, the declared supports, joins and apertures,
//!   and every ray the aperture and support checks cast with where it hit;
//! - `<block>.view.js`: both, for a page opened from disk, where a browser lets a page
//!   load scripts beside it but not fetch files.
//!
//! Like the previews, these are cooked only when the cook renders, and never ship.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::common::{block, compact, params, source_file, text};
use super::kind::{Lands, Scope};
use super::{checks, collision, geometry, import, mesh};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use forge_gltf::{GlbMaterial, GlbNode, GlbPrimitive};

/// 1: the visual mesh, the hulls, and every aperture and support ray; 2: base-colour
/// textures.
pub const VERSION: u32 = 2;

/// The version of `<block>.rays.json`'s layout (`docs/formats/view.md`).
pub const RAYS_VERSION: u32 = 1;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "view",
        version: VERSION,
        outputs: Names::Dynamic,
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Renders,
    wire,
};

pub fn glb_output(block: &str) -> String {
    format!("{block}.glb")
}

pub fn rays_output(block: &str) -> String {
    format!("{block}.rays.json")
}

pub fn script_output(block: &str) -> String {
    format!("{block}.view.js")
}

/// The name the viewer's page script registers views under (`MJOLNIR_VIEW.add`).
pub const PAGE_GLOBAL: &str = "MJOLNIR_VIEW";

#[derive(Debug, Clone, Deserialize, Serialize)]
struct StepParams {
    /// The preview's size: the view opens from the preview's camera.
    size: u32,
    model: String,
}

/// The viewer reads what the checks and the previews read.
fn wire(w: &Wiring) -> Option<Wired> {
    let render = w.options.render.as_ref()?;
    let (model, mut inputs) = import::model_with_images(w);
    inputs.extend(checks::inputs(w));
    let params = StepParams {
        size: render.size,
        model,
    };
    Some(Wired {
        params: serde_json::to_string(&params).expect("view settings serialize"),
        inputs,
    })
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let block = block(step);
    let file = source_file(geometry::SOURCE);
    let params: StepParams = params(step, &file)?;
    let entry = forge_contract::parse_entry(&file, step.pack, text(inputs, "entry.json", &file)?)?;
    let looks = looks(inputs, &params.model)?;
    let mesh = mesh::read(inputs, &file)?;
    let model = collision::read(inputs, &file)?;
    let (geometry, (report, traced)) = checks::with_check_inputs(step, inputs, &file, |i| {
        (forge_checks::run(i), forge_checks::trace(i))
    })?;
    let (materials, visual) = visual_node(&mesh, &looks);
    let mut nodes = vec![visual];
    nodes.extend(hull_nodes(&model, materials.len()));
    let mut materials = materials;
    materials.push(GlbMaterial {
        name: "collision".into(),
        texture: None,
        base_colour: [0.15, 0.55, 1.0, 0.35],
        double_sided: true,
        translucent: true,
    });
    let glb = forge_gltf::write_glb(&materials, &nodes);
    let piece: Vec<[f64; 3]> = mesh.positions.iter().map(|&p| mesh.placed_m(p)).collect();
    let camera = forge_render::Camera::fit(&piece, 0.0, params.size);
    let rays = json!({
        "format": "mjolnir-forge-view",
        "version": RAYS_VERSION,
        "block": block,
        "units": "pack-space metres, Z up",
        "snap_m": entry.snap_m,
        "camera": camera,
        "checks": checks_json(&report, &traced),
        "apertures": geometry.apertures.iter().map(aperture_json).collect::<Vec<_>>(),
        "supports": geometry.supports.iter().map(support_json).collect::<Vec<_>>(),
        "joins": joins_json(&geometry, &model),
    });
    let rays_bytes = compact(&rays);
    let script = page_script(block, &glb, &rays);
    Ok(vec![
        (glb_output(block), glb),
        (rays_output(block), rays_bytes),
        (script_output(block), script),
    ])
}

type Looks = std::collections::BTreeMap<String, forge_gltf::MaterialLook>;

/// The model's materials by slot: base colour, texture, sidedness and blending (a texture
/// that cannot be shown is left out, as the preview's notes say).
fn looks(inputs: &Inputs, model_name: &str) -> Result<Looks, Vec<forge_contract::Diagnostic>> {
    let mut looks = Looks::new();
    for m in import::materials(inputs, model_name)? {
        looks.entry(m.slot.clone()).or_insert(m);
    }
    Ok(looks)
}

/// The visual mesh as the game places it: a primitive per material section, each with the
/// vertices its triangles use.
fn visual_node(mesh: &forge_mesh::StaticMesh, looks: &Looks) -> (Vec<GlbMaterial>, GlbNode) {
    let mut materials = Vec::new();
    let mut primitives = Vec::new();
    let mut remap = vec![u32::MAX; mesh.positions.len()];
    for s in &mesh.sections {
        let look = looks.get(&s.material);
        materials.push(GlbMaterial {
            name: s.material.clone(),
            base_colour: look.map_or([0.8, 0.8, 0.8, 1.0], |l| l.base_colour),
            texture: look.and_then(|l| l.texture.clone()),
            double_sided: look.is_some_and(|l| l.double_sided),
            translucent: look.is_some_and(|l| l.blend),
        });
        let first = s.first_triangle as usize;
        let range = first..first + s.triangle_count as usize;
        let mut p = GlbPrimitive {
            material: materials.len() - 1,
            normals: Some(Vec::new()),
            uvs: Some(Vec::new()),
            ..GlbPrimitive::default()
        };
        let mut used = Vec::new();
        for t in mesh.triangles.get(range).unwrap_or_default() {
            // The game's winding is reflected with Y: glTF's counter-clockwise is reversed.
            let corners = [t[0], t[2], t[1]].map(|v| {
                let v = v as usize;
                if remap[v] == u32::MAX {
                    remap[v] = p.positions.len() as u32;
                    used.push(v);
                    p.positions.push(mesh.placed_m(mesh.positions[v]));
                    let n = mesh.normals.get(v).copied().unwrap_or_default();
                    let n = forge_units::unreal_direction_to_pack(n.map(f64::from));
                    p.normals.get_or_insert_with(Vec::new).push(n);
                    let uv = mesh.uvs.get(v).copied().unwrap_or_default();
                    p.uvs.get_or_insert_with(Vec::new).push(uv.map(f64::from));
                }
                remap[v]
            });
            p.triangles.push(corners);
        }
        for v in used {
            remap[v] = u32::MAX;
        }
        primitives.push(p);
    }
    let node = GlbNode {
        name: "visual".into(),
        primitives,
    };
    (materials, node)
}

/// Each hull as the cooked BSP bounds it: its surfaces, fanned into triangles.
fn hull_nodes(model: &forge_collision::CollisionModel, material: usize) -> Vec<GlbNode> {
    let mut polygon = Vec::new();
    model
        .regions
        .iter()
        .map(|region| {
            let bsp = &region.bsp;
            let positions = bsp
                .vertices
                .iter()
                .map(|v| forge_units::blam_to_pack(v.point.map(f64::from)))
                .collect();
            let mut triangles = Vec::new();
            for s in 0..bsp.surfaces.len() {
                bsp.surface_polygon_into(s as u16, &mut polygon);
                for k in 1..polygon.len().saturating_sub(1) {
                    let t = [polygon[0], polygon[k], polygon[k + 1]].map(u32::from);
                    triangles.push(t);
                }
            }
            GlbNode {
                name: format!("UCX_{}", region.name),
                primitives: vec![GlbPrimitive {
                    material,
                    positions,
                    normals: None,
                    uvs: None,
                    triangles,
                }],
            }
        })
        .collect()
}

/// Each check's result with its traced rays (the size check has none, and is listed with
/// its result alone).
fn checks_json(report: &forge_checks::BlockReport, traced: &[forge_checks::TracedCheck]) -> Value {
    let list: Vec<Value> = report
        .checks
        .iter()
        .map(|c| {
            let rays = traced
                .iter()
                .find(|t| t.check == c.check && t.name == c.name)
                .map_or(json!([]), |t| json!(t.rays));
            json!({
                "check": c.check,
                "name": c.name,
                "passed": c.passed,
                "waived": c.waiver.is_some(),
                "failure": c.failure,
                "rays": rays,
            })
        })
        .collect();
    json!(list)
}

fn aperture_json(a: &forge_contract::geometry::Aperture) -> Value {
    json!({
        "name": a.name,
        "centre_m": a.centre_m,
        "axis": match a.axis { forge_contract::geometry::Axis::X => "x", forge_contract::geometry::Axis::Y => "y" },
        "width_m": a.width_m,
        "height_m": a.height_m,
    })
}

fn support_json(s: &forge_contract::geometry::Support) -> Value {
    json!({
        "name": s.name,
        "min_m": s.min_m,
        "max_m": s.max_m,
        "height_m": s.height_m,
        "grade": s.grade,
    })
}

/// Each join as the segment of the block's edge at its declared height.
fn joins_json(
    geometry: &forge_contract::BlockGeometry,
    model: &forge_collision::CollisionModel,
) -> Value {
    use forge_contract::geometry::Edge;
    let (lo, hi) = model.bounds_m().unwrap_or(([0.0; 3], [0.0; 3]));
    let list: Vec<Value> = geometry
        .joins
        .iter()
        .map(|j| {
            let z = j.height_m;
            let (from, to) = match j.edge {
                Edge::PlusX => ([hi[0], lo[1], z], [hi[0], hi[1], z]),
                Edge::MinusX => ([lo[0], lo[1], z], [lo[0], hi[1], z]),
                Edge::PlusY => ([lo[0], hi[1], z], [hi[0], hi[1], z]),
                Edge::MinusY => ([lo[0], lo[1], z], [hi[0], lo[1], z]),
            };
            json!({ "name": j.name, "edge": j.edge.as_str(), "from_m": from, "to_m": to })
        })
        .collect();
    json!(list)
}

/// `MJOLNIR_VIEW.add(block, glb as base64, rays)`: one statement, loaded by a script tag.
fn page_script(block: &str, glb: &[u8], rays: &Value) -> Vec<u8> {
    use base64::Engine;
    let glb = base64::engine::general_purpose::STANDARD.encode(glb);
    format!(
        "{PAGE_GLOBAL}.add({},\"{glb}\",{});\n",
        json!(block),
        serde_json::to_string(rays).expect("rays serialize")
    )
    .into_bytes()
}
