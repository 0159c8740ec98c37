//! `map`: a configured map (`[[map]]` in `pipeline.toml`) checked against the packs this
//! cook built: the palette bake's checks, the layout's palette entries, bounds and budget,
//! a circuit's docking and closure, and a top-down overview for the report. Its outputs go
//! to `<out>/maps/<map>/`. Planned only for full cooks that build every pack the map uses.

use std::collections::{BTreeMap, BTreeSet};

use forge_contract::{parse_manifest, Diagnostic};
use forge_iostore::ids::{self, ChunkId};
use forge_map::circuit::{walk, PlacedPiece};
use forge_map::overview::Footprint;
use forge_map::{Layout, Level, PackRelease};
use serde_json::{json, Value};

use super::common::{pretty, source_file, text};
use super::kind::{Lands, Scope};
use super::{block_geometry, catalog, crate_index, geometry};
use crate::graph::Input;
use crate::wiring::Wiring;
use crate::wiring::{StepKind, Wired};
use engine::{CookCtx, Cooked, Cooker, Inputs, Names};
use findings::finding;

pub static KIND: StepKind = StepKind {
    cooker: Cooker {
        name: "map",
        version: 2, // 2: the layout for the report's 3D view
        outputs: Names::Fixed(|_| {
            vec![
                PALETTE.to_string(),
                CHECKS.to_string(),
                OVERVIEW.to_string(),
                VIEW_SCRIPT.to_string(),
            ]
        }),
        runs_under_check: false,
        splices: None,
        cook,
    },
    scope: Scope::Map,
    lands: Lands::Map,
    wire,
};

pub const LEVEL: &str = "level.json";
const LAYOUT: &str = "layout.json";
pub const PALETTE: &str = "palette.json";
pub const CHECKS: &str = "checks.json";
pub const OVERVIEW: &str = "overview.png";
/// The placed pieces, for the report's 3D view (`docs/formats/view.md`).
pub const VIEW_SCRIPT: &str = "layout.view.js";
const OVERVIEW_SIZE: u32 = 512;

fn catalog_input(pack: &str) -> String {
    format!("{pack}/{}", catalog::MANIFEST)
}

fn container_input(pack: &str) -> String {
    format!("{pack}/{}", crate_index::OUTPUT)
}

fn geometry_input(pack: &str, block: &str) -> String {
    format!("{pack}/{block}/{}", geometry::SHIPPED_AS)
}

/// A listed pack's slug and its block ids.
type Listed = (String, Vec<String>);

/// The level's packs and blocks, and its layout file, read for wiring only: the step
/// validates the level.
fn listed(w: &Wiring) -> Option<(Vec<Listed>, Option<String>)> {
    let text = mjolnir_files::bounded::read_text(&w.sources.pack.dir.join(LEVEL), 64 << 20).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    let packs = value["blam"]["forge_packs"]
        .as_array()?
        .iter()
        .filter_map(|p| {
            // A block is `{"id", "tag"}`, or its id alone.
            let blocks = p["blocks"]
                .as_array()?
                .iter()
                .filter_map(|b| b.as_str().or(b["id"].as_str()).map(str::to_string))
                .collect();
            Some((p["slug"].as_str()?.to_string(), blocks))
        });
    Some((
        packs.collect(),
        value["layout"].as_str().map(str::to_string),
    ))
}

fn wire(w: &Wiring) -> Option<Wired> {
    let mut inputs = vec![w.source(LEVEL)];
    let (packs, layout) = listed(w).unwrap_or_default();
    if let Some(layout) = layout.filter(|l| w.has_source(l)) {
        inputs.push(Input::Source {
            name: LAYOUT.to_string(),
            path: w.sources.pack.dir.join(layout),
        });
    }
    for (pack, blocks) in &packs {
        // A map whose packs this cook does not build (`--pack`) is left out of it.
        inputs.push(w.upstream_of_pack(
            pack,
            None,
            catalog_input(pack),
            &catalog::KIND,
            catalog::MANIFEST,
        )?);
        // The container's chunk ids, not the container: a block's edit changes the
        // container, but not which crates it holds, so the map is not baked again.
        inputs.push(w.upstream_of_pack(
            pack,
            None,
            container_input(pack),
            &crate_index::KIND,
            crate_index::OUTPUT,
        )?);
        for block in blocks {
            // A block the catalog lacks has no geometry; the bake names it.
            inputs.extend(block_geometry::of_pack_block(
                w,
                pack,
                block,
                geometry_input(pack, block),
            ));
        }
    }
    Wired::inputs(inputs)
}

fn cook(_step: &CookCtx, inputs: &Inputs) -> Cooked {
    let file = source_file(LEVEL);
    let text_of_level = text(inputs, LEVEL, &file)?;
    let level = forge_map::parse_level(&file, text_of_level)?;
    let manifests = manifests(&level, inputs)?;
    let releases: Vec<PackRelease> = manifests
        .iter()
        .filter_map(|m| {
            Some(PackRelease {
                version: m.version.clone(),
                catalog: m.catalog()?,
            })
        })
        .collect();
    let crates = crates(&level, inputs, &file)?;
    let palette = forge_map::bake(&file, text_of_level, &level, &releases, &crates)?;
    let layout = match inputs.get(LAYOUT) {
        Some(_) => {
            let layout_file = source_file(level.layout.as_deref().unwrap_or(LAYOUT));
            forge_map::check_layout(
                &layout_file,
                text(inputs, LAYOUT, &layout_file)?,
                &level,
                &palette,
            )?
        }
        None => Layout {
            format: forge_map::layout::FORMAT.to_string(),
            objects: Vec::new(),
        },
    };
    if let Some(expect) = &level.expect {
        let catalogs: Vec<&forge_contract::Catalog> = releases.iter().map(|r| r.catalog).collect();
        let stated = forge_map::expect::check(&file, text_of_level, expect, &layout, &catalogs);
        if !stated.is_empty() {
            return Err(stated);
        }
    }
    let blocks = block_geometry(&level, inputs)?;
    let circuit = if level.circuit {
        Some(circuit(&layout, &blocks)?)
    } else {
        None
    };
    let footprints: BTreeMap<String, Footprint> = blocks
        .iter()
        .map(|(name, g)| (name.clone(), forge_map::overview::footprint(g)))
        .collect();
    let checks = json!({
        "format": "mjolnir-map-checks",
        "map": level.name,
        "objects": layout.objects.len(),
        "object_budget": level.object_budget,
        "palette": {"standard": palette.standard.len(), "custom": palette.custom.len()},
        "circuit": circuit,
    });
    Ok(vec![
        (
            PALETTE.to_string(),
            pretty(&serde_json::to_value(&palette).expect("serializes")),
        ),
        (CHECKS.to_string(), pretty(&checks)),
        (
            OVERVIEW.to_string(),
            forge_map::overview::render(&level, &layout, &footprints, OVERVIEW_SIZE),
        ),
        (VIEW_SCRIPT.to_string(), view_script(&level, &layout)),
    ])
}

/// `MJOLNIR_VIEW.map(slug, layout);`: the pack pieces the layout places (standard entries
/// have no model here), which the viewer draws from each block's own view.
fn view_script(level: &Level, layout: &Layout) -> Vec<u8> {
    let placed: Vec<Value> = layout
        .objects
        .iter()
        .filter(|o| o.palette.contains('/'))
        .map(|o| json!({"palette": o.palette, "position_m": o.position_m, "yaw_deg": o.yaw_deg}))
        .collect();
    let view = json!({
        "format": "mjolnir-map-view",
        "version": 1,
        "map": level.name,
        "bounds_m": level.bounds_m,
        "placed": placed,
    });
    format!(
        "{}.map({},{});\n",
        super::view::PAGE_GLOBAL,
        json!(level.slug),
        serde_json::to_string(&view).expect("a map view serializes")
    )
    .into_bytes()
}

fn manifests(
    level: &Level,
    inputs: &Inputs,
) -> Result<Vec<forge_contract::Manifest>, Vec<Diagnostic>> {
    level
        .blam
        .forge_packs
        .iter()
        .filter(|p| inputs.contains_key(&catalog_input(&p.slug)))
        .map(|p| {
            let file = source_file(&catalog_input(&p.slug));
            parse_manifest(&file, text(inputs, &catalog_input(&p.slug), &file)?).map(|(m, _)| m)
        })
        .collect()
}

/// The listed crates the packs' containers hold, found by chunk id.
fn crates(level: &Level, inputs: &Inputs, file: &str) -> Result<BTreeSet<String>, Vec<Diagnostic>> {
    let mut held = BTreeSet::new();
    for pack in &level.blam.forge_packs {
        let Some(list) = inputs.get(&container_input(&pack.slug)) else {
            continue;
        };
        let chunks: BTreeSet<String> = serde_json::from_slice(list)
            .map_err(|e| vec![finding("bad_intermediate", file, e.to_string())])?;
        for block in &pack.blocks {
            let package = forge_map::crate_package(&pack.slug, &block.id);
            let id = ChunkId::new(ids::name_hash(&package), 0, ids::BULK_DATA);
            if chunks.contains(&crate_index::hex(&id)) {
                held.insert(package);
            }
        }
    }
    Ok(held)
}

/// Each listed block's geometry, by palette name (`<pack>/<block>`).
fn block_geometry(
    level: &Level,
    inputs: &Inputs,
) -> Result<BTreeMap<String, forge_contract::BlockGeometry>, Vec<Diagnostic>> {
    let mut out = BTreeMap::new();
    for pack in &level.blam.forge_packs {
        for block in &pack.blocks {
            let name = geometry_input(&pack.slug, &block.id);
            if let Some(bytes) = inputs.get(&name) {
                let text = std::str::from_utf8(bytes)
                    .map_err(|_| vec![finding("not_utf8", &name, "not UTF-8")])?;
                out.insert(
                    format!("{}/{}", pack.slug, block.id),
                    forge_contract::geometry::parse_block(&name, text)?,
                );
            }
        }
    }
    Ok(out)
}

/// The layout's road pieces, in order, must dock and close.
fn circuit(
    layout: &Layout,
    blocks: &BTreeMap<String, forge_contract::BlockGeometry>,
) -> Result<Value, Vec<Diagnostic>> {
    let file = source_file(LAYOUT);
    let pieces: Vec<(usize, PlacedPiece)> = layout
        .objects
        .iter()
        .enumerate()
        .filter_map(|(i, o)| {
            let c = blocks.get(&o.palette)?.connectors.clone()?;
            Some((
                i,
                PlacedPiece {
                    entry: c.entry,
                    exit: c.exit,
                    position_m: o.position_m,
                    yaw_deg: o.yaw_deg,
                },
            ))
        })
        .collect();
    let (indices, pieces): (Vec<usize>, Vec<PlacedPiece>) = pieces.into_iter().unzip();
    let walked = walk(&pieces);
    if let Some(i) = walked.undocked {
        return Err(vec![finding(
            "circuit_undocked",
            &file,
            format!(
                "object {} does not sit on the previous road piece's exit (within 1 cm and 0.01°)",
                indices[i]
            ),
        )]);
    }
    if pieces.is_empty() || walked.closure_m > 0.01 || walked.closure_deg > 0.01 {
        return Err(vec![finding(
            "circuit_open",
            &file,
            format!(
                "the course does not close: it ends {:.3} m and {:.3}° from its start",
                walked.closure_m, walked.closure_deg
            ),
        )]);
    }
    Ok(
        json!({"pieces": pieces.len(), "length_m": (walked.length_m * 1000.0).round() / 1000.0, "closure_m": walked.closure_m}),
    )
}
