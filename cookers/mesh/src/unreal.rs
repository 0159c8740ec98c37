//! `SM_<block>` as a cooked UE 5.8 package, rewritten from a donor static mesh: the donor
//! keeps its material slots, body setup and everything else the engine needs that no one
//! here can author; the package and mesh are renamed into the pack's namespace, and the
//! render data and bounds become the cooked mesh's.

use forge_package::properties::{vector_bytes, TagList};
use forge_package::static_mesh::{Bounds, Geometry, MeshExport};
use forge_package::Package;

use crate::{MeshError, StaticMesh};

pub const STATIC_MESH_CLASS: &str = "/Script/Engine.StaticMesh";

fn donor_error(e: forge_package::PackageError) -> MeshError {
    MeshError {
        code: e.code,
        message: format!("donor static mesh: {}", e.message),
    }
}

/// The package bytes of `mesh` written over the donor package `donor`.
pub fn package(donor: &[u8], mesh: &StaticMesh) -> Result<Vec<u8>, MeshError> {
    let mut package = Package::read(donor).map_err(donor_error)?;
    let index = package
        .export_of_class(STATIC_MESH_CLASS)
        .ok_or_else(|| MeshError {
            code: "donor_not_static_mesh",
            message: "the donor package has no StaticMesh export".into(),
        })?;
    let none = package.none_slot().map_err(donor_error)?;
    let export = MeshExport::read(&package.exports[index], none).map_err(donor_error)?;
    let mut rewritten = export.with_geometry(&geometry(mesh)).map_err(donor_error)?;
    set_extended_bounds(&mut package, &mut rewritten, none)?;
    package.replace_export(index, rewritten.to_bytes());
    let old_name = package.export_path(index);
    let short = mesh
        .asset_path
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    package
        .rename(&mesh.asset_path, &[(old_name, short)])
        .map_err(donor_error)?;
    Ok(package.to_bytes())
}

fn geometry(mesh: &StaticMesh) -> Geometry {
    Geometry {
        positions: mesh.positions.clone(),
        normals: mesh.normals.clone(),
        uvs: mesh.uvs.clone(),
        triangles: mesh.triangles.clone(),
        sections: mesh
            .sections
            .iter()
            .enumerate()
            .map(|(slot, s)| (slot as u32, s.first_triangle, s.triangle_count))
            .collect(),
    }
}

/// ExtendedBounds (the bounds culling uses) follows the new render bounds.
fn set_extended_bounds(
    package: &mut Package,
    export: &mut MeshExport,
    none: usize,
) -> Result<(), MeshError> {
    let names =
        ["ExtendedBounds", "Origin", "BoxExtent", "SphereRadius"].map(|n| package.intern(n));
    let Some(tag) = export.properties.list.find_mut(names[0]) else {
        return Ok(());
    };
    let mut list: TagList = tag.nested(none).map_err(donor_error)?;
    let Bounds {
        origin,
        extent,
        radius,
    } = export.bounds.clone();
    for (name, value) in [
        (names[1], vector_bytes(origin)),
        (names[2], vector_bytes(extent)),
        (names[3], radius.to_le_bytes().to_vec()),
    ] {
        if let Some(field) = list.find_mut(name) {
            field.value = value;
        }
    }
    tag.set_nested(&list);
    Ok(())
}
