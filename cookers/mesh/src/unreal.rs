//! `SM_<block>` as a cooked UE 5.8 package, rewritten from a donor static mesh: the donor
//! keeps its material slots, body setup and everything else the engine needs that no one
//! here can author; the package and mesh are renamed into the pack's namespace, and the
//! render data and bounds become the cooked mesh's. A slot a surface styles points at the
//! pack's own material instance instead of the donor's material.

use forge_package::properties::{vector_bytes, TagList};
use forge_package::static_mesh::{Bounds, Geometry, MeshExport, SlotNames};
use forge_package::Package;

use crate::{MeshError, StaticMesh};

pub const STATIC_MESH_CLASS: &str = "/Script/Engine.StaticMesh";

fn donor_error(e: forge_package::PackageError) -> MeshError {
    MeshError {
        code: e.code,
        message: format!("donor static mesh: {}", e.message),
    }
}

/// A material slot of the mesh (a glTF material name) styled by a material instance of
/// the pack: the instance's package path.
pub struct SlotMaterial<'a> {
    pub slot: &'a str,
    pub package: &'a str,
}

/// The package bytes of `mesh` written over the donor package `donor`, with each of
/// `materials` pointing its slot at its material instance.
pub fn package(
    donor: &[u8],
    mesh: &StaticMesh,
    materials: &[SlotMaterial],
) -> Result<Vec<u8>, MeshError> {
    let (mut package, index, none, export) = donor_mesh(donor)?;
    let mut rewritten = export.with_geometry(&geometry(mesh)).map_err(donor_error)?;
    set_extended_bounds(&mut package, &mut rewritten, none)?;
    for material in materials {
        point_slot(&mut package, &mut rewritten, mesh, material, none)?;
    }
    place_nanite_bulk(&mut package, &rewritten);
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

/// The bulk data map entry of the Nanite block's (empty) streamable pages records where in
/// the mesh export its data sits; the rewritten LOD moves the block, so the entry moves
/// with it, as Unreal would have written it. Entries with a payload elsewhere (a `.ubulk`)
/// are not inline and stay.
fn place_nanite_bulk(package: &mut Package, rewritten: &MeshExport) {
    if let Some((index, offset)) = rewritten.nanite_bulk() {
        if let Some(entry) = package
            .header
            .bulk_data
            .get_mut(index)
            .filter(|e| e.serial_size == 0)
        {
            entry.serial_offset = offset;
        }
    }
}

/// The donor package, its StaticMesh export's index, its `None` name slot, and the export
/// taken apart.
fn donor_mesh(donor: &[u8]) -> Result<(Package, usize, usize, MeshExport), MeshError> {
    let package = Package::read(donor).map_err(donor_error)?;
    let index = package
        .export_of_class(STATIC_MESH_CLASS)
        .ok_or_else(|| MeshError {
            code: "donor_not_static_mesh",
            message: "the donor package has no StaticMesh export".into(),
        })?;
    let none = package.none_slot().map_err(donor_error)?;
    let export = MeshExport::read(&package.exports[index], none).map_err(donor_error)?;
    Ok((package, index, none, export))
}

/// The donor mesh's material slot names, in slot order: what the game's slots are called.
pub fn donor_slot_names(donor: &[u8]) -> Result<Vec<String>, MeshError> {
    let (package, _, _, export) = donor_mesh(donor)?;
    Ok(export
        .slot_names()
        .into_iter()
        .map(|name| {
            package
                .header
                .name_of(name)
                .unwrap_or_else(|| "?".to_string())
        })
        .collect())
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

/// Points the donor slot a mesh section uses at the material instance. Sections past the
/// donor's last slot share it, so a styled section must have a donor slot to itself.
fn point_slot(
    package: &mut Package,
    export: &mut MeshExport,
    mesh: &StaticMesh,
    material: &SlotMaterial,
    none: usize,
) -> Result<(), MeshError> {
    let section = mesh
        .sections
        .iter()
        .position(|s| s.material == material.slot)
        .ok_or_else(|| MeshError {
            code: "unknown_surface_slot",
            message: format!("the mesh has no material {:?}", material.slot),
        })?;
    let slots = export.material_count as usize;
    if section + 1 >= slots && mesh.sections.len() > slots {
        return Err(MeshError {
            code: "surface_slot_shared",
            message: format!(
                "material {:?} is section {} of {}, but the donor mesh has {slots} material slots, so it would share the last one with other materials; choose a donor mesh with at least {} slots",
                material.slot,
                section + 1,
                mesh.sections.len(),
                mesh.sections.len()
            ),
        });
    }
    let short = material.package.rsplit('/').next().unwrap_or_default();
    let import = package.add_package_import(material.package, short);
    let names = SlotNames {
        static_materials: package.intern("StaticMaterials"),
        material_interface: package.intern("MaterialInterface"),
        none,
    };
    let old = export
        .set_slot_material(section, import, &names)
        .map_err(donor_error)?;
    package.depend_like(old, import);
    Ok(())
}
