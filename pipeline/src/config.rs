//! `pipeline.toml` and the command-line flags that override it.
//!
//! Relative paths in the file are relative to the file's folder, so the pipeline can be
//! run from anywhere and a renamed checkout keeps working.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    build: BuildSection,
    #[serde(default, rename = "pack")]
    packs: Vec<PackSection>,
    #[serde(default)]
    render: RenderSettings,
    #[serde(default)]
    donors: DonorSection,
    #[serde(default, rename = "map")]
    maps: Vec<MapSection>,
    #[serde(default)]
    cache: CacheSection,
}

/// `[cache]`: the shared remote cache (`docs/ci.md`). Credentials never go here.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CacheSection {
    remote: Option<String>,
    #[serde(default)]
    remote_readonly: bool,
    /// How long one request may take before the remote counts as down.
    remote_timeout_s: Option<u64>,
    /// A file holding this machine's writer key (a 32-byte Ed25519 seed, raw or hex), which
    /// signs what it uploads; `MJOLNIR_CACHE_KEY` (the seed as hex) takes its place on CI.
    writer_key: Option<PathBuf>,
    /// The public keys (hex) whose entries this machine takes.
    #[serde(default)]
    trusted_writers: Vec<String>,
    /// How many requests may be in flight at once (default 32).
    remote_connections: Option<usize>,
}

/// The variable CI sets to its writer key's seed, as 64 hex digits.
pub const CACHE_KEY_VARIABLE: &str = "MJOLNIR_CACHE_KEY";

/// This machine's writer seed: `MJOLNIR_CACHE_KEY`, else `[cache] writer_key`.
fn writer_seed(file: Option<PathBuf>) -> Result<Option<[u8; 32]>> {
    let bytes = match (std::env::var(CACHE_KEY_VARIABLE), file) {
        (Ok(hex), _) => hex.into_bytes(),
        (Err(_), Some(path)) => mjolnir_files::bounded::read(&path, 1 << 10)
            .with_context(|| format!("[cache] writer_key {}", path.display()))?,
        (Err(_), None) => return Ok(None),
    };
    let key = forge_release::signature::key_from_seed(&bytes)
        .map_err(|e| anyhow::anyhow!("error[cache_writer_key]: the cache writer key: {e}"))?;
    Ok(Some(key.to_bytes()))
}

/// `[cache] trusted_writers`, each 64 hex digits of an Ed25519 public key.
fn trusted_writers(keys: &[String]) -> Result<Vec<[u8; 32]>> {
    keys.iter()
        .map(|k| {
            let k = k.trim();
            (k.len() == 64 && k.is_ascii())
                .then(|| (0..32).map(|i| u8::from_str_radix(&k[2 * i..2 * i + 2], 16).ok()).collect::<Option<Vec<u8>>>())
                .flatten()
                .and_then(|v| <[u8; 32]>::try_from(v).ok())
                .ok_or_else(|| anyhow::anyhow!("error[cache_trusted_writer]: [cache] trusted_writers: {k:?} is not a hex Ed25519 public key (64 hex digits; `mjolnir cache key new` prints one)"))
        })
        .collect()
}

/// The default for `[cache] remote_timeout_s`.
pub const REMOTE_TIMEOUT_S: u64 = 30;

pub use engine::remote::Remote;

/// `[[map]]`: a map folder (`level.json`, `layout.json`) the cook checks against the packs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MapSection {
    path: PathBuf,
}

/// `[donors]`: where the game's Paks are, and which shipped packages the Unreal packages
/// are written over.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DonorSection {
    paks: Option<PathBuf>,
    static_mesh: Option<String>,
    actor: Option<String>,
    glass_material: Option<String>,
    portal_material: Option<String>,
    tint_parameter: Option<String>,
    opacity_parameter: Option<String>,
    emissive_parameter: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct BuildSection {
    out: Option<PathBuf>,
    cache: Option<PathBuf>,
    jobs: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PackSection {
    id: String,
    path: PathBuf,
}

/// Preview rendering settings: with `enabled`, every cook renders each block and each set's
/// contact sheet into `<out>/render/<pack>/<set>/`.
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RenderSettings {
    #[serde(default)]
    pub enabled: bool,
    #[serde(default)]
    pub size: Option<u32>,
    /// `collision` and/or `checks`.
    #[serde(default)]
    pub overlays: Vec<String>,
    /// Extra views at evenly spaced angles (0 for none).
    #[serde(default)]
    pub turntable: u32,
    #[serde(default)]
    pub transparent: bool,
    /// Dark outlines on silhouettes and folds (on unless set to false).
    #[serde(default)]
    pub outline: Option<bool>,
    /// The contact sheet's thumbnail size, in pixels.
    #[serde(default)]
    pub sheet_size: Option<u32>,
}

/// `--jobs` is bounded by this many per core: each job holds a block's data in memory.
pub const MAX_JOBS_PER_CORE: usize = 4;

/// The preview size range, in pixels, whether set by flag or in `pipeline.toml`.
pub const RENDER_SIZES: std::ops::RangeInclusive<u32> = 16..=4096;
/// The contact sheet's thumbnail sizes, in pixels; thumbnails below 256 are hard to read.
pub const SHEET_SIZES: std::ops::RangeInclusive<u32> = 64..=1024;
pub const DEFAULT_SHEET_SIZE: u32 = 256;
/// The most turntable views.
pub const MAX_TURNTABLE: u32 = 72;

impl RenderSettings {
    /// The same bounds the command line enforces: a size of 0 made the renderer panic and
    /// one of 100000 needed 23 GB.
    pub fn check(&self) -> Result<()> {
        if let Some(size) = self.size.filter(|s| !RENDER_SIZES.contains(s)) {
            bail!(
                "error[bad_render_size]: size = {size}; it must be within {}..={} pixels",
                RENDER_SIZES.start(),
                RENDER_SIZES.end()
            );
        }
        if let Some(size) = self.sheet_size.filter(|s| !SHEET_SIZES.contains(s)) {
            bail!(
                "error[bad_sheet_size]: sheet_size = {size}; it must be within {}..={} pixels",
                SHEET_SIZES.start(),
                SHEET_SIZES.end()
            );
        }
        if self.turntable > MAX_TURNTABLE {
            bail!(
                "error[bad_turntable]: turntable = {}; at most {MAX_TURNTABLE} views",
                self.turntable
            );
        }
        if let Some(o) = self
            .overlays
            .iter()
            .find(|o| !["collision", "checks"].contains(&o.as_str()))
        {
            bail!(
                "error[bad_overlay]: overlay {o:?}; the overlays are \"collision\" and \"checks\""
            );
        }
        Ok(())
    }
}

pub use forge::donors::Donors;
pub use forge::wiring::PackSource;

/// The settings of one run, after the file and the flags are merged.
#[derive(Debug, Clone)]
pub struct Config {
    pub packs: Vec<PackSource>,
    /// Every pack the file lists is built (no `--pack` chose some).
    pub every_pack: bool,
    pub out: PathBuf,
    pub cache: PathBuf,
    pub jobs: usize,
    pub render: RenderSettings,
    /// `None`: cooked without donors, so the sets are not installable.
    pub donors: Option<Donors>,
    /// The maps to check, each by its folder (its name is the map's id in the build).
    pub maps: Vec<PackSource>,
    pub remote: Option<Remote>,
}

/// Flags that override the file. `None` or empty leaves the file's value.
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    pub packs: Vec<String>,
    pub jobs: Option<usize>,
    pub out: Option<PathBuf>,
    /// `--paks`, `--donor-mesh`, `--donor-actor` (the three parts every cook with donors needs).
    pub paks: Option<PathBuf>,
    pub donor_mesh: Option<String>,
    pub donor_actor: Option<String>,
    /// `--donor-glass`, `--donor-portal`.
    pub donor_glass: Option<String>,
    pub donor_portal: Option<String>,
    /// `--remote-cache URL` and `--remote-cache-readonly`.
    pub remote_cache: Option<String>,
    pub remote_cache_readonly: bool,
}

impl Config {
    pub fn load(path: &Path, overrides: &Overrides) -> Result<Config> {
        let file = read_file(path)?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let base = if base.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            base
        };
        let out = match &overrides.out {
            Some(o) => o.clone(),
            None => base.join(file.build.out.unwrap_or_else(|| "build".into())),
        };
        let cache = match (&overrides.out, file.build.cache) {
            (None, Some(c)) => base.join(c),
            _ => out.join("cache"),
        };
        let packs = selected_packs(file.packs, &base, overrides, path)?;
        file.render
            .check()
            .with_context(|| format!("{} [render]", path.display()))?;
        let jobs = jobs(overrides.jobs.or(file.build.jobs))?;
        let donors = donors(file.donors, &base, overrides)
            .with_context(|| format!("{} [donors]", path.display()))?;
        let maps = file
            .maps
            .into_iter()
            .map(|m| {
                let dir = base.join(&m.path);
                let id = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                PackSource { id, dir }
            })
            .collect();
        let remote = remote(file.cache, &base, overrides)?;
        Ok(Config {
            packs,
            every_pack: overrides.packs.is_empty(),
            out,
            cache,
            jobs,
            render: file.render,
            donors,
            maps,
            remote,
        })
    }
}

/// The largest pipeline.toml read.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

fn read_file(path: &Path) -> Result<File> {
    let text = match mjolnir_files::bounded::read_text(path, MAX_CONFIG_BYTES) {
        Ok(text) => text,
        Err(mjolnir_files::bounded::ReadError::NotFound) => bail!(
            "error[no_config]: there is no {} here; `mjolnir forge new <id>` starts a pack and writes one, or pass --config FILE (README.md shows the settings)",
            path.display()
        ),
        Err(e) => bail!("error[{}]: cannot read the configuration {}: {e}", e.code(), path.display()),
    };
    toml::from_str(&text)
        .with_context(|| format!("{} is not a valid pipeline configuration", path.display()))
}

/// The file's packs, cut down to `--pack`; none, an unknown `--pack` or one listed twice
/// is refused.
fn selected_packs(
    listed: Vec<PackSection>,
    base: &Path,
    overrides: &Overrides,
    path: &Path,
) -> Result<Vec<PackSource>> {
    let mut packs: Vec<PackSource> = listed
        .into_iter()
        .map(|p| PackSource {
            id: p.id,
            dir: base.join(p.path),
        })
        .collect();
    if !overrides.packs.is_empty() {
        for wanted in &overrides.packs {
            if !packs.iter().any(|p| &p.id == wanted) {
                let known: Vec<_> = packs.iter().map(|p| p.id.as_str()).collect();
                let hint = crate::did_you_mean::hint(wanted, known.iter().copied());
                bail!(
                    "error[unknown_pack]: --pack {wanted}: no such pack in {} (it lists {}){hint}",
                    path.display(),
                    known.join(", ")
                );
            }
        }
        packs.retain(|p| overrides.packs.contains(&p.id));
    }
    if packs.is_empty() {
        bail!("{} lists no packs to build", path.display());
    }
    if let Some(twice) = packs
        .iter()
        .enumerate()
        .find(|(i, p)| packs[..*i].iter().any(|q| q.id == p.id))
    {
        bail!(
            "error[duplicate_pack]: {} lists pack {:?} twice; each pack is built into its own folder, once",
            path.display(),
            twice.1.id
        );
    }
    Ok(packs)
}

/// The jobs asked for (0 or none: one per core), at most a few per core.
fn jobs(asked: Option<usize>) -> Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Ok(match asked.filter(|&j| j > 0) {
        None => cores,
        Some(j) if j <= MAX_JOBS_PER_CORE * cores => j,
        Some(j) => bail!(
            "error[too_many_jobs]: {j} jobs on {cores} cores; at most {} (more only adds memory and contention)",
            MAX_JOBS_PER_CORE * cores
        ),
    })
}

/// The shared cache, when a URL is configured or given: `[cache]` under the flags.
fn remote(cache: CacheSection, base: &Path, overrides: &Overrides) -> Result<Option<Remote>> {
    let writer_seed = writer_seed(cache.writer_key.map(|p| base.join(p)))?;
    let trusted_writers = trusted_writers(&cache.trusted_writers)?;
    Ok(overrides
        .remote_cache
        .clone()
        .or(cache.remote)
        .map(|url| Remote {
            url,
            readonly: overrides.remote_cache_readonly || cache.remote_readonly,
            timeout: std::time::Duration::from_secs(
                cache.remote_timeout_s.unwrap_or(REMOTE_TIMEOUT_S).max(1),
            ),
            writer_seed,
            trusted_writers,
            connections: cache
                .remote_connections
                .unwrap_or(engine::remote::CONNECTIONS)
                .clamp(1, 256),
        }))
}

/// The file's `[donors]` under the flags; all three parts or none.
fn donors(file: DonorSection, base: &Path, overrides: &Overrides) -> Result<Option<Donors>> {
    let paks = overrides.paks.clone().or(file.paks.map(|p| base.join(p)));
    let static_mesh = overrides.donor_mesh.clone().or(file.static_mesh);
    let actor = overrides.donor_actor.clone().or(file.actor);
    match (paks, static_mesh, actor) {
        (None, None, None) => Ok(None),
        (Some(paks), Some(static_mesh), Some(actor)) => {
            let glass_material = overrides.donor_glass.clone().or(file.glass_material);
            let portal_material = overrides.donor_portal.clone().or(file.portal_material);
            let optional = [&glass_material, &portal_material];
            for path in [&static_mesh, &actor]
                .into_iter()
                .chain(optional.into_iter().flatten())
            {
                if !path.starts_with('/') || path.contains(['.', '\\', ' ']) {
                    bail!("error[bad_donor_path]: {path:?} is not a package path like /Game/Props/SM_Crate");
                }
            }
            let name = |given: Option<String>, default: &str| given.unwrap_or(default.into());
            Ok(Some(Donors {
                paks,
                static_mesh,
                actor,
                glass_material,
                portal_material,
                parameters: forge_material::ParameterNames {
                    tint: name(file.tint_parameter, "Tint"),
                    opacity: name(file.opacity_parameter, "Opacity"),
                    emissive: name(file.emissive_parameter, "Emissive"),
                },
            }))
        }
        (paks, mesh, actor) => {
            let missing: Vec<&str> = [
                (paks.is_none(), "the Paks folder (paks, or --paks)"),
                (
                    mesh.is_none(),
                    "a static mesh (static_mesh, or --donor-mesh)",
                ),
                (
                    actor.is_none(),
                    "an actor Blueprint (actor, or --donor-actor)",
                ),
            ]
            .into_iter()
            .filter_map(|(gone, what)| gone.then_some(what))
            .collect();
            bail!(
                "error[incomplete_donors]: donors need all three parts; missing {}",
                missing.join(" and ")
            )
        }
    }
}
