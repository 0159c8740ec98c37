//! Parametric building pieces shared by Foundry and Foundry Wide (bottom-centre origin).
//! Sizes are in metres; x is the piece's length, y its depth, z up.

use serde_json::json;

use crate::piece::Piece;
use crate::solid::Role;

/// A walkable edge inset keeps support rays off the bevels.
const INSET: f64 = 0.1;
/// How far a walkable area keeps from a wall beside it: the checks' player capsule radius
/// (0.3 m) and a margin.
pub const PLAYER_CLEARANCE: f64 = 0.4;

pub fn floor(p: &mut Piece, length: f64, depth: f64, thickness: f64) {
    let (hx, hy) = (length / 2.0, depth / 2.0);
    p.hull_box("slab", "steel", [-hx, -hy, 0.0], [hx, hy, thickness]);
    // Trim: a recessed grate panel flush with the top, drawn only.
    p.visual_box(
        "grate",
        "steel_dark",
        [-hx + 0.3, -hy + 0.3, thickness - 0.01],
        [hx - 0.3, hy - 0.3, thickness],
    );
    flat_top(p, hx, hy, thickness);
}

pub fn platform(p: &mut Piece, length: f64, depth: f64, height: f64) {
    let (hx, hy) = (length / 2.0, depth / 2.0);
    p.hull_box("block", "concrete", [-hx, -hy, 0.0], [hx, hy, height]);
    p.visual_box(
        "kick_plate",
        "paint",
        [-hx, -hy, height - 0.1],
        [hx, hy, height],
    );
    flat_top(p, hx, hy, height);
}

pub fn wall(p: &mut Piece, length: f64, thickness: f64, height: f64) {
    let (hx, hy) = (length / 2.0, thickness / 2.0);
    p.hull_box("panel", "concrete", [-hx, -hy, 0.0], [hx, hy, height]);
    p.visual_box("base_trim", "steel_dark", [-hx, -hy, 0.0], [hx, hy, 0.2]);
}

/// A wall with a door opening `door_w` wide and `door_h` tall, centred: two posts and a
/// lintel, kept as separate hulls so the opening stays open.
pub fn door_wall(
    p: &mut Piece,
    length: f64,
    thickness: f64,
    height: f64,
    door_w: f64,
    door_h: f64,
) {
    let (hx, hy, hd) = (length / 2.0, thickness / 2.0, door_w / 2.0);
    p.hull_box("post_left", "concrete", [-hx, -hy, 0.0], [-hd, hy, height]);
    p.hull_box("post_right", "concrete", [hd, -hy, 0.0], [hx, hy, height]);
    p.hull_box("lintel", "concrete", [-hd, -hy, door_h], [hd, hy, height]);
    p.aperture(
        "doorway",
        "door",
        [0.0, 0.0, door_h / 2.0],
        "y",
        door_w,
        door_h,
    );
}

/// A wall with a window `win_w` wide between `sill` and `head` heights: four hulls.
pub fn window_wall(
    p: &mut Piece,
    length: f64,
    thickness: f64,
    height: f64,
    win_w: f64,
    sill: f64,
    head: f64,
) {
    let (hx, hy, hw) = (length / 2.0, thickness / 2.0, win_w / 2.0);
    p.hull_box("side_left", "concrete", [-hx, -hy, 0.0], [-hw, hy, height]);
    p.hull_box("side_right", "concrete", [hw, -hy, 0.0], [hx, hy, height]);
    p.hull_box("sill", "concrete", [-hw, -hy, 0.0], [hw, hy, sill]);
    p.hull_box("head", "concrete", [-hw, -hy, head], [hw, hy, height]);
    p.aperture(
        "window",
        "window",
        [0.0, 0.0, (sill + head) / 2.0],
        "y",
        win_w,
        head - sill,
    );
}

/// An L-shaped corner in a `size` x `size` footprint: two hulls.
pub fn corner_wall(p: &mut Piece, size: f64, thickness: f64, height: f64) {
    let h = size / 2.0;
    p.hull_box(
        "leg_north",
        "concrete",
        [-h, h - thickness, 0.0],
        [h, h, height],
    );
    p.hull_box(
        "leg_west",
        "concrete",
        [-h, -h, 0.0],
        [-h + thickness, h - thickness, height],
    );
}

pub fn column(p: &mut Piece, width: f64, height: f64) {
    let h = width / 2.0;
    p.hull_box("shaft", "concrete", [-h, -h, 0.0], [h, h, height]);
    p.visual_box("cap", "steel_dark", [-h, -h, height - 0.2], [h, h, height]);
}

/// A solid ramp rising `rise` over `length` along +x.
pub fn ramp(p: &mut Piece, length: f64, width: f64, rise: f64) {
    let (hx, hy) = (length / 2.0, width / 2.0);
    // Prism along y: polygon in (z, x), counter-clockwise seen from +y.
    p.prism(
        "wedge",
        "concrete",
        Role::Both,
        1,
        vec![[0.0, -hx], [0.0, hx], [rise, hx]],
        (-hy, hy),
    );
    let grade = rise / length;
    p.support(
        "slope",
        [-hx + INSET, -hy + INSET],
        [hx - INSET, hy - INSET],
        grade * INSET,
        [grade, 0.0],
    );
    p.join("foot", "-x", 0.0);
    p.join("head", "+x", rise);
}

/// Stairs: visual treads over a smooth collision ramp, as players expect to walk them.
pub fn stairs(p: &mut Piece, length: f64, width: f64, rise: f64, steps: usize) {
    let (hx, hy) = (length / 2.0, width / 2.0);
    p.prism(
        "ramp",
        "concrete",
        Role::Collision,
        1,
        vec![[0.0, -hx], [0.0, hx], [rise, hx]],
        (-hy, hy),
    );
    let run = length / steps as f64;
    for i in 0..steps {
        let x0 = -hx + run * i as f64;
        let top = rise * (i + 1) as f64 / steps as f64;
        p.visual_box(
            &format!("tread_{i:02}"),
            "concrete",
            [x0, -hy, 0.0],
            [x0 + run, hy, top],
        );
    }
    let grade = rise / length;
    p.support(
        "flight",
        [-hx + INSET, -hy + INSET],
        [hx - INSET, hy - INSET],
        grade * INSET,
        [grade, 0.0],
    );
    p.join("foot", "-x", 0.0);
    p.join("head", "+x", rise);
}

/// A raised deck: a top plate `plate` thick at `height`, on legs at the corners
/// (and every `leg_span` metres between them).
pub fn deck(
    p: &mut Piece,
    length: f64,
    depth: f64,
    height: f64,
    plate: f64,
    leg: f64,
    leg_span: f64,
) {
    let (hx, hy) = (length / 2.0, depth / 2.0);
    p.hull_box(
        "plate",
        "steel",
        [-hx, -hy, height - plate],
        [hx, hy, height],
    );
    let positions = |half: f64| {
        let n = ((2.0 * half - leg) / leg_span).ceil().max(1.0) as usize;
        (0..=n)
            .map(move |i| -half + (2.0 * half - leg) * i as f64 / n as f64)
            .collect::<Vec<_>>()
    };
    let mut k = 0;
    for x in positions(hx) {
        for y in positions(hy) {
            let edge_x = (x + hx).abs() < 1e-9 || (x + leg - hx).abs() < 1e-9;
            let edge_y = (y + hy).abs() < 1e-9 || (y + leg - hy).abs() < 1e-9;
            if edge_x || edge_y {
                p.hull_box(
                    &format!("leg_{k:02}"),
                    "steel_dark",
                    [x, y, 0.0],
                    [x + leg, y + leg, height - plate],
                );
                k += 1;
            }
        }
    }
    flat_top(p, hx, hy, height);
}

/// A railing along x: posts and a top rail.
pub fn railing(p: &mut Piece, length: f64, height: f64, posts: usize) {
    let hx = length / 2.0;
    let t = 0.1;
    for i in 0..posts {
        let x = -hx + (length - 2.0 * t) * i as f64 / (posts - 1) as f64;
        p.hull_box(
            &format!("post_{i}"),
            "steel",
            [x, -t, 0.0],
            [x + 2.0 * t, t, height - t],
        );
    }
    p.hull_box("rail", "steel", [-hx, -t, height - t], [hx, t, height]);
}

/// A bridge span along x: deck slab with side railings.
pub fn bridge(p: &mut Piece, length: f64, width: f64, thickness: f64, rail_h: f64) {
    let (hx, hy) = (length / 2.0, width / 2.0);
    p.hull_box("deck", "steel", [-hx, -hy, 0.0], [hx, hy, thickness]);
    p.hull_box(
        "rail_south",
        "steel_dark",
        [-hx, -hy, thickness],
        [hx, -hy + 0.2, thickness + rail_h],
    );
    p.hull_box(
        "rail_north",
        "steel_dark",
        [-hx, hy - 0.2, thickness],
        [hx, hy, thickness + rail_h],
    );
    // Player centres keep a capsule's radius (and a margin) clear of the rails.
    p.support(
        "walkway",
        [-hx + INSET, -hy + 0.2 + PLAYER_CLEARANCE],
        [hx - INSET, hy - 0.2 - PLAYER_CLEARANCE],
        thickness,
        [0.0, 0.0],
    );
    p.join("east", "+x", thickness);
    p.join("west", "-x", thickness);
}

/// A lamp post with a lamp head and a point light in it.
pub fn light_post(p: &mut Piece, height: f64, light_z: f64) {
    p.hull_box(
        "post",
        "steel_dark",
        [-0.15, -0.15, 0.0],
        [0.15, 0.15, height],
    );
    p.hull_box(
        "lamp_head",
        "lamp",
        [-0.3, -0.3, height],
        [0.3, 0.3, height + 0.4],
    );
    p.hull_box("foot", "steel", [-0.4, -0.4, 0.0], [0.4, 0.4, 0.1]);
    p.field(
        "light",
        json!({"offset_m": [0.0, 0.0, light_z], "color_rgb": [1.0, 0.9, 0.7], "intensity_cd": 70.0, "radius_m": 8.0}),
    );
}

/// A level top a player can stand on anywhere but the inset rim, joinable on all four sides.
fn flat_top(p: &mut Piece, hx: f64, hy: f64, height: f64) {
    p.support(
        "top",
        [-hx + INSET, -hy + INSET],
        [hx - INSET, hy - INSET],
        height,
        [0.0, 0.0],
    );
    p.joins_all_round(height);
}
