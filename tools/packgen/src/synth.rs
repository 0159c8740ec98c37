//! Synthetic packs for benchmarks and stress tests: `N` blocks, `T` triangles per visual
//! mesh and `H` hulls per block, all deterministic from a seed.
//!
//! Each block is a row of `H` unit boxes (its collision) under a bumpy heightfield of about
//! `T` triangles that spans exactly the same bounds (its visual), so every block cooks and
//! passes the size check.

use serde_json::{json, Value};

use crate::gltf_out;
use crate::piece::round;

pub struct Synth {
    pub id: String,
    pub blocks: usize,
    pub triangles: usize,
    pub hulls: usize,
    pub seed: u64,
}

struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The heightfield over `[-l/2, l/2] x [-0.5, 0.5]`, heights in `[0, 1]` with both ends
/// reached, as positions and triangles.
fn heightfield(length: f64, triangles: usize, rng: &mut Rng) -> (Vec<[f64; 3]>, Vec<[u32; 3]>) {
    let cells = ((triangles / 2) as f64).sqrt().ceil().max(1.0) as usize;
    let (nx, ny) = (cells, cells);
    let mut positions = Vec::with_capacity((nx + 1) * (ny + 1));
    for j in 0..=ny {
        for i in 0..=nx {
            let x = -length / 2.0 + length * i as f64 / nx as f64;
            let y = -0.5 + j as f64 / ny as f64;
            let z = if i == 0 && j == 0 {
                0.0
            } else if i == nx && j == ny {
                1.0
            } else {
                0.2 + 0.6 * rng.unit()
            };
            positions.push([round(x), round(y), round(z)]);
        }
    }
    let mut tris = Vec::with_capacity(nx * ny * 2);
    let row = (nx + 1) as u32;
    for j in 0..ny as u32 {
        for i in 0..nx as u32 {
            let a = j * row + i;
            tris.push([a, a + 1, a + row + 1]);
            tris.push([a, a + row + 1, a + row]);
        }
    }
    (positions, tris)
}

fn boxes(hulls: usize) -> Vec<Value> {
    (0..hulls)
        .map(|h| {
            let x0 = -(hulls as f64) / 2.0 + h as f64;
            let points: Vec<[f64; 3]> = (0..8)
                .map(|k| {
                    [
                        round(if k & 1 == 0 { x0 } else { x0 + 1.0 }),
                        if k & 2 == 0 { -0.5 } else { 0.5 },
                        if k & 4 == 0 { 0.0 } else { 1.0 },
                    ]
                })
                .collect();
            json!({"name": format!("box_{h:02}"), "material": "steel", "points": points})
        })
        .collect()
}

/// Writes the synthetic pack's files: `(relative path, bytes)`.
pub fn files(s: &Synth) -> Vec<(String, Vec<u8>)> {
    let mut rng = Rng(s.seed.max(1));
    let length = s.hulls as f64;
    let mut out = Vec::new();
    let mut entries = Vec::new();
    let mut geometry = Vec::new();
    for b in 0..s.blocks {
        let id = format!("b{b:03}");
        entries.push(json!({"id": id, "name": format!("Synthetic {b}"), "tag": format!("objects\\mjolnir\\forge\\{}\\{id}", s.id), "category": "synthetic", "dimensions_m": [length, 1.0, 1.0], "snap_m": 1.0}));
        geometry.push(json!({"id": id, "origin": "bottom_centre", "hulls": boxes(s.hulls)}));
        let (positions, tris) = heightfield(length, s.triangles, &mut rng);
        for (name, bytes) in gltf_out::encode_mesh(&id, "steel", &positions, &tris, true).files {
            out.push((format!("source/models/{name}"), bytes));
        }
    }
    let manifest = json!({"schema_version": 1, "name": "Synthetic", "version": "0.1.0", "type": "content", "slug": s.id, "forge_pack": {"schema_version": 1, "id": s.id, "blocks": entries}});
    let geometry = json!({"schema_version": 1, "pack": s.id, "blocks": geometry});
    out.push((
        "mjolnir.json".into(),
        serde_json::to_vec_pretty(&manifest).expect("serializes"),
    ));
    out.push((
        "source/geometry.json".into(),
        serde_json::to_vec_pretty(&geometry).expect("serializes"),
    ));
    out
}
