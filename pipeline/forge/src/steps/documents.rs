//! `documents`: a set's documents. Its catalog (`mjolnir.json`: the pack's catalog reduced
//! to the set, marked diagnostic for `--only`), its inventory (each block's cooked outputs
//! by hash, and whether the game can install the set), its checks report, and its change
//! list. Each block is read as the one small document its `block_facts` made, so a
//! one-block edit reads one block's files; the container is `assemble`'s, made beside
//! this step from other inputs.

use forge_contract::Diagnostic;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::common::{bad_intermediate, params, pretty, source_file, text};
use super::kind::{Lands, Scope};
use super::{catalog, donors};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "documents",
        version: 1,
        outputs: Names::Dynamic,
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Set,
    lands: Lands::SetRoot,
    wire,
};

pub const CHANGES: &str = "changes.json";
pub const INVENTORY: &str = "inventory.json";
/// The set's checks report: every block's, in set order.
pub const CHECKS: &str = "checks.json";

#[derive(Deserialize)]
struct Params {
    set: String,
    blocks: Vec<String>,
    diagnostic: bool,
    /// The cook has an actor donor, so the set's Unreal packages can be installed.
    unreal: bool,
}

/// The catalog, the change list, and each block's facts.
fn wire(w: &Wiring) -> Option<Wired> {
    let set = w.set();
    let mut inputs = vec![w.upstream(catalog::MANIFEST, &catalog::KIND, catalog::MANIFEST)];
    if w.has_source(CHANGES) {
        inputs.push(w.source(CHANGES));
    }
    match w.groups(&super::block_group::KIND, super::block_group::FACTS) {
        Some(groups) => inputs.extend(groups),
        None => inputs.extend(
            set.blocks
                .iter()
                .map(|block| super::block_facts::of_block(w, block)),
        ),
    }
    let unreal = w
        .options
        .donors
        .as_ref()
        .is_some_and(|d| d.has(donors::ACTOR));
    let params = json!({"set": set.name, "blocks": set.blocks, "diagnostic": set.diagnostic,
        "unreal": unreal});
    Some(Wired {
        params: params.to_string(),
        inputs,
    })
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(catalog::MANIFEST);
    let params: Params = params(step, &file)?;
    let Documents {
        manifest,
        mut files,
    } = documents(step, &params, inputs, &file)?;
    if let Some(changes) = inputs.get(CHANGES) {
        every_block_announced(&manifest, changes)?;
        let changes = if params.diagnostic {
            pretty(&reduced_changes(changes, &manifest, &source_file(CHANGES))?)
        } else {
            changes.to_vec()
        };
        files.push((CHANGES.to_string(), changes));
    }
    Ok(files)
}

/// The set's catalog, checks report and inventory, as files; the catalog also as a value.
struct Documents {
    manifest: Value,
    files: Vec<(String, Vec<u8>)>,
}

fn documents(
    step: &CookCtx,
    params: &Params,
    inputs: &Inputs,
    file: &str,
) -> Result<Documents, Vec<Diagnostic>> {
    let manifest = manifest(params, inputs, file)?;
    let facts = facts(params, inputs)?;
    // The facts are copied as they were written, unparsed: a fact that is JSON but no
    // JSON value (a number out of range) is found here.
    let copied = |bytes: Result<Vec<u8>, serde_json::Error>| {
        bytes.map_err(|e| bad_intermediate(file, "block facts", e))
    };
    let files = vec![
        (
            CHECKS.to_string(),
            copied(json_out::try_pretty(&checks_report(step, params, &facts)))?,
        ),
        (catalog::MANIFEST.to_string(), pretty(&manifest)),
        (
            INVENTORY.to_string(),
            copied(json_out::try_pretty(&inventory(step, params, &facts)))?,
        ),
    ];
    Ok(Documents { manifest, files })
}

/// The catalog reduced to the set; an `--only` set is marked so it cannot be published.
fn manifest(params: &Params, inputs: &Inputs, file: &str) -> Result<Value, Vec<Diagnostic>> {
    let mut manifest: Value = serde_json::from_str(text(inputs, catalog::MANIFEST, file)?)
        .map_err(|e| vec![finding("not_json", file, e.to_string())])?;
    if let Some(list) = forge_contract::document::catalog_entries_mut(&mut manifest) {
        list.retain(|b| {
            b["id"]
                .as_str()
                .is_some_and(|id| params.blocks.iter().any(|x| x == id))
        });
    }
    if params.diagnostic {
        forge_contract::document::mark_diagnostic(&mut manifest, &params.blocks);
    }
    Ok(manifest)
}

/// Every block of the set has its `bloc` row in `changes.json`.
fn every_block_announced(manifest: &Value, changes: &[u8]) -> Result<(), Vec<Diagnostic>> {
    let file = source_file(CHANGES);
    let changes: Value = serde_json::from_slice(changes)
        .map_err(|e| vec![finding("not_json", &file, e.to_string())])?;
    let missing: Vec<Diagnostic> =
        forge_contract::document::blocks_without_change_row(manifest, &changes)
            .into_iter()
            .map(|(id, tag)| {
                let mut found = finding(
                    "missing_change_row",
                    &file,
                    forge_contract::document::change_row_message(id, tag),
                );
                found.pointer = "/tags".into();
                found
            })
            .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}

/// An `--only` set's change list declares only the tags of the blocks it holds.
fn reduced_changes(changes: &[u8], manifest: &Value, file: &str) -> Result<Value, Vec<Diagnostic>> {
    let mut changes: Value = serde_json::from_slice(changes)
        .map_err(|e| vec![finding("not_json", file, e.to_string())])?;
    let tags: Vec<&Value> = forge_contract::document::catalog_entries(manifest)
        .iter()
        .map(|b| &b["tag"])
        .collect();
    if let Some(list) = changes["tags"].as_array_mut() {
        list.retain(|t| tags.contains(&&t["tag"]));
    }
    Ok(changes)
}

/// One block's facts (`block_facts`), borrowed from its input as unparsed JSON: the set's
/// documents copy them whole, and a catalog's facts parsed into trees were the largest
/// part of a cold cook's peak memory (1.7 MB at 256 blocks). A missing or `null` fact is
/// `None`, and is written as `null`.
#[derive(Deserialize)]
struct BlockFacts<'a> {
    #[serde(borrow)]
    inventory: Option<&'a RawValue>,
    #[serde(borrow)]
    visuals: Option<&'a RawValue>,
    #[serde(borrow)]
    light_warning: Option<&'a RawValue>,
    #[serde(borrow)]
    checks: Option<&'a RawValue>,
}

/// A fact written into a pretty document: its tokens re-emitted at the document's depth,
/// exactly as the tree it was once parsed into would write them.
#[derive(Clone, Copy)]
struct Fact<'a>(&'a RawValue);

impl Serialize for Fact<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut tokens = serde_json::Deserializer::from_str(self.0.get());
        serde_transcode::transcode(&mut tokens, serializer)
    }
}

/// Each block's facts, in set order.
fn facts<'a>(
    params: &'a Params,
    inputs: &'a Inputs,
) -> Result<Vec<(&'a str, BlockFacts<'a>)>, Vec<Diagnostic>> {
    let file = source_file(catalog::MANIFEST);
    let facts = super::block_group::per_block(
        inputs,
        &params.blocks,
        (super::block_group::FACTS, super::block_facts::input_name),
        &file,
    )?;
    params
        .blocks
        .iter()
        .zip(facts)
        .map(|(block, bytes)| {
            let facts = serde_json::from_slice(bytes)
                .map_err(|e| bad_intermediate(&file, "block facts", e))?;
            Ok((block.as_str(), facts))
        })
        .collect()
}

/// Which blocks the set holds, the hash of each shipped output, and whether the game can
/// install the set (its Unreal packages, and what they leave out).
fn inventory<'a>(
    step: &CookCtx<'a>,
    params: &'a Params,
    facts: &[(&'a str, BlockFacts<'a>)],
) -> Inventory<'a> {
    Inventory {
        pack: step.pack,
        set: &params.set,
        diagnostic: params.diagnostic,
        unreal: installable(facts, params.unreal),
        // By block id, as the inventory lists them.
        blocks: facts
            .iter()
            .map(|(block, f)| (*block, f.inventory.map(Fact)))
            .collect(),
        // In set order.
        visuals: InOrder(
            facts
                .iter()
                .filter_map(|(block, f)| Some((*block, Fact(f.visuals?))))
                .collect(),
        ),
    }
}

#[derive(Serialize)]
struct Inventory<'a> {
    pack: &'a str,
    set: &'a str,
    diagnostic: bool,
    unreal: Value,
    blocks: std::collections::BTreeMap<&'a str, Option<Fact<'a>>>,
    visuals: InOrder<'a>,
}

/// A JSON object of facts, its keys in the order given.
struct InOrder<'a>(Vec<(&'a str, Fact<'a>)>);

impl Serialize for InOrder<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().copied())
    }
}

/// Without donors the set has no Unreal packages and is not installable; with them, a
/// light the donor Blueprint cannot carry is named.
fn installable(facts: &[(&str, BlockFacts)], unreal: bool) -> Value {
    if !unreal {
        return json!({"installable": false, "reason": "cooked without donors: the container holds no Unreal packages (see docs/donors.md)"});
    }
    let warnings: Vec<Value> = facts
        .iter()
        .filter_map(|(_, f)| serde_json::from_str::<String>(f.light_warning?.get()).ok())
        .map(Value::String)
        .collect();
    json!({"installable": true, "warnings": warnings})
}

fn checks_report<'a>(
    step: &CookCtx<'a>,
    params: &'a Params,
    facts: &[(&'a str, BlockFacts<'a>)],
) -> ChecksReport<'a> {
    ChecksReport {
        format: "mjolnir-forge-checks",
        pack: step.pack,
        set: &params.set,
        blocks: facts
            .iter()
            .filter_map(|(_, f)| Some(Fact(f.checks?)))
            .collect(),
    }
}

#[derive(Serialize)]
struct ChecksReport<'a> {
    format: &'static str,
    pack: &'a str,
    set: &'a str,
    blocks: Vec<Fact<'a>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// What `block_facts` might hold: nesting, escapes, floats that print in more than one
    /// way, integers past `i64`, and empty containers.
    const FACTS: &str = r#"{"inventory":{"b/mesh.bin":"ab\"c\\d\u00e9\n"},"visuals":{"packages":["/Game/A"],"materials":[],"imports":{}},"light_warning":"a light \"x\"","checks":{"n":[0.1,1e-7,-0.0,18446744073709551615,-9223372036854775808,1.0e300,12345678901234567890123],"ok":true,"none":null}}"#;

    #[test]
    fn a_fact_is_written_as_its_parsed_tree_would_be() {
        let facts: BlockFacts = serde_json::from_str(FACTS).unwrap();
        let tree: Value = serde_json::from_str(FACTS).unwrap();
        for (fact, value) in [
            (facts.inventory, &tree["inventory"]),
            (facts.visuals, &tree["visuals"]),
            (facts.checks, &tree["checks"]),
        ] {
            // Nested, so the indentation of a document's depth is checked too; written as it
            // is in a document, not through a tree.
            let nested = |block| BTreeMap::from([("set", BTreeMap::from([("block", block)]))]);
            assert_eq!(
                json_out::pretty(&nested(fact.map(Fact))),
                json_out::pretty(&json!({"set": {"block": value}}))
            );
        }
    }

    #[test]
    fn a_missing_or_null_fact_is_none_and_only_a_string_warns() {
        let facts: BlockFacts =
            serde_json::from_str(r#"{"visuals":null,"light_warning":7}"#).unwrap();
        assert!(facts.inventory.is_none() && facts.visuals.is_none() && facts.checks.is_none());
        let warned: BlockFacts = serde_json::from_str(FACTS).unwrap();
        assert_eq!(
            installable(&[("a", facts), ("b", warned)], true),
            json!({"installable": true, "warnings": ["a light \"x\""]})
        );
    }

    #[test]
    fn a_fact_that_is_not_json_is_refused_not_copied() {
        assert!(serde_json::from_str::<BlockFacts>(r#"{"checks":[1,}"#).is_err());
        assert!(serde_json::from_str::<BlockFacts>(r#"{"checks":{"a":1}"#).is_err());
        // JSON, but no JSON value: the step refuses it as it writes the documents, where
        // writing it as a file would have panicked.
        let params = r#"{"set":"all","blocks":["a"],"diagnostic":false,"unreal":false}"#;
        let step = CookCtx {
            id: "p/documents/all",
            pack: "p",
            block: None,
            params,
        };
        let mut inputs = Inputs::new();
        let catalog = br#"{"blocks":[{"id":"a"}]}"#;
        inputs.insert(catalog::MANIFEST.to_string(), catalog.to_vec().into());
        let facts = br#"{"inventory":{},"checks":{"n":1e400}}"#;
        inputs.insert(
            super::super::block_facts::input_name("a"),
            facts.to_vec().into(),
        );
        let refused = cook(&step, &inputs).unwrap_err();
        assert!(refused[0].message.starts_with("block facts"), "{refused:?}");
    }
}
