//! `mjolnir forge inspect FILE`: reads any format the pipeline writes and prints it.
//! Each format is recognised by its magic (or, for JSON documents, its `format` field).

use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use forge_actor::Actor;
use forge_collision::{CollisionModel, MoppIndex};
use forge_gltf::ImportedMesh;
use forge_mesh::StaticMesh;
use serde_json::{json, Value};

pub fn inspect(path: &Path, as_json: bool) -> Result<i32> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let fail = |e: String| anyhow!("{}: {e}", path.display());
    let (summary, text) = if bytes.starts_with(b"FGIM") {
        imported_mesh(&ImportedMesh::from_bytes(&bytes).map_err(fail)?)
    } else if bytes.starts_with(b"FMSH") {
        static_mesh(&StaticMesh::from_bytes(&bytes).map_err(fail)?)
    } else if bytes.starts_with(b"FCOL") {
        collision(&CollisionModel::from_bytes(&bytes).map_err(fail)?)
    } else if bytes.starts_with(b"FMOP") {
        mopp(&MoppIndex::from_bytes(&bytes).map_err(fail)?).map_err(fail)?
    } else if bytes.starts_with(b"FPOL") {
        polyhedra(&forge_collision::polyhedron::from_bytes(&bytes).map_err(fail)?)
    } else if bytes.starts_with(b"{")
        && bytes
            .windows(forge_actor::FORMAT.len())
            .any(|w| w == forge_actor::FORMAT.as_bytes())
    {
        let actor = Actor::from_json(&bytes).map_err(fail)?;
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
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{text}");
    }
    Ok(0)
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

fn mopp(index: &MoppIndex) -> Result<(Value, String), String> {
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
