//! `mjolnir forge cook`: plans the graph for the configured packs, runs it, materializes
//! each set and writes the report.
//!
//! The graph grows in two stages. The first validates every pack's catalog and geometry,
//! so contract errors arrive before any cooking starts; its outputs name the blocks, from
//! which the second stage adds the per-block cooks and each set's assembly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Result};
use forge_contract::Diagnostic;
use rayon::prelude::*;
use serde_json::{json, Value};

use crate::config::{Config, PackSource};
use crate::execute::{self, Finished, Outcome, Output, Settings};
use crate::graph::{Graph, Input, Kind, Step, StepId};
use crate::lock::{BuildLock, LockError};
use crate::materialize;
use crate::progress::Progress;
use crate::report;
use crate::stat_cache::StatCache;
use crate::store::Store;

pub struct Options {
    pub config: Config,
    /// Render previews, with these settings.
    pub render: Option<crate::preview::RenderParams>,
    /// Pack each set into an unsigned release archive as the graph's last step.
    pub archive: bool,
    pub only: Vec<String>,
    pub use_cache: bool,
    pub keep_going: bool,
    pub explain: bool,
    pub json: bool,
}

/// How a cook ended, for the exit code.
pub enum Ending {
    Cooked,
    /// Some step failed; its findings were printed and reported.
    Failed,
}

/// The name of a set folder: `all`, or the `--only` blocks joined by `+`.
pub fn set_name(only: &[String]) -> String {
    if only.is_empty() {
        return "all".into();
    }
    let name = only.join("+");
    // A block may be called `all`; its reduced set must not land in the full set's folder.
    if name == "all" {
        "only-all".into()
    } else {
        name
    }
}

fn source(pack: &PackSource, rel: &str) -> Input {
    Input::Source {
        name: rel.to_string(),
        path: pack.dir.join(rel),
    }
}

fn upstream(name: impl Into<String>, step: StepId, output: impl Into<String>) -> Input {
    Input::Upstream {
        name: name.into(),
        step,
        output: output.into(),
    }
}

struct PackSteps {
    catalog: StepId,
    geometry: StepId,
}

fn plan_validation(graph: &mut Graph, packs: &[PackSource]) -> Vec<PackSteps> {
    packs
        .iter()
        .map(|pack| {
            let catalog = graph.add(Step {
                id: format!("{}/catalog", pack.id),
                pack: pack.id.clone(),
                kind: Kind::Catalog,
                block: None,
                params: String::new(),
                inputs: vec![source(pack, "mjolnir.json")],
            });
            let geometry = graph.add(Step {
                id: format!("{}/geometry", pack.id),
                pack: pack.id.clone(),
                kind: Kind::Geometry,
                block: None,
                params: String::new(),
                inputs: vec![
                    source(pack, "source/geometry.json"),
                    upstream("mjolnir.json", catalog, "mjolnir.json"),
                ],
            });
            PackSteps { catalog, geometry }
        })
        .collect()
}

/// The model file of a block and the external buffers it names, relative to the pack.
/// `models` lists the file names in `source/models/` (read once per pack, not stat'ed per
/// block: a no-op cook's time is mostly file-system calls).
fn model_inputs(
    pack: &PackSource,
    block: &str,
    models: &std::collections::HashSet<String>,
    stat_cache: &StatCache,
) -> (String, Vec<String>) {
    let gltf = format!("source/models/{block}.gltf");
    let glb = format!("source/models/{block}.glb");
    if models.contains(&format!("{block}.glb")) && !models.contains(&format!("{block}.gltf")) {
        return (glb, Vec::new());
    }
    let externals = stat_cache
        .derived(&pack.dir.join(&gltf), |bytes| {
            forge_gltf::external_uris(&gltf, bytes).unwrap_or_default()
        })
        .unwrap_or_default()
        .into_iter()
        .map(|uri| forge_gltf::uri_to_relative_path(&uri))
        .filter(|rel| is_plain_relative(rel))
        .map(|rel| format!("source/models/{rel}"))
        .collect();
    (gltf, externals)
}

/// A buffer URI may only name a file beside the model or below it.
fn is_plain_relative(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.starts_with('/')
        && !rel.contains('\\')
        && !rel.contains(':')
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

fn output<'a>(results: &'a [Finished], step: StepId, name: &str) -> Option<&'a Arc<Output>> {
    results[step].outputs.iter().find(|o| o.name == name)
}

fn block_ids(manifest: &[u8]) -> Vec<String> {
    let value: Value = serde_json::from_slice(manifest).unwrap_or_default();
    value["forge_pack"]["blocks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["id"].as_str().map(str::to_string))
        .collect()
}

/// The outputs a block contributes to its set, and the steps that make them.
struct BlockSteps {
    id: String,
    outputs: Vec<(StepId, String)>,
}

struct SetPlan {
    pack: usize,
    /// The previews and contact sheet, when rendering.
    renders: Vec<StepId>,
    blocks: Vec<BlockSteps>,
    assemble: StepId,
    /// The release archive step, with `--archive`.
    archive: Option<StepId>,
}

fn plan_cook(
    graph: &mut Graph,
    packs: &[PackSource],
    validation: &[PackSteps],
    catalogs: &[Vec<String>],
    options: &Options,
    stat_cache: &StatCache,
) -> Result<Vec<SetPlan>> {
    let (only, archive, render) = (
        options.only.as_slice(),
        options.archive,
        options.render.as_ref(),
    );
    let mut sets = Vec::new();
    let mut unmatched: Vec<&String> = only.iter().collect();
    for (pi, pack) in packs.iter().enumerate() {
        let all = catalogs[pi].clone();
        let blocks: Vec<String> = if only.is_empty() {
            all
        } else {
            all.into_iter().filter(|b| only.contains(b)).collect()
        };
        unmatched.retain(|o| !blocks.contains(o));
        if blocks.is_empty() {
            continue;
        }
        let models: std::collections::HashSet<String> =
            std::fs::read_dir(pack.dir.join("source/models"))
                .map(|d| {
                    d.filter_map(|e| e.ok())
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
        let mut cooked = Vec::new();
        for block in &blocks {
            let (model, externals) = model_inputs(pack, block, &models, stat_cache);
            let mut inputs = vec![source(pack, &model)];
            inputs.extend(externals.iter().map(|e| source(pack, e)));
            let per_block = |kind: Kind, params: String, inputs: Vec<Input>| Step {
                id: format!("{}/{}/{block}", pack.id, kind.name()),
                pack: pack.id.clone(),
                kind,
                block: Some(block.clone()),
                params,
                inputs,
            };
            let import = graph.add(per_block(Kind::Import, model, inputs));
            let mesh = graph.add(per_block(
                Kind::Mesh,
                String::new(),
                vec![upstream("mesh.fgim", import, "mesh.fgim")],
            ));
            let actor = graph.add(per_block(
                Kind::Actor,
                String::new(),
                vec![
                    upstream(
                        "entry.json",
                        validation[pi].catalog,
                        format!("entry/{block}.json"),
                    ),
                    upstream(
                        "geometry.json",
                        validation[pi].geometry,
                        format!("block/{block}.json"),
                    ),
                    upstream("static_mesh.fmsh", mesh, "static_mesh.fmsh"),
                ],
            ));
            let geometry = || {
                upstream(
                    "geometry.json",
                    validation[pi].geometry,
                    format!("block/{block}.json"),
                )
            };
            let collision = graph.add(per_block(Kind::Collision, String::new(), vec![geometry()]));
            let mopp = graph.add(per_block(
                Kind::Mopp,
                String::new(),
                vec![upstream("collision.fcol", collision, "collision.fcol")],
            ));
            let polyhedra = graph.add(per_block(Kind::Polyhedra, String::new(), vec![geometry()]));
            let check = graph.add(per_block(
                Kind::Checks,
                String::new(),
                vec![
                    geometry(),
                    upstream(
                        "entry.json",
                        validation[pi].catalog,
                        format!("entry/{block}.json"),
                    ),
                    upstream("collision.fcol", collision, "collision.fcol"),
                    upstream("mopp.fmop", mopp, "mopp.fmop"),
                    upstream("static_mesh.fmsh", mesh, "static_mesh.fmsh"),
                ],
            ));
            let tags = graph.add(per_block(
                Kind::Tags,
                String::new(),
                vec![
                    upstream("collision.fcol", collision, "collision.fcol"),
                    upstream("mopp.fmop", mopp, "mopp.fmop"),
                    upstream("polyhedra.fpol", polyhedra, "polyhedra.fpol"),
                ],
            ));
            cooked.push(BlockSteps {
                id: block.clone(),
                outputs: vec![
                    (mesh, "static_mesh.fmsh"),
                    (actor, "actor.json"),
                    (collision, "collision.fcol"),
                    (mopp, "mopp.fmop"),
                    (polyhedra, "polyhedra.fpol"),
                    (check, "checks.json"),
                ]
                .into_iter()
                .map(|(step, name)| (step, name.to_string()))
                .chain(
                    ["crate", "model", "physics_model", "collision_model"]
                        .map(|ext| (tags, format!("{block}.{ext}"))),
                )
                .collect(),
            });
        }
        let mut inputs = vec![upstream(
            "mjolnir.json",
            validation[pi].catalog,
            "mjolnir.json",
        )];
        if pack.dir.join("changes.json").is_file() {
            inputs.push(source(pack, "changes.json"));
        }
        for b in &cooked {
            for (step, name) in &b.outputs {
                inputs.push(upstream(format!("{}/{name}", b.id), *step, name.as_str()));
            }
            inputs.push(upstream(
                format!("{}/geometry.json", b.id),
                validation[pi].geometry,
                format!("block/{}.json", b.id),
            ));
        }
        let params =
            json!({"set": set_name(only), "blocks": blocks, "diagnostic": !only.is_empty()})
                .to_string();
        let assemble = graph.add(Step {
            id: format!("{}/assemble/{}", pack.id, set_name(only)),
            pack: pack.id.clone(),
            kind: Kind::Assemble,
            block: None,
            params,
            inputs,
        });
        let archive = archive.then(|| {
            let container = format!("content/{}_P", pack.id);
            let mut inputs = vec![
                upstream("mjolnir.json", assemble, "mjolnir.json"),
                upstream(
                    format!("{container}.utoc"),
                    assemble,
                    format!("{container}.utoc"),
                ),
                upstream(
                    format!("{container}.ucas"),
                    assemble,
                    format!("{container}.ucas"),
                ),
            ];
            if pack.dir.join("changes.json").is_file() {
                inputs.push(upstream("changes.json", assemble, "changes.json"));
            }
            if pack.dir.join("README.md").is_file() {
                inputs.push(source(pack, "README.md"));
            }
            graph.add(Step {
                id: format!("{}/archive/{}", pack.id, set_name(only)),
                pack: pack.id.clone(),
                kind: Kind::Archive,
                block: None,
                params: String::new(),
                inputs,
            })
        });
        let mut renders = Vec::new();
        if let Some(render) = render {
            let params = serde_json::to_string(render).expect("render settings serialize");
            let mut sheet_inputs = Vec::new();
            for b in &cooked {
                let output = |name: &str| {
                    b.outputs
                        .iter()
                        .find(|(_, n)| n == name)
                        .map(|(s, _)| *s)
                        .expect("every block has its outputs")
                };
                let id = graph.add(Step {
                    id: format!("{}/render/{}", pack.id, b.id),
                    pack: pack.id.clone(),
                    kind: Kind::Render,
                    block: Some(b.id.clone()),
                    params: params.clone(),
                    inputs: vec![
                        upstream(
                            "static_mesh.fmsh",
                            output("static_mesh.fmsh"),
                            "static_mesh.fmsh",
                        ),
                        upstream("collision.fcol", output("collision.fcol"), "collision.fcol"),
                        upstream("checks.json", output("checks.json"), "checks.json"),
                        upstream(
                            "entry.json",
                            validation[pi].catalog,
                            format!("entry/{}.json", b.id),
                        ),
                        upstream(
                            "geometry.json",
                            validation[pi].geometry,
                            format!("block/{}.json", b.id),
                        ),
                    ],
                });
                sheet_inputs.push(upstream(
                    format!("{}.png", b.id),
                    id,
                    format!("{}.png", b.id),
                ));
                sheet_inputs.push(upstream(
                    format!("{}.entry.json", b.id),
                    validation[pi].catalog,
                    format!("entry/{}.json", b.id),
                ));
                renders.push(id);
            }
            let ids: Vec<&str> = cooked.iter().map(|b| b.id.as_str()).collect();
            renders.push(graph.add(Step {
                id: format!("{}/sheet/{}", pack.id, set_name(only)),
                pack: pack.id.clone(),
                kind: Kind::Sheet,
                block: None,
                params: serde_json::to_string(&ids).expect("ids serialize"),
                inputs: sheet_inputs,
            }));
        }
        sets.push(SetPlan {
            renders,
            pack: pi,
            blocks: cooked,
            assemble,
            archive,
        });
    }
    if !unmatched.is_empty() {
        let names: Vec<&str> = unmatched.iter().map(|s| s.as_str()).collect();
        bail!(
            "--only {}: no such block in the selected packs",
            names.join(", ")
        );
    }
    Ok(sets)
}

fn print_failures(graph: &Graph, results: &[Finished]) {
    for (step, r) in graph.steps.iter().zip(results) {
        if let Outcome::Failed(diagnostics) = &r.outcome {
            eprintln!("{} failed:", step.id);
            for d in diagnostics {
                eprintln!("  {d}");
            }
        }
    }
}

fn print_explain(graph: &Graph, results: &[Finished], from: usize) {
    for (step, r) in graph.steps.iter().zip(results).skip(from) {
        if let Outcome::Ran(dirty) = &r.outcome {
            eprintln!("ran {}: {}", step.id, dirty.describe());
        }
    }
}

/// One pass over the graph. A pass that meets a damaged cached output is repeated once
/// with every hit verified.
struct Attempt {
    graph: Graph,
    results: Vec<Finished>,
    sets: Vec<SetPlan>,
    materialized: materialize::Changes,
    /// What was damaged, when a cached output failed its check.
    corrupt: Option<String>,
    /// The report's step records, serialized while the set folders were materialized.
    step_records: Option<Vec<u8>>,
}

impl Attempt {
    /// An attempt that ends before its set folders are materialized.
    fn stopped(
        graph: Graph,
        results: Vec<Finished>,
        sets: Vec<SetPlan>,
        materialized: materialize::Changes,
        corrupt: Option<String>,
    ) -> Attempt {
        Attempt {
            graph,
            results,
            sets,
            materialized,
            corrupt,
            step_records: None,
        }
    }
}

fn attempt(options: &Options, settings: &Settings, progress: &Progress) -> Result<Attempt> {
    let config = &options.config;
    let store = settings.store;
    let mut graph = Graph::default();
    let validation = plan_validation(&mut graph, &config.packs);
    progress.start(&graph);
    let mut results = execute::run(&graph, Vec::new(), settings, progress);
    let validated = results
        .iter()
        .all(|r| matches!(r.outcome, Outcome::Hit | Outcome::Ran(_)));
    let mut sets = Vec::new();
    let mut materialized = materialize::Changes::default();
    if validated {
        let mut catalogs = Vec::new();
        for v in &validation {
            match output(&results, v.catalog, "mjolnir.json").map(|o| o.bytes(store)) {
                Some(Ok(bytes)) => catalogs.push(block_ids(&bytes)),
                Some(Err(e)) => {
                    return Ok(Attempt::stopped(
                        graph,
                        results,
                        sets,
                        materialized,
                        Some(e.detail),
                    ))
                }
                None => catalogs.push(Vec::new()),
            }
        }
        let first_cook_step = graph.steps.len();
        sets = plan_cook(
            &mut graph,
            &config.packs,
            &validation,
            &catalogs,
            options,
            settings.stat_cache,
        )?;
        progress.start(&Graph {
            steps: graph.steps[first_cook_step..].to_vec(),
        });
        results = execute::run(&graph, results, settings, progress);
    }
    let corrupt = results.iter().find_map(|r| match &r.outcome {
        Outcome::Failed(d) => d
            .iter()
            .find(|d| d.code == execute::CACHE_CORRUPT)
            .map(|d| d.message.clone()),
        _ => None,
    });
    let counts = report::count(&results);
    if corrupt.is_some() || counts.failed > 0 || counts.skipped > 0 {
        return Ok(Attempt::stopped(
            graph,
            results,
            sets,
            materialized,
            corrupt,
        ));
    }
    let mut folders = Vec::new();
    for set in &sets {
        let pack = &config.packs[set.pack];
        let mut files: BTreeMap<String, Arc<Output>> = BTreeMap::new();
        for step in std::iter::once(set.assemble).chain(set.archive) {
            for o in &results[step].outputs {
                files.insert(o.name.clone(), o.clone());
            }
        }
        for b in &set.blocks {
            for (step, name) in &b.outputs {
                if let Some(o) = output(&results, *step, name) {
                    files.insert(format!("cooked/{}/{name}", b.id), o.clone());
                }
            }
            if let Some(g) = output(
                &results,
                validation[set.pack].geometry,
                &format!("block/{}.json", b.id),
            ) {
                files.insert(format!("cooked/{}/geometry.json", b.id), g.clone());
            }
        }
        // Renders get their own folder, so an artist's previews are not part of the set.
        folders.push((set_dir(&config.out, &pack.id, &options.only), files));
        if !set.renders.is_empty() {
            let mut renders: BTreeMap<String, Arc<Output>> = BTreeMap::new();
            for step in &set.renders {
                for o in &results[*step].outputs {
                    renders.insert(o.name.clone(), o.clone());
                }
            }
            let dir = config
                .out
                .join("render")
                .join(&pack.id)
                .join(set_name(&options.only));
            folders.push((dir, renders));
        }
    }
    // Folders are independent; a no-op cook spends much of its time checking them, and
    // meanwhile the report's bulk (every step's record) is serialized.
    let (outcomes, step_records): (Vec<_>, _) = settings.pool.install(|| {
        rayon::join(
            || {
                folders
                    .par_iter()
                    .map(|(dir, files)| {
                        materialize::set_folder(dir, files, store, settings.stat_cache)
                    })
                    .collect()
            },
            || report::serialize_steps(&graph, &results),
        )
    });
    for ((dir, _), outcome) in folders.iter().zip(outcomes) {
        match outcome {
            Ok(c) => {
                materialized.written += c.written;
                materialized.removed += c.removed;
            }
            Err(materialize::Error::Corrupt(e)) => {
                return Ok(Attempt::stopped(
                    graph,
                    results,
                    sets,
                    materialized,
                    Some(e.detail),
                ))
            }
            Err(materialize::Error::Io(e)) => bail!("cannot write {}: {e}", dir.display()),
        }
    }
    Ok(Attempt {
        graph,
        results,
        sets,
        materialized,
        corrupt: None,
        step_records: Some(step_records),
    })
}

pub fn cook(options: &Options) -> Result<Ending> {
    let started = Instant::now();
    let config = &options.config;
    let _lock = match BuildLock::acquire(&config.out) {
        Ok(lock) => lock,
        Err(LockError::Busy) => bail!(
            "error[build_locked]: another cook is using {}; wait for it to finish (nothing was changed)",
            config.out.display()
        ),
        Err(LockError::Io(e)) => bail!("cannot lock {}: {e}", config.out.display()),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.jobs.max(1))
        .build()?;
    // The action log and the stat cache are the two files every cook parses first.
    let (store, stat_cache) = pool.join(
        || Store::open(&config.cache),
        || StatCache::open(config.cache.join("stat-cache.json")),
    );
    let store = store?;
    let mut settings = Settings {
        store: &store,
        stat_cache: &stat_cache,
        use_cache: options.use_cache,
        jobs: config.jobs,
        keep_going: options.keep_going,
        verify_hits: false,
        pool: &pool,
    };
    let pack_ids: Vec<String> = config.packs.iter().map(|p| p.id.clone()).collect();
    let progress = Progress::new(&pack_ids);
    let mut run = attempt(options, &settings, &progress)?;
    if let Some(detail) = &run.corrupt {
        eprintln!(
            "warning[cache_corrupt]: {detail}; cooking again with every cached output verified"
        );
        settings.verify_hits = true;
        run = attempt(options, &settings, &progress)?;
    }
    progress.finish();
    let Attempt {
        graph,
        results,
        sets,
        materialized,
        step_records,
        ..
    } = run;
    let counts = report::count(&results);
    let ok = counts.failed == 0 && counts.skipped == 0;
    if !ok {
        print_failures(&graph, &results);
    }
    if options.explain {
        print_explain(&graph, &results, 0);
    }
    stat_cache.save()?;
    let elapsed = started.elapsed();
    let errors: Vec<&Diagnostic> = results
        .iter()
        .flat_map(|r| match &r.outcome {
            Outcome::Failed(d) => d.iter().collect(),
            _ => Vec::new(),
        })
        .collect();
    let packs_cooked = if sets.is_empty() {
        config.packs.len()
    } else {
        sets.len()
    };
    let line = report::summary_line(packs_cooked, counts, elapsed);
    let summary = json!({
        "packs": pack_ids,
        "set": set_name(&options.only),
        "steps": counts.steps,
        "cached": counts.cached,
        "run": counts.run,
        "failed": counts.failed,
        "skipped": counts.skipped,
        "hit_rate": if counts.steps == 0 { 0.0 } else { counts.cached as f64 / counts.steps as f64 },
        "seconds": elapsed.as_secs_f64(),
        "verified_hits": settings.verify_hits,
        "materialized": {"written": materialized.written, "removed": materialized.removed},
        "line": line,
        "render": config.render,
    });
    let steps = step_records.unwrap_or_else(|| report::serialize_steps(&graph, &results));
    let full = report::Report {
        summary: &summary,
        errors: &errors,
        steps: &steps,
    };
    let cooked_sets: Vec<(String, String)> = sets
        .iter()
        .map(|s| (config.packs[s.pack].id.clone(), set_name(&options.only)))
        .collect();
    let (json_written, html_written) = pool.join(
        || report::write(&config.out.join("report.json"), &full),
        || crate::html::write(&config.out, &cooked_sets, &summary, &graph, &results),
    );
    json_written?;
    html_written?;
    if options.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({"summary": summary, "errors": errors}))
                .expect("serializes")
        );
    } else {
        println!("{line}");
    }
    // The process ends next; freeing every step, output and cache entry first only costs
    // a no-op cook time.
    std::mem::forget(errors);
    std::mem::forget((graph, results));
    Ok(if ok { Ending::Cooked } else { Ending::Failed })
}

/// Where a set is materialized: `<out>/game/<pack>/<set>/`.
pub fn set_dir(out: &Path, pack: &str, only: &[String]) -> PathBuf {
    out.join("game").join(pack).join(set_name(only))
}
