//! `unreal_mesh`: the block's static mesh as the cooked UE package `SM_<block>`, written
//! over the donor static mesh. Planned only when the cook has donors.

use super::{
    diagnostic, donors, label, mesh, Cooked, Inputs, Lands, Names, Scope, StepKind, Wired,
};
use crate::graph::Step;
use crate::wiring::Wiring;

pub static KIND: StepKind = StepKind {
    name: "unreal_mesh",
    version: 1,
    scope: Scope::Block,
    lands: Lands::Cooked,
    outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
    wire,
    cook,
};

pub const OUTPUT: &str = "static_mesh.uasset";
const DONOR: &str = "donor.uasset";

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(vec![
        mesh::of_block(w),
        donors::of_pack(w, DONOR, donors::STATIC_MESH)?,
    ])
}

fn cook(step: &Step, inputs: &Inputs) -> Cooked {
    let file = label(step, super::block(step));
    let mesh = mesh::read(inputs, &file)?;
    let donor = super::input(inputs, DONOR, &file)?;
    let bytes = forge_mesh::unreal::package(donor, &mesh).map_err(|e| diagnostic(&file, &e))?;
    Ok(vec![(OUTPUT.to_string(), bytes)])
}
