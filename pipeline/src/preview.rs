//! Preview steps: what a block's render shows (the placed mesh, collision wireframes and
//! check rays) and the pack's contact sheet. The drawing itself is `forge_render`.

use forge_render::{Camera, Line, Options, Scene, Triangle};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::graph::Step;
use crate::steps::{finding, Inputs, Outputs};
use forge_contract::Diagnostic;

/// The render settings a render step runs with; part of its key.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
pub struct RenderParams {
    pub size: u32,
    pub overlays: Vec<String>,
    pub turntable: u32,
    pub transparent: bool,
}

fn scene(
    inputs: &Inputs,
    params: &RenderParams,
    file: &str,
) -> Result<(Scene, [f64; 3], [f64; 3]), Vec<Diagnostic>> {
    let bad =
        |what: &str, e: String| vec![finding("bad_intermediate", file, format!("{what}: {e}"))];
    let mesh = inputs
        .get("static_mesh.fmsh")
        .ok_or_else(|| vec![finding("missing_input", file, "the static mesh is missing")])?;
    let mesh = forge_mesh::StaticMesh::from_bytes(mesh).map_err(|e| bad("mesh", e))?;
    let place = |p: [f32; 3]| {
        forge_units::unreal_to_pack([0, 1, 2].map(|i| f64::from(p[i]) + mesh.offset_cm[i]))
    };
    let mut scene = Scene::default();
    for s in &mesh.sections {
        for t in &mesh.triangles
            [s.first_triangle as usize..(s.first_triangle + s.triangle_count) as usize]
        {
            scene.triangles.push(Triangle {
                points: t.map(|i| place(mesh.positions[i as usize])),
                material: s.material.clone(),
            });
        }
    }
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for t in &scene.triangles {
        for p in &t.points {
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
    }
    if params.overlays.iter().any(|o| o == "collision") {
        let model = forge_collision::CollisionModel::from_bytes(
            inputs.get("collision.fcol").ok_or_else(|| {
                vec![finding(
                    "missing_input",
                    file,
                    "the collision model is missing",
                )]
            })?,
        )
        .map_err(|e| bad("collision", e))?;
        for region in &model.regions {
            let bsp = &region.bsp;
            for e in &bsp.edges {
                let p = |v: u16| {
                    forge_units::blam_to_pack(bsp.vertices[v as usize].point.map(f64::from))
                };
                scene.lines.push(Line {
                    from: p(e.start_vertex),
                    to: p(e.end_vertex),
                    colour: forge_render::WIREFRAME,
                    on_top: true,
                });
            }
        }
    }
    if params.overlays.iter().any(|o| o == "checks") {
        let geometry = forge_contract::geometry::parse_block(
            file,
            std::str::from_utf8(
                inputs
                    .get("geometry.json")
                    .map(|b| b.as_slice())
                    .unwrap_or(b"{}"),
            )
            .unwrap_or("{}"),
        )?;
        let report: Value = inputs
            .get("checks.json")
            .and_then(|b| serde_json::from_slice(b).ok())
            .unwrap_or(Value::Null);
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
    }
    Ok((scene, lo, hi))
}

/// A block's render(s): `<block>.png` from the three-quarter view, and with a turntable
/// `<block>_tNN.png` for each angle, each with a `.json` camera sidecar.
pub fn render_block(step: &Step, inputs: &Inputs) -> Result<Outputs, Vec<Diagnostic>> {
    let block = step.block.as_deref().unwrap_or_default();
    let file = format!("{}/source/geometry.json", step.pack);
    let params: RenderParams = serde_json::from_str(&step.params)
        .map_err(|e| vec![finding("bad_params", &file, e.to_string())])?;
    let entry = forge_contract::parse_entry(
        &file,
        &step.pack,
        std::str::from_utf8(
            inputs
                .get("entry.json")
                .map(|b| b.as_slice())
                .unwrap_or(b"{}"),
        )
        .unwrap_or("{}"),
    )?;
    let (scene, lo, hi) = scene(inputs, &params, &file)?;
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
        let image = forge_render::render(&scene, &camera, &options);
        out.push((format!("{name}.png"), forge_render::png(&image)));
        let mut sidecar = serde_json::to_vec_pretty(
            &json!({"camera": camera, "units": "pack-space metres, Z up"}),
        )
        .expect("serializes");
        sidecar.push(b'\n');
        out.push((format!("{name}.json"), sidecar));
    };
    view(block.to_string(), 0.0);
    for k in 0..params.turntable {
        view(
            format!("{block}_t{k:02}"),
            360.0 * f64::from(k) / f64::from(params.turntable),
        );
    }
    Ok(out)
}

/// The pack's contact sheet from every block's main render.
pub fn contact_sheet(step: &Step, inputs: &Inputs) -> Result<Outputs, Vec<Diagnostic>> {
    let file = format!("{}/mjolnir.json", step.pack);
    let blocks: Vec<String> = serde_json::from_str(&step.params)
        .map_err(|e| vec![finding("bad_params", &file, e.to_string())])?;
    let mut tiles = Vec::new();
    for block in &blocks {
        let png = inputs.get(&format!("{block}.png")).ok_or_else(|| {
            vec![finding(
                "missing_input",
                &file,
                format!("{block}.png is missing"),
            )]
        })?;
        let image = image_from_png(png).map_err(|e| vec![finding("bad_intermediate", &file, e)])?;
        let entry = forge_contract::parse_entry(
            &file,
            &step.pack,
            std::str::from_utf8(
                inputs
                    .get(&format!("{block}.entry.json"))
                    .map(|b| b.as_slice())
                    .unwrap_or(b"{}"),
            )
            .unwrap_or("{}"),
        )?;
        let d = entry.dimensions_m;
        tiles.push((
            vec![
                entry.name.clone(),
                format!("{} x {} x {} m", d[0], d[1], d[2]),
            ],
            image,
        ));
    }
    let sheet = forge_render::contact_sheet(&tiles, 192);
    Ok(vec![(
        "contact_sheet.png".to_string(),
        forge_render::png(&sheet),
    )])
}

fn image_from_png(bytes: &[u8]) -> Result<image::RgbaImage, String> {
    forge_render::decode_png(bytes)
}
