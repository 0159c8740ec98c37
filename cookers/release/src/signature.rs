//! Author signatures (`signature.json`), exactly as `docs/formats/archive.md` records them:
//! an envelope around a base64 statement that lists the SHA-256 of every other member,
//! signed with Ed25519 over `"MJOLNIR-MOD-STATEMENT-V1\n"` followed by the statement bytes.

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
pub use ed25519_dalek::SigningKey;
use ed25519_dalek::{Signature, Signer, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub const DOMAIN: &[u8] = b"MJOLNIR-MOD-STATEMENT-V1\n";
pub const PAYLOAD_TYPE: &str = "mjolnir-mod-statement-v1";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Author {
    pub id: String,
    pub username: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statement {
    pub schema_version: u32,
    pub slug: String,
    pub version: String,
    pub author: Option<Author>,
    pub key_fingerprint: String,
    pub signed_at: String,
    /// Every member but `signature.json`: path to SHA-256 hex.
    pub files: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    pub schema_version: u32,
    pub payload_type: String,
    pub payload: String,
    pub public_key: String,
    pub signature: String,
}

/// Lowercase hex, two digits a byte: how keys, seeds and digests are written.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The SHA-256 hex of the raw 32-byte public key.
pub fn fingerprint(key: &VerifyingKey) -> String {
    sha256_hex(key.as_bytes())
}

/// A seed that is neither 32 raw bytes nor 64 hex digits.
#[derive(Debug, thiserror::Error)]
#[error("a seed is 32 bytes, raw or as 64 hex digits; this one is {length} bytes")]
pub struct SeedError {
    pub length: usize,
}

/// A signing key from a 32-byte seed, given raw or as 64 hex digits.
pub fn key_from_seed(bytes: &[u8]) -> Result<SigningKey, SeedError> {
    let text = std::str::from_utf8(bytes).ok().map(str::trim);
    let seed: [u8; 32] =
        match text.filter(|t| t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit())) {
            Some(hex) => std::array::from_fn(|i| {
                u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex digits")
            }),
            None => bytes.try_into().map_err(|_| SeedError {
                length: bytes.len(),
            })?,
        };
    Ok(SigningKey::from_bytes(&seed))
}

pub fn sign(key: &SigningKey, statement: &Statement) -> Envelope {
    let payload = serde_json::to_vec(statement).expect("a statement serializes");
    let mut message = DOMAIN.to_vec();
    message.extend_from_slice(&payload);
    let signature = key.sign(&message);
    Envelope {
        schema_version: 1,
        payload_type: PAYLOAD_TYPE.into(),
        payload: B64.encode(&payload),
        public_key: B64.encode(key.verifying_key().as_bytes()),
        signature: B64.encode(signature.to_bytes()),
    }
}

/// Why an envelope does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Malformed, or the signature does not verify.
    Bad(String),
    /// Valid, but by another key than the expected one.
    Foreign { fingerprint: String },
}

/// The hex public key an envelope names, whether or not it verifies: what a reader adds to
/// its trusted keys once it has decided to trust that signer.
pub fn public_key_hex(envelope_bytes: &[u8]) -> Option<String> {
    let env: Envelope = serde_json::from_slice(envelope_bytes).ok()?;
    let key = B64.decode(&env.public_key).ok()?;
    (key.len() == 32).then(|| hex(&key))
}

/// Checks the envelope's signature (and the signer, when `expect_key` is given: base64
/// or hex of the public key, or its fingerprint), and returns the statement it signs.
pub fn verify(envelope_bytes: &[u8], expect_key: Option<&str>) -> Result<Statement, Problem> {
    let bad = |m: &str| Problem::Bad(m.to_string());
    let env: Envelope = serde_json::from_slice(envelope_bytes)
        .map_err(|e| Problem::Bad(format!("signature.json is not an envelope: {e}")))?;
    if env.payload_type != PAYLOAD_TYPE {
        return Err(Problem::Bad(format!(
            "payload type {:?} is not {PAYLOAD_TYPE}",
            env.payload_type
        )));
    }
    let payload = B64
        .decode(&env.payload)
        .map_err(|_| bad("the payload is not base64"))?;
    let key: [u8; 32] = B64
        .decode(&env.public_key)
        .ok()
        .and_then(|k| k.try_into().ok())
        .ok_or_else(|| bad("the public key is not 32 base64 bytes"))?;
    let key = VerifyingKey::from_bytes(&key)
        .map_err(|_| bad("the public key is not a valid Ed25519 key"))?;
    let sig: [u8; 64] = B64
        .decode(&env.signature)
        .ok()
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| bad("the signature is not 64 base64 bytes"))?;
    let mut message = DOMAIN.to_vec();
    message.extend_from_slice(&payload);
    key.verify(&message, &Signature::from_bytes(&sig))
        .map_err(|_| bad("the signature does not verify"))?;
    let statement: Statement = serde_json::from_slice(&payload)
        .map_err(|e| Problem::Bad(format!("the statement is not valid: {e}")))?;
    if statement.key_fingerprint != fingerprint(&key) {
        return Err(bad(
            "the statement's key fingerprint is not the signing key's",
        ));
    }
    if let Some(expected) = expect_key {
        let fp = fingerprint(&key);
        let e = expected.trim();
        if e != fp && !e.eq_ignore_ascii_case(&hex(key.as_bytes())) && e != env.public_key {
            return Err(Problem::Foreign { fingerprint: fp });
        }
    }
    Ok(statement)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8032 §7.1, test 1: the key path and the signature bytes from an independent
    /// source.
    #[test]
    fn rfc8032_test_vector_one() {
        let seed = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
        let key = key_from_seed(seed.as_bytes()).unwrap();
        assert_eq!(
            hex(key.verifying_key().as_bytes()),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
        );
        assert_eq!(hex(&key.sign(b"").to_bytes()), "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");
    }

    #[test]
    fn seeds_raw_or_hex() {
        let raw = [7u8; 32];
        assert_eq!(
            key_from_seed(&raw).unwrap().to_bytes(),
            key_from_seed(format!("{}\n", hex(&raw)).as_bytes())
                .unwrap()
                .to_bytes()
        );
        assert!(key_from_seed(b"short").is_err());
    }
}
