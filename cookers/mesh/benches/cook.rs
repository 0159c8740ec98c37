//! Import and mesh cook of a 100k-triangle glTF (a displaced grid), as authors' detailed
//! pieces will be. Run: `cargo bench -p forge-mesh`.

use std::collections::BTreeMap;

use base64::Engine;
use criterion::{criterion_group, criterion_main, Criterion};

/// A `.gltf` with an embedded buffer: an n x n grid of quads, 2·n² triangles.
fn grid_gltf(n: u32) -> Vec<u8> {
    let mut positions = Vec::new();
    for y in 0..=n {
        for x in 0..=n {
            let h = ((x as f32 * 0.37).sin() + (y as f32 * 0.23).cos()) * 0.05;
            positions.extend([x as f32 * 0.01, h, y as f32 * 0.01]);
        }
    }
    let mut indices: Vec<u32> = Vec::new();
    let row = n + 1;
    for y in 0..n {
        for x in 0..n {
            let i = y * row + x;
            indices.extend([i, i + row, i + 1, i + 1, i + row, i + row + 1]);
        }
    }
    let mut bin: Vec<u8> = positions.iter().flat_map(|f| f.to_le_bytes()).collect();
    let pos_len = bin.len();
    bin.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
    let (lo, hi) = ([0.0, -0.1, 0.0], [n as f32 * 0.01, 0.1, n as f32 * 0.01]);
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": positions.len() / 3, "type": "VEC3", "min": lo, "max": hi},
            {"bufferView": 1, "componentType": 5125, "count": indices.len(), "type": "SCALAR"}
        ],
        "bufferViews": [{"buffer": 0, "byteLength": pos_len}, {"buffer": 0, "byteOffset": pos_len, "byteLength": indices.len() * 4}],
        "buffers": [{"byteLength": bin.len(), "uri": format!("data:application/octet-stream;base64,{}", base64::engine::general_purpose::STANDARD.encode(&bin))}]
    });
    serde_json::to_vec(&doc).unwrap()
}

fn bench(c: &mut Criterion) {
    let gltf = grid_gltf(224); // 2 · 224² = 100,352 triangles
    let none = BTreeMap::new();
    let mut group = c.benchmark_group("mesh_100k");
    group.sample_size(10);
    group.bench_function("import", |b| {
        b.iter(|| forge_gltf::import("grid.gltf", &gltf, &none).unwrap())
    });
    let imported = forge_gltf::import("grid.gltf", &gltf, &none).unwrap();
    assert!(imported.triangles.len() >= 100_000);
    group.bench_function("cook", |b| {
        b.iter(|| {
            forge_mesh::cook("bench", "grid", &imported)
                .unwrap()
                .to_bytes()
        })
    });
    group.bench_function("import_and_cook", |b| {
        b.iter(|| {
            let m = forge_gltf::import("grid.gltf", &gltf, &none).unwrap();
            forge_mesh::cook("bench", "grid", &m).unwrap().to_bytes()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
