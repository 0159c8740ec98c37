//! `mjolnir map bake` and `mjolnir map pack`: a map's palette against the packs it uses,
//! and its release (`docs/maps.md`). The checks are `forge-map`'s; this module reads the
//! files, finds the crates in the Paks, and writes only when everything passed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use forge_iostore::ids::{self, ChunkId};
use forge_map::{Level, PackRelease, Palette};
use serde_json::json;

use crate::loaded_pack::load_release;
use crate::print::print_findings;

#[derive(clap::Args)]
pub struct BakeArgs {
    pub level: PathBuf,
    /// A folder of containers the bake reads the crates from (repeatable).
    #[arg(long = "paks", value_name = "DIR", required = true)]
    pub paks: Vec<PathBuf>,
    /// A release of a listed pack: a cooked set, a pack folder or a .mjolnir (repeatable).
    #[arg(long = "pack", value_name = "PATH")]
    pub packs: Vec<PathBuf>,
    /// Where palette.json goes (default build/maps/<slug>/palette.json).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

fn read_level(
    path: &Path,
) -> Result<(
    String,
    String,
    std::result::Result<Level, Vec<forge_contract::Diagnostic>>,
)> {
    let file = path.display().to_string();
    let text = mjolnir_files::bounded::read_text(path, MAX_LEVEL_BYTES)
        .map_err(|e| anyhow::anyhow!("error[{}]: cannot read {file}: {e}", e.code()))?;
    let level = forge_map::parse_level(&file, &text);
    Ok((file, text, level))
}

pub fn bake(args: &BakeArgs) -> Result<i32> {
    let (file, text, level) = read_level(&args.level)?;
    let level = match level {
        Ok(level) => level,
        Err(findings) => return refuse(&findings, args.json),
    };
    let loaded = args
        .packs
        .iter()
        .map(|p| load_release(p))
        .collect::<Result<Vec<_>>>()?;
    let mut releases = Vec::new();
    for pack in &loaded {
        let catalog = pack
            .manifest
            .as_ref()
            .and_then(|m| m.catalog().map(|c| (m, c)));
        let Some((manifest, catalog)) = catalog else {
            print_findings(&pack.findings, args.json);
            return Err(anyhow!("{} is not a Forge pack release (--pack takes a cooked set, a pack folder or a .mjolnir)", pack.label));
        };
        releases.push(PackRelease {
            version: manifest.version.clone(),
            catalog,
        });
    }
    let crates = crates_in_paks(&level, &args.paks)?;
    let palette = match forge_map::bake(&file, &text, &level, &releases, &crates) {
        Ok(p) => p,
        Err(findings) => return refuse(&findings, args.json),
    };
    let layout = match &level.layout {
        Some(layout) => {
            let path = args.level.parent().unwrap_or(Path::new(".")).join(layout);
            let layout_file = path.display().to_string();
            let layout_text = mjolnir_files::bounded::read_text(&path, MAX_LAYOUT_BYTES)
                .with_context(|| format!("cannot read {layout_file}"))?;
            match forge_map::check_layout(&layout_file, &layout_text, &level, &palette) {
                Ok(layout) => layout,
                Err(findings) => return refuse(&findings, args.json),
            }
        }
        None => forge_map::layout::Layout {
            format: forge_map::layout::FORMAT.to_string(),
            objects: Vec::new(),
        },
    };
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from("build/maps")
            .join(&level.slug)
            .join("palette.json")
    });
    let bytes = json_out::pretty(&palette);
    crate::atomic::write(&out, &bytes)
        .with_context(|| format!("cannot write {}", out.display()))?;
    let footprints = footprints(&level, &args.packs, &loaded);
    let overview = out.with_file_name(OVERVIEW);
    let png = forge_map::overview::render(&level, &layout, &footprints, OVERVIEW_SIZE);
    crate::atomic::write(&overview, &png)
        .with_context(|| format!("cannot write {}", overview.display()))?;
    report(&palette, &out, args.json);
    if !args.json {
        println!("wrote the overview, {}", overview.display());
    }
    Ok(0)
}

/// The overview beside the palette, as the cook's map step draws it.
const OVERVIEW: &str = "overview.png";
const OVERVIEW_SIZE: u32 = 512;

/// The largest shipped block geometry read for the overview.
const MAX_GEOMETRY_BYTES: u64 = 16 << 20;

/// Each listed block's footprint, by palette name, from the `--pack` releases that carry
/// geometry: a cooked set (`cooked/<block>/geometry.json`) or a pack folder. A release
/// that carries none (a `.mjolnir`) leaves its pieces out of the picture.
fn footprints(
    level: &Level,
    paths: &[PathBuf],
    loaded: &[crate::loaded_pack::LoadedPack],
) -> std::collections::BTreeMap<String, forge_map::overview::Footprint> {
    let mut out = std::collections::BTreeMap::new();
    for pack in &level.blam.forge_packs {
        let Some((path, release)) = paths.iter().zip(loaded).find(|(_, l)| {
            l.manifest
                .as_ref()
                .and_then(|m| m.catalog())
                .is_some_and(|c| c.id == pack.slug)
        }) else {
            continue;
        };
        for block in &pack.blocks {
            let shipped = path.join("cooked").join(&block.id).join("geometry.json");
            let geometry = mjolnir_files::bounded::read_text(&shipped, MAX_GEOMETRY_BYTES)
                .ok()
                .and_then(|text| {
                    forge_contract::geometry::parse_block(&shipped.display().to_string(), &text)
                        .ok()
                })
                .or_else(|| release.geometry.as_ref()?.block(&block.id).cloned());
            if let Some(g) = geometry {
                let name = format!("{}/{}", pack.slug, block.id);
                out.insert(name, forge_map::overview::footprint(&g));
            }
        }
    }
    out
}

fn refuse(findings: &[forge_contract::Diagnostic], as_json: bool) -> Result<i32> {
    print_findings(findings, as_json);
    if !as_json {
        eprintln!("nothing was written");
    }
    Ok(1)
}

fn report(palette: &Palette, out: &Path, as_json: bool) {
    if as_json {
        print!(
            "{}",
            json_out::pretty_text(
                &json!({"palette": out.display().to_string(), "standard": palette.standard.len(), "custom": palette.custom.len(), "dependencies": palette.dependencies})
            )
        );
    } else {
        println!(
            "baked {}'s palette: {} standard and {} custom entries, {} crates to preload; wrote {}",
            palette.level,
            palette.standard.len(),
            palette.custom.len(),
            palette.preloads.len(),
            out.display()
        );
    }
}

/// The crate packages of the level's blocks that some container in the Paks holds (a
/// crate is the bulk chunk of its package), found by chunk id, not by any catalog.
fn crates_in_paks(level: &Level, paks: &[PathBuf]) -> Result<BTreeSet<String>> {
    let mut ids = BTreeSet::new();
    for dir in paks {
        for (_, toc) in crate::paks::read_tocs(dir)? {
            ids.extend(toc.chunks);
        }
    }
    Ok(level
        .blam
        .forge_packs
        .iter()
        .flat_map(|p| {
            p.blocks
                .iter()
                .map(move |b| forge_map::crate_package(&p.slug, &b.id))
        })
        .filter(|package| ids.contains(&ChunkId::new(ids::name_hash(package), 0, ids::BULK_DATA)))
        .collect())
}

#[derive(clap::Args)]
pub struct PackArgs {
    pub level: PathBuf,
    /// The folder holding the baked map's .utoc/.ucas containers.
    #[arg(long)]
    pub content: PathBuf,
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, conflicts_with = "sign_seed")]
    pub sign: bool,
    #[arg(long, value_name = "FILE")]
    pub sign_seed: Option<PathBuf>,
}

/// The map's release: its manifest (a `^version` dependency on each listed pack), the
/// level document as it is (`blam.forge_packs` kept), its layout, and the baked map's
/// containers.
/// The largest level read (a level of 100,000 palette entries is a few megabytes).
const MAX_LEVEL_BYTES: u64 = 64 << 20;
/// The largest layout `map pack` ships.
const MAX_LAYOUT_BYTES: u64 = 64 << 20;

/// The level as it ships: as written, except that a block given by its id alone gets its
/// tag, since the game reads `blam.forge_packs` as it is.
fn with_tags(text: &str, level: &Level) -> Vec<u8> {
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(text) else {
        return text.as_bytes().to_vec();
    };
    let mut filled = false;
    let packs = value["blam"]["forge_packs"].as_array_mut();
    for (raw, pack) in packs.into_iter().flatten().zip(&level.blam.forge_packs) {
        let blocks = raw["blocks"].as_array_mut();
        for (raw, block) in blocks.into_iter().flatten().zip(&pack.blocks) {
            if raw.get("tag").is_none() {
                *raw = json!({"id": block.id, "tag": block.tag});
                filled = true;
            }
        }
    }
    if filled {
        json_out::pretty(&value)
    } else {
        text.as_bytes().to_vec()
    }
}

pub fn pack(args: &PackArgs) -> Result<i32> {
    let (file, text, level) = read_level(&args.level)?;
    let level = match level {
        Ok(level) => level,
        Err(findings) => return refuse(&findings, false),
    };
    let refused = forge_map::level_checks(&file, &text, &level);
    if refused.iter().any(|d| d.is_error()) {
        return refuse(&refused, false);
    }
    let deps: Vec<_> = level
        .blam
        .forge_packs
        .iter()
        .map(|p| json!({"slug": p.slug, "range": format!("^{}", p.version)}))
        .collect();
    let manifest = json!({"schema_version": 1, "name": level.name, "slug": level.slug,
        "version": level.version.to_string(), "type": "content", "deps": deps});
    let manifest = json_out::pretty(&manifest);
    let layout = match &level.layout {
        Some(rel) => {
            let path = args.level.parent().unwrap_or(Path::new(".")).join(rel);
            Some(
                mjolnir_files::bounded::read(&path, MAX_LAYOUT_BYTES)
                    .with_context(|| format!("cannot read {}", path.display()))?,
            )
        }
        None => None,
    };
    let content = crate::release::read_content(&args.content)?;
    let level_bytes = with_tags(&text, &level);
    let prepared = forge_release::prepare_map(&manifest, &level_bytes, layout.as_deref(), &content);
    let key = crate::release::signing_key(args.sign_seed.as_deref(), args.sign)?;
    crate::release::write_release(prepared, key.as_ref(), &args.out, false)
}
