//! The step kinds, one file each, in flow order. A kind declares its name, its version
//! (part of every key it makes), its scope, where its outputs land in a set folder, how
//! its inputs are wired, and the adapter that calls its cooker crate.
//!
//! Adding a kind is one file here and one line in [`REGISTRY`]; nothing else matches on
//! a kind. The planner (`plan`) walks the registry in order, so a kind may wire itself to
//! any kind listed before it.

pub use common::*;
pub use engine::cooker::is_plain_relative;
pub use engine::Names;
pub use findings::finding;
pub use kind::{Lands, Scope};

pub use crate::wiring::StepKind;

pub mod actor;
pub mod archive;
pub mod assemble;
pub mod asset_copy;
pub mod asset_derive;
pub mod asset_emit;
pub mod blend;
pub mod block_chunks;
pub mod block_facts;
pub mod block_geometry;
pub mod block_group;
pub mod catalog;
pub mod checks;
mod coded;
pub mod collision;
pub mod common;
pub mod crate_index;
pub mod documents;
pub mod donors;
pub mod geometry;
pub mod import;
pub mod kind;
pub mod map;
pub mod mesh;
pub mod mopp;
pub mod polyhedra;
pub mod render;
pub mod render_params;
pub mod sheet;
pub mod tags;
pub mod unreal_actor;
pub mod unreal_material;
pub mod unreal_mesh;
pub mod view;

/// Every kind, in flow order.
pub static REGISTRY: &[&StepKind] = &[
    &catalog::KIND,
    &geometry::KIND,
    &donors::KIND,
    &blend::KIND,
    &import::KIND,
    &block_geometry::KIND,
    &mesh::KIND,
    &actor::KIND,
    &unreal_material::KIND,
    &unreal_mesh::KIND,
    &unreal_actor::KIND,
    &collision::KIND,
    &mopp::KIND,
    &polyhedra::KIND,
    &checks::KIND,
    &tags::KIND,
    &render::KIND,
    &view::KIND,
    &block_chunks::KIND,
    &block_facts::KIND,
    &block_group::KIND,
    &assemble::KIND,
    &documents::KIND,
    &crate_index::KIND,
    &archive::KIND,
    &sheet::KIND,
    &map::KIND,
];
