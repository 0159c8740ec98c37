//! `myrlin.asset-review/1`: a person's verdict on each delivered file of one manifest
//! revision. A verdict is about bytes, so each judged file carries the SHA-256 it was given;
//! a review whose bytes no longer match the delivery is stale, not silently carried over.

use std::collections::{BTreeMap, BTreeSet};

use forge_contract::Findings;
use serde_json::{json, Map, Value};

use crate::lint::{issues_with_places, Issue};

pub const SCHEMA: &str = "myrlin.asset-review/1";
pub const VERDICTS: &[&str] = &["accepted", "rejected", "pending"];

const TOP: &[&str] = &["schema", "manifestId", "revision", "reviewer", "files"];
const FILE: &[&str] = &["path", "sha256", "verdict", "notes"];

/// What a review is checked against: the manifest it judges and the delivery it saw.
pub struct Delivery<'a> {
    pub manifest: &'a Value,
    /// Each delivered path's SHA-256, lower-case hex.
    pub sha256: &'a BTreeMap<String, String>,
}

/// A review to fill in: every output path of the manifest, pending, with the delivered
/// bytes' digest where there are bytes to judge.
pub fn skeleton(delivery: &Delivery, reviewer: &str) -> Value {
    let files: Vec<Value> = crate::manifest_files(delivery.manifest)
        .into_iter()
        .filter_map(|(_, f)| f["path"].as_str())
        .map(|path| {
            let mut file = json!({"path": path, "verdict": "pending"});
            if let Some(digest) = delivery.sha256.get(path) {
                file["sha256"] = json!(digest);
            }
            file
        })
        .collect();
    json!({
        "schema": SCHEMA,
        "manifestId": delivery.manifest["manifestId"],
        "revision": delivery.manifest["revision"],
        "reviewer": reviewer,
        "files": files,
    })
}

/// Every problem of the review `text` (named `file`), then a warning per file still
/// pending or rejected, so the result says what is left to do.
pub fn check(file: &str, text: &str, delivery: &Delivery) -> Vec<Issue> {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return vec![Issue {
                diagnostic: forge_contract::syntax_error(file, &e),
                location: String::new(),
            }]
        }
    };
    let mut review = Review {
        findings: Findings::new(file, text),
        places: Vec::new(),
        delivery,
    };
    review.findings.refuse_duplicate_keys(text);
    review.places.resize(review.findings.len(), None);
    review.top(&value);
    let Review {
        findings, places, ..
    } = review;
    issues_with_places(findings, places)
}

struct Review<'a> {
    findings: Findings<'a>,
    places: Vec<Option<String>>,
    delivery: &'a Delivery<'a>,
}

impl Review<'_> {
    fn error(&mut self, code: &'static str, pointer: &str, place: Option<&str>, message: String) {
        self.findings.error(code, pointer, message);
        self.places.push(place.map(str::to_string));
    }

    fn warning(&mut self, code: &'static str, pointer: &str, place: &str, message: String) {
        self.findings.warning(code, pointer, message);
        self.places.push(Some(place.to_string()));
    }

    fn known_fields(&mut self, map: &Map<String, Value>, pointer: &str, known: &[&str]) {
        for key in map.keys().filter(|k| !known.contains(&k.as_str())) {
            self.error(
                "unknown_field",
                &format!("{pointer}/{key}"),
                None,
                format!("a review has no field {key:?} here (unknown fields are refused)"),
            );
        }
    }

    fn top(&mut self, value: &Value) {
        let Some(map) = value.as_object() else {
            self.error(
                "not_an_object",
                "",
                None,
                "a review must be an object".into(),
            );
            return;
        };
        self.known_fields(map, "", TOP);
        if map.get("schema") != Some(&json!(SCHEMA)) {
            self.error(
                "wrong_schema",
                "/schema",
                None,
                format!("schema must be {SCHEMA:?}"),
            );
        }
        let reviewer = map.get("reviewer").and_then(Value::as_str);
        if reviewer.is_none_or(|r| r.trim().is_empty()) {
            self.error(
                "review_without_reviewer",
                "/reviewer",
                None,
                "reviewer must name who judged the files".into(),
            );
        }
        for key in ["manifestId", "revision"] {
            if map.get(key) != Some(&self.delivery.manifest[key]) {
                self.error(
                    "review_of_another_manifest",
                    &format!("/{key}"),
                    None,
                    format!(
                        "this review is of {key} {}, but the manifest has {}",
                        map.get(key).unwrap_or(&Value::Null),
                        self.delivery.manifest[key]
                    ),
                );
            }
        }
        let Some(files) = map.get("files").and_then(Value::as_array) else {
            self.error(
                "missing_field",
                "/files",
                None,
                "files must list the reviewed files".into(),
            );
            return;
        };
        self.files(files);
    }

    fn files(&mut self, files: &[Value]) {
        let outputs: BTreeSet<&str> = crate::manifest_files(self.delivery.manifest)
            .into_iter()
            .filter_map(|(_, f)| f["path"].as_str())
            .collect();
        let mut seen = BTreeSet::new();
        for (i, file) in files.iter().enumerate() {
            let pointer = format!("/files/{i}");
            let Some(map) = file.as_object() else {
                self.error(
                    "not_an_object",
                    &pointer,
                    None,
                    "a reviewed file must be an object".into(),
                );
                continue;
            };
            self.known_fields(map, &pointer, FILE);
            let Some(path) = map.get("path").and_then(Value::as_str) else {
                self.error(
                    "missing_field",
                    &pointer,
                    None,
                    "path is required here".into(),
                );
                continue;
            };
            if !outputs.contains(path) {
                self.error(
                    "review_unknown_path",
                    &format!("{pointer}/path"),
                    Some(path),
                    format!("{path} is not an output path of the manifest"),
                );
            } else if !seen.insert(path) {
                self.error(
                    "review_duplicate_path",
                    &format!("{pointer}/path"),
                    Some(path),
                    format!("{path} is reviewed twice; keep one verdict"),
                );
            } else {
                self.file(map, &pointer, path);
            }
        }
        for missing in outputs.difference(&seen) {
            self.warning(
                "review_missing_file",
                "/files",
                missing,
                format!("{missing} has no verdict yet"),
            );
        }
    }

    fn file(&mut self, map: &Map<String, Value>, pointer: &str, path: &str) {
        let verdict = map.get("verdict").and_then(Value::as_str);
        let Some(verdict) = verdict.filter(|v| VERDICTS.contains(v)) else {
            self.error(
                "bad_verdict",
                &format!("{pointer}/verdict"),
                Some(path),
                format!("verdict must be one of: {}", VERDICTS.join(", ")),
            );
            return;
        };
        let delivered = self.delivery.sha256.get(path);
        match (map.get("sha256").and_then(Value::as_str), delivered) {
            (Some(_), None) => self.error(
                "review_not_delivered",
                &format!("{pointer}/sha256"),
                Some(path),
                format!("{path} has a digest in the review but no bytes in the delivery"),
            ),
            (Some(seen), Some(now)) if seen != now => self.error(
                "review_stale",
                &format!("{pointer}/sha256"),
                Some(path),
                format!(
                    "{path} changed since it was reviewed ({} then, {} now); review it again",
                    short(seen),
                    short(now)
                ),
            ),
            (None, _) if verdict != "pending" => self.error(
                "review_without_bytes",
                pointer,
                Some(path),
                format!("{path} is {verdict} without the sha256 of the bytes judged"),
            ),
            _ => {}
        }
        let notes = map.get("notes").and_then(Value::as_str).unwrap_or_default();
        match verdict {
            "rejected" if notes.trim().is_empty() => self.error(
                "review_rejection_unexplained",
                pointer,
                Some(path),
                format!("{path} is rejected without notes saying what to change"),
            ),
            "rejected" => self.warning(
                "file_rejected",
                pointer,
                path,
                format!("{path} is rejected: {notes}"),
            ),
            "pending" => self.warning(
                "file_pending",
                pointer,
                path,
                format!("{path} waits for a verdict"),
            ),
            _ => {}
        }
    }
}

fn short(digest: &str) -> &str {
    digest.get(..12).unwrap_or(digest)
}
