//! One pack file: the schema wrapper around a `models` array, or a legacy bare
//! `{ "models": [...] }`.

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct Pack {
    /// The file, as discovered (`haf_packs/mymod/pack.json`).
    pub file: String,
    /// The pack's folder or file name: its default `modId` and module name.
    pub name: String,
    pub mod_id: String,
    /// `None` when the file has no `schemaVersion` (legacy and unversioned packs).
    pub schema_version: Option<u64>,
    pub depends_on: Vec<String>,
    pub load_after: Vec<String>,
    pub module: Option<String>,
    pub module_guid: Option<String>,
    /// Declared replacements: `(modId, pawnDescription)`.
    pub overrides: Vec<(String, String)>,
    pub models: Vec<Map<String, Value>>,
    /// Top-level keys this loader does not know, stripped (only from newer packs).
    pub stripped: Vec<String>,
    /// The tuning tables: `unitScales` rules, `eraGrid` rows, `formationThresholds`.
    pub unit_scales: Vec<(String, f64)>,
    pub era_grid: Map<String, Value>,
    pub formation_thresholds: Option<Value>,
}

/// The top-level keys this loader knows (a data file, so a new key is one line).
fn known_keys() -> Vec<String> {
    let data: Value =
        serde_json::from_str(include_str!("../known-keys.json")).expect("known-keys.json is JSON");
    data["pack"]
        .as_array()
        .expect("known-keys.json lists pack keys")
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// A file that does not parse: where, so the author can find it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Reads `text`, the file `file` whose folder or file name is `name`.
/// The overrides a pack declares: `(modId, pawnDescription)` of each.
fn overrides(top: &serde_json::Map<String, Value>) -> Vec<(String, String)> {
    top.get("overrides")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|o| {
                    Some((
                        o["modId"].as_str()?.to_string(),
                        o["pawnDescription"].as_str()?.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The unit scale rules: `(match, scale)` of each.
fn unit_scales(top: &serde_json::Map<String, Value>) -> Vec<(String, f64)> {
    top.get("unitScales")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|r| Some((r["match"].as_str()?.to_string(), r["scale"].as_f64()?)))
                .collect()
        })
        .unwrap_or_default()
}

pub fn parse(file: &str, name: &str, text: &str) -> Result<Pack, ParseError> {
    let error = |line, column, message: String| ParseError {
        file: file.to_string(),
        line,
        column,
        message,
    };
    let value: Value =
        serde_json::from_str(text).map_err(|e| error(e.line(), e.column(), e.to_string()))?;
    let Value::Object(top) = value else {
        return Err(error(1, 1, "a pack is a JSON object".into()));
    };
    let strings = |key: &str| -> Vec<String> {
        top.get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let text_of = |key: &str| top.get(key).and_then(Value::as_str).map(str::to_string);
    let overrides = overrides(&top);
    let models = top
        .get("models")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|m| m.as_object().cloned()).collect())
        .unwrap_or_default();
    let schema_version = top.get("schemaVersion").and_then(Value::as_u64);
    let known = known_keys();
    let stripped: Vec<String> = match schema_version {
        Some(v) if v > crate::SCHEMA_VERSION => {
            top.keys().filter(|k| !known.contains(k)).cloned().collect()
        }
        _ => Vec::new(),
    };
    let unit_scales = unit_scales(&top);
    Ok(Pack {
        stripped,
        unit_scales,
        era_grid: top
            .get("eraGrid")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        formation_thresholds: top.get("formationThresholds").cloned(),
        file: file.to_string(),
        name: name.to_string(),
        mod_id: text_of("modId").unwrap_or_else(|| name.to_string()),
        schema_version,
        depends_on: strings("dependsOn"),
        load_after: strings("loadAfter"),
        module: text_of("module"),
        module_guid: text_of("moduleGuid"),
        overrides,
        models,
    })
}
