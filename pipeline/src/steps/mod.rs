//! The step kinds, one file each, in flow order. A kind declares its name, its version
//! (part of every key it makes), its scope, where its outputs land in a set folder, how
//! its inputs are wired, and the adapter that calls its cooker crate.
//!
//! Adding a kind is one file here and one line in [`REGISTRY`]; nothing else matches on
//! a kind. The planner (`plan`) walks the registry in order, so a kind may wire itself to
//! any kind listed before it.

use std::fmt;

use forge_contract::Diagnostic;
use serde_json::Value;

pub use engine::cooker::is_plain_relative;
pub use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
pub use findings::finding;

use crate::graph::Input;
use crate::wiring::Wiring;

pub mod actor;
pub mod archive;
pub mod assemble;
pub mod asset_copy;
pub mod asset_derive;
pub mod asset_emit;
pub mod blend;
pub mod catalog;
pub mod checks;
mod coded;
pub mod collision;
pub mod donors;
pub mod geometry;
pub mod import;
pub mod map;
pub mod mesh;
pub mod mopp;
pub mod polyhedra;
pub mod render;
pub mod sheet;
pub mod tags;
pub mod unreal_actor;
pub mod unreal_material;
pub mod unreal_mesh;

pub use coded::{diagnostic, Coded};

/// Every kind, in flow order.
pub static REGISTRY: &[&StepKind] = &[
    &catalog::KIND,
    &geometry::KIND,
    &donors::KIND,
    &blend::KIND,
    &import::KIND,
    &mesh::KIND,
    &actor::KIND,
    &unreal_material::KIND,
    &unreal_mesh::KIND,
    &unreal_actor::KIND,
    &collision::KIND,
    &mopp::KIND,
    &polyhedra::KIND,
    &checks::KIND,
    &tags::KIND,
    &render::KIND,
    &assemble::KIND,
    &archive::KIND,
    &sheet::KIND,
    &map::KIND,
];

/// How often a kind's step appears in a cook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Once per pack, before any block is known: the contract's validation.
    Pack,
    /// Once per block of a set.
    Block,
    /// Once per set, after its blocks.
    Set,
    /// Once per configured map, after every pack's set (full cooks only).
    Map,
}

/// Where a kind's outputs land when a set is materialized.
#[derive(Clone, Copy)]
pub enum Lands {
    /// Nowhere: an intermediate, kept in the cache only.
    Nowhere,
    /// A pack step's per-block output, copied into each block's `cooked/<block>/`:
    /// `(output name, file name)` for a block.
    PerBlock(fn(&str) -> (String, &'static str)),
    /// Under the set folder's `cooked/<block>/`. With [`Names::Fixed`] outputs the set's
    /// assembly takes them as inputs before the step runs; [`Names::Dynamic`] outputs land
    /// as they come, and an assembly that reads them wires them itself.
    Cooked,
    /// Every output, at the set folder's root.
    SetRoot,
    /// Every output, in the set's render folder: previews are not part of the set.
    Renders,
    /// Every output, in the map's folder, `<out>/maps/<map>/`.
    Map,
}

/// The parameters and inputs a kind's wiring gives one of its steps.
pub struct Wired {
    /// Canonical parameter text, part of the key.
    pub params: String,
    pub inputs: Vec<Input>,
}

impl Wired {
    pub fn inputs(inputs: Vec<Input>) -> Option<Wired> {
        Some(Wired {
            params: String::new(),
            inputs,
        })
    }
}

/// A kind as the Forge layer plans it: the engine's cooker (name, version, outputs, the
/// cook itself), and how often its steps appear, where their outputs land and how they
/// are wired.
pub struct StepKind {
    pub cooker: Cooker,
    pub scope: Scope,
    pub lands: Lands,
    /// The step's parameters and inputs, or `None` when this cook has no such step
    /// (previews when not rendering, the archive without `--archive`).
    pub wire: fn(&Wiring) -> Option<Wired>,
}

/// A kind is its cooker to everything that runs or names it.
impl std::ops::Deref for StepKind {
    type Target = Cooker;
    fn deref(&self) -> &Cooker {
        &self.cooker
    }
}

impl fmt::Debug for StepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cooker.name)
    }
}

/// An input a step declared; its absence means the graph is wrong, not the pack.
pub fn input<'a>(inputs: &'a Inputs, name: &str, file: &str) -> Result<&'a [u8], Vec<Diagnostic>> {
    inputs
        .get(name)
        .map(|bytes| bytes.as_slice())
        .ok_or_else(|| vec![finding("missing_input", file, format!("{name} is missing"))])
}

pub fn text<'a>(inputs: &'a Inputs, name: &str, file: &str) -> Result<&'a str, Vec<Diagnostic>> {
    let bytes = input(inputs, name, file)?;
    std::str::from_utf8(bytes)
        .map_err(|_| vec![finding("not_utf8", file, "the file is not UTF-8 text")])
}

/// An intermediate that failed to read back, naming which one.
pub fn bad_intermediate(file: &str, what: &str, e: impl Coded) -> Vec<Diagnostic> {
    vec![finding(e.code(), file, format!("{what}: {}", e.message()))]
}

/// A step's parameters, which its own wiring wrote as JSON.
pub fn params<T: serde::de::DeserializeOwned>(
    step: &CookCtx,
    file: &str,
) -> Result<T, Vec<Diagnostic>> {
    serde_json::from_str(step.params).map_err(|e| vec![finding("bad_params", file, e.to_string())])
}

/// How a cooker names a source file in its findings and outputs: relative to the pack's
/// (or map's) folder. The folder is not in the key, so a cooker never sees it: a cached
/// output (a preview's caption) must not carry one machine's path to another. The executor
/// joins the folder when a finding leaves the cook (`execute::located`).
pub fn source_file(rel: &str) -> String {
    rel.trim_start_matches("./").to_string()
}

pub fn compact(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).expect("a JSON value always serializes")
}

pub fn pretty(value: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("a JSON value always serializes");
    bytes.push(b'\n');
    bytes
}

/// The block a per-block step is about.
pub fn block<'a>(step: &CookCtx<'a>) -> &'a str {
    step.block.unwrap_or_default()
}
