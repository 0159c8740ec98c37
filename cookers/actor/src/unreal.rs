//! `BP_<block>` as a cooked UE 5.8 package, rewritten from a donor actor Blueprint: the
//! class and its default object are renamed from the pack and block ids, the donor's
//! StaticMeshComponent template points at `SM_<block>` where the actor document places
//! it, with visual collision off, and every other scene component sits at the actor's
//! origin. A donor with a PointLightComponent template carries the document's light; one
//! without cannot, and [`carries_light`] says so to the set's assembly.

use forge_package::properties::{vector_bytes, Tag, TagList, FLAG_BOOL_TRUE};
use forge_package::{ObjectIndex, Package, PackageError};

use crate::Actor;

const CLASS: &str = "/Script/Engine.BlueprintGeneratedClass";
const MESH_COMPONENT: &str = "/Script/Engine.StaticMeshComponent";
const SCENE_COMPONENT: &str = "/Script/Engine.SceneComponent";
pub const LIGHT_COMPONENT: &str = "/Script/Engine.PointLightComponent";
/// RF_ClassDefaultObject.
const CLASS_DEFAULT_OBJECT: u32 = 0x10;
/// A struct serialized as its native binary form (a Vector's three doubles).
const FLAG_BINARY: u8 = 0x08;

fn donor(code: &'static str, message: impl Into<String>) -> PackageError {
    PackageError::new(code, format!("donor actor Blueprint: {}", message.into()))
}

/// The package bytes of `actor` written over the donor Blueprint package `bytes`.
pub fn package(bytes: &[u8], actor: &Actor) -> Result<Vec<u8>, PackageError> {
    let mut package = Package::read(bytes)?;
    let none = package.none_slot()?;
    let class = package.export_of_class(CLASS).ok_or_else(|| {
        donor(
            "donor_not_blueprint",
            "the package has no BlueprintGeneratedClass export",
        )
    })?;
    let mesh = package.export_of_class(MESH_COMPONENT).ok_or_else(|| {
        donor(
            "donor_no_mesh_component",
            "the Blueprint has no StaticMeshComponent template",
        )
    })?;
    point_mesh_component(&mut package, mesh, none, actor)?;
    for i in exports_of_class(&package, SCENE_COMPONENT) {
        edit_properties(&mut package, i, none, |p, list| {
            let names =
                ["RelativeLocation", "RelativeRotation", "RelativeScale3D"].map(|n| p.intern(n));
            list.remove(&names);
        })?;
    }
    if let (Some(light), Some(i)) = (&actor.light, package.export_of_class(LIGHT_COMPONENT)) {
        let light = light.clone();
        edit_properties(&mut package, i, none, |p, list| set_light(p, list, &light))?;
    }
    rename(&mut package, class, actor)?;
    Ok(package.to_bytes())
}

/// Whether a package built by [`package`] carries the document's light.
pub fn carries_light(package: &Package) -> bool {
    package.export_of_class(LIGHT_COMPONENT).is_some()
}

fn exports_of_class(package: &Package, class_path: &str) -> Vec<usize> {
    let class = forge_package::object_index::script_import(class_path);
    (0..package.header.exports.len())
        .filter(|&i| package.header.exports[i].class == class)
        .collect()
}

/// Reads export `index`'s tagged properties, lets `edit` change them, writes them back
/// in front of the export's unchanged native part.
fn edit_properties(
    package: &mut Package,
    index: usize,
    none: usize,
    edit: impl FnOnce(&mut Package, &mut TagList),
) -> Result<(), PackageError> {
    let bytes = package.exports[index].clone();
    let mut r = forge_bytes::Reader::new(&bytes);
    let mut properties = forge_package::properties::ObjectProperties::read(&mut r, none)?;
    let rest = bytes[r.position()..].to_vec();
    edit(package, &mut properties.list);
    let mut w = forge_bytes::Writer::default();
    properties.write(&mut w);
    w.raw(&rest);
    package.replace_export(index, w.bytes);
    Ok(())
}

fn point_mesh_component(
    package: &mut Package,
    index: usize,
    none: usize,
    actor: &Actor,
) -> Result<(), PackageError> {
    let static_mesh = package.intern("StaticMesh");
    let bytes = package.exports[index].clone();
    let mut r = forge_bytes::Reader::new(&bytes);
    let properties = forge_package::properties::ObjectProperties::read(&mut r, none)?;
    let reference = properties
        .list
        .find(static_mesh)
        .and_then(|t| t.value.get(..4))
        .map(|v| i32::from_le_bytes(v.try_into().expect("4 bytes")))
        .filter(|v| *v < 0)
        .ok_or_else(|| {
            donor(
                "donor_mesh_reference",
                "the StaticMeshComponent template does not name an imported mesh",
            )
        })?;
    let import = (-reference - 1) as usize;
    let short = actor
        .mesh
        .asset
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    package.retarget_import(import, &actor.mesh.asset, &short)?;
    let location = actor.mesh.relative_location_cm;
    let overlap = actor.mesh.generate_overlap_events;
    edit_properties(package, index, none, |p, list| {
        let names = ["RelativeRotation", "RelativeScale3D"].map(|n| p.intern(n));
        list.remove(&names);
        set(list, vector_tag(p, "RelativeLocation", location));
        set(list, no_collision(p));
        set(list, bool_tag(p, "bGenerateOverlapEvents", overlap));
    })
}

/// Replaces the tag of the same name, or adds it.
fn set(list: &mut TagList, tag: Tag) {
    match list.find_mut(tag.name) {
        Some(existing) => *existing = tag,
        None => list.tags.push(tag),
    }
}

fn type_of(
    package: &mut Package,
    nodes: &[(&str, i32)],
) -> Vec<(forge_package::names::MappedName, i32)> {
    nodes
        .iter()
        .map(|(n, inner)| (package.intern(n), *inner))
        .collect()
}

fn vector_tag(package: &mut Package, name: &str, v: [f64; 3]) -> Tag {
    let type_name = type_of(
        package,
        &[
            ("StructProperty", 1),
            ("Vector", 1),
            ("/Script/CoreUObject", 0),
        ],
    );
    let mut tag = Tag::new(package.intern(name), type_name, vector_bytes(v));
    tag.flags = FLAG_BINARY;
    tag
}

fn bool_tag(package: &mut Package, name: &str, value: bool) -> Tag {
    let type_name = type_of(package, &[("BoolProperty", 0)]);
    let mut tag = Tag::new(package.intern(name), type_name, Vec::new());
    tag.flags = if value { FLAG_BOOL_TRUE } else { 0 };
    tag
}

fn name_value(package: &mut Package, value: &str) -> Vec<u8> {
    let mut w = forge_bytes::Writer::default();
    package.intern(value).write(&mut w);
    w.bytes
}

fn float_tag(package: &mut Package, name: &str, value: f32) -> Tag {
    let type_name = type_of(package, &[("FloatProperty", 0)]);
    Tag::new(
        package.intern(name),
        type_name,
        value.to_le_bytes().to_vec(),
    )
}

/// A `TEnumAsByte` property: a ByteProperty of the enum, its value the enumerator's name.
fn byte_enum_tag(package: &mut Package, name: &str, enumeration: &str, value: &str) -> Tag {
    Tag::new(
        package.intern(name),
        type_of(
            package,
            &[("ByteProperty", 1), (enumeration, 1), ("/Script/Engine", 0)],
        ),
        name_value(package, &format!("{enumeration}::{value}")),
    )
}

/// BodyInstance { CollisionEnabled = NoCollision, CollisionProfileName = NoCollision }:
/// the Blam simulation owns collision, so the visual mesh takes part in none.
fn no_collision(package: &mut Package) -> Tag {
    let enabled = byte_enum_tag(
        package,
        "CollisionEnabled",
        "ECollisionEnabled",
        "NoCollision",
    );
    let profile = Tag::new(
        package.intern("CollisionProfileName"),
        type_of(package, &[("NameProperty", 0)]),
        name_value(package, "NoCollision"),
    );
    let none = package.intern("None");
    let body = TagList {
        tags: vec![enabled, profile],
        end: none,
    };
    let mut tag = Tag::new(
        package.intern("BodyInstance"),
        type_of(
            package,
            &[
                ("StructProperty", 1),
                ("BodyInstance", 1),
                ("/Script/Engine", 0),
            ],
        ),
        Vec::new(),
    );
    tag.set_nested(&body);
    tag
}

fn set_light(package: &mut Package, list: &mut TagList, light: &crate::PointLight) {
    set(
        list,
        vector_tag(package, "RelativeLocation", light.relative_location_cm),
    );
    set(
        list,
        float_tag(package, "Intensity", light.intensity as f32),
    );
    set(
        list,
        float_tag(
            package,
            "AttenuationRadius",
            light.attenuation_radius_cm as f32,
        ),
    );
    set(list, bool_tag(package, "CastShadows", light.cast_shadows));
    set(
        list,
        bool_tag(
            package,
            "bUseInverseSquaredFalloff",
            light.inverse_squared_falloff,
        ),
    );
    set(
        list,
        byte_enum_tag(package, "Mobility", "EComponentMobility", &light.mobility),
    );
    let units = Tag::new(
        package.intern("IntensityUnits"),
        type_of(
            package,
            &[
                ("EnumProperty", 2),
                ("ELightUnits", 1),
                ("/Script/Engine", 0),
                ("ByteProperty", 0),
            ],
        ),
        name_value(package, &format!("ELightUnits::{}", light.intensity_units)),
    );
    set(list, units);
    let [r, g, b] = light
        .light_color
        .map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
    let type_name = type_of(
        package,
        &[
            ("StructProperty", 1),
            ("Color", 1),
            ("/Script/CoreUObject", 0),
        ],
    );
    let mut color = Tag::new(package.intern("LightColor"), type_name, vec![b, g, r, 255]);
    color.flags = FLAG_BINARY;
    set(list, color);
}

/// The class becomes `BP_<block>_C` and its default object `Default__BP_<block>_C`.
fn rename(package: &mut Package, class: usize, actor: &Actor) -> Result<(), PackageError> {
    let old_class = package.export_path(class);
    let cdo = (0..package.header.exports.len()).find(|&i| {
        let x = &package.header.exports[i];
        x.class == ObjectIndex::Export(class as u32) && x.object_flags & CLASS_DEFAULT_OBJECT != 0
    });
    let (package_path, class_name) = actor.class_path.rsplit_once('.').ok_or_else(|| {
        donor(
            "actor_class_path",
            format!("{} has no class name", actor.class_path),
        )
    })?;
    let mut renames = vec![(old_class, class_name.to_string())];
    if let Some(cdo) = cdo {
        renames.push((package.export_path(cdo), format!("Default__{class_name}")));
    }
    package.rename(package_path, &renames)
}
