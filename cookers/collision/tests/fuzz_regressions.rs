//! Inputs the `collision` fuzz target found (fuzz/fuzz_targets/collision.rs). The first byte
//! picks the reader (0 model, 1 MOPP index, 2 polyhedra); whatever reads writes back to the
//! same bytes, and queries over it answer.

#[test]
fn fuzz_findings_round_trip() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("the findings folder") {
        let path = entry.expect("an entry").path();
        let data = std::fs::read(&path).expect("a finding");
        let Some((&which, bytes)) = data.split_first() else {
            continue;
        };
        let name = path.display();
        match which % 3 {
            0 => {
                if let Ok(model) = forge_collision::CollisionModel::from_bytes(bytes) {
                    assert_eq!(model.to_bytes(), bytes, "{name} writes back differently");
                    let _ = model.ray([0.0, 0.0, 10.0], [0.0, 0.0, -1.0], 100.0);
                }
            }
            1 => {
                if let Ok(index) = forge_collision::MoppIndex::from_bytes(bytes) {
                    assert_eq!(index.to_bytes(), bytes, "{name} writes back differently");
                    let _ = index.query_box_m([-100.0; 3], [100.0; 3]);
                }
            }
            _ => {
                if let Ok(polyhedra) = forge_collision::polyhedron::from_bytes(bytes) {
                    let back = forge_collision::polyhedron::to_bytes(&polyhedra);
                    assert_eq!(back, bytes, "{name} writes back differently");
                }
            }
        }
        seen += 1;
    }
    assert!(seen > 0, "no findings in {dir}");
}
