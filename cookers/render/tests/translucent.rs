//! Glass: a translucent surface is laid over what is behind it by its alpha, and hides
//! nothing that stands in front of it.

use forge_render::{render, Camera, Look, Options, Scene, Triangle};

/// A square at height `z`, 4 m across, in `material`.
fn square(scene: &mut Scene, z: f64, material: &str) {
    let c = |x: f64, y: f64| [x, y, z];
    for tri in [
        [c(-2.0, -2.0), c(2.0, -2.0), c(2.0, 2.0)],
        [c(-2.0, -2.0), c(2.0, 2.0), c(-2.0, 2.0)],
    ] {
        scene.triangles.push(Triangle::flat(tri, material));
    }
}

fn look(rgba: [f32; 4], translucent: bool) -> Look {
    Look {
        base_colour: rgba,
        texture: None,
        double_sided: true,
        translucent,
    }
}

/// A scene with an opaque red look and a glass look of `glass` (its alpha the opacity).
fn red_and_glass(glass: [f32; 4]) -> Scene {
    let mut scene = Scene::default();
    scene
        .looks
        .insert("red".into(), look([1.0, 0.0, 0.0, 1.0], false));
    scene.looks.insert("glass".into(), look(glass, true));
    scene
}

fn centre(scene: &Scene) -> [u8; 4] {
    let camera = Camera::framing([-3.0, -3.0, 0.0], [3.0, 3.0, 2.0], 0.0, 64);
    let options = Options {
        size: 64,
        transparent: true,
        grid_m: None,
        outline: false,
    };
    render(scene, &camera, &options).get_pixel(32, 32).0
}

#[test]
fn glass_over_a_floor_shows_both_and_a_floor_over_glass_hides_it() {
    let mut scene = red_and_glass([0.0, 0.0, 1.0, 0.5]);
    square(&mut scene, 0.0, "red");
    let floor = centre(&scene);
    square(&mut scene, 1.0, "glass");
    let through = centre(&scene);
    assert!(
        through[0] > 0 && through[2] > 0,
        "both show: {through:?} over {floor:?}"
    );
    assert!(
        through[0] < floor[0],
        "the floor is dimmed by the glass: {through:?}"
    );
    assert_eq!(
        through[3], 255,
        "over an opaque floor the pixel stays opaque"
    );

    let with_looks = || Scene {
        looks: scene.looks.clone(),
        ..Default::default()
    };
    let mut alone = with_looks();
    square(&mut alone, 1.0, "glass");
    let pane = centre(&alone);
    assert_eq!(
        pane[3], 128,
        "over nothing, the pixel is as opaque as the glass: {pane:?}"
    );

    // The same glass under the floor: the opaque floor in front hides it entirely.
    let mut under = with_looks();
    square(&mut under, 0.0, "glass");
    square(&mut under, 1.0, "red");
    let hidden = centre(&under);
    let mut red_only = with_looks();
    square(&mut red_only, 1.0, "red");
    assert_eq!(hidden, centre(&red_only));
}

#[test]
fn glass_is_drawn_the_same_on_any_thread_count() {
    let mut scene = red_and_glass([0.2, 0.6, 1.0, 0.35]);
    square(&mut scene, 0.0, "red");
    square(&mut scene, 1.0, "glass");
    let camera = Camera::framing([-3.0, -3.0, 0.0], [3.0, 3.0, 2.0], 30.0, 256);
    let options = Options {
        size: 256,
        transparent: false,
        grid_m: Some(1.0),
        outline: true,
    };
    let draw = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| render(&scene, &camera, &options))
    };
    let one = draw(1);
    assert_eq!(one, draw(2));
    assert_eq!(one, draw(7));
}
