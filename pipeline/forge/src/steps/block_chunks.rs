//! `block_chunks`: a block's share of its set's container, packed once. Its Unreal packages
//! (each checked against the namespace rule) and its tags, cut into compression blocks and
//! zlib-packed: their index with the container header's store entry of each package
//! (`index.fblk`), and their blocks (`chunks.data`, as the `.ucas` holds them). The set's `assemble` then
//! lays the container out from every block's index without compressing anything, and its
//! `.ucas` is spliced from every block's data: a one-block edit compresses one block, and
//! stores one block's data.

use serde_json::{json, Value};

use super::assemble;
use super::coded::diagnostic;
use super::common::{input, source_file};
use super::kind::{Lands, Scope};
use super::{catalog, donors, tags};
use crate::graph::Input;
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "block_chunks",
        version: 3,
        outputs: Names::Fixed(|_| OUTPUTS.map(String::from).to_vec()),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Nowhere,
    wire,
};

/// The packages' and the tags' indexes and the store entries, in one file (`FBLK`,
/// `forge_release::container::IndexedBlockChunks`): what `assemble` reads of the block.
pub const INDEX: &str = "index.fblk";
/// The packed blocks of both indexes, each padded to 16 bytes: what `assemble` splices.
pub const DATA: &str = "chunks.data";
const OUTPUTS: [&str; 2] = [INDEX, DATA];

/// This block's outputs of this kind, as inputs named `<block>/<output>`.
pub fn of_block(w: &Wiring, block: &str) -> Vec<Input> {
    OUTPUTS
        .iter()
        .map(|output| w.upstream_of(Some(block), input_name(block, output), &KIND, *output))
        .collect()
}

/// This block's index alone, as input `<block>/chunks/index.fblk`: what its group reads.
pub fn index_of_block(w: &Wiring, block: &str) -> Input {
    w.upstream_of(Some(block), index_input(block), &KIND, INDEX)
}

/// This block's data alone, as input `<block>/chunks/chunks.data`: what `assemble` splices
/// in a grouped set, whose indexes it reads a group at a time.
pub fn data_of_block(w: &Wiring, block: &str) -> Input {
    w.upstream_of(Some(block), input_name(block, DATA), &KIND, DATA)
}

/// `<block>/chunks/index.fblk`.
pub fn index_input(block: &str) -> String {
    input_name(block, INDEX)
}

/// Whether an input name is a block's `chunks.data` (`<block>/chunks/chunks.data`).
pub fn is_data_input(name: &str) -> bool {
    name.strip_suffix(DATA)
        .is_some_and(|rest| rest.ends_with("/chunks/"))
}

/// `<block>/chunks/<output>`: `assemble` leaves these out of the set's inventory.
pub fn input_name(block: &str, output: &str) -> String {
    format!("{block}/chunks/{output}")
}

fn wire(w: &Wiring) -> Option<Wired> {
    let block = w.block();
    let (packages, mut inputs) = assemble::block_packages(w, block);
    for group in &tags::GROUPS {
        let output = tags::output(block, group);
        inputs.push(w.upstream(output.clone(), &tags::KIND, output));
    }
    for role in donors::ROLES {
        inputs.extend(donors::of_pack(
            w,
            &assemble::donor_input(role.output),
            role,
        ));
    }
    Some(Wired {
        params: json!({"packages": packages}).to_string(),
        inputs,
    })
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let block = super::common::block(step);
    let file = source_file(catalog::MANIFEST);
    let params: Value = serde_json::from_str(step.params).unwrap_or_default();
    let packages = params["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|name| input(inputs, name, &file))
        .collect::<Result<Vec<_>, _>>()?;
    let mut block_tags = Vec::new();
    for group in &tags::GROUPS {
        block_tags.push((
            forge_tags::extension(group),
            input(inputs, &tags::output(block, group), &file)?,
        ));
    }
    let content = forge_release::container::BlockContent {
        id: block,
        packages,
        tags: block_tags,
    };
    let shipped = assemble::shipped(inputs, &file)?;
    let chunks = forge_release::container::block_chunks(step.pack, &content, &shipped)
        .map_err(|e| vec![finding(e.code, &file, e.message)])?;
    let (index, data) = forge_release::container::pack_block(chunks);
    Ok(vec![
        (INDEX.to_string(), index.to_bytes()),
        (DATA.to_string(), data),
    ])
}

/// A block's packed chunk index, read back from this kind's outputs among `inputs`; its
/// data is not read.
pub fn read(
    index: &[u8],
    file: &str,
) -> Result<forge_release::container::IndexedBlockChunks, Vec<findings::Diagnostic>> {
    forge_release::container::IndexedBlockChunks::from_bytes(index)
        .map_err(|e| diagnostic(file, &e))
}
