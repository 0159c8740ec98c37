//! The step kinds, one file each, in flow order. A kind declares its name, its version
//! (part of every key it makes), its scope, where its outputs land in a set folder, how
//! its inputs are wired, and the adapter that calls its cooker crate.
//!
//! Adding a kind is one file here and one line in [`REGISTRY`]; nothing else matches on
//! a kind. The planner (`plan`) walks the registry in order, so a kind may wire itself to
//! any kind listed before it.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use forge_contract::{Diagnostic, Severity};
use serde_json::Value;

use crate::graph::{Input, Step};
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

pub type Inputs = BTreeMap<String, Arc<Vec<u8>>>;
pub type Outputs = Vec<(String, Vec<u8>)>;
pub type Cooked = Result<Outputs, Vec<Diagnostic>>;

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

/// The names a kind's outputs may have. Every cached record and every cooker's result is
/// checked against them, so a damaged or swapped action record cannot name a file outside
/// the set folder or feed a step an output it never declared.
#[derive(Clone, Copy)]
pub enum Names {
    /// Exactly these, for a step's block (`""` for pack and set kinds).
    Fixed(fn(&str) -> Vec<String>),
    /// Named by what the step reads (a catalog's blocks, a render's views); each must
    /// still be a plain relative path.
    Dynamic,
}

impl StepKind {
    /// Whether `names` are outputs this kind may make for `step`; `Err` says why not.
    pub fn check_outputs<'a>(
        &self,
        step: &Step,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), String> {
        let mut names: Vec<&str> = names.into_iter().collect();
        if let Some(bad) = names.iter().find(|n| !is_plain_relative(n)) {
            return Err(format!("{bad:?} is not a plain relative path"));
        }
        if let Names::Fixed(declared) = self.outputs {
            let mut declared = declared(block(step));
            declared.sort();
            names.sort_unstable();
            if names != declared {
                return Err(format!(
                    "{names:?} are not the declared outputs {declared:?}"
                ));
            }
        }
        Ok(())
    }
}

/// A path that stays below the folder it is joined to: relative, no `.` or `..`
/// components, no backslashes or drive letters.
pub fn is_plain_relative(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.starts_with('/')
        && !rel.contains('\\')
        && !rel.contains(':')
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
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

pub struct StepKind {
    pub name: &'static str,
    /// Bump it whenever the output for the same inputs changes; every cached output of the
    /// kind is rebuilt.
    pub version: u32,
    pub scope: Scope,
    pub lands: Lands,
    pub outputs: Names,
    /// The step's parameters and inputs, or `None` when this cook has no such step
    /// (previews when not rendering, the archive without `--archive`).
    pub wire: fn(&Wiring) -> Option<Wired>,
    /// Bytes in, bytes out: the adapter over the kind's cooker crate.
    pub cook: fn(&Step, &Inputs) -> Cooked,
}

impl StepKind {
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The output names of a kind whose outputs land in `cooked/<block>/`.
    pub fn fixed_outputs(&self, block: &str) -> Vec<String> {
        match self.outputs {
            Names::Fixed(names) => names(block),
            Names::Dynamic => panic!(
                "{} lands in cooked/ but its outputs are not fixed",
                self.name
            ),
        }
    }
}

/// Kinds are named uniquely, so the name is their identity.
impl PartialEq for StepKind {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for StepKind {}

impl fmt::Debug for StepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// Runs a step's cooker: what a cook passes to `execute::run`.
pub fn cook(step: &Step, inputs: &Inputs) -> Cooked {
    (step.kind.cook)(step, inputs)
}

/// A finding that is not about a JSON document (a model, a missing file).
pub fn finding(code: &'static str, file: &str, message: impl Into<String>) -> Diagnostic {
    Diagnostic {
        code,
        severity: Severity::Error,
        file: file.to_string(),
        pointer: String::new(),
        line: None,
        column: None,
        message: message.into(),
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
    step: &Step,
    file: &str,
) -> Result<T, Vec<Diagnostic>> {
    serde_json::from_str(&step.params).map_err(|e| vec![finding("bad_params", file, e.to_string())])
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
pub fn block(step: &Step) -> &str {
    step.block.as_deref().unwrap_or_default()
}
