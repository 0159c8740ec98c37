//! `catalog`: validates `mjolnir.json` and splits its catalog into one entry per block.
//! Its output names tell the planner the pack's blocks without reading a byte.

use forge_contract::parse_manifest;
use serde_json::Value;

use super::common::{compact, source_file, text};
use super::kind::{Lands, Scope};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "catalog",
        version: 1,
        outputs: Names::Dynamic,
        runs_under_check: true,
        splices: None,
        cook,
    },
    scope: Scope::Pack,
    lands: Lands::Nowhere,
    wire,
};

/// The pack's manifest, as validated.
pub const MANIFEST: &str = "mjolnir.json";
const ENTRY_PREFIX: &str = "entry/";

/// The output holding one block's catalog entry.
pub fn entry_output(block: &str) -> String {
    format!("{ENTRY_PREFIX}{block}.json")
}

/// The blocks of the catalog, in catalog order, from the step's output names.
pub fn blocks<'a>(outputs: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    outputs
        .into_iter()
        .filter_map(|name| name.strip_prefix(ENTRY_PREFIX)?.strip_suffix(".json"))
        .map(str::to_string)
        .collect()
}

/// This block's catalog entry, as input `entry.json`.
pub fn entry(w: &Wiring) -> crate::graph::Input {
    entry_as(w, w.block(), "entry.json")
}

/// A block's catalog entry, as input `name`.
pub fn entry_as(w: &Wiring, block: &str, name: impl Into<String>) -> crate::graph::Input {
    w.upstream_of(None, name, &KIND, entry_output(block))
}

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(vec![w.source(MANIFEST)])
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(MANIFEST);
    let text = text(inputs, MANIFEST, &file)?;
    let (manifest, _warnings) = parse_manifest(&file, text)?;
    let catalog = manifest.catalog().ok_or_else(|| {
        vec![finding(
            "not_a_forge_pack",
            &file,
            "mjolnir.json has no forge_pack block, so there is nothing to cook",
        )]
    })?;
    if catalog.id != step.pack {
        return Err(vec![finding(
            "pack_id_mismatch",
            &file,
            format!(
                "pipeline.toml builds pack {:?} from this folder, but its catalog id is {:?}",
                step.pack, catalog.id
            ),
        )]);
    }
    if manifest.diagnostic {
        return Err(vec![finding(
            "diagnostic_source",
            &file,
            "a source manifest cannot be marked diagnostic; only reduced --only builds are",
        )]);
    }
    // The entries are split from the document itself, so each keeps its authored form;
    // the typed catalog, in the same order, names them.
    let value: Value = serde_json::from_str(text).expect("validated JSON parses");
    let raw = forge_contract::document::catalog_entries(&value);
    let mut out = vec![(MANIFEST.to_string(), text.as_bytes().to_vec())];
    for (entry, raw) in catalog.blocks.iter().zip(raw) {
        out.push((entry_output(&entry.id), compact(raw)));
    }
    Ok(out)
}
