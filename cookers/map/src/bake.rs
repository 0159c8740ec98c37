//! The palette stage of a standalone bake: the map's custom palette, checked against the
//! engine's limits, the packs' catalogs and the crates the input Paks really hold.

use std::collections::BTreeSet;

use forge_contract::{child, Catalog, Diagnostic, Findings};
use serde::Serialize;

use crate::level::{Level, LevelBlock, LevelPack};
use crate::{MAX_CUSTOM, MAX_PACKS, MAX_PALETTE};

pub const FORMAT: &str = "mjolnir-palette";

/// A pack release the map may use: its slug, version and catalog.
pub struct PackRelease<'a> {
    pub version: semver::Version,
    pub catalog: &'a Catalog,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PaletteEntry {
    /// The flat palette index: standard entries first, then the custom ones in the
    /// authored pack and block order.
    pub index: usize,
    pub pack: String,
    pub block: String,
    pub tag: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Palette {
    pub format: &'static str,
    pub level: String,
    pub standard: Vec<String>,
    pub custom: Vec<PaletteEntry>,
    /// Each custom crate's package, to add to the scenario wrapper's preload list.
    pub preloads: Vec<String>,
    /// `(slug, ^version)` for each listed pack, as the map's manifest declares them.
    pub dependencies: Vec<Dependency>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dependency {
    pub slug: String,
    pub range: String,
}

impl Palette {
    /// The flat index of a palette name: a standard entry, or `<pack>/<block>`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        if let Some(i) = self.standard.iter().position(|s| s == name) {
            return Some(i);
        }
        self.custom
            .iter()
            .find(|e| format!("{}/{}", e.pack, e.block) == name)
            .map(|e| e.index)
    }

    pub fn len(&self) -> usize {
        self.standard.len() + self.custom.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The package a block's crate tag is the bulk chunk of.
pub fn crate_package(pack: &str, block: &str) -> String {
    format!("{}{block}/crate", forge_contract::ids::unreal_root(pack))
}

/// Bakes the palette of `level` (its text, for locations) against the pack releases the
/// bake was given and the crate packages found in the input Paks.
pub fn bake(
    file: &str,
    text: &str,
    level: &Level,
    releases: &[PackRelease],
    crates: &BTreeSet<String>,
) -> Result<Palette, Vec<Diagnostic>> {
    let mut f = Findings::new(file, text);
    check_budgets(&mut f, level);
    let packs = &level.blam.forge_packs;
    let mut entries = Vec::new();
    // Sets, not scans of what came before: a level of 30,000 entries is checked in one pass.
    let mut seen_packs = std::collections::BTreeSet::new();
    for (p, pack) in packs.iter().enumerate() {
        let at = child("/blam/forge_packs", p);
        if !seen_packs.insert(pack.slug.as_str()) {
            f.error(
                "duplicate_pack",
                &child(&at, "slug"),
                format!("{:?} is listed twice; give each pack one entry", pack.slug),
            );
            continue;
        }
        let Some(release) = matching_release(&mut f, &at, pack, releases) else {
            continue;
        };
        let catalog: std::collections::BTreeMap<&str, &forge_contract::Entry> = release
            .catalog
            .blocks
            .iter()
            .map(|e| (e.id.as_str(), e))
            .collect();
        let mut seen_blocks = std::collections::BTreeSet::new();
        for (b, block) in pack.blocks.iter().enumerate() {
            let at = child(&child(&at, "blocks"), b);
            if !seen_blocks.insert(block.id.as_str()) {
                f.error(
                    "duplicate_block",
                    &child(&at, "id"),
                    format!("{:?} is listed twice in {}", block.id, pack.slug),
                );
                continue;
            }
            if !block_checks_out(&mut f, &at, (pack, block), release, &catalog, crates) {
                continue;
            }
            entries.push(PaletteEntry {
                index: level.standard_palette.len() + entries.len(),
                pack: pack.slug.clone(),
                block: block.id.clone(),
                tag: block.tag.clone(),
            });
        }
    }
    if f.has_errors() {
        return Err(f.into_vec());
    }
    Ok(Palette {
        format: FORMAT,
        level: level.name.clone(),
        standard: level.standard_palette.clone(),
        preloads: entries
            .iter()
            .map(|e| crate_package(&e.pack, &e.block))
            .collect(),
        custom: entries,
        dependencies: packs
            .iter()
            .map(|p| Dependency {
                slug: p.slug.clone(),
                range: format!("^{}", p.version),
            })
            .collect(),
    })
}

/// The bake's checks that need only the level: its build kind and the engine's limits.
/// `map pack` runs them too, so that a release never carries a level the bake refuses.
pub fn level_checks(file: &str, text: &str, level: &Level) -> Vec<Diagnostic> {
    let mut f = Findings::new(file, text);
    check_budgets(&mut f, level);
    f.into_vec()
}

/// The build kind and the engine's limits on packs, custom references and palette size.
fn check_budgets(f: &mut Findings, level: &Level) {
    if level.build != "standalone" {
        f.error(
            "canvas_override",
            "/build",
            format!("a {:?} build cannot take a Forge pack palette: only a standalone bake installs the packages' preloads", level.build),
        );
    }
    let packs = &level.blam.forge_packs;
    let custom: usize = packs.iter().map(|p| p.blocks.len()).sum();
    if packs.len() > MAX_PACKS {
        f.error(
            "too_many_packs",
            "/blam/forge_packs",
            format!("{} packs; a map takes at most {MAX_PACKS}", packs.len()),
        );
    }
    if custom > MAX_CUSTOM {
        f.error(
            "too_many_custom_references",
            "/blam/forge_packs",
            format!("{custom} custom references; a map takes at most {MAX_CUSTOM}"),
        );
    }
    let total = level.standard_palette.len() + custom;
    if total > MAX_PALETTE {
        f.error(
            "palette_full",
            "/blam/forge_packs",
            format!("{} standard and {custom} custom entries make {total}; the engine's palette holds {MAX_PALETTE}", level.standard_palette.len()),
        );
    }
}

/// Whether a level's block is in its release's catalog with the same tag, and its crate
/// is in the Paks; each way it is not is a finding at `at`.
fn block_checks_out(
    f: &mut Findings,
    at: &str,
    (pack, block): (&LevelPack, &LevelBlock),
    release: &PackRelease,
    catalog: &std::collections::BTreeMap<&str, &forge_contract::Entry>,
    crates: &BTreeSet<String>,
) -> bool {
    let Some(&entry) = catalog.get(block.id.as_str()) else {
        f.error(
            "unknown_block",
            &child(at, "id"),
            format!(
                "{} {} has no block {:?}",
                pack.slug, release.version, block.id
            ),
        );
        return false;
    };
    if entry.tag != block.tag {
        f.error(
            "block_tag_mismatch",
            &child(at, "tag"),
            format!(
                "{}/{} is {:?} in {} {}, not {:?}",
                pack.slug, block.id, entry.tag, pack.slug, release.version, block.tag
            ),
        );
        return false;
    }
    let package = crate_package(&pack.slug, &block.id);
    if !crates.contains(&package) {
        f.error(
            "missing_crate",
            at,
            format!(
                "no container in the input Paks holds {package}, the crate of {}/{}",
                pack.slug, block.id
            ),
        );
        return false;
    }
    true
}

/// The release given for `pack`: its catalog names the pack, and its version is the
/// listed one or a later one of the same caret line (which keeps every block).
fn matching_release<'a>(
    f: &mut Findings,
    at: &str,
    pack: &crate::level::LevelPack,
    releases: &'a [PackRelease<'a>],
) -> Option<&'a PackRelease<'a>> {
    let given: Vec<&PackRelease> = releases
        .iter()
        .filter(|r| r.catalog.id == pack.slug)
        .collect();
    let line = semver::VersionReq::parse(&format!("^{}", pack.version))
        .expect("a version makes a caret requirement");
    match given.iter().find(|r| line.matches(&r.version)) {
        Some(r) => Some(r),
        None if given.is_empty() => {
            f.error(
                "unknown_pack",
                &child(at, "slug"),
                format!("the bake was given no release of {:?} (--pack)", pack.slug),
            );
            None
        }
        None => {
            let versions: Vec<String> = given.iter().map(|r| r.version.to_string()).collect();
            f.error(
                "pack_version_mismatch",
                &child(at, "version"),
                format!("the map is built with {} {}, but the bake was given {}; rebake against that line or list the version given", pack.slug, pack.version, versions.join(", ")),
            );
            None
        }
    }
}
