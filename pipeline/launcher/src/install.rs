//! Installs that a kill at any point cannot leave half-done. A sync first downloads and
//! verifies every release it will install into `packs/.staging/`, where nothing counts as
//! installed. Only then does it write the journal (`packs/.install-journal.json`: each
//! staged file, the name it takes, its SHA-256 and the release it replaces), move each
//! staged file into place, remove what it replaced, and delete the journal. The next sync
//! finishes a journal it finds before reading anything: a staged file that is still there
//! is moved in, and a replaced release whose successor is in place is removed. So there is
//! never a second release of one pack once a sync has run, and the catalogs, written from
//! the files, always match them.

use std::path::{Path, PathBuf};

use forge_resolve::Chosen;
use mjolnir_files::{atomic, bounded};
use serde::{Deserialize, Serialize};

use crate::api::{self, PackPayload, MAX_ARCHIVE_BYTES};
use crate::client::Hub;
use crate::finding::Finding;
use crate::profile::{self, Profile, Verified};

const JOURNAL: &str = ".install-journal.json";
const STAGING: &str = ".staging";

/// A release downloaded, verified and waiting to be moved into place.
pub struct Staged {
    pub verified: Verified,
    pub staged: PathBuf,
    /// The installed release of the same pack it replaces.
    pub replaces: Option<PathBuf>,
}

#[derive(Serialize, Deserialize)]
struct Journal {
    moves: Vec<Move>,
}

/// Names only, all inside `packs/`.
#[derive(Serialize, Deserialize)]
struct Move {
    staged: String,
    target: String,
    sha256: String,
    replaces: Option<String>,
}

/// A test hook standing in for `kill -9` at a named stage of an install: the process
/// aborts there, running no destructor and no cleanup.
fn crash_point(stage: &str) {
    if std::env::var("MJOLNIR_TEST_CRASH_AT").is_ok_and(|s| s == stage) {
        std::process::abort();
    }
}

/// Downloads `chosen`'s archive into the staging folder and verifies it: the Hub's SHA-256,
/// the scan and a trusted signature, and then that the archive's own manifest is the
/// release the payload claimed and resolution chose.
pub fn download(
    hub: &Hub,
    profile: &Profile,
    slug: &str,
    chosen: &Chosen,
    payload: &PackPayload,
    trusted: &[String],
) -> Result<Staged, Finding> {
    let id = api::release_id(slug, &chosen.version);
    let path = api::archive_path(&id);
    let bytes = hub.get(&path, MAX_ARCHIVE_BYTES)?.ok_or_else(|| {
        Finding::new(
            "hub_missing_release",
            hub.url(&path),
            "the Hub lists this release but has no archive for it",
        )
    })?;
    let sha256 = forge_release::signature::sha256_hex(&bytes);
    if sha256 != payload.archive_sha256 {
        return Err(Finding::new(
            "archive_sha256",
            &id,
            format!(
                "the archive hashes to {sha256}, not the Hub's {}",
                api::truncated(&payload.archive_sha256)
            ),
        ));
    }
    let target = profile.packs().join(format!("{id}.mjolnir"));
    let verified = profile::verify(&bytes, trusted, &target).map_err(|f| Finding {
        subject: id.clone(),
        ..f
    })?;
    matches_claim(&verified, slug, chosen, payload)?;
    let staging = profile.packs().join(STAGING);
    let staged = staging.join(format!("{id}.mjolnir"));
    atomic::write(&staged, &bytes).map_err(|e| {
        Finding::new(
            "install_failed",
            staged.display().to_string(),
            e.to_string(),
        )
    })?;
    Ok(Staged {
        verified,
        staged,
        replaces: None,
    })
}

/// The archive is what was asked for: its own slug, version, catalog and dependencies.
fn matches_claim(
    v: &Verified,
    slug: &str,
    chosen: &Chosen,
    payload: &PackPayload,
) -> Result<(), Finding> {
    let id = api::release_id(slug, &chosen.version);
    let mismatch = |what: String| {
        Err(Finding::new(
            "hub_mismatch",
            &id,
            format!("{what}; nothing was installed"),
        ))
    };
    if v.slug != slug {
        return mismatch(format!("the archive is pack {:?}, not {slug}", v.slug));
    }
    if v.version != chosen.version {
        return mismatch(format!(
            "the archive is release {}, not {}",
            v.version, chosen.version
        ));
    }
    if forge_contract::document::catalog(&v.raw) != &payload.catalog {
        return mismatch("the archive's catalog is not the one the Hub published for it".into());
    }
    let deps: Vec<(String, String)> = v
        .manifest
        .deps
        .iter()
        .map(|d| (d.slug.clone(), d.range_text.clone()))
        .collect();
    let claimed: Vec<(String, String)> = payload
        .dependencies
        .iter()
        .map(|d| (d.slug.clone(), d.range.clone()))
        .collect();
    if deps != claimed {
        return mismatch(
            "the archive's dependencies are not the ones the Hub published for it".into(),
        );
    }
    Ok(())
}

/// Moves every staged release into place under a journal.
pub fn commit(profile: &Profile, staged: &[Staged]) -> Result<(), Finding> {
    if staged.is_empty() {
        return Ok(());
    }
    let packs = profile.packs();
    let name = |p: &Path| {
        p.file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    };
    let journal = Journal {
        moves: staged
            .iter()
            .map(|s| Move {
                staged: name(&s.staged),
                target: name(&s.verified.path),
                sha256: s.verified.sha256.clone(),
                replaces: s.replaces.as_deref().map(name),
            })
            .collect(),
    };
    crash_point("staged");
    let text = json_out::pretty(&journal);
    let journal_path = packs.join(JOURNAL);
    atomic::write(&journal_path, &text).map_err(|e| {
        Finding::new(
            "install_failed",
            journal_path.display().to_string(),
            e.to_string(),
        )
    })?;
    crash_point("journaled");
    finish(&packs, &journal);
    Ok(())
}

/// Carries out a journal's moves (again, if need be), then deletes it and the staging
/// folder. Each step is one that can be repeated.
fn finish(packs: &Path, journal: &Journal) {
    for m in &journal.moves {
        let staged = packs.join(STAGING).join(&m.staged);
        let target = packs.join(&m.target);
        if staged.is_file() {
            let _ = std::fs::rename(&staged, &target);
            crash_point("renamed");
        }
        let in_place = bounded::read(&target, MAX_ARCHIVE_BYTES)
            .is_ok_and(|b| forge_release::signature::sha256_hex(&b) == m.sha256);
        if let Some(old) = m.replaces.as_ref().filter(|o| **o != m.target && in_place) {
            let _ = std::fs::remove_file(packs.join(old));
            crash_point("removed");
        }
    }
    let _ = std::fs::remove_file(packs.join(JOURNAL));
    let _ = std::fs::remove_dir_all(packs.join(STAGING));
}

/// A file name directly in `packs/` (or its staging folder), never a path.
fn plain_name(name: &str) -> bool {
    plain_path::is_plain(name) && !name.contains('/')
}

/// Finishes an install a killed sync left, or sweeps what a sync killed before its journal
/// left. Returns a finding when a journal was found and could not be read.
pub fn recover(profile: &Profile) -> Option<Finding> {
    let packs = profile.packs();
    let path = packs.join(JOURNAL);
    let finding = match bounded::read(&path, 1 << 20) {
        Err(_) => None,
        Ok(bytes) => match serde_json::from_slice::<Journal>(&bytes) {
            Ok(journal)
                if journal.moves.iter().all(|m| {
                    plain_name(&m.staged)
                        && plain_name(&m.target)
                        && m.replaces.as_deref().is_none_or(plain_name)
                }) =>
            {
                finish(&packs, &journal);
                None
            }
            _ => Some(Finding::new(
                "bad_journal",
                path.display().to_string(),
                "the install journal is damaged; it was removed, and the staged downloads with it",
            )),
        },
    };
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_dir_all(packs.join(STAGING));
    sweep_partial(&packs);
    finding
}

/// A write cut short leaves at most a temporary file, swept here.
fn sweep_partial(dir: &Path) {
    for entry in std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
    {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with(atomic::TEMP_PREFIX)
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Drops every staged download (a sync that refused them all).
pub fn discard(profile: &Profile) {
    let _ = std::fs::remove_dir_all(profile.packs().join(STAGING));
}
