//! `asset_copy`: a manifest file delivered as an input holds it (`source`), its rights
//! checked by the lint first. Planned by `mjolnir manifest build`.

use super::common::input;
use super::kind::{Lands, Scope};
use crate::wiring::StepKind;
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};

/// The one output of every asset step: the delivered file's bytes.
pub const OUTPUT: &str = "file";
/// The input a copy reads.
pub const SOURCE: &str = "source";

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "asset_copy",
        version: 1,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Set,
    lands: Lands::Nowhere,
    wire: |_| None,
};

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    Ok(vec![(
        OUTPUT.to_string(),
        input(inputs, SOURCE, step.id)?.to_vec(),
    )])
}
