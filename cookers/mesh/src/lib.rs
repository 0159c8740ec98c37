//! The mesh cooker: one block's imported mesh becomes a namespaced static mesh asset.
//!
//! [`cook`] converts the pack-space mesh ([`forge_gltf::ImportedMesh`]) to Unreal units
//! (centimetres, Y reflected, winding reversed; see `forge_units`), re-centres it on its
//! bounds centre, and records that centre as [`StaticMesh::offset_cm`]: the actor puts the
//! mesh there, which restores the authored origin. The asset lives at
//! `/Game/MJOLNIR/Forge/<pack-id>/<block-id>/SM_<block-id>`.
//!
//! The binary form (`FMSH`, [`StaticMesh::to_bytes`] / [`StaticMesh::from_bytes`]) is
//! specified in `docs/formats/static-mesh.md`. It holds what a cooked UE static mesh needs
//! from us; turning it into a `.uasset` needs the game's donor assets (see that document).
//!
//! ```
//! use forge_gltf::{ImportedMesh, Section};
//! let mesh = ImportedMesh {
//!     positions: vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 1.0]],
//!     normals: vec![[0.0, 0.0, 1.0]; 3],
//!     uvs: vec![[0.0, 0.0]; 3],
//!     triangles: vec![[0, 1, 2]],
//!     sections: vec![Section { material: "steel".into(), first_triangle: 0, triangle_count: 1 }],
//! };
//! let cooked = forge_mesh::cook("demo", "piece", &mesh).unwrap();
//! assert_eq!(cooked.asset_path, "/Game/MJOLNIR/Forge/demo/piece/SM_piece");
//! assert_eq!(cooked.offset_cm, [100.0, -100.0, 50.0]);
//! ```

mod asset;
pub mod unreal;

use forge_gltf::ImportedMesh;
use forge_units::{pack_direction_to_unreal, pack_to_unreal, unreal_triangle};

pub use asset::{MeshSection, StaticMesh, FORMAT_VERSION};

/// Version of this cooker; part of every mesh step's key.
pub const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("error[{code}]: {message}")]
pub struct MeshError {
    pub code: &'static str,
    pub message: String,
}

/// `/Game/MJOLNIR/Forge/<pack-id>/<block-id>/SM_<block-id>`.
pub fn asset_path(pack_id: &str, block_id: &str) -> String {
    format!(
        "{}{block_id}/SM_{block_id}",
        forge_contract::ids::unreal_root(pack_id)
    )
}

pub fn cook(pack_id: &str, block_id: &str, mesh: &ImportedMesh) -> Result<StaticMesh, MeshError> {
    let (lo, hi) = mesh.bounds().ok_or_else(|| MeshError {
        code: "mesh_empty",
        message: "the mesh has no vertices".into(),
    })?;
    let centre = [
        (lo[0] + hi[0]) / 2.0,
        (lo[1] + hi[1]) / 2.0,
        (lo[2] + hi[2]) / 2.0,
    ];
    let positions: Vec<[f32; 3]> = mesh
        .positions
        .iter()
        .map(|p| {
            pack_to_unreal([p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]]).map(|c| c as f32)
        })
        .collect();
    if positions.iter().flatten().any(|c| !c.is_finite()) {
        return Err(MeshError {
            code: "mesh_out_of_range",
            message: "a vertex is too far away to store in centimetres as f32".into(),
        });
    }
    let normals = mesh
        .normals
        .iter()
        .map(|n| pack_direction_to_unreal(*n).map(|c| c as f32))
        .collect();
    let uvs = mesh.uvs.iter().map(|uv| uv.map(|c| c as f32)).collect();
    let triangles = mesh.triangles.iter().map(|t| unreal_triangle(*t)).collect();
    let sections = mesh
        .sections
        .iter()
        .map(|s| MeshSection {
            material: s.material.clone(),
            first_triangle: s.first_triangle,
            triangle_count: s.triangle_count,
        })
        .collect();
    Ok(StaticMesh {
        asset_path: asset_path(pack_id, block_id),
        offset_cm: pack_to_unreal(centre),
        positions,
        normals,
        uvs,
        triangles,
        sections,
    })
}
