//! `mjolnir manifest lint` and `mjolnir manifest capabilities`: the asset manifest format
//! (`asset-manifest`), with the files read here.

use std::io::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;

use asset_manifest::rights::BadInputsFile;
use asset_manifest::{lint, vocabulary, Inputs, Issue};

/// The top-level file of an inputs ZIP that declares the inputs' rights.
const INPUTS_FILE: &str = "_inputs.json";

/// The largest manifest or review read (a manifest of 20,000 files is a few megabytes).
const MAX_DOCUMENT_BYTES: u64 = 64 << 20;

/// A manifest's or a review's text: a regular file of at most [`MAX_DOCUMENT_BYTES`].
pub fn read_document(path: &Path) -> Result<String> {
    mjolnir_files::bounded::read_text(path, MAX_DOCUMENT_BYTES)
        .map_err(|e| anyhow::anyhow!("error[{}]: cannot read {}: {e}", e.code(), path.display()))
}

/// Lints a manifest; exit 1 when an issue is an error.
pub fn lint_command(manifest: &Path, inputs: Option<&Path>, as_json: bool) -> Result<i32> {
    let text = read_document(manifest)?;
    let inputs = inputs
        .map(read_inputs)
        .transpose()?
        .map(|(inputs, _)| inputs);
    let issues = lint(&manifest.display().to_string(), &text, inputs.as_ref());
    Ok(report(manifest, &issues, as_json))
}

/// The lint result (`myrlin.lint-result/1`), serialized as it stands rather than through
/// a JSON tree: a result of 20,000 issues is printed in one pass.
#[derive(serde::Serialize)]
struct LintResult<'a> {
    schema: &'static str,
    ok: bool,
    errors: usize,
    warnings: usize,
    issues: &'a [Issue],
}

/// Prints the issues (as the lint result, with `--json`); the exit code: 1 on an error.
pub fn report(manifest: &Path, issues: &[Issue], as_json: bool) -> i32 {
    let errors = issues.iter().filter(|i| i.is_error()).count();
    if as_json {
        let result = LintResult {
            schema: "myrlin.lint-result/1",
            ok: errors == 0,
            errors,
            warnings: issues.len() - errors,
            issues,
        };
        print!("{}", json_out::pretty_text(&result));
    } else {
        // One locked, buffered writer: a line per issue, not a write call per line.
        let mut err = std::io::BufWriter::new(std::io::stderr().lock());
        for i in issues {
            let _ = writeln!(err, "{} (at {})", i.diagnostic, i.location);
        }
        let _ = err.flush();
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

/// What an inputs ZIP or a delivery may hold: each file at most 256 MiB, all of them at
/// most 1 GiB inflated, at most 100,000 files. A file past a limit refuses the ZIP; it is
/// never cut short.
const ZIP_LIMITS: bounded_zip::Limits = bounded_zip::Limits {
    members: 100_000,
    member_bytes: 256 << 20,
    total_bytes: 1 << 30,
};

/// The largest ZIP file read.
const MAX_ZIP_FILE: u64 = 1 << 30;

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
        Err(e) => bail!(
            "error[{}]: {}: {e}",
            BadInputsFile::CODE,
            zip_path.display()
        ),
    }
}

/// Every file of a ZIP (an inputs set or a delivery), by path, through the one bounded
/// reader of other people's ZIPs.
pub fn read_zip(zip_path: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    let bytes = mjolnir_files::bounded::read(zip_path, MAX_ZIP_FILE)
        .map_err(|e| anyhow::anyhow!("error[{}]: {}: {e}", e.code(), zip_path.display()))?;
    bounded_zip::read(&bytes, ZIP_LIMITS, |_| true)
        .map_err(|e| anyhow::anyhow!("error[{}]: {}: {e}", e.code(), zip_path.display()))
}

pub fn capabilities() -> Result<i32> {
    print!("{}", json_out::pretty_text(&vocabulary::capabilities()));
    Ok(0)
}
