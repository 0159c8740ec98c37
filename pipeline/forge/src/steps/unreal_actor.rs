//! `unreal_actor`: the block's actor as the cooked UE package `BP_<block>`, written over
//! the donor actor Blueprint. Planned only when the cook has donors.

use super::coded::diagnostic;
use super::common::{input, source_file};
use super::kind::{Lands, Scope};
use super::{actor, donors};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "unreal_actor",
        // 2: the header's bulk data map padding is the package's own.
        version: 2,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Package,
    wire,
};

pub const OUTPUT: &str = "actor.uasset";
const DONOR: &str = "donor.uasset";

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(vec![
        w.upstream(actor::OUTPUT, &actor::KIND, actor::OUTPUT),
        donors::of_pack(w, DONOR, donors::ACTOR)?,
    ])
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(super::block(step));
    let document = forge_actor::Actor::from_json(input(inputs, actor::OUTPUT, &file)?)
        .map_err(|e| super::bad_intermediate(&file, "actor", e))?;
    let bytes = forge_actor::unreal::package(input(inputs, DONOR, &file)?, &document)
        .map_err(|e| diagnostic(&file, &e))?;
    Ok(vec![(OUTPUT.to_string(), bytes)])
}
