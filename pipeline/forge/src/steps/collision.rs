//! `collision`: a block's source hulls become its collision model (`FCOL`), one BSP per
//! hull in the game's tables.

use forge_collision::CollisionError;
use forge_contract::Diagnostic;

use super::common::{bad_intermediate, block, input, source_file, text};
use super::geometry;
use super::kind::{Lands, Scope};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "collision",
        version: forge_collision::BSP_VERSION,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Cooked,
    wire,
};

pub const OUTPUT: &str = "collision.fcol";

/// This block's collision model, as input `collision.fcol`.
pub fn of_block(w: &Wiring) -> crate::graph::Input {
    w.upstream(OUTPUT, &KIND, OUTPUT)
}

/// Reads a collision model input back.
pub fn read(
    inputs: &Inputs,
    file: &str,
) -> Result<forge_collision::CollisionModel, Vec<Diagnostic>> {
    forge_collision::CollisionModel::from_bytes(input(inputs, OUTPUT, file)?)
        .map_err(|e| bad_intermediate(file, "collision", e))
}

/// The block's source geometry, for the kinds that cook from the hulls.
pub fn source_block(inputs: &Inputs) -> Result<forge_contract::BlockGeometry, Vec<Diagnostic>> {
    let file = source_file(geometry::SOURCE);
    forge_contract::geometry::parse_block(&file, text(inputs, geometry::SHIPPED_AS, &file)?)
}

/// A collision cooker's error, placed at the block and hull it is about: in
/// `geometry.json`, or at the model's `UCX_` node when the hulls came from the model.
pub fn located(step: &CookCtx, inputs: &Inputs, e: CollisionError) -> Vec<Diagnostic> {
    let (file, hull) = match super::block_geometry::model_of(inputs, "hulls") {
        Some(model) => (model, e.hull.map(|h| format!(", node UCX_{h}"))),
        None => (
            source_file(geometry::SOURCE),
            e.hull.map(|h| format!(", hull {h:?}")),
        ),
    };
    vec![finding(
        e.code,
        &file,
        format!(
            "block {:?}{}: {}",
            block(step),
            hull.unwrap_or_default(),
            e.message
        ),
    )]
}

/// What the collision kinds read: the block's geometry and where its fields came from.
pub fn inputs(w: &Wiring) -> Vec<crate::graph::Input> {
    vec![
        geometry::of_block(w),
        super::block_geometry::fields_of_block(w),
    ]
}

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(inputs(w))
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let geometry = source_block(inputs)?;
    let model = forge_collision::cook_bsp(&geometry).map_err(|e| located(step, inputs, e))?;
    Ok(vec![(OUTPUT.to_string(), model.to_bytes())])
}
