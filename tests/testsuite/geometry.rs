//! Issue checks for the geometry cookers, on every stock block: the cooked mesh placed by
//! its actor has the declared size at the declared origin, and every asset is namespaced.

use crate::support;

use forge_actor::Actor;
use forge_mesh::StaticMesh;
use forge_units::unreal_to_pack;
use serde_json::Value;
use support::Workspace;

#[test]
fn placed_meshes_match_the_catalog_for_every_stock_block() {
    let ws = Workspace::with_packs(&["foundry", "foundry-wide", "roadworks"]);
    ws.cook(&[]);
    let mut checked = 0;
    for pack in ["foundry", "foundry-wide", "roadworks"] {
        let set = ws.path(&format!("build/game/{pack}/all"));
        let manifest: Value =
            serde_json::from_slice(&std::fs::read(set.join("mjolnir.json")).unwrap()).unwrap();
        for entry in manifest["forge_pack"]["blocks"].as_array().unwrap() {
            let id = entry["id"].as_str().unwrap();
            let dir = set.join("cooked").join(id);
            let mesh =
                StaticMesh::from_bytes(&std::fs::read(dir.join("static_mesh.fmsh")).unwrap())
                    .unwrap();
            let actor = Actor::from_json(&std::fs::read(dir.join("actor.json")).unwrap()).unwrap();
            assert_eq!(
                mesh.asset_path,
                format!("/Game/MJOLNIR/Forge/{pack}/{id}/SM_{id}")
            );
            assert_eq!(actor.mesh.asset, mesh.asset_path);
            assert_eq!(
                actor.class_path,
                format!("/Game/MJOLNIR/Forge/{pack}/{id}/BP_{id}.BP_{id}_C")
            );
            assert_eq!(actor.mesh.collision, "NoCollision");
            // Place the mesh with the actor's transform and go back to pack space.
            let (lo, hi) = mesh.bounds_cm();
            let place = |p: [f32; 3]| {
                unreal_to_pack([0, 1, 2].map(|i| p[i] as f64 + actor.mesh.relative_location_cm[i]))
            };
            let (a, b) = (place(lo), place(hi));
            let (min, max) = (
                [0, 1, 2].map(|i| a[i].min(b[i])),
                [0, 1, 2].map(|i| a[i].max(b[i])),
            );
            for axis in 0..3 {
                let declared = entry["dimensions_m"][axis].as_f64().unwrap();
                let size = max[axis] - min[axis];
                assert!(
                    (size - declared).abs() <= 0.001,
                    "{pack}/{id} axis {axis}: placed mesh is {size} m, declared {declared} m"
                );
            }
            match actor.origin.as_str() {
                "bottom_centre" => {
                    assert!(
                        min[2].abs() <= 0.001,
                        "{pack}/{id}: the bottom is at {} m",
                        min[2]
                    );
                    for axis in 0..2 {
                        assert!(
                            (min[axis] + max[axis]).abs() <= 0.001,
                            "{pack}/{id}: not centred on axis {axis}"
                        );
                    }
                }
                "entry_floor" => {
                    // The entry is at the origin: the road starts at x = 0 and spans y = 0.
                    assert!(
                        min[0].abs() <= 0.001,
                        "{pack}/{id}: the road starts at x = {} m",
                        min[0]
                    );
                    assert!(
                        min[1] < 0.0 && max[1] > 0.0 && min[2] < 0.0 && max[2] >= 0.0,
                        "{pack}/{id}"
                    );
                }
                other => panic!("{pack}/{id}: origin {other}"),
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 23 + 20 + 12);
}

#[test]
fn lights_and_utilities_reach_the_actors() {
    let ws = Workspace::with_packs(&["foundry", "foundry-wide"]);
    ws.cook(&[]);
    let read = |rel: &str| Actor::from_json(&std::fs::read(ws.path(rel)).unwrap()).unwrap();
    let lamp = read("build/game/foundry/all/cooked/light_post/actor.json");
    let light = lamp.light.unwrap();
    assert_eq!(light.relative_location_cm, [0.0, 0.0, 310.0]);
    assert_eq!(
        (
            light.mobility.as_str(),
            light.cast_shadows,
            light.inverse_squared_falloff
        ),
        ("Movable", false, true)
    );
    let lift = read("build/game/foundry-wide/all/cooked/lift_pad/actor.json")
        .lift
        .unwrap();
    assert_eq!(lift.travel_cm, [0.0, 0.0, 450.0]);
    let door = read("build/game/foundry-wide/all/cooked/blast_door/actor.json")
        .door
        .unwrap();
    assert_eq!(door.aperture, "doorway");
    let glass = read("build/game/foundry-wide/all/cooked/glass_panel/actor.json");
    assert_eq!(glass.surfaces[0].profile, "glass");
    let floor = read("build/game/foundry/all/cooked/floor_2x2/actor.json");
    assert!(
        floor.light.is_none()
            && floor.lift.is_none()
            && floor.door.is_none()
            && floor.surfaces.is_empty()
    );
}
