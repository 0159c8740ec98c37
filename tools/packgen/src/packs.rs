//! The three stock packs: Foundry, Foundry Wide and Roadworks 0.2.0.

use serde_json::json;

use crate::kit;
use crate::piece::{round, Piece};
use crate::solid::Role;

pub struct PackDesign {
    pub id: &'static str,
    pub name: &'static str,
    pub version: &'static str,
    pub summary: &'static str,
    pub origin: &'static str,
    pub snap_m: f64,
    /// Write models as `.glb` instead of `.gltf` + `.bin`.
    pub glb: bool,
    pub about: &'static str,
    pub pieces: Vec<Piece>,
}

fn piece(id: &str, name: &str, category: &'static str, build: impl FnOnce(&mut Piece)) -> Piece {
    let mut p = Piece::new(id, name, category);
    build(&mut p);
    p
}

pub fn foundry() -> PackDesign {
    let pieces = vec![
        piece("floor_1x1", "Floor 1 x 1", "floors", |p| {
            kit::floor(p, 2.0, 2.0, 0.5)
        }),
        piece("floor_2x2", "Floor 2 x 2", "floors", |p| {
            kit::floor(p, 4.0, 4.0, 0.5)
        }),
        piece("floor_4x4", "Floor 4 x 4", "floors", |p| {
            kit::floor(p, 8.0, 8.0, 0.5)
        }),
        piece("floor_2x4", "Floor 2 x 4", "floors", |p| {
            kit::floor(p, 8.0, 4.0, 0.5)
        }),
        piece("wall_2", "Wall 2", "walls", |p| kit::wall(p, 4.0, 0.5, 4.0)),
        piece("wall_4", "Wall 4", "walls", |p| kit::wall(p, 8.0, 0.5, 4.0)),
        piece("wall_half", "Half Wall", "walls", |p| {
            kit::wall(p, 4.0, 0.5, 2.0)
        }),
        piece("wall_door", "Wall, Door", "walls", |p| {
            kit::door_wall(p, 4.0, 0.5, 4.0, 2.0, 3.0)
        }),
        piece("wall_window", "Wall, Window", "walls", |p| {
            kit::window_wall(p, 4.0, 0.5, 4.0, 2.0, 1.5, 3.0)
        }),
        piece("wall_corner", "Wall Corner", "walls", |p| {
            kit::corner_wall(p, 4.0, 0.5, 4.0)
        }),
        piece("ramp_2x4", "Ramp 2 x 4", "ramps", |p| {
            kit::ramp(p, 8.0, 4.0, 2.0)
        }),
        piece("ramp_2x2", "Ramp 2 x 2", "ramps", |p| {
            kit::ramp(p, 4.0, 4.0, 1.0)
        }),
        piece("stairs_2x4", "Stairs 2 x 4", "stairs", |p| {
            kit::stairs(p, 9.0, 4.0, 4.5, 18)
        }),
        piece("column_1", "Column", "columns", |p| {
            kit::column(p, 1.0, 4.0)
        }),
        piece("column_tall", "Tall Column", "columns", |p| {
            kit::column(p, 1.0, 9.0)
        }),
        piece("deck_4x4", "Raised Deck 4 x 4", "decks", |p| {
            kit::deck(p, 8.0, 8.0, 4.5, 0.5, 0.5, 4.0)
        }),
        piece("deck_2x2", "Raised Deck 2 x 2", "decks", |p| {
            kit::deck(p, 4.0, 4.0, 4.5, 0.5, 0.5, 4.0)
        }),
        piece("platform_2x2", "Platform 2 x 2", "platforms", |p| {
            kit::platform(p, 4.0, 4.0, 2.0)
        }),
        piece("railing_2", "Railing 2", "railings", |p| {
            kit::railing(p, 4.0, 1.1, 3)
        }),
        piece("railing_4", "Railing 4", "railings", |p| {
            kit::railing(p, 8.0, 1.1, 5)
        }),
        piece("bridge_4", "Bridge 4", "bridges", |p| {
            kit::bridge(p, 8.0, 4.0, 0.5, 1.1)
        }),
        piece("bridge_8", "Bridge 8", "bridges", |p| {
            kit::bridge(p, 16.0, 4.0, 0.5, 1.1)
        }),
        piece("light_post", "Light Post", "lights", |p| {
            kit::light_post(p, 3.0, 3.1)
        }),
    ];
    PackDesign {
        id: "foundry",
        name: "Foundry",
        version: "0.2.0",
        summary: "Modular industrial construction pieces",
        origin: "bottom_centre",
        snap_m: 0.5,
        glb: false,
        about: "Modular industrial pieces on a 0.5 m snap: floors, walls with doors and windows, ramps, stairs, columns, raised decks 4.5 m high, railings, bridges and a lit fixture. Every piece has a bottom-centre origin.",
        pieces,
    }
}

pub fn foundry_wide() -> PackDesign {
    let mut pieces = vec![
        piece("wide_floor_8x8", "Wide Floor 8 x 8", "floors", |p| {
            kit::floor(p, 8.0, 8.0, 0.5)
        }),
        piece("wide_floor_16x16", "Wide Floor 16 x 16", "floors", |p| {
            kit::floor(p, 16.0, 16.0, 0.5)
        }),
        piece("wide_floor_8x16", "Wide Floor 8 x 16", "floors", |p| {
            kit::floor(p, 16.0, 8.0, 0.5)
        }),
        piece("wide_wall_8", "Wide Wall 8", "walls", |p| {
            kit::wall(p, 8.0, 1.0, 9.0)
        }),
        piece("wide_wall_16", "Wide Wall 16", "walls", |p| {
            kit::wall(p, 16.0, 1.0, 9.0)
        }),
        piece("wide_wall_door", "Wide Wall, Vehicle Door", "walls", |p| {
            kit::door_wall(p, 8.0, 1.0, 9.0, 5.0, 4.5)
        }),
        piece("wide_wall_window", "Wide Wall, Window", "walls", |p| {
            kit::window_wall(p, 8.0, 1.0, 9.0, 4.0, 5.0, 7.0)
        }),
        piece("wide_corner", "Wide Corner", "walls", |p| {
            kit::corner_wall(p, 8.0, 1.0, 9.0)
        }),
        piece("wide_ramp", "Wide Ramp", "ramps", |p| {
            kit::ramp(p, 18.0, 8.0, 4.5)
        }),
        piece("wide_stairs", "Wide Stairs", "stairs", |p| {
            kit::stairs(p, 9.0, 8.0, 4.5, 18)
        }),
        piece("wide_deck_8x8", "Wide Deck 8 x 8", "decks", |p| {
            kit::deck(p, 8.0, 8.0, 4.5, 0.5, 1.0, 8.0)
        }),
        piece("wide_deck_16x16", "Wide Deck 16 x 16", "decks", |p| {
            kit::deck(p, 16.0, 16.0, 4.5, 0.5, 1.0, 7.5)
        }),
        piece("wide_platform", "Wide Platform", "platforms", |p| {
            kit::platform(p, 8.0, 8.0, 4.5)
        }),
        piece("wide_column", "Wide Column", "columns", |p| {
            kit::column(p, 2.0, 9.0)
        }),
        piece("wide_bridge", "Wide Bridge", "bridges", |p| {
            kit::bridge(p, 16.0, 8.0, 0.5, 1.1)
        }),
        piece("wide_railing_8", "Wide Railing 8", "railings", |p| {
            kit::railing(p, 8.0, 1.1, 5)
        }),
    ];
    pieces.extend(wide_utilities());
    PackDesign {
        id: "foundry-wide",
        name: "Foundry Wide",
        version: "0.2.0",
        summary: "Large-format Foundry pieces for vehicle-scale arenas",
        origin: "bottom_centre",
        snap_m: 1.0,
        glb: false,
        about: "Larger pieces for vehicle-scale arenas: 9 m perimeter walls, 4.5 m decks, a lift, a blast door and glass and portal surfaces. It is its own pack so its pieces can never resize a Foundry build.",
        pieces,
    }
}

/// Foundry Wide's pieces that move or are seen through: a lift, a blast door, a glass
/// panel and a portal frame.
fn wide_utilities() -> Vec<Piece> {
    vec![
        piece("lift_pad", "Lift Pad", "utilities", |p| {
            kit::floor(p, 4.0, 4.0, 0.5);
            p.field(
                "lift",
                json!({"travel_m": [0.0, 0.0, 4.5], "speed_m_s": 2.0, "dwell_s": 1.5}),
            );
        }),
        piece("blast_door", "Blast Door", "utilities", |p| {
            kit::door_wall(p, 8.0, 1.0, 9.0, 4.0, 4.5);
            p.field("door", json!({"aperture": "doorway", "slide_m": [0.0, 0.0, 4.4], "open_s": 0.8, "close_delay_s": 3.0}));
        }),
        piece("glass_panel", "Glass Panel", "utilities", |p| {
            p.hull_box(
                "frame_left",
                "steel",
                [-4.0, -0.25, 0.0],
                [-3.75, 0.25, 4.5],
            );
            p.hull_box("frame_right", "steel", [3.75, -0.25, 0.0], [4.0, 0.25, 4.5]);
            p.hull_box("pane", "glass", [-3.75, -0.05, 0.0], [3.75, 0.05, 4.5]);
            p.field("surfaces", json!([{"slot": "glass", "profile": "glass", "opacity": 0.35, "tint_rgb": [0.7, 0.85, 0.9]}]));
        }),
        piece("portal_frame", "Portal Frame", "utilities", |p| {
            kit::door_wall(p, 6.0, 1.0, 6.0, 3.0, 4.5);
            p.visual_box(
                "portal_sheet",
                "portal",
                [-1.5, -0.01, 0.0],
                [1.5, 0.01, 4.5],
            );
            p.field("surfaces", json!([{"slot": "portal", "profile": "portal", "opacity": 0.8, "tint_rgb": [0.2, 0.6, 1.0]}]));
        }),
    ]
}

/// Road cross-section: a 12 m lane between 0.5 m curbs, on a 0.5 m deck.
const LANE_M: f64 = 12.0;
const CURB_W: f64 = 0.5;
const CURB_H: f64 = 0.3;
const DECK_T: f64 = 0.5;
const HALF_W: f64 = LANE_M / 2.0 + CURB_W;

fn frame(position: [f64; 3], heading: f64) -> serde_json::Value {
    json!({"position_m": position.map(round), "heading_deg": round(heading)})
}

/// A straight with a branch deck off its left side, curbs broken where it joins.
fn junction_t(p: &mut Piece) {
    let l = 2.0 * HALF_W + 2.0 * 6.0;
    let (b0, b1) = (6.0, 6.0 + 2.0 * HALF_W);
    p.hull_box("deck", "asphalt", [0.0, -HALF_W, -DECK_T], [l, HALF_W, 0.0]);
    p.hull_box(
        "branch_deck",
        "asphalt",
        [b0, HALF_W, -DECK_T],
        [b1, HALF_W + 12.0, 0.0],
    );
    p.hull_box(
        "curb_right",
        "concrete",
        [0.0, -HALF_W, 0.0],
        [l, -HALF_W + CURB_W, CURB_H],
    );
    p.hull_box(
        "curb_left_a",
        "concrete",
        [0.0, HALF_W - CURB_W, 0.0],
        [b0, HALF_W, CURB_H],
    );
    p.hull_box(
        "curb_left_b",
        "concrete",
        [b1, HALF_W - CURB_W, 0.0],
        [l, HALF_W, CURB_H],
    );
    p.hull_box(
        "branch_curb_a",
        "concrete",
        [b0, HALF_W, 0.0],
        [b0 + CURB_W, HALF_W + 12.0, CURB_H],
    );
    p.hull_box(
        "branch_curb_b",
        "concrete",
        [b1 - CURB_W, HALF_W, 0.0],
        [b1, HALF_W + 12.0, CURB_H],
    );
    p.support(
        "lane",
        [0.2, -LANE_M / 2.0 + kit::PLAYER_CLEARANCE],
        [l - 0.2, LANE_M / 2.0 - kit::PLAYER_CLEARANCE],
        0.0,
        [0.0, 0.0],
    );
    p.connectors = Some(json!({
        "entry": frame([0.0, 0.0, 0.0], 0.0),
        "exit": frame([l, 0.0, 0.0], 0.0),
        "branches": [frame([(b0 + b1) / 2.0, HALF_W + 12.0, 0.0], 90.0)]
    }));
}

/// A 20 m straight with a painted line under a gantry.
fn start_finish(p: &mut Piece) {
    straight(p, 20.0);
    p.visual_box(
        "start_line",
        "paint",
        [9.5, -LANE_M / 2.0, -0.005],
        [10.5, LANE_M / 2.0, 0.0],
    );
    p.hull_box(
        "gantry_leg_left",
        "steel_dark",
        [9.5, HALF_W, -DECK_T],
        [10.5, HALF_W + 1.0, 7.0],
    );
    p.hull_box(
        "gantry_leg_right",
        "steel_dark",
        [9.5, -HALF_W - 1.0, -DECK_T],
        [10.5, -HALF_W, 7.0],
    );
    p.hull_box(
        "gantry_beam",
        "steel",
        [9.5, -HALF_W, 6.0],
        [10.5, HALF_W, 7.0],
    );
}

/// A 40 m deck with rails, on one pier.
fn bridge(p: &mut Piece) {
    let length = 40.0;
    p.hull_box(
        "deck",
        "asphalt",
        [0.0, -HALF_W, -1.0],
        [length, HALF_W, 0.0],
    );
    p.hull_box(
        "rail_left",
        "steel",
        [0.0, HALF_W - CURB_W, 0.0],
        [length, HALF_W, 1.1],
    );
    p.hull_box(
        "rail_right",
        "steel",
        [0.0, -HALF_W, 0.0],
        [length, -HALF_W + CURB_W, 1.1],
    );
    p.hull_box("pier", "concrete", [18.0, -4.0, -8.0], [22.0, 4.0, -1.0]);
    p.support(
        "lane",
        [0.2, -LANE_M / 2.0 + kit::PLAYER_CLEARANCE],
        [length - 0.2, LANE_M / 2.0 - kit::PLAYER_CLEARANCE],
        0.0,
        [0.0, 0.0],
    );
    p.connectors =
        Some(json!({"entry": frame([0.0, 0.0, 0.0], 0.0), "exit": frame([length, 0.0, 0.0], 0.0)}));
}

fn straight(p: &mut Piece, length: f64) {
    p.hull_box(
        "deck",
        "asphalt",
        [0.0, -HALF_W, -DECK_T],
        [length, HALF_W, 0.0],
    );
    p.hull_box(
        "curb_left",
        "concrete",
        [0.0, HALF_W - CURB_W, 0.0],
        [length, HALF_W, CURB_H],
    );
    p.hull_box(
        "curb_right",
        "concrete",
        [0.0, -HALF_W, 0.0],
        [length, -HALF_W + CURB_W, CURB_H],
    );
    p.visual_box(
        "centre_stripe",
        "paint",
        [0.0, -0.1, -0.005],
        [length, 0.1, 0.0],
    );
    p.support(
        "lane",
        [0.2, -LANE_M / 2.0 + kit::PLAYER_CLEARANCE],
        [length - 0.2, LANE_M / 2.0 - kit::PLAYER_CLEARANCE],
        0.0,
        [0.0, 0.0],
    );
    p.connectors =
        Some(json!({"entry": frame([0.0, 0.0, 0.0], 0.0), "exit": frame([length, 0.0, 0.0], 0.0)}));
}

/// A curve of `angle` degrees at centreline radius `radius`, turning left (`side` 1) or
/// right (-1), built from convex segments.
fn curve(p: &mut Piece, radius: f64, angle: f64, side: f64, segments: usize) {
    let at = |r: f64, theta: f64| [r * theta.sin(), side * (radius - r * theta.cos())];
    let bands = [
        (
            "deck",
            "asphalt",
            radius - HALF_W,
            radius + HALF_W,
            -DECK_T,
            0.0,
        ),
        (
            "curb_inner",
            "concrete",
            radius - HALF_W,
            radius - HALF_W + CURB_W,
            0.0,
            CURB_H,
        ),
        (
            "curb_outer",
            "concrete",
            radius + HALF_W - CURB_W,
            radius + HALF_W,
            0.0,
            CURB_H,
        ),
    ];
    for s in 0..segments {
        let t0 = (angle * s as f64 / segments as f64).to_radians();
        let t1 = (angle * (s + 1) as f64 / segments as f64).to_radians();
        for (name, material, r0, r1, lo, hi) in bands {
            let mut quad = vec![at(r0, t0), at(r1, t0), at(r1, t1), at(r0, t1)];
            if side < 0.0 {
                quad.reverse();
            }
            let quad = quad.into_iter().map(|q| q.map(round)).collect();
            p.prism(
                &format!("{name}_{s:02}"),
                material,
                Role::Both,
                2,
                quad,
                (lo, hi),
            );
        }
    }
    let end = angle.to_radians();
    let exit = at(radius, end);
    p.connectors = Some(
        json!({"entry": frame([0.0, 0.0, 0.0], 0.0), "exit": frame([exit[0], exit[1], 0.0], side * angle)}),
    );
}

fn road_ramp(p: &mut Piece, length: f64, rise: f64) {
    // Prisms along y: polygons in (z, x), counter-clockwise seen from +y.
    p.prism(
        "deck",
        "asphalt",
        Role::Both,
        1,
        vec![
            [-DECK_T, 0.0],
            [rise - DECK_T, length],
            [rise, length],
            [0.0, 0.0],
        ],
        (-HALF_W, HALF_W),
    );
    let curb = vec![
        [0.0, 0.0],
        [rise, length],
        [rise + CURB_H, length],
        [CURB_H, 0.0],
    ];
    p.prism(
        "curb_left",
        "concrete",
        Role::Both,
        1,
        curb.clone(),
        (HALF_W - CURB_W, HALF_W),
    );
    p.prism(
        "curb_right",
        "concrete",
        Role::Both,
        1,
        curb,
        (-HALF_W, -HALF_W + CURB_W),
    );
    let grade = rise / length;
    p.support(
        "lane",
        [0.2, -LANE_M / 2.0 + kit::PLAYER_CLEARANCE],
        [length - 0.2, LANE_M / 2.0 - kit::PLAYER_CLEARANCE],
        grade * 0.2,
        [grade, 0.0],
    );
    p.connectors = Some(
        json!({"entry": frame([0.0, 0.0, 0.0], 0.0), "exit": frame([length, 0.0, rise], 0.0)}),
    );
}

pub fn roadworks() -> PackDesign {
    let pieces = vec![
        piece("road_straight_5", "Straight 5", "straights", |p| {
            straight(p, 5.0)
        }),
        piece("road_straight_10", "Straight 10", "straights", |p| {
            straight(p, 10.0)
        }),
        piece("road_straight_20", "Straight 20", "straights", |p| {
            straight(p, 20.0)
        }),
        piece("road_straight_40", "Straight 40", "straights", |p| {
            straight(p, 40.0)
        }),
        piece("road_curve_45_left", "Curve 45 Left", "curves", |p| {
            curve(p, 30.0, 45.0, 1.0, 6)
        }),
        piece("road_curve_45_right", "Curve 45 Right", "curves", |p| {
            curve(p, 30.0, 45.0, -1.0, 6)
        }),
        piece("road_curve_90_left", "Curve 90 Left", "curves", |p| {
            curve(p, 30.0, 90.0, 1.0, 12)
        }),
        piece("road_curve_90_right", "Curve 90 Right", "curves", |p| {
            curve(p, 30.0, 90.0, -1.0, 12)
        }),
        piece("road_ramp", "Ramp", "ramps", |p| road_ramp(p, 40.0, 4.0)),
        piece("road_junction_t", "T Junction", "junctions", junction_t),
        piece(
            "road_start_finish",
            "Start / Finish",
            "straights",
            start_finish,
        ),
        piece("road_bridge", "Bridge", "bridges", bridge),
    ];
    PackDesign {
        id: "roadworks",
        name: "Roadworks",
        version: "0.2.0",
        summary: "Road pieces for vehicle courses, with exact connectors",
        origin: "entry_floor",
        snap_m: 1.0,
        glb: true,
        about: "Road pieces with a 12 m lane between curbs (0.1 used 8 m lanes): straights, 45 and 90 degree curves both ways, a ramp, a T junction, a start/finish gantry and a bridge. Every piece's origin is its entry floor; connectors give the exact entry and exit frames.",
        pieces,
    }
}
