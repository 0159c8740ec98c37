//! Tags for stock-like pieces: references, tables in place, byte-for-byte round trips, and
//! the bundled definitions matching the shared reference.

use forge_collision::{hull, CollisionModel, Polyhedron};
use forge_tags::{block_tags, definitions, Child, Tag};

fn door_wall() -> (CollisionModel, Vec<Polyhedron>) {
    let boxes = [
        ([-2.0, -0.25, 0.0], [-1.0, 0.25, 4.0]),
        ([1.0, -0.25, 0.0], [2.0, 0.25, 4.0]),
        ([-1.0, -0.25, 3.0], [1.0, 0.25, 4.0]),
    ];
    let hulls: Vec<_> = boxes
        .iter()
        .enumerate()
        .map(|(i, (lo, hi))| {
            let pts: Vec<[f64; 3]> = (0..8)
                .map(|k| {
                    [
                        if k & 1 == 0 { lo[0] } else { hi[0] },
                        if k & 2 == 0 { lo[1] } else { hi[1] },
                        if k & 4 == 0 { lo[2] } else { hi[2] },
                    ]
                })
                .collect();
            hull::build(&format!("h{i}"), "concrete", &pts).unwrap()
        })
        .collect();
    let model = CollisionModel::build(&hulls).unwrap();
    (model, hulls.iter().map(Polyhedron::build).collect())
}

#[test]
fn four_tags_round_trip_and_carry_the_cooked_data() {
    let (model, polys) = door_wall();
    let tags = block_tags(
        "foundry",
        "wall_door",
        ([-0.66, -0.08, 0.0], [0.66, 0.08, 1.31]),
        &model,
        &polys,
    )
    .unwrap();
    let groups: Vec<&[u8; 4]> = tags.iter().map(|(g, _)| g).collect();
    assert_eq!(groups, [b"bloc", b"hlmt", b"phmo", b"coll"]);
    for (group, bytes) in &tags {
        let tag = Tag::from_bytes(bytes)
            .unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(group)));
        assert_eq!(&tag.group, group);
        assert_eq!(
            &tag.to_bytes().unwrap(),
            bytes,
            "{}: byte-for-byte round trip",
            String::from_utf8_lossy(group)
        );
        for cut in (0..bytes.len()).step_by(7) {
            assert!(Tag::from_bytes(&bytes[..cut]).is_err());
        }
    }
    let refs = |bytes: &[u8]| -> Vec<(String, String)> {
        let t = Tag::from_bytes(bytes).unwrap();
        let mut out = Vec::new();
        fn walk(i: &forge_tags::Instance, out: &mut Vec<(String, String)>) {
            for c in i.children.values() {
                match c {
                    Child::Ref(Some(r)) => out.push((
                        String::from_utf8_lossy(&r.group).into_owned(),
                        r.path.clone(),
                    )),
                    Child::Block { items, .. } => items.iter().for_each(|x| walk(x, out)),
                    _ => {}
                }
            }
        }
        walk(&t.root, &mut out);
        out
    };
    let path = "objects\\mjolnir\\forge\\foundry\\wall_door".to_string();
    assert_eq!(
        refs(&tags[0].1),
        [("hlmt".into(), path.clone())],
        "the crate refers to its model"
    );
    assert_eq!(
        refs(&tags[1].1),
        [("coll".into(), path.clone()), ("phmo".into(), path)],
        "the model refers to its collision and physics"
    );
    // The collision model holds the BSP tables verbatim: three regions, six planes each.
    let coll = Tag::from_bytes(&tags[3].1).unwrap();
    let Some(Child::Block { items: regions, .. }) = coll
        .root
        .children
        .values()
        .find(|c| matches!(c, Child::Block { items, .. } if items.len() == 3))
    else {
        panic!("three regions")
    };
    assert_eq!(regions.len(), 3);
    let phmo = Tag::from_bytes(&tags[2].1).unwrap();
    let bodies = forge_tags::physics::bodies(&phmo).unwrap();
    assert_eq!(bodies.len(), 1, "one rigid body");
    let body = &bodies[0];
    assert_eq!(body.motion_type, "fixed");
    assert_eq!(body.mass, 0.0);
    assert_ne!(body.flags & forge_tags::physics::CAN_USE_MOPPS, 0);
    assert_eq!(body.path, ["mopp 0", "list 0"]);
    assert_eq!(body.polyhedra, [0, 1, 2], "each hull reached once, apart");
    assert!(
        phmo.root
            .children
            .values()
            .any(|c| matches!(c, Child::Data(d) if !d.is_empty())),
        "the MOPP code is in the physics model"
    );
    assert!(
        phmo.root
            .children
            .values()
            .any(|c| matches!(c, Child::Block { items, .. } if items.len() == 3 * 6)),
        "18 plane equations"
    );
}

#[test]
fn bundled_definitions_match_the_shared_reference() {
    let shared = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/reference/tag-definitions-forge-groups.json");
    let Ok(text) = std::fs::read_to_string(&shared) else {
        println!("skipped: {} is absent", shared.display());
        return;
    };
    assert_eq!(text, include_str!("../definitions/forge-groups.json"));
    let tags: Vec<[u8; 4]> = definitions::groups().iter().map(|g| g.tag).collect();
    for t in [b"bloc", b"hlmt", b"phmo", b"coll"] {
        assert!(tags.contains(t));
    }
}

#[test]
fn hostile_tag_files_are_errors() {
    assert!(Tag::from_bytes(b"").is_err());
    let (model, polys) = door_wall();
    let tags = block_tags("foundry", "wall_door", ([0.0; 3], [1.0; 3]), &model, &polys).unwrap();
    let mut bad = tags[3].1.clone();
    let at = bad.len() / 2;
    bad[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let _ = Tag::from_bytes(&bad);
    let mut unknown = tags[0].1.clone();
    unknown[..4].copy_from_slice(b"zzzz");
    assert!(Tag::from_bytes(&unknown).is_err());
}
