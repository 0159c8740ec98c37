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
                &std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?,
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
    if args.json {
        let order: Vec<&str> = resolution
            .order
            .iter()
            .map(|p| p.pack.mod_id.as_str())
            .collect();
        print!(
            "{}",
            json_out::pretty_text(&json!({
                "order": order,
                "models": resolution.models.len(),
                "notes": resolution.notes,
                "overrides": resolution.overrides,
                "conflicts": resolution.conflicts,
                "disabled": resolution.disabled,
            }))
        );
    } else {
        print!("{}", resolution.report());
    }
    Ok(0)
}

/// The legacy `haf_models.json` first, then `haf_packs/*.json` and
/// `haf_packs/<mod>/pack.json` by name. A file that does not parse is a note with its line
/// and column; the rest still load.
fn discover(dir: &Path) -> Result<(Vec<Pack>, Vec<String>)> {
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let legacy = dir.join("haf_models.json");
    if legacy.is_file() {
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
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
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
