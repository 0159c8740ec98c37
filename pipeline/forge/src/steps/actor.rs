//! `actor`: a catalog entry and the mesh's placement become the block's actor document.

use super::common::{block, source_file, text};
use super::kind::{Lands, Scope};
use super::{catalog, geometry, mesh};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "actor",
        version: forge_actor::VERSION,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Cooked,
    wire,
};

pub const OUTPUT: &str = "actor.json";

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(vec![
        catalog::entry(w),
        geometry::of_block(w),
        mesh::of_block(w),
    ])
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(catalog::MANIFEST);
    let entry = forge_contract::parse_entry(&file, step.pack, text(inputs, "entry.json", &file)?)?;
    let geometry_file = source_file(geometry::SOURCE);
    let geometry = forge_contract::geometry::parse_block(
        &geometry_file,
        text(inputs, geometry::SHIPPED_AS, &geometry_file)?,
    )?;
    let mesh = mesh::read(inputs, &file)?;
    surface_slots_exist(&entry, &mesh)?;
    debug_assert_eq!(entry.id, block(step));
    let actor = forge_actor::cook(step.pack, &entry, geometry.origin, mesh.offset_cm);
    Ok(vec![(OUTPUT.to_string(), actor.to_json())])
}

/// Each surface the catalog declares must name a material of the block's model: a slot
/// that names none would style nothing, silently.
fn surface_slots_exist(
    entry: &forge_contract::Entry,
    mesh: &forge_mesh::StaticMesh,
) -> Result<(), Vec<forge_contract::Diagnostic>> {
    let materials: Vec<&str> = mesh.sections.iter().map(|s| s.material.as_str()).collect();
    let missing: Vec<forge_contract::Diagnostic> = entry
        .surfaces
        .iter()
        .filter(|s| !materials.contains(&s.slot.as_str()))
        .map(|s| {
            super::finding(
                "unknown_surface_slot",
                &source_file(catalog::MANIFEST),
                format!(
                    "block {:?}: surface slot {:?} is not a material of source/models/{}.*; its materials are {materials:?}",
                    entry.id, s.slot, entry.id
                ),
            )
        })
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}
