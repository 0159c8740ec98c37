//! Previews: renders are what the camera sidecar says, doors show through, the silhouette
//! matches the source model projected independently, and the report opens in a browser.

mod support;

use serde_json::Value;
use support::{stderr, Workspace};

/// An independent pinhole projection from a sidecar: pack metres to pixels (y down).
struct View {
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
    fn from_sidecar(v: &Value) -> View {
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

    fn project(&self, p: [f64; 3]) -> [f64; 2] {
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
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let Some(chromium) = chromium else {
        println!("skipped: Chromium is not installed (Debian package `chromium`), so the page is not opened in a browser");
        return;
    };
    let shot = ws.path("report.png");
    let profile = ws.path("chromium-profile");
    let status = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1024,1400",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", ws.path("build/report.html").display()))
        .output()
        .unwrap();
    assert!(
        shot.is_file(),
        "no screenshot: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let img = image::open(&shot).unwrap().to_rgba8();
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
