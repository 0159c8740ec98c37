//! `block_geometry`: one block's geometry, field by field. Each field its `geometry.json`
//! entry gives (origin, hulls, supports, joins, apertures, connectors) wins; each one it
//! leaves out comes from the model's `UCX_` hulls (glTF, GLB or `.blend`, through its
//! export). So `{id, origin}` over a `UCX_` model cooks, and a model edit reaches the cook
//! wherever the entry does not override it. Shipped as `cooked/<block>/geometry.json`.

use forge_contract::derive::{merge_over, FieldSource};
use forge_contract::Diagnostic;
use serde_json::{json, Value};

use super::coded::diagnostic;
use super::common::{compact, input, source_file, text};
use super::kind::{Lands, Scope};
use super::{catalog, geometry};
use crate::graph::Input;
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "block_geometry",
        version: 1,
        outputs: Names::Fixed(|_| vec![OUTPUT.to_string(), FIELDS.to_string()]),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Block,
    lands: Lands::PerBlock(|_| (OUTPUT.to_string(), geometry::SHIPPED_AS)),
    wire,
};

pub const OUTPUT: &str = "geometry.json";
/// Where each field came from: `{"origin": "source/geometry.json", "hulls": "<model>"}`.
pub const FIELDS: &str = "fields.json";
const PART: &str = "part.json";

/// This block's geometry, as input `geometry.json`.
pub fn of_block(w: &Wiring) -> Input {
    w.upstream(geometry::SHIPPED_AS, &KIND, OUTPUT)
}

/// Where this block's geometry fields came from, as input `fields.json`: read by the kinds
/// whose findings must name the file that holds what they found wrong.
pub fn fields_of_block(w: &Wiring) -> Input {
    w.upstream(FIELDS, &KIND, FIELDS)
}

/// The model a field of this block's geometry came from, when its entry left the field
/// to the model; `None` when `geometry.json` gives it (or there is no such input).
pub fn model_of(inputs: &Inputs, field: &str) -> Option<String> {
    let fields: Value = serde_json::from_slice(inputs.get(FIELDS)?).ok()?;
    let file = fields[field].as_str()?;
    (file != geometry::SOURCE).then(|| file.to_string())
}

/// A block's geometry, as the map kinds read another pack's: `None` when not cooked.
pub fn of_pack_block(w: &Wiring, pack: &str, block: &str, name: String) -> Option<Input> {
    w.upstream_of_pack(pack, Some(block), name, &KIND, OUTPUT)
}

#[derive(serde::Serialize, serde::Deserialize, Default)]
struct Params {
    /// The model's input name; `None` when the model has no `UCX_` hulls to give.
    model: Option<String>,
    /// The model as its author knows it (a `.blend`, not its export).
    label: Option<String>,
}

fn wire(w: &Wiring) -> Option<Wired> {
    let block = w.block();
    let mut inputs = vec![
        w.upstream_of(None, PART, &geometry::KIND, geometry::block_output(block)),
        catalog::entry(w),
    ];
    let mut params = Params::default();
    let (model, model_inputs) = super::import::model(w);
    // A `.blend` is only read through its export, so whether it has hulls is asked of
    // that; a glTF's answer is a fact of its bytes the stat cache keeps.
    if super::blend::source(w).is_some() || has_hulls(w, &model) {
        inputs.extend(model_inputs);
        params.label = Some(super::import::authored(w));
        params.model = Some(model);
    }
    Some(Wired {
        params: serde_json::to_string(&params).expect("params serialize"),
        inputs,
    })
}

/// Whether a model file names a `UCX_` node, remembered by the stat cache so a no-op
/// cook reads no model.
fn has_hulls(w: &Wiring, model: &str) -> bool {
    let path = w.sources.pack.dir.join(model);
    w.stat_cache()
        .derived(&path, "hulls", 1, |bytes| {
            let prefix = forge_gltf::HULL_PREFIX.as_bytes();
            if bytes.windows(prefix.len()).any(|win| win == prefix) {
                vec!["hulls".to_string()]
            } else {
                Vec::new()
            }
        })
        .is_some_and(|fact| !fact.is_empty())
}

fn cook(step: &CookCtx, inputs: &Inputs) -> Cooked {
    let block = super::common::block(step);
    let params: Params = serde_json::from_str(step.params).unwrap_or_default();
    let entry_file = source_file(geometry::SOURCE);
    let part: Value = serde_json::from_str(text(inputs, PART, &entry_file)?)
        .map_err(|_| vec![finding("bad_intermediate", &entry_file, "unreadable part")])?;
    let has_entry = part["at"].is_string();
    let part = part["entry"].clone();
    let model_file = params.label.as_deref().map(source_file);
    let derived = match (&params.model, &model_file) {
        (Some(model), Some(label)) => from_model(inputs, model, label, block, &part)?,
        _ => None,
    };
    let (merged, fields) = merge_over(&part, derived.as_ref());
    let model_label = model_file.as_deref().unwrap_or("the model");
    if merged.get("hulls").is_none() {
        return Err(vec![no_hulls(block, model_file.as_deref())]);
    }
    let bytes = compact(&merged);
    let from = |field: &str| {
        fields
            .iter()
            .find(|(f, _)| *f == field)
            .map_or(FieldSource::Entry, |(_, s)| *s)
    };
    let text = std::str::from_utf8(&bytes).expect("JSON is UTF-8");
    let geometry = forge_contract::geometry::parse_block(model_label, text).map_err(|errors| {
        placed(
            errors,
            &merged,
            (&entry_file, has_entry),
            model_label,
            &from,
        )
    })?;
    if from("apertures") == FieldSource::Model {
        door_has_its_aperture(inputs, &geometry, model_label)?;
    }
    let fields: serde_json::Map<String, Value> = fields
        .iter()
        .map(|(field, source)| {
            let file = match source {
                FieldSource::Entry => entry_file.as_str(),
                FieldSource::Model => model_label,
            };
            (field.to_string(), json!(file))
        })
        .collect();
    Ok(vec![
        (OUTPUT.to_string(), bytes),
        (FIELDS.to_string(), compact(&Value::Object(fields))),
    ])
}

/// The entry the model's hulls give, or `None` when it has none. Derived with the origin
/// the entry gives, so its supports and joins are measured from that origin.
fn from_model(
    inputs: &Inputs,
    model: &str,
    file: &str,
    block: &str,
    part: &Value,
) -> Result<Option<Value>, Vec<Diagnostic>> {
    let (bytes, external) = super::import::model_and_buffers(inputs, model, file)?;
    let hulls =
        forge_gltf::collision_hulls(file, bytes, &external).map_err(|e| diagnostic(file, &e))?;
    if hulls.is_empty() {
        return Ok(None);
    }
    let mesh = forge_gltf::import(file, bytes, &external).map_err(|e| diagnostic(file, &e))?;
    let origin = part["origin"].as_str().unwrap_or("bottom_centre");
    crate::suggest::entry_from_model(block, origin, &hulls, &mesh)
        .map(Some)
        .ok_or_else(|| {
            vec![finding(
                "mesh_empty",
                file,
                "the model has no visual mesh besides its UCX_ hulls",
            )]
        })
}

fn no_hulls(block: &str, model: Option<&str>) -> Diagnostic {
    let why = match model {
        Some(model) => format!("{model} has no UCX_ node"),
        None => format!("source/models/{block} has no UCX_ node (or no model at all)"),
    };
    finding(
        "missing_geometry",
        &source_file(geometry::SOURCE),
        format!(
            "block {block:?} has no collision hulls: its entry here gives none, and {why}; give the model UCX_ hulls (then `mjolnir forge suggest`) or write \"hulls\" here"
        ),
    )
}

/// A finding about the merged geometry, placed where its field came from: a field of the
/// entry at the entry (by block id, which the cook turns into its pointer and line), one
/// from the model at the model (and a hull at its node's name, `UCX_<name>`).
fn placed(
    errors: Vec<Diagnostic>,
    merged: &Value,
    (entry_file, has_entry): (&str, bool),
    model_file: &str,
    from: &dyn Fn(&str) -> FieldSource,
) -> Vec<Diagnostic> {
    errors
        .into_iter()
        .map(|mut d| {
            let mut segments = d.pointer.split('/').skip(1);
            let field = segments.next().unwrap_or_default().to_string();
            if from(&field) == FieldSource::Model {
                let index = segments.next().and_then(|i| i.parse::<usize>().ok());
                let node = index.and_then(|i| merged[&field][i]["name"].as_str());
                if let (Some(node), "hulls") = (node, field.as_str()) {
                    d.message = format!("UCX_{node}: {}", d.message);
                }
                d.file = model_file.to_string();
                d.pointer = String::new();
            } else {
                d.file = entry_file.to_string();
                let id = merged["id"].as_str().unwrap_or_default();
                d.pointer = if has_entry {
                    format!("/blocks/{id}{}", d.pointer)
                } else {
                    String::new()
                };
            }
            d.line = None;
            d.column = None;
            d
        })
        .collect()
}

/// The catalog's door slides in an aperture the model's apertures must hold.
fn door_has_its_aperture(
    inputs: &Inputs,
    geometry: &forge_contract::BlockGeometry,
    model_file: &str,
) -> Result<(), Vec<Diagnostic>> {
    let entry: Value =
        serde_json::from_slice(input(inputs, "entry.json", model_file)?).unwrap_or_default();
    match entry["door"]["aperture"].as_str() {
        Some(door) if !geometry.apertures.iter().any(|a| a.name == door) => Err(vec![finding(
            "door_aperture_missing",
            model_file,
            format!(
                "the catalog's door uses aperture {door:?}, and the apertures suggested from the model do not hold it; write it into the block's entry in source/geometry.json"
            ),
        )]),
        _ => Ok(()),
    }
}
