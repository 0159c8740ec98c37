//! Every problem a manifest has, before anything is quoted or built: the shape the schema
//! gives, then the rules past it (paths, lanes, ids, derive blocks, input rights).

use std::collections::BTreeSet;

use forge_contract::{Diagnostic, Findings, Severity};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::rights::Inputs;
use crate::vocabulary::{self as v, lane};

/// One lint issue: a coded finding (file, JSON pointer, line and column) and its `where`
/// in the format's own form (`docs/asset-manifest.md`), `assets[3].representations[0].files[1]` or an output path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Issue {
    #[serde(flatten)]
    pub diagnostic: Diagnostic,
    #[serde(rename = "where")]
    pub location: String,
}

impl Issue {
    pub fn is_error(&self) -> bool {
        self.diagnostic.severity == Severity::Error
    }
}

const TOP: &[&str] = &[
    "schema",
    "manifestId",
    "revision",
    "project",
    "namespace",
    "targets",
    "style",
    "assets",
];
const TOP_REQUIRED: &[&str] = &[
    "schema",
    "manifestId",
    "revision",
    "project",
    "targets",
    "style",
    "assets",
];
const ASSET: &[&str] = &[
    "id",
    "name",
    "kind",
    "status",
    "action",
    "describe",
    "representations",
];
const REPRESENTATION: &[&str] = &["id", "name", "role", "files"];
const FILE: &[&str] = &[
    "path", "format", "action", "describe", "content", "source", "derive",
];
const DERIVE: &[&str] = &["rule", "from", "params"];

/// Lints `text` (the manifest, named `file` in the issues) against the format, and its
/// copy and derive files against `inputs` when given.
pub fn lint(file: &str, text: &str, inputs: Option<&Inputs>) -> Vec<Issue> {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let d = forge_contract::syntax_error(file, &e);
            return vec![Issue {
                diagnostic: d,
                location: String::new(),
            }];
        }
    };
    let mut lint = Lint {
        findings: Findings::new(file, text),
        places: Vec::new(),
        paths: BTreeSet::new(),
        namespace: None,
        minecraft: false,
        hytale: false,
        inputs,
    };
    lint.findings.refuse_duplicate_keys(text);
    lint.places.resize(lint.findings.len(), None);
    lint.manifest(&value);
    issues_with_places(lint.findings, lint.places)
}

/// The findings as issues: each `where` is its place when one was given (an output path),
/// else its pointer in the format's own form.
pub(crate) fn issues_with_places(findings: Findings, places: Vec<Option<String>>) -> Vec<Issue> {
    findings
        .into_vec()
        .into_iter()
        .zip(places)
        .map(|(diagnostic, place)| Issue {
            location: place.unwrap_or_else(|| seed_where(&diagnostic.pointer)),
            diagnostic,
        })
        .collect()
}

/// `/assets/3/representations/0/files/1` as `assets[3].representations[0].files[1]`.
pub fn seed_where(pointer: &str) -> String {
    // The whole document: a finding about all of it (not JSON, not an object).
    if pointer.is_empty() {
        return "manifest".to_string();
    }
    let mut out = String::new();
    for part in pointer.split('/').skip(1) {
        if part.parse::<usize>().is_ok() {
            out.push_str(&format!("[{part}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&part.replace("~1", "/").replace("~0", "~"));
        }
    }
    out
}

struct Lint<'a> {
    findings: Findings<'a>,
    /// An issue's `where` when it is not its pointer's (an output path).
    places: Vec<Option<String>>,
    paths: BTreeSet<String>,
    namespace: Option<String>,
    minecraft: bool,
    hytale: bool,
    inputs: Option<&'a Inputs>,
}

impl Lint<'_> {
    fn error(&mut self, code: &'static str, pointer: &str, message: impl Into<String>) {
        self.findings.error(code, pointer, message);
        self.places.push(None);
    }

    fn warning(&mut self, code: &'static str, pointer: &str, message: impl Into<String>) {
        self.findings.warning(code, pointer, message);
        self.places.push(None);
    }

    /// `style.palette`: each entry a `role` and a `#rrggbb` `color`, and nothing else.
    fn palette(&mut self, palette: Option<&Value>) {
        let Some(palette) = palette else { return };
        let Some(entries) = palette.as_array() else {
            self.error(
                "not_an_object",
                "/style/palette",
                "style.palette is an array of {role, color}",
            );
            return;
        };
        for (i, entry) in entries.iter().enumerate() {
            let at = format!("/style/palette/{i}");
            let Some(e) = self.object(entry, &at, "a palette entry", &["role", "color"]) else {
                continue;
            };
            self.string(e, &at, "role");
            if let Some(colour) = self.string(e, &at, "color") {
                let hex = colour.strip_prefix('#').filter(|h| h.len() == 6);
                if !hex.is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit())) {
                    self.error(
                        "bad_colour",
                        &format!("{at}/color"),
                        format!("{colour:?} is not a colour like #a0b1c2"),
                    );
                }
            }
        }
    }

    /// A required field that is missing: located at the object that lacks it, but its
    /// `where` names the field itself.
    fn missing(&mut self, pointer: &str, key: &str, message: String) {
        self.findings.error("missing_field", pointer, message);
        self.places
            .push(Some(seed_where(&format!("{pointer}/{key}"))));
    }

    /// An issue about an output path: its `where` is the path.
    fn path_error(&mut self, code: &'static str, pointer: &str, path: &str, message: String) {
        self.findings.error(code, pointer, message);
        self.places.push(Some(path.to_string()));
    }

    fn object<'v>(
        &mut self,
        value: &'v Value,
        pointer: &str,
        what: &str,
        known: &[&str],
    ) -> Option<&'v Map<String, Value>> {
        let Some(map) = value.as_object() else {
            self.error(
                "not_an_object",
                pointer,
                format!("{what} must be an object"),
            );
            return None;
        };
        for key in map.keys().filter(|k| !known.contains(&k.as_str())) {
            self.error(
                "unknown_field",
                &format!("{pointer}/{key}"),
                format!("{what} has no field {key:?} (the format refuses unknown fields)"),
            );
        }
        Some(map)
    }

    fn string<'v>(
        &mut self,
        map: &'v Map<String, Value>,
        pointer: &str,
        key: &str,
    ) -> Option<&'v str> {
        match map.get(key) {
            None => {
                self.missing(pointer, key, format!("{key} is required here"));
                None
            }
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s),
            Some(_) => {
                self.error(
                    "not_a_string",
                    &format!("{pointer}/{key}"),
                    format!("{key} must be a non-empty string"),
                );
                None
            }
        }
    }

    fn one_of(&mut self, value: Option<&str>, pointer: &str, code: &'static str, list: &[&str]) {
        if let Some(v) = value.filter(|v| !list.contains(v)) {
            self.error(
                code,
                pointer,
                format!("{v:?} is not one of: {}", list.join(", ")),
            );
        }
    }

    fn manifest(&mut self, value: &Value) {
        let Some(top) = self.object(value, "", "the manifest", TOP) else {
            return;
        };
        for key in TOP_REQUIRED.iter().filter(|k| !top.contains_key(**k)) {
            self.missing("", key, format!("the manifest needs {key}"));
        }
        if let Some(schema) = top.get("schema").and_then(Value::as_str) {
            if schema != v::FORMAT {
                self.error(
                    "unknown_schema",
                    "/schema",
                    format!("{schema:?} is not {}", v::FORMAT),
                );
            }
        }
        // The id names the build folder the inputs are unpacked into.
        if let Some(id) = top.get("manifestId") {
            let plain = id.as_str().is_some_and(|id| {
                !id.is_empty()
                    && id.len() <= 128
                    && id
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
                    && !id.starts_with('.')
            });
            if !plain {
                self.error(
                    "bad_manifest_id",
                    "/manifestId",
                    "manifestId is 1 to 128 letters, digits, `-`, `_` or `.`, not starting with `.`",
                );
            }
        }
        let revision_ok = top
            .get("revision")
            .is_none_or(|r| r.as_u64().is_some_and(|r| r >= 1));
        if !revision_ok {
            self.error(
                "bad_revision",
                "/revision",
                "revision is a whole number from 1",
            );
        }
        self.namespace = top
            .get("namespace")
            .and_then(Value::as_str)
            .map(str::to_string);
        if let Some(project) = top.get("project") {
            if let Some(p) = self.object(project, "/project", "project", &["name", "slug"]) {
                self.string(p, "/project", "name");
                self.string(p, "/project", "slug");
            }
        }
        self.targets(top.get("targets"));
        if let Some(style) = top.get("style") {
            if let Some(style) = self.object(style, "/style", "style", &["summary", "palette"]) {
                self.palette(style.get("palette"));
            }
        }
        match top.get("assets") {
            Some(Value::Array(assets)) if !assets.is_empty() => {
                let mut ids = BTreeSet::new();
                for (i, asset) in assets.iter().enumerate() {
                    self.asset(asset, &format!("/assets/{i}"), &mut ids);
                }
            }
            Some(_) => self.error("no_assets", "/assets", "assets is a non-empty array"),
            None => {}
        }
    }

    fn targets(&mut self, targets: Option<&Value>) {
        let Some(targets) = targets else { return };
        let list: Vec<&str> = targets
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if list.is_empty() {
            self.error(
                "no_targets",
                "/targets",
                "targets is a non-empty array of target ids",
            );
        }
        self.minecraft = list.iter().any(|t| t.starts_with("mc-"));
        self.hytale = list.iter().any(|t| t.starts_with("hytale"));
    }

    fn asset(&mut self, value: &Value, pointer: &str, ids: &mut BTreeSet<String>) {
        let Some(asset) = self.object(value, pointer, "an asset", ASSET) else {
            return;
        };
        if let Some(id) = self.string(asset, pointer, "id") {
            if !ids.insert(id.to_string()) {
                self.error(
                    "duplicate_asset_id",
                    &format!("{pointer}/id"),
                    format!("asset id {id:?} is used twice"),
                );
            }
        }
        let kind = self.string(asset, pointer, "kind");
        self.one_of(
            kind,
            &format!("{pointer}/kind"),
            "unknown_asset_kind",
            v::ASSET_KINDS,
        );
        self.string(asset, pointer, "status");
        let action = self.string(asset, pointer, "action");
        self.one_of(
            action,
            &format!("{pointer}/action"),
            "unknown_action",
            v::FILE_ACTIONS,
        );
        if action == Some("generate") && !has_text(asset, "describe") {
            self.error(
                "describe_required",
                pointer,
                "an asset to generate needs describe: what to make, in plain words",
            );
        }
        match asset.get("representations") {
            Some(Value::Array(reps)) if !reps.is_empty() => {
                let mut rep_ids = BTreeSet::new();
                for (i, rep) in reps.iter().enumerate() {
                    self.representation(
                        rep,
                        &format!("{pointer}/representations/{i}"),
                        &mut rep_ids,
                    );
                }
            }
            Some(_) => self.error(
                "no_representations",
                &format!("{pointer}/representations"),
                "representations is a non-empty array",
            ),
            None => self.error("missing_field", pointer, "representations is required here"),
        }
    }

    fn representation(&mut self, value: &Value, pointer: &str, ids: &mut BTreeSet<String>) {
        let Some(rep) = self.object(value, pointer, "a representation", REPRESENTATION) else {
            return;
        };
        if let Some(id) = self.string(rep, pointer, "id") {
            if !ids.insert(id.to_string()) {
                self.error(
                    "duplicate_representation_id",
                    &format!("{pointer}/id"),
                    format!("representation id {id:?} is used twice in this asset"),
                );
            }
        }
        let role = self.string(rep, pointer, "role");
        self.one_of(role, &format!("{pointer}/role"), "unknown_role", v::ROLES);
        match rep.get("files") {
            Some(Value::Array(files)) if !files.is_empty() => {
                for (i, file) in files.iter().enumerate() {
                    self.file(file, &format!("{pointer}/files/{i}"));
                }
            }
            Some(_) => self.error(
                "no_files",
                &format!("{pointer}/files"),
                "files is a non-empty array",
            ),
            None => self.error("missing_field", pointer, "files is required here"),
        }
    }

    fn file(&mut self, value: &Value, pointer: &str) {
        let Some(file) = self.object(value, pointer, "a file", FILE) else {
            return;
        };
        let path = self.string(file, pointer, "path");
        let format = self.string(file, pointer, "format");
        self.one_of(
            format,
            &format!("{pointer}/format"),
            "unknown_format",
            v::FORMATS,
        );
        let action = self.string(file, pointer, "action");
        self.one_of(
            action,
            &format!("{pointer}/action"),
            "unknown_action",
            v::FILE_ACTIONS,
        );
        if let Some(path) = path {
            self.output_path(path, format, pointer);
        }
        match action {
            Some("generate") => {
                if !has_text(file, "describe") {
                    self.error(
                        "describe_required",
                        pointer,
                        "a file to generate needs describe: what to make, in plain words",
                    );
                }
                if let Some(f) = format.filter(|f| v::FORMATS.contains(f) && lane(f).is_none()) {
                    self.error("no_generation_lane", &format!("{pointer}/format"), format!("no lane generates {f} files (png: art_generated; bbmodel, geo.json, animation.json, blockymodel, blockyanim: model_generated; ogg: sound_generated)"));
                }
            }
            Some("emit") if !file.contains_key("content") => {
                self.error(
                    "emit_without_content",
                    pointer,
                    "an emitted file needs content: the JSON (or text) it holds",
                );
            }
            Some("copy") => {
                if let Some(source) = self.string(file, pointer, "source") {
                    self.input(source, &format!("{pointer}/source"), "copied");
                }
            }
            _ => {}
        }
        match (action, file.get("derive")) {
            (Some("derive"), None) => self.error(
                "derive_without_block",
                pointer,
                "a derived file needs a derive block naming its rule and its sources in from",
            ),
            (Some(a), Some(_)) if a != "derive" => self.error(
                "derive_block_without_action",
                &format!("{pointer}/derive"),
                format!("a derive block means the action is derive, not {a}"),
            ),
            (_, Some(block)) => self.derive(block, &format!("{pointer}/derive")),
            _ => {}
        }
    }

    fn derive(&mut self, value: &Value, pointer: &str) {
        let Some(block) = self.object(value, pointer, "a derive block", DERIVE) else {
            return;
        };
        let rule = self.string(block, pointer, "rule");
        self.one_of(
            rule,
            &format!("{pointer}/rule"),
            "unknown_derive_rule",
            v::DERIVE_RULES,
        );
        // A rule of the format this build cannot make is found here, before a quote,
        // rather than when the build reaches it.
        if let Some(rule) =
            rule.filter(|r| v::DERIVE_RULES.contains(r) && !crate::derive::IMPLEMENTED.contains(r))
        {
            self.error(
                "derive_rule_not_implemented",
                &format!("{pointer}/rule"),
                format!("{rule:?} is a rule of the format that this build does not implement; it implements {}", crate::derive::IMPLEMENTED.join(", ")),
            );
        }
        match block.get("from") {
            Some(Value::Array(from)) if !from.is_empty() && from.iter().all(Value::is_string) => {
                for (i, source) in from.iter().filter_map(Value::as_str).enumerate() {
                    self.input(source, &format!("{pointer}/from/{i}"), "derived from");
                }
            }
            _ => self.error(
                "derive_without_sources",
                pointer,
                "from lists the input files the rule reads",
            ),
        }
    }

    /// An input a copy or derive reads: it must be in the inputs, with rights that let
    /// its bytes be used.
    fn input(&mut self, path: &str, pointer: &str, how: &str) {
        // Checked with or without the inputs ZIP: an absolute path or `..` would read a
        // file outside the inputs (`/etc/hostname`) into the delivery.
        if let Some(why) = plain_path::why_not(path) {
            self.error(
                "bad_input_path",
                pointer,
                format!("{path:?} cannot be {how}: an input is a plain relative path inside the inputs ZIP, and {why}"),
            );
            return;
        }
        let Some(inputs) = self.inputs else { return };
        if !inputs.contains(path) {
            self.error(
                "missing_input",
                pointer,
                format!("{path:?} is not in the inputs ZIP"),
            );
            return;
        }
        if let Err(why) = inputs.may_supply_bytes(path) {
            self.error(
                why.code(),
                pointer,
                format!("{path:?} cannot be {how}: {why}"),
            );
        }
    }

    fn output_path(&mut self, path: &str, format: Option<&str>, pointer: &str) {
        let at = format!("{pointer}/path");
        // Names equal but for case are one file on Windows and on macOS.
        if !self.paths.insert(path.to_lowercase()) {
            self.path_error(
                "duplicate_output_path",
                &at,
                path,
                "two files write this output path (names equal but for case count as one)".into(),
            );
        }
        if path.chars().count() > v::MAX_PATH {
            self.path_error(
                "path_too_long",
                &at,
                path,
                format!("output paths are at most {} characters", v::MAX_PATH),
            );
        }
        if let Some(why) = plain_path::why_not(path) {
            self.path_error(
                "bad_output_path",
                &at,
                path,
                format!("an output path is relative, with / between non-empty names and no . or ..; {why}"),
            );
            return;
        }
        if let Some(why) = plain_path::windows_refuses(path) {
            self.path_error(
                "bad_output_path",
                &at,
                path,
                format!("Windows cannot create it: {why}"),
            );
            return;
        }
        let hytale_path =
            path.starts_with("Common/") || path.starts_with("Server/") || path == "manifest.json";
        if path.ends_with("@2x.png") && !path.starts_with("Common/") {
            self.path_error(
                "double_density_outside_common",
                &at,
                path,
                "@2x.png copies live only under Common/".into(),
            );
        }
        let minecraft_path = self.minecraft_path(path, &at);
        if !(minecraft_path && self.minecraft || hytale_path && self.hytale) {
            let expected = match (self.minecraft, self.hytale) {
                (true, true) => "assets/<namespace>/..., authoring/<namespace>/..., Common/..., Server/... or manifest.json",
                (false, true) => "Common/..., Server/... or manifest.json",
                _ => "assets/<namespace>/... or authoring/<namespace>/...",
            };
            self.path_error(
                "path_outside_target",
                &at,
                path,
                format!("for these targets an output path is {expected}"),
            );
        }
        if let Some(f) = format.filter(|f| v::FORMATS.contains(f)) {
            // Minecraft's lang files are JSON.
            let named = path.ends_with(&format!(".{f}")) || f == "lang" && path.ends_with(".json");
            if !named {
                self.warning(
                    "format_mismatch",
                    &at,
                    format!("a {f} file's name usually ends in .{f}"),
                );
            }
        }
    }

    /// Whether `path` has a Minecraft shape; a wrong namespace or an authoring file of a
    /// kind that is not a source is an issue of its own.
    fn minecraft_path(&mut self, path: &str, at: &str) -> bool {
        let mut parts = path.splitn(3, '/');
        let (Some(root), Some(namespace), Some(_)) = (parts.next(), parts.next(), parts.next())
        else {
            return false;
        };
        if root != "assets" && root != "authoring" {
            return false;
        }
        if let Some(expected) = self.namespace.clone().filter(|n| n != namespace) {
            self.path_error(
                "wrong_namespace",
                at,
                path,
                format!("this pack's namespace is {expected:?}, not {namespace:?}"),
            );
        }
        let source_kind = [".bbmodel", ".json", ".png", ".txt"]
            .iter()
            .any(|x| path.ends_with(x));
        if root == "authoring" && !source_kind {
            self.path_error(
                "authoring_kind",
                at,
                path,
                "authoring/ holds sources only: .bbmodel, .json, .png or .txt".into(),
            );
        }
        true
    }
}

fn has_text(map: &Map<String, Value>, key: &str) -> bool {
    map.get(key)
        .and_then(Value::as_str)
        .is_some_and(|s| !s.trim().is_empty())
}
