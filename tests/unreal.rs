//! The Unreal packages of a cook with donors, and a cook without them.

mod support;

use std::collections::BTreeMap;

use forge_iostore::{read_chunk, ChunkData, Toc};
use forge_package::static_mesh::MeshExport;
use forge_package::Package;
use support::{stderr, Workspace};

/// Every package in a set's container, by package name.
fn packages(ws: &Workspace, pack: &str) -> BTreeMap<String, Package> {
    let content = ws.path(&format!("build/game/{pack}/all/content/{pack}_P"));
    let toc = Toc::parse(&std::fs::read(content.with_extension("utoc")).unwrap()).unwrap();
    let ucas = std::fs::read(content.with_extension("ucas")).unwrap();
    (0..toc.chunks.len())
        .filter(|&i| toc.chunks[i].kind() == forge_iostore::ids::EXPORT_BUNDLE_DATA)
        .map(|i| {
            let ChunkData::Bytes(bytes) = read_chunk(&toc, &ucas, i).unwrap() else {
                panic!("chunk {i}")
            };
            let package = Package::read(&bytes).unwrap();
            (package.header.package_name().unwrap(), package)
        })
        .collect()
}

#[test]
fn a_cook_with_donors_ships_a_mesh_and_an_actor_package_per_block() {
    let ws = Workspace::with_packs(&["roadworks"]);
    ws.cook(&[]);
    let packages = packages(&ws, "roadworks");
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(ws.path("build/game/roadworks/all/mjolnir.json")).unwrap(),
    )
    .unwrap();
    let blocks: Vec<&str> = manifest["forge_pack"]["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(packages.len(), 2 * blocks.len());
    for block in blocks {
        let root = format!("/Game/MJOLNIR/Forge/roadworks/{block}/");
        let mesh = &packages[&format!("{root}SM_{block}")];
        let actor = &packages[&format!("{root}BP_{block}")];
        assert_eq!(
            actor.header.imported_packages,
            [format!("{root}SM_{block}")]
        );
        let index = mesh.export_named(&format!("SM_{block}")).unwrap();
        let export = MeshExport::read(&mesh.exports[index], mesh.none_slot().unwrap()).unwrap();
        let cooked = forge_mesh::StaticMesh::from_bytes(
            &std::fs::read(ws.path(&format!(
                "build/game/roadworks/all/cooked/{block}/static_mesh.fmsh"
            )))
            .unwrap(),
        )
        .unwrap();
        // Unreal units both: the package holds the cooked mesh's own f32 positions.
        assert_eq!(export.lods[0].positions, cooked.positions, "{block}");
        assert!(forge_package::namespace::violations(
            mesh,
            "/Game/MJOLNIR/Forge/roadworks/",
            Some(&mesh.header.imported_packages)
        )
        .is_empty());
    }
    let inventory: serde_json::Value = serde_json::from_slice(
        &std::fs::read(ws.path("build/game/roadworks/all/inventory.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(inventory["unreal"]["installable"], true, "{inventory}");
}

#[test]
fn a_cook_without_donors_checks_everything_but_pack_refuses_the_set() {
    let ws = Workspace::without_donors(&["roadworks"]);
    ws.cook(&[]);
    assert!(ws.path("build/game/roadworks/all/checks.json").is_file());
    let inventory: serde_json::Value = serde_json::from_slice(
        &std::fs::read(ws.path("build/game/roadworks/all/inventory.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(inventory["unreal"]["installable"], false, "{inventory}");
    assert!(
        packages(&ws, "roadworks").is_empty(),
        "no Unreal packages without donors"
    );
    let out = ws.mjolnir(&[
        "forge",
        "pack",
        "build/game/roadworks/all/mjolnir.json",
        "--content",
        "build/game/roadworks/all/content",
        "--out",
        "roadworks.mjolnir",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not_installable")
            || String::from_utf8_lossy(&out.stdout).contains("not_installable"),
        "{}",
        stderr(&out)
    );
    assert!(!ws.path("roadworks.mjolnir").exists());
}

/// A cook of `ws` with the test Paks and these donors.
fn cook_with(ws: &Workspace, mesh: &str, actor: &str) -> std::process::Output {
    let paks = support::donor_paks();
    ws.mjolnir(&[
        "forge",
        "cook",
        "--paks",
        paks.to_str().unwrap(),
        "--donor-mesh",
        mesh,
        "--donor-actor",
        actor,
    ])
}

#[test]
fn a_donor_that_is_not_in_the_paks_is_named() {
    let ws = Workspace::without_donors(&["roadworks"]);
    let out = cook_with(&ws, "/Game/Props/SM_Missing", support::DONOR_ACTOR);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("donor_not_found") && stderr(&out).contains("/Game/Props/SM_Missing"),
        "{}",
        stderr(&out)
    );
    let out = ws.mjolnir(&[
        "forge",
        "cook",
        "--paks",
        support::donor_paks().to_str().unwrap(),
    ]);
    assert!(
        stderr(&out).contains("incomplete_donors"),
        "{}",
        stderr(&out)
    );
    // The actor donor named as the mesh: found, but the wrong kind of package.
    let out = cook_with(&ws, support::DONOR_ACTOR, support::DONOR_ACTOR);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("donor_wrong_class"),
        "{}",
        stderr(&out)
    );
    assert!(!ws.path("build/game").exists(), "nothing is materialized");
}
