//! `mesh`: an imported mesh becomes the block's static mesh (`FMSH`): Unreal units,
//! re-centred, namespaced.

use super::coded::diagnostic;
use super::common::{bad_intermediate, block, input, source_file};
use super::import;
use super::kind::{Lands, Scope};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "mesh",
        version: forge_mesh::VERSION,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Cooked,
    wire,
};

pub const OUTPUT: &str = "static_mesh.fmsh";

/// This block's static mesh, as input `static_mesh.fmsh`.
pub fn of_block(w: &Wiring) -> crate::graph::Input {
    w.upstream(OUTPUT, &KIND, OUTPUT)
}

fn wire(w: &Wiring) -> Option<Wired> {
    Wired::inputs(vec![w.upstream(
        import::OUTPUT,
        &import::KIND,
        import::OUTPUT,
    )])
}

/// Reads a static mesh input back.
pub fn read(
    inputs: &Inputs,
    file: &str,
) -> Result<forge_mesh::StaticMesh, Vec<forge_contract::Diagnostic>> {
    forge_mesh::StaticMesh::from_bytes(input(inputs, OUTPUT, file)?)
        .map_err(|e| bad_intermediate(file, "mesh", e))
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let block = block(step);
    let file = source_file(&format!("source/models/{block}"));
    let imported = forge_gltf::ImportedMesh::from_bytes(input(inputs, import::OUTPUT, &file)?)
        .map_err(|e| bad_intermediate(&file, "imported mesh", e))?;
    let mesh = forge_mesh::cook(step.pack, block, &imported).map_err(|e| diagnostic(&file, &e))?;
    Ok(vec![(OUTPUT.to_string(), mesh.to_bytes())])
}
