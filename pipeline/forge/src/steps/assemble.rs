//! `assemble`: a set's manifest (the catalog reduced to the set, marked diagnostic for
//! `--only`), its inventory (each block's cooked outputs by hash), its checks report, and
//! the pack's IoStore container.

use std::collections::BTreeMap;

use forge_contract::Diagnostic;
use serde::Deserialize;
use serde_json::{json, Value};

use super::coded::diagnostic;
use super::common::{bad_intermediate, input, params, pretty, source_file, text};
use super::kind::{Lands, Scope};
use super::{actor, catalog, checks, donors, unreal_actor, unreal_material};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "assemble",
        version: 1,
        outputs: Names::Dynamic,
        runs_under_check: false,
        cook,
    },
    scope: Scope::Set,
    lands: Lands::SetRoot,
    wire,
};

pub const CHANGES: &str = "changes.json";
pub const INVENTORY: &str = "inventory.json";
/// The set's checks report: every block's, in set order.
pub const CHECKS: &str = "checks.json";

#[derive(Deserialize)]
struct Params {
    set: String,
    blocks: Vec<String>,
    diagnostic: bool,
    /// Each block's Unreal packages, by input name, in container order: the outputs of
    /// every kind that lands as a package, in registry order, then the material
    /// instances. Absent in a cook without donors.
    #[serde(default)]
    packages: BTreeMap<String, Vec<String>>,
}

/// The input a donor is known by.
pub fn donor_input(output: &str) -> String {
    format!("donor/{output}")
}

/// The input a block's shipped output is known by: `<block>/<file>`.
fn block_input(block: &str, file: &str) -> String {
    format!("{block}/{file}")
}

/// A block's Unreal packages, as inputs named `<block>/<file>`, in container order: the
/// outputs of every kind that lands as a package, in registry order, then the material
/// instances (which exist only in a cook with donors, and are named as they cook).
pub fn block_packages(w: &Wiring, block: &str) -> (Vec<String>, Vec<crate::graph::Input>) {
    let mut names = Vec::new();
    let mut inputs = Vec::new();
    // This block's alone: asking for the whole set's, per block, would be quadratic.
    let own = [block.to_string()];
    let shipped = crate::wiring::shipped(w.registry, w.planned, &own);
    for shipped in shipped.into_iter().filter(|s| s.package) {
        let name = block_input(block, &shipped.file);
        names.push(name.clone());
        inputs.push(crate::graph::Input::Upstream {
            name,
            step: shipped.step,
            output: shipped.output,
        });
    }
    if w.options.donors.is_some() {
        let w = w.for_block(block);
        for (slot, _) in unreal_material::of_block(&w) {
            let output = unreal_material::output(block, &slot);
            if let Some(step) = w.planned.step(&unreal_material::KIND, Some(block)) {
                let name = block_input(block, &output);
                names.push(name.clone());
                inputs.push(crate::graph::Input::Upstream { name, step, output });
            }
        }
    }
    (names, inputs)
}

fn wire(w: &Wiring) -> Option<Wired> {
    let set = w.set();
    let mut inputs = vec![w.upstream(catalog::MANIFEST, &catalog::KIND, catalog::MANIFEST)];
    if w.has_source(CHANGES) {
        inputs.push(w.source(CHANGES));
    }
    let mut packages: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for shipped in w.shipped() {
        let name = block_input(&shipped.block, &shipped.file);
        inputs.push(crate::graph::Input::Upstream {
            name,
            step: shipped.step,
            output: shipped.output,
        });
    }
    // The shipped package outputs are wired above; the material instances are not.
    let mut wired: std::collections::HashSet<String> =
        inputs.iter().map(|i| i.name().to_string()).collect();
    for block in &set.blocks {
        let (names, block_inputs) = block_packages(w, block);
        for input in block_inputs {
            if wired.insert(input.name().to_string()) {
                inputs.push(input);
            }
        }
        if !names.is_empty() {
            packages.insert(block.clone(), names);
        }
        inputs.extend(super::block_chunks::of_block(w, block));
    }
    for role in donors::ROLES {
        inputs.extend(donors::of_pack(w, &donor_input(role.output), role));
    }
    let mut params = json!({"set": set.name, "blocks": set.blocks, "diagnostic": set.diagnostic});
    if !packages.is_empty() {
        params["packages"] = json!(packages);
    }
    Some(Wired {
        params: params.to_string(),
        inputs,
    })
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(catalog::MANIFEST);
    let params: Params = params(step, &file)?;
    let mut out = container(step, &params, inputs)?;
    let manifest = manifest(&params, inputs, &file)?;
    out.extend([
        (
            CHECKS.to_string(),
            pretty(&checks_report(step, &params, inputs)?),
        ),
        (catalog::MANIFEST.to_string(), pretty(&manifest)),
        (
            INVENTORY.to_string(),
            pretty(&inventory(step, &params, inputs)?),
        ),
    ]);
    if let Some(changes) = inputs.get(CHANGES) {
        every_block_announced(&manifest, changes)?;
        let changes = if params.diagnostic {
            pretty(&reduced_changes(changes, &manifest, &source_file(CHANGES))?)
        } else {
            changes.to_vec()
        };
        out.push((CHANGES.to_string(), changes));
    }
    Ok(out)
}

/// The catalog reduced to the set; an `--only` set is marked so it cannot be published.
fn manifest(params: &Params, inputs: &Inputs, file: &str) -> Result<Value, Vec<Diagnostic>> {
    let mut manifest: Value = serde_json::from_str(text(inputs, catalog::MANIFEST, file)?)
        .map_err(|e| vec![finding("not_json", file, e.to_string())])?;
    if let Some(list) = forge_contract::document::catalog_entries_mut(&mut manifest) {
        list.retain(|b| {
            b["id"]
                .as_str()
                .is_some_and(|id| params.blocks.iter().any(|x| x == id))
        });
    }
    if params.diagnostic {
        forge_contract::document::mark_diagnostic(&mut manifest, &params.blocks);
    }
    Ok(manifest)
}

/// Every block of the set has its `bloc` row in `changes.json`.
fn every_block_announced(manifest: &Value, changes: &[u8]) -> Result<(), Vec<Diagnostic>> {
    let file = source_file(CHANGES);
    let changes: Value = serde_json::from_slice(changes)
        .map_err(|e| vec![finding("not_json", &file, e.to_string())])?;
    let missing: Vec<Diagnostic> =
        forge_contract::document::blocks_without_change_row(manifest, &changes)
            .into_iter()
            .map(|(id, tag)| {
                let mut found = finding(
                    "missing_change_row",
                    &file,
                    forge_contract::document::change_row_message(id, tag),
                );
                found.pointer = "/tags".into();
                found
            })
            .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}

/// An `--only` set's change list declares only the tags of the blocks it holds.
fn reduced_changes(changes: &[u8], manifest: &Value, file: &str) -> Result<Value, Vec<Diagnostic>> {
    let mut changes: Value = serde_json::from_slice(changes)
        .map_err(|e| vec![finding("not_json", file, e.to_string())])?;
    let tags: Vec<&Value> = forge_contract::document::catalog_entries(manifest)
        .iter()
        .map(|b| &b["tag"])
        .collect();
    if let Some(list) = changes["tags"].as_array_mut() {
        list.retain(|t| tags.contains(&&t["tag"]));
    }
    Ok(changes)
}

/// Which blocks the set holds, the hash of each shipped output, and whether the game can
/// install the set (its Unreal packages, and what they leave out).
fn inventory(step: &CookCtx, params: &Params, inputs: &Inputs) -> Result<Value, Vec<Diagnostic>> {
    let mut blocks = BTreeMap::new();
    for (name, bytes) in inputs {
        let Some((block, output)) = name.split_once('/') else {
            continue;
        };
        // A block's packed container chunks are the container's, not a shipped file.
        if output.starts_with("chunks/") {
            continue;
        }
        if params.blocks.iter().any(|b| b == block) {
            blocks
                .entry(block.to_string())
                .or_insert_with(BTreeMap::new)
                .insert(output.to_string(), blake3::hash(bytes).to_hex().to_string());
        }
    }
    let unreal = installable(params, inputs)?;
    let visuals = visuals(params, inputs)?;
    Ok(
        json!({"pack": step.pack, "set": params.set, "diagnostic": params.diagnostic, "unreal": unreal, "blocks": blocks, "visuals": visuals}),
    )
}

/// What each block's visuals pull in: its Unreal packages (mesh, actor, material
/// instances) and the packages outside them they import (the donors' shipped materials
/// and textures). Empty without donors. The tags' layout has no field for an Unreal
/// package path, so this is where an author sees a block's whole visual footprint.
fn visuals(params: &Params, inputs: &Inputs) -> Result<Value, Vec<Diagnostic>> {
    let file = source_file(catalog::MANIFEST);
    let mut out = serde_json::Map::new();
    for block in &params.blocks {
        let mut packages = Vec::new();
        let mut materials = Vec::new();
        let mut imports = std::collections::BTreeSet::new();
        let instances = block_input(block, unreal_material::PREFIX);
        for (input, bytes) in unreal_packages(params, block, inputs, &file)? {
            let package = forge_package::Package::read(bytes).map_err(|e| diagnostic(&file, &e))?;
            let name = package.header.package_name().unwrap_or_default();
            if input.starts_with(&instances) {
                materials.push(name.clone());
            }
            packages.push(name);
            imports.extend(package.header.imported_packages);
        }
        if packages.is_empty() {
            continue;
        }
        imports.retain(|i| !packages.contains(i));
        out.insert(
            block.clone(),
            json!({"packages": packages, "materials": materials, "imports": imports}),
        );
    }
    Ok(Value::Object(out))
}

/// Without donors the set has no Unreal packages and is not installable; with them, a
/// light the donor Blueprint cannot carry is named.
fn installable(params: &Params, inputs: &Inputs) -> Result<Value, Vec<Diagnostic>> {
    if !inputs.contains_key(&donor_input(donors::ACTOR.output)) {
        return Ok(
            json!({"installable": false, "reason": "cooked without donors: the container holds no Unreal packages (see docs/donors.md)"}),
        );
    }
    let file = source_file(catalog::MANIFEST);
    let mut warnings = Vec::new();
    for block in &params.blocks {
        let document = forge_actor::Actor::from_json(input(
            inputs,
            &block_input(block, actor::OUTPUT),
            &file,
        )?)
        .map_err(|e| bad_intermediate(&file, "actor", e))?;
        let package = forge_package::Package::read(input(
            inputs,
            &block_input(block, unreal_actor::OUTPUT),
            &file,
        )?)
        .map_err(|e| diagnostic(&file, &e))?;
        if document.light.is_some() && !forge_actor::unreal::carries_light(&package) {
            warnings.push(format!("block {block}: the donor Blueprint has no PointLightComponent, so BP_{block} carries no light"));
        }
    }
    Ok(json!({"installable": true, "warnings": warnings}))
}

fn checks_report(
    step: &CookCtx,
    params: &Params,
    inputs: &Inputs,
) -> Result<Value, Vec<Diagnostic>> {
    let file = source_file(catalog::MANIFEST);
    let mut reports = Vec::new();
    for block in &params.blocks {
        if let Some(bytes) = inputs.get(&block_input(block, checks::OUTPUT)) {
            reports.push(
                serde_json::from_slice::<Value>(bytes)
                    .map_err(|e| bad_intermediate(&file, "checks", e))?,
            );
        }
    }
    Ok(
        json!({"format": "mjolnir-forge-checks", "pack": step.pack, "set": params.set, "blocks": reports}),
    )
}

/// The container, laid out from each block's packed chunks (`block_chunks`): nothing is
/// compressed here but the container header.
fn container(step: &CookCtx, params: &Params, inputs: &Inputs) -> Cooked {
    let file = source_file(catalog::MANIFEST);
    let blocks = params
        .blocks
        .iter()
        .map(|block| super::block_chunks::read(inputs, block, &file))
        .collect::<Result<Vec<_>, _>>()?;
    forge_release::container::build_packed(step.pack, &blocks).map_err(|e| diagnostic(&file, &e))
}

/// A block's Unreal packages, by input name, in the order the wiring gave them.
fn unreal_packages<'a>(
    params: &'a Params,
    block: &str,
    inputs: &'a Inputs,
    file: &str,
) -> Result<Vec<(&'a str, &'a [u8])>, Vec<Diagnostic>> {
    let names = params
        .packages
        .get(block)
        .map(Vec::as_slice)
        .unwrap_or_default();
    names
        .iter()
        .map(|name| Ok((name.as_str(), input(inputs, name, file)?)))
        .collect()
}

/// The packages the donors import (their materials, say): what an Unreal package of the
/// set may import from outside the pack's namespace.
pub fn shipped(inputs: &Inputs, file: &str) -> Result<Vec<String>, Vec<Diagnostic>> {
    let mut shipped = Vec::new();
    for role in donors::ROLES {
        if let Some(bytes) = inputs.get(&donor_input(role.output)) {
            let package = forge_package::Package::read(bytes).map_err(|e| diagnostic(file, &e))?;
            shipped.extend(package.header.imported_packages);
        }
    }
    Ok(shipped)
}
