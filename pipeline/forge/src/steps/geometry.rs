//! `geometry`: validates `source/geometry.json` against the catalog and splits it per
//! block. An entry may be partial, or absent, for a block with a model: `block_geometry`
//! fills in what it leaves out from the model's `UCX_` hulls.

use std::collections::BTreeMap;

use forge_contract::{parse_geometry_entries, parse_manifest};
use serde_json::{json, Value};

use super::catalog;
use super::common::{compact, source_file, text};
use super::kind::{Lands, Scope};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "geometry",
        // 3: entries may be partial; a block's part is `{"id"}` when it has none, and
        // `block_geometry` merges it over the model.
        version: 3,
        outputs: Names::Dynamic,
        runs_under_check: true,
        splices: None,
        cook,
    },
    scope: Scope::Pack,
    lands: Lands::Nowhere,
    wire,
};

pub const SOURCE: &str = "source/geometry.json";
/// The name a block's geometry has as an input and in `cooked/<block>/`.
pub const SHIPPED_AS: &str = "geometry.json";
/// The model file kinds a block may be made from.
pub const MODEL_EXTENSIONS: &[&str] = &["gltf", "glb", "blend"];

/// The output holding one block's part of `geometry.json`: `{"at": its JSON pointer or
/// null, "entry": the entry as written, or `{"id"}` when there is none}`.
pub fn block_output(block: &str) -> String {
    format!("block/{block}.json")
}

/// This block's geometry, merged over its model, as input `geometry.json`.
pub fn of_block(w: &Wiring) -> crate::graph::Input {
    super::block_geometry::of_block(w)
}

fn wire(w: &Wiring) -> Option<Wired> {
    Some(Wired {
        params: json!({"models": models_by_block(w)}).to_string(),
        inputs: vec![
            w.source(SOURCE),
            w.upstream(catalog::MANIFEST, &catalog::KIND, catalog::MANIFEST),
        ],
    })
}

/// Each block name in `source/models/` and its model files there, sorted: a block with a
/// model may leave its geometry to it, and one with two models is an error.
fn models_by_block(w: &Wiring) -> BTreeMap<String, Vec<String>> {
    let mut by_block: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for name in w.models() {
        if let Some((stem, ext)) = name.rsplit_once('.') {
            if MODEL_EXTENSIONS.contains(&ext) {
                by_block
                    .entry(stem.to_string())
                    .or_default()
                    .push(format!("source/models/{name}"));
            }
        }
    }
    by_block.values_mut().for_each(|files| files.sort());
    by_block
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(SOURCE);
    let manifest_file = source_file(catalog::MANIFEST);
    let (manifest, _) = parse_manifest(
        &manifest_file,
        text(inputs, catalog::MANIFEST, &manifest_file)?,
    )?;
    let catalog = manifest
        .catalog()
        .ok_or_else(|| vec![finding("not_a_forge_pack", &file, "no catalog")])?;
    let params: Value = serde_json::from_str(step.params).unwrap_or_default();
    let models: BTreeMap<String, Vec<String>> =
        serde_json::from_value(params["models"].clone()).unwrap_or_default();
    let two_models: Vec<_> = catalog
        .blocks
        .iter()
        .filter_map(|e| Some((&e.id, models.get(&e.id).filter(|m| m.len() > 1)?)))
        .map(|(id, files)| {
            finding(
                "two_models",
                &source_file(&files[0]),
                format!(
                    "block {id:?} has {} models: {}; keep the one you edit and delete the others",
                    files.len(),
                    files.join(" and ")
                ),
            )
        })
        .collect();
    if !two_models.is_empty() {
        return Err(two_models);
    }
    let with_models: Vec<String> = models.into_keys().collect();
    let text = text(inputs, SOURCE, &file)?;
    let ((source, entries), _warnings) =
        parse_geometry_entries(&file, text, catalog, &with_models)?;
    // Split from the document, so each part keeps its authored fields: each entry as the
    // reader wrote it out, compact, while it read it.
    Ok(catalog
        .blocks
        .iter()
        .map(|entry| {
            let part = match source.blocks.iter().position(|b| b.id == entry.id) {
                Some(i) => format!(r#"{{"at":"/blocks/{i}","entry":{}}}"#, entries[i]).into_bytes(),
                None => compact(&json!({"at": null, "entry": {"id": entry.id}})),
            };
            (block_output(&entry.id), part)
        })
        .collect())
}
