//! A block's glass and portal surfaces as the pack's own material instances
//! (`docs/surfaces-and-materials.md`): `MI_<block>_<slot>` under
//! `/Game/MJOLNIR/Forge/<pack>/Materials/`, each written over a donor material instance
//! with the surface's tint, opacity and emissive colour set as parameter overrides.
//!
//! Pure: donor bytes and a surface in, package bytes out.

use forge_contract::manifest::{Surface, SurfaceProfile};
use forge_package::material_instance::{self, Parameter};
use forge_package::{Package, PackageError};

/// Version of this cooker; part of every material step's key. 2: the header's bulk data
/// map padding is the package's own.
pub const VERSION: u32 = 2;

/// `/Game/MJOLNIR/Forge/<pack>/Materials/MI_<block>_<slot>`: one instance per block and
/// slot, since two blocks may style a slot of the same name differently.
pub fn package_path(pack: &str, block: &str, slot: &str) -> String {
    format!(
        "{}Materials/MI_{block}_{slot}",
        forge_contract::ids::unreal_root(pack)
    )
}

/// The parameter names the donor's parent material exposes for each value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParameterNames {
    pub tint: String,
    pub opacity: String,
    pub emissive: String,
}

/// What a surface sets on its material instance. A portal glows in its tint; glass does
/// not glow.
pub fn parameters(surface: &Surface, names: &ParameterNames) -> Vec<(String, Parameter)> {
    let [r, g, b] = surface.tint_rgb.map(|c| c as f32);
    let emissive = match surface.profile {
        SurfaceProfile::Portal => [r, g, b, 1.0],
        SurfaceProfile::Glass => [0.0, 0.0, 0.0, 1.0],
    };
    vec![
        (names.tint.clone(), Parameter::Vector([r, g, b, 1.0])),
        (
            names.opacity.clone(),
            Parameter::Scalar(surface.opacity as f32),
        ),
        (names.emissive.clone(), Parameter::Vector(emissive)),
    ]
}

/// The package bytes of `surface`'s material instance for `block` of `pack`, written
/// over the donor material instance `donor`.
pub fn package(
    donor: &[u8],
    pack: &str,
    block: &str,
    surface: &Surface,
    names: &ParameterNames,
) -> Result<Vec<u8>, PackageError> {
    let mut package = Package::read(donor)?;
    let values = parameters(surface, names);
    let values: Vec<(&str, Parameter)> = values.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    material_instance::set_parameters(&mut package, &values)?;
    let index = package
        .export_of_class(material_instance::MATERIAL_INSTANCE_CLASS)
        .expect("set_parameters found it");
    let path = package_path(pack, block, &surface.slot);
    let short = path.rsplit('/').next().unwrap_or_default().to_string();
    let old = package.export_path(index);
    package.rename(&path, &[(old, short)])?;
    Ok(package.to_bytes())
}
