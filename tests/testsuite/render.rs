//! Previews: renders are what the camera sidecar says, doors show through, the silhouette
//! matches the source model projected independently, and the report opens in a browser.

use crate::support;

use serde_json::Value;
use support::{stderr, Workspace};

/// An independent pinhole projection from a sidecar: pack metres to pixels (y down).
pub struct View {
    eye: [f64; 3],
    right: [f64; 3],
    up: [f64; 3],
    fwd: [f64; 3],
    focal: f64,
    size: f64,
}

fn norm(v: [f64; 3]) -> [f64; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|c| c / l)
}

impl View {
    pub fn from_sidecar(v: &Value) -> View {
        let c = &v["camera"];
        let get = |k: &str| [0, 1, 2].map(|i| c[k][i].as_f64().unwrap());
        let (eye, target, up) = (get("position_m"), get("target_m"), get("up"));
        let fwd = norm([target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]]);
        let right = norm([
            fwd[1] * up[2] - fwd[2] * up[1],
            fwd[2] * up[0] - fwd[0] * up[2],
            fwd[0] * up[1] - fwd[1] * up[0],
        ]);
        let up = [
            right[1] * fwd[2] - right[2] * fwd[1],
            right[2] * fwd[0] - right[0] * fwd[2],
            right[0] * fwd[1] - right[1] * fwd[0],
        ];
        let fov = c["vertical_fov_deg"].as_f64().unwrap().to_radians();
        let size = c["resolution"][0].as_f64().unwrap();
        View {
            eye,
            right,
            up,
            fwd,
            focal: 1.0 / (fov / 2.0).tan(),
            size,
        }
    }

    pub fn project(&self, p: [f64; 3]) -> [f64; 2] {
        let d = [p[0] - self.eye[0], p[1] - self.eye[1], p[2] - self.eye[2]];
        let dot = |a: [f64; 3]| a[0] * d[0] + a[1] * d[1] + a[2] * d[2];
        let z = dot(self.fwd);
        [
            (dot(self.right) / z * self.focal + 1.0) / 2.0 * self.size,
            (1.0 - dot(self.up) / z * self.focal) / 2.0 * self.size,
        ]
    }
}

fn rendered(ws: &Workspace, block: &str) -> (image::RgbaImage, View) {
    let dir = ws.path(&format!("build/render/foundry/{block}"));
    let png = image::open(dir.join(format!("{block}.png")))
        .unwrap()
        .to_rgba8();
    let sidecar: Value =
        serde_json::from_slice(&std::fs::read(dir.join(format!("{block}.json"))).unwrap()).unwrap();
    (png, View::from_sidecar(&sidecar))
}

#[test]
fn a_doorway_shows_the_background_through_the_wall() {
    let ws = Workspace::with_packs(&["foundry"]);
    let out = ws.mjolnir(&[
        "forge",
        "render",
        "foundry",
        "--only",
        "wall_door",
        "--transparent",
        "--size",
        "256",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (png, view) = rendered(&ws, "wall_door");
    let [x, y] = view.project([0.0, 0.0, 1.5]);
    assert_eq!(
        png.get_pixel(x as u32, y as u32)[3],
        0,
        "the door's centre is background"
    );
    let [x, y] = view.project([1.5, -0.25, 2.0]);
    assert_eq!(
        png.get_pixel(x as u32, y as u32)[3],
        255,
        "the post beside it is solid"
    );
}

fn coverage(tris: &[[[f64; 2]; 3]], size: u32) -> Vec<bool> {
    let mut mask = vec![false; (size * size) as usize];
    for t in tris {
        let area =
            (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[1][1] - t[0][1]) * (t[2][0] - t[0][0]);
        if area.abs() < 1e-12 {
            continue;
        }
        let (x0, x1) = (
            t.iter().map(|p| p[0]).fold(f64::MAX, f64::min).max(0.0) as u32,
            t.iter()
                .map(|p| p[0])
                .fold(f64::MIN, f64::max)
                .min(f64::from(size) - 1.0) as u32,
        );
        let (y0, y1) = (
            t.iter().map(|p| p[1]).fold(f64::MAX, f64::min).max(0.0) as u32,
            t.iter()
                .map(|p| p[1])
                .fold(f64::MIN, f64::max)
                .min(f64::from(size) - 1.0) as u32,
        );
        for y in y0..=y1 {
            for x in x0..=x1 {
                let (px, py) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
                let e = |a: [f64; 2], b: [f64; 2]| {
                    (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0])
                };
                let (w0, w1, w2) = (e(t[1], t[2]), e(t[2], t[0]), e(t[0], t[1]));
                if (w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0) || (w0 <= 0.0 && w1 <= 0.0 && w2 <= 0.0) {
                    mask[(y * size + x) as usize] = true;
                }
            }
        }
    }
    mask
}

#[test]
fn silhouettes_match_the_source_projected_independently() {
    let ws = Workspace::with_packs(&["foundry"]);
    let blocks = [
        "wall_window",
        "stairs_2x4",
        "deck_4x4",
        "light_post",
        "ramp_2x4",
    ];
    for block in blocks {
        let out = ws.mjolnir(&[
            "forge",
            "render",
            "foundry",
            "--only",
            block,
            "--transparent",
            "--size",
            "256",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let (png, view) = rendered(&ws, block);
        let models = ws.path("packs/foundry/source/models");
        let gltf = std::fs::read(models.join(format!("{block}.gltf"))).unwrap();
        let bin = std::fs::read(models.join(format!("{block}.bin"))).unwrap();
        let mesh = forge_gltf::import(
            "m.gltf",
            &gltf,
            &[(format!("{block}.bin"), bin)].into_iter().collect(),
        )
        .unwrap();
        let tris: Vec<[[f64; 2]; 3]> = mesh
            .triangles
            .iter()
            .map(|t| t.map(|i| view.project(mesh.positions[i as usize])))
            .collect();
        let reference = coverage(&tris, png.width());
        let ours: Vec<bool> = png.pixels().map(|p| p[3] >= 128).collect();
        let inter = ours
            .iter()
            .zip(&reference)
            .filter(|(a, b)| **a && **b)
            .count() as f64;
        let union = ours
            .iter()
            .zip(&reference)
            .filter(|(a, b)| **a || **b)
            .count() as f64;
        let iou = inter / union;
        assert!(iou >= 0.98, "{block}: IoU {iou:.4}");
    }
}

#[test]
fn turntables_sheets_and_caching() {
    let ws = Workspace::with_packs(&["foundry"]);
    let out = ws.mjolnir(&[
        "forge",
        "render",
        "foundry",
        "--only",
        "column_1",
        "--only",
        "floor_2x2",
        "--turntable",
        "4",
        "--overlay",
        "collision",
        "--size",
        "128",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dir = ws.path("build/render/foundry/column_1+floor_2x2");
    // The turntable is one looping animation of four views, with their cameras beside it.
    let gif = std::fs::File::open(dir.join("column_1.turntable.gif")).unwrap();
    let decoder = image::codecs::gif::GifDecoder::new(std::io::BufReader::new(gif)).unwrap();
    let frames = image::AnimationDecoder::into_frames(decoder)
        .collect_frames()
        .unwrap();
    assert_eq!(frames.len(), 4);
    assert!(frames[0].buffer() != frames[1].buffer(), "each view turns");
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("column_1.json")).unwrap()).unwrap();
    assert_eq!(sidecar["turntable"].as_array().unwrap().len(), 4);
    // The report shows the turntable on the block's card.
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    assert!(
        html.contains("src=\"render/foundry/column_1+floor_2x2/column_1.turntable.gif\""),
        "{html}"
    );
    // Thumbnails are readable by default: 256 pixels.
    let sheet = image::open(dir.join("contact_sheet.png")).unwrap();
    assert!(sheet.width() >= 2 * 256, "{}", sheet.width());
    // The overlay is its own image; the plain preview stays plain.
    let plain = image::open(dir.join("column_1.png")).unwrap().to_rgba8();
    let overlay = image::open(dir.join("column_1.collision.png"))
        .unwrap()
        .to_rgba8();
    assert_eq!(plain.dimensions(), overlay.dimensions());
    assert!(plain != overlay, "the overlay draws the hull wireframes");
    let again = ws.mjolnir(&[
        "forge",
        "render",
        "foundry",
        "--only",
        "column_1",
        "--only",
        "floor_2x2",
        "--turntable",
        "4",
        "--overlay",
        "collision",
        "--size",
        "128",
    ]);
    assert_eq!(again.status.code(), Some(0));
    assert!(ws.ran().is_empty(), "renders are cached like any step");
}

#[test]
fn the_report_opens_in_a_real_browser() {
    let ws = Workspace::with_packs(&["foundry"]);
    let out = ws.mjolnir(&["forge", "render", "foundry", "--size", "96"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    assert!(
        html.contains("render/foundry/all/contact_sheet.png") && html.contains("Cache hit rate")
    );
    let Some(chromium) = support::chromium() else {
        return;
    };
    let img = ws.screenshot(chromium, "build/report.html");
    // The page drew the contact sheet: its neutral tile background appears in the shot.
    let tiles = img
        .pixels()
        .filter(|p| p[0] == 235 && p[1] == 235 && p[2] == 237)
        .count();
    assert!(
        tiles > 10_000,
        "the contact sheet is not visible in the screenshot ({tiles} tile pixels)"
    );
}

/// Red in a preview: the failing rays and the finding's text.
fn red_pixels(img: &image::RgbaImage) -> usize {
    img.pixels()
        .filter(|p| p[0] > 180 && p[1] < 90 && p[2] < 90)
        .count()
}

#[test]
fn a_failing_block_is_drawn_with_what_failed_and_old_previews_are_not_shown() {
    let ws = Workspace::with_packs(&["foundry"]);
    let render = [
        "forge",
        "render",
        "foundry",
        "--only",
        "wall_door",
        "--size",
        "128",
    ];
    assert_eq!(ws.mjolnir(&render).status.code(), Some(0));
    let dir = ws.path("build/render/foundry/wall_door");
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    assert!(
        html.contains("src=\"render/foundry/wall_door/wall_door.png\""),
        "{html}"
    );
    let passing = image::open(dir.join("wall_door.png")).unwrap().to_rgba8();
    assert_eq!(red_pixels(&passing), 0, "a passing block has no red");
    // The doorway closed in the model: the checks fail.
    let models = ws.path("packs/foundry/source/models");
    std::fs::copy(models.join("wall_2.gltf"), models.join("wall_door.gltf")).unwrap();
    // A plain cook does not render: the old preview is not shown as if it were current.
    assert_eq!(
        ws.mjolnir(&["forge", "cook", "--only", "wall_door"])
            .status
            .code(),
        Some(1)
    );
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    assert!(
        !html.contains("wall_door.png"),
        "a stale preview is left out"
    );
    // Rendering draws the failing block anyway, with its red rays and the finding.
    assert_eq!(ws.mjolnir(&render).status.code(), Some(1));
    let failing = image::open(dir.join("wall_door.png")).unwrap().to_rgba8();
    assert!(
        red_pixels(&failing) > 200,
        "red rays and text: {}",
        red_pixels(&failing)
    );
    let sidecar: Value =
        serde_json::from_slice(&std::fs::read(dir.join("wall_door.json")).unwrap()).unwrap();
    assert_eq!(sidecar["failing"][0]["code"], "aperture_blocked_visual");
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    assert!(
        html.contains("src=\"render/foundry/wall_door/wall_door.png\""),
        "{html}"
    );
    let Some(chromium) = support::chromium() else {
        return;
    };
    let page = ws.dom(chromium, "build/report.html");
    assert!(page.contains("aperture_blocked_visual"), "{page}");
    let shot = ws.screenshot(chromium, "build/report.html");
    let first = *shot.get_pixel(0, 0);
    let differing = shot.pixels().filter(|p| **p != first).count();
    assert!(
        differing > 5_000,
        "the page is not blank: {differing} pixels differ"
    );
    assert!(
        red_pixels(&shot) > 100,
        "the failure shows in red on the page"
    );
}

/// The colour a lit face shows: a linear albedo under the studio light `light`, as sRGB.
fn lit(albedo: [f32; 3], light: f32) -> [u8; 3] {
    albedo.map(|c| (forge_render::linear_to_srgb(c * light) * 255.0).round() as u8)
}

fn near(p: &image::Rgba<u8>, want: [u8; 3]) -> bool {
    (0..3).all(|k| (i16::from(p[k]) - i16::from(want[k])).abs() <= 3)
}

/// floor_2x2 with a 4×4 texture of one sRGB red, beside the model, on its inner floor
/// (steel_dark), and a hazard-yellow factor on its rim (steel). Returns the texture.
pub fn texture_the_floor(ws: &Workspace) -> image::RgbaImage {
    let texture = image::RgbaImage::from_pixel(4, 4, image::Rgba([200, 40, 40, 255]));
    texture
        .save(ws.path("packs/foundry/source/models/panel.png"))
        .unwrap();
    ws.edit_json("packs/foundry/source/models/floor_2x2.gltf", |g| {
        g["materials"][0]["pbrMetallicRoughness"]["baseColorFactor"] =
            serde_json::json!([1.0, 0.5, 0.0, 1.0]);
        g["materials"][1]["pbrMetallicRoughness"]["baseColorFactor"] =
            serde_json::json!([1.0, 1.0, 1.0, 1.0]);
        g["materials"][1]["pbrMetallicRoughness"]["baseColorTexture"] =
            serde_json::json!({"index": 0});
        g["images"] = serde_json::json!([{"uri": "panel.png"}]);
        g["textures"] = serde_json::json!([{"source": 0}]);
    });
    texture
}

#[test]
fn previews_show_the_models_base_colours_and_textures_under_the_studio_light() {
    let ws = Workspace::with_packs(&["foundry"]);
    texture_the_floor(&ws);
    let out = ws.mjolnir(&[
        "forge",
        "render",
        "foundry",
        "--only",
        "floor_2x2",
        "--size",
        "128",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let dir = ws.path("build/render/foundry/floor_2x2");
    let img = image::open(dir.join("floor_2x2.png")).unwrap().to_rgba8();
    let sidecar: Value =
        serde_json::from_slice(&std::fs::read(dir.join("floor_2x2.json")).unwrap()).unwrap();
    let camera: forge_render::Camera = serde_json::from_value(sidecar["camera"].clone()).unwrap();
    // Both lit regions are the top faces, facing straight up.
    let light = forge_render::shading::Studio::facing(&camera).light([0.0, 0.0, 1.0]);
    let red = forge_render::srgb_to_linear(200.0 / 255.0);
    let green = forge_render::srgb_to_linear(40.0 / 255.0);
    let textured = lit([red, green, green], light);
    let yellow = lit([1.0, 0.5, 0.0], light);
    let centre = img.get_pixel(64, 64);
    assert!(
        near(centre, textured),
        "the centre {centre:?}, want {textured:?}"
    );
    let rim = img.pixels().filter(|p| near(p, yellow)).count();
    assert!(rim > 100, "{rim} rim pixels in {yellow:?}");
    // A change to the texture alone renders again.
    let blue = image::RgbaImage::from_pixel(4, 4, image::Rgba([40, 40, 200, 255]));
    blue.save(ws.path("packs/foundry/source/models/panel.png"))
        .unwrap();
    let again = ws.mjolnir(&[
        "forge",
        "render",
        "foundry",
        "--only",
        "floor_2x2",
        "--size",
        "128",
    ]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let img = image::open(dir.join("floor_2x2.png")).unwrap().to_rgba8();
    let centre = img.get_pixel(64, 64);
    assert!(centre[2] > centre[0], "the new texture shows: {centre:?}");
}

#[test]
fn a_failing_cook_draws_every_preview_the_same_on_one_thread_and_two() {
    let ws = Workspace::with_packs(&["foundry"]);
    let toml = std::fs::read_to_string(ws.path("pipeline.toml")).unwrap();
    std::fs::write(
        ws.path("pipeline.toml"),
        toml + "\n[render]\nenabled = true\nsize = 64\n",
    )
    .unwrap();
    // The doorway plugged in the model: wall_door's checks fail; wall_2's pass.
    let models = ws.path("packs/foundry/source/models");
    std::fs::copy(models.join("wall_2.gltf"), models.join("wall_door.gltf")).unwrap();
    let mut first = None;
    for run in 0..10 {
        let jobs = if run % 2 == 0 { "1" } else { "2" };
        let _ = std::fs::remove_dir_all(ws.path("build/render"));
        let out = ws.mjolnir(&[
            "forge",
            "cook",
            "--no-cache",
            "--jobs",
            jobs,
            "--only",
            "wall_door",
            "--only",
            "wall_2",
        ]);
        assert_eq!(out.status.code(), Some(1), "the cook still fails");
        let report = ws.report();
        let steps: Vec<String> = report["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| format!("{} {}", s["id"].as_str().unwrap(), s["status"]))
            .collect();
        let previews = support::tree(&ws.path("build/render"));
        let pngs: Vec<&String> = previews.keys().filter(|k| k.ends_with(".png")).collect();
        assert!(
            pngs.iter().any(|k| k.ends_with("wall_door.png"))
                && pngs.iter().any(|k| k.ends_with("wall_2.png")),
            "run {run} (-j{jobs}): every preview is drawn: {pngs:?}"
        );
        assert!(
            previews.keys().any(|k| k.ends_with("wall_door.glb"))
                && previews.keys().any(|k| k.ends_with("wall_door.rays.json")),
            "run {run} (-j{jobs}): the failing block's 3D view is made too"
        );
        match &first {
            None => first = Some((previews, steps)),
            Some((previews0, steps0)) => {
                assert_eq!(
                    &steps, steps0,
                    "run {run} (-j{jobs}): the same steps and outcomes"
                );
                assert!(
                    previews == *previews0,
                    "run {run} (-j{jobs}): the same previews, byte for byte"
                );
            }
        }
    }
}

#[test]
fn the_previews_say_the_game_wears_the_donors_slots() {
    let ws = Workspace::with_packs(&["foundry"]);
    let out = ws.mjolnir(&["forge", "cook", "--only", "wall_2"]);
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert_eq!(
        said.matches(
            "in the game every piece wears the donor mesh's material slots (Primary, Secondary)"
        )
        .count(),
        1,
        "the cook notes it once: {said}"
    );
    let render = [
        "forge", "render", "foundry", "--only", "wall_2", "--size", "64",
    ];
    assert_eq!(ws.mjolnir(&render).status.code(), Some(0));
    let sidecar: Value = serde_json::from_slice(
        &std::fs::read(ws.path("build/render/foundry/wall_2/wall_2.json")).unwrap(),
    )
    .unwrap();
    let caption = "colours from the model; the game wears the donor's Primary, Secondary";
    assert_eq!(sidecar["caption"], caption);
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    assert!(html.contains(caption), "{html}");
}
