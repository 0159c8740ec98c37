//! End-to-end collision: `mjolnir forge probe` through the BSP, the MOPP and the source
//! hulls, `inspect` on the collision formats, and bad hulls failing the cook with a coded
//! error that names the block and the hull.

use crate::support;

use serde_json::{json, Value};
use support::{stderr, Workspace};

fn probe(ws: &Workspace, args: &[&str]) -> Value {
    let mut all = vec!["forge", "probe"];
    all.extend_from_slice(args);
    all.push("--json");
    let out = ws.mjolnir(&all);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn probes_agree_through_every_engine() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    for via in ["bsp", "mopp", "source"] {
        // Through the doorway: nothing in the way.
        let open = probe(
            &ws,
            &[
                "foundry",
                "wall_door",
                "--ray",
                "0,-3,1.5",
                "0,1,0",
                "--via",
                via,
            ],
        );
        assert!(open["hit"].is_null(), "{via}: {open}");
        // Into the right post: 2.75 m from y = -3 to its face at y = -0.25.
        let post = probe(
            &ws,
            &[
                "foundry",
                "wall_door",
                "--ray",
                "1.5,-3,1.5",
                "0,1,0",
                "--via",
                via,
            ],
        );
        assert!(
            (post["hit"]["distance_m"].as_f64().unwrap() - 2.75).abs() < 1e-4,
            "{via}: {post}"
        );
        assert_eq!(post["hit"]["hull"], "post_right", "{via}");
        // The same post from the other side: negative numbers are coordinates, not flags.
        let back = probe(
            &ws,
            &[
                "foundry",
                "wall_door",
                "--ray",
                "1.5,3,1.5",
                "-0,-1,-0",
                "--via",
                via,
            ],
        );
        assert_eq!(back["hit"]["hull"], "post_right", "{via}: {back}");
        let below = probe(
            &ws,
            &["foundry", "wall_door", "--point", "-1.5,0,-1", "--via", via],
        );
        assert_eq!(below["hulls"], json!([]), "{via}");
        let inside = probe(
            &ws,
            &["foundry", "wall_door", "--point", "1.5,0,1", "--via", via],
        );
        assert_eq!(inside["hulls"], json!(["post_right"]), "{via}");
        let doorway = probe(
            &ws,
            &["foundry", "wall_door", "--point", "0,0,1", "--via", via],
        );
        assert_eq!(doorway["inside"], false, "{via}");
    }
    let text = ws.mjolnir(&[
        "forge",
        "probe",
        "foundry",
        "wall_door",
        "--ray",
        "1.5,-3,1.5",
        "0,2,0",
    ]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("hit at 2.7500 m on hull \"post_right\"") && text.contains("(concrete)"),
        "{text}"
    );
    let out = ws.mjolnir(&["forge", "probe", "foundry", "no_such", "--point", "0,0,0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("run `mjolnir forge cook"),
        "{}",
        stderr(&out)
    );
    let out = ws.mjolnir(&[
        "forge",
        "probe",
        "foundry",
        "wall_door",
        "--ray",
        "0,0,0",
        "0,0,0",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn inspect_reads_the_collision_formats() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&["--only", "wall_window"]);
    let dir = "build/game/foundry/wall_window/cooked/wall_window";
    let read = |file: &str| -> Value {
        let out = ws.mjolnir(&["forge", "inspect", &format!("{dir}/{file}"), "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let model = read("collision.fcol");
    assert_eq!(
        model["regions"].as_array().unwrap().len(),
        4,
        "a window keeps its four hulls apart"
    );
    assert_eq!(model["regions"][0]["surfaces"], 6);
    let mopp = read("mopp.fmop");
    assert_eq!(mopp["primitives"], 24);
    assert_eq!(mopp["leaves"], 24);
    let polyhedra = read("polyhedra.fpol");
    assert_eq!(polyhedra["polyhedra"][0]["planes"], 6);
}

fn break_hull(ws: &Workspace, block: &str, change: impl FnOnce(&mut Value)) {
    ws.edit_json("packs/foundry/source/geometry.json", |g| {
        let b = g["blocks"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|b| b["id"] == block)
            .unwrap();
        change(&mut b["hulls"][0]["points"]);
    });
}

#[test]
fn bad_hulls_fail_the_cook_naming_block_and_hull() {
    type Breakage = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Breakage)> = vec![
        (
            "hull_not_convex",
            Box::new(|p| p.as_array_mut().unwrap().push(json!([0.0, 0.0, 0.25]))),
        ),
        (
            "hull_duplicate_point",
            Box::new(|p| {
                let first = p[0].clone();
                p.as_array_mut().unwrap().push(first);
            }),
        ),
        (
            "hull_degenerate",
            Box::new(|p| *p = json!([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 3, 0]])),
        ),
        (
            "hull_sliver",
            Box::new(|p| {
                for q in p.as_array_mut().unwrap() {
                    let z = q[2].as_f64().unwrap();
                    q[2] = json!(if z > 0.0 { 0.0005 } else { 0.0 });
                }
            }),
        ),
    ];
    for (code, change) in cases {
        let ws = Workspace::with_packs(&["foundry"]);
        break_hull(&ws, "floor_2x2", change);
        let out = ws.mjolnir(&["forge", "cook", "--keep-going"]);
        assert_eq!(out.status.code(), Some(1), "{code}");
        let err = stderr(&out);
        assert!(
            err.contains(&format!("error[{code}]"))
                && err.contains("block \"floor_2x2\", hull \"slab\""),
            "{code}: {err}"
        );
        assert!(
            !ws.path("build/game").exists(),
            "{code}: nothing is materialized"
        );
    }
}
