//! The action cache's entries: REAPI `ActionResult` messages
//! (`build.bazel.remote.execution.v2`), written with only the fields a step's result
//! needs, so bazel-remote's validation accepts them and Bazel's tools can read them.
//!
//! | field | number | holds |
//! |---|---|---|
//! | `output_files` | 2 | one `OutputFile` per output: `path` (1) is the output's name, `digest` (2) its SHA-256 and size, `contents` (5) its bytes when it is small, `node_properties` (7) the property `mjolnir-blake3`: its BLAKE3, which the steps that read it put in their keys, and for a spliced output (its blob is a recipe) `mjolnir-spliced`: the size of the bytes it makes |
//! | `exit_code` | 4 | always 0: only successful steps are cached |
//! | `stdout_raw` | 5 | `mjolnir-signed-v2 <public key hex> <signature hex>`: the writer's Ed25519 signature over the seal, the BLAKE3 of the key and the outputs (names, both digests, sizes) |
//!
//! The BLAKE3 lets a reader key the steps downstream of a hit without downloading its
//! blobs: a blob is fetched only when something reads it, and checked against both
//! digests then.
//!
//! The seal alone would let anyone who can `PUT` make a valid entry: it is a public
//! function. The signature binds the entry to a writer's key, and a reader accepts only
//! entries signed by a key it trusts; one signed for another key (a swapped entry) fails
//! the signature, since the seal covers the key.

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
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
    #[prost(message, optional, tag = "7")]
    pub node_properties: Option<NodeProperties>,
}

#[derive(Clone, PartialEq, Message)]
pub struct NodeProperty {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct NodeProperties {
    #[prost(message, repeated, tag = "1")]
    pub properties: Vec<NodeProperty>,
}

/// The node property that carries an output's BLAKE3.
const BLAKE3_PROPERTY: &str = "mjolnir-blake3";
/// The node property of a spliced output: the size of the bytes its recipe makes.
const SPLICED_PROPERTY: &str = "mjolnir-spliced";

#[derive(Clone, PartialEq, Message)]
pub struct ActionResult {
    #[prost(message, repeated, tag = "2")]
    pub output_files: Vec<OutputFile>,
    #[prost(int32, tag = "4")]
    pub exit_code: i32,
    #[prost(bytes = "vec", tag = "5")]
    pub stdout_raw: Vec<u8>,
}

/// One output of a cached step: its name, SHA-256 and BLAKE3 (hex) and size, and its bytes
/// when the entry carries them (still to be checked against the digests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteOutput {
    pub name: String,
    pub sha256: String,
    pub blake3: String,
    pub size: u64,
    pub inline: Option<Vec<u8>>,
    /// A spliced output's (`splice`): its blob is its recipe, which makes this many bytes.
    pub spliced: Option<u64>,
}

/// Outputs up to this size travel inside the entry too (and are in `cas/` as well, for
/// validating servers and other clients), up to [`INLINE_TOTAL`] an entry.
pub const INLINE_MAX: u64 = 64 << 10;
pub const INLINE_TOTAL: u64 = 1 << 20;

const SIGNED_PREFIX: &str = "mjolnir-signed-v2 ";

fn seal(key: &str, outputs: &[RemoteOutput]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"mjolnir-remote-action\0");
    h.update(key.as_bytes());
    for o in outputs {
        for field in [
            o.name.as_bytes(),
            o.sha256.as_bytes(),
            o.blake3.as_bytes(),
            &o.size.to_le_bytes(),
        ] {
            h.update(&(field.len() as u64).to_le_bytes());
            h.update(field);
        }
        if let Some(size) = o.spliced {
            h.update(b"spliced");
            h.update(&size.to_le_bytes());
        }
    }
    h.finalize().to_hex().to_string()
}

fn properties(o: &RemoteOutput) -> Vec<NodeProperty> {
    let mut properties = vec![NodeProperty {
        name: BLAKE3_PROPERTY.into(),
        value: o.blake3.clone(),
    }];
    if let Some(size) = o.spliced {
        properties.push(NodeProperty {
            name: SPLICED_PROPERTY.into(),
            value: size.to_string(),
        });
    }
    properties
}

/// The entry for `key`'s outputs, signed by `writer`.
pub fn encode(key: &str, outputs: &[RemoteOutput], writer: &SigningKey) -> Vec<u8> {
    let signature = writer.sign(seal(key, outputs).as_bytes());
    let stamp = format!(
        "{SIGNED_PREFIX}{} {}",
        hex(writer.verifying_key().as_bytes()),
        hex(&signature.to_bytes())
    );
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
                node_properties: Some(NodeProperties {
                    properties: properties(o),
                }),
            })
            .collect(),
        exit_code: 0,
        stdout_raw: stamp.into_bytes(),
    }
    .encode_to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != 2 * N || !text.is_ascii() {
        return None;
    }
    let mut out = [0u8; N];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// Why an entry is not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// No writer's signature: anyone who can write to the server could have made it.
    Unsigned,
    /// Signed by a key the reader does not trust (its hex public key).
    UnknownWriter(String),
    /// The signature does not verify for this key and these outputs.
    BadSignature,
    /// Not a well-formed entry.
    Damaged(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Refused::Unsigned => write!(f, "it carries no writer's signature"),
            Refused::UnknownWriter(key) => write!(
                f,
                "it is signed by {key}, which [cache] trusted_writers does not list"
            ),
            Refused::BadSignature => write!(
                f,
                "its signature does not verify for this key and these outputs"
            ),
            Refused::Damaged(why) => write!(f, "{why}"),
        }
    }
}

/// The outputs an entry read for `key` lists, if a writer in `trusted` signed it.
pub fn decode(
    key: &str,
    bytes: &[u8],
    trusted: &[VerifyingKey],
) -> Result<Vec<RemoteOutput>, Refused> {
    let (outputs, stamp) = parse(bytes)?;
    check_signature(key, &outputs, &stamp, trusted)?;
    Ok(outputs)
}

/// The outputs an entry lists, its signature unchecked: for an entry that a trusted
/// writer's signature already covers, as each entry in a bundle is by the bundle's.
pub fn decode_vouched(bytes: &[u8]) -> Result<Vec<RemoteOutput>, Refused> {
    Ok(parse(bytes)?.0)
}

fn parse(bytes: &[u8]) -> Result<(Vec<RemoteOutput>, Vec<u8>), Refused> {
    let damaged = |why: String| Refused::Damaged(why);
    let result = ActionResult::decode(bytes)
        .map_err(|e| damaged(format!("it is not an ActionResult ({e})")))?;
    if result.exit_code != 0 {
        return Err(damaged(format!(
            "it records exit code {}",
            result.exit_code
        )));
    }
    let outputs = result
        .output_files
        .into_iter()
        .map(output)
        .collect::<Result<Vec<_>, Refused>>()?;
    Ok((outputs, result.stdout_raw))
}

fn check_signature(
    key: &str,
    outputs: &[RemoteOutput],
    stamp: &[u8],
    trusted: &[VerifyingKey],
) -> Result<(), Refused> {
    let stamp = std::str::from_utf8(stamp).unwrap_or_default();
    let Some((writer, signature)) = stamp
        .strip_prefix(SIGNED_PREFIX)
        .and_then(|s| s.split_once(' '))
    else {
        return Err(Refused::Unsigned);
    };
    let writer_key = unhex::<32>(writer).and_then(|k| VerifyingKey::from_bytes(&k).ok());
    let Some(writer_key) = writer_key.filter(|k| trusted.contains(k)) else {
        return Err(Refused::UnknownWriter(writer.chars().take(64).collect()));
    };
    let signature = unhex::<64>(signature).ok_or(Refused::BadSignature)?;
    writer_key
        .verify(
            seal(key, outputs).as_bytes(),
            &Signature::from_bytes(&signature),
        )
        .map_err(|_| Refused::BadSignature)
}

fn output(f: OutputFile) -> Result<RemoteOutput, Refused> {
    let digest = f
        .digest
        .ok_or_else(|| Refused::Damaged(format!("output {:?} has no digest", f.path)))?;
    let property = |name: &str| {
        f.node_properties
            .iter()
            .flat_map(|p| &p.properties)
            .find(|p| p.name == name)
            .map(|p| p.value.clone())
    };
    let blake3 = property(BLAKE3_PROPERTY).unwrap_or_default();
    let spliced = match property(SPLICED_PROPERTY) {
        Some(size) => Some(size.parse::<u64>().map_err(|_| {
            Refused::Damaged(format!("output {:?} has a malformed spliced size", f.path))
        })?),
        None => None,
    };
    if !is_hex_digest(&digest.hash) || !is_hex_digest(&blake3) || digest.size_bytes < 0 {
        return Err(Refused::Damaged(format!(
            "output {:?} has a malformed digest",
            f.path
        )));
    }
    let size = digest.size_bytes as u64;
    Ok(RemoteOutput {
        name: f.path,
        sha256: digest.hash,
        blake3,
        size,
        inline: (size == 0 || !f.contents.is_empty()).then_some(f.contents),
        spliced,
    })
}

/// 32 bytes in lowercase hex, as both digests are written.
fn is_hex_digest(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs() -> Vec<RemoteOutput> {
        vec![
            RemoteOutput {
                name: "mesh.fgim".into(),
                sha256: "ab".repeat(32),
                blake3: "ef".repeat(32),
                size: 12,
                inline: None,
                spliced: None,
            },
            RemoteOutput {
                name: "small.bin".into(),
                sha256: "cd".repeat(32),
                blake3: "01".repeat(32),
                size: 3,
                inline: Some(b"abc".to_vec()),
                spliced: Some(40),
            },
        ]
    }

    fn writer(n: u8) -> SigningKey {
        SigningKey::from_bytes(&[n; 32])
    }

    #[test]
    fn an_entry_reads_back_for_its_key_only() {
        let trusted = [writer(1).verifying_key()];
        let bytes = encode("k1", &outputs(), &writer(1));
        assert_eq!(decode("k1", &bytes, &trusted).unwrap(), outputs());
        assert_eq!(
            decode("k2", &bytes, &trusted).unwrap_err(),
            Refused::BadSignature
        );
        assert!(decode("k1", &bytes[..bytes.len() - 3], &trusted).is_err());
        assert!(decode("k1", b"\xff\xff\xff", &trusted).is_err());
    }

    #[test]
    fn only_a_trusted_writers_signature_is_taken() {
        let trusted = [writer(1).verifying_key()];
        let other = encode("k", &outputs(), &writer(2));
        assert!(matches!(
            decode("k", &other, &trusted),
            Err(Refused::UnknownWriter(_))
        ));
        // An entry anyone could make: the right seal, no signature.
        let mut unsigned = ActionResult::decode(other.as_slice()).unwrap();
        unsigned.stdout_raw = format!("mjolnir-seal {}", seal("k", &outputs())).into_bytes();
        let unsigned = unsigned.encode_to_vec();
        assert_eq!(
            decode("k", &unsigned, &trusted).unwrap_err(),
            Refused::Unsigned
        );
        // A trusted writer's signature over other outputs.
        let mut forged =
            ActionResult::decode(encode("k", &outputs(), &writer(1)).as_slice()).unwrap();
        forged.output_files[0].digest.as_mut().unwrap().size_bytes = 99;
        let forged = forged.encode_to_vec();
        assert_eq!(
            decode("k", &forged, &trusted).unwrap_err(),
            Refused::BadSignature
        );
        // Or over another BLAKE3, which would key the steps downstream differently.
        let mut swapped =
            ActionResult::decode(encode("k", &outputs(), &writer(1)).as_slice()).unwrap();
        let property = &mut swapped.output_files[0]
            .node_properties
            .as_mut()
            .unwrap()
            .properties[0];
        property.value = "00".repeat(32);
        assert_eq!(
            decode("k", &swapped.encode_to_vec(), &trusted).unwrap_err(),
            Refused::BadSignature
        );
        // An entry without one cannot be keyed from.
        swapped.output_files[0].node_properties = None;
        assert!(matches!(
            decode("k", &swapped.encode_to_vec(), &trusted),
            Err(Refused::Damaged(_))
        ));
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
        let bytes = encode("k", &outputs(), &writer(1));
        assert_eq!(bytes[0], 2 << 3 | 2);
        // After the output file's length, a varint.
        let path = 1 + bytes[1..].iter().position(|b| b & 0x80 == 0).unwrap() + 1;
        assert_eq!(bytes[path], 1 << 3 | 2);
        assert_eq!(&bytes[path + 2..path + 11], b"mesh.fgim");
    }
}
