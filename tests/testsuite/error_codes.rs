//! The code registry: `docs/errors.md` is generated from it, every code the sources print
//! is declared in it, and a command that cannot run reports its code under `--json`.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use regex::Regex;
use serde_json::Value;

use crate::support::{self, Workspace};

fn mjolnir(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mjolnir"))
        .args(args)
        .output()
        .unwrap()
}

fn registry() -> BTreeSet<String> {
    let out = mjolnir(&["errors", "--json"]);
    assert!(out.status.success());
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    json["codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn docs_errors_md_is_generated_from_the_registry() {
    let out = mjolnir(&["errors", "--markdown"]);
    let docs = std::fs::read_to_string(support::repo().join("docs/errors.md")).unwrap();
    assert!(
        String::from_utf8(out.stdout).unwrap() == docs,
        "docs/errors.md is stale: run `mjolnir errors --markdown > docs/errors.md`"
    );
}

/// The places a code is written in the sources: a finding or error helper's first
/// argument (or second, after the findings), a `(code, message)` pair, a `code:` field or
/// comparison, a `code()` match arm, `error[code]` or
/// `warning[code]` in a
/// message, and a constant named after its code or `CODE`.
fn codes_in(text: &str, found: &mut BTreeSet<String>) {
    let snake = r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+";
    // A helper's first argument may be a one-word code ("unsigned"); an error type's
    // `#[error("...")]` attribute is a message, not a code.
    let text = &text.replace("#[error(", "#[message(");
    let word = r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*";
    let call = Regex::new(&format!(
        r#"\b(?:error|finding|fail|err|warning|note|path_error|unreadable|donor|at|new)\(\s*"({word})""#
    ))
    .unwrap();
    let field = Regex::new(&format!(r#"code(?:\s*:|\s*==)\s*"({snake})""#)).unwrap();
    // A `(code, message)` pair, and a helper that takes the findings first.
    let pair = Regex::new(&format!(r#"\(\s*"({snake})",\s*(?:format!|")"#)).unwrap();
    let helper = Regex::new(&format!(
        r#"\b\w+\(\s*(?:f|&mut f|findings|out|r|self),\s*"({snake})""#
    ))
    .unwrap();
    let message = Regex::new(&format!(r"(?:error|warning)\[({snake})\]")).unwrap();
    let constant = Regex::new(&format!(
        r#"const ([A-Z_]+): &(?:'static )?str = "({snake})""#
    ))
    .unwrap();
    let code_fn = Regex::new(r"(?s)fn code\(.*?\n    \}").unwrap();
    let arm = Regex::new(&format!(r#"=>\s*"({snake})""#)).unwrap();
    for re in [&call, &field, &message, &pair, &helper] {
        found.extend(re.captures_iter(text).map(|c| c[1].to_string()));
    }
    for c in constant.captures_iter(text) {
        if c[1] == *"CODE" || c[1].to_ascii_lowercase() == c[2] {
            found.insert(c[2].to_string());
        }
    }
    for body in code_fn.find_iter(text) {
        found.extend(arm.captures_iter(body.as_str()).map(|c| c[1].to_string()));
    }
}

fn walk(dir: &Path, found: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if !["tests", "benches", "target", "fuzz"].contains(&name.as_str()) {
                walk(&path, found);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" && name != "codes.rs" {
            let text = std::fs::read_to_string(&path).unwrap();
            // Unit tests make up codes of their own.
            let text = text.split("#[cfg(test)]").next().unwrap();
            // The tags' layouts name their blocks the way findings name codes.
            let text = if path.components().any(|c| c.as_os_str() == "tags") {
                text.replace("instance(", "layout(")
            } else {
                text.to_string()
            };
            codes_in(&text, found);
        }
    }
}

#[test]
fn every_code_the_sources_print_is_declared_once() {
    let mut found = BTreeSet::new();
    for dir in ["cookers", "pipeline"] {
        walk(&support::repo().join(dir), &mut found);
    }
    let declared = registry();
    let undeclared: Vec<&String> = found.difference(&declared).collect();
    assert!(
        undeclared.is_empty(),
        "codes without a line in pipeline/src/codes.rs: {undeclared:?}"
    );
    let unused: Vec<&String> = declared
        .difference(&found)
        .filter(|c| *c != "could_not_run")
        .collect();
    assert!(
        unused.is_empty(),
        "declared codes no source prints: {unused:?}"
    );
}

#[test]
fn a_command_that_cannot_run_reports_its_code_in_json() {
    let ws = Workspace::without_donors(&["foundry"]);
    let out = ws.mjolnir(&["forge", "cook", "--config", "missing.toml", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["format"], "mjolnir-error");
    assert_eq!(json["code"], "no_config");
    assert_eq!(json["exit"], 2);
    assert!(json["message"].as_str().unwrap().contains("missing.toml"));

    // An error with no code of its own is reported as could_not_run.
    let out = ws.mjolnir(&["forge", "inspect", "no-such-file.utoc", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["code"].is_string(), "{json}");
    let code = json["code"].as_str().unwrap();
    let explained = mjolnir(&["errors", code]);
    assert!(explained.status.success(), "{code} is not in the registry");

    // Without --json, stdout stays empty.
    let out = ws.mjolnir(&["forge", "cook", "--config", "missing.toml"]);
    assert!(out.stdout.is_empty());
}

#[test]
fn an_unknown_code_is_named() {
    let out = mjolnir(&["errors", "no_such_code"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown_code"));
}
