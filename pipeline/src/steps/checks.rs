//! `checks`: ray-checks a block's cooked collision and placed mesh against what its
//! geometry and catalog entry declare. An unwaived failure fails the step, one finding
//! each; the report is shipped as `cooked/<block>/checks.json`.

use forge_contract::Diagnostic;

use super::{
    block, catalog, collision, finding, geometry, label, mesh, mopp, pretty, text, Cooked, Inputs,
    Lands, Names, Scope, StepKind, Wired,
};
use crate::graph::Step;
use crate::wiring::Wiring;

pub static KIND: StepKind = StepKind {
    name: "checks",
    version: forge_checks::VERSION,
    scope: Scope::Block,
    lands: Lands::Cooked,
    outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
    wire,
    cook,
};

pub const OUTPUT: &str = "checks.json";

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(vec![
        geometry::of_block(w),
        catalog::entry(w),
        collision::of_block(w),
        mopp::of_block(w),
        mesh::of_block(w),
    ])
}

fn cook(step: &Step, inputs: &Inputs) -> Cooked {
    let file = label(step, geometry::SOURCE);
    let block = collision::source_block(step, inputs)?;
    let entry = forge_contract::parse_entry(&file, &step.pack, text(inputs, "entry.json", &file)?)?;
    let model = collision::read(inputs, &file)?;
    let index = mopp::read(inputs, &file)?;
    let mesh = mesh::read(inputs, &file)?;
    let source = forge_collision::reference::SourceShapes::new(
        block.hulls.iter().map(|h| h.points.as_slice()),
    )
    .ok_or_else(|| {
        vec![finding(
            "bad_intermediate",
            &file,
            format!(
                "block {:?}: parry3d could not build the source hulls",
                block.id
            ),
        )]
    })?;
    let report = forge_checks::run(&forge_checks::Inputs {
        block: &block,
        dimensions_m: entry.dimensions_m,
        model: &model,
        index: &index,
        visual_bounds_m: mesh.placed_bounds_m(),
        source: &source,
    });
    let blocking: Vec<Diagnostic> = report
        .blocking()
        .map(|c| blocking_finding(step, &file, c))
        .collect();
    if !blocking.is_empty() {
        return Err(blocking);
    }
    Ok(vec![(
        OUTPUT.to_string(),
        pretty(&serde_json::to_value(&report).expect("a report serializes")),
    )])
}

/// A failed check as a finding: which check, why, and the first ray that showed it.
fn blocking_finding(step: &Step, file: &str, c: &forge_checks::CheckResult) -> Diagnostic {
    let failure = c.failure.as_ref().expect("a failed check has a failure");
    let ray = failure
        .ray
        .as_ref()
        .map(|r| {
            format!(
                "; first failing ray from {:?} along {:?}",
                r.origin_m, r.direction
            )
        })
        .unwrap_or_default();
    let hit = failure
        .hit
        .as_ref()
        .map(|h| {
            format!(
                ", which hit hull {:?} (surface {}) at {:.4} m",
                h.hull, h.surface, h.distance_m
            )
        })
        .unwrap_or_default();
    finding(
        failure.code,
        file,
        format!(
            "{}/{}: check {} {:?}: {}{ray}{hit}",
            step.pack,
            block(step),
            c.check,
            c.name,
            failure.message
        ),
    )
}
