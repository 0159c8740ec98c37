//! Collision cookers: from a block's source hulls to what the Blam simulation loads.
//!
//! For each block, from the same hulls (`geometry.json`):
//! - a [`CollisionModel`]: one region per hull, each with a collision BSP in the game's
//!   packed tables ([`bsp`]), with point and ray queries over the cooked tables;
//! - a [`MoppIndex`]: Havok MOPP code over every collision surface ([`mopp`]), with box
//!   and ray queries that run the bytecode;
//! - [`Polyhedron`]s: fixed Havok convex shapes, one per hull.
//!
//! Hulls are validated first ([`hull`]): non-convex, degenerate, duplicate-point, sliver
//! and non-finite hulls are refused with a code naming the hull. [`reference`] answers the
//! same queries with parry3d on the source hulls; the tests prove the cooked structures
//! agree with it. Everything is f64 while cooking and f32 in world units when stored.
//!
//! ```
//! let cube: Vec<[f64; 3]> = (0..8).map(|i| [(i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64]).collect();
//! let hull = forge_collision::hull::build("box", "steel", &cube).unwrap();
//! let model = forge_collision::CollisionModel::build(&[hull]).unwrap();
//! assert!(model.contains([0.5, 0.5, 0.5]));
//! let hit = model.ray([0.5, 0.5, 3.0], [0.0, 0.0, -1.0], 10.0).unwrap();
//! assert!((hit.distance_m - 2.0).abs() < 1e-5);
//! ```

mod box_tree;
pub mod bsp;
mod error;
pub mod hull;
mod index;
mod inline_stack;
pub mod model;
pub mod mopp;
pub mod polyhedron;
pub mod reference;
pub mod surface_table;
mod vec3;

use forge_contract::BlockGeometry;

pub use error::CollisionError;
pub use index::MoppIndex;
pub use model::{CollisionModel, ModelHit};
pub use polyhedron::Polyhedron;

/// Cooker versions; each is part of its step's key.
pub const BSP_VERSION: u32 = 2;
pub const MOPP_VERSION: u32 = 4;
pub const POLYHEDRA_VERSION: u32 = 2;

/// The block's hulls, validated.
pub fn hulls(block: &BlockGeometry) -> Result<Vec<hull::ConvexHull>, CollisionError> {
    block
        .hulls
        .iter()
        .map(|h| hull::build(&h.name, &h.material, &h.points))
        .collect()
}

pub fn cook_bsp(block: &BlockGeometry) -> Result<CollisionModel, CollisionError> {
    CollisionModel::build(&hulls(block)?)
}

pub fn cook_mopp(model: &CollisionModel) -> Result<MoppIndex, CollisionError> {
    MoppIndex::build(model)
}

pub fn cook_polyhedra(block: &BlockGeometry) -> Result<Vec<Polyhedron>, CollisionError> {
    Ok(hulls(block)?.iter().map(Polyhedron::build).collect())
}
