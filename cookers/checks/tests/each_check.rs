//! Each check on a small piece built here from boxes: once where it passes, and once for
//! each way it fails, by the code it fails with.

use forge_checks::{run, BlockReport, Inputs};
use forge_collision::reference::SourceShapes;
use forge_contract::geometry::{
    Aperture, ApertureKind, Axis, BlockGeometry, Connectors, Edge, Frame, Hull, Join, Origin,
    Support, Waiver,
};

type V3 = [f64; 3];

fn cuboid(name: &str, lo: V3, hi: V3) -> Hull {
    let mut points = Vec::new();
    for x in [lo[0], hi[0]] {
        for y in [lo[1], hi[1]] {
            for z in [lo[2], hi[2]] {
                points.push([x, y, z]);
            }
        }
    }
    Hull {
        name: name.into(),
        material: "steel".into(),
        points,
    }
}

/// The twelve triangles of a box's faces, as the visual mesh.
fn box_triangles(lo: V3, hi: V3) -> Vec<[V3; 3]> {
    let c = |i: usize| {
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
    faces
        .iter()
        .flat_map(|[a, b, c2, d]| [[c(*a), c(*b), c(*c2)], [c(*a), c(*c2), c(*d)]])
        .collect()
}

fn block(origin: Origin, hulls: Vec<Hull>) -> BlockGeometry {
    BlockGeometry {
        id: "piece".into(),
        origin,
        hulls,
        apertures: Vec::new(),
        supports: Vec::new(),
        joins: Vec::new(),
        connectors: None,
        waivers: Vec::new(),
    }
}

fn bounds(hulls: &[Hull]) -> (V3, V3) {
    let mut lo = [f64::MAX; 3];
    let mut hi = [f64::MIN; 3];
    for p in hulls.iter().flat_map(|h| &h.points) {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    (lo, hi)
}

/// The checks of `b`, with its hulls as the visual mesh plus `extra_visual`, and the
/// MOPP of `mopp_of` (normally `b` itself).
fn check_with(
    b: &BlockGeometry,
    dimensions_m: V3,
    extra_visual: &[[V3; 3]],
    mopp_of: &BlockGeometry,
) -> BlockReport {
    let model = forge_collision::cook_bsp(b).expect("the test hulls build");
    let index = forge_collision::cook_mopp(&forge_collision::cook_bsp(mopp_of).unwrap()).unwrap();
    let source = SourceShapes::try_new(b.hulls.iter().map(|h| h.points.as_slice())).unwrap();
    let mut triangles: Vec<[V3; 3]> = b
        .hulls
        .iter()
        .flat_map(|h| {
            let (lo, hi) = bounds(std::slice::from_ref(h));
            box_triangles(lo, hi)
        })
        .collect();
    triangles.extend_from_slice(extra_visual);
    run(&Inputs {
        block: b,
        dimensions_m,
        model: &model,
        index: &index,
        visual_bounds_m: bounds(&b.hulls),
        visual_triangles_m: &triangles,
        source: &source,
    })
}

fn check(b: &BlockGeometry, dimensions_m: V3) -> BlockReport {
    check_with(b, dimensions_m, &[], b)
}

/// The code the named check of `check` failed with, or `None` when it passed.
fn outcome(report: &BlockReport, check: &str, name: &str) -> Option<&'static str> {
    let result = report
        .checks
        .iter()
        .find(|c| c.check == check && c.name == name)
        .unwrap_or_else(|| panic!("no {check} check of {name}: {report:?}"));
    assert_eq!(result.passed, result.failure.is_none());
    result.failure.as_ref().map(|f| f.code)
}

// A 4 x 4 m floor slab, 0.5 m thick, centred on the origin.
const FLOOR: [f64; 3] = [4.0, 4.0, 0.5];

fn floor() -> BlockGeometry {
    block(
        Origin::BottomCentre,
        vec![cuboid("slab", [-2.0, -2.0, 0.0], [2.0, 2.0, 0.5])],
    )
}

fn support(height_m: f64, min_m: [f64; 2], max_m: [f64; 2]) -> Support {
    Support {
        name: "top".into(),
        min_m,
        max_m,
        height_m,
        grade: [0.0, 0.0],
    }
}

#[test]
fn supports_pass_on_the_declared_surface_and_fail_each_way() {
    let mut b = floor();
    b.supports = vec![support(0.5, [-1.5, -1.5], [1.5, 1.5])];
    assert_eq!(outcome(&check(&b, FLOOR), "supports", "top"), None);

    b.supports = vec![support(0.6, [-1.5, -1.5], [1.5, 1.5])];
    assert_eq!(
        outcome(&check(&b, FLOOR), "supports", "top"),
        Some("support_height")
    );

    b.supports = vec![support(0.5, [2.5, 2.5], [3.0, 3.0])];
    assert_eq!(
        outcome(&check(&b, FLOOR), "supports", "top"),
        Some("support_missing")
    );

    // A beam over the slab, above where the rays start but where a player's head would be.
    let mut b = floor();
    b.hulls
        .push(cuboid("beam", [-0.5, -2.0, 1.6], [0.5, 2.0, 1.8]));
    b.supports = vec![support(0.5, [-1.5, -1.5], [1.5, 1.5])];
    assert_eq!(
        outcome(&check(&b, [4.0, 4.0, 1.8]), "supports", "top"),
        Some("support_blocked")
    );
}

#[test]
fn a_surface_steeper_than_a_player_walks_is_no_support() {
    // A wedge whose top falls 1.732 m over 1 m: a 60 degree slope.
    let rise = 3f64.sqrt();
    let wedge = Hull {
        name: "wedge".into(),
        material: "steel".into(),
        points: vec![
            [0.0, -1.0, 0.0],
            [0.0, 1.0, 0.0],
            [1.0, -1.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, -1.0, rise],
            [0.0, 1.0, rise],
        ],
    };
    let mut b = block(Origin::EntryFloor, vec![wedge]);
    b.supports = vec![Support {
        name: "slope".into(),
        min_m: [0.2, -0.5],
        max_m: [0.8, 0.5],
        height_m: rise * 0.8,
        grade: [-rise, 0.0],
    }];
    assert_eq!(
        outcome(&check(&b, [1.0, 2.0, rise]), "supports", "slope"),
        Some("support_too_steep")
    );
}

#[test]
fn size_passes_when_declared_and_fails_for_size_or_origin() {
    assert_eq!(outcome(&check(&floor(), FLOOR), "size", "piece"), None);
    assert_eq!(
        outcome(&check(&floor(), [4.0, 4.0, 1.0]), "size", "piece"),
        Some("size_mismatch")
    );
    let off_centre = block(
        Origin::BottomCentre,
        vec![cuboid("slab", [0.0, 0.0, 0.0], [4.0, 4.0, 0.5])],
    );
    assert_eq!(
        outcome(&check(&off_centre, FLOOR), "size", "piece"),
        Some("origin_mismatch")
    );
}

#[test]
fn a_model_exported_in_centimetres_or_z_up_is_named_as_such() {
    let big = block(
        Origin::BottomCentre,
        vec![cuboid("slab", [-200.0, -200.0, 0.0], [200.0, 200.0, 50.0])],
    );
    assert_eq!(
        outcome(&check(&big, FLOOR), "size", "piece"),
        Some("size_mismatch"),
        "the collision is checked first, and is simply the wrong size"
    );
    // The visual mesh alone is off: the collision is right, the model 100 times too big.
    let b = floor();
    let model = forge_collision::cook_bsp(&b).unwrap();
    let index = forge_collision::cook_mopp(&model).unwrap();
    let source = SourceShapes::try_new(b.hulls.iter().map(|h| h.points.as_slice())).unwrap();
    let inputs = |visual: (V3, V3)| {
        run(&Inputs {
            block: &b,
            dimensions_m: FLOOR,
            model: &model,
            index: &index,
            visual_bounds_m: visual,
            visual_triangles_m: &[],
            source: &source,
        })
    };
    let report = inputs(([-200.0, -200.0, 0.0], [200.0, 200.0, 50.0]));
    assert_eq!(
        outcome(&report, "size", "piece"),
        Some("model_in_centimetres")
    );
    let report = inputs(([-2.0, -0.25, 0.0], [2.0, 0.25, 4.0]));
    assert_eq!(outcome(&report, "size", "piece"), Some("model_z_up"));
}

#[test]
fn joins_pass_at_their_height_and_fail_off_it() {
    let mut b = floor();
    b.joins = vec![Join {
        name: "east".into(),
        edge: Edge::PlusX,
        height_m: 0.5,
    }];
    assert_eq!(outcome(&check(&b, FLOOR), "joins", "east"), None);
    b.joins[0].height_m = 0.7;
    assert_eq!(
        outcome(&check(&b, FLOOR), "joins", "east"),
        Some("join_height")
    );
}

// A wall across X, 0.5 m thick and 3 m high, with a 1 x 2 m doorway at its middle.
const WALL: [f64; 3] = [0.5, 4.0, 3.0];

fn wall() -> BlockGeometry {
    block(
        Origin::BottomCentre,
        vec![
            cuboid("left", [-0.25, -2.0, 0.0], [0.25, -0.5, 3.0]),
            cuboid("right", [-0.25, 0.5, 0.0], [0.25, 2.0, 3.0]),
            cuboid("lintel", [-0.25, -0.5, 2.0], [0.25, 0.5, 3.0]),
        ],
    )
}

fn door(centre_m: V3, width_m: f64) -> Aperture {
    Aperture {
        name: "doorway".into(),
        kind: ApertureKind::Door,
        centre_m,
        axis: Axis::X,
        width_m,
        height_m: 2.0,
    }
}

#[test]
fn apertures_pass_where_open_and_fail_each_way() {
    let mut b = wall();
    b.apertures = vec![door([0.0, 0.0, 1.0], 1.0)];
    assert_eq!(outcome(&check(&b, WALL), "apertures", "doorway"), None);

    b.apertures = vec![door([0.0, -1.25, 1.0], 1.0)];
    assert_eq!(
        outcome(&check(&b, WALL), "apertures", "doorway"),
        Some("aperture_blocked")
    );

    b.apertures = vec![door([0.0, 0.0, 1.0], 0.6)];
    assert_eq!(
        outcome(&check(&b, WALL), "apertures", "doorway"),
        Some("aperture_misplaced")
    );

    // Open in the collision, but the model has a panel across the opening.
    b.apertures = vec![door([0.0, 0.0, 1.0], 1.0)];
    let panel = box_triangles([-0.01, -0.5, 0.0], [0.01, 0.5, 2.0]);
    assert_eq!(
        outcome(&check_with(&b, WALL, &panel, &b), "apertures", "doorway"),
        Some("aperture_blocked_visual")
    );
}

// A 10 m road deck along +X, its surface at 0, entered at the origin.
fn road(exit: Frame) -> BlockGeometry {
    let mut b = block(
        Origin::EntryFloor,
        vec![cuboid("deck", [0.0, -3.0, -0.5], [10.0, 3.0, 0.0])],
    );
    b.connectors = Some(Connectors {
        entry: Frame {
            position_m: [0.0, 0.0, 0.0],
            heading_deg: 0.0,
        },
        exit,
        branches: Vec::new(),
    });
    b
}

fn exit(position_m: V3, heading_deg: f64) -> Frame {
    Frame {
        position_m,
        heading_deg,
    }
}

#[test]
fn connectors_pass_at_the_deck_ends_and_fail_each_way() {
    let dims = [10.0, 6.0, 0.5];
    let report = check(&road(exit([10.0, 0.0, 0.0], 0.0)), dims);
    assert_eq!(outcome(&report, "connectors", "entry"), None);
    assert_eq!(outcome(&report, "connectors", "exit"), None);

    let report = check(&road(exit([10.0, 0.0, 0.2], 0.0)), dims);
    assert_eq!(
        outcome(&report, "connectors", "exit"),
        Some("connector_step")
    );

    let report = check(&road(exit([9.8, 0.0, 0.0], 0.0)), dims);
    assert_eq!(
        outcome(&report, "connectors", "exit"),
        Some("connector_position")
    );

    let report = check(&road(exit([10.0, 0.0, 0.0], 5.0)), dims);
    assert_eq!(
        outcome(&report, "connectors", "exit"),
        Some("connector_heading")
    );
}

#[test]
fn a_mopp_that_disagrees_with_the_bsp_fails_the_check_that_cast_the_ray() {
    let mut b = floor();
    b.supports = vec![support(0.5, [-1.5, -1.5], [1.5, 1.5])];
    let elsewhere = block(
        Origin::BottomCentre,
        vec![cuboid("far", [50.0, 50.0, 0.0], [54.0, 54.0, 0.5])],
    );
    let report = check_with(&b, FLOOR, &[], &elsewhere);
    assert_eq!(
        outcome(&report, "supports", "top"),
        Some("engines_disagree")
    );
}

#[test]
fn a_waived_failure_is_reported_but_does_not_block() {
    let mut b = floor();
    b.supports = vec![support(0.6, [-1.5, -1.5], [1.5, 1.5])];
    b.waivers = vec![Waiver {
        check: "supports".into(),
        reason: "a raised lip, walked over".into(),
        reviewed_by: "reviewer".into(),
    }];
    let report = check(&b, FLOOR);
    assert_eq!(outcome(&report, "supports", "top"), Some("support_height"));
    assert_eq!(report.blocking().count(), 0);
    let waived = report
        .checks
        .iter()
        .find(|c| c.check == "supports")
        .unwrap();
    assert_eq!(waived.waiver.as_ref().unwrap().reviewed_by, "reviewer");
}
