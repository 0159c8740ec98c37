//! `mjolnir forge probe PACK BLOCK`: ray and point queries against a block's collision,
//! for authors asking why they cannot walk through a door. `--via` picks what answers: the
//! cooked BSP, the cooked MOPP (with an exact narrow phase), or parry3d on the source
//! hulls.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use forge_collision::reference::SourceShapes;
use forge_collision::{CollisionModel, MoppIndex};
use serde_json::{json, Value};

use crate::config::Config;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Via {
    Bsp,
    Mopp,
    Source,
}

pub enum Query {
    Ray { origin: [f64; 3], dir: [f64; 3] },
    Point([f64; 3]),
}

/// How far a probe ray looks, in metres.
pub const MAX_DISTANCE_M: f64 = 1000.0;

pub fn parse_vector(text: &str) -> Result<[f64; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let nums: Vec<f64> = parts
        .iter()
        .map(|p| p.parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{text:?} is not X,Y,Z"))?;
    match nums.as_slice() {
        [x, y, z] if nums.iter().all(|n| n.is_finite()) => Ok([*x, *y, *z]),
        _ => Err(format!("{text:?} is not three finite numbers X,Y,Z")),
    }
}

fn cooked_dir(config: &Config, pack: &str, block: &str, set: &str) -> PathBuf {
    crate::layout::cooked_dir(&config.out, pack, set, block)
}

fn load_model(config: &Config, pack: &str, block: &str, set: &str) -> Result<CollisionModel> {
    let path = cooked_dir(config, pack, block, set).join(crate::steps::collision::OUTPUT);
    let bytes = mjolnir_files::bounded::read(&path, MAX_COOKED_BYTES).with_context(|| format!("no cooked collision for {pack}/{block} at {}; run `mjolnir forge cook --pack {pack}` first", path.display()))?;
    CollisionModel::from_bytes(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

fn source_hulls(config: &Config, pack: &str, block: &str) -> Result<Vec<(String, Vec<[f64; 3]>)>> {
    let dir = &config
        .packs
        .iter()
        .find(|p| p.id == pack)
        .with_context(|| format!("pack {pack:?} is not in the configuration"))?
        .dir;
    let file = dir.join("source/geometry.json");
    let text = mjolnir_files::bounded::read_text(&file, MAX_COOKED_BYTES)
        .with_context(|| format!("cannot read {}", file.display()))?;
    let value: Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", file.display()))?;
    let Some((_, b)) = forge_contract::document::geometry_block(&value, block) else {
        bail!("{} has no block {block:?}", file.display());
    };
    let geometry =
        forge_contract::geometry::parse_block(&file.display().to_string(), &b.to_string())
            .map_err(|d| {
                anyhow::anyhow!(
                    "{}",
                    d.iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join("\n")
                )
            })?;
    Ok(geometry
        .hulls
        .into_iter()
        .map(|h| (h.name, h.points))
        .collect())
}

/// The largest cooked collision file probe reads.
const MAX_COOKED_BYTES: u64 = 256 << 20;

/// A query answered by the cooked collision: its BSP, or its MOPP over the BSP's surfaces.
fn cooked_report(
    config: &Config,
    (pack, block, set): (&str, &str, &str),
    query: Query,
    via: Via,
) -> Result<Value> {
    let model = load_model(config, pack, block, set)?;
    let hull_of = |r: usize| {
        model
            .regions
            .get(r)
            .map(|r| r.name.clone())
            .unwrap_or_default()
    };
    let material_of = |r: usize, s: u16| {
        model
            .regions
            .get(r)
            .and_then(|reg| reg.bsp.surfaces.get(s as usize))
            .and_then(|s| model.materials.get(s.material as usize))
            .cloned()
            .unwrap_or_default()
    };
    Ok(match query {
        Query::Point(p) => {
            let inside: Vec<String> = model
                .regions_containing(p)
                .into_iter()
                .map(hull_of)
                .collect();
            json!({"via": via_name(via), "point_m": p, "inside": !inside.is_empty(), "hulls": inside})
        }
        Query::Ray { origin, dir } => {
            let hit = if via == Via::Bsp {
                model.ray(origin, dir, MAX_DISTANCE_M)
            } else {
                let path = cooked_dir(config, pack, block, set).join(crate::steps::mopp::OUTPUT);
                let bytes = mjolnir_files::bounded::read(&path, MAX_COOKED_BYTES)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                let index = MoppIndex::from_bytes(&bytes)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
                index
                    .ray(&model, origin, dir, MAX_DISTANCE_M)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
            };
            let hit = hit.map(|h| json!({"distance_m": h.distance_m, "hull": hull_of(h.region), "surface": h.surface, "material": material_of(h.region, h.surface)}));
            json!({"via": via_name(via), "origin_m": origin, "direction": dir, "hit": hit})
        }
    })
}

/// A query answered by parry3d over the source hulls of `geometry.json`.
fn source_report(config: &Config, (pack, block): (&str, &str), query: Query) -> Result<Value> {
    let hulls = source_hulls(config, pack, block)?;
    let shapes = SourceShapes::new(hulls.iter().map(|(_, p)| p.as_slice()))
        .context("parry3d could not build a hull of the source points")?;
    Ok(match query {
        Query::Point(p) => {
            let inside: Vec<String> = hulls
                .iter()
                .filter(|(_, pts)| {
                    SourceShapes::new([pts.as_slice()]).is_some_and(|s| s.contains(p))
                })
                .map(|(n, _)| n.clone())
                .collect();
            json!({"via": "source", "point_m": p, "inside": !inside.is_empty(), "hulls": inside})
        }
        Query::Ray { origin, dir } => {
            let hit = shapes
                .ray(origin, dir, MAX_DISTANCE_M)
                .map(|(t, h)| json!({"distance_m": t, "hull": hulls[h].0}));
            json!({"via": "source", "origin_m": origin, "direction": dir, "hit": hit})
        }
    })
}

fn print_report(report: &Value, (pack, block): (&str, &str), via: Via) {
    if let Some(inside) = report.get("inside") {
        if inside == true {
            let hulls: Vec<&str> = report["hulls"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            println!(
                "{pack}/{block}: inside hull {} ({})",
                hulls.join(", "),
                via_name(via)
            );
        } else {
            println!("{pack}/{block}: outside every hull ({})", via_name(via));
        }
    } else {
        match &report["hit"] {
            Value::Null => println!(
                "{pack}/{block}: no hit within {MAX_DISTANCE_M} m ({})",
                via_name(via)
            ),
            hit => {
                let surface = hit
                    .get("surface")
                    .map(|s| format!(", surface {s} ({})", hit["material"].as_str().unwrap_or("")))
                    .unwrap_or_default();
                println!(
                    "{pack}/{block}: hit at {:.4} m on hull {}{surface} ({})",
                    hit["distance_m"].as_f64().unwrap_or(0.0),
                    hit["hull"],
                    via_name(via)
                );
            }
        }
    }
}

pub fn probe(
    config: &Config,
    pack: &str,
    block: &str,
    set: &str,
    query: Query,
    via: Via,
    as_json: bool,
) -> Result<i32> {
    let report = match via {
        Via::Bsp | Via::Mopp => cooked_report(config, (pack, block, set), query, via)?,
        Via::Source => source_report(config, (pack, block), query)?,
    };
    if as_json {
        print!("{}", json_out::pretty_text(&report));
    } else {
        print_report(&report, (pack, block), via);
    }
    Ok(0)
}

fn via_name(via: Via) -> &'static str {
    match via {
        Via::Bsp => "bsp",
        Via::Mopp => "mopp",
        Via::Source => "source",
    }
}

/// `mjolnir forge probe`'s arguments.
#[derive(clap::Args)]
pub struct ProbeArgs {
    pub pack: String,
    pub block: String,
    /// Ray origin and direction: X,Y,Z DX,DY,DZ.
    #[arg(long, num_args = 2, value_names = ["X,Y,Z", "DX,DY,DZ"], conflicts_with = "point", required_unless_present = "point", allow_hyphen_values = true)]
    pub ray: Vec<String>,
    /// A point: X,Y,Z.
    #[arg(long, value_name = "X,Y,Z", allow_hyphen_values = true)]
    pub point: Option<String>,
    #[arg(long, value_enum, default_value = "bsp")]
    pub via: crate::probe::Via,
    /// The set folder to read cooked data from.
    #[arg(long, default_value = "all")]
    pub set: String,
    #[arg(long, default_value = "pipeline.toml")]
    pub config: PathBuf,
    #[arg(long)]
    pub json: bool,
}

/// `mjolnir forge probe`: parses the query and asks the block's collision.
pub fn command(args: ProbeArgs) -> Result<i32> {
    let ProbeArgs {
        pack,
        block,
        ray,
        point,
        via,
        set,
        config,
        json,
    } = args;
    let config = Config::load(&config, &crate::config::Overrides::default())?;
    let query = match (point, ray.as_slice()) {
        (Some(p), _) => Query::Point(parse_vector(&p).map_err(anyhow::Error::msg)?),
        (None, [o, d]) => {
            let dir = parse_vector(d).map_err(anyhow::Error::msg)?;
            if dir == [0.0; 3] {
                bail!("the ray direction cannot be zero");
            }
            Query::Ray {
                origin: parse_vector(o).map_err(anyhow::Error::msg)?,
                dir,
            }
        }
        _ => bail!("give --ray X,Y,Z DX,DY,DZ or --point X,Y,Z"),
    };
    probe(&config, &pack, &block, &set, query, via, json)
}
