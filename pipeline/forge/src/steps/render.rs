//! `render`: a block's preview (the placed mesh, collision wireframes and check rays),
//! written to the set's render folder. The drawing itself is `forge_render`.

use std::collections::BTreeMap;

use forge_contract::Diagnostic;
use forge_render::{Camera, Line, Look, Options, Scene, Triangle};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::common::{block, params, pretty, source_file, text};
use super::kind::{Lands, Scope};
use super::{checks, collision, geometry, import, mesh};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "render",
        version: forge_render::VERSION,
        outputs: Names::Dynamic,
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Renders,
    wire,
};

pub use super::render_params::RenderParams;

/// What one block's render step is keyed on: the settings that change its pixels, and
/// which input is the model.
#[derive(Debug, Clone, Deserialize, Serialize)]
struct StepParams {
    size: u32,
    overlays: Vec<String>,
    turntable: u32,
    transparent: bool,
    outline: bool,
    model: String,
}

/// The donor static mesh, when the cook has donors: its slots are what the game wears.
const DONOR_MESH: &str = "donor_mesh.uasset";

/// What a preview's caption says about its colours: the model's, and what the game wears
/// instead when the cook has a donor mesh.
fn colours_caption(inputs: &Inputs) -> String {
    let slots = inputs
        .get(DONOR_MESH)
        .and_then(|donor| forge_mesh::unreal::donor_slot_names(donor).ok());
    match slots {
        Some(slots) => format!(
            "colours from the model; the game wears the donor's {}",
            slots.join(", ")
        ),
        None => "colours from the model".to_string(),
    }
}

/// A block's main render, which the contact sheet tiles.
pub fn main_output(block: &str) -> String {
    format!("{block}.png")
}

/// A block's turntable, one looping animated image.
pub fn turntable_output(block: &str) -> String {
    format!("{block}.turntable.gif")
}

/// The render reads what the checks read (it runs them, so a failing block is still drawn
/// with its failing rays) and the model with its images, for the materials' looks.
fn wire(w: &Wiring) -> Option<Wired> {
    let render = w.options.render.as_ref()?;
    let (model, mut inputs) = import::model_with_images(w);
    inputs.extend(checks::inputs(w));
    inputs.extend(super::donors::of_pack(
        w,
        DONOR_MESH,
        super::donors::STATIC_MESH,
    ));
    let params = StepParams {
        size: render.size,
        overlays: render.overlays.clone(),
        turntable: render.turntable,
        transparent: render.transparent,
        outline: render.outline,
        model,
    };
    Some(Wired {
        params: serde_json::to_string(&params).expect("render settings serialize"),
        inputs,
    })
}

/// `<block>.png` from the three-quarter view, with a `.json` sidecar (the camera, the
/// checks that fail, and notes on the model's textures). Each overlay asked for is its own
/// `<block>.<overlay>.png` (`collision`, `checks`) of the main view, never drawn over the
/// plain preview. A turntable is `<block>.turntable.gif`. A block whose checks fail is
/// drawn with its check rays (the failing ones red) and the findings written under it.
fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let block = block(step);
    let file = source_file(geometry::SOURCE);
    let params: StepParams = params(step, &file)?;
    let entry = forge_contract::parse_entry(&file, step.pack, text(inputs, "entry.json", &file)?)?;
    let (looks, notes) = looks(inputs, &params.model)?;
    let plain = Scene {
        triangles: triangles(&mesh::read(inputs, &file)?),
        looks,
        ..Scene::default()
    };
    let (geometry, report) = checks::run(step, inputs, &file)?;
    let failing = checks::findings(step, inputs, (&file, &params.model), &geometry, &report);
    let piece: Vec<[f64; 3]> = plain.triangles.iter().flat_map(|t| t.points).collect();
    let (lo, hi) = triangle_bounds(&plain.triangles);
    let options = Options {
        size: params.size,
        transparent: params.transparent,
        grid_m: entry.snap_m,
        outline: params.outline,
    };
    let camera = Camera::fit(&piece, 0.0, params.size);
    let mut out = Vec::new();
    let mut main = plain.clone();
    if !failing.is_empty() {
        check_rays(&mut main, &geometry, &report, lo, hi);
        main.caption = failing
            .iter()
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect();
    }
    let image = forge_render::render(&main, &camera, &options);
    out.push((main_output(block), forge_render::png(&image)));
    let mut cameras = Vec::new();
    if params.turntable > 0 {
        let frames: Vec<_> = (0..params.turntable)
            .map(|k| {
                let turn = 360.0 * f64::from(k) / f64::from(params.turntable);
                let view = Camera::fit(&piece, turn, params.size);
                let frame = forge_render::render(&plain, &view, &options);
                cameras.push(view);
                frame
            })
            .collect();
        out.push((
            turntable_output(block),
            forge_render::turntable_gif(&frames),
        ));
    }
    for overlay in &params.overlays {
        let mut with = plain.clone();
        match overlay.as_str() {
            "collision" => wireframes(&mut with, &collision::read(inputs, &file)?),
            _ => check_rays(&mut with, &geometry, &report, lo, hi),
        }
        let image = forge_render::render(&with, &camera, &options);
        out.push((format!("{block}.{overlay}.png"), forge_render::png(&image)));
    }
    let sidecar = json!({
        "camera": camera,
        "turntable": cameras,
        "units": "pack-space metres, Z up",
        "failing": failing,
        "notes": notes,
        "caption": colours_caption(inputs),
    });
    out.push((format!("{block}.json"), pretty(&sidecar)));
    Ok(out)
}

/// The mesh as the game places it, with its smooth normals and texture coordinates.
fn triangles(mesh: &forge_mesh::StaticMesh) -> Vec<Triangle> {
    let mut out = Vec::with_capacity(mesh.triangles.len());
    for s in &mesh.sections {
        let first = s.first_triangle as usize;
        let range = first..first + s.triangle_count as usize;
        for t in mesh.triangles.get(range).unwrap_or_default() {
            let corner = |k: usize| t[k] as usize;
            let normal = |k: usize| {
                let n = mesh.normals.get(corner(k)).copied().unwrap_or_default();
                forge_units::unreal_direction_to_pack(n.map(f64::from))
            };
            let uv = |k: usize| {
                let uv = mesh.uvs.get(corner(k)).copied().unwrap_or_default();
                uv.map(f64::from)
            };
            let has_normals = (0..3).all(|k| normal(k) != [0.0; 3]);
            out.push(Triangle {
                points: [0, 1, 2].map(|k| mesh.placed_m(mesh.positions[corner(k)])),
                material: s.material.clone(),
                normals: has_normals.then(|| [0, 1, 2].map(normal)),
                uvs: Some([0, 1, 2].map(uv)),
            });
        }
    }
    out
}

type Looks = BTreeMap<String, Look>;

/// The looks of the model's materials (base colour and texture), by slot, and a note for
/// each texture that cannot be shown.
fn looks(inputs: &Inputs, model_name: &str) -> Result<(Looks, Vec<String>), Vec<Diagnostic>> {
    let file = source_file(model_name);
    let mut looks = BTreeMap::new();
    let mut notes = Vec::new();
    for m in import::materials(inputs, model_name)? {
        if let Some(problem) = &m.texture_problem {
            notes.push(format!("{file}: material {:?}: {problem}", m.slot));
        }
        let texture = m.texture.and_then(|t| {
            forge_render::Texture::from_srgb8(t.width, t.height, &t.rgba8, t.wrap.map(wrap))
        });
        looks.entry(m.slot).or_insert(Look {
            base_colour: m.base_colour,
            texture,
            double_sided: m.double_sided,
            translucent: m.blend,
        });
    }
    Ok((looks, notes))
}

fn wrap(mode: forge_gltf::WrappingMode) -> forge_render::Wrap {
    match mode {
        forge_gltf::WrappingMode::ClampToEdge => forge_render::Wrap::ClampToEdge,
        forge_gltf::WrappingMode::MirroredRepeat => forge_render::Wrap::MirroredRepeat,
        forge_gltf::WrappingMode::Repeat => forge_render::Wrap::Repeat,
    }
}

fn triangle_bounds(triangles: &[Triangle]) -> ([f64; 3], [f64; 3]) {
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for p in triangles.iter().flat_map(|t| &t.points) {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    (lo, hi)
}

/// Every BSP edge of the collision, drawn over the mesh.
fn wireframes(scene: &mut Scene, model: &forge_collision::CollisionModel) {
    for region in &model.regions {
        let bsp = &region.bsp;
        for e in &bsp.edges {
            let p =
                |v: u16| forge_units::blam_to_pack(bsp.vertices[v as usize].point.map(f64::from));
            scene.lines.push(Line {
                from: p(e.start_vertex),
                to: p(e.end_vertex),
                colour: forge_render::WIREFRAME,
                on_top: true,
            });
        }
    }
}

/// The aperture and support rays, coloured by whether their check passed.
fn check_rays(
    scene: &mut Scene,
    geometry: &forge_contract::BlockGeometry,
    report: &forge_checks::BlockReport,
    lo: [f64; 3],
    hi: [f64; 3],
) {
    let passed = |check: &str, name: &str| {
        report
            .checks
            .iter()
            .find(|c| c.check == check && c.name == name)
            .is_none_or(|c| c.passed || c.waiver.is_some())
    };
    let colour = |ok: bool| {
        if ok {
            forge_render::PASS
        } else {
            forge_render::FAIL
        }
    };
    for a in &geometry.apertures {
        let c = colour(passed("apertures", &a.name));
        for r in forge_checks::aperture_rays(a, lo, hi) {
            let to = [0, 1, 2].map(|i| r.origin[i] + r.direction[i] * r.length);
            scene.lines.push(Line {
                from: r.origin,
                to,
                colour: c,
                on_top: true,
            });
        }
    }
    for s in &geometry.supports {
        let c = colour(passed("supports", &s.name));
        for (r, expected) in forge_checks::support_rays(s) {
            scene.lines.push(Line {
                from: r.origin,
                to: [r.origin[0], r.origin[1], expected],
                colour: c,
                on_top: true,
            });
        }
    }
}
