//! `forge-packgen OUT_DIR`: writes the stock packs' sources under `OUT_DIR/<pack-id>/`.
//!
//! Output is a pure function of this program: same bytes on every run and machine, so the
//! checked-in `forge-packs/` can be compared against a fresh run (a test does).

mod donor_paks;
mod fixture_packages;
mod game_paks;
mod gltf_out;
mod historical;
mod kit;
mod maps;
mod packs;
mod piece;
mod solid;
mod synth;

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{json, Map, Value};

use packs::PackDesign;
use piece::round;
use solid::Role;

const USAGE: &str = "usage: forge-packgen [OUT_DIR]   (the stock packs; default forge-packs)
       forge-packgen synth OUT [--blocks N] [--triangles T] [--hulls H] [--seed S] [--id ID]
       forge-packgen donor-paks DONORS OUT   (a Paks folder holding the donor packages)
       forge-packgen game-paks DONORS OUT [--containers N] [--chunks C]   (a game-sized Paks folder)
       forge-packgen fixture-packages SOURCE.utoc OUT.utoc   (a container's packages only)
       forge-packgen maps [OUT_DIR]   (the stock maps; default forge-maps)";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return Ok(());
    }
    // An option where a folder is expected would otherwise become a folder named after it.
    if let Some(first) = args.first().filter(|a| a.starts_with('-')) {
        anyhow::bail!("unknown option {first}\n{USAGE}");
    }
    if args.first().map(String::as_str) == Some("synth") {
        return synth_main(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("donor-paks") {
        let [donors, out] = &args[1..] else {
            anyhow::bail!("donor-paks needs the donor folder and the output folder\n{USAGE}");
        };
        return donor_paks::write(Path::new(donors), Path::new(out));
    }
    if args.first().map(String::as_str) == Some("game-paks") {
        let (Some(donors), Some(out)) = (args.get(1), args.get(2)) else {
            anyhow::bail!("game-paks needs the donor folder and the output folder\n{USAGE}");
        };
        let number = |name: &str, default: usize| -> Result<usize> {
            match args.iter().position(|a| a == name) {
                Some(i) => Ok(args.get(i + 1).context("a flag needs a value")?.parse()?),
                None => Ok(default),
            }
        };
        let (containers, chunks) = (number("--containers", 300)?, number("--chunks", 4096)?);
        return game_paks::write(Path::new(donors), Path::new(out), containers, chunks);
    }
    if args.first().map(String::as_str) == Some("maps") {
        let out = args.get(1).map_or("forge-maps", String::as_str);
        let historical = historical::crossline_0_2();
        for (map, under) in [
            (maps::canvas(), ""),
            (maps::crossline(), ""),
            (maps::circuit(), ""),
            (historical, "historical"),
        ] {
            let dir = Path::new(out).join(under).join(map.slug);
            write(&dir.join("level.json"), &pretty(&map.level))?;
            write(&dir.join("layout.json"), &pretty(&map.layout))?;
        }
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("fixture-packages") {
        let [source, out] = &args[1..] else {
            anyhow::bail!("fixture-packages needs the source .utoc and the output .utoc\n{USAGE}");
        };
        return fixture_packages::write(Path::new(source), Path::new(out));
    }
    let out = args
        .first()
        .cloned()
        .unwrap_or_else(|| "forge-packs".to_string());
    for pack in [packs::foundry(), packs::foundry_wide(), packs::roadworks()] {
        write_pack(Path::new(&out), &pack).with_context(|| format!("writing pack {}", pack.id))?;
    }
    let historical = Path::new(&out).join("historical");
    write(
        &historical.join("roadworks-0.1/mjolnir.json"),
        &pretty(&historical::roadworks_0_1()),
    )?;
    write(
        &historical.join("foundry-wide-0.1/mjolnir.json"),
        &pretty(&historical::foundry_wide_0_1()),
    )?;
    Ok(())
}

/// `forge-packgen synth OUT [--blocks N] [--triangles T] [--hulls H] [--seed S] [--id ID]`
fn synth_main(args: &[String]) -> Result<()> {
    let out = args.first().context("synth needs an output folder")?;
    let flag = |name: &str, default: u64| -> Result<u64> {
        match args.iter().position(|a| a == name) {
            Some(i) => args
                .get(i + 1)
                .context("a flag needs a value")?
                .parse()
                .with_context(|| format!("{name} takes a number")),
            None => Ok(default),
        }
    };
    let id = args
        .iter()
        .position(|a| a == "--id")
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| "synth".into());
    let blocks = flag("--blocks", 64)? as usize;
    anyhow::ensure!((1..=256).contains(&blocks), "--blocks must be 1-256");
    let s = synth::Synth {
        id,
        blocks,
        triangles: flag("--triangles", 1000)? as usize,
        hulls: (flag("--hulls", 2)? as usize).clamp(1, 64),
        seed: flag("--seed", 1)?,
    };
    let dir = Path::new(out);
    if dir.join("source/models").exists() {
        std::fs::remove_dir_all(dir.join("source/models"))?;
    }
    for (rel, bytes) in synth::files(&s) {
        write(&dir.join(rel), &bytes)?;
    }
    Ok(())
}

fn pretty(value: &Value) -> Vec<u8> {
    let text = json_out::pretty_text(value);
    text.into_bytes()
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

fn manifest(pack: &PackDesign) -> Value {
    let blocks: Vec<Value> = pack
        .pieces
        .iter()
        .map(|p| {
            let mut entry = Map::new();
            entry.insert("id".into(), json!(p.id));
            entry.insert("name".into(), json!(p.name));
            entry.insert(
                "tag".into(),
                json!(format!("objects\\mjolnir\\forge\\{}\\{}", pack.id, p.id)),
            );
            entry.insert("category".into(), json!(p.category));
            entry.insert("dimensions_m".into(), json!(p.dimensions()));
            entry.insert("snap_m".into(), json!(pack.snap_m));
            for (k, v) in &p.extra {
                entry.insert(k.clone(), v.clone());
            }
            Value::Object(entry)
        })
        .collect();
    json!({
        "schema_version": 1,
        "name": pack.name,
        "version": pack.version,
        "type": "content",
        "slug": pack.id,
        "summary": pack.summary,
        "forge_pack": {"schema_version": 1, "id": pack.id, "blocks": blocks}
    })
}

fn geometry(pack: &PackDesign) -> Value {
    let blocks: Vec<Value> = pack
        .pieces
        .iter()
        .map(|p| {
            let hulls: Vec<Value> = p
                .solids
                .iter()
                .filter(|s| s.role != Role::Visual)
                .map(|s| {
                    let points: Vec<[f64; 3]> = s
                        .shape
                        .hull_points()
                        .into_iter()
                        .map(|q| q.map(round))
                        .collect();
                    json!({"name": s.name, "material": s.material, "points": points})
                })
                .collect();
            let mut block = json!({"id": p.id, "origin": pack.origin, "hulls": hulls});
            for (key, list) in [
                ("apertures", &p.apertures),
                ("supports", &p.supports),
                ("joins", &p.joins),
            ] {
                if !list.is_empty() {
                    block[key] = json!(list);
                }
            }
            if let Some(c) = &p.connectors {
                block["connectors"] = c.clone();
            }
            block
        })
        .collect();
    json!({"$schema": "../../../schemas/geometry.schema.json", "schema_version": 1, "pack": pack.id, "blocks": blocks})
}

fn readme(pack: &PackDesign) -> String {
    let mut text = format!(
        "# {} {}\n\n{}\n\n| block | name | dimensions (m) |\n|---|---|---|\n",
        pack.name, pack.version, pack.about
    );
    for p in &pack.pieces {
        let d = p.dimensions();
        text.push_str(&format!(
            "| `{}` | {} | {} x {} x {} |\n",
            p.id, p.name, d[0], d[1], d[2]
        ));
    }
    text.push_str("\nGenerated by `tools/packgen`; edit the generator, not these files.\n");
    text
}

fn changes(pack: &PackDesign) -> Value {
    let tags: Vec<Value> = pack
        .pieces
        .iter()
        .map(|p| json!({"group": "bloc", "tag": format!("objects\\mjolnir\\forge\\{}\\{}", pack.id, p.id), "fields": []}))
        .collect();
    json!({"schema_version": 1, "tags": tags, "textures": [], "scripts": []})
}

fn write_pack(out: &Path, pack: &PackDesign) -> Result<()> {
    let dir = out.join(pack.id);
    let models = dir.join("source/models");
    if models.exists() {
        std::fs::remove_dir_all(&models)?;
    }
    write(&dir.join("mjolnir.json"), &pretty(&manifest(pack)))?;
    write(&dir.join("source/geometry.json"), &pretty(&geometry(pack)))?;
    write(&dir.join("README.md"), readme(pack).as_bytes())?;
    write(&dir.join("changes.json"), &pretty(&changes(pack)))?;
    for p in &pack.pieces {
        for (name, bytes) in gltf_out::encode(&p.id, &p.solids, pack.glb).files {
            write(&models.join(name), &bytes)?;
        }
    }
    Ok(())
}
