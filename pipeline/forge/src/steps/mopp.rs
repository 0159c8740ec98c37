//! `mopp`: MOPP code over a block's collision surfaces (`FMOP`).

use forge_contract::Diagnostic;

use super::coded::diagnostic;
use super::common::{bad_intermediate, input, source_file};
use super::kind::{Lands, Scope};
use super::{collision, geometry};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "mopp",
        version: forge_collision::MOPP_VERSION,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Cooked,
    wire,
};

pub const OUTPUT: &str = "mopp.fmop";

/// This block's MOPP index, as input `mopp.fmop`.
pub fn of_block(w: &Wiring) -> crate::graph::Input {
    w.upstream(OUTPUT, &KIND, OUTPUT)
}

/// Reads a MOPP index input back.
pub fn read(inputs: &Inputs, file: &str) -> Result<forge_collision::MoppIndex, Vec<Diagnostic>> {
    forge_collision::MoppIndex::from_bytes(input(inputs, OUTPUT, file)?)
        .map_err(|e| bad_intermediate(file, "mopp", e))
}

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(vec![collision::of_block(w)])
}

fn cook(_step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(geometry::SOURCE);
    let model = collision::read(inputs, &file)?;
    let index = forge_collision::cook_mopp(&model).map_err(|e| diagnostic(&file, &e))?;
    Ok(vec![(OUTPUT.to_string(), index.to_bytes())])
}
