//! Writing a `.mjolnir` archive: a plain zip with sorted members, fixed timestamps and fixed
//! compression, so the same members give the same bytes.

use std::collections::BTreeMap;
use std::io::{Cursor, Write};

use ed25519_dalek::SigningKey;
use zip::write::SimpleFileOptions;

use crate::signature::{self, Statement};

/// The fixed timestamp of every member (the zip epoch, 1980-01-01).
fn options() -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(6))
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644)
}

/// Who signs, and when (RFC 3339).
pub struct Signer<'a> {
    pub key: &'a SigningKey,
    pub signed_at: String,
}

/// Why an archive could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("cannot zip {path}: {source}")]
    Zip {
        path: String,
        #[source]
        source: zip::result::ZipError,
    },
}

/// Zips `members` (archive path to bytes), adding `signature.json` when signing.
pub fn write(
    members: &BTreeMap<String, Vec<u8>>,
    slug: &str,
    version: &str,
    signer: Option<Signer>,
) -> Result<Vec<u8>, ArchiveError> {
    let mut all = members.clone();
    if let Some(s) = signer {
        let statement = Statement {
            schema_version: 1,
            slug: slug.to_string(),
            version: version.to_string(),
            author: None,
            key_fingerprint: signature::fingerprint(&s.key.verifying_key()),
            signed_at: s.signed_at,
            files: members
                .iter()
                .map(|(p, b)| (p.clone(), signature::sha256_hex(b)))
                .collect(),
        };
        let envelope = signature::sign(s.key, &statement);
        let bytes = json_out::pretty(&envelope);
        all.insert("signature.json".to_string(), bytes);
    }
    zip_members(&all)
}

/// A zip of `members` (path to bytes) in path order, with fixed timestamps, permissions
/// and compression: the same members always give the same bytes.
pub fn zip_members(members: &BTreeMap<String, Vec<u8>>) -> Result<Vec<u8>, ArchiveError> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (path, bytes) in members {
        let zip_error = |source| ArchiveError::Zip {
            path: path.clone(),
            source,
        };
        zip.start_file(path.as_str(), options())
            .map_err(zip_error)?;
        zip.write_all(bytes)
            .map_err(|e| zip_error(zip::result::ZipError::Io(e)))?;
    }
    let finished = zip.finish().map_err(|source| ArchiveError::Zip {
        path: "the central directory".into(),
        source,
    })?;
    Ok(finished.into_inner())
}

/// One member of an archive, read to at most `limit` bytes whatever the archive declares;
/// `Ok(None)` when there is no such member.
pub fn read_member(
    bytes: &[u8],
    name: &str,
    limit: u64,
) -> Result<Option<Vec<u8>>, bounded_zip::ZipError> {
    Ok(read_members(bytes, |n| n == name, limit)?
        .into_values()
        .next())
}

/// The most members a release may list.
pub const MAX_MEMBERS: usize = 4096;

/// The members whose names `keep` accepts, at most `budget` bytes in all, through the one
/// bounded reader of other people's ZIPs.
pub fn read_members(
    bytes: &[u8],
    keep: impl Fn(&str) -> bool,
    budget: u64,
) -> Result<BTreeMap<String, Vec<u8>>, bounded_zip::ZipError> {
    let limits = bounded_zip::Limits {
        members: MAX_MEMBERS,
        member_bytes: budget,
        total_bytes: budget,
    };
    bounded_zip::read(bytes, limits, keep)
}
