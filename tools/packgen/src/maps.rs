//! `forge-packgen maps OUT_DIR`: the stock maps, `OUT_DIR/<slug>/level.json` and
//! `layout.json` (formats in `docs/maps.md`). Like the packs, a pure function of this
//! program, so the checked-in `forge-maps/` can be compared against a fresh run.

use serde_json::{json, Value};

use crate::packs::{self, PackDesign};

/// The standard palette entries every stock map offers, ahead of its pack blocks.
const STANDARD: [&str; 4] = ["spawn_point", "warthog", "flag_stand", "weapon_rack"];

pub struct StockMap {
    pub slug: &'static str,
    pub level: Value,
    pub layout: Value,
}

fn tag(pack: &str, block: &str) -> String {
    format!("objects\\mjolnir\\forge\\{pack}\\{block}")
}

/// The level's `blam.forge_packs`: every block of each pack, in catalog order.
fn forge_packs(packs: &[PackDesign]) -> Value {
    Value::Array(
        packs
            .iter()
            .map(|p| {
                let blocks: Vec<Value> = p
                    .pieces
                    .iter()
                    .map(|b| json!({"id": b.id, "tag": tag(p.id, &b.id)}))
                    .collect();
                json!({"slug": p.id, "version": p.version, "blocks": blocks})
            })
            .collect(),
    )
}

pub fn level(
    name: &str,
    slug: &str,
    version: &str,
    bounds: [[f64; 3]; 2],
    budget: usize,
    packs: &[PackDesign],
) -> Value {
    json!({
        "format": "mjolnir-level",
        "name": name,
        "slug": slug,
        "version": version,
        "build": "standalone",
        "bounds_m": bounds,
        "object_budget": budget,
        "standard_palette": STANDARD,
        "layout": "layout.json",
        "blam": {"map_variant": true, "forge_packs": forge_packs(packs)},
    })
}

pub fn object(palette: &str, at: [f64; 3], yaw: f64) -> Value {
    json!({"palette": palette, "position_m": at, "yaw_deg": yaw})
}

pub fn start(team: &str, at: [f64; 3]) -> Value {
    json!({"palette": "spawn_point", "position_m": at, "yaw_deg": 0.0, "team": team})
}

pub fn layout(objects: Vec<Value>) -> Value {
    json!({"format": "mjolnir-layout", "objects": objects})
}

/// The Forge Canvas: a blank 64 x 64 m deck of Foundry floors.
pub fn canvas() -> StockMap {
    let mut objects = Vec::new();
    for i in 0..8 {
        for j in 0..8 {
            let at = [-28.0 + 8.0 * f64::from(i), -28.0 + 8.0 * f64::from(j), 0.0];
            objects.push(object("foundry/floor_4x4", at, 0.0));
        }
    }
    objects.push(start("red", [-24.0, 0.0, 0.5]));
    objects.push(start("blue", [24.0, 0.0, 0.5]));
    StockMap {
        slug: "forge-canvas",
        level: level(
            "Forge Canvas",
            "forge-canvas",
            "0.2.0",
            [[-32.0, -32.0, -2.0], [32.0, 32.0, 40.0]],
            640,
            &[packs::foundry()],
        ),
        layout: layout(objects),
    }
}

/// Crossline's ground, its 9 m perimeter and the two bases.
fn crossline_arena(objects: &mut Vec<Value>) {
    // The ground: 6 x 10 wide floors of 16 m.
    for i in 0..6 {
        for j in 0..10 {
            let at = [
                -40.0 + 16.0 * f64::from(i),
                -72.0 + 16.0 * f64::from(j),
                0.0,
            ];
            objects.push(object("foundry-wide/wide_floor_16x16", at, 0.0));
        }
    }
    // The 9 m perimeter: 16 m walls, 6 on each short side and 10 on each long one.
    for i in 0..6 {
        let x = -40.0 + 16.0 * f64::from(i);
        objects.push(object("foundry-wide/wide_wall_16", [x, -79.5, 0.0], 0.0));
        objects.push(object("foundry-wide/wide_wall_16", [x, 79.5, 0.0], 180.0));
    }
    for j in 0..10 {
        let y = -72.0 + 16.0 * f64::from(j);
        objects.push(object("foundry-wide/wide_wall_16", [-47.5, y, 0.0], 90.0));
        objects.push(object("foundry-wide/wide_wall_16", [47.5, y, 0.0], 270.0));
    }
    // Each base: a row of six 4.5 m decks, two ramps up, and railings on the decks.
    for (side, y) in [(-1.0, -56.0), (1.0, 56.0)] {
        for i in 0..6 {
            let x = -40.0 + 16.0 * f64::from(i);
            objects.push(object("foundry-wide/wide_deck_16x16", [x, y, 0.0], 0.0));
            for k in 0..2 {
                let rail = [x - 4.0 + 8.0 * f64::from(k), y - side * 8.0, 4.5];
                objects.push(object("foundry-wide/wide_railing_8", rail, 0.0));
            }
        }
        for x in [-36.0, 36.0] {
            objects.push(object(
                "foundry-wide/wide_ramp",
                [x, y - side * 17.0, 0.0],
                if side < 0.0 { 90.0 } else { 270.0 },
            ));
        }
    }
}

/// Crossline's midfield cover: Foundry walls, columns, platforms, floors and lights.
fn crossline_cover(objects: &mut Vec<Value>) {
    let cover: [(&str, usize); 5] = [
        ("foundry/wall_half", 40),
        ("foundry/column_1", 40),
        ("foundry/light_post", 30),
        ("foundry/platform_2x2", 20),
        ("foundry/floor_2x2", 24),
    ];
    let mut n = 0;
    for (piece, count) in cover {
        for _ in 0..count {
            let (i, j) = (n % 11, n / 11);
            let at = [-40.0 + 8.0 * i as f64, -36.0 + 5.0 * j as f64, 0.5];
            objects.push(object(piece, at, 90.0 * (n % 4) as f64));
            n += 1;
        }
    }
}

/// Crossline 0.3: Foundry and Foundry Wide in a 96 x 160 m Red versus Blue arena; raised
/// decks 4.5 m high inside a 9 m perimeter; 300 authored objects, two Warthogs, eight
/// team-owned starts and four neutral midfield starts; 351 native slots left.
pub fn crossline() -> StockMap {
    let mut objects = Vec::new();
    crossline_arena(&mut objects);
    crossline_cover(&mut objects);
    objects.push(object("warthog", [-20.0, -40.0, 0.5], 0.0));
    objects.push(object("warthog", [20.0, 40.0, 0.5], 180.0));
    for (team, y) in [("red", -56.0), ("blue", 56.0)] {
        for x in [-30.0, -10.0, 10.0, 30.0] {
            objects.push(start(team, [x, y, 4.5]));
        }
    }
    for x in [-30.0, -10.0, 10.0, 30.0] {
        objects.push(start("neutral", [x, 0.0, 0.5]));
    }
    let mut level = level(
        "Crossline",
        "crossline",
        "0.3.0",
        [[-48.0, -80.0, -2.0], [48.0, 80.0, 40.0]],
        300 + 351,
        &[packs::foundry(), packs::foundry_wide()],
    );
    level["expect"] = json!({
        "objects": 300,
        "counts": {"warthog": 2, "spawn_point/red": 4, "spawn_point/blue": 4, "spawn_point/neutral": 4},
        "deck_height_m": 4.5,
    });
    StockMap {
        slug: "crossline",
        level,
        layout: layout(objects),
    }
}

/// Roadworks Circuit 0.2: a closed course of about 731 m (728.5 m of centre line: four
/// 90-degree curves of 30 m radius and 540 m of straights) on a 320 x 320 m recovery deck,
/// with three Warthogs. Each piece sits where the previous one's exit connector is.
pub fn circuit() -> StockMap {
    // (piece, its exit relative to its entry: forward, left, turn in degrees)
    let straight = |n: u32| {
        (
            format!("roadworks/road_straight_{n}"),
            f64::from(n),
            0.0,
            0.0,
        )
    };
    let curve = || ("roadworks/road_curve_90_left".to_string(), 30.0, 30.0, 90.0);
    let long = |first: (String, f64, f64, f64)| {
        vec![
            first,
            straight(40),
            straight(40),
            straight(40),
            straight(20),
            straight(10),
        ]
    };
    let short = || vec![straight(40), straight(40), straight(20)];
    let mut course = long(("roadworks/road_start_finish".into(), 20.0, 0.0, 0.0));
    course.push(curve());
    course.extend(short());
    course.push(curve());
    course.extend(long(straight(20)));
    course.push(curve());
    course.extend(short());
    course.push(curve());
    let (mut at, mut heading) = ([-85.0f64, -80.0, 0.0], 0.0f64);
    let mut objects = Vec::new();
    for (piece, forward, left, turn) in course {
        objects.push(object(&piece, at.map(round_mm), heading.rem_euclid(360.0)));
        let (s, c) = heading.to_radians().sin_cos();
        at = [
            at[0] + forward * c - left * s,
            at[1] + forward * s + left * c,
            at[2],
        ];
        heading += turn;
    }
    for (i, x) in [-20.0, 0.0, 20.0].into_iter().enumerate() {
        objects.push(object("warthog", [x, -60.0 + 5.0 * i as f64, 1.0], 0.0));
    }
    let mut level = level(
        "Roadworks Circuit",
        "roadworks-circuit",
        "0.2.0",
        [[-160.0, -160.0, -2.0], [160.0, 160.0, 40.0]],
        600,
        &[packs::roadworks()],
    );
    level["circuit"] = json!(true);
    StockMap {
        slug: "roadworks-circuit",
        level,
        layout: layout(objects),
    }
}

/// Millimetres: the walk's sines and cosines of whole quarter turns leave 1e-15 noise.
fn round_mm(x: f64) -> f64 {
    let r = (x * 1000.0).round() / 1000.0;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}
