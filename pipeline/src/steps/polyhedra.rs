//! `polyhedra`: a block's source hulls become Havok convex polyhedra (`FPOL`).

use super::{collision, geometry, Cooked, Inputs, Lands, Names, Scope, StepKind, Wired};
use crate::graph::Step;
use crate::wiring::Wiring;

pub static KIND: StepKind = StepKind {
    name: "polyhedra",
    version: forge_collision::POLYHEDRA_VERSION,
    scope: Scope::Block,
    lands: Lands::Cooked,
    outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
    wire,
    cook,
};

pub const OUTPUT: &str = "polyhedra.fpol";

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(vec![geometry::of_block(w)])
}

fn cook(step: &Step, inputs: &Inputs) -> Cooked {
    let geometry = collision::source_block(inputs)?;
    let polyhedra =
        forge_collision::cook_polyhedra(&geometry).map_err(|e| collision::located(step, e))?;
    Ok(vec![(
        OUTPUT.to_string(),
        forge_collision::polyhedron::to_bytes(&polyhedra),
    )])
}
