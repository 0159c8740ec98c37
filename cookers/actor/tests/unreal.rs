//! The actor package written over the BP_Components donor (tests/data/donors).

use forge_contract::parse_manifest;
use forge_package::properties::ObjectProperties;
use forge_package::{ObjectIndex, Package};

fn donor() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/donors/BP_Components.uasset"
    ))
    .unwrap()
}

fn lamp() -> forge_actor::Actor {
    let text = r#"{"schema_version": 1, "name": "Demo", "version": "0.1.0", "type": "content",
      "forge_pack": {"schema_version": 1, "id": "demo", "blocks": [{"id": "lamp", "name": "Lamp",
      "tag": "objects\\mjolnir\\forge\\demo\\lamp", "category": "lights", "dimensions_m": [1, 1, 3],
      "light": {"offset_m": [1, 2, 0], "color_rgb": [1, 1, 1], "intensity_cd": 70, "radius_m": 8}}]}}"#;
    let (manifest, _) = parse_manifest("mjolnir.json", text).unwrap();
    let entry = &manifest.catalog().unwrap().blocks[0];
    forge_actor::cook(
        "demo",
        entry,
        forge_contract::Origin::BottomCentre,
        [0.0, 0.0, 150.0],
    )
}

fn properties(package: &Package, name: &str) -> ObjectProperties {
    let i = package
        .export_named(name)
        .unwrap_or_else(|| panic!("no export {name}"));
    let mut r = forge_bytes::Reader::new(&package.exports[i]);
    ObjectProperties::read(&mut r, package.none_slot().unwrap()).unwrap()
}

fn tag_names(package: &Package, name: &str) -> Vec<String> {
    properties(package, name)
        .list
        .tags
        .iter()
        .map(|t| package.header.name_of(t.name).unwrap())
        .collect()
}

#[test]
fn the_blueprint_is_renamed_and_its_mesh_component_points_at_our_mesh() {
    let actor = lamp();
    let package = Package::read(&forge_actor::unreal::package(&donor(), &actor).unwrap()).unwrap();
    assert_eq!(
        package.header.package_name().unwrap(),
        "/Game/MJOLNIR/Forge/demo/lamp/BP_lamp"
    );
    let class = package
        .export_named("BP_lamp_C")
        .expect("the class, renamed");
    let cdo = package
        .export_named("Default__BP_lamp_C")
        .expect("its default object, renamed");
    let hash = forge_package::object_index::public_export_hash;
    assert_eq!(
        package.header.exports[class].public_export_hash,
        hash("bp_lamp_c")
    );
    assert_eq!(
        package.header.exports[cdo].public_export_hash,
        hash("default__bp_lamp_c")
    );
    assert_eq!(
        package.header.imported_packages,
        vec!["/Game/MJOLNIR/Forge/demo/lamp/SM_lamp".to_string()]
    );
    assert_eq!(
        package.header.imported_public_export_hashes,
        vec![hash("sm_lamp")]
    );
    assert!(
        package
            .header
            .names
            .iter()
            .all(|n| !n.contains("Fixture") || n.starts_with("Fixture")),
        "{:?}",
        package.header.names
    );

    let mesh = tag_names(&package, "FixtureMesh_GEN_VARIABLE");
    assert!(
        mesh.contains(&"StaticMesh".to_string()) && mesh.contains(&"BodyInstance".to_string()),
        "{mesh:?}"
    );
    assert!(
        !mesh.contains(&"RelativeRotation".to_string())
            && !mesh.contains(&"RelativeScale3D".to_string())
    );
    let list = properties(&package, "FixtureMesh_GEN_VARIABLE").list;
    let location = list
        .tags
        .iter()
        .find(|t| package.header.name_of(t.name).unwrap() == "RelativeLocation")
        .unwrap();
    assert_eq!(
        location.value,
        forge_package::properties::vector_bytes(actor.mesh.relative_location_cm)
    );
    let root = tag_names(&package, "FixtureRoot_GEN_VARIABLE");
    assert!(!root.iter().any(|n| n.starts_with("Relative")), "{root:?}");
    // The donor has no point light, so the package cannot carry the lamp's light.
    assert!(!forge_actor::unreal::carries_light(&package));
    assert!(package
        .header
        .exports
        .iter()
        .all(|x| x.outer == ObjectIndex::Null || matches!(x.outer, ObjectIndex::Export(_))));
}

#[test]
fn a_donor_without_a_mesh_component_is_refused_with_a_code() {
    let mesh = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/donors/SM_Fixture.uasset"
    ))
    .unwrap();
    let err = forge_actor::unreal::package(&mesh, &lamp()).unwrap_err();
    assert_eq!(err.code, "donor_not_blueprint");
}

#[test]
fn a_damaged_donor_is_refused_or_rewritten_never_a_panic() {
    let actor = lamp();
    let good = donor();
    for at in 0..good.len() {
        let mut bad = good.clone();
        bad[at] ^= 0x41;
        if let Ok(bytes) = forge_actor::unreal::package(&bad, &actor) {
            Package::read(&bytes).expect("what the rewrite writes reads back");
        }
    }
}

/// BP_Components with its FixtureRoot scene component turned into a PointLightComponent,
/// standing in for a game donor with a light (no fixture has one).
fn donor_with_light() -> Vec<u8> {
    let mut package = Package::read(&donor()).unwrap();
    let light = forge_package::object_index::script_import(forge_actor::unreal::LIGHT_COMPONENT);
    package.header.imports.push(light);
    let root = package.export_named("FixtureRoot_GEN_VARIABLE").unwrap();
    package.header.exports[root].class = light;
    package.to_bytes()
}

#[test]
fn a_donor_with_a_point_light_carries_the_documents_light() {
    let actor = lamp();
    let package =
        Package::read(&forge_actor::unreal::package(&donor_with_light(), &actor).unwrap()).unwrap();
    assert!(forge_actor::unreal::carries_light(&package));
    let light = actor.light.as_ref().unwrap();
    let list = properties(&package, "FixtureRoot_GEN_VARIABLE").list;
    let value = |name: &str| {
        list.tags
            .iter()
            .find(|t| package.header.name_of(t.name).unwrap() == name)
            .unwrap_or_else(|| panic!("no {name} on the light"))
    };
    assert_eq!(
        value("Intensity").value,
        (light.intensity as f32).to_le_bytes()
    );
    assert_eq!(
        value("AttenuationRadius").value,
        (light.attenuation_radius_cm as f32).to_le_bytes()
    );
    assert_eq!(
        value("RelativeLocation").value,
        forge_package::properties::vector_bytes(light.relative_location_cm)
    );
    assert_eq!(value("LightColor").value, [255, 255, 255, 255]);
    assert_eq!(
        value("CastShadows").flags & forge_package::properties::FLAG_BOOL_TRUE,
        0
    );
    let units = &value("IntensityUnits").value;
    assert_eq!(
        package
            .header
            .name_of(
                forge_package::names::MappedName::read(&mut forge_bytes::Reader::new(units))
                    .unwrap()
            )
            .unwrap(),
        "ELightUnits::Candelas"
    );
}
