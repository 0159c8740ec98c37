//! `import`: a block's glTF or GLB model, with the external buffers it names, into pack
//! space (`FGIM`).

use std::collections::BTreeMap;

use super::coded::diagnostic;
use super::common::source_file;
use super::kind::{Lands, Scope};
use crate::graph::Input;
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "import",
        version: forge_gltf::VERSION,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::Nowhere,
    wire,
};

pub const OUTPUT: &str = "mesh.fgim";
const MODELS: &str = "source/models";

/// The model and its buffers are sources; the model's path is the step's parameter, so
/// the adapter knows which input is the model.
fn wire(w: &Wiring) -> Option<Wired> {
    let (model, inputs) = model(w);
    Some(Wired {
        inputs,
        params: model,
    })
}

/// A block's model (its path in the pack) and the inputs that carry it: the model and the
/// buffers it names, or the blend step's export when it is made from a `.blend`.
pub fn model(w: &Wiring) -> (String, Vec<Input>) {
    let block = w.block();
    if super::blend::source(w).is_some() {
        let model = format!("{MODELS}/{block}.glb");
        let input = w.upstream(model.clone(), &super::blend::KIND, super::blend::OUTPUT);
        return (model, vec![input]);
    }
    let glb = format!("{block}.glb");
    let gltf = format!("{block}.gltf");
    let models = w.models();
    if models.contains(&glb) && !models.contains(&gltf) {
        let model = format!("{MODELS}/{glb}");
        let input = w.source(&model);
        return (model, vec![input]);
    }
    let model = format!("{MODELS}/{gltf}");
    let mut inputs = vec![w.source(&model)];
    inputs.extend(buffers(w, &model).iter().map(|rel| w.source(rel)));
    (model, inputs)
}

/// A block's model as its author knows it: the `.blend` it is exported from, else its
/// glTF or GLB (relative to the pack).
pub fn authored(w: &Wiring) -> String {
    super::blend::source(w).unwrap_or_else(|| model(w).0)
}

/// The external buffers a `.gltf` names, relative to the pack. The list is a fact of the
/// file's content, remembered by the stat cache under this importer's version.
pub fn buffers(w: &Wiring, model: &str) -> Vec<String> {
    named_files(w, model, KIND.name, forge_gltf::external_uris)
}

/// The external images a `.gltf` names that are there, relative to the pack: previews
/// read them; a missing one leaves its material untextured.
/// The block's model and the images it names beside it (a `.blend`'s export carries its
/// own): what a step that shows the model's materials reads.
pub fn model_with_images(w: &Wiring) -> (String, Vec<Input>) {
    let (model, mut inputs) = model(w);
    if super::blend::source(w).is_none() {
        inputs.extend(images(w, &model).iter().map(|rel| w.source(rel)));
    }
    (model, inputs)
}

/// The model's materials (base colour, texture, sidedness, blending), from the inputs
/// [`model_with_images`] wired.
pub fn materials(
    inputs: &Inputs,
    model_name: &str,
) -> Result<Vec<forge_gltf::MaterialLook>, Vec<forge_contract::Diagnostic>> {
    let file = source_file(model_name);
    let (model, external) = model_and_buffers(inputs, model_name, &file)?;
    forge_gltf::looks(&file, model, &external).map_err(|e| super::coded::diagnostic(&file, &e))
}

pub fn images(w: &Wiring, model: &str) -> Vec<String> {
    named_files(w, model, "images", forge_gltf::image_uris)
        .into_iter()
        .filter(|rel| w.has_source(rel))
        .collect()
}

type NamedUris = fn(&str, &[u8]) -> Result<Vec<String>, forge_gltf::ImportError>;

fn named_files(w: &Wiring, model: &str, deriver: &str, uris: NamedUris) -> Vec<String> {
    let path = w.sources.pack.dir.join(model);
    w.stat_cache()
        .derived(&path, deriver, KIND.version, |bytes| {
            uris(model, bytes).unwrap_or_default()
        })
        .unwrap_or_default()
        .into_iter()
        .map(|uri| forge_gltf::uri_to_relative_path(&uri))
        // A URI may only name a file beside the model or below it.
        .filter(|rel| super::is_plain_relative(rel))
        .map(|rel| format!("{MODELS}/{rel}"))
        .collect()
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let model_name = step.params;
    let file = source_file(model_name);
    let (model, external) = model_and_buffers(inputs, model_name, &file)?;
    let mesh = forge_gltf::import(&file, model, &external).map_err(|e| diagnostic(&file, &e))?;
    Ok(vec![(OUTPUT.to_string(), mesh.to_bytes())])
}

/// A model's bytes and the buffers it names, by URI.
pub type Model<'a> = (&'a [u8], BTreeMap<String, Vec<u8>>);

/// A model input and the files it names (buffers, images), from the inputs beside it.
pub fn model_and_buffers<'a>(
    inputs: &'a Inputs,
    model_name: &str,
    file: &str,
) -> Result<Model<'a>, Vec<forge_contract::Diagnostic>> {
    let model = inputs
        .get(model_name)
        .ok_or_else(|| vec![finding("missing_input", file, "the model is missing")])?;
    let prefix = model_name
        .rsplit_once('/')
        .map_or(String::new(), |(dir, _)| format!("{dir}/"));
    let beside: BTreeMap<&str, &[u8]> = inputs
        .iter()
        .filter(|(name, _)| name.as_str() != model_name)
        .filter_map(|(name, bytes)| Some((name.strip_prefix(&prefix)?, bytes.as_slice())))
        .collect();
    // The buffers, and the images for previews: whichever of them the step was given.
    let mut uris = forge_gltf::external_uris(file, model).map_err(|e| diagnostic(file, &e))?;
    uris.extend(forge_gltf::image_uris(file, model).map_err(|e| diagnostic(file, &e))?);
    let external = uris
        .into_iter()
        .filter_map(|uri| {
            let bytes = beside.get(forge_gltf::uri_to_relative_path(&uri).as_str())?;
            Some((uri, bytes.to_vec()))
        })
        .collect();
    Ok((model.as_slice(), external))
}
