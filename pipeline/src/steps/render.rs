//! `render`: a block's preview (the placed mesh, collision wireframes and check rays),
//! written to the set's render folder. The drawing itself is `forge_render`.

use forge_contract::Diagnostic;
use forge_render::{Camera, Line, Options, Scene, Triangle};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{
    bad_intermediate, block, catalog, checks, collision, geometry, label, mesh, params, pretty,
    text, Cooked, Inputs, Lands, Names, Scope, StepKind, Wired,
};
use crate::graph::Step;
use crate::wiring::Wiring;

pub static KIND: StepKind = StepKind {
    name: "render",
    version: forge_render::VERSION,
    scope: Scope::Block,
    lands: Lands::Renders,
    outputs: Names::Dynamic,
    wire,
    cook,
};

/// The render settings a render step runs with; part of its key.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
pub struct RenderParams {
    pub size: u32,
    pub overlays: Vec<String>,
    pub turntable: u32,
    pub transparent: bool,
}

/// A block's main render, which the contact sheet tiles.
pub fn main_output(block: &str) -> String {
    format!("{block}.png")
}

fn wire(w: &Wiring) -> Option<Wired> {
    let render = w.options.render.as_ref()?;
    Some(Wired {
        params: serde_json::to_string(render).expect("render settings serialize"),
        inputs: vec![
            mesh::of_block(w),
            collision::of_block(w),
            w.upstream(checks::OUTPUT, &checks::KIND, checks::OUTPUT),
            catalog::entry(w),
            geometry::of_block(w),
        ],
    })
}

/// `<block>.png` from the three-quarter view, and with a turntable `<block>_tNN.png` for
/// each angle, each with a `.json` camera sidecar. Each overlay asked for is its own
/// `<block>.<overlay>.png` (`collision`, `checks`) of the main view, never drawn over the
/// plain preview.
fn cook(step: &Step, inputs: &Inputs) -> Cooked {
    let block = block(step);
    let file = label(step, geometry::SOURCE);
    let params: RenderParams = params(step, &file)?;
    let entry = forge_contract::parse_entry(&file, &step.pack, text(inputs, "entry.json", &file)?)?;
    let (plain, lo, hi) = scene(inputs, &[], &file)?;
    // Frame the declared dimensions around the placed mesh's centre.
    let centre = [0, 1, 2].map(|a| (lo[a] + hi[a]) / 2.0);
    let half = entry.dimensions_m.map(|d| d / 2.0);
    let (box_lo, box_hi) = (
        [0, 1, 2].map(|a| centre[a] - half[a]),
        [0, 1, 2].map(|a| centre[a] + half[a]),
    );
    let options = Options {
        size: params.size,
        transparent: params.transparent,
        grid_m: entry.snap_m,
    };
    let mut out = Vec::new();
    let mut view = |name: String, turn: f64| {
        let camera = Camera::framing(box_lo, box_hi, turn, params.size);
        let image = forge_render::render(&plain, &camera, &options);
        out.push((format!("{name}.png"), forge_render::png(&image)));
        let sidecar = json!({"camera": camera, "units": "pack-space metres, Z up"});
        out.push((format!("{name}.json"), pretty(&sidecar)));
    };
    view(block.to_string(), 0.0);
    for k in 0..params.turntable {
        view(
            format!("{block}_t{k:02}"),
            360.0 * f64::from(k) / f64::from(params.turntable),
        );
    }
    for overlay in &params.overlays {
        let (with, _, _) = scene(inputs, std::slice::from_ref(overlay), &file)?;
        let camera = Camera::framing(box_lo, box_hi, 0.0, params.size);
        let image = forge_render::render(&with, &camera, &options);
        out.push((format!("{block}.{overlay}.png"), forge_render::png(&image)));
    }
    Ok(out)
}

/// The scene and the placed mesh's bounds.
fn scene(
    inputs: &Inputs,
    overlays: &[String],
    file: &str,
) -> Result<(Scene, [f64; 3], [f64; 3]), Vec<Diagnostic>> {
    let mesh = mesh::read(inputs, file)?;
    let mut scene = Scene::default();
    for s in &mesh.sections {
        let first = s.first_triangle as usize;
        for t in &mesh.triangles[first..first + s.triangle_count as usize] {
            scene.triangles.push(Triangle {
                points: t.map(|i| mesh.placed_m(mesh.positions[i as usize])),
                material: s.material.clone(),
            });
        }
    }
    let (lo, hi) = triangle_bounds(&scene.triangles);
    if overlays.iter().any(|o| o == "collision") {
        wireframes(&mut scene, &collision::read(inputs, file)?);
    }
    if overlays.iter().any(|o| o == "checks") {
        check_rays(&mut scene, inputs, file, lo, hi)?;
    }
    Ok((scene, lo, hi))
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
    inputs: &Inputs,
    file: &str,
    lo: [f64; 3],
    hi: [f64; 3],
) -> Result<(), Vec<Diagnostic>> {
    let geometry =
        forge_contract::geometry::parse_block(file, text(inputs, geometry::SHIPPED_AS, file)?)?;
    let report: Value = serde_json::from_str(text(inputs, checks::OUTPUT, file)?)
        .map_err(|e| bad_intermediate(file, "checks", e))?;
    let passed = |check: &str, name: &str| {
        report["checks"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["check"] == check && c["name"] == name)
            .is_none_or(|c| c["passed"] == true)
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
    Ok(())
}
