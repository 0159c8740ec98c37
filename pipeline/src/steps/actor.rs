//! `actor`: a catalog entry and the mesh's placement become the block's actor document.

use super::{
    block, catalog, geometry, label, mesh, text, Cooked, Inputs, Lands, Names, Scope, StepKind,
    Wired,
};
use crate::graph::Step;
use crate::wiring::Wiring;

pub static KIND: StepKind = StepKind {
    name: "actor",
    version: forge_actor::VERSION,
    scope: Scope::Block,
    lands: Lands::Cooked,
    outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
    wire,
    cook,
};

pub const OUTPUT: &str = "actor.json";

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(vec![
        catalog::entry(w),
        geometry::of_block(w),
        mesh::of_block(w),
    ])
}

fn cook(step: &Step, inputs: &Inputs) -> Cooked {
    let file = label(step, catalog::MANIFEST);
    let entry = forge_contract::parse_entry(&file, &step.pack, text(inputs, "entry.json", &file)?)?;
    let geometry_file = label(step, geometry::SOURCE);
    let geometry = forge_contract::geometry::parse_block(
        &geometry_file,
        text(inputs, geometry::SHIPPED_AS, &geometry_file)?,
    )?;
    let mesh = mesh::read(inputs, &file)?;
    debug_assert_eq!(entry.id, block(step));
    let actor = forge_actor::cook(&step.pack, &entry, geometry.origin, mesh.offset_cm);
    Ok(vec![(OUTPUT.to_string(), actor.to_json())])
}
