//! `geometry`: validates `source/geometry.json` against the catalog and splits it per
//! block. A block's part is also shipped, as `cooked/<block>/geometry.json`.

use forge_contract::{parse_geometry_lacking, parse_manifest};
use serde_json::{json, Value};

use super::catalog;
use super::coded::diagnostic;
use super::common::{compact, source_file, text};
use super::kind::{Lands, Scope};
use crate::graph::Input;
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "geometry",
        // 2: blocks left out of geometry.json take their geometry from their models' hulls.
        version: 2,
        outputs: Names::Dynamic,
        runs_under_check: true,
        cook,
    },
    scope: Scope::Pack,
    lands: Lands::PerBlock(|block| (block_output(block), SHIPPED_AS)),
    wire,
};

pub const SOURCE: &str = "source/geometry.json";
/// The name a block's geometry has as an input and in `cooked/<block>/`.
pub const SHIPPED_AS: &str = "geometry.json";

/// The output holding one block's geometry.
pub fn block_output(block: &str) -> String {
    format!("block/{block}.json")
}

/// This block's geometry, as input `geometry.json`.
pub fn of_block(w: &Wiring) -> Input {
    w.upstream_of(None, SHIPPED_AS, &KIND, block_output(w.block()))
}

fn wire(w: &Wiring) -> Option<Wired> {
    let mut inputs = vec![
        w.source(SOURCE),
        w.upstream(catalog::MANIFEST, &catalog::KIND, catalog::MANIFEST),
    ];
    let models = hull_models(w);
    for model in &models {
        inputs.push(w.source(model));
        inputs.extend(
            super::import::buffers(w, model)
                .iter()
                .map(|rel| w.source(rel)),
        );
    }
    Some(Wired {
        params: json!({"hull_models": models}).to_string(),
        inputs,
    })
}

/// The models that carry `UCX_` hulls, by their paths in the pack: a block they give hulls
/// to may be left out of `geometry.json`. Whether a model has them is remembered by the
/// stat cache, so a no-op cook reads no model.
fn hull_models(w: &Wiring) -> Vec<String> {
    let mut models: Vec<String> = w
        .models()
        .iter()
        .filter(|name| name.ends_with(".gltf") || name.ends_with(".glb"))
        .map(|name| format!("source/models/{name}"))
        .filter(|rel| {
            let path = w.sources.pack.dir.join(rel);
            w.stat_cache()
                .derived(&path, "hulls", 1, |bytes| {
                    let has = bytes
                        .windows(forge_gltf::HULL_PREFIX.len())
                        .any(|win| win == forge_gltf::HULL_PREFIX.as_bytes());
                    if has {
                        vec!["hulls".to_string()]
                    } else {
                        Vec::new()
                    }
                })
                .is_some_and(|fact| !fact.is_empty())
        })
        .collect();
    models.sort();
    models
}

/// The block a model path is for: `source/models/floor_2x2.gltf` is `floor_2x2`.
fn model_block(model: &str) -> &str {
    let name = model.rsplit('/').next().unwrap_or(model);
    name.rsplit_once('.').map_or(name, |(stem, _)| stem)
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
    let text = text(inputs, SOURCE, &file)?;
    let params: Value = serde_json::from_str(step.params).unwrap_or_default();
    let models: Vec<String> = params["hull_models"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m.as_str().map(str::to_string))
        .collect();
    let from_models: Vec<String> = models.iter().map(|m| model_block(m).to_string()).collect();
    let (source, _warnings) = parse_geometry_lacking(&file, text, catalog, &from_models)?;
    // Split from the document, in the typed source's order, so each part keeps its
    // authored form.
    let value: Value = serde_json::from_str(text).expect("validated JSON parses");
    let raw = forge_contract::document::geometry_blocks(&value);
    let mut out: Vec<(String, Vec<u8>)> = source
        .blocks
        .iter()
        .zip(raw)
        .map(|(block, raw)| (block_output(&block.id), compact(raw)))
        .collect();
    // The blocks left out take their geometry from their models' hulls.
    let origin = source
        .blocks
        .first()
        .map_or("bottom_centre", |b| b.origin.as_str());
    for entry in catalog
        .blocks
        .iter()
        .filter(|e| source.block(&e.id).is_none())
    {
        let model = models
            .iter()
            .find(|m| model_block(m) == entry.id)
            .expect("a block left out has a hull model");
        out.push((
            block_output(&entry.id),
            from_model(inputs, model, &entry.id, origin)?,
        ));
    }
    Ok(out)
}

/// A block's geometry from its model's `UCX_` hulls, checked as if it were written.
fn from_model(
    inputs: &Inputs,
    model: &str,
    block: &str,
    origin: &str,
) -> Result<Vec<u8>, Vec<forge_contract::Diagnostic>> {
    let file = source_file(model);
    let (bytes, external) = super::import::model_and_buffers(inputs, model, &file)?;
    let hulls =
        forge_gltf::collision_hulls(&file, bytes, &external).map_err(|e| diagnostic(&file, &e))?;
    let mesh = forge_gltf::import(&file, bytes, &external).map_err(|e| diagnostic(&file, &e))?;
    let (lo, hi) = mesh.bounds().ok_or_else(|| {
        vec![finding(
            "mesh_empty",
            &file,
            "the model has no visual mesh besides its hulls",
        )]
    })?;
    let entry = crate::suggest::entry_from_hulls(block, origin, &hulls, [lo, hi]);
    let bytes = compact(&entry);
    forge_contract::geometry::parse_block(
        &file,
        std::str::from_utf8(&bytes).expect("JSON is UTF-8"),
    )?;
    Ok(bytes)
}
