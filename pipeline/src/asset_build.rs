//! `mjolnir manifest build`: an asset manifest's `emit`, `copy` and `derive` files made as
//! steps on the cook's graph, scheduler and cache (`steps::asset_*`), then zipped into the
//! delivery with its paths exactly the manifest's output paths. `generate` files are
//! listed as waiting on the generation service, with their lane; `exists` files are
//! already delivered and are listed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::{bail, Context, Result};
use asset_manifest::{derive, lint, vocabulary, Issue};
use serde_json::{json, Value};

use crate::execute::{self, Finished, Outcome, Settings};
use crate::graph::{Graph, Input, Step, StepId};
use crate::stat_cache::StatCache;
use crate::steps::{self, asset_copy, asset_derive, asset_emit};
use crate::store::Store;

/// `mjolnir manifest build`'s arguments.
#[derive(clap::Args)]
pub struct BuildArgs {
    pub manifest: PathBuf,
    /// The inputs ZIP, with `_inputs.json` declaring their rights.
    #[arg(long, value_name = "ZIP")]
    pub inputs: Option<PathBuf>,
    #[arg(long, value_name = "DELIVERY.zip")]
    pub out: PathBuf,
    /// The build folder: its cache is the cook's, and the inputs are unpacked in
    /// `manifests/<manifestId>/inputs/`.
    #[arg(long, value_name = "DIR", default_value = "build")]
    pub build: PathBuf,
    #[arg(long)]
    pub json: bool,
}

/// A file the build makes, found while walking the manifest.
struct Planned {
    path: String,
    step: StepId,
}

/// The manifest, once lint (with the inputs, when given) and the derive rules this build
/// implements find no error; otherwise the report is printed and `Err` is the exit code.
fn checked(
    args: &BuildArgs,
    (file, text): (&str, &str),
    inputs: Option<&asset_manifest::Inputs>,
) -> Result<Value, i32> {
    let mut issues = lint(file, text, inputs);
    let manifest: Value = match serde_json::from_str(text) {
        Ok(v) if !issues.iter().any(Issue::is_error) => v,
        _ => {
            return Err(crate::asset_lint::report(
                &args.manifest,
                &issues,
                args.json,
            ))
        }
    };
    issues.extend(unimplemented_rules(file, text, &manifest));
    if issues.iter().any(Issue::is_error) {
        return Err(crate::asset_lint::report(
            &args.manifest,
            &issues,
            args.json,
        ));
    }
    Ok(manifest)
}

/// Runs the made files' steps on the engine, with the build folder's cache.
fn run_steps(graph: &Graph, store: &Store, cache: &std::path::Path) -> Result<Vec<Finished>> {
    let stat_cache = StatCache::open(cache.join("stat-cache.json"));
    let pool = rayon::ThreadPoolBuilder::new().build()?;
    let cancel = AtomicBool::new(false);
    let settings = Settings {
        ..Settings::local(store, &stat_cache, &pool, &cancel)
    };
    let results = execute::run(graph, Vec::new(), &settings, &Quiet, &engine::graph::cook);
    store.close()?;
    stat_cache.save()?;
    Ok(results)
}

/// What the build delivered, as JSON or a line per waiting file.
fn print_built(
    args: &BuildArgs,
    members: &BTreeMap<String, Vec<u8>>,
    results: &[Finished],
    (waiting, exists): (&[Value], &[String]),
) {
    let cached = results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Hit))
        .count();
    let summary = json!({
        "schema": "myrlin.build-result/1",
        "delivery": args.out,
        "delivered": members.keys().collect::<Vec<_>>(),
        "steps": results.len(),
        "cached": cached,
        "run": results.len() - cached,
        "waiting_on_generation": waiting,
        "exists": exists,
    });
    if args.json {
        print!("{}", json_out::pretty_text(&summary));
    } else {
        println!(
            "built {}: {} files ({cached} cached, {} run); {} waiting on generation",
            args.out.display(),
            members.len(),
            results.len() - cached,
            waiting.len()
        );
        for w in waiting {
            println!("  waiting: {} ({})", w["path"], w["lane"]);
        }
    }
}

pub fn build(args: &BuildArgs) -> Result<i32> {
    let text = crate::asset_lint::read_document(&args.manifest)?;
    let file = args.manifest.display().to_string();
    let (inputs, input_files) = match &args.inputs {
        Some(zip) => {
            let (inputs, files) = crate::asset_lint::read_inputs(zip)?;
            (Some(inputs), files)
        }
        None => (None, BTreeMap::new()),
    };
    let manifest = match checked(args, (&file, &text), inputs.as_ref()) {
        Ok(manifest) => manifest,
        Err(exit) => return Ok(exit),
    };
    let _lock = crate::cook::build_lock(&args.build)?;
    let id = manifest["manifestId"].as_str().unwrap_or_default();
    let work = args.build.join("manifests").join(id);
    unpack(&work.join("inputs"), &input_files)?;
    let (graph, planned, waiting, exists) = plan(&manifest, id, &work);
    let cache = args.build.join("cache");
    let store = Store::open(&cache)?;
    let results = run_steps(&graph, &store, &cache)?;
    let failed: Vec<_> = results
        .iter()
        .filter_map(|r| match &r.outcome {
            Outcome::Failed(d) => Some(d),
            _ => None,
        })
        .flatten()
        .collect();
    if !failed.is_empty() {
        if args.json {
            print!(
                "{}",
                json_out::pretty_text(&json!({"ok": false, "failed": failed}))
            );
        } else {
            for d in &failed {
                eprintln!("{d}");
            }
        }
        return Ok(1);
    }
    let mut members = BTreeMap::new();
    for p in &planned {
        let output = &results[p.step].outputs[0];
        let bytes = output
            .bytes(&store)
            .map_err(|e| anyhow::anyhow!("{}: {}", p.path, e.detail))?;
        members.insert(p.path.clone(), bytes.to_vec());
    }
    let zip = forge_release::archive::zip_members(&members)?;
    crate::atomic::write(&args.out, &zip)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    print_built(args, &members, &results, (&waiting, &exists));
    Ok(0)
}

/// A derive rule the format names but this build does not implement: refused before
/// anything runs, never skipped.
fn unimplemented_rules(file: &str, text: &str, manifest: &Value) -> Vec<Issue> {
    let mut findings = forge_contract::Findings::new(file, text);
    for (pointer, f) in asset_manifest::manifest_files(manifest) {
        if let Some(rule) = f["derive"]["rule"].as_str() {
            if !derive::IMPLEMENTED.contains(&rule) {
                findings.error(
                    "derive_rule_not_implemented",
                    &format!("{pointer}/derive/rule"),
                    format!(
                        "the derive rule {rule:?} is not implemented by this build yet (implemented: {})",
                        derive::IMPLEMENTED.join(", ")
                    ),
                );
            }
        }
    }
    findings
        .into_vec()
        .into_iter()
        .map(|diagnostic| Issue {
            location: asset_manifest::seed_where(&diagnostic.pointer),
            diagnostic,
        })
        .collect()
}

type Plan = (Graph, Vec<Planned>, Vec<Value>, Vec<String>);

/// A step per made file; the generated and existing files listed.
fn plan(manifest: &Value, id: &str, work: &Path) -> Plan {
    let mut graph = Graph::default();
    let (mut planned, mut waiting, mut exists) = (Vec::new(), Vec::new(), Vec::new());
    for (_, f) in asset_manifest::manifest_files(manifest) {
        let path = f["path"].as_str().unwrap_or_default().to_string();
        let source = |name: String, input: &Value| Input::Source {
            name,
            path: work.join("inputs").join(input.as_str().unwrap_or_default()),
        };
        let (kind, params, inputs) = match f["action"].as_str() {
            Some("emit") => (&asset_emit::KIND, json!({"content": f["content"]}), vec![]),
            Some("copy") => (
                &asset_copy::KIND,
                json!({}),
                vec![source(asset_copy::SOURCE.into(), &f["source"])],
            ),
            Some("derive") => {
                let from = f["derive"]["from"].as_array().cloned().unwrap_or_default();
                let params = json!({"rule": f["derive"]["rule"], "params": f["derive"]["params"], "sources": from.len()});
                let inputs = from
                    .iter()
                    .enumerate()
                    .map(|(i, v)| source(asset_derive::source(i), v))
                    .collect();
                (&asset_derive::KIND, params, inputs)
            }
            Some("generate") => {
                let lane = f["format"].as_str().and_then(vocabulary::lane);
                waiting.push(json!({"path": path, "lane": lane}));
                continue;
            }
            _ => {
                exists.push(path);
                continue;
            }
        };
        let step = graph.add(Step {
            id: format!("{id}/{}/{path}", kind.name),
            pack: id.into(),
            kind,
            block: Some(path.as_str().into()),
            params: params.to_string(),
            inputs,
            source_dir: work.into(),
        });
        planned.push(Planned { path, step });
    }
    (graph, planned, waiting, exists)
}

/// Writes the inputs into `dir`, leaving files that already hold their bytes alone (so
/// their stamps, and the stat cache, stay valid).
fn unpack(dir: &Path, files: &BTreeMap<String, Vec<u8>>) -> Result<()> {
    for (name, bytes) in files {
        if !steps::is_plain_relative(name) {
            bail!("error[bad_input_path]: the inputs ZIP holds {name:?}, which is not a plain relative path");
        }
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_ref() != Some(bytes) {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            crate::atomic::write(&path, bytes)?;
        }
    }
    Ok(())
}

struct Quiet;

impl execute::Observer for Quiet {
    fn finished(&self, _: &Graph, _: StepId, _: &Finished) {}
}
