//! Ray checks end to end: every stock block passes, deliberately broken variants of stock
//! blocks fail with the right code, waivers are honoured and listed, and stock curves
//! chain into closed loops.

use crate::support;

use forge_checks::chain;
use forge_contract::geometry::Frame;
use serde_json::{json, Value};
use support::{stderr, Workspace};

fn block<'a>(g: &'a mut Value, id: &str) -> &'a mut Value {
    g["blocks"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|b| b["id"] == id)
        .unwrap()
}

fn hull<'a>(b: &'a mut Value, name: &str) -> &'a mut Value {
    b["hulls"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|h| h["name"] == name)
        .unwrap()
}

/// Cooks `pack` with `change` applied to its geometry and returns the error codes of the
/// failing checks of `block_id`.
fn broken(pack: &str, block_id: &str, change: impl FnOnce(&mut Value)) -> (Vec<String>, String) {
    let ws = Workspace::with_packs(&[pack]);
    ws.edit_json(&format!("packs/{pack}/source/geometry.json"), change);
    let out = ws.mjolnir(&["forge", "cook", "--keep-going", "--only", block_id]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = ws.report();
    let codes = report["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["code"].as_str().unwrap().to_string())
        .collect();
    assert!(
        !ws.path("build/game").exists(),
        "a failed check materializes nothing"
    );
    (codes, stderr(&out))
}

#[test]
fn every_stock_block_passes_every_check() {
    let ws = Workspace::with_packs(&["foundry", "foundry-wide", "roadworks"]);
    ws.cook(&[]);
    let mut kinds = std::collections::BTreeSet::new();
    for pack in ["foundry", "foundry-wide", "roadworks"] {
        let report: Value = serde_json::from_slice(
            &std::fs::read(ws.path(&format!("build/game/{pack}/all/checks.json"))).unwrap(),
        )
        .unwrap();
        for b in report["blocks"].as_array().unwrap() {
            for c in b["checks"].as_array().unwrap() {
                assert_eq!(c["passed"], true, "{pack}/{}: {c}", b["block"]);
                kinds.insert(c["check"].as_str().unwrap().to_string());
            }
        }
    }
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["apertures", "connectors", "joins", "size", "supports"]
    );
}

#[test]
fn a_door_blocked_by_an_extra_hull() {
    let (codes, err) = broken("foundry", "wall_door", |g| {
        let b = block(g, "wall_door");
        b["hulls"].as_array_mut().unwrap().push(json!({"name": "junk", "material": "steel",
            "points": [[-0.3, -0.2, 0.0], [0.3, -0.2, 0.0], [-0.3, 0.2, 0.0], [0.3, 0.2, 0.0], [-0.3, -0.2, 1.0], [0.3, -0.2, 1.0], [-0.3, 0.2, 1.0], [0.3, 0.2, 1.0]]}));
    });
    assert_eq!(codes, ["aperture_blocked"], "{err}");
    assert!(
        err.contains("foundry/wall_door: check apertures \"doorway\"")
            && err.contains("first failing ray from")
            && err.contains("hull \"junk\""),
        "{err}"
    );
}

#[test]
fn a_window_whose_hulls_were_merged() {
    let (codes, err) = broken("foundry", "wall_window", |g| {
        let b = block(g, "wall_window");
        let corners: Vec<Value> = (0..8)
            .map(|i| {
                json!([
                    if i & 1 == 0 { -2.0 } else { 2.0 },
                    if i & 2 == 0 { -0.25 } else { 0.25 },
                    if i & 4 == 0 { 0.0 } else { 4.0 }
                ])
            })
            .collect();
        b["hulls"] = json!([{"name": "merged", "material": "concrete", "points": corners}]);
    });
    assert_eq!(codes, ["aperture_blocked"], "{err}");
}

#[test]
fn a_ramp_too_steep() {
    let (codes, err) = broken("foundry", "ramp_2x2", |g| {
        let b = block(g, "ramp_2x2");
        for p in hull(b, "wedge")["points"].as_array_mut().unwrap() {
            if p[2].as_f64().unwrap() > 0.0 {
                p[2] = json!(5.0);
            }
        }
        b["supports"][0]["grade"] = json!([1.25, 0.0]);
        b["supports"][0]["height_m"] = json!(0.125);
    });
    assert!(
        codes.contains(&"support_too_steep".to_string()),
        "{codes:?} {err}"
    );
}

#[test]
fn a_deck_two_centimetres_low_at_a_join() {
    let (codes, err) = broken("foundry", "deck_4x4", |g| {
        let b = block(g, "deck_4x4");
        for p in hull(b, "plate")["points"].as_array_mut().unwrap() {
            if p[2].as_f64().unwrap() == 4.5 {
                p[2] = json!(4.48);
            }
        }
    });
    assert!(
        codes.contains(&"join_height".to_string()),
        "{codes:?} {err}"
    );
}

#[test]
fn a_piece_five_centimetres_larger_than_declared() {
    let (codes, err) = broken("foundry", "floor_2x2", |g| {
        for p in hull(block(g, "floor_2x2"), "slab")["points"]
            .as_array_mut()
            .unwrap()
        {
            let x = p[0].as_f64().unwrap();
            p[0] = json!(x + x.signum() * 0.025);
        }
    });
    assert!(
        codes.contains(&"size_mismatch".to_string()),
        "{codes:?} {err}"
    );
    assert!(
        err.contains("4.0500 x 4.0000 x 0.5000 m")
            && err.contains("declares 4.0000 x 4.0000 x 0.5000 m"),
        "{err}"
    );
}

#[test]
fn a_curve_whose_exit_is_rotated_one_degree() {
    let (codes, err) = broken("roadworks", "road_curve_90_left", |g| {
        let b = block(g, "road_curve_90_left");
        b["connectors"]["exit"]["heading_deg"] = json!(91.0);
    });
    assert_eq!(codes, ["connector_heading"], "{err}");
}

#[test]
fn a_reviewed_waiver_passes_and_is_listed() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.edit_json("packs/foundry/source/geometry.json", |g| {
        let b = block(g, "deck_4x4");
        for p in hull(b, "plate")["points"].as_array_mut().unwrap() {
            if p[2].as_f64().unwrap() == 4.5 {
                p[2] = json!(4.498);
            }
        }
        b["waivers"] = json!([
            {"check": "joins", "reason": "a 2 mm sag is within what players notice", "reviewed_by": "level design"},
            {"check": "size", "reason": "the same sag", "reviewed_by": "level design"}
        ]);
    });
    ws.cook(&["--only", "deck_4x4"]);
    let report: Value = serde_json::from_slice(
        &std::fs::read(ws.path("build/game/foundry/deck_4x4/checks.json")).unwrap(),
    )
    .unwrap();
    let joins: Vec<&Value> = report["blocks"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["check"] == "joins")
        .collect();
    assert_eq!(joins.len(), 4);
    assert!(
        joins
            .iter()
            .all(|c| c["passed"] == false && c["waiver"]["reviewed_by"] == "level design"),
        "{joins:?}"
    );
    assert!(
        joins[0]["failure"]["ray"]["origin_m"].is_array(),
        "a waived failure still shows its ray"
    );
    // The report page gives each waiver's reason and reviewer.
    let html = std::fs::read_to_string(ws.path("build/report.html")).unwrap();
    assert!(
        html.contains(
            "waived: a 2 mm sag is within what players notice (reviewed by level design)"
        ),
        "{html}"
    );
}

fn frames(pack: &str, id: &str) -> (Frame, Frame) {
    let text = std::fs::read_to_string(
        support::repo()
            .join("forge-packs")
            .join(pack)
            .join("source/geometry.json"),
    )
    .unwrap();
    let g: Value = serde_json::from_str(&text).unwrap();
    let b = g["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == id)
        .unwrap();
    let frame = |f: &Value| Frame {
        position_m: [0, 1, 2].map(|i| f["position_m"][i].as_f64().unwrap()),
        heading_deg: f["heading_deg"].as_f64().unwrap(),
    };
    (
        frame(&b["connectors"]["entry"]),
        frame(&b["connectors"]["exit"]),
    )
}

#[test]
fn stock_curves_close_loops() {
    let closes = |pieces: Vec<(Frame, Frame)>, turns: f64| {
        let (p, heading) = chain(&pieces);
        let distance = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        assert!(
            distance < 0.001,
            "the loop ends {distance} m from its start"
        );
        assert!(
            (heading - 360.0 * turns).abs() < 0.01,
            "the loop ends at {heading}°"
        );
    };
    closes(vec![frames("roadworks", "road_curve_90_left"); 4], 1.0);
    closes(vec![frames("roadworks", "road_curve_45_left"); 8], 1.0);
    closes(vec![frames("roadworks", "road_curve_90_right"); 4], -1.0);
    // A stadium: straights between pairs of curves.
    let s = frames("roadworks", "road_straight_40");
    let c = frames("roadworks", "road_curve_90_left");
    closes(vec![s.clone(), c.clone(), c.clone(), s, c.clone(), c], 1.0);
    // A rotated exit breaks it.
    let mut bent = frames("roadworks", "road_curve_90_left");
    bent.1.heading_deg += 1.0;
    let (p, _) = chain(&vec![bent; 4]);
    assert!((p[0] * p[0] + p[1] * p[1]).sqrt() > 0.001);
}
