//! `donors`: the shipped packages the Unreal packages are written over, checked once per
//! pack: each is the package its path names, its bytes match the hash its container's
//! TOC records, and it is the kind of package its role needs. Planned only when the cook
//! has donors (`[donors]` or `--paks`); without them the sets are not installable.

use forge_iostore::ids::{self, ChunkId};
use forge_package::Package;
use serde::{Deserialize, Serialize};

use super::common::{input, params};
use super::kind::{Lands, Scope};
pub use crate::donors::Role;
use crate::graph::Input;
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "donors",
        version: 2,
        outputs: Names::Dynamic,
        runs_under_check: true,
        splices: None,
        cook,
    },
    scope: Scope::Pack,
    lands: Lands::Nowhere,
    wire,
};

pub use crate::donors::{ACTOR, GLASS_MATERIAL, PORTAL_MATERIAL, STATIC_MESH};
const TOC_PREFIX: &str = "paks/";
/// Where a donor error points: the donors are the configuration's, not a pack's.
const DONORS_FILE: &str = "pipeline.toml [donors]";

/// One donor the step checks: its output (the role) and package path.
#[derive(Serialize, Deserialize)]
struct Checked {
    output: String,
    package: String,
}

/// A donor package of this pack in `role`, as input `name`; `None` when the cook has no
/// donors, or none in that role (a material instance is optional).
pub fn of_pack(w: &Wiring, name: &str, role: Role) -> Option<Input> {
    if !w.options.donors.as_ref()?.has(role) {
        return None;
    }
    Some(w.upstream_of(None, name, &KIND, role.output))
}

fn wire(w: &Wiring) -> Option<Wired> {
    let donors = w.options.donors.as_ref()?;
    let mut inputs: Vec<Input> = donors
        .files
        .iter()
        .map(|d| Input::Source {
            name: format!("donor/{}", d.role.output),
            path: d.file.clone(),
        })
        .collect();
    inputs.extend(donors.tocs.iter().map(|(name, path)| Input::Source {
        name: name.clone(),
        path: path.clone(),
    }));
    let checked: Vec<Checked> = donors
        .files
        .iter()
        .map(|d| Checked {
            output: d.role.output.to_string(),
            package: d.package.clone(),
        })
        .collect();
    Some(Wired {
        params: serde_json::to_string(&checked).expect("serializes"),
        inputs,
    })
}

/// Every role a donor can have.
pub const ROLES: [Role; 4] = [STATIC_MESH, ACTOR, GLASS_MATERIAL, PORTAL_MATERIAL];

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = DONORS_FILE.to_string();
    let checked: Vec<Checked> = params(step, &file)?;
    let tocs: Vec<(&String, forge_iostore::Toc)> = inputs
        .iter()
        .filter(|(name, _)| name.starts_with(TOC_PREFIX))
        .map(|(name, bytes)| forge_iostore::Toc::parse(bytes).map(|t| (name, t)))
        .collect::<Result<_, _>>()
        .map_err(|e| vec![finding(e.code, &file, e.message)])?;
    let mut out = Vec::new();
    for donor in &checked {
        let role = ROLES
            .iter()
            .find(|r| r.output == donor.output)
            .ok_or_else(|| {
                vec![finding(
                    "bad_intermediate",
                    &file,
                    format!("no donor role {}", donor.output),
                )]
            })?;
        let bytes = input(inputs, &format!("donor/{}", role.output), &file)?;
        check(&donor.package, bytes, &tocs, role.class)
            .map_err(|why| vec![finding(why.0, &file, why.1)])?;
        out.push((role.output.to_string(), bytes.to_vec()));
    }
    Ok(out)
}

/// The donor is in a TOC with these very bytes, is the package `path`, and has an
/// export of `class`.
fn check(
    path: &str,
    bytes: &[u8],
    tocs: &[(&String, forge_iostore::Toc)],
    class: &str,
) -> Result<(), (&'static str, String)> {
    let id = ChunkId::new(ids::name_hash(path), 0, ids::EXPORT_BUNDLE_DATA);
    let recorded = tocs.iter().find_map(|(_, toc)| {
        let entry = toc.chunks.iter().position(|c| *c == id)?;
        toc.metas.get(entry).map(|m| m.hash)
    });
    if recorded != Some(forge_iostore::hash160(bytes)) {
        return Err(("donor_changed", format!("the extracted {path} does not match its container's hash; cook again to extract it afresh")));
    }
    let package = Package::read(bytes).map_err(|e| (e.code, format!("{path}: {}", e.message)))?;
    if package.header.package_name().as_deref() != Some(path) {
        return Err((
            "donor_misnamed",
            format!(
                "{path} holds the package {:?}",
                package.header.package_name()
            ),
        ));
    }
    if package.export_of_class(class).is_none() {
        return Err((
            "donor_wrong_class",
            format!("{path} has no {class} export, so it cannot be this donor"),
        ));
    }
    Ok(())
}
