//! `asset_emit`: a manifest file whose bytes the manifest holds (`content`). Planned by
//! `mjolnir manifest build` (`asset_build`), not by a Forge cook.

use super::common::params;
use super::kind::{Lands, Scope};
use crate::wiring::StepKind;
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "asset_emit",
        version: 1,
        outputs: Names::Fixed(|_| vec![super::asset_copy::OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Set,
    lands: Lands::Nowhere,
    wire: |_| None,
};

#[derive(serde::Deserialize)]
struct Params {
    content: serde_json::Value,
}

/// A string is written as it is; any other JSON value, pretty-printed with a final newline.
fn cook(step: &CookCtx, _: &Inputs) -> Cooked {
    let p: Params = params(step, step.id)?;
    let bytes = match p.content {
        serde_json::Value::String(text) => text.into_bytes(),
        value => json_out::pretty(&value),
    };
    Ok(vec![(super::asset_copy::OUTPUT.to_string(), bytes)])
}
