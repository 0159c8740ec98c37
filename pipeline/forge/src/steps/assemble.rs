//! `assemble`: the pack's IoStore container for a set. Its `.ucas` is spliced
//! (`engine::splice`): a recipe over every block's packed data, so the step never reads
//! those bytes and an edit stores one block's data, not a new `.ucas`. The set's documents
//! (its catalog, inventory and checks report) are a step of their own (`documents`), made
//! beside this one from other inputs.

use serde::Deserialize;
use serde_json::json;

use super::coded::diagnostic;
use super::common::{params, source_file};
use super::kind::{Lands, Scope};
use super::{catalog, donors, unreal_material};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use forge_contract::Diagnostic;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "assemble",
        // 3: the `.ucas` recipe is bound to its blocks' bytes (`MJSP` v2), so an old
        // recipe, which named them only, is never read again. 4: the set's documents are
        // `documents`' outputs.
        version: 4,
        outputs: Names::Dynamic,
        runs_under_check: false,
        splices: Some(&SPLICING),
        cook,
    },
    scope: Scope::Set,
    lands: Lands::SetRoot,
    wire,
};

/// The `.ucas` is spliced from the blocks' packed data (`<block>/chunks/chunks.data`).
static SPLICING: engine::Splicing = engine::Splicing {
    output: |name| name.ends_with(".ucas"),
    source: super::block_chunks::is_data_input,
};

#[derive(Deserialize)]
struct Params {
    blocks: Vec<String>,
}

/// The input a donor is known by.
pub fn donor_input(output: &str) -> String {
    format!("donor/{output}")
}

/// The input a block's shipped output is known by: `<block>/<file>`.
pub fn block_input(block: &str, file: &str) -> String {
    format!("{block}/{file}")
}

/// A block's Unreal packages, as inputs named `<block>/<file>`, in container order: the
/// outputs of every kind that lands as a package, in registry order, then the material
/// instances (which exist only in a cook with donors, and are named as they cook).
pub fn block_packages(w: &Wiring, block: &str) -> (Vec<String>, Vec<crate::graph::Input>) {
    // This block's alone: asking for the whole set's, per block, would be quadratic.
    let own = [block.to_string()];
    block_packages_of(
        w,
        block,
        &crate::wiring::shipped(w.registry, w.planned, &own),
    )
}

/// [`block_packages`], from the block's shipped outputs as the caller found them.
pub fn block_packages_of(
    w: &Wiring,
    block: &str,
    shipped: &[crate::wiring::Shipped],
) -> (Vec<String>, Vec<crate::graph::Input>) {
    let mut names = Vec::new();
    let mut inputs = Vec::new();
    for shipped in shipped.iter().filter(|s| s.package) {
        let name = block_input(block, &shipped.file);
        names.push(name.clone());
        inputs.push(crate::graph::Input::Upstream {
            name,
            step: shipped.step,
            output: shipped.output.clone(),
        });
    }
    if w.options.donors.is_some() {
        let w = w.for_block(block);
        for (slot, _) in unreal_material::of_block(&w) {
            let output = unreal_material::output(block, &slot);
            if let Some(step) = w.planned.step(&unreal_material::KIND, Some(block)) {
                let name = block_input(block, &output);
                names.push(name.clone());
                inputs.push(crate::graph::Input::Upstream { name, step, output });
            }
        }
    }
    (names, inputs)
}

/// Each block's packed container chunks (`block_chunks`): nothing else of the set. In a
/// grouped set the indexes come a group at a time (`block_group`), and each block's data,
/// which the `.ucas` is spliced from and which is never read, from the block.
fn wire(w: &Wiring) -> Option<Wired> {
    let set = w.set();
    let inputs = match w.groups(&super::block_group::KIND, super::block_group::INDEXES) {
        Some(groups) => groups
            .into_iter()
            .chain(
                set.blocks
                    .iter()
                    .map(|block| super::block_chunks::data_of_block(w, block)),
            )
            .collect(),
        None => set
            .blocks
            .iter()
            .flat_map(|block| super::block_chunks::of_block(w, block))
            .collect(),
    };
    let params = json!({"set": set.name, "blocks": set.blocks});
    Some(Wired {
        params: params.to_string(),
        inputs,
    })
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let params: Params = params(step, &source_file(catalog::MANIFEST))?;
    container(step, &params, inputs)
}

/// The container, laid out from each block's packed chunk index (`block_chunks`): nothing
/// is compressed here but the container header, and the `.ucas` is a recipe over each
/// block's packed data.
fn container(step: &CookCtx, params: &Params, inputs: &Inputs) -> Cooked {
    use forge_release::container::UcasPiece;
    let file = source_file(catalog::MANIFEST);
    let indexes = super::block_group::per_block(
        inputs,
        &params.blocks,
        (
            super::block_group::INDEXES,
            super::block_chunks::index_input,
        ),
        &file,
    )?;
    let blocks: Vec<_> = {
        use rayon::prelude::*;
        let read: Vec<_> = indexes
            .par_iter()
            .map(|index| super::block_chunks::read(index, &file))
            .collect();
        read.into_iter().collect::<Result<_, _>>()?
    };
    let layout =
        forge_release::container::lay_out(step.pack, &blocks).map_err(|e| diagnostic(&file, &e))?;
    let mut ucas = engine::Recipe::default();
    for piece in &layout.ucas {
        match piece {
            UcasPiece::Block {
                block,
                offset,
                length,
            } => {
                let data = super::block_chunks::input_name(
                    &params.blocks[*block],
                    super::block_chunks::DATA,
                );
                ucas.copy(&data, *offset, *length);
            }
            UcasPiece::Literal(bytes) => ucas.literal(bytes),
        }
    }
    let [utoc_name, ucas_name, pak_name] = forge_release::container::container_files(step.pack);
    Ok(vec![
        (utoc_name, layout.utoc),
        (ucas_name, ucas.to_bytes()),
        (pak_name, layout.pak),
    ])
}

/// The packages the donors import (their materials, say): what an Unreal package of the
/// set may import from outside the pack's namespace.
pub fn shipped(inputs: &Inputs, file: &str) -> Result<Vec<String>, Vec<Diagnostic>> {
    let mut shipped = Vec::new();
    for role in donors::ROLES {
        if let Some(bytes) = inputs.get(&donor_input(role.output)) {
            let package = forge_package::Package::read(bytes).map_err(|e| diagnostic(file, &e))?;
            shipped.extend(package.header.imported_packages);
        }
    }
    Ok(shipped)
}
