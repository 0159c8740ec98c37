//! `mjolnir forge inspect FILE`: reads any format the pipeline writes and prints it.
//! Each format is recognised by its magic (or, for JSON documents, its `format` field).

use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use forge_actor::Actor;
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
