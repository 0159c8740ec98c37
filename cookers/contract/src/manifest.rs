//! `mjolnir.json`: the release manifest and its optional `forge_pack` catalog.
//!
//! [`parse_manifest`] reads the text, checks every rule of the contract in one pass and
//! returns either the typed manifest (with any warnings) or every finding at once.

use semver::{Version, VersionReq};
use serde_json::{Map, Value};

use crate::diagnostic::{child, syntax_error, Diagnostic, Findings};
use crate::fields::{self, bounded, Range};
use crate::ids;
use crate::version::{parse_range, parse_version, VersionProblem};

/// Schema versions this pipeline reads. A higher one is a change older readers must refuse.
pub const SCHEMA_VERSION: i64 = 1;
pub const MAX_BLOCKS: usize = 256;
/// Features a pack may list in `requires`. None are defined yet.
pub const KNOWN_FEATURES: &[&str] = &[];
/// Entry kinds reserved for later content. The packer refuses them until the bake, the
/// launcher and Forge can handle them.
pub const RESERVED_KINDS: &[&str] = &[
    "weapon",
    "vehicle",
    "equipment",
    "scenery",
    "device",
    "turret",
    "spawn",
    "objective",
];
pub const MAX_SURFACES: usize = 16;

#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    pub schema_version: u32,
    pub name: String,
    pub version: Version,
    pub summary: Option<String>,
    /// The Hub slug, when the manifest names it; the pack id must equal it.
    pub slug: Option<String>,
    pub deps: Vec<Dependency>,
    /// Features the release needs, at its top level (the catalog and each entry may list
    /// their own); every one must be known.
    pub requires: Vec<String>,
    pub forge_pack: Option<Catalog>,
    /// Set on reduced `--only` builds, which must never be published as the full set.
    pub diagnostic: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Dependency {
    pub slug: String,
    pub range_text: String,
    pub range: VersionReq,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    pub schema_version: u32,
    pub id: String,
    pub requires: Vec<String>,
    pub blocks: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: String,
    pub name: String,
    pub kind: String,
    pub tag: String,
    pub category: String,
    pub dimensions_m: [f64; 3],
    pub snap_m: Option<f64>,
    pub light: Option<Light>,
    pub lift: Option<Lift>,
    pub door: Option<Door>,
    pub surfaces: Vec<Surface>,
    /// Features this entry needs beyond schema 1.
    pub requires: Vec<String>,
}

/// A data-only point light, in pack space (right-handed, Z up, metres).
#[derive(Debug, Clone, PartialEq)]
pub struct Light {
    pub offset_m: [f64; 3],
    pub color_rgb: [f64; 3],
    pub intensity_cd: f64,
    pub radius_m: f64,
}

/// A moving platform: the piece travels `travel_m` and back.
#[derive(Debug, Clone, PartialEq)]
pub struct Lift {
    pub travel_m: [f64; 3],
    pub speed_m_s: f64,
    pub dwell_s: f64,
}

/// A sliding door that fills one aperture of the piece's geometry.
#[derive(Debug, Clone, PartialEq)]
pub struct Door {
    pub aperture: String,
    pub slide_m: [f64; 3],
    pub open_s: f64,
    pub close_delay_s: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceProfile {
    Glass,
    Portal,
}

impl SurfaceProfile {
    /// The name the catalog spells it with.
    pub fn name(self) -> &'static str {
        match self {
            SurfaceProfile::Glass => "glass",
            SurfaceProfile::Portal => "portal",
        }
    }
}

/// A visual surface profile bound to one material slot of the piece's mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    pub slot: String,
    pub profile: SurfaceProfile,
    pub opacity: f64,
    pub tint_rgb: [f64; 3],
}

impl Manifest {
    pub fn catalog(&self) -> Option<&Catalog> {
        self.forge_pack.as_ref()
    }
}

impl Catalog {
    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.blocks.iter().find(|e| e.id == id)
    }
}

pub const LIGHT_OFFSET: Range = Range::closed(-100.0, 100.0, "m");
pub const UNIT_INTERVAL: Range = Range::closed(0.0, 1.0, "");
pub const LIGHT_INTENSITY: Range = Range::positive_up_to(10_000.0, "cd");
pub const LIGHT_RADIUS: Range = Range::positive_up_to(100.0, "m");
pub const LIFT_TRAVEL: Range = Range::closed(-100.0, 100.0, "m");
pub const LIFT_SPEED: Range = Range::positive_up_to(20.0, "m/s");
pub const DWELL: Range = Range::closed(0.0, 60.0, "s");
pub const DOOR_SLIDE: Range = Range::closed(-100.0, 100.0, "m");
pub const DOOR_OPEN: Range = Range::positive_up_to(10.0, "s");
pub const POSITIVE: Range = Range::positive_up_to(f64::MAX, "m");

/// What the result of reading a manifest is: the manifest and its warnings, or every
/// finding when any of them is an error.
pub type Checked<T> = Result<(T, Vec<Diagnostic>), Vec<Diagnostic>>;

/// Parses and validates `mjolnir.json` text. `file` is only used to label findings.
pub fn parse_manifest(file: &str, text: &str) -> Checked<Manifest> {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return Err(vec![syntax_error(file, &e)]),
    };
    let mut f = Findings::new(file, text);
    f.refuse_duplicate_keys(text);
    let manifest = read_manifest(&mut f, &value);
    match manifest {
        Some(m) if !f.has_errors() => Ok((m, f.into_vec())),
        _ => Err(f.into_vec()),
    }
}

/// Parses one catalog entry on its own, as the cook's catalog step splits them out.
/// `pack_id` is the catalog's id, against which the tag is checked.
pub fn parse_entry(file: &str, pack_id: &str, text: &str) -> Result<Entry, Vec<Diagnostic>> {
    let value: Value = serde_json::from_str(text).map_err(|e| vec![syntax_error(file, &e)])?;
    let mut f = Findings::new(file, text);
    match read_entry(&mut f, &value, "", Some(pack_id)) {
        Some(entry) if !f.has_errors() => Ok(entry),
        _ => Err(f.into_vec()),
    }
}

fn read_schema_version(f: &mut Findings, value: &Value, pointer: &str) -> Option<u32> {
    let n = fields::integer(f, value, pointer)?;
    if n > SCHEMA_VERSION {
        f.error(
            "schema_too_new",
            pointer,
            format!("schema_version {n} needs a newer MJOLNIR; update the pipeline to read it (this one reads {SCHEMA_VERSION})"),
        );
        None
    } else if n < 1 {
        f.error(
            "bad_schema_version",
            pointer,
            format!("schema_version must be {SCHEMA_VERSION}, found {n}"),
        );
        None
    } else {
        Some(n as u32)
    }
}

fn read_manifest(f: &mut Findings, value: &Value) -> Option<Manifest> {
    let map = fields::object(f, value, "")?;
    let schema_version = fields::required(f, map, "", "schema_version")
        .and_then(|v| read_schema_version(f, v, "/schema_version"));
    let name = fields::required(f, map, "", "name").and_then(|v| read_name(f, v, "/name"));
    let version = fields::required(f, map, "", "version").and_then(|v| read_version(f, v));
    if let Some(kind) = fields::required(f, map, "", "type") {
        if let Some(kind) = fields::string(f, kind, "/type") {
            if kind != "content" {
                f.error(
                    "bad_type",
                    "/type",
                    format!("a Forge pack is a content release: `type` must be \"content\", found {kind:?}"),
                );
            }
        }
    }
    let summary = fields::optional(map, "summary")
        .and_then(|v| fields::string(f, v, "/summary"))
        .map(str::to_string);
    let slug = fields::optional(map, "slug")
        .and_then(|v| fields::string(f, v, "/slug"))
        .map(str::to_string);
    if let Some(slug) = &slug {
        if !ids::is_pack_id(slug) {
            f.error(
                "bad_slug",
                "/slug",
                format!("{slug:?} is not a Hub slug: {}", ids::PACK_ID_RULE),
            );
        }
    }
    let deps = fields::optional(map, "deps")
        .map(|v| read_deps(f, v))
        .unwrap_or_default();
    let diagnostic = match fields::optional(map, "diagnostic") {
        Some(Value::Bool(b)) => *b,
        Some(Value::Object(_)) => true,
        Some(other) => {
            f.error(
                "wrong_type",
                "/diagnostic",
                format!(
                    "expected an object or a boolean, found {}",
                    fields::type_name(other)
                ),
            );
            false
        }
        None => false,
    };
    let requires = fields::optional(map, "requires")
        .map(|v| read_requires(f, v, "/requires"))
        .unwrap_or_default();
    let forge_pack = fields::optional(map, "forge_pack").and_then(|v| read_catalog(f, v));
    if let (Some(pack), Some(slug)) = (&forge_pack, &slug) {
        if &pack.id != slug {
            f.error(
                "pack_id_not_slug",
                "/forge_pack/id",
                format!("the pack id {:?} must equal the Hub slug {slug:?}", pack.id),
            );
        }
    }
    if let (Some(pack), Some(_)) = (
        &forge_pack,
        deps.iter()
            .find(|d| Some(&d.slug) == forge_pack.as_ref().map(|p| &p.id)),
    ) {
        let at = deps.iter().position(|d| d.slug == pack.id).unwrap_or(0);
        f.error(
            "self_dependency",
            &format!("/deps/{at}/slug"),
            "a pack cannot depend on itself",
        );
    }
    Some(Manifest {
        schema_version: schema_version?,
        name: name?,
        version: version?,
        summary,
        slug,
        deps,
        requires,
        forge_pack,
        diagnostic,
    })
}

fn read_name(f: &mut Findings, value: &Value, pointer: &str) -> Option<String> {
    let name = fields::string(f, value, pointer)?;
    if ids::is_name(name) {
        Some(name.to_string())
    } else {
        f.error(
            "bad_name",
            pointer,
            format!("{name:?} is not a valid name: {}", ids::NAME_RULE),
        );
        None
    }
}

fn read_version(f: &mut Findings, value: &Value) -> Option<Version> {
    let text = fields::string(f, value, "/version")?;
    match parse_version(text) {
        Ok(v) => {
            if !v.build.is_empty() {
                f.warning(
                    "version_build_metadata",
                    "/version",
                    format!("{text:?} carries +build metadata; the Hub refuses it, so a publishable release must drop it"),
                );
            }
            Some(v)
        }
        Err(VersionProblem::TooLong(n)) => {
            f.error(
                "version_too_long",
                "/version",
                format!("a release version is at most 96 bytes; this one is {n}"),
            );
            None
        }
        Err(VersionProblem::NotSemver(why)) => {
            f.error(
                "bad_version",
                "/version",
                format!("{text:?} is not an exact SemVer version such as 0.2.0 ({why})"),
            );
            None
        }
    }
}

fn read_deps(f: &mut Findings, value: &Value) -> Vec<Dependency> {
    let Some(items) = fields::array(f, value, "/deps") else {
        return Vec::new();
    };
    let mut deps: Vec<Dependency> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = child("/deps", i);
        let Some(map) = fields::object(f, item, &at) else {
            continue;
        };
        fields::refuse_unknown(f, map, &at, &["slug", "range"]);
        let slug = fields::required(f, map, &at, "slug")
            .and_then(|v| fields::string(f, v, &child(&at, "slug")));
        let range = fields::required(f, map, &at, "range")
            .and_then(|v| fields::string(f, v, &child(&at, "range")));
        if let Some(slug) = slug {
            if !ids::is_pack_id(slug) {
                f.error(
                    "bad_dep_slug",
                    &child(&at, "slug"),
                    format!("{slug:?} is not a Hub slug: {}", ids::PACK_ID_RULE),
                );
            } else if deps.iter().any(|d| d.slug == slug) {
                f.error(
                    "duplicate_dep",
                    &child(&at, "slug"),
                    format!("{slug:?} is listed twice; give each pack one range"),
                );
            }
        }
        let parsed = range.and_then(|text| match parse_range(text) {
            Ok(req) => Some(req),
            Err(why) => {
                f.error(
                    "bad_dep_range",
                    &child(&at, "range"),
                    format!("{text:?} is not a SemVer requirement such as ^1.2.3, ~1.2.3 or >=1.2.3, <2.0.0 ({why})"),
                );
                None
            }
        });
        if let (Some(slug), Some(text), Some(range)) = (slug, range, parsed) {
            deps.push(Dependency {
                slug: slug.to_string(),
                range_text: text.to_string(),
                range,
            });
        }
    }
    deps
}

fn read_catalog(f: &mut Findings, value: &Value) -> Option<Catalog> {
    let p = "/forge_pack";
    let map = fields::object(f, value, p)?;
    let schema_version = fields::required(f, map, p, "schema_version")
        .and_then(|v| read_schema_version(f, v, "/forge_pack/schema_version"));
    let id = fields::required(f, map, p, "id").and_then(|v| fields::string(f, v, "/forge_pack/id"));
    let id = id.and_then(|id| {
        if ids::is_pack_id(id) {
            Some(id.to_string())
        } else {
            f.error(
                "bad_pack_id",
                "/forge_pack/id",
                format!("{id:?} is not a valid pack id: {}", ids::PACK_ID_RULE),
            );
            None
        }
    });
    let requires = fields::optional(map, "requires")
        .map(|v| read_requires(f, v, "/forge_pack/requires"))
        .unwrap_or_default();
    let blocks =
        fields::required(f, map, p, "blocks").and_then(|v| read_entries(f, v, id.as_deref()));
    Some(Catalog {
        schema_version: schema_version?,
        id: id?,
        requires,
        blocks: blocks?,
    })
}

/// A `requires` list, wherever it stands: each feature must be one this MJOLNIR knows.
fn read_requires(f: &mut Findings, value: &Value, p: &str) -> Vec<String> {
    let Some(items) = fields::array(f, value, p) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = child(p, i);
        if let Some(feature) = fields::string(f, item, &at) {
            if KNOWN_FEATURES.contains(&feature) {
                out.push(feature.to_string());
            } else {
                let known = if KNOWN_FEATURES.is_empty() {
                    "none are defined yet".to_string()
                } else {
                    KNOWN_FEATURES.join(", ")
                };
                f.error(
                    "unknown_feature",
                    &at,
                    format!("this pack requires feature {feature:?}, which this MJOLNIR does not know ({known}); update the pipeline"),
                );
            }
        }
    }
    out
}

fn read_entries(f: &mut Findings, value: &Value, pack_id: Option<&str>) -> Option<Vec<Entry>> {
    let p = "/forge_pack/blocks";
    let items = fields::array(f, value, p)?;
    if items.is_empty() || items.len() > MAX_BLOCKS {
        f.error(
            "block_count",
            p,
            format!(
                "a catalog holds 1-{MAX_BLOCKS} blocks; this one has {}",
                items.len()
            ),
        );
    }
    let mut entries = Vec::new();
    let mut complete = true;
    for (i, item) in items.iter().enumerate() {
        let at = child(p, i);
        match read_entry(f, item, &at, pack_id) {
            Some(entry) => {
                if let Some(first) = entries.iter().position(|e: &Entry| e.id == entry.id) {
                    f.error(
                        "duplicate_id",
                        &child(&at, "id"),
                        format!("block id {:?} is already used by /forge_pack/blocks/{first}; ids are unique within a pack", entry.id),
                    );
                }
                entries.push(entry);
            }
            None => complete = false,
        }
    }
    complete.then_some(entries)
}

fn read_entry(f: &mut Findings, value: &Value, at: &str, pack_id: Option<&str>) -> Option<Entry> {
    let map = fields::object(f, value, at)?;
    let id =
        fields::required(f, map, at, "id").and_then(|v| fields::string(f, v, &child(at, "id")));
    let id = id.and_then(|id| {
        if ids::is_entry_id(id) {
            Some(id.to_string())
        } else {
            f.error(
                "bad_id",
                &child(at, "id"),
                format!("{id:?} is not a valid block id: {}", ids::ENTRY_ID_RULE),
            );
            None
        }
    });
    let name =
        fields::required(f, map, at, "name").and_then(|v| read_name(f, v, &child(at, "name")));
    let kind = match fields::optional(map, "kind") {
        None => Some("block".to_string()),
        Some(v) => fields::string(f, v, &child(at, "kind"))
            .and_then(|k| read_kind(f, k, &child(at, "kind"))),
    };
    let category = fields::required(f, map, at, "category")
        .and_then(|v| fields::string(f, v, &child(at, "category")));
    let category = category.and_then(|c| {
        if ids::is_entry_id(c) {
            Some(c.to_string())
        } else {
            f.error(
                "bad_category",
                &child(at, "category"),
                format!("{c:?} is not a valid category: {}", ids::ENTRY_ID_RULE),
            );
            None
        }
    });
    let tag =
        fields::required(f, map, at, "tag").and_then(|v| fields::string(f, v, &child(at, "tag")));
    if let (Some(tag), Some(pack), Some(id)) = (tag, pack_id, id.as_deref()) {
        let expected = ids::entry_tag(pack, id);
        if tag != expected {
            f.error(
                "bad_tag",
                &child(at, "tag"),
                format!("the tag must be exactly {expected:?}, found {tag:?}"),
            );
        }
    }
    let dimensions = fields::required(f, map, at, "dimensions_m").and_then(|v| {
        let p = child(at, "dimensions_m");
        let dims = fields::numbers::<3>(f, v, &p)?;
        let mut ok = true;
        for (axis, d) in dims.iter().enumerate() {
            ok &= bounded(f, "bad_dimensions", &child(&p, axis), *d, POSITIVE).is_some();
        }
        ok.then_some(dims)
    });
    let snap = match fields::optional(map, "snap_m") {
        None => Some(None),
        Some(v) => {
            let p = child(at, "snap_m");
            fields::number(f, v, &p)
                .and_then(|n| bounded(f, "bad_snap", &p, n, POSITIVE))
                .map(Some)
        }
    };
    let light = match fields::optional(map, "light") {
        None => Some(None),
        Some(v) => read_light(f, v, &child(at, "light")).map(Some),
    };
    let lift = match fields::optional(map, "lift") {
        None => Some(None),
        Some(v) => read_lift(f, v, &child(at, "lift")).map(Some),
    };
    let door = match fields::optional(map, "door") {
        None => Some(None),
        Some(v) => read_door(f, v, &child(at, "door")).map(Some),
    };
    let surfaces = match fields::optional(map, "surfaces") {
        None => Some(Vec::new()),
        Some(v) => read_surfaces(f, v, &child(at, "surfaces")),
    };
    let requires = fields::optional(map, "requires")
        .map(|v| read_requires(f, v, &child(at, "requires")))
        .unwrap_or_default();
    Some(Entry {
        requires,
        id: id?,
        name: name?,
        kind: kind?,
        tag: tag?.to_string(),
        category: category?,
        dimensions_m: dimensions?,
        snap_m: snap?,
        light: light?,
        lift: lift?,
        door: door?,
        surfaces: surfaces?,
    })
}

fn read_kind(f: &mut Findings, kind: &str, pointer: &str) -> Option<String> {
    if kind == "block" {
        Some(kind.to_string())
    } else if RESERVED_KINDS.contains(&kind) {
        f.error(
            "kind_not_supported",
            pointer,
            format!("kind {kind:?} is reserved for a later release; this pipeline, the Hub and the launcher only accept \"block\" entries today"),
        );
        None
    } else {
        f.error(
            "unknown_kind",
            pointer,
            format!("kind {kind:?} is unknown; entries are \"block\" (the default), and {} are reserved", RESERVED_KINDS.join(", ")),
        );
        None
    }
}

fn read_bounded3(
    f: &mut Findings,
    map: &Map<String, Value>,
    at: &str,
    key: &str,
    code: &'static str,
    range: Range,
) -> Option<[f64; 3]> {
    let p = child(at, key);
    let v = fields::required(f, map, at, key)?;
    let xyz = fields::numbers::<3>(f, v, &p)?;
    let mut ok = true;
    for (i, n) in xyz.iter().enumerate() {
        ok &= bounded(f, code, &child(&p, i), *n, range).is_some();
    }
    ok.then_some(xyz)
}

fn read_bounded(
    f: &mut Findings,
    map: &Map<String, Value>,
    at: &str,
    key: &str,
    code: &'static str,
    range: Range,
) -> Option<f64> {
    let p = child(at, key);
    let v = fields::required(f, map, at, key)?;
    let n = fields::number(f, v, &p)?;
    bounded(f, code, &p, n, range)
}

fn read_light(f: &mut Findings, value: &Value, at: &str) -> Option<Light> {
    let map = fields::object(f, value, at)?;
    fields::refuse_unknown(
        f,
        map,
        at,
        &["offset_m", "color_rgb", "intensity_cd", "radius_m"],
    );
    let offset = read_bounded3(f, map, at, "offset_m", "bad_light", LIGHT_OFFSET);
    let color = read_bounded3(f, map, at, "color_rgb", "bad_light", UNIT_INTERVAL);
    let intensity = read_bounded(f, map, at, "intensity_cd", "bad_light", LIGHT_INTENSITY);
    let radius = read_bounded(f, map, at, "radius_m", "bad_light", LIGHT_RADIUS);
    Some(Light {
        offset_m: offset?,
        color_rgb: color?,
        intensity_cd: intensity?,
        radius_m: radius?,
    })
}

fn read_lift(f: &mut Findings, value: &Value, at: &str) -> Option<Lift> {
    let map = fields::object(f, value, at)?;
    fields::refuse_unknown(f, map, at, &["travel_m", "speed_m_s", "dwell_s"]);
    let travel = read_bounded3(f, map, at, "travel_m", "bad_lift", LIFT_TRAVEL);
    if travel == Some([0.0; 3]) {
        f.error(
            "bad_lift",
            &child(at, "travel_m"),
            "a lift must travel: travel_m cannot be all zero",
        );
    }
    let speed = read_bounded(f, map, at, "speed_m_s", "bad_lift", LIFT_SPEED);
    let dwell = read_bounded(f, map, at, "dwell_s", "bad_lift", DWELL);
    Some(Lift {
        travel_m: travel.filter(|t| *t != [0.0; 3])?,
        speed_m_s: speed?,
        dwell_s: dwell?,
    })
}

fn read_door(f: &mut Findings, value: &Value, at: &str) -> Option<Door> {
    let map = fields::object(f, value, at)?;
    fields::refuse_unknown(
        f,
        map,
        at,
        &["aperture", "slide_m", "open_s", "close_delay_s"],
    );
    let aperture = fields::required(f, map, at, "aperture")
        .and_then(|v| fields::string(f, v, &child(at, "aperture")));
    let aperture = aperture.and_then(|a| {
        if ids::is_entry_id(a) {
            Some(a.to_string())
        } else {
            f.error(
                "bad_door",
                &child(at, "aperture"),
                format!("{a:?} is not an aperture name: {}", ids::ENTRY_ID_RULE),
            );
            None
        }
    });
    let slide = read_bounded3(f, map, at, "slide_m", "bad_door", DOOR_SLIDE);
    if slide == Some([0.0; 3]) {
        f.error(
            "bad_door",
            &child(at, "slide_m"),
            "a door must move: slide_m cannot be all zero",
        );
    }
    let open = read_bounded(f, map, at, "open_s", "bad_door", DOOR_OPEN);
    let delay = read_bounded(f, map, at, "close_delay_s", "bad_door", DWELL);
    Some(Door {
        aperture: aperture?,
        slide_m: slide.filter(|s| *s != [0.0; 3])?,
        open_s: open?,
        close_delay_s: delay?,
    })
}

fn read_surfaces(f: &mut Findings, value: &Value, at: &str) -> Option<Vec<Surface>> {
    let items = fields::array(f, value, at)?;
    if items.is_empty() || items.len() > MAX_SURFACES {
        f.error(
            "bad_surfaces",
            at,
            format!(
                "surfaces lists 1-{MAX_SURFACES} entries; found {}",
                items.len()
            ),
        );
        return None;
    }
    let mut out: Vec<Surface> = Vec::new();
    let mut complete = true;
    for (i, item) in items.iter().enumerate() {
        let p = child(at, i);
        let Some(map) = fields::object(f, item, &p) else {
            complete = false;
            continue;
        };
        fields::refuse_unknown(f, map, &p, &["slot", "profile", "opacity", "tint_rgb"]);
        let slot = fields::required(f, map, &p, "slot")
            .and_then(|v| fields::string(f, v, &child(&p, "slot")));
        let slot = slot.and_then(|s| {
            if !ids::is_name(s) {
                f.error(
                    "bad_surfaces",
                    &child(&p, "slot"),
                    format!("{s:?} is not a material slot name: {}", ids::NAME_RULE),
                );
                None
            } else if out.iter().any(|o| o.slot == s) {
                f.error(
                    "bad_surfaces",
                    &child(&p, "slot"),
                    format!("material slot {s:?} already has a surface profile"),
                );
                None
            } else {
                Some(s.to_string())
            }
        });
        let profile = fields::required(f, map, &p, "profile")
            .and_then(|v| fields::string(f, v, &child(&p, "profile")));
        let profile = profile.and_then(|s| match s {
            "glass" => Some(SurfaceProfile::Glass),
            "portal" => Some(SurfaceProfile::Portal),
            other => {
                f.error(
                    "bad_surfaces",
                    &child(&p, "profile"),
                    format!("profile {other:?} is unknown; use \"glass\" or \"portal\""),
                );
                None
            }
        });
        let opacity = read_bounded(f, map, &p, "opacity", "bad_surfaces", UNIT_INTERVAL);
        let tint = match fields::optional(map, "tint_rgb") {
            None => Some([1.0; 3]),
            Some(_) => read_bounded3(f, map, &p, "tint_rgb", "bad_surfaces", UNIT_INTERVAL),
        };
        match (slot, profile, opacity, tint) {
            (Some(slot), Some(profile), Some(opacity), Some(tint_rgb)) => out.push(Surface {
                slot,
                profile,
                opacity,
                tint_rgb,
            }),
            _ => complete = false,
        }
    }
    complete.then_some(out)
}
