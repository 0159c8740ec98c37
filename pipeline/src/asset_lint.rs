//! `mjolnir manifest lint` and `mjolnir manifest capabilities`: the asset manifest format
//! (`asset-manifest`), with the files read here.

use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context, Result};
use asset_manifest::{lint, vocabulary, Inputs};
use serde_json::json;

/// The top-level file of an inputs ZIP that declares the inputs' rights.
const INPUTS_FILE: &str = "_inputs.json";

/// Lints a manifest; exit 1 when an issue is an error.
pub fn lint_command(manifest: &Path, inputs: Option<&Path>, as_json: bool) -> Result<i32> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("cannot read {}", manifest.display()))?;
    let inputs = inputs.map(read_inputs).transpose()?;
    let issues = lint(&manifest.display().to_string(), &text, inputs.as_ref());
    let errors = issues.iter().filter(|i| i.is_error()).count();
    if as_json {
        let result = json!({
            "schema": "myrlin.lint-result/1",
            "ok": errors == 0,
            "errors": errors,
            "warnings": issues.len() - errors,
            "issues": issues,
        });
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        for i in &issues {
            eprintln!("{} (at {})", i.diagnostic, i.location);
        }
        println!(
            "{}: {errors} errors, {} warnings",
            manifest.display(),
            issues.len() - errors
        );
    }
    Ok(if errors > 0 { 1 } else { 0 })
}

/// The inputs ZIP's file names and its rights declaration.
fn read_inputs(zip_path: &Path) -> Result<Inputs> {
    let file = std::fs::File::open(zip_path)
        .with_context(|| format!("cannot read {}", zip_path.display()))?;
    let mut archive = zip::ZipArchive::new(file)
        .with_context(|| format!("{} is not a ZIP", zip_path.display()))?;
    let mut names = Vec::new();
    let mut declared = None;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i)?;
        if entry.is_dir() {
            continue;
        }
        let name = entry.name()?.into_owned();
        if name == INPUTS_FILE {
            let mut text = String::new();
            entry
                .by_ref()
                .take(1 << 20)
                .read_to_string(&mut text)
                .with_context(|| format!("{}: {INPUTS_FILE} is not UTF-8", zip_path.display()))?;
            declared = Some(text);
        } else {
            names.push(name);
        }
    }
    match Inputs::new(names, declared.as_deref()) {
        Ok(inputs) => Ok(inputs),
        Err(e) => bail!("error[bad_inputs_file]: {}: {e}", zip_path.display()),
    }
}

pub fn capabilities() -> Result<i32> {
    println!(
        "{}",
        serde_json::to_string_pretty(&vocabulary::capabilities())?
    );
    Ok(0)
}
