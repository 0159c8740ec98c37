//! `geometry`: validates `source/geometry.json` against the catalog and splits it per
//! block. A block's part is also shipped, as `cooked/<block>/geometry.json`.

use forge_contract::{parse_geometry, parse_manifest};
use serde_json::Value;

use super::{
    catalog, compact, finding, label, text, Cooked, Inputs, Lands, Names, Scope, StepKind, Wired,
};
use crate::graph::{Input, Step};
use crate::wiring::Wiring;

pub static KIND: StepKind = StepKind {
    name: "geometry",
    version: 1,
    scope: Scope::Pack,
    lands: Lands::PerBlock(|block| (block_output(block), SHIPPED_AS)),
    outputs: Names::Dynamic,
    wire,
    cook,
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
    Wired::inputs(vec![
        w.source(SOURCE),
        w.upstream(catalog::MANIFEST, &catalog::KIND, catalog::MANIFEST),
    ])
}

fn cook(step: &Step, inputs: &Inputs) -> Cooked {
    let file = label(step, SOURCE);
    let manifest_file = label(step, catalog::MANIFEST);
    let (manifest, _) = parse_manifest(
        &manifest_file,
        text(inputs, catalog::MANIFEST, &manifest_file)?,
    )?;
    let catalog = manifest
        .catalog()
        .ok_or_else(|| vec![finding("not_a_forge_pack", &file, "no catalog")])?;
    let text = text(inputs, SOURCE, &file)?;
    let (source, _warnings) = parse_geometry(&file, text, catalog)?;
    // Split from the document, in the typed source's order, so each part keeps its
    // authored form.
    let value: Value = serde_json::from_str(text).expect("validated JSON parses");
    let raw = value["blocks"].as_array().into_iter().flatten();
    Ok(source
        .blocks
        .iter()
        .zip(raw)
        .map(|(block, raw)| (block_output(&block.id), compact(raw)))
        .collect())
}
