//! Glass and portal instances written over the fixture material instance.

use forge_contract::manifest::{Surface, SurfaceProfile};
use forge_material::{package, package_path, ParameterNames};
use forge_package::material_instance::{parameters, Parameter};
use forge_package::Package;

fn donor() -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/donors/MI_Fixture.uasset");
    std::fs::read(path).unwrap()
}

fn names() -> ParameterNames {
    ParameterNames {
        tint: "PrimaryColor".into(),
        opacity: "FixtureRoughness".into(),
        emissive: "Emissive".into(),
    }
}

fn surface(profile: SurfaceProfile) -> Surface {
    Surface {
        slot: "glass".into(),
        profile,
        opacity: 0.35,
        tint_rgb: [0.7, 0.85, 0.9],
    }
}

#[test]
fn a_glass_instance_is_renamed_into_the_pack_and_carries_its_parameters() {
    let bytes = package(
        &donor(),
        "foundry-wide",
        "glass_panel",
        &surface(SurfaceProfile::Glass),
        &names(),
    )
    .unwrap();
    let read = Package::read(&bytes).unwrap();
    assert_eq!(read.to_bytes(), bytes, "reads back byte for byte");
    let path = package_path("foundry-wide", "glass_panel", "glass");
    assert_eq!(
        path,
        "/Game/MJOLNIR/Forge/foundry-wide/Materials/MI_glass_panel_glass"
    );
    assert_eq!(read.header.package_name().as_deref(), Some(path.as_str()));
    assert_eq!(read.export_path(0), "MI_glass_panel_glass");
    assert_eq!(
        parameters(&read).unwrap(),
        [
            ("FixtureRoughness".to_string(), Parameter::Scalar(0.35)),
            (
                "PrimaryColor".to_string(),
                Parameter::Vector([0.7, 0.85, 0.9, 1.0])
            ),
            (
                "Emissive".to_string(),
                Parameter::Vector([0.0, 0.0, 0.0, 1.0])
            ),
        ]
    );
    // The parent material and its texture stay the donor's shipped imports.
    assert_eq!(
        read.header.imported_packages,
        [
            "/Game/Fixtures/Textures/T_BC3",
            "/Game/Fixtures/Materials/M_Fixture"
        ]
    );
}

#[test]
fn a_portal_glows_in_its_tint_and_the_donor_is_unchanged_otherwise() {
    let donor = donor();
    let before = parameters(&Package::read(&donor).unwrap()).unwrap();
    assert_eq!(before.len(), 2, "{before:?}");
    let bytes = package(
        &donor,
        "p",
        "gate",
        &surface(SurfaceProfile::Portal),
        &names(),
    )
    .unwrap();
    let after = parameters(&Package::read(&bytes).unwrap()).unwrap();
    assert_eq!(
        after[2],
        (
            "Emissive".to_string(),
            Parameter::Vector([0.7, 0.85, 0.9, 1.0])
        )
    );
}

#[test]
fn a_donor_that_is_not_a_material_instance_is_refused_with_a_code() {
    let mesh = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/donors/SM_Fixture.uasset"),
    )
    .unwrap();
    let e = package(&mesh, "p", "b", &surface(SurfaceProfile::Glass), &names()).unwrap_err();
    assert_eq!(e.code, "donor_material");
}
