//! Collision cookers on a 10k-triangle composite piece: build times of the BSP, the MOPP
//! and the polyhedra, and one ray query side by side through the cooked BSP, the MOPP and
//! parry3d's `TriMesh` over the same triangles, both its distance-only cast and the one
//! that also names the triangle hit. Run: `cargo bench -p forge-collision`.

use criterion::{criterion_group, criterion_main, Criterion};
use forge_collision::hull::{self, ConvexHull};
use forge_collision::{CollisionModel, MoppIndex, Polyhedron};
use parry3d::math::{Pose, Vector};
use parry3d::query::{Ray, RayCast};
use parry3d::shape::TriMesh;

struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// 40 rounded hulls of 128 points each (about 250 triangles apiece) on an 8 x 5 grid.
fn composite() -> Vec<ConvexHull> {
    let mut rng = Rng(0x2545F4914F6CDD1D);
    let mut hulls = Vec::new();
    for i in 0..40 {
        let centre = [(i % 8) as f64 * 2.5, (i / 8) as f64 * 2.5, 1.0];
        let points: Vec<[f64; 3]> = (0..128)
            .map(|_| {
                let (u, v) = (rng.unit() * 2.0 - 1.0, rng.unit() * std::f64::consts::TAU);
                let r = (1.0 - u * u).sqrt();
                [
                    centre[0] + r * v.cos(),
                    centre[1] + r * v.sin() * 0.8,
                    centre[2] + u * 0.9,
                ]
            })
            .collect();
        let (h, _) = hull::hull_of(&format!("h{i}"), "steel", &points).expect("a hull");
        hulls.push(hull::build(&h.name, "steel", &h.vertices).expect("a clean hull"));
    }
    hulls
}

fn trimesh(hulls: &[ConvexHull]) -> TriMesh {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for h in hulls {
        let base = vertices.len() as u32;
        vertices.extend(
            h.vertices
                .iter()
                .map(|v| Vector::new(v[0] as f32, v[1] as f32, v[2] as f32)),
        );
        for f in &h.faces {
            for k in 1..f.polygon.len() - 1 {
                indices.push([
                    base + f.polygon[0] as u32,
                    base + f.polygon[k] as u32,
                    base + f.polygon[k + 1] as u32,
                ]);
            }
        }
    }
    TriMesh::new(vertices, indices).expect("a mesh")
}

fn bench(c: &mut Criterion) {
    let hulls = composite();
    let mesh = trimesh(&hulls);
    let triangles = mesh.indices().len();
    assert!(triangles >= 9_000, "{triangles} triangles");
    let model = CollisionModel::build(&hulls).unwrap();
    let index = MoppIndex::build(&model).unwrap();

    let mut build = c.benchmark_group("collision_build_10k");
    build.sample_size(10);
    let points: Vec<(String, Vec<[f64; 3]>)> = hulls
        .iter()
        .map(|h| (h.name.clone(), h.vertices.clone()))
        .collect();
    build.bench_function("hulls", |b| {
        b.iter(|| {
            points
                .iter()
                .map(|(n, p)| hull::build(n, "steel", p).unwrap())
                .collect::<Vec<_>>()
        })
    });
    build.bench_function("bsp", |b| b.iter(|| CollisionModel::build(&hulls).unwrap()));
    build.bench_function("mopp", |b| b.iter(|| MoppIndex::build(&model).unwrap()));
    build.bench_function("polyhedra", |b| {
        b.iter(|| hulls.iter().map(Polyhedron::build).collect::<Vec<_>>())
    });
    build.finish();

    // Rays from above, aimed down across the grid: most hit, some fall between hulls.
    let mut rng = Rng(7);
    let rays: Vec<([f64; 3], [f64; 3])> = (0..256)
        .map(|_| {
            (
                [rng.unit() * 20.0 - 1.0, rng.unit() * 12.0 - 1.0, 5.0],
                [rng.unit() * 0.2 - 0.1, rng.unit() * 0.2 - 0.1, -1.0],
            )
        })
        .collect();
    let mut query = c.benchmark_group("ray_query_10k");
    query.bench_function("bsp", |b| {
        b.iter(|| {
            rays.iter()
                .filter_map(|(o, d)| model.ray(*o, *d, 100.0))
                .count()
        })
    });
    query.bench_function("mopp", |b| {
        b.iter(|| {
            rays.iter()
                .filter_map(|(o, d)| index.ray(&model, *o, *d, 100.0).unwrap())
                .count()
        })
    });
    let parry_rays: Vec<Ray> = rays
        .iter()
        .map(|(o, d)| {
            let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            Ray::new(
                Vector::new(o[0] as f32, o[1] as f32, o[2] as f32),
                Vector::new(
                    (d[0] / len) as f32,
                    (d[1] / len) as f32,
                    (d[2] / len) as f32,
                ),
            )
        })
        .collect();
    query.bench_function("parry_trimesh", |b| {
        b.iter(|| {
            parry_rays
                .iter()
                .filter_map(|r| mesh.cast_ray(&Pose::identity(), r, 100.0, true))
                .count()
        })
    });
    // The same answer ours give: the distance and which triangle was hit.
    query.bench_function("parry_trimesh_feature", |b| {
        b.iter(|| {
            parry_rays
                .iter()
                .filter_map(|r| mesh.cast_ray_and_get_normal(&Pose::identity(), r, 100.0, true))
                .count()
        })
    });
    query.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
