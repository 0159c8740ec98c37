//! `mjolnir forge inspect FILE`: reads any format the pipeline writes and prints it.

use std::path::Path;

use anyhow::{bail, Context, Result};
use forge_gltf::ImportedMesh;
use serde_json::json;

pub fn inspect(path: &Path, as_json: bool) -> Result<i32> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.starts_with(b"FGIM") {
        let mesh = ImportedMesh::from_bytes(&bytes)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let (lo, hi) = mesh.bounds().unwrap_or(([0.0; 3], [0.0; 3]));
        let sections: Vec<_> = mesh.sections.iter().map(|s| json!({"material": s.material, "first_triangle": s.first_triangle, "triangles": s.triangle_count})).collect();
        if as_json {
            println!(
                "{}",
                serde_json::to_string_pretty(&json!({
                    "format": "imported-mesh",
                    "version": forge_gltf::FORMAT_VERSION,
                    "vertices": mesh.positions.len(),
                    "triangles": mesh.triangles.len(),
                    "bounds_m": {"min": lo, "max": hi},
                    "sections": sections,
                }))?
            );
        } else {
            println!(
                "imported mesh v{} ({} bytes)",
                forge_gltf::FORMAT_VERSION,
                bytes.len()
            );
            println!("  vertices  {}", mesh.positions.len());
            println!("  triangles {}", mesh.triangles.len());
            println!("  bounds    {lo:?} .. {hi:?} m");
            println!(
                "  size      {:?} m",
                [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]]
            );
            for s in &mesh.sections {
                println!(
                    "  section   {:?}: triangles {}..{}",
                    s.material,
                    s.first_triangle,
                    s.first_triangle + s.triangle_count
                );
            }
        }
        return Ok(0);
    }
    bail!(
        "{}: not a format this pipeline writes (unknown magic)",
        path.display()
    )
}
