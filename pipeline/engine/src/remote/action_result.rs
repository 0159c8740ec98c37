//! The action cache's entries: REAPI `ActionResult` messages
//! (`build.bazel.remote.execution.v2`), written with only the fields a step's result
//! needs, so bazel-remote's validation accepts them and Bazel's tools can read them.
//!
//! | field | number | holds |
//! |---|---|---|
//! | `output_files` | 2 | one `OutputFile` per output: `path` (1) is the output's name, `digest` (2) its SHA-256 and size, `contents` (5) its bytes when it is small |
//! | `exit_code` | 4 | always 0: only successful steps are cached |
//! | `stdout_raw` | 5 | `mjolnir-seal <hex>`: BLAKE3 of the key and the outputs, so an entry served under another key is refused |

use prost::Message;

#[derive(Clone, PartialEq, Message)]
pub struct Digest {
    #[prost(string, tag = "1")]
    pub hash: String,
    #[prost(int64, tag = "2")]
    pub size_bytes: i64,
}

#[derive(Clone, PartialEq, Message)]
pub struct OutputFile {
    #[prost(string, tag = "1")]
    pub path: String,
    #[prost(message, optional, tag = "2")]
    pub digest: Option<Digest>,
    #[prost(bool, tag = "4")]
    pub is_executable: bool,
    /// The bytes themselves, for small outputs: one request fetches a step.
    #[prost(bytes = "vec", tag = "5")]
    pub contents: Vec<u8>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ActionResult {
    #[prost(message, repeated, tag = "2")]
    pub output_files: Vec<OutputFile>,
    #[prost(int32, tag = "4")]
    pub exit_code: i32,
    #[prost(bytes = "vec", tag = "5")]
    pub stdout_raw: Vec<u8>,
}

/// One output of a cached step: its name, SHA-256 (hex) and size, and its bytes when the
/// entry carries them (still to be checked against the digest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteOutput {
    pub name: String,
    pub sha256: String,
    pub size: u64,
    pub inline: Option<Vec<u8>>,
}

/// Outputs up to this size travel inside the entry too (and are in `cas/` as well, for
/// validating servers and other clients), up to [`INLINE_TOTAL`] an entry.
pub const INLINE_MAX: u64 = 64 << 10;
pub const INLINE_TOTAL: u64 = 1 << 20;

const SEAL_PREFIX: &str = "mjolnir-seal ";

fn seal(key: &str, outputs: &[RemoteOutput]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"mjolnir-remote-action\0");
    h.update(key.as_bytes());
    for o in outputs {
        for field in [
            o.name.as_bytes(),
            o.sha256.as_bytes(),
            &o.size.to_le_bytes(),
        ] {
            h.update(&(field.len() as u64).to_le_bytes());
            h.update(field);
        }
    }
    h.finalize().to_hex().to_string()
}

/// The entry for `key`'s outputs.
pub fn encode(key: &str, outputs: &[RemoteOutput]) -> Vec<u8> {
    ActionResult {
        output_files: outputs
            .iter()
            .map(|o| OutputFile {
                path: o.name.clone(),
                digest: Some(Digest {
                    hash: o.sha256.clone(),
                    size_bytes: o.size as i64,
                }),
                is_executable: false,
                contents: o.inline.clone().unwrap_or_default(),
            })
            .collect(),
        exit_code: 0,
        stdout_raw: format!("{SEAL_PREFIX}{}", seal(key, outputs)).into_bytes(),
    }
    .encode_to_vec()
}

/// The outputs an entry read for `key` lists, or why it cannot be trusted.
pub fn decode(key: &str, bytes: &[u8]) -> Result<Vec<RemoteOutput>, String> {
    let result =
        ActionResult::decode(bytes).map_err(|e| format!("it is not an ActionResult ({e})"))?;
    if result.exit_code != 0 {
        return Err(format!("it records exit code {}", result.exit_code));
    }
    let outputs = result
        .output_files
        .into_iter()
        .map(|f| {
            let digest = f
                .digest
                .ok_or(format!("output {:?} has no digest", f.path))?;
            let well_formed = digest.hash.len() == 64
                && digest
                    .hash
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
            if !well_formed || digest.size_bytes < 0 {
                return Err(format!("output {:?} has a malformed digest", f.path));
            }
            let size = digest.size_bytes as u64;
            Ok(RemoteOutput {
                name: f.path,
                sha256: digest.hash,
                size,
                inline: (size == 0 || !f.contents.is_empty()).then_some(f.contents),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let expected = format!("{SEAL_PREFIX}{}", seal(key, &outputs));
    if result.stdout_raw != expected.as_bytes() {
        return Err("its seal does not match this key".into());
    }
    Ok(outputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs() -> Vec<RemoteOutput> {
        vec![
            RemoteOutput {
                name: "mesh.fgim".into(),
                sha256: "ab".repeat(32),
                size: 12,
                inline: None,
            },
            RemoteOutput {
                name: "small.bin".into(),
                sha256: "cd".repeat(32),
                size: 3,
                inline: Some(b"abc".to_vec()),
            },
        ]
    }

    #[test]
    fn an_entry_reads_back_for_its_key_only() {
        let bytes = encode("k1", &outputs());
        assert_eq!(decode("k1", &bytes).unwrap(), outputs());
        assert!(decode("k2", &bytes).unwrap_err().contains("seal"));
        assert!(decode("k1", &bytes[..bytes.len() - 3]).is_err());
        assert!(decode("k1", b"\xff\xff\xff").is_err());
    }

    #[test]
    fn digests_are_lowercase_hex_sha256() {
        assert_eq!(
            crate::remote::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_wire_format_is_reapis() {
        // Field 2 (length-delimited) holding field 1 (the path) first.
        let bytes = encode("k", &outputs());
        assert_eq!(bytes[0], 2 << 3 | 2);
        assert_eq!(bytes[2], 1 << 3 | 2);
        assert_eq!(&bytes[4..13], b"mesh.fgim");
    }
}
