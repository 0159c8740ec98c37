//! The Unreal packages of a cook with donors, and a cook without them.

use crate::support;

use std::collections::BTreeMap;

use forge_iostore::{read_chunk, ChunkData, Toc};
use forge_package::static_mesh::MeshExport;
use forge_package::Package;
use support::{copy_dir, repo, stderr, tree, Workspace};

/// Every package in a set's container, by package name.
fn packages(ws: &Workspace, pack: &str) -> BTreeMap<String, Package> {
    package_bytes(ws, pack)
        .into_iter()
        .map(|(name, bytes)| (name, Package::read(&bytes).unwrap()))
        .collect()
}

/// Each package chunk of a cooked set's container, as written, by package name.
fn package_bytes(ws: &Workspace, pack: &str) -> BTreeMap<String, Vec<u8>> {
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
            (package.header.package_name().unwrap(), bytes)
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

/// The container header's store entries: each package id with the ids it imports.
fn store_entries(ws: &Workspace, pack: &str) -> forge_package::ContainerHeader {
    let content = ws.path(&format!("build/game/{pack}/all/content/{pack}_P"));
    let toc = Toc::parse(&std::fs::read(content.with_extension("utoc")).unwrap()).unwrap();
    let ucas = std::fs::read(content.with_extension("ucas")).unwrap();
    let at = (0..toc.chunks.len())
        .find(|&i| toc.chunks[i].kind() == forge_iostore::ids::CONTAINER_HEADER)
        .unwrap();
    let ChunkData::Bytes(bytes) = read_chunk(&toc, &ucas, at).unwrap() else {
        panic!("the container header")
    };
    forge_package::ContainerHeader::read(&bytes).unwrap()
}

#[test]
fn glass_and_portal_pieces_ship_their_material_instances_and_wear_them() {
    let ws = Workspace::with_packs(&["foundry-wide"]);
    ws.cook(&[]);
    let packages = packages(&ws, "foundry-wide");
    let root = "/Game/MJOLNIR/Forge/foundry-wide/";
    let header = store_entries(&ws, "foundry-wide");
    for (block, slot, glows) in [
        ("glass_panel", "glass", false),
        ("portal_frame", "portal", true),
    ] {
        let mi_path = format!("{root}Materials/MI_{block}_{slot}");
        let mi = packages
            .get(&mi_path)
            .unwrap_or_else(|| panic!("{mi_path} in {:?}", packages.keys()));
        let values = forge_package::material_instance::parameters(mi).unwrap();
        let emissive = values.iter().find(|(n, _)| n == "Emissive").unwrap().1;
        assert_eq!(
            emissive != forge_package::material_instance::Parameter::Vector([0.0, 0.0, 0.0, 1.0]),
            glows,
            "{block}: {values:?}"
        );
        let mesh = &packages[&format!("{root}{block}/SM_{block}")];
        assert!(mesh.header.imported_packages.contains(&mi_path), "{block}");
        let mesh_id = forge_iostore::ids::name_hash(&format!("{root}{block}/SM_{block}"));
        let (_, entry) = header
            .packages
            .iter()
            .find(|(id, _)| *id == mesh_id)
            .unwrap();
        assert!(
            entry
                .imported_packages
                .contains(&forge_iostore::ids::name_hash(&mi_path)),
            "{block}: the container header lists the mesh's import of its material"
        );
        let mi_id = forge_iostore::ids::name_hash(&mi_path);
        assert!(header.packages.iter().any(|(id, _)| *id == mi_id));
    }
    let inventory: serde_json::Value = serde_json::from_slice(
        &std::fs::read(ws.path("build/game/foundry-wide/all/inventory.json")).unwrap(),
    )
    .unwrap();
    let visuals = &inventory["visuals"]["glass_panel"];
    assert_eq!(
        visuals["materials"],
        serde_json::json!([format!("{root}Materials/MI_glass_panel_glass")]),
        "{visuals}"
    );
    assert!(
        visuals["imports"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("/Game/Fixtures/Materials/M_Fixture")),
        "the instance's parent is pulled in: {visuals}"
    );
    let out = ws.mjolnir(&[
        "forge",
        "inspect",
        "build/game/foundry-wide/all/cooked/glass_panel/glass_panel.crate",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    for needed in [
        format!("package {root}glass_panel/SM_glass_panel"),
        format!("package {root}glass_panel/BP_glass_panel"),
        format!("package {root}Materials/MI_glass_panel_glass"),
        "imports /Game/Fixtures/Materials/M_Fixture".to_string(),
    ] {
        assert!(text.contains(&needed), "{needed} in:\n{text}");
    }
    let out = ws.mjolnir(&[
        "forge",
        "inspect",
        "build/game/foundry-wide/all/cooked/portal_frame/MI_portal_frame_portal.uasset",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("parameter Emissive = [0.2,0.6,1.0,1.0]"),
        "the set folder holds the instance beside the block's other packages:\n{text}"
    );
    let donor = support::repo().join("tests/data/donors/MI_Fixture.uasset");
    let out = ws.mjolnir(&["forge", "inspect", donor.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("parameter PrimaryColor = [0.25,0.75,0.5,0.875]"),
        "{text}"
    );
}

#[test]
fn a_surface_without_a_donor_material_fails_with_a_code() {
    let ws = Workspace::with_packs(&["foundry-wide"]);
    ws.edit("pipeline.toml", |t| {
        t.replace("portal_material", "# portal_material")
    });
    let out = ws.mjolnir(&["forge", "cook"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("donor_material_missing") && err.contains("portal_frame"),
        "{err}"
    );
    // A static mesh named as the glass donor: found, but not a material instance.
    ws.edit("pipeline.toml", |t| {
        t.replace("# portal_material", "portal_material").replacen(
            "glass_material = \"/Game/Fixtures/Materials/MI_Fixture\"",
            &format!("glass_material = \"{}\"", support::DONOR_MESH),
            1,
        )
    });
    let out = ws.mjolnir(&["forge", "cook"]);
    let err = stderr(&out);
    assert!(
        err.contains("donor_wrong_class") && err.contains("MaterialInstanceConstant"),
        "{err}"
    );
}

#[test]
fn donors_from_an_oodle_container_give_the_same_packages_as_uncompressed_ones() {
    let cook_with = |paks: &str| {
        let ws = Workspace::with_packs(&["foundry"]);
        let toml = std::fs::read_to_string(ws.path("pipeline.toml")).unwrap();
        let oodle = support::repo().join(paks);
        let toml = toml.replace(
            &format!("paks = {:?}", support::donor_paks().display().to_string()),
            &format!("paks = {:?}", oodle.display().to_string()),
        );
        assert!(toml.contains(&oodle.display().to_string()), "{toml}");
        std::fs::write(ws.path("pipeline.toml"), toml).unwrap();
        let out = ws.mjolnir(&["forge", "cook"]);
        assert_eq!(out.status.code(), Some(0), "{paks}: {}", stderr(&out));
        let donor = ws.path("build/donors/static_mesh.uasset");
        assert!(
            donor.is_file(),
            "{paks}: the donor was read out of the Paks"
        );
        let set = support::tree(&ws.path("build/game/foundry/all"));
        let inventory: serde_json::Value = serde_json::from_slice(&set["inventory.json"]).unwrap();
        assert_eq!(inventory["unreal"]["installable"], true, "{paks}");
        set
    };
    // The Oodle build of the UE 5.8 fixtures holds the same donors, Kraken-compressed.
    let oodle = cook_with("tests/data/oodle");
    let plain = cook_with("tests/data/donor-paks");
    assert_eq!(
        oodle.keys().collect::<Vec<_>>(),
        plain.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &oodle {
        assert!(bytes == &plain[name], "{name} differs");
    }
}

#[test]
fn every_package_the_cook_writes_is_laid_out_as_unreal_lays_out_its_own() {
    let ws = Workspace::with_packs(&["foundry", "foundry-wide"]);
    ws.cook(&[]);
    let mut count = 0;
    for pack in ["foundry", "foundry-wide"] {
        for (name, bytes) in package_bytes(&ws, pack) {
            // As in all 194 packages of the UE 5.8 fixture builds: the bulk data map and
            // every table after it start 8-byte aligned, whatever the donor's padding was.
            let offsets = forge_package::header::table_offsets(&bytes).unwrap();
            assert!(offsets.iter().all(|o| o % 8 == 0), "{name}: {offsets:?}");
            let package = Package::read(&bytes).unwrap();
            assert!(package.to_bytes() == bytes, "{name}");
            // A rewritten mesh's Nanite bulk entry follows the block to where it now is.
            if let Some(index) = package.export_of_class(forge_mesh::unreal::STATIC_MESH_CLASS) {
                let none = package.none_slot().unwrap();
                let mesh = MeshExport::read(&package.exports[index], none).unwrap();
                let (entry, offset) = mesh.nanite_bulk().unwrap();
                assert_eq!(
                    package.header.bulk_data[entry].serial_offset, offset,
                    "{name}"
                );
            }
            count += 1;
        }
    }
    assert!(count > 80, "{count} packages");
    let inventory =
        std::fs::read_to_string(ws.path("build/game/foundry/all/inventory.json")).unwrap();
    assert!(
        !inventory.contains("chunks/"),
        "the packed container chunks are not shipped files"
    );
}

/// Nudges the first texture coordinate of a `.gltf` model's first primitive by `amount`,
/// in its external buffer: the mesh changes, and its packed chunks (here) keep their sizes.
#[cfg(unix)]
fn nudge_uv(ws: &Workspace, pack: &str, block: &str, amount: f32) {
    let models = ws.path(&format!("packs/{pack}/source/models"));
    let gltf: serde_json::Value =
        serde_json::from_slice(&std::fs::read(models.join(format!("{block}.gltf"))).unwrap())
            .unwrap();
    let attributes = &gltf["meshes"][0]["primitives"][0]["attributes"];
    let accessor = &gltf["accessors"][attributes["TEXCOORD_0"].as_u64().unwrap() as usize];
    let view = &gltf["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let at = (view["byteOffset"].as_u64().unwrap_or(0)
        + accessor["byteOffset"].as_u64().unwrap_or(0)) as usize;
    let bin = models.join(format!("{block}.bin"));
    let mut bytes = std::fs::read(&bin).unwrap();
    let uv = f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) + amount;
    bytes[at..at + 4].copy_from_slice(&uv.to_le_bytes());
    std::fs::write(&bin, bytes).unwrap();
}

#[cfg(unix)]
#[test]
fn a_block_edited_into_chunks_of_the_same_sizes_gets_a_container_that_reads() {
    let ws = Workspace::with_packs(&["foundry"]);
    ws.cook(&[]);
    let content = ws.path("build/game/foundry/all/content");
    let ucas_size = || {
        std::fs::metadata(content.join("foundry_P.ucas"))
            .unwrap()
            .len()
    };
    let before = ucas_size();
    nudge_uv(&ws, "foundry", "floor_2x2", 0.001);
    ws.cook(&[]);
    assert!(ws.ran().contains(&"foundry/assemble/all".to_string()));
    // The case that matters: every piece of the `.ucas` where it was, one block's bytes new.
    assert_eq!(
        ucas_size(),
        before,
        "the edit was meant to keep the chunks' sizes"
    );
    let utoc = content.join("foundry_P.utoc");
    let inspected = ws.mjolnir(&["forge", "inspect", utoc.to_str().unwrap(), "--json"]);
    let inspected: serde_json::Value = serde_json::from_slice(&inspected.stdout).unwrap();
    assert_eq!(inspected["failures"], 0, "every chunk matches its TOC hash");
    // And it is the container a cook from nothing makes of the same sources.
    ws.cook(&["--out", "fresh"]);
    assert_eq!(
        tree(&content),
        tree(&ws.path("fresh/game/foundry/all/content"))
    );

    // The container it replaced is kept as the spare the next one is written into, outside
    // the set folder, with its ledger; written into, it makes the same container as a cook
    // from nothing. From the third write on, the ledger says what the spare holds, and only
    // the leaves where the new container differs are written.
    let spares = || {
        let names = tree(&ws.path("build/spare")).into_keys();
        names.filter(|n| !n.ends_with(".ledger")).count()
    };
    let ledgers = || tree(&ws.path("build/spare")).len() - spares();
    assert_eq!((spares(), ledgers()), (1, 1));
    let ledger = || {
        let names = tree(&ws.path("build/spare")).into_keys();
        ws.path("build/spare")
            .join(names.into_iter().find(|n| n.ends_with(".ledger")).unwrap())
    };
    for _ in 0..2 {
        nudge_uv(&ws, "foundry", "floor_2x2", 0.001);
        ws.cook(&[]);
        std::fs::remove_dir_all(ws.path("fresh")).unwrap();
        ws.cook(&["--out", "fresh"]);
        assert_eq!(
            tree(&content),
            tree(&ws.path("fresh/game/foundry/all/content"))
        );
    }
    assert_eq!((spares(), ledgers()), (1, 1));
    // The spare holds every leaf its ledger records.
    let ledger = ledger();
    let inspected = ws.mjolnir(&["forge", "inspect", ledger.to_str().unwrap(), "--json"]);
    let inspected: serde_json::Value = serde_json::from_slice(&inspected.stdout).unwrap();
    assert!(
        inspected["spare"]["leaves"].as_u64().unwrap() > 0,
        "{inspected}"
    );
    assert_eq!(inspected["spare"]["held"], inspected["spare"]["leaves"]);

    // A link in place of the spares' folder is never followed: what it points at is
    // neither written into nor pruned.
    let outside = ws.path("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), b"keep me").unwrap();
    std::fs::remove_dir_all(ws.path("build/spare")).unwrap();
    std::os::unix::fs::symlink(&outside, ws.path("build/spare")).unwrap();
    nudge_uv(&ws, "foundry", "floor_2x2", 0.001);
    ws.cook(&[]);
    assert_eq!(
        tree(&outside),
        BTreeMap::from([("keep.txt".to_string(), b"keep me".to_vec())])
    );
    let spare_folder = std::fs::symlink_metadata(ws.path("build/spare")).unwrap();
    assert!(spare_folder.is_dir() && !spare_folder.file_type().is_symlink());
    assert_eq!(spares(), 1);
    // A cook of some of the sets leaves the others' spares, so the next full edit still
    // writes into one rather than freeing a container.
    ws.cook(&["--only", "floor_2x2"]);
    ws.cook(&["--pack", "foundry"]);
    assert_eq!(spares(), 1);
    // A cook of every set the configuration lists, none of which holds that file, keeps
    // no spare for it: here the configuration builds another pack instead.
    copy_dir(
        &repo().join("forge-packs/roadworks"),
        &ws.path("packs/roadworks"),
    );
    ws.edit("pipeline.toml", |toml| toml.replace("foundry", "roadworks"));
    ws.cook(&[]);
    // Only the new container's ledger is left: what it was written from, for when it is
    // replaced.
    assert_eq!((spares(), ledgers()), (0, 1));
}
