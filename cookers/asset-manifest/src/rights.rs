//! Input rights: what `_inputs.json`, at the top of the inputs ZIP, declares for each input,
//! and whether an input may supply the bytes of a copied or derived file.
//!
//! Top-level `rights`, `license`, `source` and `attribution` are defaults; `files` overrides
//! them per input path. Copying or deriving needs `original`, or `licensed` with a license
//! string. `analysis-only`, `ARR`, `ND` and `code-only` inputs may inform a generated file
//! but supply no bytes. A restrictive license (all rights reserved, or no derivatives)
//! wins over a rights value that says otherwise. Rights are what the uploader declares:
//! they are enforced, not verified.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;

/// What one input may be used for.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declared {
    pub rights: Option<String>,
    pub license: Option<String>,
    pub source: Option<String>,
    pub attribution: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct InputsFile {
    #[serde(default)]
    files: BTreeMap<String, Declared>,
    #[serde(flatten)]
    defaults: Declared,
}

/// The inputs' paths and their declared rights.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    paths: Vec<String>,
    defaults: Declared,
    files: BTreeMap<String, Declared>,
}

/// Why an input's bytes may not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Its rights are analysis-only, ARR, ND or code-only (or none were declared).
    Rights(String),
    /// `licensed` without a license string.
    NoLicense,
    /// Its license reserves the rights or forbids derivatives, whatever `rights` says.
    RestrictiveLicense(String),
}

impl Refused {
    pub fn code(&self) -> &'static str {
        match self {
            Refused::Rights(_) => "rights_forbid_bytes",
            Refused::NoLicense => "licensed_without_license",
            Refused::RestrictiveLicense(_) => "restrictive_license",
        }
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::Rights(r) => write!(f, "its rights are {r:?}, which may inform a generated file but supply no bytes (copying or deriving needs original, or licensed with a license)"),
            Refused::NoLicense => write!(f, "it is licensed, but no license is named"),
            Refused::RestrictiveLicense(l) => write!(f, "its license {l:?} reserves the rights or forbids derivatives, which wins over its rights value"),
        }
    }
}

/// An `_inputs.json` that cannot be read, or declares rights the format does not know
/// (`bad_inputs_file`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadInputsFile(pub String);

impl BadInputsFile {
    pub const CODE: &'static str = "bad_inputs_file";
}

impl Inputs {
    /// The inputs of a ZIP's entry names and its `_inputs.json` text (absent: nothing declared).
    pub fn new(paths: Vec<String>, inputs_json: Option<&str>) -> Result<Inputs, BadInputsFile> {
        let file: InputsFile = match inputs_json {
            Some(text) => serde_json::from_str(text)
                .map_err(|e| BadInputsFile(format!("_inputs.json: {e}")))?,
            None => InputsFile::default(),
        };
        if let Some(r) = std::iter::once(&file.defaults)
            .chain(file.files.values())
            .filter_map(|d| d.rights.as_deref())
            .find(|r| !crate::vocabulary::RIGHTS.contains(r))
        {
            return Err(BadInputsFile(format!(
                "_inputs.json: rights {r:?} is not one of {}",
                crate::vocabulary::RIGHTS.join(", ")
            )));
        }
        Ok(Inputs {
            paths,
            defaults: file.defaults,
            files: file.files,
        })
    }

    pub fn contains(&self, path: &str) -> bool {
        self.paths.iter().any(|p| p == path)
    }

    /// An input's declaration: its own values over the defaults.
    pub fn declared(&self, path: &str) -> Declared {
        let own = self.files.get(path).cloned().unwrap_or_default();
        let d = &self.defaults;
        Declared {
            rights: own.rights.or_else(|| d.rights.clone()),
            license: own.license.or_else(|| d.license.clone()),
            source: own.source.or_else(|| d.source.clone()),
            attribution: own.attribution.or_else(|| d.attribution.clone()),
        }
    }

    /// Whether `path` may supply the bytes of a copied or derived file.
    pub fn may_supply_bytes(&self, path: &str) -> Result<(), Refused> {
        let declared = self.declared(path);
        let license = declared
            .license
            .as_deref()
            .map(str::trim)
            .filter(|l| !l.is_empty());
        if let Some(l) = license.filter(|l| restrictive(l)) {
            return Err(Refused::RestrictiveLicense(l.to_string()));
        }
        match declared.rights.as_deref() {
            Some("original") => Ok(()),
            Some("licensed") if license.is_some() => Ok(()),
            Some("licensed") => Err(Refused::NoLicense),
            other => Err(Refused::Rights(other.unwrap_or("undeclared").to_string())),
        }
    }
}

/// A license that reserves all rights or forbids derivatives.
fn restrictive(license: &str) -> bool {
    let l = license.to_ascii_uppercase();
    let words: Vec<&str> = l.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    l.contains("ALL RIGHTS RESERVED") || words.contains(&"ARR") || words.contains(&"ND")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(json: &str) -> Inputs {
        let paths = ["a.png", "b.png", "c.png"].map(String::from).to_vec();
        Inputs::new(paths, Some(json)).unwrap()
    }

    #[test]
    fn each_rights_value_against_copying_and_deriving() {
        for (rights, license, allowed) in [
            ("original", None, true),
            ("licensed", Some("MIT"), true),
            ("licensed", None, false),
            ("analysis-only", Some("MIT"), false),
            ("ARR", None, false),
            ("ND", None, false),
            ("code-only", Some("MIT"), false),
        ] {
            let license = license.map_or(String::new(), |l| format!(",\"license\":\"{l}\""));
            let i = inputs(&format!("{{\"rights\":\"{rights}\"{license}}}"));
            assert_eq!(i.may_supply_bytes("a.png").is_ok(), allowed, "{rights}");
        }
    }

    #[test]
    fn files_override_defaults_and_a_restrictive_license_wins() {
        let i = inputs(
            r#"{"rights":"licensed","license":"MIT","files":{
                "b.png":{"rights":"analysis-only"},
                "c.png":{"rights":"original","license":"CC-BY-NC-ND-4.0"}}}"#,
        );
        assert_eq!(i.may_supply_bytes("a.png"), Ok(()));
        assert_eq!(
            i.may_supply_bytes("b.png").unwrap_err().code(),
            "rights_forbid_bytes"
        );
        assert_eq!(
            i.may_supply_bytes("c.png").unwrap_err().code(),
            "restrictive_license"
        );
        assert!(Inputs::new(vec![], Some(r#"{"rights":"mine"}"#)).is_err());
    }
}
