//! The static mesh package written over the SM_Fixture donor (tests/data/donors).

use forge_gltf::{ImportedMesh, Section};
use forge_package::static_mesh::MeshExport;
use forge_package::Package;

fn donor(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../tests/data/donors/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(path).expect("the donor test data")
}

fn ramp() -> ImportedMesh {
    ImportedMesh {
        positions: vec![
            [0.0, 0.0, 0.0],
            [2.0, 0.0, 0.0],
            [0.0, 2.0, 1.0],
            [2.0, 2.0, 1.0],
        ],
        normals: vec![[0.0, -0.447, 0.894]; 4],
        uvs: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        triangles: vec![[0, 1, 2], [2, 1, 3]],
        sections: vec![
            Section {
                material: "deck".into(),
                first_triangle: 0,
                triangle_count: 1,
            },
            Section {
                material: "edge".into(),
                first_triangle: 1,
                triangle_count: 1,
            },
        ],
    }
}

#[test]
fn the_package_holds_the_cooked_mesh_under_the_pack_namespace() {
    let mesh = forge_mesh::cook("demo", "ramp", &ramp()).unwrap();
    let bytes = forge_mesh::unreal::package(&donor("SM_Fixture.uasset"), &mesh, &[]).unwrap();
    let package = Package::read(&bytes).unwrap();
    assert_eq!(
        package.header.package_name().unwrap(),
        "/Game/MJOLNIR/Forge/demo/ramp/SM_ramp"
    );
    let index = package
        .export_named("SM_ramp")
        .expect("the mesh export, renamed");
    assert_eq!(
        package.header.exports[index].public_export_hash,
        forge_package::object_index::public_export_hash("sm_ramp")
    );
    let export = MeshExport::read(&package.exports[index], package.none_slot().unwrap()).unwrap();
    assert_eq!(export.lods.len(), 1);
    assert_eq!(export.lods[0].positions, mesh.positions);
    assert_eq!(export.lods[0].sections, vec![(0, 0, 1), (1, 1, 1)]);
    assert_eq!(
        export.material_count, 2,
        "the donor's material slots are kept"
    );
    assert!(package
        .header
        .names
        .iter()
        .all(|n| !n.contains("SM_Fixture")));
    // Bounds follow the mesh: 2 m x 2 m x 1 m re-centred, in centimetres.
    assert_eq!(export.bounds.extent, [100.0, 100.0, 50.0]);
}

#[test]
fn a_package_that_is_not_a_static_mesh_is_refused_with_a_code() {
    let mesh = forge_mesh::cook("demo", "ramp", &ramp()).unwrap();
    let err = forge_mesh::unreal::package(&donor("BP_Components.uasset"), &mesh, &[]).unwrap_err();
    assert_eq!(err.code, "donor_not_static_mesh");
    let err = forge_mesh::unreal::package(b"not a package", &mesh, &[]).unwrap_err();
    assert!(err.code.starts_with("package_"), "{}", err.code);
}

#[test]
fn a_damaged_donor_is_refused_or_rewritten_never_a_panic() {
    let mesh = forge_mesh::cook("demo", "ramp", &ramp()).unwrap();
    let good = donor("SM_Fixture.uasset");
    for at in 0..good.len() {
        let mut bad = good.clone();
        bad[at] ^= 0x41;
        if let Ok(bytes) = forge_mesh::unreal::package(&bad, &mesh, &[]) {
            Package::read(&bytes).expect("what the rewrite writes reads back");
        }
    }
}

#[test]
fn a_styled_slot_points_at_the_packs_material_instance_and_the_other_keeps_the_donors() {
    let mesh = forge_mesh::cook("demo", "ramp", &ramp()).unwrap();
    let mi = "/Game/MJOLNIR/Forge/demo/Materials/MI_ramp_edge";
    let slot = forge_mesh::unreal::SlotMaterial {
        slot: "edge",
        package: mi,
    };
    let bytes = forge_mesh::unreal::package(&donor("SM_Fixture.uasset"), &mesh, &[slot]).unwrap();
    let package = Package::read(&bytes).unwrap();
    assert_eq!(package.to_bytes(), bytes);
    assert_eq!(
        package.header.imported_packages,
        ["/Engine/EngineMaterials/WorldGridMaterial", mi]
    );
    let import = package.header.imports.len() as i32 - 1;
    let index = package.export_named("SM_ramp").unwrap();
    let export = MeshExport::read(&package.exports[index], package.none_slot().unwrap()).unwrap();
    let slot_material = |slot: usize| {
        i32::from_le_bytes(
            export.materials[8 + 40 * slot..12 + 40 * slot]
                .try_into()
                .unwrap(),
        )
    };
    assert_eq!(slot_material(0), -6, "deck keeps WorldGridMaterial");
    assert_eq!(slot_material(1), -import - 1, "edge wears the instance");
    assert!(
        package.header.dependency_entries.contains(&(-import - 1)),
        "the mesh is serialized after its new material, as after the old one"
    );
    assert_eq!(
        package.header.imported_public_export_hashes.last(),
        Some(&forge_package::object_index::public_export_hash(
            "mi_ramp_edge"
        ))
    );
}

#[test]
fn a_styled_slot_that_would_share_the_donors_last_slot_is_refused() {
    let mut three = ramp();
    three.sections.push(Section {
        material: "trim".into(),
        first_triangle: 1,
        triangle_count: 0,
    });
    three.sections[1].triangle_count = 1;
    let mesh = forge_mesh::cook("demo", "ramp", &three).unwrap();
    let slot = forge_mesh::unreal::SlotMaterial {
        slot: "edge",
        package: "/Game/MJOLNIR/Forge/demo/Materials/MI_ramp_edge",
    };
    let err = forge_mesh::unreal::package(&donor("SM_Fixture.uasset"), &mesh, &[slot]).unwrap_err();
    assert_eq!(err.code, "surface_slot_shared", "{err}");
}

#[test]
fn the_donors_slot_names_are_read_in_slot_order() {
    let names = forge_mesh::unreal::donor_slot_names(&donor("SM_Fixture.uasset")).unwrap();
    assert_eq!(names, ["Primary", "Secondary"]);
}
