//! The ground grid never shows through the piece: a regression test for grid lines that bled
//! through the mesh where it stands on the ground.

use forge_render::{render, Camera, Options, Scene, Triangle};

/// A box from `lo` to `hi` as twelve triangles.
fn slab(lo: [f64; 3], hi: [f64; 3]) -> Scene {
    let corner = |i: usize| {
        [
            if i & 1 == 0 { lo[0] } else { hi[0] },
            if i & 2 == 0 { lo[1] } else { hi[1] },
            if i & 4 == 0 { lo[2] } else { hi[2] },
        ]
    };
    let faces = [
        [0, 1, 3, 2],
        [4, 6, 7, 5],
        [0, 4, 5, 1],
        [2, 3, 7, 6],
        [0, 2, 6, 4],
        [1, 5, 7, 3],
    ];
    let mut scene = Scene::default();
    for [a, b, c, d] in faces {
        for tri in [[a, b, c], [a, c, d]] {
            scene
                .triangles
                .push(Triangle::flat(tri.map(corner), "steel"));
        }
    }
    scene
}

#[test]
fn the_grid_never_changes_a_pixel_of_the_piece() {
    let (lo, hi) = ([-2.0, -2.0, 0.0], [2.0, 2.0, 0.5]);
    let scene = slab(lo, hi);
    let camera = Camera::framing(lo, hi, 0.0, 256);
    let plain = render(
        &scene,
        &camera,
        &Options {
            size: 256,
            transparent: true,
            grid_m: None,
            outline: true,
        },
    );
    let gridded = render(
        &scene,
        &camera,
        &Options {
            size: 256,
            transparent: true,
            grid_m: Some(0.5),
            outline: true,
        },
    );
    let inside = |x: u32, y: u32| {
        // Inside the piece's silhouette, not on its edge: where the piece stands on the
        // ground, the grid may meet its edge, but it must never show through.
        (x.saturating_sub(1)..=(x + 1).min(255)).all(|nx| {
            (y.saturating_sub(1)..=(y + 1).min(255)).all(|ny| plain.get_pixel(nx, ny)[3] == 255)
        })
    };
    let mut piece = 0;
    let mut changed = 0;
    for (x, y, p) in plain.enumerate_pixels() {
        if inside(x, y) {
            piece += 1;
            changed += usize::from(p != gridded.get_pixel(x, y));
        }
    }
    assert!(piece > 1000, "the piece covers the view: {piece} pixels");
    assert_eq!(
        changed, 0,
        "grid lines drew over {changed} of the piece's {piece} pixels"
    );
    assert!(plain != gridded, "the grid is drawn around the piece");
}

#[test]
fn the_same_scene_gives_the_same_pixels_on_any_thread_count() {
    let (lo, hi) = ([-2.0, -2.0, 0.0], [2.0, 2.0, 0.5]);
    let scene = slab(lo, hi);
    let camera = Camera::framing(lo, hi, 30.0, 200);
    let options = Options {
        size: 200,
        transparent: false,
        grid_m: Some(0.5),
        outline: true,
    };
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| render(&scene, &camera, &options))
    };
    let one = on(1);
    assert!(one == on(2) && one == on(7));
}
