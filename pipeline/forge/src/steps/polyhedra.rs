//! `polyhedra`: a block's source hulls become Havok convex polyhedra (`FPOL`).

use super::collision;
use super::kind::{Lands, Scope};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "polyhedra",
        version: forge_collision::POLYHEDRA_VERSION,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Cooked,
    wire,
};

pub const OUTPUT: &str = "polyhedra.fpol";

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(collision::inputs(w))
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let geometry = collision::source_block(inputs)?;
    let polyhedra = forge_collision::cook_polyhedra(&geometry)
        .map_err(|e| collision::located(step, inputs, e))?;
    Ok(vec![(
        OUTPUT.to_string(),
        forge_collision::polyhedron::to_bytes(&polyhedra),
    )])
}
