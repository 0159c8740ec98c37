//! The cookers behind each step kind: bytes in, bytes out, nothing else.
//!
//! Every kind has a version here; bump it whenever its output for the same inputs changes,
//! and every cached output of that kind is rebuilt.

use std::collections::BTreeMap;
use std::sync::Arc;

use forge_contract::{parse_geometry, parse_manifest, Diagnostic, Severity};
use serde_json::{json, Value};

use crate::graph::{Kind, Step};

pub type Inputs = BTreeMap<String, Arc<Vec<u8>>>;
pub type Outputs = Vec<(String, Vec<u8>)>;

pub fn version(kind: Kind) -> u32 {
    match kind {
        Kind::Catalog => 1,
        Kind::Geometry => 1,
        Kind::Import => forge_gltf::VERSION,
        Kind::Mesh => forge_mesh::VERSION,
        Kind::Actor => forge_actor::VERSION,
        Kind::Collision => forge_collision::BSP_VERSION,
        Kind::Mopp => forge_collision::MOPP_VERSION,
        Kind::Polyhedra => forge_collision::POLYHEDRA_VERSION,
        Kind::Checks => forge_checks::VERSION,
        Kind::Tags => forge_tags::VERSION,
        Kind::Render | Kind::Sheet => forge_render::VERSION,
        Kind::Assemble => 1,
        Kind::Archive => 1,
    }
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
fn input<'a>(inputs: &'a Inputs, name: &str, file: &str) -> Result<&'a [u8], Vec<Diagnostic>> {
    inputs
        .get(name)
        .map(|bytes| bytes.as_slice())
        .ok_or_else(|| vec![finding("missing_input", file, format!("{name} is missing"))])
}

fn text<'a>(inputs: &'a Inputs, name: &str, file: &str) -> Result<&'a str, Vec<Diagnostic>> {
    let bytes = input(inputs, name, file)?;
    std::str::from_utf8(bytes)
        .map_err(|_| vec![finding("not_utf8", file, "the file is not UTF-8 text")])
}

fn compact(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).expect("a JSON value always serializes")
}

fn pretty(value: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("a JSON value always serializes");
    bytes.push(b'\n');
    bytes
}

pub fn cook(step: &Step, inputs: &Inputs) -> Result<Outputs, Vec<Diagnostic>> {
    let label = |name: &str| format!("{}/{name}", step.pack);
    match step.kind {
        Kind::Catalog => {
            let file = label("mjolnir.json");
            let text = text(inputs, "mjolnir.json", &file)?;
            let (manifest, _warnings) = parse_manifest(&file, text)?;
            let catalog = manifest.catalog().ok_or_else(|| {
                vec![finding(
                    "not_a_forge_pack",
                    &file,
                    "mjolnir.json has no forge_pack block, so there is nothing to cook",
                )]
            })?;
            if catalog.id != step.pack {
                return Err(vec![finding("pack_id_mismatch", &file, format!("pipeline.toml builds pack {:?} from this folder, but its catalog id is {:?}", step.pack, catalog.id))]);
            }
            if manifest.diagnostic {
                return Err(vec![finding(
                    "diagnostic_source",
                    &file,
                    "a source manifest cannot be marked diagnostic; only reduced --only builds are",
                )]);
            }
            let value: Value = serde_json::from_str(text).expect("validated JSON parses");
            let mut out = vec![("mjolnir.json".to_string(), text.as_bytes().to_vec())];
            for entry in value["forge_pack"]["blocks"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let id = entry["id"].as_str().unwrap_or_default();
                out.push((format!("entry/{id}.json"), compact(entry)));
            }
            Ok(out)
        }
        Kind::Geometry => {
            let file = label("source/geometry.json");
            let manifest_text = text(inputs, "mjolnir.json", &label("mjolnir.json"))?;
            let (manifest, _) = parse_manifest(&label("mjolnir.json"), manifest_text)?;
            let catalog = manifest
                .catalog()
                .ok_or_else(|| vec![finding("not_a_forge_pack", &file, "no catalog")])?;
            let text = text(inputs, "source/geometry.json", &file)?;
            parse_geometry(&file, text, catalog)?;
            let value: Value = serde_json::from_str(text).expect("validated JSON parses");
            Ok(value["blocks"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|b| {
                    (
                        format!("block/{}.json", b["id"].as_str().unwrap_or_default()),
                        compact(b),
                    )
                })
                .collect())
        }
        Kind::Import => {
            let model_name = step.params.as_str();
            let file = label(model_name);
            let model = inputs
                .get(model_name)
                .ok_or_else(|| vec![finding("missing_input", &file, "the model is missing")])?;
            let prefix = model_name
                .rsplit_once('/')
                .map_or(String::new(), |(dir, _)| format!("{dir}/"));
            let external: BTreeMap<String, Vec<u8>> = inputs
                .iter()
                .filter(|(name, _)| name.as_str() != model_name)
                .filter_map(|(name, bytes)| {
                    name.strip_prefix(&prefix)
                        .map(|rel| (rel.to_string(), bytes.to_vec()))
                })
                .collect();
            let external = forge_gltf::external_uris(&file, model)
                .map_err(|e| vec![finding(e.code, &file, e.message)])?
                .into_iter()
                .filter_map(|uri| {
                    external
                        .get(&forge_gltf::uri_to_relative_path(&uri))
                        .map(|b| (uri, b.clone()))
                })
                .collect();
            let mesh = forge_gltf::import(&file, model, &external)
                .map_err(|e| vec![finding(e.code, &file, e.message)])?;
            Ok(vec![("mesh.fgim".to_string(), mesh.to_bytes())])
        }
        Kind::Mesh => {
            let block = step.block.as_deref().unwrap_or_default();
            let file = label(&format!("source/models/{block}"));
            let imported = input(inputs, "mesh.fgim", &file)?;
            let imported = forge_gltf::ImportedMesh::from_bytes(imported)
                .map_err(|e| vec![finding("bad_intermediate", &file, e)])?;
            let mesh = forge_mesh::cook(&step.pack, block, &imported)
                .map_err(|e| vec![finding(e.code, &file, e.message)])?;
            Ok(vec![("static_mesh.fmsh".to_string(), mesh.to_bytes())])
        }
        Kind::Actor => {
            let block = step.block.as_deref().unwrap_or_default();
            let file = label("mjolnir.json");
            let entry =
                forge_contract::parse_entry(&file, &step.pack, text(inputs, "entry.json", &file)?)?;
            let geometry: Value = serde_json::from_str(text(inputs, "geometry.json", &file)?)
                .map_err(|e| vec![finding("bad_intermediate", &file, e.to_string())])?;
            let origin = match geometry["origin"].as_str() {
                Some("entry_floor") => forge_contract::Origin::EntryFloor,
                _ => forge_contract::Origin::BottomCentre,
            };
            let mesh = input(inputs, "static_mesh.fmsh", &file)?;
            let mesh = forge_mesh::StaticMesh::from_bytes(mesh)
                .map_err(|e| vec![finding("bad_intermediate", &file, e)])?;
            debug_assert_eq!(entry.id, block);
            let actor = forge_actor::cook(&step.pack, &entry, origin, mesh.offset_cm);
            Ok(vec![("actor.json".to_string(), actor.to_json())])
        }
        Kind::Collision | Kind::Polyhedra => {
            let block = step.block.as_deref().unwrap_or_default();
            let file = label("source/geometry.json");
            let geometry = forge_contract::geometry::parse_block(
                &file,
                text(inputs, "geometry.json", &file)?,
            )?;
            let located = |e: forge_collision::CollisionError| {
                let hull = e.hull.map(|h| format!(", hull {h:?}")).unwrap_or_default();
                vec![finding(
                    e.code,
                    &file,
                    format!("block {block:?}{hull}: {}", e.message),
                )]
            };
            if step.kind == Kind::Collision {
                let model = forge_collision::cook_bsp(&geometry).map_err(located)?;
                Ok(vec![("collision.fcol".to_string(), model.to_bytes())])
            } else {
                let polyhedra = forge_collision::cook_polyhedra(&geometry).map_err(located)?;
                Ok(vec![(
                    "polyhedra.fpol".to_string(),
                    forge_collision::polyhedron::to_bytes(&polyhedra),
                )])
            }
        }
        Kind::Mopp => {
            let file = label("source/geometry.json");
            let model = input(inputs, "collision.fcol", &file)?;
            let model = forge_collision::CollisionModel::from_bytes(model)
                .map_err(|e| vec![finding("bad_intermediate", &file, e)])?;
            let index = forge_collision::cook_mopp(&model)
                .map_err(|e| vec![finding(e.code, &file, e.message)])?;
            Ok(vec![("mopp.fmop".to_string(), index.to_bytes())])
        }
        Kind::Checks => checks(step, inputs),
        Kind::Tags => tags(step, inputs),
        Kind::Render => crate::preview::render_block(step, inputs),
        Kind::Sheet => crate::preview::contact_sheet(step, inputs),
        Kind::Assemble => assemble(step, inputs),
        Kind::Archive => archive(step, inputs),
    }
}

/// The set's manifest (the catalog reduced to the set, marked diagnostic for `--only`)
/// and its inventory: which blocks it holds and the hash of each cooked output.
fn assemble(step: &Step, inputs: &Inputs) -> Result<Outputs, Vec<Diagnostic>> {
    let file = format!("{}/mjolnir.json", step.pack);
    let params: Value = serde_json::from_str(&step.params)
        .map_err(|e| vec![finding("bad_params", &file, e.to_string())])?;
    let blocks: Vec<&str> = params["blocks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let diagnostic = params["diagnostic"].as_bool().unwrap_or(false);
    let mut manifest: Value = serde_json::from_str(text(inputs, "mjolnir.json", &file)?)
        .map_err(|e| vec![finding("not_json", &file, e.to_string())])?;
    if let Some(list) = manifest["forge_pack"]["blocks"].as_array_mut() {
        list.retain(|b| b["id"].as_str().is_some_and(|id| blocks.contains(&id)));
    }
    if diagnostic {
        manifest["diagnostic"] = json!({
            "reason": "reduced --only build; never publish it as the full set",
            "only": blocks,
            "full_set_version": manifest["version"].clone(),
        });
    }
    let mut inventory = BTreeMap::new();
    for (name, bytes) in inputs {
        if let Some((block, output)) = name.split_once('/').filter(|(b, _)| blocks.contains(b)) {
            inventory
                .entry(block.to_string())
                .or_insert_with(BTreeMap::new)
                .insert(output.to_string(), blake3::hash(bytes).to_hex().to_string());
        }
    }
    let mut checks = Vec::new();
    for block in &blocks {
        if let Some(bytes) = inputs.get(&format!("{block}/checks.json")) {
            let report: Value = serde_json::from_slice(bytes)
                .map_err(|e| vec![finding("bad_intermediate", &file, e.to_string())])?;
            checks.push(report);
        }
    }
    let mut out = container(step, &blocks, inputs)?;
    out.extend([
        (
            "checks.json".to_string(),
            pretty(
                &json!({"format": "mjolnir-forge-checks", "pack": step.pack, "set": params["set"], "blocks": checks}),
            ),
        ),
        ("mjolnir.json".to_string(), pretty(&manifest)),
        (
            "inventory.json".to_string(),
            pretty(
                &json!({"pack": step.pack, "set": params["set"], "diagnostic": diagnostic, "blocks": inventory}),
            ),
        ),
    ]);
    if let Some(changes) = inputs.get("changes.json") {
        out.push(("changes.json".to_string(), changes.to_vec()));
    }
    Ok(out)
}

/// Runs the ray checks of one block; unwaived failures fail the step, one finding each.
fn checks(step: &Step, inputs: &Inputs) -> Result<Outputs, Vec<Diagnostic>> {
    let block_id = step.block.as_deref().unwrap_or_default();
    let file = format!("{}/source/geometry.json", step.pack);
    let bad =
        |what: &str, e: String| vec![finding("bad_intermediate", &file, format!("{what}: {e}"))];
    let block =
        forge_contract::geometry::parse_block(&file, text(inputs, "geometry.json", &file)?)?;
    let entry = forge_contract::parse_entry(&file, &step.pack, text(inputs, "entry.json", &file)?)?;
    let get = |name: &str| input(inputs, name, &file);
    let model = forge_collision::CollisionModel::from_bytes(get("collision.fcol")?)
        .map_err(|e| bad("collision", e))?;
    let index =
        forge_collision::MoppIndex::from_bytes(get("mopp.fmop")?).map_err(|e| bad("mopp", e))?;
    let mesh =
        forge_mesh::StaticMesh::from_bytes(get("static_mesh.fmsh")?).map_err(|e| bad("mesh", e))?;
    let source = forge_collision::reference::SourceShapes::new(
        block.hulls.iter().map(|h| h.points.as_slice()),
    )
    .ok_or_else(|| {
        vec![finding(
            "bad_intermediate",
            &file,
            format!("block {block_id:?}: parry3d could not build the source hulls"),
        )]
    })?;
    let (lo, hi) = mesh.bounds_cm();
    let place = |p: [f32; 3]| {
        forge_units::unreal_to_pack([0, 1, 2].map(|i| f64::from(p[i]) + mesh.offset_cm[i]))
    };
    let (a, b) = (place(lo), place(hi));
    let visual = (
        [0, 1, 2].map(|i| a[i].min(b[i])),
        [0, 1, 2].map(|i| a[i].max(b[i])),
    );
    let report = forge_checks::run(&forge_checks::Inputs {
        block: &block,
        dimensions_m: entry.dimensions_m,
        model: &model,
        index: &index,
        visual_bounds_m: visual,
        source: &source,
    });
    let blocking: Vec<Diagnostic> = report
        .blocking()
        .map(|c| {
            let failure = c.failure.as_ref().expect("a failed check has a failure");
            let ray = failure
                .ray
                .as_ref()
                .map(|r| {
                    format!(
                        "; first failing ray from {:?} along {:?}",
                        r.origin_m, r.direction
                    )
                })
                .unwrap_or_default();
            let hit = failure
                .hit
                .as_ref()
                .map(|h| {
                    format!(
                        ", which hit hull {:?} (surface {}) at {:.4} m",
                        h.hull, h.surface, h.distance_m
                    )
                })
                .unwrap_or_default();
            finding(
                failure.code,
                &file,
                format!(
                    "{}/{block_id}: check {} {:?}: {}{ray}{hit}",
                    step.pack, c.check, c.name, failure.message
                ),
            )
        })
        .collect();
    if !blocking.is_empty() {
        return Err(blocking);
    }
    Ok(vec![(
        "checks.json".to_string(),
        pretty(&serde_json::to_value(&report).expect("a report serializes")),
    )])
}

/// The block's four tags, named `<block>.<group extension>`.
fn tags(step: &Step, inputs: &Inputs) -> Result<Outputs, Vec<Diagnostic>> {
    let block = step.block.as_deref().unwrap_or_default();
    let file = format!("{}/source/geometry.json", step.pack);
    let bad =
        |what: &str, e: String| vec![finding("bad_intermediate", &file, format!("{what}: {e}"))];
    let get = |name: &str| input(inputs, name, &file);
    let model = forge_collision::CollisionModel::from_bytes(get("collision.fcol")?)
        .map_err(|e| bad("collision", e))?;
    let index =
        forge_collision::MoppIndex::from_bytes(get("mopp.fmop")?).map_err(|e| bad("mopp", e))?;
    let polyhedra = forge_collision::polyhedron::from_bytes(get("polyhedra.fpol")?)
        .map_err(|e| bad("polyhedra", e))?;
    let (lo, hi) = model.bounds_m().unwrap_or(([0.0; 3], [0.0; 3]));
    let bounds = (forge_units::pack_to_blam(lo), forge_units::pack_to_blam(hi));
    let tags = forge_tags::block_tags(&step.pack, block, bounds, &model, &index, &polyhedra)
        .map_err(|e| bad("tags", e))?;
    Ok(tags
        .into_iter()
        .map(|(group, bytes)| (format!("{block}.{}", forge_tags::extension(&group)), bytes))
        .collect())
}

/// The pack's container: every block's mesh and actor as packages under
/// `/Game/MJOLNIR/Forge/<pack>/<block>/`, and each tag as the bulk chunk of a package
/// beside them. Returns `(file name, bytes)` for the `.utoc`, `.ucas` and `.pak` stub.
fn container(step: &Step, blocks: &[&str], inputs: &Inputs) -> Result<Outputs, Vec<Diagnostic>> {
    use forge_iostore::ids::{self, ChunkId};
    let file = format!("{}/mjolnir.json", step.pack);
    let root = forge_contract::ids::unreal_root(&step.pack);
    let mut chunks = Vec::new();
    let mut add = |package: String, kind: u8, extension: &str, data: &[u8]| {
        let rel = package.trim_start_matches("/Game/").to_string();
        chunks.push(forge_iostore::NewChunk {
            id: ChunkId::new(ids::name_hash(&package), 0, kind),
            data: data.to_vec(),
            path: Some(format!("{rel}.{extension}")),
        });
    };
    for block in blocks {
        let get = |name: &str| input(inputs, &format!("{block}/{name}"), &file);
        add(
            format!("{root}{block}/SM_{block}"),
            ids::EXPORT_BUNDLE_DATA,
            "uasset",
            get("static_mesh.fmsh")?,
        );
        add(
            format!("{root}{block}/BP_{block}"),
            ids::EXPORT_BUNDLE_DATA,
            "uasset",
            get("actor.json")?,
        );
        for group in [
            forge_tags::CRATE,
            forge_tags::MODEL,
            forge_tags::PHYSICS_MODEL,
            forge_tags::COLLISION_MODEL,
        ] {
            let ext = forge_tags::extension(&group);
            add(
                format!("{root}{block}/{ext}"),
                ids::BULK_DATA,
                "ubulk",
                get(&format!("{block}.{ext}"))?,
            );
        }
    }
    let name = format!("{}_P", step.pack);
    let (utoc, ucas) = forge_iostore::write(&name, &chunks, forge_iostore::Compression::Zlib)
        .map_err(|e| vec![finding(e.code, &file, e.message)])?;
    let toc =
        forge_iostore::Toc::parse(&utoc).map_err(|e| vec![finding(e.code, &file, e.message)])?;
    let outside = forge_iostore::outside_namespace(&toc, &root)
        .map_err(|e| vec![finding(e.code, &file, e.message)])?;
    if let Some(path) = outside.first() {
        return Err(vec![finding(
            "namespace_violation",
            &file,
            format!("{path} is outside the pack's namespace {root}"),
        )]);
    }
    Ok(vec![
        (format!("content/{name}.utoc"), utoc),
        (format!("content/{name}.ucas"), ucas),
        (format!("content/{name}.pak"), forge_iostore::pak_stub()),
    ])
}

/// An unsigned `.mjolnir` archive of the set and the catalog the Hub would publish for it
/// (`GET /api/v1/releases/{id}/forge-pack`): catalog, version, archive SHA-256, deps.
fn archive(step: &Step, inputs: &Inputs) -> Result<Outputs, Vec<Diagnostic>> {
    let file = format!("{}/mjolnir.json", step.pack);
    let as_diagnostics = |findings: Vec<forge_release::scan::Finding>| {
        findings
            .into_iter()
            .map(|f| {
                finding(
                    f.code,
                    &file,
                    format!(
                        "{}{}",
                        f.member.map(|m| format!("{m}: ")).unwrap_or_default(),
                        f.message
                    ),
                )
            })
            .collect::<Vec<_>>()
    };
    let manifest = input(inputs, "mjolnir.json", &file)?;
    let content: BTreeMap<String, Vec<u8>> = inputs
        .iter()
        .filter_map(|(name, bytes)| {
            name.strip_prefix("content/")
                .map(|n| (n.to_string(), bytes.to_vec()))
        })
        .collect();
    let prepared = forge_release::prepare(
        manifest,
        &content,
        inputs.get("README.md").map(|b| b.as_slice()),
        inputs.get("changes.json").map(|b| b.as_slice()),
    )
    .map_err(as_diagnostics)?;
    let bytes =
        forge_release::archive::write(&prepared.members, &prepared.slug, &prepared.version, None)
            .map_err(|e| vec![finding("archive_write", &file, e)])?;
    let report = forge_release::scan::scan(
        &bytes,
        &forge_release::scan::ScanOptions {
            expect_key: None,
            release_version: Some(&prepared.version),
        },
    );
    let errors: Vec<_> = report.errors().cloned().collect();
    if !errors.is_empty() {
        return Err(as_diagnostics(errors));
    }
    let mut catalog = prepared.catalog;
    catalog["archive_sha256"] = json!(forge_release::signature::sha256_hex(&bytes));
    let stem = format!("release/{}-{}", prepared.slug, prepared.version);
    Ok(vec![
        (format!("{stem}.mjolnir"), bytes),
        (format!("{stem}.forge-pack.json"), pretty(&catalog)),
    ])
}
