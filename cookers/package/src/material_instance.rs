//! A cooked UMaterialInstanceConstant's parameter overrides (layout in
//! `docs/formats/zen-package.md`): the tagged properties `ScalarParameterValues` and
//! `VectorParameterValues`, arrays of structs whose elements are tag lists of
//! `ParameterInfo` (a struct holding `Name`), `ParameterValue` (a float, or a binary
//! `LinearColor` of four floats) and `ExpressionGUID`. The native part after the
//! properties (the cooked shader maps) is kept as it is.

use forge_bytes::{Reader, Writer};

use crate::error::{PackageError, Result};
use crate::names::MappedName;
use crate::package::Package;
use crate::properties::{ObjectProperties, TagList};

pub const MATERIAL_INSTANCE_CLASS: &str = "/Script/Engine.MaterialInstanceConstant";

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Parameter {
    Scalar(f32),
    Vector([f32; 4]),
}

impl Parameter {
    fn array(&self) -> &'static str {
        match self {
            Parameter::Scalar(_) => "ScalarParameterValues",
            Parameter::Vector(_) => "VectorParameterValues",
        }
    }

    fn bytes(&self) -> Vec<u8> {
        match self {
            Parameter::Scalar(v) => v.to_le_bytes().to_vec(),
            Parameter::Vector(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }
}

fn bad(why: impl Into<String>) -> PackageError {
    PackageError::new("donor_material", why)
}

/// The package's material instance export, its properties, and the bytes after them.
fn split(package: &Package, none: usize) -> Result<(usize, ObjectProperties, Vec<u8>)> {
    let index = package
        .export_of_class(MATERIAL_INSTANCE_CLASS)
        .ok_or_else(|| bad("the package has no MaterialInstanceConstant export"))?;
    let bytes = &package.exports[index];
    let mut r = Reader::new(bytes);
    let properties = ObjectProperties::read(&mut r, none)?;
    let rest = bytes[r.position()..].to_vec();
    Ok((index, properties, rest))
}

/// Sets each named parameter override. A parameter the donor does not override yet is
/// added, modelled on the donor's first override of its kind (so the donor must override
/// at least one scalar or vector parameter for each kind set here).
pub fn set_parameters(package: &mut Package, values: &[(&str, Parameter)]) -> Result<()> {
    let none = package.none_slot()?;
    let (index, mut properties, rest) = split(package, none)?;
    let names = Names {
        info: package.intern("ParameterInfo"),
        name: package.intern("Name"),
        value: package.intern("ParameterValue"),
        none,
    };
    let guid = package.intern("ExpressionGUID");
    for (name, value) in values {
        let array_name = package.intern(value.array());
        let wanted = package.intern(name);
        let tag = properties.list.find_mut(array_name).ok_or_else(|| {
            bad(format!(
                "the donor overrides no {} parameter, so there is none to model {name:?} on",
                value.array()
            ))
        })?;
        let mut elements = read_elements(&tag.value, none)?;
        let found = elements
            .iter()
            .position(|e| names.name_of(e).ok() == Some(wanted));
        let at = match found {
            Some(at) => at,
            None => {
                let mut element = elements
                    .first()
                    .cloned()
                    .ok_or_else(|| bad(format!("the donor's {} is empty", value.array())))?;
                names.rename(&mut element, wanted, guid)?;
                elements.push(element);
                elements.len() - 1
            }
        };
        let slot = elements[at]
            .find_mut(names.value)
            .ok_or_else(|| bad(format!("a {} element has no ParameterValue", value.array())))?;
        let bytes = value.bytes();
        if slot.value.len() != bytes.len() {
            return Err(bad(format!(
                "{name:?}'s ParameterValue is {} bytes, not the {} a {:?} takes",
                slot.value.len(),
                bytes.len(),
                value
            )));
        }
        slot.value = bytes;
        tag.value = write_elements(&elements);
    }
    let mut w = Writer::default();
    properties.write(&mut w);
    w.raw(&rest);
    package.replace_export(index, w.bytes);
    Ok(())
}

/// Each named override's value, in array order: scalars, then vectors.
pub fn parameters(package: &Package) -> Result<Vec<(String, Parameter)>> {
    let none = package.none_slot()?;
    let (_, properties, _) = split(package, none)?;
    let slot = |n: &str| package.header.names.iter().position(|x| x == n);
    let (Some(info), Some(name), Some(value)) =
        (slot("ParameterInfo"), slot("Name"), slot("ParameterValue"))
    else {
        return Ok(Vec::new());
    };
    let mapped = |index: usize| MappedName {
        index: index as u32,
        number: 0,
    };
    let names = Names {
        info: mapped(info),
        name: mapped(name),
        value: mapped(value),
        none,
    };
    let mut out = Vec::new();
    for array in ["ScalarParameterValues", "VectorParameterValues"] {
        let Some(tag) = slot(array).and_then(|i| properties.list.find(mapped(i))) else {
            continue;
        };
        for element in read_elements(&tag.value, none)? {
            let label = package
                .header
                .name_of(names.name_of(&element)?)
                .unwrap_or_default();
            let bytes = element.find(names.value).map_or(&[][..], |t| &t.value[..]);
            let floats: Vec<f32> = bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect();
            let parameter = match floats[..] {
                [v] => Parameter::Scalar(v),
                [r, g, b, a] => Parameter::Vector([r, g, b, a]),
                _ => return Err(bad(format!("{label:?} has a {}-byte value", bytes.len()))),
            };
            out.push((label, parameter));
        }
    }
    Ok(out)
}

struct Names {
    info: MappedName,
    name: MappedName,
    value: MappedName,
    none: usize,
}

impl Names {
    fn name_of(&self, element: &TagList) -> Result<MappedName> {
        let info = element
            .find(self.info)
            .ok_or_else(|| bad("a parameter has no ParameterInfo"))?;
        let list = info.nested(self.none)?;
        let name = list
            .find(self.name)
            .ok_or_else(|| bad("a ParameterInfo has no Name"))?;
        MappedName::read(&mut Reader::new(&name.value))
            .map_err(|e| PackageError::read("ParameterInfo", e))
    }

    /// Names the element's parameter `name`, and clears its expression guid: the guid
    /// ties an override to one expression of the parent, which a new name is not.
    fn rename(&self, element: &mut TagList, name: MappedName, guid: MappedName) -> Result<()> {
        let info = element
            .find_mut(self.info)
            .ok_or_else(|| bad("a parameter has no ParameterInfo"))?;
        let mut list = info.nested(self.none)?;
        let field = list
            .find_mut(self.name)
            .ok_or_else(|| bad("a ParameterInfo has no Name"))?;
        let mut w = Writer::default();
        name.write(&mut w);
        field.value = w.bytes;
        info.set_nested(&list);
        if let Some(guid) = element.find_mut(guid) {
            guid.value.fill(0);
        }
        Ok(())
    }
}

/// An array of structs: int32 count, then each element's tag list.
fn read_elements(value: &[u8], none: usize) -> Result<Vec<TagList>> {
    let mut r = Reader::new(value);
    let count = r
        .u32()
        .map_err(|e| PackageError::read("parameter array", e))?;
    if count as usize > value.len() {
        return Err(bad(format!("a parameter array claims {count} elements")));
    }
    let elements = (0..count)
        .map(|_| TagList::read(&mut r, none))
        .collect::<Result<_>>()?;
    r.finish()
        .map_err(|e| PackageError::read("parameter array", e))?;
    Ok(elements)
}

fn write_elements(elements: &[TagList]) -> Vec<u8> {
    let mut w = Writer::default();
    w.u32(elements.len() as u32);
    elements.iter().for_each(|e| e.write(&mut w));
    w.bytes
}
