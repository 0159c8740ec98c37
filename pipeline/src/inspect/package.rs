//! A zen package for `mjolnir forge inspect`: its name and flags, its name map, its
//! imports and its exports with their classes, outers and sizes.

use std::path::Path;

use anyhow::{anyhow, Result};
use forge_package::object_index::script_import;
use forge_package::{ObjectIndex, Package, ScriptObjects};
use serde_json::{json, Value};

/// The script classes and templates Forge packages and their donors use, named without
/// the global container.
const KNOWN: &[&str] = &[
    "/Script/CoreUObject",
    "/Script/Engine",
    "/Script/NavigationSystem",
    "/Script/CoreUObject.Object",
    "/Script/Engine.Actor",
    "/Script/Engine.BlueprintGeneratedClass",
    "/Script/Engine.BodySetup",
    "/Script/Engine.PointLightComponent",
    "/Script/Engine.SCS_Node",
    "/Script/Engine.SceneComponent",
    "/Script/Engine.SimpleConstructionScript",
    "/Script/Engine.StaticMesh",
    "/Script/Engine.StaticMeshComponent",
    "/Script/Engine.StaticMeshSocket",
    "/Script/NavigationSystem.NavCollision",
];

/// Names script imports: through the global container's script objects when given,
/// else through [`KNOWN`] and their `Default__` objects.
pub struct Names {
    global: Option<ScriptObjects>,
}

impl Names {
    pub fn load(global: Option<&Path>) -> Result<Names> {
        let Some(utoc) = global else {
            return Ok(Names { global: None });
        };
        let toc = forge_iostore::Toc::parse(&std::fs::read(utoc)?)
            .map_err(|e| anyhow!("{}: {e}", utoc.display()))?;
        let ucas = std::fs::read(utoc.with_extension("ucas"))?;
        let entry = toc
            .chunks
            .iter()
            .position(|c| c.kind() == SCRIPT_OBJECTS)
            .ok_or_else(|| anyhow!("{} holds no script objects", utoc.display()))?;
        let forge_iostore::ChunkData::Bytes(bytes) = forge_iostore::read_chunk(&toc, &ucas, entry)?
        else {
            return Err(anyhow!(
                "{}: the script objects are compressed with a method this reader lacks",
                utoc.display()
            ));
        };
        Ok(Names {
            global: Some(ScriptObjects::read(&bytes)?),
        })
    }

    fn script(&self, index: ObjectIndex) -> Option<String> {
        if let Some(objects) = &self.global {
            return objects.path_of(index);
        }
        KNOWN.iter().find_map(|path| {
            let template = path
                .split_once('.')
                .map(|(package, class)| format!("{package}.Default__{class}"));
            std::iter::once(path.to_string())
                .chain(template)
                .find(|p| script_import(p) == index)
        })
    }
}

/// ScriptObjects: the global container's chunk type 5.
const SCRIPT_OBJECTS: u8 = 5;

/// What an object index names, in words.
fn describe(package: &Package, names: &Names, index: ObjectIndex) -> String {
    match index {
        ObjectIndex::Null => "none".into(),
        ObjectIndex::Export(i) if (i as usize) < package.header.exports.len() => {
            package.export_path(i as usize)
        }
        ObjectIndex::Export(i) => format!("export {i} (out of range)"),
        ObjectIndex::ScriptImport(hash) => names
            .script(index)
            .unwrap_or_else(|| format!("script object {hash:#x}")),
        ObjectIndex::PackageImport {
            package: p,
            export_hash: h,
        } => {
            let name = package
                .header
                .imported_packages
                .get(p as usize)
                .map_or("?", String::as_str);
            let hash = package
                .header
                .imported_public_export_hashes
                .get(h as usize)
                .copied()
                .unwrap_or_default();
            format!("{name} (export {hash:#018x})")
        }
    }
}

pub fn summary(package: &Package, names: &Names) -> (Value, String) {
    let h = &package.header;
    let class_of = |i: usize| describe(package, names, h.exports[i].class);
    let imports: Vec<String> = h
        .imports
        .iter()
        .map(|i| describe(package, names, *i))
        .collect();
    let exports: Vec<Value> = (0..h.exports.len())
        .map(|i| {
            let x = &h.exports[i];
            json!({"name": package.export_path(i), "class": class_of(i), "outer": describe(package, names, x.outer),
                   "template": describe(package, names, x.template), "serial_size": x.cooked_serial_size,
                   "public_export_hash": format!("{:#018x}", x.public_export_hash), "object_flags": x.object_flags})
        })
        .collect();
    let name = h.package_name().unwrap_or_default();
    let mut text = format!(
        "zen package {name}: {} names, {} imports, {} exports, {} imported packages, flags {:#x}, {}\n",
        h.names.len(),
        h.imports.len(),
        h.exports.len(),
        h.imported_packages.len(),
        h.package_flags,
        if h.versioning.is_some() { "versioned" } else { "unversioned" }
    );
    for p in &h.imported_packages {
        text += &format!("  imports package {p}\n");
    }
    for (i, import) in imports.iter().enumerate() {
        text += &format!("  import {i:3}  {import}\n");
    }
    for (i, x) in exports.iter().enumerate() {
        text += &format!(
            "  export {i:3}  {}  class {}  outer {}  {} B\n",
            x["name"].as_str().unwrap_or_default(),
            x["class"].as_str().unwrap_or_default(),
            x["outer"].as_str().unwrap_or_default(),
            x["serial_size"]
        );
    }
    let mut value = json!({"format": "zen-package", "name": name, "package_flags": h.package_flags,
        "versioned": h.versioning.is_some(), "names": h.names, "imported_packages": h.imported_packages,
        "imports": imports, "exports": exports});
    if let Some(parameters) = material_parameters(package, &mut text) {
        value["material_parameters"] = parameters;
    }
    (value, text)
}

/// A material instance's parameter overrides, listed: what a glass or portal surface set.
fn material_parameters(package: &Package, text: &mut String) -> Option<Value> {
    use forge_package::material_instance::{self, Parameter};
    package.export_of_class(material_instance::MATERIAL_INSTANCE_CLASS)?;
    let parameters = match material_instance::parameters(package) {
        Ok(p) => p,
        Err(e) => {
            *text += &format!("  parameters do not read: {e}\n");
            return Some(json!({"error": e.to_string()}));
        }
    };
    // An f32 as the shortest decimal that reads back to it (0.8, not 0.800000011920929).
    let shortest = |v: f32| v.to_string().parse::<f64>().unwrap_or(f64::NAN);
    let mut out = serde_json::Map::new();
    for (name, value) in parameters {
        let value = match value {
            Parameter::Scalar(v) => json!(shortest(v)),
            Parameter::Vector(v) => json!(v.map(shortest)),
        };
        *text += &format!("  parameter {name} = {value}\n");
        out.insert(name, value);
    }
    Some(Value::Object(out))
}
