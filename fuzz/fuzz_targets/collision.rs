#![no_main]
// The cooked collision readers, selected by the first byte: a collision model, a MOPP index
// or polyhedra. Whatever reads writes back to the same bytes, and every query over it
// answers without panicking or running away (the MOPP reader refuses code that is not a
// tree, so a query visits each byte at most once).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let rays = [
        ([0.0, 0.0, 10.0], [0.0, 0.0, -1.0]),
        ([-10.0, 0.3, 0.5], [1.0, 0.01, 0.0]),
        ([0.2, -5.0, 0.1], [0.1, 1.0, 0.2]),
    ];
    match which % 3 {
        0 => {
            if let Ok(model) = forge_collision::CollisionModel::from_bytes(bytes) {
                assert_eq!(model.to_bytes(), bytes, "a collision model writes back as read");
                for (origin, dir) in rays {
                    let _ = model.ray(origin, dir, 100.0);
                    let _ = model.contains(origin);
                }
            }
        }
        1 => {
            if let Ok(index) = forge_collision::MoppIndex::from_bytes(bytes) {
                assert_eq!(index.to_bytes(), bytes, "a MOPP index writes back as read");
                let _ = index.query_box_m([-100.0; 3], [100.0; 3]);
                let _ = index.query_box_m([0.0; 3], [0.5; 3]);
                for (origin, dir) in rays {
                    let o = forge_units::pack_to_blam(origin);
                    let _ = index.mopp.walk_ray(o, dir, 1e6, |_, limit| Ok(limit));
                    let _ = index.mopp.walk_ray(o, dir, 1e6, |_, limit| Ok(limit * 0.5));
                }
            }
        }
        _ => {
            if let Ok(polyhedra) = forge_collision::polyhedron::from_bytes(bytes) {
                assert_eq!(
                    forge_collision::polyhedron::to_bytes(&polyhedra),
                    bytes,
                    "polyhedra write back as read"
                );
            }
        }
    }
});
