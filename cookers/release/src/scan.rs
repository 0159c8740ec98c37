//! The Hub's scan of a `.mjolnir` archive, offline, with its finding codes.

use bounded_zip::Walk;
use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use forge_contract::Manifest;

use crate::rules;
use crate::signature::{self, Problem};

pub const MAX_UNPACKED: u64 = 256 << 20;
pub const MAX_CHANGES: usize = 512 << 10;
pub const ALLOWED: &[&str] = &[
    "utoc", "ucas", "json", "md", "txt", "png", "jpg", "jpeg", "webp",
];

pub use crate::rules::{Finding, Severity};

#[derive(Debug, Default, Clone, Serialize)]
pub struct ScanReport {
    pub findings: Vec<Finding>,
    /// The manifest's slug and version, when it parsed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The signer's key fingerprint, when signed and valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signer: Option<String>,
    /// The signer's public key as hex, as `trusted-keys.txt` lists keys.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signer_key: Option<String>,
    /// The archive's own manifest, when it parsed: what a reader of the archive goes by,
    /// rather than anything said about it from outside.
    #[serde(skip)]
    pub manifest: Option<Manifest>,
}

impl ScanReport {
    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
    }

    fn error(&mut self, code: &'static str, member: Option<&str>, message: impl Into<String>) {
        self.findings.push(Finding {
            code,
            severity: Severity::Error,
            member: member.map(str::to_string),
            message: message.into(),
        });
    }

    fn warning(&mut self, code: &'static str, member: Option<&str>, message: impl Into<String>) {
        self.findings.push(Finding {
            code,
            severity: Severity::Warning,
            member: member.map(str::to_string),
            message: message.into(),
        });
    }
}

#[derive(Default)]
pub struct ScanOptions<'a> {
    pub expect_key: Option<&'a str>,
    pub release_version: Option<&'a str>,
    /// Accept an unsigned archive (offline checks of a build before signing); the Hub
    /// refuses one.
    pub allow_unsigned: bool,
}

pub use crate::rules::traverses;

pub fn scan(bytes: &[u8], options: &ScanOptions) -> ScanReport {
    let mut r = ScanReport::default();
    // The zip reader keeps one entry per name, so duplicates are found in the central
    // directory itself.
    let mut seen = BTreeMap::new();
    for name in bounded_zip::central_directory_names(bytes).unwrap_or_default() {
        if let Some(f) = rules::member_path(name.trim_end_matches('/'), &mut seen)
            .filter(|f| f.code == "duplicate_member")
        {
            r.findings.push(f);
        }
    }
    let Some(members) = unpack(&mut r, bytes) else {
        return r;
    };
    let manifest = manifest(&mut r, &members, options);
    listed_members(&mut r, &members, manifest.as_ref());
    containers(&mut r, &members, manifest.as_ref());
    changes(&mut r, &members);
    signature_check(&mut r, &members, options);
    r.manifest = manifest;
    r
}

/// Every member a release may hold, unpacked within [`MAX_UNPACKED`] through the one
/// bounded ZIP reader; a member that breaks a rule is a finding and left out, and the
/// walk goes on to report the rest. `None` when the archive cannot be read or is past
/// the budget.
fn unpack(r: &mut ScanReport, bytes: &[u8]) -> Option<BTreeMap<String, Vec<u8>>> {
    let mut seen = BTreeMap::new();
    let mut members: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut budget = MAX_UNPACKED;
    let mut past_budget = false;
    let walked = bounded_zip::walk(bytes, crate::archive::MAX_MEMBERS, |member| {
        let mut member = match member {
            Ok(member) => member,
            Err(e) => {
                r.error("bad_zip", None, e.to_string());
                return Walk::Next;
            }
        };
        let name = member.name.clone();
        if !admitted(r, &name, member.is_link, member.is_dir, &mut seen) {
            return Walk::Next;
        }
        match read_within(r, &mut member, budget) {
            None => {
                past_budget = true;
                return Walk::Stop;
            }
            Some(Some(data)) => {
                budget -= data.len() as u64;
                members.insert(name, data);
            }
            Some(None) => {}
        }
        Walk::Next
    });
    match walked {
        Err(bounded_zip::ZipError::TooManyMembers(n, most)) => {
            r.error(
                "bad_zip",
                None,
                format!("the archive lists {n} members; a release holds at most {most}"),
            );
            None
        }
        Err(e) => {
            r.error("bad_zip", None, e.to_string());
            None
        }
        Ok(()) => (!past_budget).then_some(members),
    }
}

/// Whether a member is a file a release may hold: not a link, a plain path seen once, and
/// of an allowed kind. A folder is never admitted, and is no finding.
fn admitted(
    r: &mut ScanReport,
    name: &str,
    is_link: bool,
    is_dir: bool,
    seen: &mut BTreeMap<String, String>,
) -> bool {
    if is_link {
        r.error(
            "symlink_member",
            Some(name),
            "a release holds files only; a link could point anywhere once unpacked",
        );
        return false;
    }
    if let Some(finding) = rules::member_path(name.trim_end_matches('/'), seen)
        .or_else(|| rules::container_extension(name))
    {
        r.findings.push(finding);
        return false;
    }
    if is_dir {
        return false;
    }
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    if !ALLOWED.contains(&ext.as_str()) {
        r.error(
            "forbidden_file",
            Some(name),
            format!("only {} files may be in a release", ALLOWED.join(", ")),
        );
        return false;
    }
    true
}

/// A member's bytes, read to at most what is left of the budget (its declared size is
/// not trusted). `None` past the budget; `Some(None)` when it does not decompress.
fn read_within(
    r: &mut ScanReport,
    member: &mut bounded_zip::Member,
    budget: u64,
) -> Option<Option<Vec<u8>>> {
    let too_big = || {
        format!(
            "the archive unpacks to more than {} MiB",
            MAX_UNPACKED >> 20
        )
    };
    if member.declared_size > budget {
        r.error("bad_zip", Some(&member.name), too_big());
        return None;
    }
    match member.read_within(budget) {
        Ok(Some(data)) => Some(Some(data)),
        Ok(None) => {
            r.error("bad_zip", Some(&member.name), too_big());
            None
        }
        Err(e) => {
            r.error(
                "bad_zip",
                Some(&member.name),
                format!("the member does not decompress: {e}"),
            );
            Some(None)
        }
    }
}

/// The members the contract lists: `mjolnir.json`, containers under `content/`, optional
/// `docs/README.md` and `changes.json`, the signature, and for a map its level and layout.
/// Anything else (sources, notes) is not installable content.
fn listed_members(r: &mut ScanReport, members: &BTreeMap<String, Vec<u8>>, m: Option<&Manifest>) {
    let is_map = m.is_some_and(|m| m.catalog().is_none());
    for name in members.keys() {
        let container = name
            .strip_prefix("content/")
            .is_some_and(|rest| rest.ends_with(".utoc") || rest.ends_with(".ucas"));
        let listed = container
            || [
                "mjolnir.json",
                "docs/README.md",
                "changes.json",
                "signature.json",
            ]
            .contains(&name.as_str())
            || (is_map && [crate::LEVEL_MEMBER, crate::LAYOUT_MEMBER].contains(&name.as_str()));
        if !listed {
            r.error(
                "unlisted_member",
                Some(name),
                "a release holds only mjolnir.json, content/*.utoc and .ucas, docs/README.md, changes.json and its signature (and a map its level.json and layout.json); sources and notes are not installable content",
            );
        }
    }
}

fn manifest(
    r: &mut ScanReport,
    members: &BTreeMap<String, Vec<u8>>,
    options: &ScanOptions,
) -> Option<Manifest> {
    let Some(bytes) = members.get("mjolnir.json") else {
        r.error(
            "no_manifest",
            None,
            "the archive has no mjolnir.json at its root",
        );
        return None;
    };
    let text = String::from_utf8_lossy(bytes);
    match forge_contract::parse_manifest("mjolnir.json", &text) {
        Ok((m, _)) => {
            r.version = Some(m.version.to_string());
            if let Some(expected) = options.release_version {
                if m.version.to_string() != expected {
                    r.error(
                        "version_mismatch",
                        Some("mjolnir.json"),
                        format!("the manifest says {}, the release is {expected}", m.version),
                    );
                }
            }
            r.findings.extend(rules::publishable(&m, &text));
            Some(m)
        }
        Err(findings) => {
            // A pack needing what this reader does not know is refused with that code, so
            // the author is told to update rather than to fix the manifest.
            let newer = |d: &&forge_contract::Diagnostic| {
                ["unknown_feature", "schema_too_new"].contains(&d.code)
            };
            for d in findings.iter().filter(newer) {
                r.error(d.code, Some("mjolnir.json"), d.to_string());
            }
            let first: Vec<String> = findings
                .iter()
                .filter(|d| d.is_error() && !newer(d))
                .take(3)
                .map(|d| d.to_string())
                .collect();
            if !first.is_empty() {
                r.error("bad_manifest", Some("mjolnir.json"), first.join("; "));
            }
            None
        }
    }
}

fn containers(
    r: &mut ScanReport,
    members: &BTreeMap<String, Vec<u8>>,
    manifest: Option<&Manifest>,
) {
    let catalog = manifest.and_then(Manifest::catalog);
    let is_map = manifest.is_some() && catalog.is_none();
    let mut any = false;
    let mut packages = BTreeSet::new();
    for (name, bytes) in members {
        if let Some(stem) = name.strip_suffix(".utoc") {
            any |= name.starts_with("content/");
            let ucas = members.get(&format!("{stem}.ucas")).map(Vec::as_slice);
            let (findings, held) = rules::container(name, bytes, ucas, catalog);
            r.findings.extend(findings);
            packages.extend(held);
        } else if let Some(stem) = name.strip_suffix(".ucas") {
            if !members.contains_key(&format!("{stem}.utoc")) {
                r.error(
                    "orphan_ucas",
                    Some(name),
                    "the container's .utoc is missing",
                );
            }
        }
    }
    if !any {
        r.error(
            "no_content",
            None,
            "the archive has no container under content/",
        );
    } else if is_map {
        r.findings.extend(rules::pack_packages_in_map(&packages));
    } else if let Some(catalog) = catalog {
        r.findings.extend(rules::ghost_blocks(catalog, &packages));
        r.findings
            .extend(rules::uninstallable_blocks(catalog, &packages));
    }
}

fn changes(r: &mut ScanReport, members: &BTreeMap<String, Vec<u8>>) {
    let Some(bytes) = members.get("changes.json") else {
        r.warning(
            "no_changes",
            None,
            "the archive has no changes.json declaring what it changes",
        );
        return;
    };
    if bytes.len() > MAX_CHANGES {
        r.error(
            "bad_changes",
            Some("changes.json"),
            format!(
                "changes.json is {} bytes; at most {MAX_CHANGES}",
                bytes.len()
            ),
        );
        return;
    }
    let ok = serde_json::from_slice::<Value>(bytes)
        .ok()
        .is_some_and(|v| {
            v["schema_version"].is_u64()
                && v["tags"].as_array().is_some_and(|t| {
                    t.iter().all(|t| {
                        t["group"].is_string() && t["tag"].is_string() && t["fields"].is_array()
                    })
                })
                && v.get("textures").is_none_or(Value::is_array)
                && v.get("scripts").is_none_or(Value::is_array)
        });
    if !ok {
        r.error("bad_changes", Some("changes.json"), "changes.json must be {schema_version, tags: [{group, tag, fields}], textures, scripts}");
    }
}

fn signature_check(r: &mut ScanReport, members: &BTreeMap<String, Vec<u8>>, options: &ScanOptions) {
    let Some(envelope) = members.get("signature.json") else {
        let message = "the archive is unsigned; the Hub refuses unsigned uploads (sign it with `mjolnir forge pack --sign`)";
        if options.allow_unsigned {
            r.warning("unsigned", None, message);
        } else {
            r.error("unsigned", None, message);
        }
        return;
    };
    r.signer_key = signature::public_key_hex(envelope);
    match signature::verify(envelope, options.expect_key) {
        Err(Problem::Bad(why)) => r.error("bad_signature", Some("signature.json"), why),
        Err(Problem::Foreign { fingerprint }) => r.error(
            "foreign_signature",
            Some("signature.json"),
            format!("signed by key {fingerprint}, not the expected author key"),
        ),
        Ok(statement) => {
            let listed: Vec<&String> = statement.files.keys().collect();
            let present: Vec<&String> = members
                .keys()
                .filter(|k| k.as_str() != "signature.json")
                .collect();
            if listed != present {
                let extra: Vec<&&String> = present.iter().filter(|p| !listed.contains(p)).collect();
                let missing: Vec<&&String> =
                    listed.iter().filter(|l| !present.contains(l)).collect();
                r.error("bad_signature", Some("signature.json"), format!("the members do not match the signed statement (not signed: {extra:?}; missing: {missing:?})"));
                return;
            }
            if let Some((path, _)) = statement.files.iter().find(|(p, h)| {
                members
                    .get(*p)
                    .is_none_or(|b| &signature::sha256_hex(b) != *h)
            }) {
                r.error(
                    "bad_signature",
                    Some(path),
                    "the member's SHA-256 is not the signed one",
                );
                return;
            }
            r.signer = Some(statement.key_fingerprint);
        }
    }
}
