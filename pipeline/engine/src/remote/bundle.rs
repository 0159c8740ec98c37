//! A stage's entries in one object: a fresh clone asks for them once, instead of once per
//! step and a round trip per level of the graph.
//!
//! After a stage in which it uploaded something, a writer puts every entry it wrote or
//! took in that stage into one `Bundle` and files it as an ordinary signed entry, under
//! the stage's key ([`crate::stage_key`]), with one output, [`OUTPUT`], in `cas/`. A
//! reader that finds it holds the entries in memory and looks each step up there first.
//! It is taken only whole: its entry's signature and the BLAKE3 it signs cover every
//! entry inside, which are then checked for names, sizes and carried bytes but not
//! verified one by one. A step missing from it is asked for as before.

use prost::Message;

#[derive(Clone, PartialEq, Message)]
pub struct Bundle {
    #[prost(message, repeated, tag = "1")]
    pub entries: Vec<BundledEntry>,
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

/// The bundle of `entries`, sorted by key so that the same stage makes the same bytes.
pub fn encode(mut entries: Entries) -> Vec<u8> {
    entries.sort();
    entries.dedup_by(|a, b| a.0 == b.0);
    Bundle {
        entries: entries
            .into_iter()
            .map(|(key, entry)| BundledEntry { key, entry })
            .collect(),
    }
    .encode_to_vec()
}

/// The entries a bundle holds, by key.
pub fn decode(bytes: &[u8]) -> Result<Entries, prost::DecodeError> {
    Ok(Bundle::decode(bytes)?
        .entries
        .into_iter()
        .map(|e| (e.key, e.entry))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_reads_back_sorted_and_once_per_key() {
        let bytes = encode(vec![
            ("b".into(), vec![2]),
            ("a".into(), vec![1]),
            ("b".into(), vec![2]),
        ]);
        assert_eq!(
            decode(&bytes).unwrap(),
            vec![("a".to_string(), vec![1]), ("b".to_string(), vec![2])]
        );
        assert!(decode(b"\x0a\xff").is_err());
    }
}
