//! `tags`: a block's crate, model, physics_model and collision_model tags, named
//! `<block>.<group extension>`.

use super::common::{bad_intermediate, block, input, source_file};
use super::kind::{Lands, Scope};
use super::{collision, geometry, polyhedra};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "tags",
        version: forge_tags::VERSION,
        outputs: Names::Fixed(outputs),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Cooked,
    wire,
};

/// The groups a block has a tag of, in container order.
pub const GROUPS: [[u8; 4]; 4] = [
    forge_tags::CRATE,
    forge_tags::MODEL,
    forge_tags::PHYSICS_MODEL,
    forge_tags::COLLISION_MODEL,
];

/// A block's tag of `group`: `<block>.<extension>`.
pub fn output(block: &str, group: &[u8; 4]) -> String {
    format!("{block}.{}", forge_tags::extension(group))
}

fn outputs(block: &str) -> Vec<String> {
    GROUPS.iter().map(|g| output(block, g)).collect()
}

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(vec![
        collision::of_block(w),
        w.upstream(polyhedra::OUTPUT, &polyhedra::KIND, polyhedra::OUTPUT),
    ])
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let block = block(step);
    let file = source_file(geometry::SOURCE);
    let model = collision::read(inputs, &file)?;
    let polyhedra =
        forge_collision::polyhedron::from_bytes(input(inputs, polyhedra::OUTPUT, &file)?)
            .map_err(|e| bad_intermediate(&file, "polyhedra", e))?;
    let (lo, hi) = model.bounds_m().unwrap_or(([0.0; 3], [0.0; 3]));
    let bounds = (forge_units::pack_to_blam(lo), forge_units::pack_to_blam(hi));
    let tags = forge_tags::block_tags(step.pack, block, bounds, &model, &polyhedra)
        .map_err(|e| bad_intermediate(&file, "tags", e))?;
    Ok(tags
        .into_iter()
        .map(|(group, bytes)| (output(block, &group), bytes))
        .collect())
}
