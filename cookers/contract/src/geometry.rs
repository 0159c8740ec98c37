//! `source/geometry.json`: the collision source of a pack.
//!
//! Per block it holds the origin convention, the named convex hulls (kept separate so
//! apertures stay open), and what the checks must prove: apertures, walkable supports,
//! joins and, for road pieces, connector frames. The schema is in
//! `schemas/geometry.schema.json` and `docs/geometry-source.md`.

use serde_json::value::RawValue;
use serde_json::Value;

use crate::diagnostic::{child, syntax_error, Findings};
use crate::fields::{self, bounded, Range};
use crate::ids;
use crate::manifest::{Catalog, Checked, SCHEMA_VERSION};

/// Hulls become Havok polyhedra, which hold at most 255 vertices.
pub const MAX_HULL_POINTS: usize = 255;
pub const MAX_HULLS: usize = 64;
/// No piece reaches further than this from its origin.
pub const COORDINATE: Range = Range::closed(-1000.0, 1000.0, "m");
pub const EXTENT: Range = Range::positive_up_to(1000.0, "m");
pub const HEADING: Range = Range::closed(-360.0, 360.0, "degrees");
pub const GRADE: Range = Range::closed(-10.0, 10.0, "m per m");

#[derive(Debug, Clone, PartialEq)]
pub struct GeometrySource {
    pub schema_version: u32,
    pub pack: String,
    pub blocks: Vec<BlockGeometry>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Foundry: the origin is the centre of the piece's footprint at its lowest point.
    BottomCentre,
    /// Roadworks: the origin is on the road surface at the entry connector.
    EntryFloor,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::BottomCentre => "bottom_centre",
            Origin::EntryFloor => "entry_floor",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct BlockGeometry {
    pub id: String,
    pub origin: Origin,
    pub hulls: Vec<Hull>,
    pub apertures: Vec<Aperture>,
    pub supports: Vec<Support>,
    pub joins: Vec<Join>,
    pub connectors: Option<Connectors>,
    pub waivers: Vec<Waiver>,
}

/// A convex hull given by its points, in pack space (right-handed, Z up, metres).
#[derive(Debug, Clone, PartialEq)]
pub struct Hull {
    pub name: String,
    pub material: String,
    pub points: Vec<[f64; 3]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApertureKind {
    Door,
    Window,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    X,
    Y,
}

/// A rectangular opening in a vertical plane. Rays travel along `axis` through it.
#[derive(Debug, Clone, PartialEq)]
pub struct Aperture {
    pub name: String,
    pub kind: ApertureKind,
    pub centre_m: [f64; 3],
    pub axis: Axis,
    pub width_m: f64,
    pub height_m: f64,
}

/// A walkable area: over the rectangle `min_m..max_m` (x, y), the top surface is at
/// `height_m + grade[0] * (x - min_m[0]) + grade[1] * (y - min_m[1])`.
#[derive(Debug, Clone, PartialEq)]
pub struct Support {
    pub name: String,
    pub min_m: [f64; 2],
    pub max_m: [f64; 2],
    pub height_m: f64,
    pub grade: [f64; 2],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    PlusX,
    MinusX,
    PlusY,
    MinusY,
}

impl Edge {
    pub fn as_str(self) -> &'static str {
        match self {
            Edge::PlusX => "+x",
            Edge::MinusX => "-x",
            Edge::PlusY => "+y",
            Edge::MinusY => "-y",
        }
    }
}

/// Where the piece meets a neighbour: the walkable top at that edge is at `height_m`.
#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    pub name: String,
    pub edge: Edge,
    pub height_m: f64,
}

/// A connector frame: a point on the road surface and the heading of travel, in degrees
/// counter-clockwise from +X.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub position_m: [f64; 3],
    pub heading_deg: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Connectors {
    pub entry: Frame,
    pub exit: Frame,
    /// Extra exits (a junction's side road).
    pub branches: Vec<Frame>,
}

/// A reviewed exception to one automatic check of this block.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiver {
    pub check: String,
    pub reason: String,
    pub reviewed_by: String,
}

impl GeometrySource {
    pub fn block(&self, id: &str) -> Option<&BlockGeometry> {
        self.blocks.iter().find(|b| b.id == id)
    }
}

/// Parses and validates `geometry.json` against the pack's catalog.
pub fn parse_geometry(file: &str, text: &str, catalog: &Catalog) -> Checked<GeometrySource> {
    parse_geometry_lacking(file, text, catalog, &[])
}

/// As [`parse_geometry`], but the blocks in `from_models` may be missing or partial: each
/// field their entry leaves out (its origin and hulls included) comes from their model
/// (`derive`), and each field it gives overrides the model's. A partial entry is read
/// with `bottom_centre` and no hulls in place of what it lacks.
pub fn parse_geometry_lacking(
    file: &str,
    text: &str,
    catalog: &Catalog,
    from_models: &[String],
) -> Checked<GeometrySource> {
    let ((source, _), warnings) = parse_geometry_entries(file, text, catalog, from_models)?;
    Ok((source, warnings))
}

/// As [`parse_geometry_lacking`], also giving each entry of `blocks` as its fields are
/// written, as compact JSON, in the document's order: for a caller that splits the
/// document by block, so that reformatting the file changes no block's part.
///
/// A catalog's document is megabytes of hull vertices, about ten times that as one tree,
/// so its entries are parsed one at a time, written out while they are read, and let go.
pub fn parse_geometry_entries(
    file: &str,
    text: &str,
    catalog: &Catalog,
    from_models: &[String],
) -> Checked<(GeometrySource, Vec<String>)> {
    let Ok(top) = serde_json::from_str::<Unparsed>(text) else {
        return Err(refused_whole(file, text, catalog, from_models));
    };
    let mut f = Findings::new(file, text);
    f.refuse_duplicate_keys(text);
    let mut map = top.rest;
    let entries = match top
        .blocks
        .map(|b| serde_json::from_str::<Vec<&RawValue>>(b.get()))
    {
        Some(Ok(entries)) => {
            map.insert("blocks".into(), Value::Array(Vec::new()));
            entries
        }
        // Not an array: the reader says so.
        Some(Err(_)) => {
            let blocks = top.blocks.and_then(|b| serde_json::from_str(b.get()).ok());
            map.insert("blocks".into(), blocks.unwrap_or_default());
            Vec::new()
        }
        None => Vec::new(),
    };
    let entries = Entries::Unparsed {
        entries: &entries,
        document: text,
    };
    let mut written = Vec::with_capacity(entries.len());
    let source = read_source(
        &mut f,
        &Value::Object(map),
        entries,
        catalog,
        from_models,
        &mut written,
    );
    match source {
        Some(s) if !f.has_errors() => Ok(((s, written), f.into_vec())),
        _ => Err(f.into_vec()),
    }
}

/// The top level of `geometry.json`, its `blocks` left as text.
#[derive(serde::Deserialize)]
struct Unparsed<'t> {
    #[serde(borrow, default)]
    blocks: Option<&'t RawValue>,
    #[serde(flatten)]
    rest: serde_json::Map<String, Value>,
}

/// Why a document that is not an object of fields (not JSON, another type, or `blocks`
/// given twice) is refused, read as one tree as any document once was.
fn refused_whole(
    file: &str,
    text: &str,
    catalog: &Catalog,
    from_models: &[String],
) -> Vec<crate::Diagnostic> {
    let (mut f, _) = match read_whole(file, text, catalog, from_models) {
        Ok(read) => read,
        Err(e) => return vec![syntax_error(file, &e)],
    };
    if !f.has_errors() {
        f.error(
            "not_json",
            "",
            "the document could not be read as an object of fields",
        );
    }
    f.into_vec()
}

/// The document read as one tree: its findings, and its source when it reads as one.
fn read_whole<'f>(
    file: &'f str,
    text: &'f str,
    catalog: &Catalog,
    from_models: &[String],
) -> Result<(Findings<'f>, Option<GeometrySource>), serde_json::Error> {
    let value: Value = serde_json::from_str(text)?;
    let mut f = Findings::new(file, text);
    f.refuse_duplicate_keys(text);
    let blocks = value.get("blocks").and_then(Value::as_array);
    let entries = Entries::Parsed(blocks.map_or(&[], Vec::as_slice));
    let source = read_source(
        &mut f,
        &value,
        entries,
        catalog,
        from_models,
        &mut Vec::new(),
    );
    Ok((f, source))
}

/// The entries of `blocks`: parsed with their document, or each still its text (a slice
/// of the document's).
#[derive(Clone, Copy)]
enum Entries<'v, 't> {
    Parsed(&'v [Value]),
    Unparsed {
        entries: &'v [&'t RawValue],
        document: &'t str,
    },
}

impl<'v> Entries<'v, '_> {
    fn len(self) -> usize {
        match self {
            Entries::Parsed(items) => items.len(),
            Entries::Unparsed { entries, .. } => entries.len(),
        }
    }

    /// Entry `i`, or why it cannot be read (a number out of range, say), placed in the
    /// document rather than in the entry.
    fn get(self, i: usize) -> Result<std::borrow::Cow<'v, Value>, String> {
        let (entries, document) = match self {
            Entries::Parsed(items) => return Ok(std::borrow::Cow::Borrowed(&items[i])),
            Entries::Unparsed { entries, document } => (entries, document),
        };
        let text = entries[i].get();
        serde_json::from_str(text)
            .map(std::borrow::Cow::Owned)
            .map_err(|e| {
                let at = format!(" at line {} column {}", e.line(), e.column());
                let why = e.to_string();
                let why = why.strip_suffix(&at).unwrap_or(&why);
                // The entry is a slice of the document: its offset places the error.
                let start = (text.as_ptr() as usize).saturating_sub(document.as_ptr() as usize);
                let before = document.get(..start).unwrap_or_default();
                let line = before.matches('\n').count() + e.line();
                let column = match e.line() {
                    1 => before.len() - before.rfind('\n').map_or(0, |n| n + 1) + e.column(),
                    _ => e.column(),
                };
                format!("{why} at line {line} column {column}")
            })
    }
}

/// Parses one block's geometry on its own, as the cook's geometry step splits them out.
pub fn parse_block(file: &str, text: &str) -> Result<BlockGeometry, Vec<crate::Diagnostic>> {
    let value: Value = serde_json::from_str(text).map_err(|e| vec![syntax_error(file, &e)])?;
    let mut f = Findings::new(file, text);
    match read_block(&mut f, &value, "", false) {
        Some(block) if !f.has_errors() => Ok(block),
        _ => Err(f.into_vec()),
    }
}

fn read_source(
    f: &mut Findings,
    value: &Value,
    entries: Entries,
    catalog: &Catalog,
    from_models: &[String],
    written: &mut Vec<String>,
) -> Option<GeometrySource> {
    let map = fields::object(f, value, "")?;
    fields::refuse_unknown(f, map, "", &["$schema", "schema_version", "pack", "blocks"]);
    let schema_version = fields::required(f, map, "", "schema_version").and_then(|v| {
        let n = fields::integer(f, v, "/schema_version")?;
        if n == SCHEMA_VERSION {
            Some(n as u32)
        } else {
            f.error(
                if n > SCHEMA_VERSION {
                    "schema_too_new"
                } else {
                    "bad_schema_version"
                },
                "/schema_version",
                format!("geometry schema_version must be {SCHEMA_VERSION}, found {n}"),
            );
            None
        }
    });
    let pack = fields::required(f, map, "", "pack").and_then(|v| fields::string(f, v, "/pack"));
    if let Some(pack) = pack {
        if pack != catalog.id {
            f.error(
                "geometry_pack_mismatch",
                "/pack",
                format!(
                    "geometry is for pack {pack:?} but the catalog is {:?}",
                    catalog.id
                ),
            );
        }
    }
    fields::required(f, map, "", "blocks").and_then(|v| fields::array(f, v, "/blocks"))?;
    let mut blocks: Vec<BlockGeometry> = Vec::new();
    let mut complete = true;
    for i in 0..entries.len() {
        let at = child("/blocks", i);
        let item = match entries.get(i) {
            Ok(item) => item,
            Err(why) => {
                f.error("not_json", &at, format!("this entry cannot be read: {why}"));
                complete = false;
                continue;
            }
        };
        let item = item.as_ref();
        written.push(item.to_string());
        let lacking = item
            .get("id")
            .and_then(Value::as_str)
            .is_some_and(|id| from_models.iter().any(|m| m == id));
        match read_block(f, item, &at, lacking) {
            Some(block) => {
                if blocks.iter().any(|b| b.id == block.id) {
                    f.error(
                        "duplicate_id",
                        &child(&at, "id"),
                        format!("block {:?} has geometry twice", block.id),
                    );
                } else if catalog.entry(&block.id).is_none() {
                    f.error(
                        "unknown_block",
                        &child(&at, "id"),
                        format!(
                            "block {:?} is not in the catalog of {:?}",
                            block.id, catalog.id
                        ),
                    );
                }
                // A partial entry without apertures takes the model's; the block's own
                // step checks the door against those.
                if !lacking || item.get("apertures").is_some() {
                    check_door(f, catalog, &block, &at);
                }
                blocks.push(block);
            }
            None => complete = false,
        }
    }
    for entry in &catalog.blocks {
        if complete && !blocks.iter().any(|b| b.id == entry.id) && !from_models.contains(&entry.id)
        {
            f.error(
                "missing_geometry",
                "/blocks",
                format!("catalog block {:?} has no geometry", entry.id),
            );
        }
    }
    Some(GeometrySource {
        schema_version: schema_version?,
        pack: pack?.to_string(),
        blocks: complete.then_some(blocks)?,
    })
}

/// The catalog's door slides in an aperture the block declares.
fn check_door(f: &mut Findings, catalog: &Catalog, block: &BlockGeometry, at: &str) {
    let door = catalog.entry(&block.id).and_then(|e| e.door.as_ref());
    if let Some(door) = door.filter(|d| !block.apertures.iter().any(|a| a.name == d.aperture)) {
        f.error(
            "door_aperture_missing",
            &child(at, "apertures"),
            format!(
                "the catalog's door uses aperture {:?}, which this block does not declare",
                door.aperture
            ),
        );
    }
}

fn read_id(
    f: &mut Findings,
    map: &serde_json::Map<String, Value>,
    at: &str,
    key: &str,
) -> Option<String> {
    let p = child(at, key);
    let s = fields::required(f, map, at, key).and_then(|v| fields::string(f, v, &p))?;
    if ids::is_entry_id(s) {
        Some(s.to_string())
    } else {
        f.error(
            "bad_id",
            &p,
            format!("{s:?} is not a valid {key}: {}", ids::ENTRY_ID_RULE),
        );
        None
    }
}

fn read_number(
    f: &mut Findings,
    map: &serde_json::Map<String, Value>,
    at: &str,
    key: &str,
    range: Range,
) -> Option<f64> {
    let p = child(at, key);
    let v = fields::required(f, map, at, key)?;
    let n = fields::number(f, v, &p)?;
    bounded(f, "bad_geometry_value", &p, n, range)
}

fn read_point<const N: usize>(
    f: &mut Findings,
    value: &Value,
    p: &str,
    range: Range,
) -> Option<[f64; N]> {
    let xyz = fields::numbers::<N>(f, value, p)?;
    let mut ok = true;
    for (i, n) in xyz.iter().enumerate() {
        ok &= bounded(f, "bad_geometry_value", &child(p, i), *n, range).is_some();
    }
    ok.then_some(xyz)
}

fn read_list<T>(
    f: &mut Findings,
    map: &serde_json::Map<String, Value>,
    at: &str,
    key: &str,
    mut read: impl FnMut(&mut Findings, &serde_json::Map<String, Value>, &str) -> Option<T>,
    name_of: impl Fn(&T) -> &str,
) -> Option<Vec<T>> {
    let Some(value) = fields::optional(map, key) else {
        return Some(Vec::new());
    };
    let p = child(at, key);
    let items = fields::array(f, value, &p)?;
    let mut out: Vec<T> = Vec::new();
    let mut complete = true;
    for (i, item) in items.iter().enumerate() {
        let ip = child(&p, i);
        match fields::object(f, item, &ip).and_then(|m| read(f, m, &ip)) {
            Some(t) => {
                if out.iter().any(|o| name_of(o) == name_of(&t)) {
                    f.error(
                        "duplicate_name",
                        &child(&ip, "name"),
                        format!("{:?} is used twice in {key}", name_of(&t)),
                    );
                }
                out.push(t);
            }
            None => complete = false,
        }
    }
    complete.then_some(out)
}

/// One block's entry; with `lacking`, its origin and hulls may be left to its model.
fn read_block(f: &mut Findings, value: &Value, at: &str, lacking: bool) -> Option<BlockGeometry> {
    let map = fields::object(f, value, at)?;
    fields::refuse_unknown(
        f,
        map,
        at,
        &[
            "id",
            "origin",
            "hulls",
            "apertures",
            "supports",
            "joins",
            "connectors",
            "waivers",
        ],
    );
    let id = read_id(f, map, at, "id");
    let given = |key: &str| !lacking || map.contains_key(key);
    let origin = if given("origin") {
        fields::required(f, map, at, "origin")
            .and_then(|v| fields::string(f, v, &child(at, "origin")))
    } else {
        Some("bottom_centre")
    };
    let origin = origin.and_then(|o| match o {
        "bottom_centre" => Some(Origin::BottomCentre),
        "entry_floor" => Some(Origin::EntryFloor),
        other => {
            f.error(
                "bad_origin",
                &child(at, "origin"),
                format!("origin {other:?} is unknown; use \"bottom_centre\" or \"entry_floor\""),
            );
            None
        }
    });
    let hulls = if given("hulls") {
        fields::required(f, map, at, "hulls")
            .and_then(|_| read_list(f, map, at, "hulls", read_hull, |h| &h.name))
    } else {
        Some(Vec::new())
    };
    if let Some(h) = hulls.as_ref().filter(|_| given("hulls")) {
        if h.is_empty() || h.len() > MAX_HULLS {
            f.error(
                "hull_count",
                &child(at, "hulls"),
                format!("a block has 1-{MAX_HULLS} hulls; found {}", h.len()),
            );
        }
    }
    let apertures = read_list(f, map, at, "apertures", read_aperture, |a| &a.name);
    let supports = read_list(f, map, at, "supports", read_support, |s| &s.name);
    let joins = read_list(f, map, at, "joins", read_join, |j| &j.name);
    let waivers = read_list(f, map, at, "waivers", read_waiver, |w| &w.check);
    let connectors = match fields::optional(map, "connectors") {
        None => Some(None),
        Some(v) => read_connectors(f, v, &child(at, "connectors")).map(Some),
    };
    if let (Some(Origin::EntryFloor), Some(None), true) = (origin, &connectors, given("connectors"))
    {
        f.error(
            "missing_connectors",
            at,
            "an entry_floor piece must declare its entry and exit connectors",
        );
    }
    Some(BlockGeometry {
        id: id?,
        origin: origin?,
        hulls: hulls?,
        apertures: apertures?,
        supports: supports?,
        joins: joins?,
        connectors: connectors?,
        waivers: waivers?,
    })
}

fn read_hull(f: &mut Findings, map: &serde_json::Map<String, Value>, at: &str) -> Option<Hull> {
    fields::refuse_unknown(f, map, at, &["name", "material", "points"]);
    let name = read_id(f, map, at, "name");
    let material = read_id(f, map, at, "material");
    let p = child(at, "points");
    let items = fields::required(f, map, at, "points").and_then(|v| fields::array(f, v, &p))?;
    if items.len() < 4 || items.len() > MAX_HULL_POINTS {
        f.error(
            "hull_points",
            &p,
            format!(
                "a hull has 4-{MAX_HULL_POINTS} points; found {}",
                items.len()
            ),
        );
        return None;
    }
    let mut points = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        points.push(read_point::<3>(f, item, &child(&p, i), COORDINATE));
    }
    let points: Option<Vec<_>> = points.into_iter().collect();
    Some(Hull {
        name: name?,
        material: material?,
        points: points?,
    })
}

fn read_aperture(
    f: &mut Findings,
    map: &serde_json::Map<String, Value>,
    at: &str,
) -> Option<Aperture> {
    fields::refuse_unknown(
        f,
        map,
        at,
        &["name", "kind", "centre_m", "axis", "width_m", "height_m"],
    );
    let name = read_id(f, map, at, "name");
    let kind = fields::required(f, map, at, "kind")
        .and_then(|v| fields::string(f, v, &child(at, "kind")))
        .and_then(|k| match k {
            "door" => Some(ApertureKind::Door),
            "window" => Some(ApertureKind::Window),
            other => {
                f.error(
                    "bad_aperture",
                    &child(at, "kind"),
                    format!("aperture kind {other:?} is unknown; use \"door\" or \"window\""),
                );
                None
            }
        });
    let axis = fields::required(f, map, at, "axis")
        .and_then(|v| fields::string(f, v, &child(at, "axis")))
        .and_then(|k| match k {
            "x" => Some(Axis::X),
            "y" => Some(Axis::Y),
            other => {
                f.error(
                    "bad_aperture",
                    &child(at, "axis"),
                    format!("axis {other:?} is unknown; an opening faces \"x\" or \"y\""),
                );
                None
            }
        });
    let centre = fields::required(f, map, at, "centre_m")
        .and_then(|v| read_point::<3>(f, v, &child(at, "centre_m"), COORDINATE));
    let width = read_number(f, map, at, "width_m", EXTENT);
    let height = read_number(f, map, at, "height_m", EXTENT);
    Some(Aperture {
        name: name?,
        kind: kind?,
        centre_m: centre?,
        axis: axis?,
        width_m: width?,
        height_m: height?,
    })
}

fn read_support(
    f: &mut Findings,
    map: &serde_json::Map<String, Value>,
    at: &str,
) -> Option<Support> {
    fields::refuse_unknown(f, map, at, &["name", "min_m", "max_m", "height_m", "grade"]);
    let name = read_id(f, map, at, "name");
    let min = fields::required(f, map, at, "min_m")
        .and_then(|v| read_point::<2>(f, v, &child(at, "min_m"), COORDINATE));
    let max = fields::required(f, map, at, "max_m")
        .and_then(|v| read_point::<2>(f, v, &child(at, "max_m"), COORDINATE));
    if let (Some(lo), Some(hi)) = (min, max) {
        if lo[0] >= hi[0] || lo[1] >= hi[1] {
            f.error(
                "bad_support",
                &child(at, "max_m"),
                format!("max_m {hi:?} must be above min_m {lo:?} on both axes"),
            );
        }
    }
    let height = read_number(f, map, at, "height_m", COORDINATE);
    let grade = match fields::optional(map, "grade") {
        None => Some([0.0, 0.0]),
        Some(v) => read_point::<2>(f, v, &child(at, "grade"), GRADE),
    };
    Some(Support {
        name: name?,
        min_m: min?,
        max_m: max?,
        height_m: height?,
        grade: grade?,
    })
}

fn read_join(f: &mut Findings, map: &serde_json::Map<String, Value>, at: &str) -> Option<Join> {
    fields::refuse_unknown(f, map, at, &["name", "edge", "height_m"]);
    let name = read_id(f, map, at, "name");
    let edge = fields::required(f, map, at, "edge")
        .and_then(|v| fields::string(f, v, &child(at, "edge")))
        .and_then(|e| match e {
            "+x" => Some(Edge::PlusX),
            "-x" => Some(Edge::MinusX),
            "+y" => Some(Edge::PlusY),
            "-y" => Some(Edge::MinusY),
            other => {
                f.error(
                    "bad_join",
                    &child(at, "edge"),
                    format!("edge {other:?} is unknown; use +x, -x, +y or -y"),
                );
                None
            }
        });
    let height = read_number(f, map, at, "height_m", COORDINATE);
    Some(Join {
        name: name?,
        edge: edge?,
        height_m: height?,
    })
}

fn read_waiver(f: &mut Findings, map: &serde_json::Map<String, Value>, at: &str) -> Option<Waiver> {
    fields::refuse_unknown(f, map, at, &["check", "reason", "reviewed_by"]);
    let mut text = |key: &str| {
        let p = child(at, key);
        let s = fields::required(f, map, at, key).and_then(|v| fields::string(f, v, &p))?;
        if s.trim().is_empty() {
            f.error(
                "bad_waiver",
                &p,
                format!("a waiver's {key} cannot be blank"),
            );
            return None;
        }
        Some(s.to_string())
    };
    let check = text("check");
    let reason = text("reason");
    let reviewed_by = text("reviewed_by");
    Some(Waiver {
        check: check?,
        reason: reason?,
        reviewed_by: reviewed_by?,
    })
}

fn read_frame(f: &mut Findings, value: &Value, at: &str) -> Option<Frame> {
    let map = fields::object(f, value, at)?;
    fields::refuse_unknown(f, map, at, &["position_m", "heading_deg"]);
    let position = fields::required(f, map, at, "position_m")
        .and_then(|v| read_point::<3>(f, v, &child(at, "position_m"), COORDINATE));
    let heading = read_number(f, map, at, "heading_deg", HEADING);
    Some(Frame {
        position_m: position?,
        heading_deg: heading?,
    })
}

fn read_connectors(f: &mut Findings, value: &Value, at: &str) -> Option<Connectors> {
    let map = fields::object(f, value, at)?;
    fields::refuse_unknown(f, map, at, &["entry", "exit", "branches"]);
    let entry =
        fields::required(f, map, at, "entry").and_then(|v| read_frame(f, v, &child(at, "entry")));
    let exit =
        fields::required(f, map, at, "exit").and_then(|v| read_frame(f, v, &child(at, "exit")));
    let branches = match fields::optional(map, "branches") {
        None => Some(Vec::new()),
        Some(v) => {
            let p = child(at, "branches");
            let items = fields::array(f, v, &p)?;
            items
                .iter()
                .enumerate()
                .map(|(i, item)| read_frame(f, item, &child(&p, i)))
                .collect::<Vec<_>>()
                .into_iter()
                .collect()
        }
    };
    Some(Connectors {
        entry: entry?,
        exit: exit?,
        branches: branches?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_manifest;

    fn stock(file: &str) -> String {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../forge-packs/foundry");
        std::fs::read_to_string(dir.join(file)).unwrap()
    }

    /// The document read as one tree, as every document was before its entries were read
    /// one at a time.
    fn as_one_tree(
        text: &str,
        catalog: &Catalog,
        from_models: &[String],
    ) -> Checked<GeometrySource> {
        let (f, source) =
            read_whole("g", text, catalog, from_models).map_err(|e| vec![syntax_error("g", &e)])?;
        match source {
            Some(s) if !f.has_errors() => Ok((s, f.into_vec())),
            _ => Err(f.into_vec()),
        }
    }

    /// What a reader found, to compare: the source, or each finding's code and pointer (a
    /// number out of range is placed at its entry, not at the document's start).
    fn outcome(read: Checked<GeometrySource>) -> Result<GeometrySource, Vec<(String, String)>> {
        read.map(|(source, _)| source).map_err(|found| {
            found
                .iter()
                .map(|d| match d.code {
                    "not_json" => (d.code.to_string(), String::new()),
                    code => (code.to_string(), d.pointer.clone()),
                })
                .collect()
        })
    }

    #[test]
    fn entries_read_one_at_a_time_find_what_the_whole_tree_finds() {
        let (manifest, _) = parse_manifest("m", &stock("mjolnir.json")).unwrap();
        let catalog = manifest.catalog().unwrap();
        let text = stock("source/geometry.json");
        let doc: Value = serde_json::from_str(&text).unwrap();
        let edited = |edit: &dyn Fn(&mut Value)| {
            let mut d = doc.clone();
            edit(&mut d);
            serde_json::to_string_pretty(&d).unwrap()
        };
        let first = catalog.blocks[0].id.clone();
        let cases = vec![
            text.clone(),
            text.replacen("-1.0", "-1e999", 1),
            text.replacen(
                "\"pack\": \"foundry\",",
                "\"pack\": \"foundry\", \"blocks\": 3,",
                1,
            ),
            text[..text.len() / 2].to_string(),
            "[1, 2]".to_string(),
            "{}".to_string(),
            edited(&|d| d["blocks"] = Value::Null),
            edited(&|d| d["blocks"] = serde_json::json!({"x": []})),
            edited(&|d| d["blocks"][0] = Value::from(5)),
            edited(&|d| d["blocks"][1]["id"] = Value::from(first.clone())),
            edited(&|d| d["blocks"][0]["colour"] = Value::from("red")),
            edited(&|d| {
                d["blocks"].as_array_mut().unwrap().remove(0);
            }),
            edited(&|d| d["schema_version"] = Value::from(9)),
            edited(&|d| d["extra"] = Value::from(1)),
            edited(&|d| d["pack"] = Value::from("other")),
        ];
        // A number out of range is placed on its own line of the document, not the entry's.
        let line = text[..text.find("-1.0").unwrap()].matches('\n').count() + 1;
        let found = parse_geometry_entries("g", &cases[1], catalog, &[]).unwrap_err();
        assert!(
            found[0].message.contains(&format!("at line {line} column")),
            "{found:?}"
        );
        for models in [vec![], vec![first.clone()]] {
            for (i, case) in cases.iter().enumerate() {
                let streamed = parse_geometry_entries("g", case, catalog, &models).map(
                    |((source, entries), warnings)| {
                        // Each entry, compact, is its part of the document, in order.
                        let tree: Value = serde_json::from_str(case).unwrap();
                        let parts = tree["blocks"].as_array().unwrap();
                        assert_eq!(entries.len(), parts.len());
                        for (entry, part) in entries.iter().zip(parts) {
                            assert_eq!(entry, &serde_json::to_string(part).unwrap());
                        }
                        (source, warnings)
                    },
                );
                assert_eq!(
                    outcome(streamed),
                    outcome(as_one_tree(case, catalog, &models)),
                    "case {i}, models {models:?}"
                );
            }
        }
    }
}
