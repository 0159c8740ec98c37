//! `blend`: a block's `source/models/<block>.blend`, exported headless by Blender to GLB
//! with fixed settings, for `import` to read. Planned when the block has a `.blend` and no
//! `.gltf` or `.glb`; the Blender version is a parameter, so it is in the key.

use serde_json::json;

use super::common::{input, source_file};
use super::kind::{Lands, Scope};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "blend",
        version: 1,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Nowhere,
    wire,
};

pub const OUTPUT: &str = "model.glb";

/// The `.blend` this block is made from, when it has no glTF model.
pub fn source(w: &Wiring) -> Option<String> {
    let block = w.block();
    let models = w.models();
    let exported =
        models.contains(&format!("{block}.gltf")) || models.contains(&format!("{block}.glb"));
    let blend = format!("{block}.blend");
    (!exported && models.contains(&blend)).then(|| format!("source/models/{blend}"))
}

fn wire(w: &Wiring) -> Option<Wired> {
    let blend = source(w)?;
    let version = crate::blender::found().map(|(_, v)| v.clone());
    Some(Wired {
        params: json!({"source": blend, "blender": version}).to_string(),
        inputs: vec![w.source(&blend)],
    })
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let params: serde_json::Value = serde_json::from_str(step.params).unwrap_or_default();
    let rel = params["source"].as_str().unwrap_or_default();
    let file = source_file(rel);
    let blend = input(inputs, rel, &file)?;
    let glb = crate::blender::export(blend)
        .map_err(|why| vec![finding("blender_export", &file, why.to_string())])?;
    Ok(vec![(OUTPUT.to_string(), glb)])
}
