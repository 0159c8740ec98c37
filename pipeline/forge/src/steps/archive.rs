//! `archive` (with `--archive`): packs a set into an unsigned `.mjolnir` release, runs the
//! Hub's scan on it, and writes the catalog the Hub would publish for it
//! (`GET /api/v1/releases/{id}/forge-pack`: catalog, version, archive SHA-256, deps).

use std::collections::BTreeMap;

use forge_contract::Diagnostic;
use serde_json::json;

use super::coded::diagnostic;
use super::common::{input, pretty, source_file};
use super::kind::{Lands, Scope};
use super::{assemble, catalog, documents};
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "archive",
        version: 1,
        outputs: Names::Dynamic,
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Set,
    lands: Lands::SetRoot,
    wire,
};

pub const README: &str = "README.md";

fn wire(w: &Wiring) -> Option<Wired> {
    if !w.options.archive {
        return None;
    }
    let container = |name: &str| w.upstream(name, &assemble::KIND, name);
    let document = |name: &str| w.upstream(name, &documents::KIND, name);
    let [utoc, ucas, _pak] = forge_release::container::container_files(w.pack_id());
    let mut inputs = vec![
        document(catalog::MANIFEST),
        container(&utoc),
        container(&ucas),
    ];
    if w.has_source(documents::CHANGES) {
        inputs.push(document(documents::CHANGES));
    }
    if w.has_source(README) {
        inputs.push(w.source(README));
    }
    Wired::inputs(inputs)
}

fn cook(_step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(catalog::MANIFEST);
    let as_diagnostics = |findings: Vec<forge_release::scan::Finding>| -> Vec<Diagnostic> {
        findings
            .into_iter()
            .map(|f| {
                let member = f.member.map(|m| format!("{m}: ")).unwrap_or_default();
                finding(f.code, &file, format!("{member}{}", f.message))
            })
            .collect()
    };
    let manifest = input(inputs, catalog::MANIFEST, &file)?;
    let content: BTreeMap<String, Vec<u8>> = inputs
        .iter()
        .filter_map(|(name, bytes)| {
            Some((name.strip_prefix("content/")?.to_string(), bytes.to_vec()))
        })
        .collect();
    let prepared = forge_release::prepare(
        manifest,
        &content,
        inputs.get(README).map(|b| b.as_slice()),
        inputs.get(documents::CHANGES).map(|b| b.as_slice()),
    )
    .map_err(as_diagnostics)?;
    let bytes =
        forge_release::archive::write(&prepared.members, &prepared.slug, &prepared.version, None)
            .map_err(|e| diagnostic(&file, &e))?;
    let report = forge_release::scan::scan(
        &bytes,
        &forge_release::scan::ScanOptions {
            expect_key: None,
            release_version: Some(&prepared.version),
            // Keys never enter the cache: `forge pack --sign` signs.
            allow_unsigned: true,
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
