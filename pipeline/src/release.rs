//! `mjolnir forge pack`, `mjolnir forge verify` and `mjolnir key`: releases on disk.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use forge_release::scan::{self, Finding, ScanOptions, Severity};
use forge_release::signature;
use serde_json::json;

use crate::atomic;

/// The author key's file: `$MJOLNIR_CONFIG_DIR`, else `$XDG_CONFIG_HOME/mjolnir`, else
/// `~/.config/mjolnir`, then `author-key` (a hex seed, readable by its owner only).
pub fn key_path() -> Result<PathBuf> {
    let dir = if let Some(d) = std::env::var_os("MJOLNIR_CONFIG_DIR") {
        PathBuf::from(d)
    } else if let Some(x) = std::env::var_os("XDG_CONFIG_HOME") {
        PathBuf::from(x).join("mjolnir")
    } else {
        PathBuf::from(std::env::var_os("HOME").context("HOME is not set; set MJOLNIR_CONFIG_DIR")?)
            .join(".config/mjolnir")
    };
    Ok(dir.join("author-key"))
}

/// `mjolnir cache key new`: a writer key for the shared cache, in a new file readable by
/// its owner only; prints the public key other machines trust it by.
pub fn cache_key_new(out: &Path) -> Result<i32> {
    let seed = random_seed()?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options
        .open(out)
        .with_context(|| format!("cannot create {} (it must not exist yet)", out.display()))?;
    std::io::Write::write_all(&mut file, format!("{}\n", signature::hex(&seed)).as_bytes())?;
    let public = signature::SigningKey::from_bytes(&seed).verifying_key();
    println!("wrote the cache writer key to {}", out.display());
    println!("point [cache] writer_key at it (or set MJOLNIR_CACHE_KEY to its contents on CI), and add this line to every reader's [cache] trusted_writers:");
    println!("\"{}\"", signature::hex(public.as_bytes()));
    Ok(0)
}

fn random_seed() -> Result<[u8; 32]> {
    let mut seed = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut seed))
        .context("cannot read /dev/urandom for a new key")?;
    Ok(seed)
}

pub fn key_new(force: bool) -> Result<i32> {
    let path = key_path()?;
    if path.exists() && !force {
        bail!("{} already exists; `mjolnir key show` prints it, and --force replaces it (the Hub would no longer know the new key)", path.display());
    }
    let seed = random_seed()?;
    let hex = signature::hex(&seed);
    let dir = path.parent().expect("a key path has a folder");
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        // A new file readable by its owner only, renamed over the old one: an existing key
        // file's looser mode must not carry over, even for a moment.
        let temp = dir.join(format!(".author-key.{}", std::process::id()));
        let _ = std::fs::remove_file(&temp);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)?;
        std::io::Write::write_all(&mut f, format!("{hex}\n").as_bytes())?;
        drop(f);
        std::fs::rename(&temp, &path)?;
    }
    #[cfg(not(unix))]
    std::fs::write(&path, format!("{hex}\n"))?;
    println!("created {}", path.display());
    eprintln!(
        "back it up: {} is the only copy of your author key, readable by you alone; the Hub knows your packs by it, and a lost key means a new author",
        path.display()
    );
    key_show()
}

pub fn key_show() -> Result<i32> {
    let path = key_path()?;
    let seed = std::fs::read(&path).with_context(|| {
        format!(
            "no author key at {}; `mjolnir key new` creates one",
            path.display()
        )
    })?;
    let key = signature::key_from_seed(&seed).map_err(anyhow::Error::msg)?;
    let public = signature::hex(key.verifying_key().as_bytes());
    println!("public key   {public}");
    println!(
        "fingerprint  {}",
        signature::fingerprint(&key.verifying_key())
    );
    Ok(0)
}

fn print_findings(findings: &[Finding], as_json: bool) {
    if as_json {
        let errors: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .collect();
        let warnings: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
            .collect();
        print!(
            "{}",
            json_out::pretty_text(&json!({"errors": errors, "warnings": warnings}))
        );
        return;
    }
    for f in findings {
        let level = if f.severity == Severity::Error {
            "error"
        } else {
            "warning"
        };
        let member = f
            .member
            .as_deref()
            .map(|m| format!(" {m}:"))
            .unwrap_or_default();
        eprintln!("{level}[{}]:{member} {}", f.code, f.message);
    }
}

#[derive(clap::Args)]
pub struct PackArgs {
    /// The release's mjolnir.json.
    pub manifest: PathBuf,
    /// The folder holding the .utoc/.ucas containers.
    #[arg(long)]
    pub content: PathBuf,
    #[arg(long)]
    pub readme: Option<PathBuf>,
    #[arg(long)]
    pub changes: Option<PathBuf>,
    #[arg(long)]
    pub out: PathBuf,
    /// Sign with the local author key (`mjolnir key new`).
    #[arg(long, conflicts_with = "sign_seed")]
    pub sign: bool,
    /// Sign with this 32-byte seed (raw or hex).
    #[arg(long, value_name = "FILE")]
    pub sign_seed: Option<PathBuf>,
    /// The release this one follows: the update rules run before signing, and a
    /// breaking change within its line is refused.
    #[arg(long, value_name = "OLD.mjolnir")]
    pub previous: Option<PathBuf>,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// When a signed archive says it was signed: `SOURCE_DATE_EPOCH` if set (for reproducible
/// signed archives), else now.
fn signed_at() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

pub fn pack(args: &PackArgs) -> Result<i32> {
    let manifest = read(&args.manifest)?;
    let content = read_content(&args.content)?;
    let readme = args.readme.as_deref().map(read).transpose()?;
    let changes = args.changes.as_deref().map(read).transpose()?;
    if let Some(previous) = &args.previous {
        if let Some(code) = breaking(previous, &args.manifest, &manifest)? {
            return Ok(code);
        }
    }
    if let Some(changes) = &changes {
        announced(&manifest, changes, args)?;
    }
    let prepared =
        forge_release::prepare(&manifest, &content, readme.as_deref(), changes.as_deref());
    let key = signing_key(args.sign_seed.as_deref(), args.sign)?;
    write_release(prepared, key.as_ref(), &args.out, args.json)
}

/// Every block new in this release (all of them without `--previous`) has its `bloc` row
/// in `changes.json`.
fn announced(manifest: &[u8], changes: &[u8], args: &PackArgs) -> Result<()> {
    let file = args.changes.as_deref().unwrap_or(Path::new("changes.json"));
    let (Ok(manifest), Ok(changes)) = (
        serde_json::from_slice::<serde_json::Value>(manifest),
        serde_json::from_slice::<serde_json::Value>(changes),
    ) else {
        return Ok(()); // The release's own checks name a document that is not JSON.
    };
    let before = match &args.previous {
        Some(previous) => crate::loaded_pack::load_release(previous)?
            .manifest
            .and_then(|m| {
                m.catalog()
                    .map(|c| c.blocks.iter().map(|b| b.id.clone()).collect())
            })
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let missing: Vec<String> =
        forge_contract::document::blocks_without_change_row(&manifest, &changes)
            .into_iter()
            .filter(|(id, _)| !before.iter().any(|b| b == id))
            .map(|(id, tag)| forge_contract::document::change_row_message(id, tag))
            .collect();
    if let Some(first) = missing.first() {
        bail!(
            "error[missing_change_row]: {} at /tags: {first}{}",
            file.display(),
            if missing.len() > 1 {
                format!(" (and {} more blocks)", missing.len() - 1)
            } else {
                String::new()
            }
        );
    }
    Ok(())
}

/// The update rules from `previous` to this manifest; `Some(1)` when they refuse it (a
/// breaking change within a line), after printing why and what to do instead.
fn breaking(previous: &Path, path: &Path, manifest: &[u8]) -> Result<Option<i32>> {
    let old = crate::loaded_pack::load_release(previous)?;
    let label = path.display().to_string();
    let new = forge_contract::parse_manifest(&label, &String::from_utf8_lossy(manifest)).map_err(
        |d| {
            anyhow::anyhow!(
                "{}",
                d.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        },
    )?;
    let old_manifest = old
        .manifest
        .ok_or_else(|| anyhow::anyhow!("{} is not a valid release", old.label))?;
    let findings = forge_contract::compat::compare(
        &forge_contract::compat::Release {
            label: &old.label,
            manifest: &old_manifest,
            geometry: None,
        },
        &forge_contract::compat::Release {
            label: &label,
            manifest: &new.0,
            geometry: None,
        },
    );
    for f in &findings {
        eprintln!("{f}");
    }
    if findings.iter().any(|f| f.is_error()) {
        eprintln!(
            "the update rules refuse this release after {}; nothing was written",
            old_manifest.version
        );
        return Ok(Some(1));
    }
    Ok(None)
}

/// The files of a content folder, by name.
pub fn read_content(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    let mut content = BTreeMap::new();
    for entry in std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the content folder {}", dir.display()))?
    {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            content.insert(
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read(entry.path())?,
            );
        }
    }
    Ok(content)
}

/// The key `--sign-seed FILE` or `--sign` (the local author key) names, if any.
pub fn signing_key(seed: Option<&Path>, sign: bool) -> Result<Option<signature::SigningKey>> {
    Ok(match (seed, sign) {
        (Some(seed), _) => {
            Some(signature::key_from_seed(&read(seed)?).map_err(anyhow::Error::msg)?)
        }
        (None, true) => {
            let path = key_path()?;
            Some(
                signature::key_from_seed(&read(&path).with_context(|| {
                    "--sign needs an author key; `mjolnir key new` creates one"
                })?)
                .map_err(anyhow::Error::msg)?,
            )
        }
        (None, false) => None,
    })
}

/// Zips and signs a prepared release, runs the Hub's scan on the very bytes, and writes
/// the archive and what the Hub would publish for it; nothing when anything fails.
pub fn write_release(
    prepared: Result<forge_release::Prepared, Vec<Finding>>,
    key: Option<&signature::SigningKey>,
    out: &Path,
    as_json: bool,
) -> Result<i32> {
    let prepared = match prepared {
        Ok(p) => p,
        Err(findings) => {
            print_findings(&findings, false);
            eprintln!("nothing was written");
            return Ok(1);
        }
    };
    let signer = key.map(|k| forge_release::archive::Signer {
        key: k,
        signed_at: signed_at(),
    });
    let bytes =
        forge_release::archive::write(&prepared.members, &prepared.slug, &prepared.version, signer)
            .map_err(anyhow::Error::msg)?;
    let report = scan::scan(
        &bytes,
        &ScanOptions {
            expect_key: None,
            release_version: Some(&prepared.version),
            allow_unsigned: key.is_none(),
        },
    );
    if report.errors().next().is_some() {
        print_findings(&report.findings, false);
        bail!("the archive failed the Hub's scan; nothing was written");
    }
    let sha256 = signature::sha256_hex(&bytes);
    let mut catalog = prepared.catalog;
    catalog["archive_sha256"] = json!(sha256);
    let catalog_path = hub_catalog_path(out);
    let catalog_bytes = json_out::pretty(&catalog);
    atomic::write(out, &bytes).with_context(|| format!("cannot write {}", out.display()))?;
    atomic::write(&catalog_path, &catalog_bytes)
        .with_context(|| format!("cannot write {}", catalog_path.display()))?;
    if as_json {
        let value = json!({"archive": out.display().to_string(), "bytes": bytes.len(), "sha256": sha256,
            "signer": report.signer, "hub_catalog": catalog_path.display().to_string(), "warnings": report.findings});
        print!("{}", json_out::pretty_text(&value));
    } else {
        print_findings(&report.findings, false);
        println!("wrote {} ({} bytes)", out.display(), bytes.len());
        println!(
            "wrote {}, what the Hub publishes for it",
            catalog_path.display()
        );
        println!("sha256 {sha256}");
    }
    Ok(0)
}

/// Beside `x.mjolnir`, `x.forge-pack.json`: what `GET /api/v1/releases/{id}/forge-pack`
/// returns once the Hub has the archive, as `cook --archive` writes it.
fn hub_catalog_path(archive: &Path) -> std::path::PathBuf {
    let stem = archive.file_stem().unwrap_or_default().to_string_lossy();
    archive.with_file_name(format!("{stem}.forge-pack.json"))
}

pub fn verify(archive: &Path, options: &ScanOptions, as_json: bool) -> Result<i32> {
    let bytes = read(archive)?;
    let report = scan::scan(&bytes, options);
    let errors = report.errors().count();
    let sha256 = signature::sha256_hex(&bytes);
    if as_json {
        let (errors, warnings): (Vec<&Finding>, Vec<&Finding>) = report
            .findings
            .iter()
            .partition(|f| f.severity == Severity::Error);
        let out = json!({"archive": archive.display().to_string(), "sha256": sha256, "signer": report.signer, "errors": errors, "warnings": warnings});
        print!("{}", json_out::pretty_text(&out));
    } else {
        print_findings(&report.findings, false);
        let signer = report
            .signer
            .as_deref()
            .map(|s| format!(", signed by {s}"))
            .unwrap_or_default();
        println!(
            "{}: {} error(s), {} warning(s){signer}; sha256 {}",
            archive.display(),
            errors,
            report.findings.len() - errors,
            sha256
        );
    }
    Ok(if errors > 0 { 1 } else { 0 })
}
