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
}

/// `--jobs` is bounded by this many per core: each job holds a block's data in memory.
pub const MAX_JOBS_PER_CORE: usize = 4;

/// The preview size range, in pixels, whether set by flag or in `pipeline.toml`.
pub const RENDER_SIZES: std::ops::RangeInclusive<u32> = 16..=4096;
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

#[derive(Debug, Clone)]
pub struct PackSource {
    pub id: String,
    pub dir: PathBuf,
}

/// The settings of one run, after the file and the flags are merged.
#[derive(Debug, Clone)]
pub struct Config {
    pub packs: Vec<PackSource>,
    pub out: PathBuf,
    pub cache: PathBuf,
    pub jobs: usize,
    pub render: RenderSettings,
}

/// Flags that override the file. `None` or empty leaves the file's value.
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    pub packs: Vec<String>,
    pub jobs: Option<usize>,
    pub out: Option<PathBuf>,
}

impl Config {
    pub fn load(path: &Path, overrides: &Overrides) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the configuration {}", path.display()))?;
        let file: File = toml::from_str(&text)
            .with_context(|| format!("{} is not a valid pipeline configuration", path.display()))?;
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
        let mut packs: Vec<PackSource> = file
            .packs
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
                    bail!(
                        "--pack {wanted}: no such pack in {} (it lists {})",
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
        file.render
            .check()
            .with_context(|| format!("{} [render]", path.display()))?;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let jobs = match overrides.jobs.or(file.build.jobs).filter(|&j| j > 0) {
            None => cores,
            Some(j) if j <= MAX_JOBS_PER_CORE * cores => j,
            Some(j) => bail!(
                "error[too_many_jobs]: {j} jobs on {cores} cores; at most {} (more only adds memory and contention)",
                MAX_JOBS_PER_CORE * cores
            ),
        };
        Ok(Config {
            packs,
            out,
            cache,
            jobs,
            render: file.render,
        })
    }
}
