//! What every kind's cook does with its inputs: read them as bytes, text or parameters,
//! name its block, write JSON, and report findings against a source file.

use forge_contract::Diagnostic;
use serde_json::Value;

use super::coded::Coded;
use engine::{CookCtx, Inputs};
use findings::finding;

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
    json_out::pretty(value)
}

/// The block a per-block step is about.
pub fn block<'a>(step: &CookCtx<'a>) -> &'a str {
    step.block.unwrap_or_default()
}
