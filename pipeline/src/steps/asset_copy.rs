//! `asset_copy`: a manifest file delivered as an input holds it (`source`), its rights
//! checked by the lint first. Planned by `mjolnir manifest build`.

use super::{input, Cooked, Inputs, Lands, Names, Scope, StepKind};
use crate::graph::Step;

/// The one output of every asset step: the delivered file's bytes.
pub const OUTPUT: &str = "file";
/// The input a copy reads.
pub const SOURCE: &str = "source";

pub static KIND: StepKind = StepKind {
    name: "asset_copy",
    version: 1,
    scope: Scope::Set,
    lands: Lands::Nowhere,
    outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
    wire: |_| None,
    cook,
};

fn cook(step: &Step, inputs: &Inputs) -> Cooked {
    Ok(vec![(
        OUTPUT.to_string(),
        input(inputs, SOURCE, &step.id)?.to_vec(),
    )])
}
