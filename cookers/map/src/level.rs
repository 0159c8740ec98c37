//! The level document: the part of a level definition the palette bake and the map
//! checks read, with the `blam.forge_packs` fragment (`docs/maps.md`).

use forge_contract::{child, Diagnostic, Findings};
use serde::{Deserialize, Serialize};

pub const FORMAT: &str = "mjolnir-level";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Level {
    pub format: String,
    pub name: String,
    /// The map's Hub slug.
    pub slug: String,
    pub version: semver::Version,
    /// `standalone`, or `canvas` (an override of the Forge canvas, which the bake refuses).
    pub build: String,
    /// The playable volume, pack-space metres: `[min, max]`.
    pub bounds_m: [[f64; 3]; 2],
    /// How many objects a layout may place: authored objects plus the native slots left.
    pub object_budget: usize,
    /// The map's standard palette entries (vehicles, starts, ...), which come first.
    pub standard_palette: Vec<String>,
    /// The placed objects, relative to this document, when the map has a layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
    /// The layout's road pieces, in order, must form a closed course.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub circuit: bool,
    /// What the layout is stated to hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    pub blam: Blam,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blam {
    pub map_variant: bool,
    #[serde(default)]
    pub forge_packs: Vec<LevelPack>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelPack {
    pub slug: String,
    pub version: semver::Version,
    pub blocks: Vec<LevelBlock>,
}

/// A block the level offers: `{"id", "tag"}`, or its id alone, whose tag is then the
/// pack's canonical `objects\mjolnir\forge\<pack>\<id>` (filled in by [`parse_level`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "BlockForm")]
pub struct LevelBlock {
    pub id: String,
    pub tag: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum BlockForm {
    Id(String),
    Full(FullBlock),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FullBlock {
    id: String,
    #[serde(default)]
    tag: String,
}

impl From<BlockForm> for LevelBlock {
    fn from(form: BlockForm) -> Self {
        match form {
            BlockForm::Id(id) => LevelBlock {
                id,
                tag: String::new(),
            },
            BlockForm::Full(b) => LevelBlock {
                id: b.id,
                tag: b.tag,
            },
        }
    }
}

/// Fills in the canonical tag of each block given by its id alone.
fn fill_tags(level: &mut Level) {
    for pack in &mut level.blam.forge_packs {
        for block in pack.blocks.iter_mut().filter(|b| b.tag.is_empty()) {
            block.tag = forge_contract::ids::entry_tag(&pack.slug, &block.id);
        }
    }
}

/// Reads a level document; a finding for each thing wrong with its shape.
pub fn parse_level(file: &str, text: &str) -> Result<Level, Vec<Diagnostic>> {
    let mut level: Level = serde_json::from_str(text).map_err(|e| {
        let mut d = forge_contract::syntax_error(file, &e);
        d.code = if e.is_syntax() || e.is_eof() {
            "not_json"
        } else {
            "bad_level"
        };
        vec![d]
    })?;
    fill_tags(&mut level);
    let mut f = Findings::new(file, text);
    if level.format != FORMAT {
        f.error(
            "bad_level",
            "/format",
            format!("the format is {:?}, not {FORMAT:?}", level.format),
        );
    }
    if !level.blam.map_variant {
        f.error(
            "not_map_variant",
            "/blam/map_variant",
            "a Forge palette needs a map variant (map_variant: true)",
        );
    }
    // The slug names the map's folder under build/maps/ and its Hub release, and the
    // layout is a file beside the level: neither may lead anywhere else.
    if !forge_contract::ids::is_pack_id(&level.slug) {
        f.error(
            "bad_slug",
            "/slug",
            format!(
                "{:?} is not a Hub slug: {}",
                level.slug,
                forge_contract::ids::PACK_ID_RULE
            ),
        );
    }
    if let Some(why) = level.layout.as_deref().and_then(plain_path::why_not) {
        f.error(
            "layout_outside",
            "/layout",
            format!("the layout must be a file in the level's folder, named relative to it; {why}"),
        );
    }
    let [min, max] = level.bounds_m;
    if (0..3).any(|k| !min[k].is_finite() || !max[k].is_finite() || min[k] >= max[k]) {
        f.error(
            "bad_level",
            "/bounds_m",
            "the bounds need a finite min below the max on every axis",
        );
    }
    let mut seen = std::collections::BTreeSet::new();
    for (i, name) in level.standard_palette.iter().enumerate() {
        if !seen.insert(name) {
            f.error(
                "duplicate_palette_entry",
                &child("/standard_palette", i),
                format!("{name:?} is listed twice"),
            );
        }
    }
    if f.has_errors() {
        return Err(f.into_vec());
    }
    Ok(level)
}

/// What a level says its layout holds (`expect`), checked by `expect::check`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Exactly this many placed objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objects: Option<usize>,
    /// Exactly this many of an entry: a palette name, or `<name>/<team>` for a team's.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub counts: std::collections::BTreeMap<String, usize>,
    /// Every placed piece of the `decks` category stands on the floor with its top here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deck_height_m: Option<f64>,
}
