//! `unreal_mesh`: the block's static mesh as the cooked UE package `SM_<block>`, written
//! over the donor static mesh, with each slot a surface styles pointing at the pack's
//! material instance of it. Planned only when the cook has donors.

use super::coded::diagnostic;
use super::common::source_file;
use super::kind::{Lands, Scope};
use super::{donors, mesh, unreal_material};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use forge_mesh::unreal::SlotMaterial;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "unreal_mesh",
        // 3: the header's bulk data map padding is the package's own.
        version: 3,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Package,
    wire,
};

pub const OUTPUT: &str = "static_mesh.uasset";
const DONOR: &str = "donor.uasset";

/// The parameters: the slots the block's surfaces style, which point at the pack's
/// material instances (`unreal_material`).
fn wire(w: &Wiring) -> Option<Wired> {
    let donor = donors::of_pack(w, DONOR, donors::STATIC_MESH)?;
    let styled: Vec<String> = unreal_material::of_block(w)
        .into_iter()
        .map(|(slot, _)| slot)
        .collect();
    Some(Wired {
        inputs: vec![mesh::of_block(w), donor],
        params: serde_json::to_string(&styled).expect("serializes"),
    })
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let block = super::block(step);
    let file = source_file(block);
    let mesh = mesh::read(inputs, &file)?;
    let donor = super::input(inputs, DONOR, &file)?;
    let styled: Vec<String> = super::params(step, &file)?;
    let packages: Vec<String> = styled
        .iter()
        .map(|slot| forge_material::package_path(step.pack, block, slot))
        .collect();
    let materials: Vec<SlotMaterial> = styled
        .iter()
        .zip(&packages)
        .map(|(slot, package)| SlotMaterial { slot, package })
        .collect();
    let bytes =
        forge_mesh::unreal::package(donor, &mesh, &materials).map_err(|e| diagnostic(&file, &e))?;
    Ok(vec![(OUTPUT.to_string(), bytes)])
}
