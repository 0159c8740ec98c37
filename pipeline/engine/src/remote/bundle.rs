//! A stage's entries in one object: a fresh clone asks for them once, instead of once per
//! step and a round trip per level of the graph.
//!
//! At the end of a cook in which it uploaded something, or took an entry the bundle
//! lacked, a writer puts every entry of the cook it wrote or took into one `Bundle`, with
//! the large outputs its folders held, and files it as an ordinary signed entry under
//! the key of the cook's first stage ([`crate::stage_key`]), carrying its one output,
//! [`OUTPUT`]. A reader that finds it holds the entries in memory and looks each step up
//! there first.
//! It is taken only whole: its entry's signature and the BLAKE3 it signs cover every
//! entry inside, which are then checked for names, sizes and carried bytes but not
//! verified one by one. A step missing from it is asked for as before.

use std::sync::atomic::Ordering;

use prost::Message;

use super::{blake3_names, Inline, Refusal, RemoteCache};
use crate::cooker::BadOutputs;

#[derive(Clone, PartialEq, Message)]
pub struct Bundle {
    #[prost(message, repeated, tag = "1")]
    pub entries: Vec<BundledEntry>,
    /// The BLAKE3s of the large outputs the writer's set and map folders held: a reader
    /// that takes their entries starts downloading them at once.
    #[prost(string, repeated, tag = "2")]
    pub landing: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct BundledEntry {
    /// The step's key.
    #[prost(string, tag = "1")]
    pub key: String,
    /// Its `ActionResult`, as it is in `ac/<key>`.
    #[prost(bytes = "vec", tag = "2")]
    pub entry: Vec<u8>,
}

/// A bundle's entries: each step's key and its `ActionResult`.
pub type Entries = Vec<(String, Vec<u8>)>;

/// The one output of a bundle's entry.
pub const OUTPUT: &str = "entries.bundle";

/// The largest bundle written or read; a stage whose entries add up to more is looked up
/// step by step.
pub const MAX_BUNDLE: u64 = 256 << 20;

/// The bundle of `entries` and `landing`, each sorted, so that the same cook makes the
/// same bytes.
pub fn encode(mut entries: Entries, mut landing: Vec<String>) -> Vec<u8> {
    entries.sort();
    entries.dedup_by(|a, b| a.0 == b.0);
    landing.sort();
    landing.dedup();
    Bundle {
        entries: entries
            .into_iter()
            .map(|(key, entry)| BundledEntry { key, entry })
            .collect(),
        landing,
    }
    .encode_to_vec()
}

/// The entries a bundle holds, by key, and the outputs its writer's folders held.
pub fn decode(bytes: &[u8]) -> Result<(Entries, Vec<String>), prost::DecodeError> {
    let bundle = Bundle::decode(bytes)?;
    let entries = bundle
        .entries
        .into_iter()
        .map(|e| (e.key, e.entry))
        .collect();
    Ok((entries, bundle.landing))
}

impl RemoteCache {
    /// Keeps an entry for the stage's bundle, on a machine that writes them.
    pub(super) fn remember(&self, key: &str, entry: &[u8]) {
        if self.writer.is_some() && !self.readonly {
            self.seen
                .lock()
                .expect("seen lock")
                .insert(key.to_string(), entry.to_vec());
        }
    }

    /// The key of this cook's bundle, made by `first_stage` the first time it is asked
    /// for; `true` the first time.
    pub fn bundle_key(&self, first_stage: impl FnOnce() -> String) -> (String, bool) {
        let mut first = false;
        let key = self.bundle_key.get_or_init(|| {
            first = true;
            first_stage()
        });
        (key.clone(), first)
    }

    /// Whether a stage bundle holds `key`'s entry, so looking it up asks nothing of the
    /// server.
    pub fn has_bundled(&self, key: &str) -> bool {
        self.bundled.lock().expect("bundle lock").contains_key(key)
    }

    /// Fetches the bundle filed under `stage` (a [`Bundle`]), if there is one a trusted
    /// writer signed, so that the stage's steps are looked up in it first. A bundle that
    /// fails a check is refused and counted; the steps are then asked for one by one.
    pub fn take_bundle(&self, stage: &str) {
        if self.down.load(Ordering::Relaxed) {
            return;
        }
        match self.try_take_bundle(stage) {
            Ok(None) => {}
            Ok(Some((entries, landing))) => {
                self.counters.bundles_taken.fetch_add(1, Ordering::Relaxed);
                self.counters
                    .bundled_entries
                    .fetch_add(entries.len() as u64, Ordering::Relaxed);
                self.bundled.lock().expect("bundle lock").extend(entries);
                self.landing.lock().expect("landing lock").extend(landing);
            }
            Err(Refusal::Unreachable(u)) => self.went_down(u),
            Err(Refusal::Bad(why)) => self.refuse_bundle(stage, &why),
            Err(Refusal::Untrusted(why)) => {
                self.refuse_bundle(stage, &format!("its entry is not taken: {why}"))
            }
        }
    }

    fn refuse_bundle(&self, stage: &str, why: &str) {
        self.counters
            .bundles_refused
            .fetch_add(1, Ordering::Relaxed);
        self.warn(format!(
            "warning[remote_cache_refused]: the cook's remote bundle (key {}) was not used: {why}; its steps were looked up one by one",
            &stage[..stage.len().min(16)]
        ));
    }

    fn try_take_bundle(&self, stage: &str) -> Result<Option<(Entries, Vec<String>)>, Refusal> {
        let expected = |names: &[&str]| match names {
            [OUTPUT] => Ok(()),
            _ => Err(BadOutputs::NotDeclared {
                names: names.iter().map(|n| n.to_string()).collect(),
                declared: vec![OUTPUT.to_string()],
            }),
        };
        // Its entry carries it, with a few bytes of framing.
        let limit = MAX_BUNDLE + (1 << 10);
        let Some(listed) = self.try_fetch_within(stage, &expected, limit)? else {
            return Ok(None);
        };
        let [output] = &listed[..] else {
            unreachable!("checked to list one output")
        };
        if output.size > MAX_BUNDLE {
            return Err(Refusal::Bad(format!(
                "it is {} bytes; at most {} are read",
                output.size, MAX_BUNDLE
            )));
        }
        let bytes = match &output.bytes {
            Some(bytes) => bytes.clone(),
            None => self
                .get(&format!("cas/{}", output.sha256), output.size)?
                .ok_or_else(|| Refusal::Bad("the server has no blob for it".into()))?,
        };
        if !blake3_names(&bytes, &output.blake3, output.size) {
            return Err(Refusal::Bad("it fails its digests".into()));
        }
        decode(&bytes)
            .map(Some)
            .map_err(|e| Refusal::Bad(format!("it cannot be read ({e})")))
    }

    /// Files the entries this machine wrote or took for `keys` as the cook's bundle, with
    /// `landing` (the BLAKE3s of the large outputs its folders hold), once the cook's
    /// uploads are done (so that every blob they name is on the server). Only a writer
    /// files one, and only when the cook uploaded an entry or took one no bundle held.
    pub fn send_bundle(&self, keys: &[&str], landing: Vec<String>) {
        let Some(writer) = self.writer.as_ref().filter(|_| !self.readonly) else {
            return;
        };
        let Some(stage) = self.bundle_key.get() else {
            return;
        };
        if self.is_down() || self.unbundled.load(Ordering::Relaxed) == 0 {
            return;
        }
        let entries: Entries = {
            let seen = self.seen.lock().expect("seen lock");
            keys.iter()
                .filter_map(|k| Some((k.to_string(), seen.get(*k)?.clone())))
                .collect()
        };
        let bytes = encode(entries, landing);
        if bytes.len() as u64 > MAX_BUNDLE {
            return;
        }
        let upload = super::Upload {
            name: OUTPUT.to_string(),
            blob: std::sync::Arc::new(bytes),
            spliced: None,
        };
        // The bundle travels inside its entry, so a reader asks once, not twice.
        match self.try_upload_inlining(stage, &[upload], writer, Inline::All) {
            Ok(()) => {
                self.counters
                    .bundles_uploaded
                    .fetch_add(1, Ordering::Relaxed);
            }
            Err(u) => self.went_down(u),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_reads_back_sorted_and_once_per_key() {
        let bytes = encode(
            vec![
                ("b".into(), vec![2]),
                ("a".into(), vec![1]),
                ("b".into(), vec![2]),
            ],
            vec!["y".into(), "x".into(), "y".into()],
        );
        assert_eq!(
            decode(&bytes).unwrap(),
            (
                vec![("a".to_string(), vec![1]), ("b".to_string(), vec![2])],
                vec!["x".to_string(), "y".to_string()]
            )
        );
        assert!(decode(b"\x0a\xff").is_err());
    }
}
