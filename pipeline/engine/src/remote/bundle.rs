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

use prost::Message;

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
