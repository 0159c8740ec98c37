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
    /// Keys this loader does not know, stripped (only from newer packs): top-level keys,
    /// and model entry keys as `models[].key`.
    pub stripped: Vec<String>,
    /// The tuning tables: `unitScales` rules, `eraGrid` rows, `formationThresholds`.
    pub unit_scales: Vec<(String, f64)>,
    pub era_grid: Map<String, Value>,
    pub formation_thresholds: Option<Value>,
}

/// The keys this loader knows, from a data file (so a new key is one line): a pack's
/// top-level keys, and a model entry's keys and key prefixes (`clip*`, the animation
/// clips' GUID arrays).
struct KnownKeys {
    pack: Vec<String>,
    model: Vec<String>,
    model_prefixes: Vec<String>,
}

fn known_keys() -> KnownKeys {
    let data: Value =
        serde_json::from_str(include_str!("../known-keys.json")).expect("known-keys.json is JSON");
    let list = |key: &str| -> Vec<String> {
        data[key]
            .as_array()
            .unwrap_or_else(|| panic!("known-keys.json lists {key}"))
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    KnownKeys {
        pack: list("pack"),
        model: list("model"),
        model_prefixes: list("model_prefixes"),
    }
}

impl KnownKeys {
    fn knows_model_key(&self, key: &str) -> bool {
        self.model.iter().any(|k| k == key)
            || self
                .model_prefixes
                .iter()
                .any(|p| key.starts_with(p.as_str()))
    }
}

/// A newer pack's keys this loader does not know, stripped so they touch nothing: its
/// top-level keys, and each model entry's (named `models[].key`, once each).
fn strip_unknown(top: &Map<String, Value>, models: &mut [Map<String, Value>]) -> Vec<String> {
    let known = known_keys();
    let mut stripped: Vec<String> = top
        .keys()
        .filter(|k| !known.pack.contains(k))
        .cloned()
        .collect();
    let mut model_keys = std::collections::BTreeSet::new();
    for model in models {
        model.retain(|k, _| {
            let keep = known.knows_model_key(k);
            if !keep {
                model_keys.insert(format!("models[].{k}"));
            }
            keep
        });
    }
    stripped.extend(model_keys);
    stripped
}

/// A file that does not parse: where, so the author can find it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

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

/// Reads `text`, the file `file` whose folder or file name is `name`.
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
    let mut models: Vec<Map<String, Value>> = top
        .get("models")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|m| m.as_object().cloned()).collect())
        .unwrap_or_default();
    let schema_version = top.get("schemaVersion").and_then(Value::as_u64);
    let stripped = match schema_version {
        Some(v) if v > crate::SCHEMA_VERSION => strip_unknown(&top, &mut models),
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
