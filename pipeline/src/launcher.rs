//! `mjolnir launcher sync` and `mjolnir layout check`: the launcher's side of packs. A
//! profile folder holds `trusted-keys.txt` (hex Ed25519 public keys), `maps/*.mjolnir`
//! (the enabled maps), `packs/*.mjolnir` (the installed releases) and the seed's
//! `ue4ss/Mods/MJOLNIRForge/layouts/` (saved layouts) and `ue4ss/MJOLNIRForgePacks/`
//! (the installed catalogs the game reads). The resolution is `forge-resolve`'s; this
//! module reads the profile, talks to the Hub and installs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use forge_release::scan::{self, ScanOptions};
use forge_resolve::layout::{self as saved, Row};
use forge_resolve::{Need, NeedKind, Resolution, World};
use semver::Version;
use serde_json::{json, Value};

use crate::hub::{archive_manifest, release_id};

/// The native inventory reader's bound, across a profile.
pub const MAX_BLOCKS: usize = 4096;
const LAYOUTS: &str = "ue4ss/Mods/MJOLNIRForge/layouts";
const CATALOGS: &str = "ue4ss/MJOLNIRForgePacks";
const PACKS: &str = "packs";
const REPORT: &str = "launcher_report.txt";

/// An installed release.
struct Installed {
    version: Version,
    sha256: String,
    manifest: Value,
    path: PathBuf,
}

fn version_of(range: &str) -> Option<Version> {
    Version::parse(range.trim().trim_start_matches('^')).ok()
}

fn archives(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mjolnir"))
        .collect();
    out.sort();
    out
}

fn installed(profile: &Path) -> Result<BTreeMap<String, Installed>> {
    let mut out = BTreeMap::new();
    for path in archives(&profile.join(PACKS)) {
        let bytes = std::fs::read(&path)?;
        let manifest = archive_manifest(&bytes).with_context(|| path.display().to_string())?;
        let slug = manifest["forge_pack"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let version = Version::parse(manifest["version"].as_str().unwrap_or_default())?;
        let sha256 = forge_release::signature::sha256_hex(&bytes);
        out.insert(
            slug,
            Installed {
                version,
                sha256,
                manifest,
                path,
            },
        );
    }
    Ok(out)
}

/// What the enabled maps and the saved layouts need.
fn needs(profile: &Path) -> Result<Vec<Need>> {
    let mut needs = Vec::new();
    for path in archives(&profile.join("maps")) {
        let manifest =
            archive_manifest(&std::fs::read(&path)?).with_context(|| path.display().to_string())?;
        let who = format!("map {}", manifest["slug"].as_str().unwrap_or("?"));
        for dep in manifest["deps"].as_array().into_iter().flatten() {
            let (Some(slug), Some(version)) = (
                dep["slug"].as_str(),
                dep["range"].as_str().and_then(version_of),
            ) else {
                continue;
            };
            needs.push(Need {
                slug: slug.into(),
                version,
                who: who.clone(),
                kind: NeedKind::Map,
            });
        }
    }
    for (mvar, rows) in layouts(profile)? {
        let who = format!(
            "layout {}",
            mvar.file_name().unwrap_or_default().to_string_lossy()
        );
        let mut newest: BTreeMap<&str, &Version> = BTreeMap::new();
        for row in &rows {
            let v = newest.entry(&row.slug).or_insert(&row.version);
            if row.version > **v {
                *v = &row.version;
            }
        }
        needs.extend(newest.into_iter().map(|(slug, v)| Need {
            slug: slug.into(),
            version: v.clone(),
            who: who.clone(),
            kind: NeedKind::Layout,
        }));
    }
    Ok(needs)
}

/// Each saved layout with a sidecar, and the sidecar's rows. Orphan sidecars (no `.mvar`
/// beside them) and the layout history folder need nothing.
fn layouts(profile: &Path) -> Result<Vec<(PathBuf, Vec<Row>)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(profile.join(LAYOUTS))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
    {
        let path = entry.path();
        let Some(mvar) = path
            .to_str()
            .and_then(|p| p.strip_suffix(".packs"))
            .map(PathBuf::from)
        else {
            continue;
        };
        if !path.is_file() || !mvar.is_file() {
            continue;
        }
        let rows = saved::read_sidecar(&std::fs::read_to_string(&path)?)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        out.push((mvar, rows));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The Hub, over HTTP with timeouts.
struct Hub {
    base: String,
    agent: ureq::Agent,
}

impl Hub {
    fn new(base: &str) -> Hub {
        let config = ureq::Agent::config_builder()
            .timeout_connect(Some(Duration::from_secs(5)))
            .timeout_global(Some(Duration::from_secs(120)))
            .http_status_as_error(false)
            .build();
        Hub {
            base: base.trim_end_matches('/').to_string(),
            agent: config.into(),
        }
    }

    /// The body of `path`, or `None` for a 404.
    fn get(&self, path: &str) -> Result<Option<Vec<u8>>> {
        let url = format!("{}{path}", self.base);
        let mut response = self
            .agent
            .get(&url)
            .call()
            .map_err(|e| anyhow!("error[hub_unreachable]: {url}: {e}"))?;
        match response.status().as_u16() {
            200 => Ok(Some(
                response
                    .body_mut()
                    .with_config()
                    .limit(512 << 20)
                    .read_to_vec()
                    .map_err(|e| anyhow!("error[hub_download]: {url}: {e}"))?,
            )),
            404 => Ok(None),
            code => bail!("error[hub_status]: {url} answered {code}"),
        }
    }

    fn json(&self, path: &str) -> Result<Option<Value>> {
        self.get(path)?
            .map(|b| serde_json::from_slice(&b).with_context(|| format!("{path} is not JSON")))
            .transpose()
    }
}

pub struct SyncArgs {
    pub hub: String,
    pub profile: PathBuf,
    pub json: bool,
}

pub fn sync(args: &SyncArgs) -> Result<i32> {
    let profile = &args.profile;
    let trusted = trusted_fingerprints(profile)?;
    sweep_partial(&profile.join(PACKS));
    let installed = installed(profile)?;
    let needs = needs(profile)?;
    let hub = Hub::new(&args.hub);
    let (resolution, payloads) = resolve_over(&hub, &needs, &installed)?;
    let blocks = count_blocks(&resolution, &installed, &payloads);
    let mut refusals: Vec<String> = Vec::new();
    if blocks > MAX_BLOCKS {
        refusals.push(format!("error[too_many_blocks]: the profile would enable {blocks} catalog blocks; the native inventory reader takes at most {MAX_BLOCKS}; nothing was installed"));
    } else {
        for (slug, chosen) in resolution.packs.iter().filter(|(_, c)| c.download) {
            let id = release_id(slug, &chosen.version.to_string());
            if let Err(e) = install(
                &hub,
                profile,
                &payloads[&id],
                &id,
                &trusted,
                installed.get(slug),
            ) {
                refusals.push(format!("{e:#}"));
            }
        }
    }
    write_catalogs(profile, &self::installed(profile)?)?;
    let report = report(&resolution, &needs, &refusals, blocks);
    crate::atomic::write(&profile.join(REPORT), report.as_bytes())?;
    if args.json {
        let value = json!({"resolution": resolution, "needs": needs, "refusals": refusals, "blocks": blocks});
        println!(
            "{}",
            serde_json::to_string_pretty(&value).expect("serializes")
        );
    } else {
        print!("{report}");
    }
    let clean =
        resolution.conflicts.is_empty() && resolution.missing.is_empty() && refusals.is_empty();
    Ok(if clean { 0 } else { 1 })
}

/// Resolves against the Hub: each round fetches the release lists of every slug needed so
/// far and the payloads of the releases chosen, whose dependencies may name more slugs.
fn resolve_over(
    hub: &Hub,
    needs: &[Need],
    installed: &BTreeMap<String, Installed>,
) -> Result<(Resolution, BTreeMap<String, Value>)> {
    let versions: BTreeMap<String, Version> = installed
        .iter()
        .map(|(s, i)| (s.clone(), i.version.clone()))
        .collect();
    let mut available: BTreeMap<String, Vec<Version>> = BTreeMap::new();
    let mut payloads: BTreeMap<String, Value> = BTreeMap::new();
    let mut resolution = Resolution::default();
    for _ in 0..8 {
        let wanted = needs
            .iter()
            .map(|n| n.slug.clone())
            .chain(payload_deps(&payloads).into_iter().map(|d| d.0));
        for slug in wanted {
            if let std::collections::btree_map::Entry::Vacant(entry) = available.entry(slug) {
                let list = hub
                    .json(&format!("/api/v1/packs/{}/releases", entry.key()))?
                    .unwrap_or_default();
                let parsed = list.as_array().into_iter().flatten();
                entry.insert(
                    parsed
                        .filter_map(|r| Version::parse(r["version"].as_str()?).ok())
                        .collect(),
                );
            }
        }
        let deps =
            |slug: &str, version: &Version| dependencies(slug, version, installed, &payloads);
        let world = World {
            installed: &versions,
            available: &available,
            dependencies: &deps,
        };
        resolution = forge_resolve::resolve(needs, &world);
        let before = payloads.len();
        for (slug, chosen) in resolution.packs.iter().filter(|(_, c)| c.download) {
            if let std::collections::btree_map::Entry::Vacant(entry) =
                payloads.entry(release_id(slug, &chosen.version.to_string()))
            {
                let id = entry.key().clone();
                let payload = hub.json(&format!("/api/v1/releases/{id}/forge-pack"))?;
                entry.insert(payload.ok_or_else(|| {
                    anyhow!(
                        "error[hub_missing_release]: the Hub lists {id} but has no payload for it"
                    )
                })?);
            }
        }
        if payloads.len() == before {
            break;
        }
    }
    Ok((resolution, payloads))
}

fn payload_deps(payloads: &BTreeMap<String, Value>) -> Vec<(String, Version)> {
    payloads
        .values()
        .flat_map(|p| p["dependencies"].as_array().cloned().unwrap_or_default())
        .filter_map(|d| {
            Some((
                d["slug"].as_str()?.to_string(),
                d["range"].as_str().and_then(version_of)?,
            ))
        })
        .collect()
}

fn dependencies(
    slug: &str,
    version: &Version,
    installed: &BTreeMap<String, Installed>,
    payloads: &BTreeMap<String, Value>,
) -> Vec<(String, Version)> {
    let deps = match installed.get(slug).filter(|i| &i.version == version) {
        Some(i) => i.manifest["deps"].clone(),
        None => payloads
            .get(&release_id(slug, &version.to_string()))
            .map(|p| p["dependencies"].clone())
            .unwrap_or_default(),
    };
    deps.as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| {
            Some((
                d["slug"].as_str()?.to_string(),
                d["range"].as_str().and_then(version_of)?,
            ))
        })
        .collect()
}

fn count_blocks(
    resolution: &Resolution,
    installed: &BTreeMap<String, Installed>,
    payloads: &BTreeMap<String, Value>,
) -> usize {
    resolution
        .packs
        .iter()
        .map(|(slug, chosen)| {
            let catalog = if chosen.download {
                payloads
                    .get(&release_id(slug, &chosen.version.to_string()))
                    .map(|p| p["catalog"].clone())
            } else {
                installed
                    .get(slug)
                    .map(|i| i.manifest["forge_pack"].clone())
            };
            catalog
                .and_then(|c| c["blocks"].as_array().map(Vec::len))
                .unwrap_or(0)
        })
        .sum()
}

fn trusted_fingerprints(profile: &Path) -> Result<Vec<String>> {
    let path = profile.join("trusted-keys.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let key = (0..l.len())
                .step_by(2)
                .map(|i| l.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
                .collect::<Option<Vec<u8>>>()
                .filter(|k| k.len() == 32)
                .ok_or_else(|| {
                    anyhow!("{}: {l:?} is not a hex Ed25519 public key", path.display())
                })?;
            Ok(forge_release::signature::sha256_hex(&key))
        })
        .collect()
}

/// A download cut short leaves at most a temporary file, swept here before anything.
fn sweep_partial(dir: &Path) {
    for entry in std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
    {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with(crate::atomic::TEMP_PREFIX)
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Downloads a release whole, checks its SHA-256 against the Hub's payload and its
/// signature against the trusted keys, and only then installs it in one rename, replacing
/// the older release of its line.
fn install(
    hub: &Hub,
    profile: &Path,
    payload: &Value,
    id: &str,
    trusted: &[String],
    replaced: Option<&Installed>,
) -> Result<()> {
    let path = payload["archive"]
        .as_str()
        .ok_or_else(|| anyhow!("error[hub_payload]: {id} names no archive"))?;
    let bytes = hub
        .get(path)?
        .ok_or_else(|| anyhow!("error[hub_missing_release]: {path} is not on the Hub"))?;
    let sha256 = forge_release::signature::sha256_hex(&bytes);
    if Some(sha256.as_str()) != payload["archive_sha256"].as_str() {
        bail!("error[archive_sha256]: {id}'s archive hashes to {sha256}, not the Hub's {}; nothing was installed", payload["archive_sha256"]);
    }
    let report = scan::scan(
        &bytes,
        &ScanOptions {
            expect_key: None,
            release_version: payload["release_version"].as_str(),
            allow_unsigned: false,
        },
    );
    if let Some(f) = report.errors().next() {
        bail!(
            "error[archive_refused]: {id}: {} ({}); nothing was installed",
            f.message,
            f.code
        );
    }
    if !report.signer.as_ref().is_some_and(|s| trusted.contains(s)) {
        bail!("error[untrusted_signer]: {id} is signed by {}, which trusted-keys.txt does not list; nothing was installed", report.signer.as_deref().unwrap_or("no key"));
    }
    let target = profile.join(PACKS).join(format!("{id}.mjolnir"));
    crate::atomic::write(&target, &bytes)
        .with_context(|| format!("cannot write {}", target.display()))?;
    if let Some(old) = replaced.filter(|old| old.path != target) {
        std::fs::remove_file(&old.path)
            .with_context(|| format!("cannot remove {}", old.path.display()))?;
    }
    Ok(())
}

/// `installed.json` (the editor's display metadata) and `installed.txt` (the native
/// identity check: one line per block, tag path, slug, version, archive SHA-256).
fn write_catalogs(profile: &Path, installed: &BTreeMap<String, Installed>) -> Result<()> {
    let packs: Vec<Value> = installed
        .iter()
        .map(|(slug, i)| json!({"slug": slug, "name": i.manifest["name"], "version": i.version.to_string(), "archive_sha256": i.sha256, "blocks": i.manifest["forge_pack"]["blocks"]}))
        .collect();
    let mut text = String::from("forge-packs-installed 1\n");
    for (slug, i) in installed {
        for block in i.manifest["forge_pack"]["blocks"]
            .as_array()
            .into_iter()
            .flatten()
        {
            text += &format!(
                "{}\t{slug}\t{}\t{}\n",
                block["tag"].as_str().unwrap_or_default(),
                i.version,
                i.sha256
            );
        }
    }
    let dir = profile.join(CATALOGS);
    let mut json_bytes =
        serde_json::to_vec_pretty(&json!({"format": "mjolnir-installed", "packs": packs}))
            .expect("serializes");
    json_bytes.push(b'\n');
    crate::atomic::write(&dir.join("installed.json"), &json_bytes)?;
    crate::atomic::write(&dir.join("installed.txt"), text.as_bytes())?;
    Ok(())
}

fn report(resolution: &Resolution, needs: &[Need], refusals: &[String], blocks: usize) -> String {
    let downloads = resolution.packs.values().filter(|c| c.download).count();
    let mut out = format!(
        "MJOLNIR launcher report  (regenerated every sync)\npacks={}  downloads={downloads}  conflicts={}  missing={}  refused={}  blocks={blocks} (max {MAX_BLOCKS})\n\n",
        resolution.packs.len(),
        resolution.conflicts.len(),
        resolution.missing.len(),
        refusals.len()
    );
    for (slug, chosen) in &resolution.packs {
        let how = if chosen.download {
            "downloaded"
        } else {
            "installed"
        };
        out += &format!("[{slug}]  {}  {how}  {}\n", chosen.version, chosen.why);
    }
    out += "\nREQUIRED:\n";
    let mut by_who: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for n in needs {
        by_who
            .entry(&n.who)
            .or_default()
            .push(format!("{} ^{}", n.slug, n.version));
    }
    for (who, list) in by_who {
        out += &format!("  {who}: {}\n", list.join(", "));
    }
    if !resolution.conflicts.is_empty() {
        out += "\nCONFLICTS:\n";
        for c in &resolution.conflicts {
            let lines: Vec<String> = c
                .lines
                .iter()
                .map(|(l, who)| format!("{l} ({})", who.join(", ")))
                .collect();
            out += &format!(
                "  {}: {}; left out, move aside or use compatible versions: {}\n",
                c.slug,
                lines.join(" vs "),
                c.left_out.join(", ")
            );
        }
    }
    for (slug, why) in &resolution.missing {
        out += &format!("\nMISSING: {slug}: {why}\n");
    }
    for r in refusals {
        out += &format!("\nREFUSED: {r}\n");
    }
    out
}

/// `mjolnir layout check LAYOUT.mvar --profile DIR`: the native checks before a saved
/// layout's objects are recreated.
pub fn check_layout(mvar_path: &Path, profile: &Path) -> Result<i32> {
    let mvar =
        std::fs::read(mvar_path).with_context(|| format!("cannot read {}", mvar_path.display()))?;
    let sidecar_path = PathBuf::from(format!("{}.packs", mvar_path.display()));
    let rows = match std::fs::read_to_string(&sidecar_path) {
        Ok(text) => Some(
            saved::read_sidecar(&text).map_err(|e| anyhow!("{}: {e}", sidecar_path.display()))?,
        ),
        Err(_) => None,
    };
    let map_name = mvar_path
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let palette = palette_of(profile, &map_name)?;
    let installed = installed(profile)?;
    let tags: BTreeMap<String, Vec<String>> = installed
        .iter()
        .map(|(slug, i)| {
            let tags = i.manifest["forge_pack"]["blocks"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["tag"].as_str().map(str::to_string))
                .collect();
            (slug.clone(), tags)
        })
        .collect();
    let packs = installed
        .iter()
        .map(|(slug, i)| {
            (
                slug.clone(),
                saved::InstalledPack {
                    version: &i.version,
                    tags: &tags[slug],
                },
            )
        })
        .collect();
    let refusals = saved::check(&mvar, rows.as_deref(), &palette, &packs);
    for (code, message) in &refusals {
        eprintln!("error[{code}]: {}: {message}", mvar_path.display());
    }
    if refusals.is_empty() {
        println!("{} loads with this profile", mvar_path.display());
        Ok(0)
    } else {
        Ok(1)
    }
}

/// The flat palette of the enabled map named `name` (its level's name or slug): standard
/// entries first, then the custom ones in the level's pack and block order.
fn palette_of(profile: &Path, name: &str) -> Result<BTreeMap<usize, String>> {
    for path in archives(&profile.join("maps")) {
        let bytes = std::fs::read(&path)?;
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))?;
        let mut text = String::new();
        std::io::Read::read_to_string(&mut zip.by_name(forge_release::LEVEL_MEMBER)?, &mut text)?;
        let level: Value = serde_json::from_str(&text)?;
        if level["name"].as_str() != Some(name) && level["slug"].as_str() != Some(name) {
            continue;
        }
        let standard = level["standard_palette"].as_array().map_or(0, Vec::len);
        let tags = level["blam"]["forge_packs"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|p| p["blocks"].as_array().cloned().unwrap_or_default());
        return Ok(tags
            .enumerate()
            .filter_map(|(i, b)| Some((standard + i, b["tag"].as_str()?.to_string())))
            .collect());
    }
    bail!(
        "error[unknown_map]: no enabled map in {} is named {name:?}",
        profile.join("maps").display()
    )
}
