//! `checks`: ray-checks a block's cooked collision and placed mesh against what its
//! geometry and catalog entry declare. An unwaived failure fails the step, one finding
//! each; the report is shipped as `cooked/<block>/checks.json`.

use forge_contract::Diagnostic;

use super::common::{block, pretty, source_file, text};
use super::kind::{Lands, Scope};
use super::{catalog, collision, geometry, mesh, mopp};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "checks",
        version: forge_checks::VERSION,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Cooked,
    wire,
};

pub const OUTPUT: &str = "checks.json";

/// The parameter is the block's model as its author knows it, for findings about it.
fn wire(w: &Wiring) -> Option<Wired> {
    Some(Wired {
        params: super::import::authored(w),
        inputs: inputs(w),
    })
}

/// What the checks read: the block's declarations, its cooked collision and mesh.
pub fn inputs(w: &Wiring) -> Vec<crate::graph::Input> {
    vec![
        geometry::of_block(w),
        super::block_geometry::fields_of_block(w),
        catalog::entry(w),
        collision::of_block(w),
        mopp::of_block(w),
        mesh::of_block(w),
    ]
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(geometry::SOURCE);
    let (block, report) = run(step, inputs, &file)?;
    let blocking = findings(step, inputs, (&file, step.params), &block, &report);
    if !blocking.is_empty() {
        return Err(blocking);
    }
    Ok(vec![(
        OUTPUT.to_string(),
        pretty(&serde_json::to_value(&report).expect("a report serializes")),
    )])
}

/// Runs every check of a block on its step's inputs (the ones `wire` lists): the block's
/// declarations and its report. Previews run it too, so a failing block is still drawn.
pub fn run(
    step: &CookCtx,
    inputs: &Inputs,
    file: &str,
) -> Result<(forge_contract::BlockGeometry, forge_checks::BlockReport), Vec<Diagnostic>> {
    with_check_inputs(step, inputs, file, forge_checks::run)
}

/// Calls `checking` with what the checks read, built from the step's inputs; the 3D view
/// traces every ray through the same.
pub fn with_check_inputs<T>(
    step: &CookCtx,
    inputs: &Inputs,
    file: &str,
    checking: impl FnOnce(&forge_checks::Inputs) -> T,
) -> Result<(forge_contract::BlockGeometry, T), Vec<Diagnostic>> {
    let block = collision::source_block(inputs)?;
    let entry = forge_contract::parse_entry(file, step.pack, text(inputs, "entry.json", file)?)?;
    let model = collision::read(inputs, file)?;
    let index = mopp::read(inputs, file)?;
    let mesh = mesh::read(inputs, file)?;
    let source = forge_collision::reference::SourceShapes::try_new(
        block.hulls.iter().map(|h| h.points.as_slice()),
    )
    .map_err(|i| vec![unbuildable_hull(file, &block, i)])?;
    // Glass and portal surfaces are meant to fill an opening: only the solid rest counts.
    let see_through: Vec<&str> = entry.surfaces.iter().map(|s| s.slot.as_str()).collect();
    let triangles: Vec<[[f64; 3]; 3]> = mesh
        .sections
        .iter()
        .filter(|s| !see_through.contains(&s.material.as_str()))
        .flat_map(|s| {
            let range =
                s.first_triangle as usize..s.first_triangle as usize + s.triangle_count as usize;
            mesh.triangles.get(range).unwrap_or_default()
        })
        .map(|t| t.map(|i| mesh.placed_m(mesh.positions[i as usize])))
        .collect();
    let checked = checking(&forge_checks::Inputs {
        block: &block,
        dimensions_m: entry.dimensions_m,
        model: &model,
        index: &index,
        visual_bounds_m: mesh.placed_bounds_m(),
        visual_triangles_m: &triangles,
        source: &source,
    });
    Ok((block, checked))
}

/// One finding per unwaived failed check.
/// `files` are `geometry.json` and the block's model, as the findings name them.
pub fn findings(
    step: &CookCtx,
    inputs: &Inputs,
    files: (&str, &str),
    block: &forge_contract::BlockGeometry,
    report: &forge_checks::BlockReport,
) -> Vec<Diagnostic> {
    report
        .blocking()
        .map(|c| {
            let found = blocking_finding(step, files, block, c);
            from_the_model(found, super::block_geometry::model_of(inputs, c.check))
        })
        .collect()
}

/// A finding about a declaration the model suggested (no entry field gives it) is placed
/// at the model, and says how to take it over by hand.
fn from_the_model(mut found: Diagnostic, model: Option<String>) -> Diagnostic {
    if let Some(model) = model.filter(|_| !found.pointer.is_empty()) {
        found.file = model;
        found.pointer = String::new();
        found.message.push_str(
            "; this declaration comes from the model: fix the model, or write the field in the block's entry in source/geometry.json to override it",
        );
    }
    found
}

/// A hull the reference engine cannot build: an input problem, named by hull and point.
fn unbuildable_hull(file: &str, block: &forge_contract::BlockGeometry, i: usize) -> Diagnostic {
    let hull = &block.hulls[i];
    let n = hull.points.len() as f64;
    let centre = [0, 1, 2].map(|a| hull.points.iter().map(|p| p[a]).sum::<f64>() / n);
    let distance = |p: &[f64; 3]| (0..3).map(|a| (p[a] - centre[a]).powi(2)).sum::<f64>();
    let (far, point) = hull
        .points
        .iter()
        .enumerate()
        .max_by(|a, b| distance(a.1).total_cmp(&distance(b.1)))
        .expect("a hull has points");
    finding(
        "bad_hull",
        file,
        format!(
            "block {:?}, hull {:?}: its points do not make a solid convex shape the checks can use; point {far} (hulls[{i}].points[{far}] = [{}, {}, {}]) lies farthest from the rest: is it a typo?",
            block.id, hull.name, point[0], point[1], point[2]
        ),
    )
}

/// A point or direction to the millimetre: `(-0.550, 2.000, 0.100)`.
fn millimetres(p: [f64; 3]) -> String {
    format!("({:.3}, {:.3}, {:.3})", p[0], p[1], p[2])
}

/// A failed check as a finding: which check, why, and the first ray that showed it.
fn blocking_finding(
    step: &CookCtx,
    (file, model): (&str, &str),
    geometry: &forge_contract::BlockGeometry,
    c: &forge_checks::CheckResult,
) -> Diagnostic {
    let failure = c.failure.as_ref().expect("a failed check has a failure");
    let ray = failure
        .ray
        .as_ref()
        .map(|r| {
            format!(
                "; first failing ray from {} along {}",
                millimetres(r.origin_m),
                millimetres(r.direction)
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
    // An opening the model closes is both files' business: name the model too.
    let model = source_file(model);
    let also = if failure.code == "aperture_blocked_visual" {
        format!(" (the model: {model})")
    } else {
        String::new()
    };
    // A model's export mistake is the model's, not the declaration's.
    let file = if failure.code.starts_with("model_") {
        &model
    } else {
        file
    };
    let mut found = finding(
        failure.code,
        file,
        format!(
            "{}/{}: check {} {:?}: {}{also}{ray}{hit}",
            step.pack,
            block(step),
            c.check,
            c.name,
            failure.message
        ),
    );
    if failure.code == "size_mismatch" {
        // The size is the catalog's: that is where it is declared and changed.
        found.file = source_file(catalog::MANIFEST);
        found.pointer = format!("/forge_pack/blocks/{}/dimensions_m", geometry.id);
    } else if !failure.code.starts_with("model_") {
        found.pointer = declaration(geometry, c);
    }
    found
}

/// Where the failed check's declaration is, by the block's id (the cook turns the id into
/// the block's index and a line once it has the whole `geometry.json`).
fn declaration(g: &forge_contract::BlockGeometry, c: &forge_checks::CheckResult) -> String {
    let at = format!("/blocks/{}", g.id);
    let index = match c.check {
        "apertures" => g.apertures.iter().position(|a| a.name == c.name),
        "supports" => g.supports.iter().position(|s| s.name == c.name),
        "joins" => g.joins.iter().position(|j| j.name == c.name),
        "connectors" => {
            return match c.name.strip_prefix("branch_") {
                Some(k) => format!("{at}/connectors/branches/{k}"),
                None => format!("{at}/connectors/{}", c.name),
            }
        }
        _ => return at,
    };
    index.map_or(at.clone(), |i| format!("{at}/{}/{i}", c.check))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unbuildable_hull_is_named_with_its_farthest_point() {
        let text = r#"{"id": "slab", "origin": "bottom_centre", "hulls": [{"name": "top", "material": "steel",
            "points": [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0], [900, 0, 0]]}]}"#;
        let block =
            forge_contract::geometry::parse_block("demo/source/geometry.json", text).unwrap();
        // Every point on one line: no solid to build.
        let points = [block.hulls[0].points.as_slice()];
        let failed = forge_collision::reference::SourceShapes::try_new(points).err();
        assert_eq!(failed, Some(0));
        let d = unbuildable_hull("demo/source/geometry.json", &block, 0);
        assert_eq!(d.code, "bad_hull");
        assert!(
            d.message.contains("hull \"top\"") && d.message.contains("points[4] = [900, 0, 0]"),
            "{}",
            d.message
        );
    }
}
