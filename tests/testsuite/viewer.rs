//! The report's 3D viewer, in a real browser (headless Chromium drawing WebGL through
//! SwiftShader): it frames each block as its preview does, its hull toggle changes the
//! picture, and a failing ray is red with its hit where the cook says.

use crate::render::View;
use crate::support;

use serde_json::Value;
use support::{stderr, Workspace};

const SIZE: u32 = 256;

/// Every view the report links: `(key, data script)`.
fn views(ws: &Workspace) -> Vec<(String, String)> {
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    html.split("data-view=\"")
        .skip(1)
        .map(|rest| {
            let key = rest.split('"').next().unwrap().to_string();
            let src = rest.split("data-src=\"").nth(1).unwrap();
            (key, src.split('"').next().unwrap().to_string())
        })
        .collect()
}

/// Renders one foundry block at [`SIZE`], expecting `code`; returns its view's key and
/// data script.
fn render_one(ws: &Workspace, block: &str, code: i32) -> (String, String) {
    let size = SIZE.to_string();
    let render = [
        "forge", "render", "foundry", "--only", block, "--size", &size,
    ];
    let out = ws.mjolnir(&render);
    assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
    views(ws).remove(0)
}

fn rays(ws: &Workspace, script: &str) -> Value {
    let path = ws.path(&format!(
        "build/{}",
        script.replace(".view.js", ".rays.json")
    ));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn iou(a: &[bool], b: &[bool]) -> f64 {
    let both = a.iter().zip(b).filter(|(x, y)| **x && **y).count() as f64;
    let either = a.iter().zip(b).filter(|(x, y)| **x || **y).count() as f64;
    both / either
}

#[test]
fn every_blocks_view_from_the_preview_camera_matches_its_preview() {
    let ws = Workspace::with_packs(&["foundry", "foundry-wide", "roadworks"]);
    // Without outlines, the preview's silhouette is the mesh's alone; at the default size,
    // as a railing's posts are only a few pixels wide at 256, where a pixel's edge rule
    // weighs on their outline. What hides most of the background is compared: a preview
    // pixel from alpha 160, above where two layers of the stock glass (35% each) overlap
    // (58%), and in the view's silhouette, see-through surfaces from that opacity.
    let out = ws.mjolnir(&["forge", "render", "--transparent", "--no-outline"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let views = views(&ws);
    assert!(views.len() >= 50, "every stock block has a view: {views:?}");
    for (_, script) in &views {
        assert!(ws.path(&format!("build/{script}")).is_file(), "{script}");
    }
    let Some(chromium) = support::chromium() else {
        return;
    };
    for (key, script) in &views {
        let fragment = format!("view={key}&shot=1&silhouette=1");
        let shot = ws.webgl_screenshot(chromium, "build/report.html", &fragment, [512; 2]);
        let png = ws.path(&format!("build/{}", script.replace(".view.js", ".png")));
        let preview = image::open(png).unwrap().to_rgba8();
        let ours: Vec<bool> = shot.pixels().map(|p| p[0] >= 128).collect();
        let theirs: Vec<bool> = preview.pixels().map(|p| p[3] >= 160).collect();
        let iou = iou(&ours, &theirs);
        assert!(iou >= 0.95, "{key}: IoU {iou:.4} against the preview");
    }
}

#[test]
fn the_hull_toggle_changes_the_picture() {
    let ws = Workspace::with_packs(&["foundry"]);
    let (key, _) = render_one(&ws, "wall_door", 0);
    let Some(chromium) = support::chromium() else {
        return;
    };
    let shot = |fragment: &str| {
        let fragment = format!("view={key}&shot=1&rays=0&shapes=0&{fragment}");
        ws.webgl_screenshot(chromium, "build/report.html", &fragment, [SIZE; 2])
    };
    let without = shot("hulls=0");
    let wire = shot("hulls=1");
    let solid = shot("hulls=1&hullstyle=solid");
    let differing = |a: &image::RgbaImage, b: &image::RgbaImage| {
        a.pixels().zip(b.pixels()).filter(|(x, y)| x != y).count()
    };
    assert!(differing(&without, &wire) > 300, "the hulls' edges show");
    assert!(
        differing(&wire, &solid) > 3000,
        "solid hulls cover the mesh"
    );
    let blank = without
        .pixels()
        .filter(|p| **p == *without.get_pixel(0, 0))
        .count();
    assert!(blank < (SIZE * SIZE) as usize * 9 / 10, "the mesh is drawn");
}

/// A pixel of the failing red, near `at`.
fn red_near(img: &image::RgbaImage, at: [f64; 2], radius: i64) -> bool {
    let (x, y) = (at[0] as i64, at[1] as i64);
    (-radius..=radius).any(|dy| {
        (-radius..=radius).any(|dx| {
            let (px, py) = (x + dx, y + dy);
            px >= 0 && py >= 0 && (px as u32) < img.width() && (py as u32) < img.height() && {
                let p = img.get_pixel(px as u32, py as u32);
                p[0] > 180 && p[1] < 90 && p[2] < 90
            }
        })
    })
}

#[test]
fn a_failing_rays_hit_is_drawn_red_where_the_cook_says() {
    let ws = Workspace::with_packs(&["foundry"]);
    let models = ws.path("packs/foundry/source/models");
    std::fs::copy(models.join("wall_2.gltf"), models.join("wall_door.gltf")).unwrap();
    // The doorway is closed: the cook fails.
    let (key, script) = render_one(&ws, "wall_door", 1);
    let data = rays(&ws, &script);
    let doorway = &data["checks"][0];
    assert_eq!(doorway["name"], "doorway");
    assert_eq!(doorway["failure"]["code"], "aperture_blocked_visual");
    let rays = doorway["rays"].as_array().unwrap();
    assert!(
        rays.iter().all(|r| r["passed"] == false),
        "a wall blocks every ray"
    );
    // The cook's own finding names its first failing ray's hit; the trace agrees.
    let hit = &rays[0]["hit"];
    assert_eq!(hit["by"], "visual");
    let point: Vec<f64> = hit["point_m"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    assert!(
        html.contains(&format!("#view={key}&amp;frame=aperture_blocked_visual")),
        "the finding links its rays"
    );
    let Some(chromium) = support::chromium() else {
        return;
    };
    let view = View::from_sidecar(&data);
    let at = view.project([point[0], point[1], point[2]]);
    let fragment = format!("view={key}&shot=1&hulls=0&shapes=0");
    let shot = ws.webgl_screenshot(chromium, "build/report.html", &fragment, [SIZE; 2]);
    assert!(red_near(&shot, at, 2), "the hit marker at {at:?}");
    let without = ws.webgl_screenshot(
        chromium,
        "build/report.html",
        &format!("view={key}&shot=1&hulls=0&shapes=0&rays=0"),
        [SIZE; 2],
    );
    assert!(
        !red_near(&without, at, 2),
        "nothing red there without the rays"
    );
}

#[test]
fn view_data_is_cached_inspectable_and_never_shipped() {
    let ws = Workspace::with_packs(&["foundry"]);
    let (_, script) = render_one(&ws, "wall_door", 0);
    let inspect = |rel: &str| {
        let out = ws.mjolnir(&["forge", "inspect", &format!("build/{rel}")]);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr(&out),
        )
    };
    let glb = script.replace(".view.js", ".glb");
    let rays = script.replace(".view.js", ".rays.json");
    for rel in [&glb, &script] {
        let (code, text, err) = inspect(rel);
        assert_eq!(code, Some(0), "{rel}: {err}");
        assert!(
            text.contains("\"visual\"") && text.contains("\"UCX_lintel\": 12 triangles"),
            "{text}"
        );
    }
    for rel in [&rays, &script] {
        let (_, text, _) = inspect(rel);
        assert!(
            text.contains("apertures/doorway: 117 rays, 0 failing"),
            "{text}"
        );
    }
    // A page script cut short is named, not guessed at.
    let bytes = std::fs::read(ws.path(&format!("build/{script}"))).unwrap();
    std::fs::write(ws.path("build/cut.view.js"), &bytes[..bytes.len() / 2]).unwrap();
    let (code, _, err) = inspect("cut.view.js");
    assert_ne!(code, Some(0));
    assert!(err.contains("error[view_script]"), "{err}");
    // The view's files stay beside the previews: none is in a game set.
    let game = support::tree(&ws.path("build/game"));
    assert!(
        game.keys().any(|k| k.ends_with(".utoc")),
        "the set was cooked"
    );
    let shipped: Vec<&String> = game
        .keys()
        .filter(|k| k.ends_with(".glb") || k.ends_with(".view.js") || k.ends_with(".rays.json"))
        .collect();
    assert!(shipped.is_empty(), "{shipped:?}");
    // Cached like every step.
    render_one(&ws, "wall_door", 0);
    assert!(ws.ran().is_empty(), "{:?}", ws.ran());
    // A view whose data is gone says so on the page.
    let Some(chromium) = support::chromium() else {
        return;
    };
    std::fs::remove_file(ws.path(&format!("build/{script}"))).unwrap();
    let (key, _) = views(&ws).remove(0);
    let page = ws.webgl_dom(chromium, "build/report.html", &format!("view={key}"));
    assert!(page.contains("cannot show this view"), "{page}");
}

#[test]
fn the_view_wears_the_models_colours_and_textures() {
    let ws = Workspace::with_packs(&["foundry"]);
    let texture = crate::render::texture_the_floor(&ws);
    let (key, script) = render_one(&ws, "floor_2x2", 0);
    let glb =
        std::fs::read(ws.path(&format!("build/{}", script.replace(".view.js", ".glb")))).unwrap();
    let looks = forge_gltf::looks("view.glb", &glb, &Default::default()).unwrap();
    let textured = looks
        .iter()
        .find_map(|l| l.texture.as_ref())
        .expect("a texture");
    assert_eq!(
        textured.rgba8,
        texture.into_raw(),
        "the model's texture, pixel for pixel"
    );
    assert!(looks.iter().any(|l| l.base_colour == [1.0, 0.5, 0.0, 1.0]));
    let Some(chromium) = support::chromium() else {
        return;
    };
    let fragment = format!("view={key}&shot=1&hulls=0&rays=0&shapes=0");
    let shot = ws.webgl_screenshot(chromium, "build/report.html", &fragment, [SIZE; 2]);
    let centre = shot.get_pixel(SIZE / 2, SIZE / 2);
    let [r, g, b] = [centre[0], centre[1], centre[2]].map(u32::from);
    assert!(
        r > 60 && r > 2 * g.max(b),
        "the textured floor is red in the view: {centre:?}"
    );
    let yellow = shot
        .pixels()
        .filter(|p| p[0] > 120 && p[1] > 50 && p[2] < p[1] / 2)
        .count();
    assert!(yellow > 100, "{yellow} rim pixels are yellow-orange");
}

#[test]
fn a_maps_view_places_every_piece_from_its_blocks_view() {
    let ws = crate::maps::with_maps();
    let out = ws.mjolnir(&["forge", "render", "--size", "64"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let script = std::fs::read_to_string(ws.path("build/maps/crossline/layout.view.js")).unwrap();
    let layout: Value = serde_json::from_str(
        script
            .strip_prefix("MJOLNIR_VIEW.map(\"crossline\",")
            .and_then(|s| s.strip_suffix(");\n"))
            .expect("one call with the map's slug"),
    )
    .unwrap();
    let placed = layout["placed"].as_array().unwrap();
    assert!(placed.len() > 200, "{}", placed.len());
    let inspected = ws.mjolnir(&["forge", "inspect", "build/maps/crossline/layout.view.js"]);
    let text = String::from_utf8_lossy(&inspected.stdout);
    assert!(
        text.contains(&format!("{} placed pieces", placed.len())),
        "{text}"
    );
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    assert!(
        html.contains("data-map=\"crossline\""),
        "the map links its view"
    );
    let Some(chromium) = support::chromium() else {
        return;
    };
    let shot = |fragment: &str| {
        ws.webgl_screenshot(
            chromium,
            "build/report.html",
            &format!("map=crossline&shot=1&{fragment}"),
            [480, 320],
        )
    };
    let drawn = shot("hulls=0");
    let background = *drawn.get_pixel(2, 2);
    let covered = drawn.pixels().filter(|p| **p != background).count();
    assert!(
        covered > 480 * 320 / 8,
        "the layout fills the view: {covered} pixels"
    );
    let empty = shot("hulls=0&mesh=0");
    let left = empty.pixels().filter(|p| **p != background).count();
    assert!(
        left < covered / 20,
        "without the meshes nothing is drawn: {left}"
    );
}

/// The viewer as the binary embeds it: what a render writes to `build/viewer.js`.
fn written_viewer(ws: &Workspace) -> Vec<u8> {
    std::fs::read(ws.path("build/viewer.js")).unwrap()
}

#[cfg(unix)]
#[test]
fn the_viewer_file_is_replaced_whatever_stands_there() {
    let ws = Workspace::with_packs(&["foundry"]);
    render_one(&ws, "wall_door", 0);
    let bundle = written_viewer(&ws);
    let viewer = ws.path("build/viewer.js");
    let outside = ws.path("outside.js");
    // A link to a file outside the build folder: replaced, the outside file untouched.
    std::fs::write(&outside, b"not ours").unwrap();
    std::fs::remove_file(&viewer).unwrap();
    std::os::unix::fs::symlink(&outside, &viewer).unwrap();
    ws.edit_json("packs/foundry/source/models/wall_door.gltf", |g| {
        g["asset"]["generator"] = serde_json::json!("edited, so the cook is not a no-op");
    });
    render_one(&ws, "wall_door", 0);
    assert_eq!(std::fs::read(&outside).unwrap(), b"not ours");
    assert!(std::fs::symlink_metadata(&viewer).unwrap().is_file());
    assert!(
        written_viewer(&ws) == bundle,
        "the bundle is written over it"
    );
    // A FIFO there is read as not the bundle (never waited on) and replaced.
    std::fs::remove_file(&viewer).unwrap();
    assert!(std::process::Command::new("mkfifo")
        .arg(&viewer)
        .status()
        .unwrap()
        .success());
    ws.edit_json("packs/foundry/source/models/wall_door.gltf", |g| {
        g["asset"]["generator"] = serde_json::json!("edited again");
    });
    render_one(&ws, "wall_door", 0);
    assert!(
        written_viewer(&ws) == bundle,
        "the bundle is written over it"
    );
    let left: Vec<_> = std::fs::read_dir(ws.path("build"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".mjolnir-tmp-"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

#[test]
fn a_new_build_of_the_binary_does_not_take_the_old_ones_seal() {
    let ws = Workspace::with_packs(&["foundry"]);
    let toml = std::fs::read_to_string(ws.path("pipeline.toml")).unwrap();
    std::fs::write(
        ws.path("pipeline.toml"),
        toml + "\n[render]\nenabled = true\nsize = 64\n",
    )
    .unwrap();
    let cook = |binary: &std::path::Path| {
        let out = std::process::Command::new(binary)
            .current_dir(ws.path(""))
            .args(["forge", "cook"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    };
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_mjolnir"));
    cook(binary);
    // Out of the stat cache's racy window, a cook that changes nothing seals.
    std::thread::sleep(std::time::Duration::from_millis(150));
    cook(binary);
    assert!(ws.path("build/cache/noop.seal").exists());
    let bundle = written_viewer(&ws);
    // The next no-op takes the seal and writes nothing: an old viewer stays.
    std::fs::write(ws.path("build/viewer.js"), b"an older build's viewer").unwrap();
    cook(binary);
    assert!(
        written_viewer(&ws) == b"an older build's viewer",
        "the sealed no-op writes nothing"
    );
    // Another build of the binary (here a copy: another file, another time) cooks in full.
    let rebuilt = ws.path("mjolnir-rebuilt");
    std::fs::copy(binary, &rebuilt).unwrap();
    cook(&rebuilt);
    assert!(
        written_viewer(&ws) == bundle,
        "the new build wrote its viewer"
    );
}
