//! A 512² lit, smooth-shaded preview of every stock Foundry block (one core), and the whole Foundry contact
//! sheet. Run: `cargo bench -p forge-render`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};
use forge_render::{contact_sheet, render, Camera, Look, Options, Scene, Texture, Triangle, Wrap};

fn foundry_scenes() -> Vec<(String, Scene, [f64; 3], [f64; 3])> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../forge-packs/foundry/source/models");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_suffix(".gltf")
                .map(str::to_string)
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let gltf = std::fs::read(dir.join(format!("{name}.gltf"))).unwrap();
            let bin = std::fs::read(dir.join(format!("{name}.bin"))).unwrap();
            let buffers = BTreeMap::from([(format!("{name}.bin"), bin)]);
            let mesh = forge_gltf::import("m.gltf", &gltf, &buffers).unwrap();
            let mut scene = Scene::default();
            // The stock models have base colours and no textures.
            for m in forge_gltf::looks("m.gltf", &gltf, &buffers).unwrap() {
                let look = Look {
                    base_colour: m.base_colour,
                    texture: None,
                    double_sided: m.double_sided,
                    translucent: m.blend,
                };
                scene.looks.insert(m.slot, look);
            }
            for s in &mesh.sections {
                for t in &mesh.triangles
                    [s.first_triangle as usize..(s.first_triangle + s.triangle_count) as usize]
                {
                    scene.triangles.push(Triangle {
                        points: t.map(|i| mesh.positions[i as usize]),
                        material: s.material.clone(),
                        normals: Some(t.map(|i| mesh.normals[i as usize])),
                        uvs: Some(t.map(|i| mesh.uvs[i as usize])),
                    });
                }
            }
            let (lo, hi) = mesh.bounds().unwrap();
            (name, scene, lo, hi)
        })
        .collect()
}

/// The pieces timed textured too; `tools/bench/workbench.py` gives Blender the same.
const TEXTURED: [&str; 3] = ["floor_2x2", "stairs_2x4", "wall_window"];

/// A 512² checker of 32-texel squares, two sRGB tones; `tools/bench/workbench.py` writes
/// the same image for Blender.
fn checker() -> Texture {
    let texels: Vec<u8> = (0..512 * 512)
        .flat_map(|i| {
            let (x, y) = (i % 512, i / 512);
            let v = if (x / 32 + y / 32) % 2 == 0 { 200 } else { 90 };
            [v, v, v, 255]
        })
        .collect();
    Texture::from_srgb8(512, 512, &texels, [Wrap::Repeat; 2]).unwrap()
}

fn bench(c: &mut Criterion) {
    let scenes = foundry_scenes();
    let options = Options {
        size: 512,
        transparent: false,
        grid_m: Some(0.5),
        outline: true,
    };
    let mut group = c.benchmark_group("render_512");
    group.sample_size(10);
    for (name, scene, lo, hi) in &scenes {
        let camera = Camera::framing(*lo, *hi, 0.0, 512);
        group.bench_function(name.as_str(), |b| {
            b.iter(|| render(scene, &camera, &options))
        });
    }
    group.finish();
    // The same pieces with a 512² checker texture on every material.
    let mut textured = c.benchmark_group("render_512_textured");
    textured.sample_size(10);
    for (name, scene, lo, hi) in scenes.iter().filter(|s| TEXTURED.contains(&s.0.as_str())) {
        let mut scene = scene.clone();
        for look in scene.looks.values_mut() {
            look.texture = Some(checker());
        }
        let camera = Camera::framing(*lo, *hi, 0.0, 512);
        textured.bench_function(name.as_str(), |b| {
            b.iter(|| render(&scene, &camera, &options))
        });
    }
    textured.finish();
    let mut sheet = c.benchmark_group("contact_sheet");
    sheet.sample_size(10);
    sheet.bench_function("foundry_all_blocks", |b| {
        b.iter(|| {
            let tiles: Vec<(Vec<String>, image::RgbaImage)> = scenes
                .iter()
                .map(|(name, scene, lo, hi)| {
                    (
                        vec![name.clone()],
                        render(scene, &Camera::framing(*lo, *hi, 0.0, 512), &options),
                    )
                })
                .collect();
            forge_render::png(&contact_sheet(&tiles, 256))
        })
    });
    sheet.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
