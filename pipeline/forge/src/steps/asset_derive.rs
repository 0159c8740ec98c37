//! `asset_derive`: a manifest file made from inputs by a derive rule
//! (`asset_manifest::derive`). Its inputs are `from/0`, `from/1`, ... in the manifest's
//! order. Planned by `mjolnir manifest build`.

use super::common::params;
use super::kind::{Lands, Scope};
use crate::wiring::StepKind;
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "asset_derive",
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
    rule: String,
    #[serde(default)]
    params: serde_json::Value,
    sources: usize,
}

/// The name of the `i`th source input.
pub fn source(i: usize) -> String {
    format!("from/{i}")
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let p: Params = params(step, step.id)?;
    let sources: Vec<&[u8]> = (0..p.sources)
        .map(|i| super::input(inputs, &source(i), step.id))
        .collect::<Result<_, _>>()?;
    let bytes = asset_manifest::derive::apply(&p.rule, &p.params, &sources).map_err(|why| {
        vec![finding(
            why.code,
            step.id,
            format!("{}: {}", p.rule, why.message),
        )]
    })?;
    Ok(vec![(super::asset_copy::OUTPUT.to_string(), bytes)])
}
