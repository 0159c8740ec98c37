//! `mjolnir forge inspect FILE`: reads any format the pipeline writes and prints it.
//! Each format is recognised by its magic (or, for JSON documents, its `format` field).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use forge_actor::Actor;
use forge_collision::{CollisionModel, MoppIndex};
use forge_gltf::ImportedMesh;
use forge_mesh::StaticMesh;
use serde_json::{json, Value};

mod package;

/// A reader's error, placed at the file.
fn fail<E: std::fmt::Display>(path: &Path) -> impl Fn(E) -> anyhow::Error + '_ {
    move |e| anyhow!("{}: {e}", path.display())
}

/// The largest file `inspect` reads: a game's `.ucas` can be gigabytes.
const MAX_INSPECTED_BYTES: u64 = 16 << 30;

pub fn inspect(path: &Path, as_json: bool, global: Option<&Path>) -> Result<i32> {
    let bytes = mjolnir_files::bounded::read(path, MAX_INSPECTED_BYTES)
        .map_err(|e| anyhow::anyhow!("error[{}]: cannot read {}: {e}", e.code(), path.display()))?;
    let is_package = path
        .extension()
        .is_some_and(|x| x == "uasset" || x == "umap");
    let (summary, text) = if is_package {
        let parsed = forge_package::Package::read(&bytes).map_err(fail(path))?;
        package::summary(&parsed, &package::Names::load(global)?)
    } else if bytes.starts_with(b"FGIM") {
        imported_mesh(&ImportedMesh::from_bytes(&bytes).map_err(fail(path))?)
    } else if bytes.starts_with(b"FMSH") {
        static_mesh(&StaticMesh::from_bytes(&bytes).map_err(fail(path))?)
    } else if bytes.starts_with(forge_iostore::toc::MAGIC) {
        return container(path, &bytes, as_json);
    } else if bytes.starts_with(b"FPCK") {
        packed_chunks(&forge_iostore::packed::from_bytes(&bytes).map_err(fail(path))?)
    } else if bytes.starts_with(b"FBLK") {
        let index = forge_release::container::IndexedBlockChunks::from_bytes(&bytes);
        block_index(&index.map_err(fail(path))?)
    } else if bytes.starts_with(b"FGRP") {
        group(&forge_release::group::from_bytes(&bytes).map_err(fail(path))?)
    } else if bytes.starts_with(b"MJSP") {
        recipe(&engine::Recipe::from_bytes(&bytes).map_err(fail(path))?)
    } else if bytes.starts_with(b"PK\x03\x04") {
        archive(&bytes).map_err(fail(path))?
    } else if let Some(tag) = tag_group(&bytes) {
        let parsed = forge_tags::Tag::from_bytes(&bytes).map_err(fail(path))?;
        let (mut summary, mut text) = tag_summary(&tag, &parsed);
        if tag == forge_tags::CRATE {
            if let Some(visuals) = block_visuals(path) {
                text.push_str(&visuals_text(&visuals));
                summary["visuals"] = visuals;
            }
        }
        (summary, text)
    } else if bytes.starts_with(b"glTF") {
        glb_nodes(
            &forge_gltf::read_glb_nodes(&path.display().to_string(), &bytes).map_err(fail(path))?,
        )
    } else if let Some(view) = view_rays(&bytes) {
        view
    } else if let Some(script) = bytes.strip_prefix(VIEW_SCRIPT_START) {
        view_script(path, script)?
    } else if let Some(script) = bytes.strip_prefix(MAP_VIEW_START) {
        map_view(path, script)?
    } else if bytes.starts_with(b"FCOL") {
        collision(&CollisionModel::from_bytes(&bytes).map_err(fail(path))?)
    } else if bytes.starts_with(b"FMOP") {
        mopp(&MoppIndex::from_bytes(&bytes).map_err(fail(path))?).map_err(fail(path))?
    } else if bytes.starts_with(b"FPOL") {
        polyhedra(&forge_collision::polyhedron::from_bytes(&bytes).map_err(fail(path))?)
    } else if let Some(ledger) = engine::spare::inspect_ledger(path, &bytes) {
        ledger
    } else if bytes.starts_with(b"{")
        && bytes
            .windows(forge_actor::FORMAT.len())
            .any(|w| w == forge_actor::FORMAT.as_bytes())
    {
        let actor = Actor::from_json(&bytes).map_err(fail(path))?;
        let text = format!(
            "actor v{} of {}/{}\n  class     {}\n  origin    {}\n  mesh      {} at {:?} cm, collision {}\n{}{}{}{}",
            actor.version,
            actor.pack,
            actor.block,
            actor.class_path,
            actor.origin,
            actor.mesh.asset,
            actor.mesh.relative_location_cm,
            actor.mesh.collision,
            actor.light.as_ref().map_or(String::new(), |l| format!("  light     {} cd, radius {} cm at {:?} cm\n", l.intensity, l.attenuation_radius_cm, l.relative_location_cm)),
            actor.lift.as_ref().map_or(String::new(), |l| format!("  lift      travels {:?} cm at {} cm/s\n", l.travel_cm, l.speed_cm_s)),
            actor.door.as_ref().map_or(String::new(), |d| format!("  door      fills {:?}, slides {:?} cm\n", d.aperture, d.slide_cm)),
            actor.surfaces.iter().map(|s| format!("  surface   {:?}: {} at opacity {}\n", s.slot, s.profile, s.opacity)).collect::<String>(),
        );
        (serde_json::to_value(&actor)?, text)
    } else {
        bail!(
            "{}: not a format this pipeline writes (unknown magic)",
            path.display()
        )
    };
    if as_json {
        print!("{}", json_out::pretty_text(&summary));
    } else {
        print!("{text}");
    }
    Ok(0)
}

/// A block's packed container chunk index (`FPCK`): each chunk's id, path, size, blocks,
/// and where they are in the block's `chunks.data`.
fn packed_chunks(chunks: &[forge_iostore::IndexedChunk]) -> (Value, String) {
    let mut text = format!("packed chunks: {}\n", chunks.len());
    let listed: Vec<Value> = chunks
        .iter()
        .map(|c| {
            let stored: u64 = c.blocks.iter().map(|b| u64::from(b.stored_size)).sum();
            let zlib = c.blocks.iter().filter(|b| b.method == 1).count();
            let id: String = c.id.0.iter().map(|b| format!("{b:02x}")).collect();
            text.push_str(&format!(
                "  {id}  {} B in {} blocks ({zlib} zlib, {stored} B stored at {})  {}\n",
                c.length,
                c.blocks.len(),
                c.data_offset,
                c.path.as_deref().unwrap_or("-")
            ));
            json!({"id": id, "path": c.path, "bytes": c.length, "blocks": c.blocks.len(), "zlib_blocks": zlib, "stored_bytes": stored, "data_offset": c.data_offset, "data_bytes": c.data_len()})
        })
        .collect();
    (json!({"format": "FPCK", "chunks": listed}), text)
}

/// A block's index in its set's container (`FBLK`): its packages' and its tags' packed
/// chunks, and the container header's store entry of each package.
fn block_index(index: &forge_release::container::IndexedBlockChunks) -> (Value, String) {
    let (packages, packages_text) = packed_chunks(&index.packages);
    let (tags, tags_text) = packed_chunks(&index.tags);
    let mut text = format!("block chunk index\npackages: {packages_text}tags: {tags_text}");
    text.push_str(&format!("store entries: {}\n", index.store.len()));
    let store: Vec<Value> = index
        .store
        .iter()
        .map(|(package, imports)| {
            text.push_str(&format!("  {package:016x} imports {}\n", imports.len()));
            json!({"package": package, "imports": imports})
        })
        .collect();
    let summary = json!({
        "format": "FBLK",
        "packages": packages["chunks"],
        "tags": tags["chunks"],
        "store": store,
    });
    (summary, text)
}

/// A group of a large set's blocks' files (`FGRP`, `block_group`): each block's name and
/// the size and kind (its first four bytes, or JSON) of its file.
fn group(entries: &[(&str, &[u8])]) -> (Value, String) {
    let mut text = format!(
        "group of {} blocks' files
",
        entries.len()
    );
    let listed: Vec<Value> = entries
        .iter()
        .map(|(block, bytes)| {
            let kind = match bytes.first() {
                Some(b'{') => "JSON".to_string(),
                _ => String::from_utf8_lossy(&bytes[..bytes.len().min(4)]).into_owned(),
            };
            text.push_str(&format!(
                "  {block}: {} B ({kind})
",
                bytes.len()
            ));
            json!({"block": block, "size": bytes.len(), "kind": kind})
        })
        .collect();
    (json!({"format": "FGRP", "blocks": listed}), text)
}

/// A spliced output's recipe (`MJSP`, as the cache stores a set's `.ucas`): what it
/// copies from and how long the output is.
fn recipe(recipe: &engine::Recipe) -> (Value, String) {
    let mut text = format!(
        "spliced output: {} B in {} pieces, from {} inputs\n",
        recipe.len(),
        recipe.piece_count(),
        recipe.sources().len()
    );
    let hashes: Vec<Option<String>> = recipe.source_hashes().collect();
    for (source, hash) in recipe.sources().iter().zip(&hashes) {
        let hash = hash.as_deref().unwrap_or("(unbound)");
        text.push_str(&format!("  {source}  {hash}\n"));
    }
    let sources: Vec<Value> = recipe
        .sources()
        .iter()
        .zip(&hashes)
        .map(|(name, hash)| json!({"name": name, "blake3": hash}))
        .collect();
    let summary = json!({"format": "MJSP", "bytes": recipe.len(), "pieces": recipe.piece_count(), "sources": sources});
    (summary, text)
}

/// The most an archive's members may hold in all, as the Hub's scan allows.
const MAX_ARCHIVE_MEMBERS_BYTES: u64 = 256 << 20;

/// A `.mjolnir` release: its members, its manifest and its signature, as the Hub's scan
/// reads them (signed or not).
fn archive(bytes: &[u8]) -> Result<(Value, String)> {
    let members = forge_release::archive::read_members(bytes, |_| true, MAX_ARCHIVE_MEMBERS_BYTES)?;
    let report = forge_release::scan::scan(
        bytes,
        &forge_release::scan::ScanOptions {
            allow_unsigned: true,
            ..Default::default()
        },
    );
    let manifest: Value = members
        .get("mjolnir.json")
        .and_then(|m| serde_json::from_slice(m).ok())
        .unwrap_or(Value::Null);
    let blocks = forge_contract::document::catalog_entries(&manifest).len();
    let mut text = format!(
        "release {} {}
  name      {}
  blocks    {blocks}
  signer    {}
",
        manifest["slug"]
            .as_str()
            .or(forge_contract::document::catalog_id(&manifest))
            .unwrap_or("?"),
        manifest["version"].as_str().unwrap_or("?"),
        manifest["name"].as_str().unwrap_or("?"),
        report.signer.as_deref().unwrap_or("none (unsigned)"),
    );
    for (name, data) in &members {
        text.push_str(&format!(
            "  member    {name} ({} bytes)
",
            data.len()
        ));
    }
    for f in &report.findings {
        text.push_str(&format!(
            "  finding   {:?} {}: {}
",
            f.severity, f.code, f.message
        ));
    }
    let listed: Vec<Value> = members
        .iter()
        .map(|(name, data)| json!({"name": name, "bytes": data.len()}))
        .collect();
    let summary = json!({"format": "mjolnir-release", "manifest": manifest, "members": listed,
        "signer": report.signer, "signer_key": report.signer_key, "findings": report.findings});
    Ok((summary, text))
}

fn sections(list: impl Iterator<Item = (String, u32, u32)>) -> (Vec<Value>, String) {
    let mut text = String::new();
    let values = list
        .map(|(material, first, count)| {
            text.push_str(&format!(
                "  section   {material:?}: triangles {first}..{}\n",
                first + count
            ));
            json!({"material": material, "first_triangle": first, "triangles": count})
        })
        .collect();
    (values, text)
}

fn imported_mesh(mesh: &ImportedMesh) -> (Value, String) {
    let (lo, hi) = mesh.bounds().unwrap_or(([0.0; 3], [0.0; 3]));
    let (secs, sec_text) = sections(
        mesh.sections
            .iter()
            .map(|s| (s.material.clone(), s.first_triangle, s.triangle_count)),
    );
    let summary = json!({
        "format": "imported-mesh",
        "version": forge_gltf::FORMAT_VERSION,
        "vertices": mesh.positions.len(),
        "triangles": mesh.triangles.len(),
        "bounds_m": {"min": lo, "max": hi},
        "sections": secs,
    });
    let text = format!(
        "imported mesh v{} (pack space, metres)\n  vertices  {}\n  triangles {}\n  bounds    {lo:?} .. {hi:?} m\n  size      {:?} m\n{sec_text}",
        forge_gltf::FORMAT_VERSION,
        mesh.positions.len(),
        mesh.triangles.len(),
        [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]]
    );
    (summary, text)
}

fn static_mesh(mesh: &StaticMesh) -> (Value, String) {
    let (lo, hi) = mesh.bounds_cm();
    let (secs, sec_text) = sections(
        mesh.sections
            .iter()
            .map(|s| (s.material.clone(), s.first_triangle, s.triangle_count)),
    );
    let summary = json!({
        "format": "static-mesh",
        "version": forge_mesh::FORMAT_VERSION,
        "asset": mesh.asset_path,
        "offset_cm": mesh.offset_cm,
        "vertices": mesh.positions.len(),
        "triangles": mesh.triangles.len(),
        "bounds_cm": {"min": lo, "max": hi},
        "sections": secs,
    });
    let text = format!(
        "static mesh v{} {}\n  offset    {:?} cm (where the actor places it)\n  vertices  {}\n  triangles {}\n  bounds    {lo:?} .. {hi:?} cm\n{sec_text}",
        forge_mesh::FORMAT_VERSION,
        mesh.asset_path,
        mesh.offset_cm,
        mesh.positions.len(),
        mesh.triangles.len()
    );
    (summary, text)
}

fn collision(model: &CollisionModel) -> (Value, String) {
    let regions: Vec<Value> = model
        .regions
        .iter()
        .map(|r| {
            let b = &r.bsp;
            json!({"name": r.name, "permutation": r.permutation, "bsp3d_nodes": b.nodes.len(), "planes": b.planes.len(), "leaves": b.leaves.len(),
                   "bsp2d_references": b.references.len(), "bsp2d_nodes": b.bsp2d_nodes.len(), "surfaces": b.surfaces.len(), "edges": b.edges.len(), "vertices": b.vertices.len()})
        })
        .collect();
    let (lo, hi) = model.bounds_m().unwrap_or(([0.0; 3], [0.0; 3]));
    let mut text = format!(
        "collision model: {} regions, materials {:?}\n  bounds    {lo:?} .. {hi:?} m\n",
        model.regions.len(),
        model.materials
    );
    for r in &model.regions {
        let b = &r.bsp;
        text.push_str(&format!(
            "  region {:?}/{}: {} nodes, {} planes, {} leaves, {} bsp2d refs, {} bsp2d nodes, {} surfaces, {} edges, {} vertices\n",
            r.name, r.permutation, b.nodes.len(), b.planes.len(), b.leaves.len(), b.references.len(), b.bsp2d_nodes.len(), b.surfaces.len(), b.edges.len(), b.vertices.len()
        ));
    }
    (
        json!({"format": "collision-model", "version": forge_collision::BSP_VERSION, "materials": model.materials, "bounds_m": {"min": lo, "max": hi}, "regions": regions}),
        text,
    )
}

fn mopp(index: &MoppIndex) -> Result<(Value, String), forge_bytes::ReadError> {
    let stats = index.mopp.stats()?;
    let summary = json!({
        "format": "mopp-index",
        "version": forge_collision::MOPP_VERSION,
        "primitives": index.primitives.len(),
        "origin_wu": index.mopp.origin,
        "scale": index.mopp.scale,
        "code_bytes": stats.code_bytes,
        "leaves": stats.leaves,
        "max_depth": stats.max_depth,
        "mean_depth": stats.mean_depth,
        "terminals_per_leaf": stats.terminals_per_leaf,
    });
    let text = format!(
        "MOPP index: {} primitives\n  code      {} bytes\n  depth     max {}, mean {:.1}\n  leaves    {} ({} terminal per leaf)\n  frame     origin {:?} WU, {} units per WU\n",
        index.primitives.len(),
        stats.code_bytes,
        stats.max_depth,
        stats.mean_depth,
        stats.leaves,
        stats.terminals_per_leaf,
        index.mopp.origin,
        index.mopp.scale
    );
    Ok((summary, text))
}

/// A `.glb`'s nodes: a 3D view's `visual` mesh and `UCX_` hulls, or any other tool's.
fn glb_nodes(nodes: &[forge_gltf::GlbNodeSummary]) -> (Value, String) {
    let values: Vec<Value> = nodes
        .iter()
        .map(|n| json!({"name": n.name, "primitives": n.primitives, "triangles": n.triangles}))
        .collect();
    let mut text = format!("glTF binary: {} nodes\n", nodes.len());
    for n in nodes {
        text.push_str(&format!(
            "  {:?}: {} triangles in {} primitives\n",
            n.name, n.triangles, n.primitives
        ));
    }
    (json!({"format": "glb", "nodes": values}), text)
}

const VIEW_SCRIPT_START: &[u8] = b"MJOLNIR_VIEW.add(";

const MAP_VIEW_START: &[u8] = b"MJOLNIR_VIEW.map(";

/// The arguments of a view script's one call, `<start>(args);\n`, as JSON values.
fn script_arguments(path: &Path, script: &[u8]) -> Result<Vec<Value>> {
    let bad = |why: &str| anyhow::anyhow!("error[view_script]: {}: {why}", path.display());
    let args = script
        .strip_suffix(b");\n")
        .ok_or_else(|| bad("the script does not end with \");\""))?;
    serde_json::from_slice(&[b"[", args, b"]"].concat())
        .map_err(|e| bad(&format!("its arguments are not JSON: {e}")))
}

/// A map's 3D view (`maps/<map>/layout.view.js`): its placed pieces.
fn map_view(path: &Path, script: &[u8]) -> Result<(Value, String)> {
    let args = script_arguments(path, script)?;
    let (Some(slug), Some(placed)) = (
        args.first(),
        args.get(1).and_then(|v| v["placed"].as_array()),
    ) else {
        bail!(
            "error[view_script]: {}: not a map's slug and its placed pieces",
            path.display()
        );
    };
    let mut pieces: BTreeMap<&str, usize> = BTreeMap::new();
    for p in placed {
        *pieces
            .entry(p["palette"].as_str().unwrap_or("?"))
            .or_default() += 1;
    }
    let mut text = format!("3D view of map {slug}: {} placed pieces\n", placed.len());
    for (piece, n) in &pieces {
        text.push_str(&format!("  {n:>4} {piece}\n"));
    }
    Ok((
        json!({"format": "mjolnir-map-view", "map": slug, "placed": placed.len(), "pieces": pieces}),
        text,
    ))
}

/// A 3D view's page script (`<block>.view.js`): `MJOLNIR_VIEW.add(block, glb, rays);`,
/// whose arguments are JSON. Read as the `.glb` and the rays it carries.
fn view_script(path: &Path, script: &[u8]) -> Result<(Value, String)> {
    use base64::Engine;
    let bad = |why: &str| anyhow::anyhow!("error[view_script]: {}: {why}", path.display());
    let args = script_arguments(path, script)?;
    let [block, glb, rays] = args.as_slice() else {
        return Err(bad("it passes other than three arguments"));
    };
    let glb = base64::engine::general_purpose::STANDARD
        .decode(glb.as_str().unwrap_or(""))
        .map_err(|e| bad(&format!("the model is not base64: {e}")))?;
    let nodes =
        forge_gltf::read_glb_nodes(&path.display().to_string(), &glb).map_err(fail(path))?;
    let (glb_summary, glb_text) = glb_nodes(&nodes);
    let (rays_summary, rays_text) = view_rays(&serde_json::to_vec(rays)?)
        .ok_or_else(|| bad("its rays are not a mjolnir-forge-view document"))?;
    let summary = json!({"format": "mjolnir-forge-view-script", "block": block, "glb": glb_summary, "rays": rays_summary});
    Ok((
        summary,
        format!("3D view script of {block}\n{glb_text}{rays_text}"),
    ))
}

/// A 3D view's rays (`<block>.rays.json`): each check with its rays, and how many failed.
fn view_rays(bytes: &[u8]) -> Option<(Value, String)> {
    if !bytes.starts_with(b"{") {
        return None;
    }
    let value: Value = serde_json::from_slice(bytes).ok()?;
    if value["format"] != "mjolnir-forge-view" {
        return None;
    }
    let mut text = format!(
        "3D view v{} of {}\n",
        value["version"],
        value["block"].as_str().unwrap_or("?")
    );
    let mut checks = Vec::new();
    for c in value["checks"].as_array().into_iter().flatten() {
        let rays = c["rays"].as_array().map_or(0, Vec::len);
        let failing = c["rays"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["passed"] == false)
            .count();
        let (check, name) = (
            c["check"].as_str().unwrap_or(""),
            c["name"].as_str().unwrap_or(""),
        );
        text.push_str(&format!(
            "  {check}/{name}: {rays} rays, {failing} failing\n"
        ));
        checks.push(json!({"check": check, "name": name, "rays": rays, "failing": failing}));
    }
    Some((
        json!({"format": "mjolnir-forge-view", "checks": checks}),
        text,
    ))
}

fn polyhedra(list: &[forge_collision::Polyhedron]) -> (Value, String) {
    let values: Vec<Value> = list
        .iter()
        .map(|p| json!({"name": p.name, "vertices": p.vertex_count, "four_vectors": p.four_vectors.len(), "planes": p.planes.len(), "aabb_centre_wu": p.aabb_centre, "aabb_half_extents_wu": p.aabb_half_extents, "radius": p.radius}))
        .collect();
    let mut text = format!("polyhedra: {}\n", list.len());
    for p in list {
        text.push_str(&format!(
            "  {:?}: {} vertices in {} four-vectors, {} planes, half extents {:?} WU\n",
            p.name,
            p.vertex_count,
            p.four_vectors.len(),
            p.planes.len(),
            p.aabb_half_extents
        ));
    }
    (
        json!({"format": "polyhedra", "version": forge_collision::POLYHEDRA_VERSION, "polyhedra": values}),
        text,
    )
}

fn tag_group(bytes: &[u8]) -> Option<[u8; 4]> {
    let head: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
    let group = [head[3], head[2], head[1], head[0]];
    [
        forge_tags::CRATE,
        forge_tags::MODEL,
        forge_tags::PHYSICS_MODEL,
        forge_tags::COLLISION_MODEL,
    ]
    .contains(&group)
    .then_some(group)
}

fn tag_summary(group: &[u8; 4], tag: &forge_tags::Tag) -> (Value, String) {
    let g = forge_tags::definitions::group(group).expect("a known group");
    let mut refs = Vec::new();
    let mut blocks = Vec::new();
    fn walk(
        g: &forge_tags::definitions::GroupDef,
        i: &forge_tags::Instance,
        refs: &mut Vec<Value>,
        blocks: &mut Vec<Value>,
    ) {
        for child in i.children.values() {
            match child {
                forge_tags::Child::Ref(Some(r)) => {
                    refs.push(json!({"group": String::from_utf8_lossy(&r.group), "path": r.path}))
                }
                forge_tags::Child::Block { element, items } => {
                    blocks.push(json!({"struct": g.structs[*element].name, "count": items.len()}));
                    items.iter().for_each(|x| walk(g, x, refs, blocks));
                }
                forge_tags::Child::Data(d) => blocks.push(json!({"data_bytes": d.len()})),
                _ => {}
            }
        }
    }
    walk(g, &tag.root, &mut refs, &mut blocks);
    let mut text = format!(
        "{} tag ({}), root {}\n",
        g.key,
        String::from_utf8_lossy(group),
        g.structs[tag.root.def].name
    );
    for r in &refs {
        text.push_str(&format!(
            "  reference {} {}\n",
            r["group"].as_str().unwrap_or(""),
            r["path"].as_str().unwrap_or("")
        ));
    }
    for b in &blocks {
        text.push_str(&format!("  {}\n", b));
    }
    let mut summary = json!({"format": "tag", "group": String::from_utf8_lossy(group), "name": g.key, "references": refs, "blocks": blocks});
    if *group == forge_tags::PHYSICS_MODEL {
        let bodies = rigid_bodies(tag, &mut text);
        summary["rigid_bodies"] = bodies;
    }
    (summary, text)
}

/// What a cooked block's visuals pull in, from its set's `inventory.json`: a crate at
/// `<set>/cooked/<block>/<block>.crate` is the block's, and the set records its packages.
fn block_visuals(crate_path: &Path) -> Option<Value> {
    let block = crate_path.file_stem()?.to_str()?;
    let set = crate_path.parent()?.parent()?.parent()?;
    let inventory: Value = serde_json::from_slice(
        &mjolnir_files::bounded::read(&set.join("inventory.json"), 64 << 20).ok()?,
    )
    .ok()?;
    let visuals = inventory["visuals"].get(block)?;
    Some(visuals.clone())
}

fn visuals_text(visuals: &Value) -> String {
    let list = |key: &str| -> Vec<String> {
        visuals[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut text = String::from("  visuals (the set's inventory.json):\n");
    for p in list("packages") {
        text.push_str(&format!("    package {p}\n"));
    }
    for p in list("imports") {
        text.push_str(&format!("    imports {p}\n"));
    }
    text
}

/// A physics model's rigid bodies, each walked through its shapes to the polyhedra.
fn rigid_bodies(tag: &forge_tags::Tag, text: &mut String) -> Value {
    match forge_tags::physics::bodies(tag) {
        Ok(bodies) => {
            for (i, b) in bodies.iter().enumerate() {
                text.push_str(&format!(
                    "  rigid body {i}: {}, mass {}, flags {:#06x}, shape {} -> polyhedra {:?}\n",
                    b.motion_type,
                    b.mass,
                    b.flags,
                    b.path.join(" -> "),
                    b.polyhedra
                ));
            }
            bodies
                .iter()
                .map(|b| json!({"motion_type": b.motion_type, "mass": b.mass, "flags": b.flags, "can_use_mopps": b.flags & forge_tags::physics::CAN_USE_MOPPS != 0, "shapes": b.path, "polyhedra": b.polyhedra}))
                .collect()
        }
        Err(e) => {
            text.push_str(&format!("  rigid bodies do not walk: {e}\n"));
            json!({"error": e.to_string()})
        }
    }
}

/// A `.utoc` (with its `.ucas` when beside it): every chunk with its package path, checked
/// the way the game finds it. Exit code 1 when any check fails.
fn container(path: &Path, bytes: &[u8], as_json: bool) -> Result<i32> {
    let toc =
        forge_iostore::Toc::parse(bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let ucas = mjolnir_files::bounded::read(&path.with_extension("ucas"), MAX_INSPECTED_BYTES).ok();
    let checks = forge_iostore::verify(&toc, ucas.as_deref())
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let bad = checks
        .iter()
        .filter(|c| !c.resolves || c.hash_ok == Some(false) || c.package_id_ok == Some(false))
        .count();
    if as_json {
        let chunks: Vec<Value> = checks
            .iter()
            .map(|c| json!({"entry": c.entry, "chunk_id": format!("{:016x}:{:04x}:{:02x}", c.chunk.package_id(), c.chunk.index(), c.chunk.kind()), "path": c.path, "size": c.size,
                            "resolves": c.resolves, "hash_ok": c.hash_ok, "package_id_ok": c.package_id_ok, "unsupported": c.unsupported}))
            .collect();
        print!(
            "{}",
            json_out::pretty_text(
                &json!({"format": "iostore", "version": toc.version, "container_id": format!("{:016x}", toc.container_id), "flags": toc.flags,
            "methods": toc.methods, "seeds": toc.seeds.len(), "overflow": toc.overflow.len(), "ucas": ucas.is_some(), "failures": bad, "chunks": chunks})
            )
        );
    } else {
        println!(
            "IoStore TOC v{} container {:016x}: {} chunks, {} seeds, {} overflow, {} blocks, methods {:?}{}",
            toc.version,
            toc.container_id,
            toc.chunks.len(),
            toc.seeds.len(),
            toc.overflow.len(),
            toc.blocks.len(),
            toc.methods,
            if ucas.is_none() { " (no .ucas beside it: data not checked)" } else { "" }
        );
        for c in &checks {
            let status = match (c.resolves, c.hash_ok, &c.unsupported) {
                (false, _, _) => "NOT FOUND through the perfect hash".to_string(),
                (_, Some(false), _) => "HASH MISMATCH".to_string(),
                (_, _, Some(m)) => format!("{m} blocks: not decompressed here"),
                (_, Some(true), _) => "ok".to_string(),
                (_, None, _) => "resolves".to_string(),
            };
            let pid = if c.package_id_ok == Some(false) {
                " PACKAGE ID MISMATCH"
            } else {
                ""
            };
            println!(
                "  {:4} {:016x}:{:04x}:{:02x} {:>9} B  {}  {status}{pid}",
                c.entry,
                c.chunk.package_id(),
                c.chunk.index(),
                c.chunk.kind(),
                c.size,
                c.path.as_deref().unwrap_or("(no path)")
            );
        }
        println!("{} chunks, {bad} failing", checks.len());
    }
    Ok(if bad > 0 { 1 } else { 0 })
}
