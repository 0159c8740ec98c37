//! The pack contract's namespace rule (`docs/pack-contract.md`) for a pack's packages: a pack adds objects only under its own
//! `/Game/MJOLNIR/Forge/<pack>/` and replaces nothing outside it. A package's name must lie
//! there, no export may be placed inside an imported object (an outer outside the
//! package), and each imported package must be the pack's own or one of the packages the
//! shipped donors import (their materials, say). Script imports (`/Script/...`) are
//! engine classes and always allowed.

use crate::object_index::ObjectIndex;
use crate::package::Package;

/// Every way `package` breaks the rule, as sentences; `shipped` lists the imported
/// packages allowed outside `root` (`None` allows any outside `/Game/MJOLNIR/`, which is
/// what a scanner that does not know the donors can still check).
pub fn violations(package: &Package, root: &str, shipped: Option<&[String]>) -> Vec<String> {
    let mut found = Vec::new();
    let name = package.header.package_name().unwrap_or_default();
    if !name.starts_with(root) {
        found.push(format!("package {name} lies outside {root}"));
    }
    for (i, export) in package.header.exports.iter().enumerate() {
        if !matches!(export.outer, ObjectIndex::Null | ObjectIndex::Export(_)) {
            found.push(format!(
                "{name}: export {} is placed inside an imported object",
                package.export_path(i)
            ));
        }
    }
    for import in &package.header.imported_packages {
        let allowed = import.starts_with(root)
            || match shipped {
                Some(list) => list.contains(import),
                None => !import.starts_with("/Game/MJOLNIR/"),
            };
        if !allowed {
            found.push(format!("{name} imports {import}, which is neither the pack's own nor a donor's shipped package"));
        }
    }
    found
}
