//! `crate_index`: which chunks a set's container holds, by id, sorted: what a map's palette
//! bake looks its crates up in. The container changes with any block's edit; the list
//! changes only when a block (and so a chunk) comes or goes, so a map step that reads it
//! instead of the container re-runs only when its palette could have changed.

use serde_json::Value;

use super::assemble;
use super::common::{compact, input, source_file};
use super::kind::{Lands, Scope};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "crate_index",
        version: 1,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Set,
    lands: Lands::Nowhere,
    wire,
};

pub const OUTPUT: &str = "chunks.json";
const CONTAINER: &str = "container.utoc";

fn wire(w: &Wiring) -> Option<Wired> {
    let utoc = forge_release::container::container_files(w.pack_id())[0].clone();
    Wired::inputs(vec![w.upstream(CONTAINER, &assemble::KIND, utoc)])
}

fn cook(_step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(CONTAINER);
    let toc = forge_iostore::Toc::chunk_ids(input(inputs, CONTAINER, &file)?)
        .map_err(|e| vec![finding(e.code, &file, e.message)])?;
    let mut ids: Vec<String> = toc.iter().map(hex).collect();
    ids.sort();
    Ok(vec![(OUTPUT.to_string(), compact(&Value::from(ids)))])
}

/// A chunk id as the list holds it: its twelve bytes in hex.
pub fn hex(id: &forge_iostore::ids::ChunkId) -> String {
    id.0.iter().map(|b| format!("{b:02x}")).collect()
}
