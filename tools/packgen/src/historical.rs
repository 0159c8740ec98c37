//! The historical releases of the stock packs (`docs/pack-contract.md`), kept so `mjolnir forge compat` can show why
//! layouts built with them need an explicit rebuild to use today's larger sets: Roadworks
//! 0.1 (8 m lanes, so every road 4 m narrower), Foundry Wide 0.1 (the 18-piece kit, before
//! the glass panel and the portal frame) and Crossline 0.2 (48 x 80 m, built with Wide
//! 0.1). Each pack release is its catalog only: what compat and a map bake read.

use serde_json::{json, Value};

use crate::maps::{self, StockMap};
use crate::packs;

/// Today's lanes are 12 m; Roadworks 0.1's were 8 m.
const NARROWER_M: f64 = 4.0;
/// The pieces Foundry Wide 0.2 added to the 18-piece kit.
const ADDED_IN_WIDE_0_2: [&str; 2] = ["glass_panel", "portal_frame"];

pub fn roadworks_0_1() -> Value {
    let mut m = crate::manifest(&packs::roadworks());
    m["version"] = json!("0.1.0");
    for block in m["forge_pack"]["blocks"].as_array_mut().expect("blocks") {
        let curve = block["id"].as_str().is_some_and(|id| id.contains("curve"));
        let d = block["dimensions_m"].as_array_mut().expect("dimensions");
        let width = d[1].as_f64().expect("a number");
        d[1] = json!(width - NARROWER_M);
        if curve {
            let length = d[0].as_f64().expect("a number");
            d[0] = json!(length - NARROWER_M / 2.0);
        }
    }
    m
}

pub fn foundry_wide_0_1() -> Value {
    let mut m = crate::manifest(&packs::foundry_wide());
    m["version"] = json!("0.1.0");
    m["forge_pack"]["blocks"]
        .as_array_mut()
        .expect("blocks")
        .retain(|b| !ADDED_IN_WIDE_0_2.contains(&b["id"].as_str().unwrap_or_default()));
    m
}

/// Crossline 0.2: 48 x 80 m of Wide 0.1 floors inside its 9 m walls, a 4.5 m deck at each
/// end, and the starts.
pub fn crossline_0_2() -> StockMap {
    let mut objects = Vec::new();
    for i in 0..3 {
        for j in 0..5 {
            let at = [
                -16.0 + 16.0 * f64::from(i),
                -32.0 + 16.0 * f64::from(j),
                0.0,
            ];
            objects.push(maps::object("foundry-wide/wide_floor_16x16", at, 0.0));
        }
    }
    for i in 0..3 {
        let x = -16.0 + 16.0 * f64::from(i);
        objects.push(maps::object(
            "foundry-wide/wide_wall_16",
            [x, -39.5, 0.0],
            0.0,
        ));
        objects.push(maps::object(
            "foundry-wide/wide_wall_16",
            [x, 39.5, 0.0],
            180.0,
        ));
        objects.push(maps::object(
            "foundry-wide/wide_deck_16x16",
            [x, -28.0, 0.0],
            0.0,
        ));
        objects.push(maps::object(
            "foundry-wide/wide_deck_16x16",
            [x, 28.0, 0.0],
            0.0,
        ));
    }
    for j in 0..5 {
        let y = -32.0 + 16.0 * f64::from(j);
        objects.push(maps::object(
            "foundry-wide/wide_wall_16",
            [-23.5, y, 0.0],
            90.0,
        ));
        objects.push(maps::object(
            "foundry-wide/wide_wall_16",
            [23.5, y, 0.0],
            270.0,
        ));
    }
    for (team, y) in [("red", -28.0), ("blue", 28.0)] {
        for x in [-12.0, 12.0] {
            objects.push(maps::start(team, [x, y, 4.5]));
        }
    }
    let mut wide = packs::foundry_wide();
    wide.version = "0.1.0";
    wide.pieces
        .retain(|p| !ADDED_IN_WIDE_0_2.contains(&p.id.as_str()));
    StockMap {
        slug: "crossline-0.2",
        level: maps::level(
            "Crossline",
            "crossline",
            "0.2.0",
            [[-24.0, -40.0, -2.0], [24.0, 40.0, 40.0]],
            400,
            &[wide],
        ),
        layout: maps::layout(objects),
    }
}
