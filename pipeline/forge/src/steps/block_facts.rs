//! `block_facts`: what the set's `assemble` says of one block, worked out from the
//! block's own outputs: the hash of each file it ships (for `inventory.json`), its Unreal
//! packages and what they import (the inventory's visuals), a light its donor Blueprint
//! cannot carry, and its checks report. So `assemble` reads one small document per block,
//! not every block's files, and a one-block edit re-reads one block's.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::assemble::{self, block_input};
use super::coded::diagnostic;
use super::common::{bad_intermediate, compact, input, source_file};
use super::kind::{Lands, Scope};
use super::{actor, catalog, checks, unreal_actor, unreal_material};
use crate::graph::Input;
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::Diagnostic;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "block_facts",
        version: 1,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Nowhere,
    wire,
};

/// `{"inventory", "visuals", "light_warning", "checks"}`.
pub const OUTPUT: &str = "facts.json";

/// This block's facts, as input `<block>/facts/facts.json`.
pub fn of_block(w: &Wiring, block: &str) -> Input {
    w.upstream_of(Some(block), input_name(block), &KIND, OUTPUT)
}

pub fn input_name(block: &str) -> String {
    format!("{block}/facts/{OUTPUT}")
}

fn wire(w: &Wiring) -> Option<Wired> {
    let block = w.block();
    let own = [block.to_string()];
    // Found once for both: planning a catalog-sized set asks this of every block.
    let shipped = crate::wiring::shipped(w.registry, w.planned, &own);
    let (packages, package_inputs) = assemble::block_packages_of(w, block, &shipped);
    let mut inputs: Vec<Input> = shipped
        .into_iter()
        .map(|s| Input::Upstream {
            name: block_input(block, &s.file),
            step: s.step,
            output: s.output,
        })
        .collect();
    let mut wired: std::collections::HashSet<String> =
        inputs.iter().map(|i| i.name().to_string()).collect();
    inputs.extend(
        package_inputs
            .into_iter()
            .filter(|i| wired.insert(i.name().to_string())),
    );
    let donors = w.options.donors.is_some();
    Some(Wired {
        params: json!({"packages": packages, "donors": donors}).to_string(),
        inputs,
    })
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let block = super::common::block(step);
    let file = source_file(catalog::MANIFEST);
    let params: Value = serde_json::from_str(step.params).unwrap_or_default();
    let packages: Vec<&str> = params["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let prefix = format!("{block}/");
    let inventory: BTreeMap<&str, String> = inputs
        .iter()
        .filter_map(|(name, bytes)| Some((name.strip_prefix(&prefix)?, bytes)))
        .map(|(output, bytes)| (output, blake3::hash(bytes).to_hex().to_string()))
        .collect();
    let light_warning = if params["donors"] == true {
        light_warning(block, inputs, &file)?
    } else {
        None
    };
    let checks = match inputs.get(&block_input(block, checks::OUTPUT)) {
        Some(bytes) => serde_json::from_slice::<Value>(bytes)
            .map_err(|e| bad_intermediate(&file, "checks", e))?,
        None => Value::Null,
    };
    let facts = json!({"inventory": inventory, "visuals": visuals(block, &packages, inputs, &file)?,
        "light_warning": light_warning, "checks": checks});
    Ok(vec![(OUTPUT.to_string(), compact(&facts))])
}

/// The block's Unreal packages (mesh, actor, material instances) and the packages outside
/// them they import; `null` without donors.
fn visuals(
    block: &str,
    packages: &[&str],
    inputs: &Inputs,
    file: &str,
) -> Result<Value, Vec<Diagnostic>> {
    let mut names = Vec::new();
    let mut materials = Vec::new();
    let mut imports = std::collections::BTreeSet::new();
    let instances = block_input(block, unreal_material::PREFIX);
    for name in packages {
        let package = forge_package::Package::read(input(inputs, name, file)?)
            .map_err(|e| diagnostic(file, &e))?;
        let package_name = package.header.package_name().unwrap_or_default();
        if name.starts_with(&instances) {
            materials.push(package_name.clone());
        }
        names.push(package_name);
        imports.extend(package.header.imported_packages);
    }
    if names.is_empty() {
        return Ok(Value::Null);
    }
    imports.retain(|i| !names.contains(i));
    Ok(json!({"packages": names, "materials": materials, "imports": imports}))
}

/// A light the document asks for that the donor Blueprint cannot carry.
fn light_warning(
    block: &str,
    inputs: &Inputs,
    file: &str,
) -> Result<Option<String>, Vec<Diagnostic>> {
    let document =
        forge_actor::Actor::from_json(input(inputs, &block_input(block, actor::OUTPUT), file)?)
            .map_err(|e| bad_intermediate(file, "actor", e))?;
    let package = forge_package::Package::read(input(
        inputs,
        &block_input(block, unreal_actor::OUTPUT),
        file,
    )?)
    .map_err(|e| diagnostic(file, &e))?;
    Ok((document.light.is_some() && !forge_actor::unreal::carries_light(&package)).then(|| {
        format!("block {block}: the donor Blueprint has no PointLightComponent, so BP_{block} carries no light")
    }))
}
