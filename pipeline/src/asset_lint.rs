//! `mjolnir manifest lint` and `mjolnir manifest capabilities`: the asset manifest format
//! (`asset-manifest`), with the files read here.

use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;

use asset_manifest::{lint, vocabulary, Inputs, Issue};
use serde_json::json;

/// The top-level file of an inputs ZIP that declares the inputs' rights.
const INPUTS_FILE: &str = "_inputs.json";

/// Lints a manifest; exit 1 when an issue is an error.
pub fn lint_command(manifest: &Path, inputs: Option<&Path>, as_json: bool) -> Result<i32> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("cannot read {}", manifest.display()))?;
    let inputs = inputs
        .map(read_inputs)
        .transpose()?
        .map(|(inputs, _)| inputs);
    let issues = lint(&manifest.display().to_string(), &text, inputs.as_ref());
    Ok(report(manifest, &issues, as_json))
}

/// Prints the issues (as the lint result, with `--json`); the exit code: 1 on an error.
pub fn report(manifest: &Path, issues: &[Issue], as_json: bool) -> i32 {
    let errors = issues.iter().filter(|i| i.is_error()).count();
    if as_json {
        let result = json!({
            "schema": "myrlin.lint-result/1",
            "ok": errors == 0,
            "errors": errors,
            "warnings": issues.len() - errors,
            "issues": issues,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&result).expect("serializes")
        );
    } else {
        for i in issues {
            eprintln!("{} (at {})", i.diagnostic, i.location);
        }
        println!(
            "{}: {errors} errors, {} warnings",
            manifest.display(),
            issues.len() - errors
        );
    }
    if errors > 0 {
        1
    } else {
        0
    }
}

/// The largest file taken from a ZIP.
const MAX_INPUT: u64 = 256 << 20;

/// The inputs ZIP's files (by path) and their rights declaration.
pub fn read_inputs(zip_path: &Path) -> Result<(Inputs, BTreeMap<String, Vec<u8>>)> {
    let mut files = read_zip(zip_path)?;
    let declared = match files.remove(INPUTS_FILE) {
        Some(bytes) => Some(
            String::from_utf8(bytes)
                .with_context(|| format!("{}: {INPUTS_FILE} is not UTF-8", zip_path.display()))?,
        ),
        None => None,
    };
    match Inputs::new(files.keys().cloned().collect(), declared.as_deref()) {
        Ok(inputs) => Ok((inputs, files)),
        Err(e) => bail!("error[bad_inputs_file]: {}: {e}", zip_path.display()),
    }
}

/// Every file of a ZIP (an inputs set or a delivery), by path.
pub fn read_zip(zip_path: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    let file = std::fs::File::open(zip_path)
        .with_context(|| format!("cannot read {}", zip_path.display()))?;
    let mut archive = zip::ZipArchive::new(file)
        .with_context(|| format!("{} is not a ZIP", zip_path.display()))?;
    let mut files = BTreeMap::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i)?;
        if entry.is_dir() {
            continue;
        }
        let name = entry.name()?.into_owned();
        let mut bytes = Vec::new();
        entry
            .by_ref()
            .take(MAX_INPUT)
            .read_to_end(&mut bytes)
            .with_context(|| format!("{}: cannot read {name}", zip_path.display()))?;
        files.insert(name, bytes);
    }
    Ok(files)
}

pub fn capabilities() -> Result<i32> {
    println!(
        "{}",
        serde_json::to_string_pretty(&vocabulary::capabilities())?
    );
    Ok(0)
}
