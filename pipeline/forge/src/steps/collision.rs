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

/// A collision cooker's error, placed at the block and hull it is about.
pub fn located(step: &CookCtx, e: CollisionError) -> Vec<Diagnostic> {
    let hull = e.hull.map(|h| format!(", hull {h:?}")).unwrap_or_default();
    vec![finding(
        e.code,
        &source_file(geometry::SOURCE),
        format!("block {:?}{hull}: {}", block(step), e.message),
    )]
}

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(vec![geometry::of_block(w)])
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let geometry = source_block(inputs)?;
    let model = forge_collision::cook_bsp(&geometry).map_err(|e| located(step, e))?;
    Ok(vec![(OUTPUT.to_string(), model.to_bytes())])
}
