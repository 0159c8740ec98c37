//! A step's fingerprint: what decides whether its cached outputs are still right.
//!
//! The key is the BLAKE3 of the fingerprint's canonical bytes, and `--explain` diffs two
//! fingerprints, so the hash and the explanation come from the same list and cannot drift.
//!
//! | goes in | why |
//! |---|---|
//! | step kind, cooker id and cooker version | a cooker change must rebuild its outputs |
//! | canonical parameter bytes | e.g. the block list of an `--only` set |
//! | each input's name and content hash | sources and upstream outputs, by content |
//! | [`KEY_FORMAT`] | changing this encoding changes every key |
//!
//! Never in it: absolute paths (a renamed checkout keeps its cache), mtimes, the clock,
//! the thread count, or hash-map order. Input names are relative to the pack folder or name
//! an upstream output. Upstream outputs enter by content hash rather than by the upstream
//! key, so an edit that leaves an upstream output unchanged stops there (early cutoff).
//! Changing what goes in, or its encoding, needs a [`KEY_FORMAT`] bump.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

pub const KEY_FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    pub cooker: String,
    pub cooker_version: u32,
    /// Canonical parameter text.
    pub params: String,
    /// `(name, content hash)`, sorted by name.
    pub inputs: Vec<(String, String)>,
}

impl Fingerprint {
    pub fn new(
        cooker: &str,
        cooker_version: u32,
        params: String,
        mut inputs: Vec<(String, String)>,
    ) -> Self {
        inputs.sort();
        Fingerprint {
            cooker: cooker.to_string(),
            cooker_version,
            params,
            inputs,
        }
    }

    pub fn key(&self) -> String {
        let inputs = self.inputs.iter().map(|(n, h)| (n.as_str(), h.as_str()));
        key_of(&self.cooker, self.cooker_version, &[&self.params], inputs)
    }
}

/// The key of the fingerprint these parts make, without making it (its inputs in any
/// order): a cook probes thousands of cached steps and needs only their keys.
/// The parameter text comes in `params`' parts, joined as they are hashed, so a probe
/// need not build the text.
pub fn key_of<'a>(
    cooker: &str,
    cooker_version: u32,
    params: &[&str],
    inputs: impl Iterator<Item = (&'a str, &'a str)>,
) -> String {
    let mut inputs: Vec<(&str, &str)> = inputs.collect();
    inputs.sort_unstable();
    // Written out whole and hashed at once: BLAKE3 hashes a message's 1 KiB chunks side by
    // side only when it has them together, and a key's message is a few KiB. The bytes,
    // and so the key, are those the fields make one after the other.
    let mut m = Vec::with_capacity(256 + inputs.len() * 128);
    field(&mut m, "format", &[&KEY_FORMAT.to_le_bytes()]);
    field(&mut m, "cooker", &[cooker.as_bytes()]);
    field(&mut m, "version", &[&cooker_version.to_le_bytes()]);
    let params: Vec<&[u8]> = params.iter().map(|p| p.as_bytes()).collect();
    field(&mut m, "params", &params);
    for (name, hash) in inputs {
        field(&mut m, "input", &[name.as_bytes()]);
        field(&mut m, "hash", &[hash.as_bytes()]);
    }
    blake3::hash(&m).to_hex().to_string()
}

/// One field of the key: its label, its length, and its value in `parts`.
fn field(m: &mut Vec<u8>, label: &str, parts: &[&[u8]]) {
    let length: usize = parts.iter().map(|p| p.len()).sum();
    m.extend_from_slice(label.as_bytes());
    m.extend_from_slice(&(length as u64).to_le_bytes());
    for part in parts {
        m.extend_from_slice(part);
    }
}

/// Why a step ran, with the old and new values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Dirty {
    /// No earlier build of this step is recorded.
    NeverBuilt,
    /// `--no-cache` was given.
    CacheDisabled,
    CookerVersion {
        old: u32,
        new: u32,
    },
    Params {
        old: String,
        new: String,
    },
    InputChanged {
        name: String,
        old: String,
        new: String,
    },
    InputAdded {
        name: String,
    },
    InputRemoved {
        name: String,
    },
    /// The fingerprint matches an earlier build, but its cached outputs were missing or
    /// failed their hash check.
    CacheEntryBad {
        detail: String,
    },
}

impl Dirty {
    /// The first difference between the last recorded fingerprint and the current one.
    pub fn between(old: Option<&Fingerprint>, new: &Fingerprint) -> Option<Dirty> {
        let Some(old) = old else {
            return Some(Dirty::NeverBuilt);
        };
        if old.cooker_version != new.cooker_version {
            return Some(Dirty::CookerVersion {
                old: old.cooker_version,
                new: new.cooker_version,
            });
        }
        if old.params != new.params {
            return Some(Dirty::Params {
                old: old.params.clone(),
                new: new.params.clone(),
            });
        }
        // By name, not searched for: a set's step has a thousand inputs.
        let mut old_inputs: HashMap<&str, &str> = HashMap::with_capacity(old.inputs.len());
        for (n, h) in &old.inputs {
            old_inputs.entry(n).or_insert(h);
        }
        for (name, hash) in &new.inputs {
            match old_inputs.get(name.as_str()) {
                None => return Some(Dirty::InputAdded { name: name.clone() }),
                Some(&h) if h != hash => {
                    return Some(Dirty::InputChanged {
                        name: name.clone(),
                        old: h.to_string(),
                        new: hash.clone(),
                    })
                }
                _ => {}
            }
        }
        let new_names: HashSet<&str> = new.inputs.iter().map(|(n, _)| n.as_str()).collect();
        old.inputs
            .iter()
            .find(|(n, _)| !new_names.contains(n.as_str()))
            .map(|(name, _)| Dirty::InputRemoved { name: name.clone() })
    }

    pub fn describe(&self) -> String {
        let short = |h: &str| h.chars().take(12).collect::<String>();
        match self {
            Dirty::NeverBuilt => "never built before".into(),
            Dirty::CacheDisabled => "--no-cache".into(),
            Dirty::CookerVersion { old, new } => format!("cooker version {old} -> {new}"),
            Dirty::Params { old, new } => format!("parameters {old:?} -> {new:?}"),
            Dirty::InputChanged { name, old, new } => {
                format!("{name} changed ({} -> {})", short(old), short(new))
            }
            Dirty::InputAdded { name } => format!("{name} is a new input"),
            Dirty::InputRemoved { name } => format!("{name} is no longer an input"),
            Dirty::CacheEntryBad { detail } => format!("cached outputs unusable: {detail}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(version: u32, inputs: &[(&str, &str)]) -> Fingerprint {
        Fingerprint::new(
            "import",
            version,
            String::new(),
            inputs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        )
    }

    #[test]
    fn key_ignores_input_order_but_not_content() {
        let a = fp(1, &[("a", "1"), ("b", "2")]);
        let b = fp(1, &[("b", "2"), ("a", "1")]);
        assert_eq!(a.key(), b.key());
        assert_ne!(a.key(), fp(1, &[("a", "1"), ("b", "3")]).key());
        assert_ne!(a.key(), fp(2, &[("a", "1"), ("b", "2")]).key());
        // Field boundaries are length-prefixed: moving a byte between fields changes the key.
        assert_ne!(fp(1, &[("ab", "c")]).key(), fp(1, &[("a", "bc")]).key());
    }

    #[test]
    fn parameters_in_parts_make_the_key_of_their_text() {
        let inputs = [("a", "1")];
        let joined = key_of("import", 1, &["pack=p\nblock=b\n{}"], inputs.into_iter());
        let parts = ["pack=", "p", "\nblock=", "b", "\n", "{}"];
        assert_eq!(key_of("import", 1, &parts, inputs.into_iter()), joined);
        // The key every cache so far holds for these parts (KEY_FORMAT 1).
        assert_eq!(
            joined,
            "be50671ff19de7e4d46d57dfe4c23ec145d537dad3c2b2f4ed031f4dc16f8080"
        );
    }

    #[test]
    fn a_key_made_from_parts_is_the_fingerprints() {
        let a = fp(1, &[("b", "2"), ("a", "1"), ("a", "0")]);
        let parts = [("a", "1"), ("b", "2"), ("a", "0")];
        assert_eq!(key_of("import", 1, &[""], parts.into_iter()), a.key());
        assert_ne!(key_of("import", 1, &["p"], parts.into_iter()), a.key());
        assert_ne!(
            key_of("import", 1, &[""], parts[..2].iter().copied()),
            a.key()
        );
    }

    #[test]
    fn explain_names_the_change() {
        let old = fp(1, &[("model", "aa"), ("bin", "bb")]);
        assert_eq!(Dirty::between(Some(&old), &old), None);
        assert_eq!(Dirty::between(None, &old), Some(Dirty::NeverBuilt));
        let new = fp(1, &[("model", "cc"), ("bin", "bb")]);
        assert_eq!(
            Dirty::between(Some(&old), &new),
            Some(Dirty::InputChanged {
                name: "model".into(),
                old: "aa".into(),
                new: "cc".into()
            })
        );
        assert_eq!(
            Dirty::between(Some(&old), &fp(2, &[])),
            Some(Dirty::CookerVersion { old: 1, new: 2 })
        );
        assert_eq!(
            Dirty::between(Some(&old), &fp(1, &[("model", "aa")])),
            Some(Dirty::InputRemoved { name: "bin".into() })
        );
        assert_eq!(
            Dirty::between(
                Some(&old),
                &fp(1, &[("model", "aa"), ("bin", "bb"), ("png", "dd")])
            ),
            Some(Dirty::InputAdded { name: "png".into() })
        );
    }

    #[test]
    fn a_step_of_many_inputs_is_explained_by_the_first_that_changed() {
        let names: Vec<String> = (0..20_000)
            .map(|i| format!("b{i:05}/chunks.data"))
            .collect();
        let inputs = |changed: usize| -> Vec<(&str, String)> {
            let hash = |i: usize| if i == changed { "new" } else { "old" };
            names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_str(), hash(i).to_string()))
                .collect()
        };
        let as_fp = |inputs: &[(&str, String)]| {
            let pairs: Vec<(&str, &str)> = inputs.iter().map(|(n, h)| (*n, h.as_str())).collect();
            fp(1, &pairs)
        };
        // Linear in the inputs: twenty thousand by twenty thousand would take seconds.
        let dirty = Dirty::between(Some(&as_fp(&inputs(usize::MAX))), &as_fp(&inputs(19_000)));
        assert_eq!(
            dirty,
            Some(Dirty::InputChanged {
                name: "b19000/chunks.data".into(),
                old: "old".into(),
                new: "new".into()
            })
        );
    }
}
