//! `mjolnir haf resolve`: finds a HAF config folder's packs (the discovery `docs/haf.md` describes), reads
//! the game's module list, and writes what the `haf` crate resolves: the load report and
//! the merged registry.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use haf::{parse, resolve, Module, Pack};
use serde_json::json;

#[derive(clap::Args)]
pub struct ResolveArgs {
    pub config_dir: PathBuf,
    /// The game's module list: a JSON array of {"name", "guid", "index"}.
    #[arg(long, value_name = "MODULES.json")]
    pub modules: Option<PathBuf>,
    /// Where the report and registry go (default: the config folder).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &ResolveArgs) -> Result<i32> {
    let (packs, unreadable) = discover(&args.config_dir)?;
    let modules: Option<Vec<Module>> = match &args.modules {
        Some(path) => Some(
            serde_json::from_slice(
                &mjolnir_files::bounded::read(path, MAX_MODULES_BYTES)
                    .with_context(|| format!("cannot read {}", path.display()))?,
            )
            .with_context(|| {
                format!(
                    "{} is not a module list: [{{\"name\", \"guid\", \"index\"}}]",
                    path.display()
                )
            })?,
        ),
        None => None,
    };
    let mut resolution = resolve(packs, modules.as_deref());
    for (i, note) in unreadable.into_iter().enumerate() {
        resolution.notes.insert(i, note);
    }
    let dir = &args.config_dir;
    haf::assets::check(&mut resolution, |rel| dir.join(rel).is_file());
    let out = args.out.clone().unwrap_or_else(|| args.config_dir.clone());
    std::fs::create_dir_all(&out)?;
    crate::atomic::write(
        &out.join("haf_load_report.txt"),
        resolution.report().as_bytes(),
    )?;
    let registry: serde_json::Map<String, serde_json::Value> = resolution
        .models
        .iter()
        .map(|(pawn, (owner, model))| (pawn.clone(), json!({"modId": owner, "model": model})))
        .collect();
    let bytes = json_out::pretty(&registry);
    crate::atomic::write(&out.join("haf_registry.json"), &bytes)?;
    let tuning = json_out::pretty(&resolution.tuning_tables);
    crate::atomic::write(&out.join("haf_tuning.json"), &tuning)?;
    if args.json {
        print!("{}", json_out::pretty_text(&report_json(&resolution)));
    } else {
        print!("{}", resolution.report());
    }
    Ok(0)
}

/// Everything the load report says, as JSON.
fn report_json(r: &haf::Resolution) -> serde_json::Value {
    let order: Vec<serde_json::Value> = r
        .order
        .iter()
        .map(|p| {
            json!({
                "modId": p.pack.mod_id,
                "file": p.pack.file,
                "schemaVersion": p.pack.schema_version,
                "models": p.pack.models.len(),
                "module": p.module.as_ref().map(|m| json!({"name": m.name, "index": m.index})),
            })
        })
        .collect();
    json!({
        "format": "mjolnir-haf-resolution",
        "schemaImplemented": haf::SCHEMA_VERSION,
        "order": order,
        "models": r.models.len(),
        "notes": r.notes,
        "warnings": r.warnings,
        "overrides": r.overrides,
        "conflicts": r.conflicts,
        "disabled": r.disabled,
        "tuning": r.tuning,
        "tuningTables": r.tuning_tables,
    })
}

/// The largest pack file read (a pack is a config file; a baked pack of hundreds of
/// models is a few megabytes).
const MAX_PACK_BYTES: u64 = 16 << 20;
/// The largest module list read.
const MAX_MODULES_BYTES: u64 = 4 << 20;

/// The legacy `haf_models.json` first, then `haf_packs/*.json` and
/// `haf_packs/<mod>/pack.json` by name. A file that cannot be read, or does not parse, is a
/// note (with its line and column); the rest still load.
fn discover(dir: &Path) -> Result<(Vec<Pack>, Vec<String>)> {
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let legacy = dir.join("haf_models.json");
    if legacy.exists() {
        files.push(("haf_models".into(), legacy));
    }
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir.join("haf_packs")) {
        for entry in entries {
            let path = entry?.path();
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if path.is_dir() && path.join("pack.json").is_file() {
                found.push((name, path.join("pack.json")));
            } else if path.extension().is_some_and(|x| x == "json") {
                found.push((name, path));
            }
        }
    }
    found.sort();
    files.extend(found);
    let (mut packs, mut unreadable) = (Vec::new(), Vec::new());
    for (name, path) in files {
        let label = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        // A pack that cannot be read (a folder, a FIFO, a device, a link loop, too large)
        // is a note like one that does not parse; the rest still load.
        let text = match mjolnir_files::bounded::read_text(&path, MAX_PACK_BYTES) {
            Ok(text) => text,
            Err(e) => {
                unreadable.push(format!("not loaded {label}: {e}"));
                continue;
            }
        };
        match parse(&label, &name, &text) {
            Ok(p) => packs.push(p),
            Err(e) => unreadable.push(format!(
                "not loaded {}:{}:{}: {}",
                e.file, e.line, e.column, e.message
            )),
        }
    }
    Ok((packs, unreadable))
}
